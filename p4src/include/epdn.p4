/*
 * epdn.p4 -- Epdn, the piece of MyIngress that keeps the per-flow EPDN table of RD-TCP
 * ([RDTCP] §3, §3.1): a dropped data segment is recorded, the flow's next
 * forwarded data segment is stamped. Its registers keep their names, MyIngress.epdn_fp etc.
 *
 * Table: three register arrays of EPDN_ENTRIES cells, 12 bytes per entry (the paper's §3.2
 * estimate is 16 B: flow id, min, max, pointer; an array index replaces the pointer):
 *   epdn_fp[i]  the flow's fingerprint: a second crc32 of the 5-tuple, fields in another order
 *               (dst, src, dport, sport, proto); 0 = empty
 *   epdn_lo[i]  lowest first sequence number of the segments dropped since the last stamp
 *   epdn_hi[i]  highest end sequence number (seq + payload length) of those segments
 * Index i = crc32(src, dst, proto, sport, dport) mod EPDN_ENTRIES.
 *
 * Why two hashes: with the index's own crc32 as fingerprint, the log2(EPDN_ENTRIES) bits that
 * chose the slot are equal for every flow in it, so only the other 16 bits (at 65536 entries) tell
 * two flows of one slot apart, and a false match (2^-16 per colliding pair) stamps one flow's
 * drop range into another flow's segment. CRC-32 is linear over GF(2); the reordered field list
 * is another linear map of the 104-bit 5-tuple, and the 16 index bits and the 32 fingerprint bits
 * together have rank 48 (checked in tests/gateway/test_gateway_lib.py), so a false match needs all
 * 32 fingerprint bits equal (2^-32 per colliding pair), and flows that differ only in their ports
 * never match falsely at all.
 *
 * Legacy router (legacy_router = 1, [RDTCP] §7): the table is neither read nor written; a segment
 * leaves as it came, an upstream gateway's stamp included, and a dropped segment's report (its
 * own range, or the stamp it carried) is lost.
 *
 * Collision policy (newest wins): a drop of flow F landing on a live entry of another flow G
 * overwrites G's entry and counts EV_COLLISION: G's pending report is lost, and G's receiver
 * treats that gap as reordering (the paper's fallback, [RDTCP] §3: RTO or 3+k dupacks). Keeping the
 * incumbent instead would let an entry of a finished flow block its slot for ever; evicting keeps
 * the table self-cleaning without timers. Two flows with the same index and the same fingerprint
 * are indistinguishable (probability 2^-32 per colliding pair, see above): not countable.
 */

#ifndef RDTCP_EPDN_P4
#define RDTCP_EPDN_P4

/* EPDN events by EV_* (headers.p4). At the top level because TrustBoundary (trust.p4) counts its
 * strips in it too; named as the API names it. */
@name(".MyIngress.epdn_events")
counter(EPDN_EVENTS, CounterType.packets_and_bytes) epdn_events;

/* 1: this switch is a legacy router, one not upgraded to RD-TCP ([RDTCP] §7, "incremental
 * deployment ... some routers in a network which have not been upgraded to use our mechanism").
 * It forwards and queues as the gateway does (the same buffer limit, RED, impairments, counters)
 * but records no drop and stamps no segment (Epdn), and strips no option (TrustBoundary): an
 * EPDN option passes through it as any option would. One cell, written by the controller
 * (`legacy = true`); 0, the RD-TCP gateway, by default. At the top level because both pieces
 * read it. */
@name(".MyIngress.legacy_router")
register<bit<1>>(1) legacy_router;

control Epdn(inout headers_t hdr,
             inout metadata_t meta,
             inout standard_metadata_t standard_metadata) {

    @name(".MyIngress.epdn_fp")
    register<bit<32>>(EPDN_ENTRIES) epdn_fp;
    @name(".MyIngress.epdn_lo")
    register<seq_t>(EPDN_ENTRIES)   epdn_lo;
    @name(".MyIngress.epdn_hi")
    register<seq_t>(EPDN_ENTRIES)   epdn_hi;
    /* IP MTU of port p in bytes, 0 = DEFAULT_MTU: the MTU rule of a stamp. Index p & mask. */
    @name(".MyIngress.port_mtu")
    register<bit<16>>(MAX_PORTS) port_mtu;

    /* The flow's slot and the fingerprint stored there (0: empty). Hash of the data direction's
     * 5-tuple: drops and stamps concern the same direction. */
    action epdn_slot() {
        hash(meta.flow_hash, HashAlgorithm.crc32, 32w0,
             { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
               hdr.tcp.src_port, hdr.tcp.dst_port },
             64w4294967296);
        meta.flow_idx = meta.flow_hash % EPDN_ENTRIES;
        epdn_fp.read(meta.entry_fp, meta.flow_idx);
    }

    /* The flow's own fingerprint. Needed only when the slot is occupied (is the entry ours?) or
     * when a drop is recorded, so a segment of a flow with an empty slot -- the common case --
     * costs one hash and one register read. */
    action epdn_fingerprint() {
        hash(meta.flow_fp, HashAlgorithm.crc32, 32w0,
             { hdr.ipv4.dst_addr, hdr.ipv4.src_addr, hdr.tcp.dst_port,
               hdr.tcp.src_port, hdr.ipv4.protocol },
             64w4294967296);
        meta.flow_fp = (meta.flow_fp == 0) ? 32w1 : meta.flow_fp;         /* 0 means empty */
    }

    /* The slot holds this flow's entry: its range. */
    action epdn_read_entry() {
        meta.entry_ours = 1;
        epdn_lo.read(meta.entry_lo, meta.flow_idx);
        epdn_hi.read(meta.entry_hi, meta.flow_idx);
    }

    /* [RDTCP] §3.1 "Recording information about dropped packets": the dropped segment's byte range. */
    action epdn_range_of_segment() {
        meta.rec_lo = hdr.tcp.seq_no;
        meta.rec_hi = hdr.tcp.seq_no + meta.payload_len;
    }

    /* [RDTCP] §3: "If a following gateway drops the data packet carrying the dropped information",
     * the range it carried is recorded here too, so the report travels on. */
    action epdn_widen_by_carried_stamp() {
        meta.rec_lo = SEQ_MIN(meta.rec_lo, hdr.epdn.drop_lo);
        meta.rec_hi = SEQ_MAX(meta.rec_hi, hdr.epdn.drop_hi);
    }

    /* An entry is present: min stays the minimum, max grows ([RDTCP] §3.1). Min/max rather than the
     * paper's "max = PNO_i" so a dropped retransmission of older data cannot shrink the range. */
    action epdn_widen_by_entry() {
        meta.rec_lo = SEQ_MIN(meta.rec_lo, meta.entry_lo);
        meta.rec_hi = SEQ_MAX(meta.rec_hi, meta.entry_hi);
    }

    action epdn_store() {
        epdn_fp.write(meta.flow_idx, meta.flow_fp);
        epdn_lo.write(meta.flow_idx, meta.rec_lo);
        epdn_hi.write(meta.flow_idx, meta.rec_hi);
        epdn_events.count(EV_RECORD);
    }

    /* "the entry is deleted" ([RDTCP] §3.1) once its range left in a forwarded segment. */
    action epdn_clear_entry() {
        epdn_fp.write(meta.flow_idx, 0);
        epdn_lo.write(meta.flow_idx, 0);
        epdn_hi.write(meta.flow_idx, 0);
    }

    /* [RDTCP] §3.1 "Processing the data packets at the gateway", packet without dropped entries:
     * insert the option as the first option (RFC 9293 §3.1: data offset in 32-bit words). */
    action epdn_insert_option() {
        CSUM_SUB(TCP_DOFF_WORD);
        CSUM_SUB(TCP_LENGTH);
        hdr.epdn.setValid();
        hdr.epdn.kind = TCP_OPT_EPDN;
        hdr.epdn.len = EPDN_LEN;
        hdr.epdn.exid = EPDN_EXID;
        hdr.epdn.drop_lo = meta.entry_lo;
        hdr.epdn.drop_hi = meta.entry_hi;
        hdr.tcp.data_offset = hdr.tcp.data_offset + EPDN_WORDS;
        hdr.ipv4.total_len = hdr.ipv4.total_len + EPDN_BYTES;
        CSUM_ADD(TCP_DOFF_WORD);
        CSUM_ADD(TCP_LENGTH);
        EPDN_WORDS16(CSUM_ADD);
        meta.tcp_modified = 1;
        epdn_events.count(EV_STAMP);
    }

    /* Packet already carrying an upstream gateway's range: one option holds the union. */
    action epdn_merge_option() {
        EPDN_RANGE_WORDS(CSUM_SUB);
        hdr.epdn.drop_lo = SEQ_MIN(hdr.epdn.drop_lo, meta.entry_lo);
        hdr.epdn.drop_hi = SEQ_MAX(hdr.epdn.drop_hi, meta.entry_hi);
        EPDN_RANGE_WORDS(CSUM_ADD);
        meta.tcp_modified = 1;
        epdn_events.count(EV_MERGE);
    }

    apply {
        if (meta.is_data == 1) {
            /* a legacy router keeps no EPDN table: it neither records nor stamps */
            bit<1> legacy = 0;
            legacy_router.read(legacy, 0);
            if (legacy == 0) {
                epdn_slot();
                if (meta.entry_fp != 0) {
                    epdn_fingerprint();
                    if (meta.entry_fp == meta.flow_fp) {
                        epdn_read_entry();
                    }
                }
                if (meta.drop_cause == DROP_NONE) {
                    if (meta.first_pass && meta.entry_ours == 1) {
                        /* forwarded: the flow's pending range leaves in this segment, or waits */
                        bit<16> mtu16 = 0;
                        port_mtu.read(mtu16, meta.out_idx);
                        meta.port_mtu = (mtu16 == 0) ? DEFAULT_MTU : (bit<32>)mtu16;
                        if (hdr.epdn.isValid()) {
                            epdn_merge_option();
                            epdn_clear_entry();
                        } else if (hdr.tcp.data_offset > TCP_MAX_DOFF_FOR_EPDN) {
                            /* no room for 12 more option bytes in a 60-byte TCP header */
                            epdn_events.count(EV_DEFER_NO_ROOM);
                        } else if ((bit<32>)hdr.ipv4.total_len + (bit<32>)EPDN_BYTES
                                   > meta.port_mtu) {
                            /* MTU rule (p4src/README.md): keep the entry for the flow's next
                             * segment that fits */
                            epdn_events.count(EV_DEFER_MTU);
                        } else {
                            epdn_insert_option();
                            epdn_clear_entry();
                        }
                    }
                } else if (meta.drop_cause <= DROP_PATTERN || meta.drop_cause == DROP_RED) {
                    /* a congestion, injected or RED drop (buffer, random, pattern, RED):
                     * recorded */
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
        }
    }
}

#endif /* RDTCP_EPDN_P4 */
