// A sub-control with constructor parameters (spec 15.x): each instance's arguments are
// compile-time values substituted into its inlined copy, so two instances of one control
// behave differently.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header v_t { bit<8> a; bit<8> b; }
struct headers_t { ethernet_t ethernet; v_t v; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

// adds `step` to x, at most up to `limit`
control AddCapped(inout bit<8> x)(bit<8> step, bit<8> limit) {
    apply {
        if (x > limit - step) {
            x = limit;
        } else {
            x = x + step;
        }
    }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    AddCapped(8w1, 8w10) small;
    AddCapped(8w100, 8w200) big;
    apply {
        std.egress_spec = 1;
        small.apply(hdr.v.a);
        big.apply(hdr.v.b);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
