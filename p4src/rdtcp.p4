/* -*- P4_16 -*- */
/*
 * rdtcp.p4 -- the RD-TCP gateway for v1model (simple_switch).
 *
 * An IPv4 router that records, per flow, the sequence range of the TCP data segments it drops
 * and stamps that range as an EPDN option into the flow's next forwarded data segment
 * (seeds/003-rd-tcp-epdn.txt §3, §3.1), plus the drop and reordering injection experiments use.
 * Ports, tables, registers, counters, the collision policy and every knob: p4src/README.md.
 *
 * Compile: rdtcp-p4c p4src/rdtcp.p4 -o build/rdtcp.json      (or p4c-bm2-ss, same arguments)
 * Sizes:   -D EPDN_ENTRIES=N (default 65536), -D MAX_PORTS=N (power of two, default 64)
 */
#include <core.p4>
#include <v1model.p4>

#include "include/headers.p4"
#include "include/parser.p4"
#include "include/buffer.p4"
#include "include/checksums.p4"

/* v1model instance type of a recirculated packet, as simple_switch sets it (simple_switch.md).
 * Only the values the program tests are declared: p4c warns about every unused constant
 * (frontends/p4/unusedDeclarations.cpp, "'X' is unused"). */
const bit<32> PKT_INSTANCE_TYPE_RECIRC = 4;

/* RFC 9293 §3.2: the option kinds without a length byte (walked by trust.p4). */
const bit<8> TCP_OPT_EOL = 0;      /* End of Option List: what follows is padding */
const bit<8> TCP_OPT_NOP = 1;      /* No-Operation: one byte */

/*************************************************************************
 **************  I N G R E S S   P R O C E S S I N G   *******************
 *************************************************************************/
control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {

#include "include/forwarding.p4"
#include "include/epdn.p4"
#include "include/trust.p4"
#include "include/impair.p4"

    /* A whole, consistent TCP segment: the only kind the gateway reads or rewrites. A truncated
     * or inconsistent one (parser error, data offset < 5, lengths that do not add up, a frame
     * shorter than the IP total length) is forwarded as plain IP, untouched. */
    action classify_tcp(in bit<16> tcp_hdr_bytes) {
        meta.tcp_ok = 1;
        meta.tcp_csum_acc = (bit<32>)(~hdr.tcp.checksum);     /* ~HC of RFC 1624 eqn. 3 (epdn.p4) */
        meta.payload_len = (bit<32>)(hdr.ipv4.total_len - meta.ip_hdr_bytes - tcp_hdr_bytes);
        meta.is_data = (meta.payload_len != 0) ? 1w1 : 1w0;
    }

    action set_out_index() {
        meta.out_idx = ((bit<32>)meta.out_port) & PORT_INDEX_MASK;
    }

    apply {
        bool first_pass = standard_metadata.instance_type != PKT_INSTANCE_TYPE_RECIRC;
        bit<32> frame_ip_bytes = standard_metadata.packet_length - 14;
        meta.drop_cause = DROP_NONE;
        meta.impair = IMPAIR_PASS;
        meta.tcp_modified = 0;
        meta.tcp_ok = 0;
        meta.is_data = 0;
        meta.entry_ours = 0;

        /* ---- 1. classify ---------------------------------------------------------------- */
        if (hdr.ipv4.isValid()) {
            meta.ip_hdr_bytes = ((bit<16>)hdr.ipv4.ihl) << 2;
            if (hdr.tcp.isValid() && standard_metadata.parser_error == error.NoError) {
                bit<16> tcp_hdr_bytes = ((bit<16>)hdr.tcp.data_offset) << 2;
                if (hdr.tcp.data_offset >= 5
                        && hdr.ipv4.total_len >= meta.ip_hdr_bytes + tcp_hdr_bytes
                        && (bit<32>)hdr.ipv4.total_len <= frame_ip_bytes) {
                    classify_tcp(tcp_hdr_bytes);
                }
            }
        }
        if (meta.is_data == 1) {
            epdn_slot();
            if (meta.entry_fp != 0) {
                epdn_fingerprint();
                if (meta.entry_fp == meta.flow_fp) {
                    epdn_read_entry();
                }
            }
        }

        /* ---- 2. route (a reordering loop re-enters the port chosen on the first pass) ------ */
        if (!first_pass) {
            meta.out_port = meta.recirc_port;
        } else if (hdr.ipv4.isValid()) {
            if (hdr.ipv4.version != 4 || hdr.ipv4.ihl < 5
                    || hdr.ipv4.total_len < meta.ip_hdr_bytes
                    || (bit<32>)hdr.ipv4.total_len > frame_ip_bytes
                    || standard_metadata.checksum_error == 1) {
                drop_malformed();
            } else if (hdr.ipv4.ttl <= 1) {
                drop_ttl();
            } else {
                ipv4_lpm.apply();
            }
        } else {
            l2_forward.apply();
        }
        set_out_index();

        /* ---- 3. trust boundary (edge ports), then impairments (first pass, TCP only) -------- */
        bool tcp_fragment = hdr.ipv4.isValid() && hdr.ipv4.protocol == PROTO_TCP
                            && (hdr.ipv4.frag_offset != 0 || (hdr.ipv4.flags & 3w1) == 3w1);
        if (first_pass && meta.drop_cause == DROP_NONE
                && ((meta.tcp_ok == 1 && (hdr.epdn.isValid() || meta.opt_words != 0))
                    || tcp_fragment)) {
            bit<1> edge = 0;
            edge_port.read(edge, ((bit<32>)standard_metadata.ingress_port) & PORT_INDEX_MASK);
            if (edge == 1 && tcp_fragment) {
                drop_edge_fragment();
            } else if (edge == 1) {
                if (meta.opt_words != 0) {
                    find_epdn_kind();
                    if (meta.opt_fd == 1) {
                        WALK_TCP_OPTIONS_29
                    }
                }
                if (hdr.epdn.isValid() || meta.forged_n != 0) {
                    epdn_events.count(EV_STRIP);
                }
                if (hdr.epdn.isValid()) {
                    epdn_strip_option();
                }
                /* the options further in, the last found first, so the offsets before it hold */
                if (meta.forged_n != 0) {
                    cut_tcp_option(meta.forged_at[7:0]);
                    if (meta.forged_n >= 2) {
                        cut_tcp_option(meta.forged_at[15:8]);
                    }
                    if (meta.forged_n >= 3) {
                        cut_tcp_option(meta.forged_at[23:16]);
                    }
                    clear_option_bytes();
                    if ((meta.opt_words & 4) != 0) {
                        write_option_bytes_16();
                    }
                    if ((meta.opt_words & 2) != 0) {
                        write_option_bytes_8();
                    }
                    if ((meta.opt_words & 1) != 0) {
                        write_option_bytes_4();
                    }
                }
            }
        }
        if (first_pass && meta.drop_cause == DROP_NONE && meta.is_data == 1) {
            bit<32> plen = 0;
            pattern_len.read(plen, meta.out_idx);
            if (plen != 0) {
                /* 1. the control plane's pattern: slot k mod len of this port */
                bit<32> pos = 0;
                pattern_pos.read(pos, meta.out_idx);
                if (pos >= plen || pos >= PATTERN_SLOTS) {
                    pos = 0;
                }
                impair_pattern.read(meta.impair, (meta.out_idx << PATTERN_SLOTS_LOG2) + pos);
                pos = pos + 1;
                if (pos >= plen) {
                    pos = 0;
                }
                pattern_pos.write(meta.out_idx, pos);
                if (meta.impair == IMPAIR_DROP) {
                    impair_drop(DROP_PATTERN);
                }
            } else {
                /* 2. probabilities, one independent draw each */
                bit<32> p = 0;
                drop_prob.read(p, meta.out_idx);
                if (p != 0) {
                    impair_draw(p, IMPAIR_DROP);
                }
                if (meta.impair == IMPAIR_PASS) {
                    recirc_prob.read(p, meta.out_idx);
                    if (p != 0) {
                        impair_draw(p, IMPAIR_RECIRC);
                    }
                }
                if (meta.impair == IMPAIR_PASS) {
                    alt_prob.read(p, meta.out_idx);
                    if (p != 0) {
                        impair_draw(p, IMPAIR_ALT);
                    }
                }
                if (meta.impair == IMPAIR_DROP) {
                    impair_drop(DROP_RANDOM);
                }
            }
            if (meta.impair == IMPAIR_ALT) {
                port_t alt = 0;
                alt_port.read(alt, meta.out_idx);
                impair_alternate_port(alt);
            }
        }

        /* ---- 4. the buffer limit (buffer.p4): admit to the port's virtual queue or drop ---- */
        if (meta.drop_cause == DROP_NONE) {
            bit<32> qlen = 0;
            bit<32> limit = 0;
            port_qlen.read(qlen, meta.out_idx);
            buffer_limit.read(limit, meta.out_idx);
            if (limit != 0 && qlen >= limit) {
                meta.drop_cause = DROP_BUFFER;
            } else {
                port_qlen.write(meta.out_idx, qlen + 1);
            }
        }

        /* ---- 5a. dropped: count; a congestion or injected drop of data is recorded --------- */
        if (meta.drop_cause != DROP_NONE) {
            mark_to_drop(standard_metadata);
            drops.count((bit<32>)meta.drop_cause);
            if (meta.drop_cause == DROP_BUFFER || meta.drop_cause == DROP_RANDOM
                    || meta.drop_cause == DROP_PATTERN) {
                port_drops.count(meta.out_idx);
                if (meta.is_data == 1) {
                    epdn_range_of_segment();
                    if (hdr.epdn.isValid()) {
                        epdn_widen_by_carried_stamp();
                    }
                    if (meta.entry_ours == 1) {
                        epdn_widen_by_entry();
                    } else if (meta.entry_fp != 0) {
                        epdn_events.count(EV_COLLISION);
                    } else {
                        epdn_fingerprint();       /* an empty slot: not needed until now */
                    }
                    epdn_store();
                }
            }
        /* ---- 5b. forwarded: stamp the flow's pending range (first pass, data only) --------- */
        } else {
            standard_metadata.egress_spec = meta.out_port;
            if (first_pass && meta.is_data == 1 && meta.entry_ours == 1) {
                bit<16> mtu16 = 0;
                port_mtu.read(mtu16, meta.out_idx);
                meta.port_mtu = (mtu16 == 0) ? DEFAULT_MTU : (bit<32>)mtu16;
                if (hdr.epdn.isValid()) {
                    epdn_merge_option();
                    epdn_clear_entry();
                } else if (hdr.tcp.data_offset > TCP_MAX_DOFF_FOR_EPDN) {
                    /* no room for 12 more option bytes in a 60-byte TCP header */
                    epdn_events.count(EV_DEFER_NO_ROOM);
                } else if ((bit<32>)hdr.ipv4.total_len + (bit<32>)EPDN_BYTES > meta.port_mtu) {
                    /* MTU rule (design.md): keep the entry for the flow's next segment that fits */
                    epdn_events.count(EV_DEFER_MTU);
                } else {
                    epdn_insert_option();
                    epdn_clear_entry();
                }
            }
            if (first_pass && meta.impair == IMPAIR_RECIRC) {
                bit<8> loops = 0;
                recirc_loops.read(loops, meta.out_idx);
                if (loops != 0) {
                    meta.recirc_port = meta.out_port;
                    impair_recirculate(loops);
                }
            }
            if (first_pass && meta.impair == IMPAIR_ALT) {
                reorders.count(REORDER_ALT);
            }
        }

        if (meta.tcp_modified == 1) {
            tcp_checksum_finish();
        }
    }
}

/*************************************************************************
 ****************  E G R E S S   P R O C E S S I N G   *******************
 *************************************************************************/
control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        /* The packet left the port's queue: leave the virtual queue (buffer.p4). */
        bit<32> idx = ((bit<32>)standard_metadata.egress_port) & PORT_INDEX_MASK;
        bit<32> qlen = 0;
        port_qlen.read(qlen, idx);
        port_qlen.write(idx, qlen |-| 1);

        /* A reordering loop: back to ingress, which queues it again on recirc_port. */
        if (meta.loops_left != 0) {
            meta.loops_left = meta.loops_left - 1;
            recirculate_preserving_field_list(FL_RECIRC);
        }
    }
}

/*************************************************************************
 ***********************  S W I T C H  ***********************************
 *************************************************************************/
V1Switch(
    MyParser(),
    MyVerifyChecksum(),
    MyIngress(),
    MyEgress(),
    MyComputeChecksum(),
    MyDeparser()
) main;
