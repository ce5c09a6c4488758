/* Constants of struct type (P4_16 spec v1.2.5, "Constants": any type whose values are
 * compile-time known; p4c inlines the value at each use and folds C.f): a field read, a
 * nested struct's field, the whole constant assigned, compared (== and !=, spec "Operations
 * on structs"), passed to an action and used as a select key value. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  k;
    bit<8>  x;
    bit<16> y;
    bit<8>  z;
    bit<8>  flags;
}
struct pair_t { bit<8> x; bit<16> y; }
struct outer_t { pair_t p; bit<8> z; bool on; }
struct headers { h_t h; }
struct meta { pair_t cur; }

const pair_t DEF = { 8w0x11, 16w0x2233 };
const outer_t OUT = { p = { x = 0x44, y = 0x5566 }, z = 0x77, on = true };

parser P(packet_in pk, out headers hdr, inout meta m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition select(hdr.h.k) {
            DEF.x: is_def;
            default: accept;
        }
    }
    state is_def {
        hdr.h.flags = hdr.h.flags | 0x80;
        transition accept;
    }
}

control I(inout headers hdr, inout meta m, inout standard_metadata_t sm) {
    action put(pair_t v) { hdr.h.x = v.x; hdr.h.y = v.y; }
    apply {
        sm.egress_spec = 1;
        m.cur = { hdr.h.x, hdr.h.y };
        if (m.cur == DEF) {
            hdr.h.flags = hdr.h.flags | 0x01;
        }
        if (m.cur != OUT.p) {
            hdr.h.flags = hdr.h.flags | 0x02;
        }
        if (hdr.h.k == 1) {
            put(OUT.p);
            hdr.h.z = OUT.z;
        } else if (hdr.h.k == 2) {
            pair_t tmp = DEF;
            m.cur = tmp;
            hdr.h.x = m.cur.x;
            hdr.h.y = m.cur.y;
        }
        if (OUT.on) {
            hdr.h.flags = hdr.h.flags | 0x04;
        }
    }
}
control E(inout headers hdr, inout meta m, inout standard_metadata_t sm) { apply {} }
control V(inout headers hdr, inout meta m) { apply {} }
control U(inout headers hdr, inout meta m) { apply {} }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), U(), D()) main;
