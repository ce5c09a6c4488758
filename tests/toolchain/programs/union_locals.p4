// Header unions as values: a header copied into a union member in a parser (the member that
// was valid becomes invalid, spec 8.20), header_union and header-union-stack local variables
// (invalid until written), a struct local with a union member, a union local initialised
// from a union, and whole-stack assignment of header union stacks.
#include <core.p4>
#include <v1model.p4>

header sel_t { bit<8> mode; }
header a_t { bit<8> x; }
header b_t { bit<16> y; }
header_union u_t { a_t a; b_t b; }
struct headers_t { sel_t sel; a_t pa; b_t pb; u_t u; u_t u2; u_t[2] us; u_t[2] us2; }
struct meta_t { }
struct s_t { u_t u; bit<8> k; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.sel);
        pkt.extract(hdr.pa);
        pkt.extract(hdr.pb);
        pkt.extract(hdr.u.a);
        transition select(hdr.sel.mode) { 1: copy_b; default: accept; }
    }
    state copy_b {
        hdr.u.b = hdr.pb;          // u.a becomes invalid
        transition accept;
    }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        u_t lu;
        if (hdr.sel.mode == 2) {
            lu.b = hdr.pb;
        } else {
            lu.a = hdr.pa;
        }
        hdr.u2 = lu;
        u_t[2] ls;
        ls[1].a = hdr.pa;
        ls[1].a.x = ls[1].a.x + 1;
        hdr.us = ls;               // us[0] invalid, us[1].a valid
        hdr.us2 = hdr.us;
        hdr.us2[1].a.x = hdr.us2[1].a.x + 1;
        s_t sl;
        sl.u.b = hdr.pb;
        sl.k = 0x10;
        if (sl.u.b.isValid() && !sl.u.a.isValid()) {
            hdr.sel.mode = hdr.sel.mode + sl.k;
        }
        u_t lu2 = hdr.u;
        if (lu2.b.isValid()) {
            hdr.sel.mode = hdr.sel.mode | 0x80;
        }
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.sel);
        pkt.emit(hdr.u);
        pkt.emit(hdr.u2);
        pkt.emit(hdr.us);
        pkt.emit(hdr.us2);
    }
}

V1Switch(P(), V(), I(), E(), C(), D()) main;
