/*
 * classify.p4 -- the first piece of MyIngress: what the packet is (v1model).
 *
 * Every per-packet decision starts here at its neutral value (not dropped, not impaired, not
 * rewritten). A segment is *well-formed TCP* (meta.tcp_ok) when it parsed without error, its
 * data offset is >= 5, the IPv4 total length covers both headers and the frame holds that total
 * length: the only kind the gateway ever reads or rewrites. A truncated or inconsistent one is
 * forwarded as plain IP, untouched. *Data* (meta.is_data) is well-formed TCP with payload: the
 * only kind impaired, recorded or stamped.
 */
#ifndef RDTCP_CLASSIFY_P4
#define RDTCP_CLASSIFY_P4

/* v1model instance type of a recirculated packet, as simple_switch sets it (simple_switch.md).
 * Only the values the program tests are declared: p4c warns about every unused constant
 * (frontends/p4/unusedDeclarations.cpp, "'X' is unused"). */
const bit<32> PKT_INSTANCE_TYPE_RECIRC = 4;

control Classify(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {

    action classify_tcp(in bit<16> tcp_hdr_bytes) {
        meta.tcp_ok = 1;
        meta.tcp_csum_acc = (bit<32>)(~hdr.tcp.checksum);     /* ~HC of RFC 1624 eqn. 3 */
        meta.payload_len = (bit<32>)(hdr.ipv4.total_len - meta.ip_hdr_bytes - tcp_hdr_bytes);
        meta.is_data = (meta.payload_len != 0) ? 1w1 : 1w0;
    }

    apply {
        /* a reordering loop (impair.p4) brings a packet back: its first pass decided its port */
        meta.first_pass = standard_metadata.instance_type != PKT_INSTANCE_TYPE_RECIRC;
        meta.frame_ip_bytes = standard_metadata.packet_length - 14;
        meta.drop_cause = DROP_NONE;
        meta.impair = IMPAIR_PASS;
        meta.tcp_modified = 0;
        meta.tcp_ok = 0;
        meta.is_data = 0;
        meta.entry_ours = 0;
        if (hdr.ipv4.isValid()) {
            meta.ip_hdr_bytes = ((bit<16>)hdr.ipv4.ihl) << 2;
            if (hdr.tcp.isValid() && standard_metadata.parser_error == error.NoError) {
                bit<16> tcp_hdr_bytes = ((bit<16>)hdr.tcp.data_offset) << 2;
                if (hdr.tcp.data_offset >= 5
                        && hdr.ipv4.total_len >= meta.ip_hdr_bytes + tcp_hdr_bytes
                        && (bit<32>)hdr.ipv4.total_len <= meta.frame_ip_bytes) {
                    classify_tcp(tcp_hdr_bytes);
                }
            }
        }
    }
}

#endif /* RDTCP_CLASSIFY_P4 */
