// The remaining v1model functions: log_msg with arguments, assert, digest, truncate (the
// packet is cut after deparsing), mark_to_drop in egress.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }

parser SParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}

control SVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control SIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        log_msg("packet from port {} type {}", { std.ingress_port, hdr.ethernet.ether_type });
        assert(hdr.ethernet.isValid());
        digest(1, { hdr.ethernet.src, std.ingress_port });
        std.egress_spec = 2;
        if (hdr.ethernet.ether_type == 0x1234) {
            truncate(20);
        }
    }
}

control SEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (hdr.ethernet.ether_type == 0xDEAD) {
            mark_to_drop(std);
        }
    }
}

control SCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control SDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }

V1Switch(SParser(), SVerify(), SIngress(), SEgress(), SCompute(), SDeparser()) main;
