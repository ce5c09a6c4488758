// Checksums: verify_checksum on the IPv4 header (a bad checksum sets checksum_error, which
// ingress reports in diffserv), update_checksum for IPv4 and update_checksum_with_payload for
// UDP over the pseudo-header, the UDP header and an odd-length payload (RFC 768, RFC 1071).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len; bit<16> identification;
    bit<3> flags; bit<13> frag_offset; bit<8> ttl; bit<8> protocol; bit<16> hdr_checksum;
    bit<32> src; bit<32> dst;
}
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> checksum; }
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; udp_t udp; }
struct meta_t { }

parser CkParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) { 17: parse_udp; default: accept; }
    }
    state parse_udp { pkt.extract(hdr.udp); transition accept; }
}

control CkVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control CkIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (std.checksum_error == 1) {
            hdr.ipv4.diffserv = 0xEE;
        }
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        }
        if (hdr.udp.isValid()) {
            hdr.udp.dport = hdr.udp.dport + 1;
        }
    }
}

control CkEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control CkCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
        update_checksum_with_payload(hdr.udp.isValid(),
            { hdr.ipv4.src, hdr.ipv4.dst, 8w0, hdr.ipv4.protocol, hdr.udp.len,
              hdr.udp.sport, hdr.udp.dport, hdr.udp.len },
            hdr.udp.checksum, HashAlgorithm.csum16);
    }
}

control CkDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); pkt.emit(hdr.udp); }
}

V1Switch(CkParser(), CkVerify(), CkIngress(), CkEgress(), CkCompute(), CkDeparser()) main;
