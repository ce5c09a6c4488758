/* e[L +: W] slices with a compile-time base L (P4_16 spec v1.2.5, "Operations on fixed-width
 * bit types": the W bits from bit L; equal to e[L+W-1:L]), read and written; the base is a
 * literal, a constant or a constant expression, the width a literal or a constant. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<32> a;
    bit<32> b;
    bit<8>  c;
    bit<16> d;
}
struct headers { h_t h; }
struct meta { bit<4> n; }

const bit<8> BASE = 4;
const int W = 8;

parser P(packet_in pk, out headers hdr, inout meta m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition select(hdr.h.a[28 +: 4]) {
            4w0xF: reject_like;
            default: accept;
        }
    }
    state reject_like {
        m.n = hdr.h.a[0 +: 4];
        transition accept;
    }
}

control I(inout headers hdr, inout meta m, inout standard_metadata_t sm) {
    action take(bit<8> v) { hdr.h.b[8 +: W] = v; }
    table t {
        key = { hdr.h.a[16 +: 8] : exact; }
        actions = { take; NoAction; }
        const entries = { 0x22 : take(0x99); }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        hdr.h.c = hdr.h.a[0 +: 8];                 // low byte of a
        hdr.h.b[BASE +: 8] = hdr.h.a[24 +: W];     // bits 11..4 of b = high byte of a
        hdr.h.d[BASE * 2 + 1 +: 3] = 7;            // bits 11..9 of d set
        hdr.h.d[0 +: 4] = (bit<4>)m.n;
        t.apply();
    }
}
control E(inout headers hdr, inout meta m, inout standard_metadata_t sm) { apply {} }
control V(inout headers hdr, inout meta m) { apply {} }
control U(inout headers hdr, inout meta m) { apply {} }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), U(), D()) main;
