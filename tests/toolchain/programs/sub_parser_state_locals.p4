// A variable declared in a parser state and given to a sub-parser applied in that state:
// the statements after the apply (copy-out included) still see it, also when two states
// declare variables of the same name.
#include <core.p4>
#include <v1model.p4>

header tag_t { bit<8> kind; }
header b_t { bit<8> v; }
struct headers_t { tag_t tag; b_t out1; }
struct meta_t { }
struct pair_t { b_t x; bit<8> n; }

parser Sub(packet_in pkt, inout pair_t p) {
    state start {
        pkt.extract(p.x);
        p.n = p.n + p.x.v;
        transition accept;
    }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Sub() sub;
    state start {
        pkt.extract(hdr.tag);
        transition select(hdr.tag.kind) { 1: one; default: two; }
    }
    state one {
        pair_t tmp;
        tmp.n = 0x10;
        sub.apply(pkt, tmp);
        hdr.out1.setValid();
        hdr.out1.v = tmp.n;
        transition accept;
    }
    state two {
        pair_t tmp = { { 0 }, 0x20 };
        sub.apply(pkt, tmp);
        hdr.out1 = tmp.x;
        hdr.out1.v = hdr.out1.v + tmp.n;
        transition accept;
    }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { std.egress_spec = 1; }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.tag); pkt.emit(hdr.out1); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;
