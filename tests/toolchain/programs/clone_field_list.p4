// clone_preserving_field_list(I2E): the copy is the packet as it arrived (ingress changes are
// not in it), goes to the mirror session's port with instance_type 1, and keeps only the
// @field_list(2) metadata (simple_switch.md "clone").
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header x_t { bit<8> w; bit<8> v; bit<8> other; bit<8> itype; }
struct headers_t { ethernet_t ethernet; x_t x; }
struct meta_t { @field_list(2) bit<8> tag; bit<8> other; }

parser CParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x88B5: parse_x; default: accept; }
    }
    state parse_x { pkt.extract(hdr.x); transition accept; }
}

control CVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control CIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.x.isValid()) {
            hdr.x.w = 0x11;
            meta.tag = 0x77;
            meta.other = 0x55;
            clone_preserving_field_list(CloneType.I2E, 5, 2);
        }
    }
}

control CEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (hdr.x.isValid()) {
            hdr.x.v = meta.tag;
            hdr.x.other = meta.other;
            hdr.x.itype = (bit<8>)std.instance_type;
        }
    }
}

control CCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control CDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.x); } }

V1Switch(CParser(), CVerify(), CIngress(), CEgress(), CCompute(), CDeparser()) main;
