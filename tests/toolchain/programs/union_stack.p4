// A stack of header_unions indexed by constants: each element is a union (spec 8.20) whose
// members are ordinary header instances ("u[0].s"); emitting the stack emits each
// element's valid member in order.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header short_t { bit<8> x; }
header long_t { bit<16> y; }
header_union opt_t { short_t s; long_t l; }
struct headers_t { ethernet_t ethernet; opt_t[2] u; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0001: short_long;
            default: long_short;
        }
    }
    state short_long { pkt.extract(hdr.u[0].s); pkt.extract(hdr.u[1].l); transition accept; }
    state long_short { pkt.extract(hdr.u[0].l); pkt.extract(hdr.u[1].s); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.u[0].s.isValid()) {
            hdr.u[0].l.setValid();         // replaces u[0].s
            hdr.u[0].l.y = 0xAAAA;
        }
        if (hdr.u[1].isValid() && !hdr.u[0].s.isValid()) {
            hdr.ethernet.ether_type = 0x00FF;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.u); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
