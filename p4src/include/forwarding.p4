/*
 * forwarding.p4 -- Route, the piece of MyIngress that chooses the egress port (v1model).
 *
 * IPv4: a malformed header (version != 4, ihl < 5, a total length shorter than the header or
 * longer than the frame, a header checksum that does not verify: RFC 1812 §5.2.2) is dropped
 * (DROP_MALFORMED); TTL <= 1 is dropped (DROP_TTL, no ICMP); anything else is routed by
 * ipv4_lpm. Frames that are not IPv4 are bridged by l2_forward. The tables and their actions are
 * architecture-neutral and live in routing.p4 (the TNA port includes it too).
 *
 * A packet back from a reordering loop (impair.p4) is not routed again: it re-enters the port
 * its first pass chose (meta.recirc_port).
 */
#ifndef RDTCP_FORWARDING_P4
#define RDTCP_FORWARDING_P4

control Route(inout headers_t hdr,
              inout metadata_t meta,
              inout standard_metadata_t standard_metadata) {

#define RDTCP_INGRESS_PORT standard_metadata.ingress_port
#include "routing.p4"

    /* The per-port knobs are indexed by port & PORT_INDEX_MASK. */
    action set_out_index() {
        meta.out_idx = ((bit<32>)meta.out_port) & PORT_INDEX_MASK;
    }

    apply {
        if (!meta.first_pass) {
            meta.out_port = meta.recirc_port;
        } else if (hdr.ipv4.isValid()) {
            if (hdr.ipv4.version != 4 || hdr.ipv4.ihl < 5
                    || hdr.ipv4.total_len < meta.ip_hdr_bytes
                    || (bit<32>)hdr.ipv4.total_len > meta.frame_ip_bytes
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
    }
}

#endif /* RDTCP_FORWARDING_P4 */
