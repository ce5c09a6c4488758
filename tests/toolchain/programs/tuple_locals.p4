// Local variables of tuple type (spec 7.2.8) and the left-to-right evaluation of list and
// struct initialiser items (spec 8.12, 8.13): an item read before a later item's function
// call sees the value from before the call.
#include <core.p4>
#include <v1model.p4>

header data_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct headers_t { data_t data; }
struct pair_t { bit<8> first; bit<8> second; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.data); transition accept; }
}

// bumps x and returns its old value times two
bit<8> bump(inout bit<8> x) {
    bit<8> old = x;
    x = x + 1;
    return old * 2;
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        // a is read before bump changes it: t = {a, 2a}, then a = a + 1
        tuple<bit<8>, bit<8>> t = { hdr.data.a, bump(hdr.data.a) };
        // the same with named fields: p = {b, 2b}, then b = b + 1
        pair_t p = { first = hdr.data.b, second = bump(hdr.data.b) };
        tuple<bit<8>, bit<8>> u;
        u = t;                          // a tuple copy
        hdr.data.c = p.first + p.second;
        data_t h = { 0, 0, 0, 0 };
        h = { u[0] == 0 ? 8w1 : 8w2, 0, 0, 0 };
        hdr.data.d = h.a;
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.data); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
