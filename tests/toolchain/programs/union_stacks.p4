// Stacks of header unions in the parser (spec 8.19-8.20): `u.next.m` is the member m of the
// next union, extracted (also with a varbit length); its siblings in that union become
// invalid and the stack's next index advances; a full stack is StackOutOfBounds.
// `u.last.m.f` selects on the field of the last union extracted (BMv2 union_stack_field),
// alone or with another key; `u.lastIndex` and `u.size` are read in the parser/ingress.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> sel; bit<8> err; bit<8> last; bit<8> count; }
header a_t { bit<8> t; }                                  // t: what follows (1 a, 2 b, 3 v)
header b_t { bit<8> t; bit<8> d; }                        // d = 0xFF ends the chain
header v_t { bit<8> t; bit<8> len; varbit<32> data; }     // len bytes of data
header_union opt_t { a_t a; b_t b; v_t v; }
struct headers_t { h_t h; opt_t[3] u; }
struct meta_t { bit<32> last; bit<8> vlen; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.sel) {
            1: next_a;
            2: next_b;
            3: next_v;
            4: direct_b;
            default: accept;
        }
    }
    state direct_b {
        // u[0].b extracted directly: the stack's next index stays 0, so u.next.a fills
        // u[0].a, which makes u[0].b invalid
        pkt.extract(hdr.u[0].b);
        transition next_a;
    }
    state next_a {
        pkt.extract(hdr.u.next.a);
        meta.last = hdr.u.lastIndex;
        transition select(hdr.u.last.a.t) {
            1: next_a;
            2: next_b;
            3: next_v;
            default: accept;
        }
    }
    state next_b {
        pkt.extract(hdr.u.next.b);
        meta.last = hdr.u.lastIndex;
        transition select(hdr.u.last.b.d, hdr.u.last.b.t) {
            (0xFF, _): accept;
            (_, 1): next_a;
            (_, 2): next_b;
            (_, 3): next_v;
            default: accept;
        }
    }
    state next_v {
        meta.vlen = pkt.lookahead<bit<16>>()[7:0];
        pkt.extract(hdr.u.next.v, (bit<32>)meta.vlen << 3);
        meta.last = hdr.u.lastIndex;
        transition select(hdr.u.last.v.t) {
            1: next_a;
            2: next_b;
            3: next_v;
            default: accept;
        }
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (std.parser_error == error.PacketTooShort) {
            hdr.h.err = 1;
        } else if (std.parser_error == error.StackOutOfBounds) {
            hdr.h.err = 3;
        } else if (std.parser_error == error.HeaderTooShort) {
            hdr.h.err = 4;
        }
        hdr.h.last = (bit<8>)meta.last;
        bit<8> n = 0;
        if (hdr.u[0].isValid()) { n = n + 1; }
        if (hdr.u[1].isValid()) { n = n + 1; }
        if (hdr.u[2].isValid()) { n = n + 1; }
        hdr.h.count = ((bit<8>)hdr.u.size << 4) | n;
        if (hdr.u[1].b.isValid()) {
            hdr.u[1].b.d = hdr.u[1].b.d + 1;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
