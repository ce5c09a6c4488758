// Directionless apply parameters of a sub-control (spec 6.8): an extern instance of the
// caller (a register), an `int` and a bit<8> compile-time value; a direct type invocation
// `Add.apply(5, x)` of a control with an `int` parameter; and an `in` struct parameter left
// to its default value (spec 6.8.2), a struct expression copied in.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> idx; bit<8> val; bit<8> aux; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }

control Bump(inout headers_t hdr, register<bit<8>> r, int step, bit<8> lim) {
    bit<8> v;
    action rd() { r.read(v, (bit<32>)hdr.h.idx); }
    apply {
        rd();
        v = v + step;
        if (v > lim) {
            v = 0;
        }
        r.write((bit<32>)hdr.h.idx, v);
        hdr.h.val = v;
    }
}

control Add(int a, inout bit<8> b) {
    apply { b = b + a; }
}

struct pair_t { bit<8> a; bit<8> b; }

control Sum(inout bit<8> x, in pair_t p = { 2, 3 }) {
    apply { x = x + p.a + p.b; }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    register<bit<8>>(4) counts;
    Bump() bump;
    Sum() sum;
    apply {
        std.egress_spec = 1;
        bump.apply(hdr, counts, 3, 7);
        Add.apply(5, hdr.h.aux);
        sum.apply(hdr.h.aux);
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;
