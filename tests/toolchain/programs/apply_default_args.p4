// Sub-parser and sub-control applies that leave out arguments with default values (spec
// 6.8.2) or name them (6.8.1), on directly applied types (16.2) as p4c's issue1937 samples do:
// the arguments are put in parameter order and completed before the callee is inlined.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; bit<8> e; bit<8> f; }
struct headers_t { h_t h; }
struct meta_t { }

parser Quarter(out bit<8> x, in bit<8> y = 5) {
    state start {
        x = y >> 2;
        transition accept;
    }
}
control Scale(inout bit<8> v, in bit<8> by = 3) {
    apply { v = v * by; }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        Quarter.apply(hdr.h.b, hdr.h.a);              // all arguments
        Quarter.apply(hdr.h.c);                       // y defaults to 5
        Quarter.apply(y = hdr.h.a + 4, x = hdr.h.d);  // named, in any order
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        Scale.apply(hdr.h.e);                         // by defaults to 3
        Scale.apply(by = 2, v = hdr.h.f);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
