/* -*- P4_16 -*- */
/*
 * rdtcp_tna.p4 -- the RD-TCP gateway for Tofino 2 (T2NA, bf-p4c), a port of p4src/rdtcp.p4.
 *
 * Same EPDN semantics as the v1model program ([RDTCP] §3, §3.1; p4src/README.md):
 * per-flow table of the dropped byte range, newest-wins collision policy, stamp as the first
 * option of the flow's next forwarded data segment, merge with an upstream stamp, at edge ports
 * the source check (ingress filtering) and the strip, MTU rule, drop and reordering injection. What changes is how Tofino does each step;
 * p4src/tna/README.md maps every v1model construct to its counterpart here and lists what
 * could not be verified (there is no bf-p4c on this machine: this file has never been compiled).
 *
 * Shared with the v1model program, unchanged: include/headers.p4 (types, constants, headers,
 * metadata), include/parser_states.p4 (every parser state after the architecture's start),
 * include/routing.p4 (ipv4_lpm, l2_forward and their actions, named MyIngress.<name>).
 * The ingress is v1model's sequence of pieces, each a control of the same name (Classify, Route,
 * TrustBoundary, Impairment, Buffer, Verdict, Epdn), applied in the same order.
 *
 * Compile (where bf-p4c is installed):  bf-p4c --target tofino2 --arch t2na p4src/tna/rdtcp_tna.p4
 */
#include <core.p4>
#include <t2na.p4>

/* Architecture hooks of headers.p4: the loop state travels in bridge_t (below), not in a v1model
 * field list; the TCP checksum residual, the knobs read per packet and the pass are metadata. */
#define RDTCP_LOOP_STATE
#define RDTCP_ARCH_METADATA                                                              \
    bit<16> tcp_residual;   /* parser: TCP checksum over everything but the header fields */ \
    bit<16> len_delta;      /* pseudo-header length change, one's complement (+12 / -12) */ \
    bit<1>  has_entry;      /* the flow's fingerprint was in its EPDN slot */            \
    bit<32> pattern_len;    /* pattern_len[out port] */                                  \
    bit<1>  ipv4_csum_err;  /* parser: the IPv4 header checksum did not verify */        \
    bool    first_pass;     /* not back from a loop or a TM drop report (Classify) */
#ifndef MAX_PORTS
#define MAX_PORTS 512       /* every Tofino port number (9 bits): no aliasing across pipes */
#endif
#include "../include/headers.p4"

/* EPDN index: the low bits of the flow hash. Tofino has no modulo, so the table size is a power
 * of two here (v1model: any size, crc32 mod EPDN_ENTRIES). */
#ifndef EPDN_INDEX_BITS
#define EPDN_INDEX_BITS 16
#endif
#if (1 << EPDN_INDEX_BITS) != EPDN_ENTRIES
#error "TNA: EPDN_ENTRIES must be 2^EPDN_INDEX_BITS"
#endif
typedef bit<EPDN_INDEX_BITS> epdn_index_t;
typedef bit<17> pattern_index_t;   /* port (9 bits) * PATTERN_SLOTS (8 bits) + slot */

/* A packet inside the switch carries this header in front of Ethernet: from ingress to egress
 * (the port chosen at the first pass), around a reordering loop, and back from a TM drop. */
const bit<8> BRIDGE_FORWARD     = 0;   /* ingress -> egress; egress removes it */
const bit<8> BRIDGE_LOOP        = 1;   /* travelling through the loop port, loops_left to go */
const bit<8> BRIDGE_DROP_REPORT = 2;   /* the TM dropped it (deflect-on-drop): record, then drop */

header bridge_t {
    bit<8> kind;                      /* BRIDGE_* */
    bit<8> loops_left;                /* reordering loops still to make (v1model: field list) */
    @padding bit<7> pad;
    port_t port;                      /* egress port chosen at the first pass */
}

struct ig_headers_t {
    bridge_t                              bridge;
    ethernet_t                            ethernet;
    ipv4_t                                ipv4;
    ipv4_option_word_t[IPV4_OPTION_WORDS] ipv4_options;
    tcp_t                                 tcp;
    epdn_t                                epdn;
}

struct eg_headers_t {
    bridge_t bridge;
}

struct eg_metadata_t { }

/*************************************************************************
 *****************  I N G R E S S   P A R S E R  *************************
 *************************************************************************/
/* The TCP checksum residual (the TNA way to fix a checksum that covers the payload, which the
 * deparser cannot read): the parser's Checksum starts from the segment's checksum and subtracts
 * the header fields it extracts (and the EPDN option, if any); what is left, read once in
 * parse_tcp_done, is the sum of the pseudo-header and of every byte the gateway never changes.
 * The deparser adds the new fields back. RFC 1624 (incremental update) is the arithmetic. */
#define PARSE_TCP_HOOK                                                                    \
        tcp_csum.subtract({hdr.tcp.checksum});                                            \
        tcp_csum.subtract({hdr.tcp.src_port, hdr.tcp.dst_port, hdr.tcp.seq_no,            \
                           hdr.tcp.ack_no, hdr.tcp.data_offset, hdr.tcp.res,              \
                           hdr.tcp.flags, hdr.tcp.window, hdr.tcp.urgent_ptr});
#define PARSE_EPDN_HOOK                                                                   \
        tcp_csum.subtract({hdr.epdn.kind, hdr.epdn.len, hdr.epdn.exid,                    \
                           hdr.epdn.drop_lo, hdr.epdn.drop_hi});
#define PARSE_TCP_DONE parse_tcp_done
/* RFC 1812 §5.2.2: the IPv4 header checksum is verified (v1model: MyVerifyChecksum) over the
 * fixed header and every option word; the ingress drops a mismatch as DROP_MALFORMED. */
#define PARSE_IPV4_HOOK        ipv4_csum.add(hdr.ipv4);
#define PARSE_IPV4_OPTION_HOOK ipv4_csum.add(hdr.ipv4_options.last);
#define PARSE_IPV4_DONE_HOOK   meta.ipv4_csum_err = (bit<1>)ipv4_csum.verify();

parser IngressParser(packet_in packet,
                     out ig_headers_t hdr,
                     out metadata_t meta,
                     out ingress_intrinsic_metadata_t ig_intr_md) {
    Checksum() tcp_csum;
    Checksum() ipv4_csum;
    /* Ports whose packets come from inside the switch (the loop port, the deflect-on-drop
     * destination): they start with bridge_t. Set by the control plane. */
    value_set<port_t>(4) internal_ports;

    state start {
        packet.extract(ig_intr_md);
        packet.advance(PORT_METADATA_SIZE);
        /* The metadata is the parser's `out` parameter: every field is written here, or p4c's
         * front end warns "out parameter 'meta' may be uninitialized" (simplifyDefUse.cpp).
         * A struct initializer must name every field: a field added to metadata_t without
         * adding it here is a type error (tests/gateway/test_p4src_tna.py), not a warning. */
        meta = {
            tcp_ok = 0, is_data = 0, tcp_modified = 0, ip_hdr_bytes = 0,
            payload_len = 0, flow_hash = 0, flow_fp = 0, flow_idx = 0, entry_fp = 0, entry_lo = 0,
            entry_hi = 0, rec_lo = 0, rec_hi = 0, port_mtu = 0, drop_cause = DROP_NONE,
            impair = IMPAIR_PASS, out_port = 0, out_idx = 0, loops_left = 0, recirc_port = 0,
            tcp_residual = 0, len_delta = 0, has_entry = 0, pattern_len = 0, ipv4_csum_err = 0,
            first_pass = true
        };
        transition select(ig_intr_md.ingress_port) {
            internal_ports: parse_bridge;
            default: parse_ethernet;
        }
    }

    state parse_bridge {
        packet.extract(hdr.bridge);
        transition parse_ethernet;
    }

#include "../include/parser_states.p4"

    state parse_tcp_done {
        meta.tcp_residual = tcp_csum.get();
        transition accept;
    }
}

/*************************************************************************
 **************  I N G R E S S   P R O C E S S I N G   *******************
 *************************************************************************/
/* The ingress is the v1model program's sequence of pieces, each a control named as its
 * counterpart in ../include/ and applied in the same order by MyIngress (at the end of this
 * section): Classify (classify.p4), Route (forwarding.p4), TrustBoundary (trust.p4), Impairment
 * (impair.p4), Buffer (buffer.p4), Verdict (verdict.p4), Epdn (epdn.p4). v1model's last piece,
 * TcpChecksum, is the deparser's here (IngressDeparser: the parser's residual, RFC 1624).
 *
 * Control-plane names are API: every register and counter keeps MyIngress.<name> (an absolute
 * @name), whichever piece holds it, as in v1model. What Tofino changes in the pieces' contract:
 *  - a register is accessed at most once per packet, so legacy_router, which TrustBoundary and
 *    Epdn both act on, is read once by MyIngress and handed to them (`in bool legacy`);
 *  - a packet's pass is told by its bridge_t, not by a v1model instance type: Classify sets
 *    meta.first_pass, which the pieces read as their v1model counterparts do;
 *  - a counter is updated at most once per packet: each has one count() call. */

/* A per-port knob: v1model's register array, read through one RegisterAction. Tofino registers
 * are 8, 16 or 32 bits wide: edge_port and impair_pattern are bit<8> here (v1model: bit<1>,
 * bit<2>), alt_port is bit<16> holding the 9-bit port. An @name written before KNOB(...) names
 * the Register, the first declaration of the expansion. */
#define KNOB(T, NAME, SIZE, IDX)                                                         \
    Register<T, IDX>(SIZE, 0) NAME;                                                      \
    RegisterAction<T, IDX, T>(NAME) NAME##_read = {                                      \
        void apply(inout T v, out T rv) { rv = v; }                                      \
    };

/* ---- Classify (../include/classify.p4): what the packet is ------------------------------ */
control Classify(inout ig_headers_t hdr,
                 inout metadata_t meta,
                 in ingress_intrinsic_metadata_from_parser_t ig_prsr_md) {

    /* As v1model's classify_tcp, minus the frame-length check: a Tofino ingress does not know
     * the frame's length (README: the checksum residual stays right on padded frames). */
    action classify_tcp(in bit<16> tcp_hdr_bytes) {
        meta.tcp_ok = 1;
        meta.payload_len = (bit<32>)(hdr.ipv4.total_len - meta.ip_hdr_bytes - tcp_hdr_bytes);
    }

    apply {
        /* back inside the switch from a reordering loop or a TM drop report: its first pass
         * chose its port (v1model: instance type PKT_INSTANCE_TYPE_RECIRC) */
        meta.first_pass = !(hdr.bridge.isValid() && (hdr.bridge.kind == BRIDGE_LOOP
                                                     || hdr.bridge.kind == BRIDGE_DROP_REPORT));
        if (hdr.ipv4.isValid()) {
            meta.ip_hdr_bytes = ((bit<16>)hdr.ipv4.ihl) << 2;
            if (hdr.tcp.isValid() && ig_prsr_md.parser_err == PARSER_ERROR_OK) {
                bit<16> tcp_hdr_bytes = ((bit<16>)hdr.tcp.data_offset) << 2;
                if (hdr.tcp.data_offset >= 5
                        && hdr.ipv4.total_len >= meta.ip_hdr_bytes + tcp_hdr_bytes) {
                    classify_tcp(tcp_hdr_bytes);
                }
            }
        }
        if (meta.tcp_ok == 1 && meta.payload_len != 0) {
            meta.is_data = 1;
        }
    }
}

/* ---- Route (../include/forwarding.p4): the egress port, first pass only ------------------ */
control Route(inout ig_headers_t hdr,
              inout metadata_t meta,
              in ingress_intrinsic_metadata_t ig_intr_md) {

#define RDTCP_INGRESS_PORT ig_intr_md.ingress_port
#include "../include/routing.p4"

    apply {
        if (meta.first_pass) {
            if (hdr.ipv4.isValid()) {
                if (hdr.ipv4.version != 4 || hdr.ipv4.ihl < 5
                        || hdr.ipv4.total_len < meta.ip_hdr_bytes || meta.ipv4_csum_err == 1) {
                    drop_malformed();
                } else if (hdr.ipv4.ttl <= 1) {
                    drop_ttl();
                } else {
                    ipv4_lpm.apply();
                }
            } else {
                l2_forward.apply();
            }
        }
    }
}

/* ---- TrustBoundary (../include/trust.p4): hosts cannot forge drop reports ----------------- */
/* Who sends, then what: at an edge port, a source address the port's hosts may not use is
 * dropped, and the first-option EPDN of what passes is stripped (README, "Not ported": options
 * further in). */

/* Its drop is DROP_SPOOFED and its table's size EDGE_SOURCE_ENTRIES (../include/headers.p4),
 * never recorded in the EPDN table (Epdn records buffer, random and pattern drops only). */

control TrustBoundary(inout ig_headers_t hdr,
                      inout metadata_t meta,
                      in ingress_intrinsic_metadata_t ig_intr_md,
                      in bool legacy) {

    /* Segments stripped, at EV_STRIP: Tofino counts once per packet, and a stripped segment
     * can also raise a collision and one of record/stamp/merge/defer (Epdn), so each of the
     * three has its own counter; their sum per index is v1model's epdn_events. */
    @name(".MyIngress.epdn_strips")
    Counter<bit<32>, bit<32>>(EPDN_EVENTS, CounterType_t.PACKETS_AND_BYTES) epdn_strips;
    @name(".MyIngress.edge_port")
    KNOB(bit<8>, edge_port, MAX_PORTS, port_t)        /* 1: check sources, strip EPDN */

    /* The source check of the edge ports (ingress filtering, BCP 38 = RFC 2827 §3; why a trust
     * boundary needs it besides the strip: ../include/trust.p4), v1model's table with v1model's
     * names, so the controller's commands fill it unchanged (each edge port's `sources` in the
     * config). A port's allowed prefixes give source_ok; anything else misses, and a miss
     * drops: an edge port without entries drops rather than trusts (fail closed). An exact key
     * beside an lpm key is a ternary (TCAM) table on Tofino, the prefix length its priority. */
    @name(".MyIngress.source_ok")
    action source_ok() {
    }

    @name(".MyIngress.source_spoofed")
    action source_spoofed() {
        meta.drop_cause = DROP_SPOOFED;
    }

    @name(".MyIngress.edge_source")
    table edge_source {
        key = {
            ig_intr_md.ingress_port: exact;
            hdr.ipv4.src_addr: lpm;
        }
        actions = {
            source_ok;
            source_spoofed;
        }
        size = EDGE_SOURCE_ENTRIES;
        default_action = source_spoofed();
    }

    /* A TCP fragment from a host (edge port): the trust boundary cannot be enforced on it (a
     * forged EPDN option may sit in any fragment); dropped as DROP_MALFORMED, as in v1model. */
    action drop_edge_fragment() {
        meta.drop_cause = DROP_MALFORMED;
    }

    /* Trust boundary (p4src/include/trust.p4): hosts cannot forge drop reports. */
    action epdn_strip_option() {
        hdr.epdn.setInvalid();
        hdr.tcp.data_offset = hdr.tcp.data_offset - EPDN_WORDS;
        hdr.ipv4.total_len = hdr.ipv4.total_len - EPDN_BYTES;
        meta.len_delta = ~EPDN_BYTES;
        meta.tcp_modified = 1;
    }

    apply {
        if (meta.first_pass && meta.drop_cause == DROP_NONE && hdr.ipv4.isValid() && !legacy) {
            if (edge_port_read.execute(ig_intr_md.ingress_port) == 1) {
                /* the options only of a sender the port may have. The table's action chooses
                 * the next step: a condition on drop_cause, which the action writes, would be
                 * a match dependency, the steps after it a stage later */
                switch (edge_source.apply().action_run) {
                    source_ok: {
                        if (meta.tcp_ok == 1 && hdr.epdn.isValid()) {
                            epdn_strip_option();
                            epdn_strips.count(EV_STRIP);
                        } else if (hdr.ipv4.protocol == PROTO_TCP
                                && (hdr.ipv4.frag_offset != 0 || (hdr.ipv4.flags & 3w1) == 3w1)) {
                            drop_edge_fragment();
                        }
                    }
                }
            }
        }
    }
}

/* ---- Impairment (../include/impair.p4): injected drops and reorderings -------------------- */
control Impairment(inout ig_headers_t hdr,
                   inout metadata_t meta) {

    @name(".MyIngress.drop_prob")
    KNOB(bit<32>, drop_prob, MAX_PORTS, port_t)       /* fractions of 2^32 */
    @name(".MyIngress.recirc_prob")
    KNOB(bit<32>, recirc_prob, MAX_PORTS, port_t)
    @name(".MyIngress.alt_prob")
    KNOB(bit<32>, alt_prob, MAX_PORTS, port_t)
    @name(".MyIngress.alt_port")
    KNOB(bit<16>, alt_port, MAX_PORTS, port_t)
    @name(".MyIngress.pattern_len")
    KNOB(bit<32>, pattern_len, MAX_PORTS, port_t)
    @name(".MyIngress.impair_pattern")
    KNOB(bit<8>, impair_pattern, MAX_PORTS * PATTERN_SLOTS, pattern_index_t)

    /* pattern_pos[p]: return the slot for this segment and advance mod pattern_len[p]
     * (v1model reads, computes and writes back; a Tofino stateful ALU does it in one step). */
    @name(".MyIngress.pattern_pos")
    Register<bit<32>, port_t>(MAX_PORTS, 0) pattern_pos;
    RegisterAction<bit<32>, port_t, bit<32>>(pattern_pos) pattern_pos_next = {
        void apply(inout bit<32> pos, out bit<32> slot) {
            slot = pos;
            if (pos + 1 >= meta.pattern_len) {
                pos = 0;
            } else {
                pos = pos + 1;
            }
        }
    };

    Random<bit<32>>() drop_rng;      /* one independent draw per knob, as v1model's random() */
    Random<bit<32>>() recirc_rng;
    Random<bit<32>>() alt_rng;

    apply {
        /* the pattern, else one draw per probability */
        if (meta.first_pass && meta.drop_cause == DROP_NONE && meta.is_data == 1) {
            meta.pattern_len = pattern_len_read.execute(meta.out_port);
            if (meta.pattern_len != 0) {
                bit<32> slot = pattern_pos_next.execute(meta.out_port);
                if (slot >= meta.pattern_len || slot >= PATTERN_SLOTS) {
                    slot = 0;
                }
                pattern_index_t at = (((pattern_index_t)meta.out_port) << PATTERN_SLOTS_LOG2)
                                     | (pattern_index_t)slot;
                meta.impair = (bit<2>)impair_pattern_read.execute(at);
                if (meta.impair == IMPAIR_DROP) {
                    meta.drop_cause = DROP_PATTERN;
                }
            } else {
                bit<32> p_drop = drop_prob_read.execute(meta.out_port);
                bit<32> p_recirc = recirc_prob_read.execute(meta.out_port);
                bit<32> p_alt = alt_prob_read.execute(meta.out_port);
                bit<32> r_drop = drop_rng.get();
                bit<32> r_recirc = recirc_rng.get();
                bit<32> r_alt = alt_rng.get();
                if (r_drop < p_drop) {
                    meta.impair = IMPAIR_DROP;
                    meta.drop_cause = DROP_RANDOM;
                } else if (r_recirc < p_recirc) {
                    meta.impair = IMPAIR_RECIRC;
                } else if (r_alt < p_alt) {
                    meta.impair = IMPAIR_ALT;
                }
            }
            if (meta.impair == IMPAIR_ALT) {
                meta.out_port = (port_t)alt_port_read.execute(meta.out_port);
            }
        }
    }
}

/* ---- Buffer (../include/buffer.p4): the traffic manager's queue --------------------------- */
/* v1model keeps a virtual queue and drops in ingress at buffer_limit[p]; here the limit is the
 * TM queue's own. Every packet leaves with deflect-on-drop (Verdict): a packet the queue cannot
 * take goes to the deflection port (an internal port) instead of being dropped, the egress marks
 * it BRIDGE_DROP_REPORT, and it comes back here to be dropped as DROP_BUFFER, where Verdict
 * counts it and Epdn records it (p4src/README.md, "Why the program keeps its own queue count"). */
control Buffer(inout ig_headers_t hdr,
               inout metadata_t meta) {
    apply {
        if (hdr.bridge.isValid() && hdr.bridge.kind == BRIDGE_DROP_REPORT) {
            meta.drop_cause = DROP_BUFFER;
            meta.out_port = hdr.bridge.port;
        }
    }
}

/* ---- Verdict (../include/verdict.p4): drop and count, or leave for the TM ----------------- */
control Verdict(inout ig_headers_t hdr,
                inout metadata_t meta,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    @name(".MyIngress.drops")
    Counter<bit<32>, bit<8>>(DROP_CAUSES, CounterType_t.PACKETS_AND_BYTES) drops;
    @name(".MyIngress.port_drops")
    Counter<bit<32>, port_t>(MAX_PORTS, CounterType_t.PACKETS_AND_BYTES) port_drops;
    @name(".MyIngress.reorders")
    Counter<bit<32>, bit<32>>(REORDER_KINDS, CounterType_t.PACKETS_AND_BYTES) reorders;
    @name(".MyIngress.recirc_loops")
    KNOB(bit<8>, recirc_loops, MAX_PORTS, port_t)
    @name(".MyIngress.loop_port")
    KNOB(bit<16>, loop_port, 1, bit<1>)               /* TNA only: the internal port loops use */

    action drop_here() {
        ig_dprsr_md.drop_ctl = 1;
    }

    /* Every packet that goes on to the traffic manager carries bridge_t to the egress, and
     * asks for deflect-on-drop (Buffer). */
    action bridge_to(port_t port, bit<8> kind, bit<8> loops, port_t via) {
        hdr.bridge.setValid();
        hdr.bridge.kind = kind;
        hdr.bridge.loops_left = loops;
        hdr.bridge.port = port;
        ig_tm_md.ucast_egress_port = via;
        ig_tm_md.deflect_on_drop = 1;
    }

    apply {
        port_t loop = (port_t)loop_port_read.execute(0);
        bit<32> reordered = REORDER_KINDS;    /* the one reorders cell this packet counts */
        if (meta.drop_cause != DROP_NONE) {
            drop_here();
            drops.count(meta.drop_cause);
            if (meta.drop_cause == DROP_BUFFER || meta.drop_cause == DROP_RANDOM
                    || meta.drop_cause == DROP_PATTERN) {
                port_drops.count(meta.out_port);
            }
        } else if (hdr.bridge.isValid() && hdr.bridge.kind == BRIDGE_LOOP) {
            /* a reordering loop: once more through the loop port, or out */
            if (hdr.bridge.loops_left > 1) {
                bridge_to(hdr.bridge.port, BRIDGE_LOOP, hdr.bridge.loops_left - 1, loop);
            } else {
                bridge_to(hdr.bridge.port, BRIDGE_FORWARD, 0, hdr.bridge.port);
            }
        } else {
            /* first pass: straight out, or into a reordering loop ([RDTCP] §7) */
            bit<8> loops = 0;
            if (meta.impair == IMPAIR_RECIRC) {
                loops = recirc_loops_read.execute(meta.out_port);
            }
            if (loops != 0) {
                bridge_to(meta.out_port, BRIDGE_LOOP, loops, loop);
                reordered = REORDER_RECIRC;
            } else {
                bridge_to(meta.out_port, BRIDGE_FORWARD, 0, meta.out_port);
            }
            if (meta.impair == IMPAIR_ALT) {
                reordered = REORDER_ALT;
            }
        }
        if (reordered != REORDER_KINDS) {
            reorders.count(reordered);
        }
    }
}

/* ---- Epdn (../include/epdn.p4): drops recorded, stamps inserted or merged ----------------- */
control Epdn(inout ig_headers_t hdr,
             inout metadata_t meta,
             in bool legacy) {

    /* By EV_*; strips are TrustBoundary's epdn_strips, collisions the next counter (one count
     * per counter per packet). */
    @name(".MyIngress.epdn_events")
    Counter<bit<32>, bit<32>>(EPDN_EVENTS, CounterType_t.PACKETS_AND_BYTES) epdn_events;
    @name(".MyIngress.epdn_collisions")
    Counter<bit<32>, bit<32>>(EPDN_EVENTS, CounterType_t.PACKETS_AND_BYTES) epdn_collisions;
    @name(".MyIngress.port_mtu")
    KNOB(bit<16>, port_mtu, MAX_PORTS, port_t)        /* IP MTU in bytes; 0 = DEFAULT_MTU */

    /* The EPDN table: three Register arrays, 12 bytes per entry (as v1model). */
    Hash<bit<32>>(HashAlgorithm_t.CRC32) flow_hash_fn;   /* the slot */
    Hash<bit<32>>(HashAlgorithm_t.CRC32) flow_fp_fn;     /* the fingerprint, fields reordered */
    @name(".MyIngress.epdn_fp")
    Register<bit<32>, epdn_index_t>(EPDN_ENTRIES, 0) epdn_fp;
    @name(".MyIngress.epdn_lo")
    Register<seq_t, epdn_index_t>(EPDN_ENTRIES, 0) epdn_lo;
    @name(".MyIngress.epdn_hi")
    Register<seq_t, epdn_index_t>(EPDN_ENTRIES, 0) epdn_hi;

    /* Record ([RDTCP] §3.1): the slot becomes this flow's (newest wins); the fingerprint that was
     * there says whether to widen (same flow) or count a collision (another flow's). */
    RegisterAction<bit<32>, epdn_index_t, bit<32>>(epdn_fp) epdn_fp_claim = {
        void apply(inout bit<32> fp, out bit<32> previous) {
            previous = fp;
            fp = meta.flow_fp;
        }
    };
    /* Stamp or merge: the range leaves in this segment; clear the slot if it is ours. */
    RegisterAction<bit<32>, epdn_index_t, bit<32>>(epdn_fp) epdn_fp_take = {
        void apply(inout bit<32> fp, out bit<32> previous) {
            previous = fp;
            if (fp == meta.flow_fp) {
                fp = 0;
            }
        }
    };
    /* Deferred (MTU, no room): look only; the entry waits for a segment that fits. */
    RegisterAction<bit<32>, epdn_index_t, bit<32>>(epdn_fp) epdn_fp_peek = {
        void apply(inout bit<32> fp, out bit<32> previous) {
            previous = fp;
        }
    };
    /* min / max in sequence space (RFC 9293 §3.4), starting afresh on another flow's slot. */
    RegisterAction<seq_t, epdn_index_t, seq_t>(epdn_lo) epdn_lo_record = {
        void apply(inout seq_t lo) {
            if (meta.has_entry == 0 || SEQ_LT(meta.rec_lo, lo)) {
                lo = meta.rec_lo;
            }
        }
    };
    RegisterAction<seq_t, epdn_index_t, seq_t>(epdn_hi) epdn_hi_record = {
        void apply(inout seq_t hi) {
            if (meta.has_entry == 0 || SEQ_LT(hi, meta.rec_hi)) {
                hi = meta.rec_hi;
            }
        }
    };
    RegisterAction<seq_t, epdn_index_t, seq_t>(epdn_lo) epdn_lo_take = {
        void apply(inout seq_t lo, out seq_t taken) {
            taken = lo;
            lo = 0;
        }
    };
    RegisterAction<seq_t, epdn_index_t, seq_t>(epdn_hi) epdn_hi_take = {
        void apply(inout seq_t hi, out seq_t taken) {
            taken = hi;
            hi = 0;
        }
    };

    /* The flow's slot and fingerprint: two crc32 of the data direction's 5-tuple, the second
     * over the fields in another order, so all 32 fingerprint bits discriminate (epdn.p4). */
    action epdn_flow_hash() {
        meta.flow_hash = flow_hash_fn.get({hdr.ipv4.src_addr, hdr.ipv4.dst_addr,
                                           hdr.ipv4.protocol, hdr.tcp.src_port,
                                           hdr.tcp.dst_port});
        meta.flow_fp = flow_fp_fn.get({hdr.ipv4.dst_addr, hdr.ipv4.src_addr,
                                       hdr.tcp.dst_port, hdr.tcp.src_port,
                                       hdr.ipv4.protocol});
    }

    /* [RDTCP] §3.1 "Recording information about dropped packets": the segment's byte range. */
    action epdn_range_of_segment() {
        meta.rec_lo = hdr.tcp.seq_no;
        meta.rec_hi = hdr.tcp.seq_no + meta.payload_len;
    }

    /* [RDTCP] §3.1 "Processing the data packets at the gateway": the first option (RFC 9293 §3.1).
     * len_delta adds 12 to the pseudo-header length, in one's complement: after a strip it
     * was ~12 (0xFFF3), and 0xFFF3 + 12 = 0xFFFF, one's complement zero: no net change. */
    action epdn_insert_option() {
        hdr.epdn.setValid();
        hdr.epdn.kind = TCP_OPT_EPDN;
        hdr.epdn.len = EPDN_LEN;
        hdr.epdn.exid = EPDN_EXID;
        hdr.epdn.drop_lo = meta.entry_lo;
        hdr.epdn.drop_hi = meta.entry_hi;
        hdr.tcp.data_offset = hdr.tcp.data_offset + EPDN_WORDS;
        hdr.ipv4.total_len = hdr.ipv4.total_len + EPDN_BYTES;
        meta.len_delta = meta.len_delta + EPDN_BYTES;
        meta.tcp_modified = 1;
    }

    apply {
        bit<32> event = EPDN_EVENTS;          /* the one epdn_events cell this packet counts */
        /* a legacy router keeps no EPDN table: it neither records nor stamps */
        if (meta.is_data == 1 && !legacy) {
            epdn_flow_hash();
            if (meta.flow_fp == 0) {
                meta.flow_fp = 1;                                     /* 0 means empty */
            }
            meta.flow_idx = meta.flow_hash & (EPDN_ENTRIES - 1);
            if (meta.drop_cause == DROP_BUFFER || meta.drop_cause == DROP_RANDOM
                    || meta.drop_cause == DROP_PATTERN) {
                /* a congestion or injected drop: its range is recorded */
                epdn_range_of_segment();
                if (hdr.epdn.isValid()) {
                    /* [RDTCP] §3: a dropped stamp's range travels on in this record */
                    if (SEQ_LT(hdr.epdn.drop_lo, meta.rec_lo)) {
                        meta.rec_lo = hdr.epdn.drop_lo;
                    }
                    if (SEQ_LT(meta.rec_hi, hdr.epdn.drop_hi)) {
                        meta.rec_hi = hdr.epdn.drop_hi;
                    }
                }
                meta.entry_fp = epdn_fp_claim.execute((epdn_index_t)meta.flow_idx);
                if (meta.entry_fp == meta.flow_fp) {
                    meta.has_entry = 1;
                } else if (meta.entry_fp != 0) {
                    epdn_collisions.count(EV_COLLISION);   /* newest wins */
                }
                epdn_lo_record.execute((epdn_index_t)meta.flow_idx);
                epdn_hi_record.execute((epdn_index_t)meta.flow_idx);
                event = EV_RECORD;
            } else if (meta.drop_cause == DROP_NONE && meta.first_pass) {
                /* forwarded: stamp or merge the flow's pending range, or defer it */
                bit<16> mtu16 = port_mtu_read.execute(meta.out_port);
                meta.port_mtu = (mtu16 == 0) ? DEFAULT_MTU : (bit<32>)mtu16;
                bool room = hdr.tcp.data_offset <= TCP_MAX_DOFF_FOR_EPDN;
                bool fits = (bit<32>)hdr.ipv4.total_len + (bit<32>)EPDN_BYTES <= meta.port_mtu;
                if (hdr.epdn.isValid() || (room && fits)) {
                    meta.entry_fp = epdn_fp_take.execute((epdn_index_t)meta.flow_idx);
                    if (meta.entry_fp == meta.flow_fp) {
                        meta.entry_lo = epdn_lo_take.execute((epdn_index_t)meta.flow_idx);
                        meta.entry_hi = epdn_hi_take.execute((epdn_index_t)meta.flow_idx);
                        if (hdr.epdn.isValid()) {
                            /* merge: one option holds the union of both ranges */
                            if (SEQ_LT(meta.entry_lo, hdr.epdn.drop_lo)) {
                                hdr.epdn.drop_lo = meta.entry_lo;
                            }
                            if (SEQ_LT(hdr.epdn.drop_hi, meta.entry_hi)) {
                                hdr.epdn.drop_hi = meta.entry_hi;
                            }
                            meta.tcp_modified = 1;
                            event = EV_MERGE;
                        } else {
                            epdn_insert_option();
                            event = EV_STAMP;
                        }
                    }
                } else {
                    meta.entry_fp = epdn_fp_peek.execute((epdn_index_t)meta.flow_idx);
                    if (meta.entry_fp == meta.flow_fp) {
                        event = room ? EV_DEFER_MTU : EV_DEFER_NO_ROOM;
                    }
                }
            }
        }
        if (event != EPDN_EVENTS) {
            epdn_events.count(event);
        }
    }
}

/* ---- MyIngress: the pieces, in v1model's order ------------------------------------------- */
control MyIngress(inout ig_headers_t hdr,
                  inout metadata_t meta,
                  in ingress_intrinsic_metadata_t ig_intr_md,
                  in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                  inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                  inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    /* 1: a legacy router, one not upgraded to RD-TCP ([RDTCP] §7, incremental deployment; v1model's
     * bit<1> register of the same name, ../README.md "Legacy router"): no EPDN record, stamp,
     * merge or strip, and fragments pass an edge port; routing, impairments, the queue and the
     * counters as always. Read once per packet, here, as a Tofino register allows, and handed
     * to the two pieces that act on it. */
    KNOB(bit<8>, legacy_router, 1, bit<1>)

    Classify() classify;
    Route() route;
    TrustBoundary() trust_boundary;
    Impairment() impairment;
    Buffer() buffer;
    Verdict() verdict;
    Epdn() epdn;

    apply {
        bool legacy = legacy_router_read.execute(0) == 1;
        classify.apply(hdr, meta, ig_prsr_md);
        route.apply(hdr, meta, ig_intr_md);
        trust_boundary.apply(hdr, meta, ig_intr_md, legacy);
        impairment.apply(hdr, meta);
        buffer.apply(hdr, meta);
        verdict.apply(hdr, meta, ig_dprsr_md, ig_tm_md);
        epdn.apply(hdr, meta, legacy);
    }
}
#undef KNOB

/*************************************************************************
 ****************  I N G R E S S   D E P A R S E R  **********************
 *************************************************************************/
control IngressDeparser(packet_out packet,
                        inout ig_headers_t hdr,
                        in metadata_t meta,
                        in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Checksum() ipv4_csum;
    Checksum() tcp_csum;

    apply {
        /* IPv4 header checksum on every IPv4 packet (RFC 791 §3.1; options of invalid stack
         * entries are not part of the header and not summed). */
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.hdr_checksum = ipv4_csum.update({
                hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
                hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
                hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr,
                hdr.ipv4_options[0].word, hdr.ipv4_options[1].word, hdr.ipv4_options[2].word,
                hdr.ipv4_options[3].word, hdr.ipv4_options[4].word, hdr.ipv4_options[5].word,
                hdr.ipv4_options[6].word, hdr.ipv4_options[7].word, hdr.ipv4_options[8].word,
                hdr.ipv4_options[9].word });
        }
        /* TCP checksum only when the gateway changed the segment: new header fields, the EPDN
         * option if present, the length change, and the parser's residual (RFC 1624). */
        if (meta.tcp_modified == 1) {
            hdr.tcp.checksum = tcp_csum.update({
                hdr.tcp.src_port, hdr.tcp.dst_port, hdr.tcp.seq_no, hdr.tcp.ack_no,
                hdr.tcp.data_offset, hdr.tcp.res, hdr.tcp.flags, hdr.tcp.window,
                hdr.tcp.urgent_ptr,
                hdr.epdn.kind, hdr.epdn.len, hdr.epdn.exid, hdr.epdn.drop_lo, hdr.epdn.drop_hi,
                meta.len_delta, meta.tcp_residual });
        }
        packet.emit(hdr.bridge);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.ipv4_options);
        packet.emit(hdr.tcp);
        packet.emit(hdr.epdn);
    }
}

/*************************************************************************
 ****************  E G R E S S  ******************************************
 *************************************************************************/
/* The egress only looks at bridge_t; everything after it is payload, emitted unchanged. */
parser EgressParser(packet_in packet,
                    out eg_headers_t hdr,
                    out eg_metadata_t meta,
                    out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        packet.extract(eg_intr_md);
        packet.extract(hdr.bridge);
        transition accept;
    }
}

control MyEgress(inout eg_headers_t hdr,
                 inout eg_metadata_t meta,
                 in egress_intrinsic_metadata_t eg_intr_md,
                 in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                 inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                 inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
        if (eg_intr_md.deflection_flag == 1) {
            /* The TM could not queue it for hdr.bridge.port: back to ingress as a report
             * (the deflection port is an internal port, see internal_ports). */
            hdr.bridge.kind = BRIDGE_DROP_REPORT;
        } else if (hdr.bridge.kind != BRIDGE_LOOP) {
            hdr.bridge.setInvalid();    /* leaving the switch: the frame as it arrived + edits */
        }
    }
}

control EgressDeparser(packet_out packet,
                       inout eg_headers_t hdr,
                       in eg_metadata_t meta,
                       in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        packet.emit(hdr.bridge);
    }
}

/*************************************************************************
 ***********************  S W I T C H  ***********************************
 *************************************************************************/
Pipeline(IngressParser(),
         MyIngress(),
         IngressDeparser(),
         EgressParser(),
         MyEgress(),
         EgressDeparser()) pipe;

Switch(pipe) main;
