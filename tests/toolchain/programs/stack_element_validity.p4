// setValid / setInvalid / isValid on a header stack element whose index is known only at run
// time (in the parser and in a control), and such an element given to an action's inout
// header parameter (copied in and out).
#include <core.p4>
#include <v1model.p4>

header idx_t { bit<8> i; bit<8> j; }
header h_t { bit<8> v; }
header res_t { bit<8> a; }
struct headers_t { idx_t idx; h_t[3] hs; res_t res; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.idx);
        hdr.hs[hdr.idx.i].setValid();
        transition accept;
    }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action mark(inout h_t h) {
        h.setValid();
        h.v = 0x77;
    }
    apply {
        std.egress_spec = 1;
        hdr.res.setValid();
        hdr.res.a = hdr.hs[hdr.idx.j].isValid() ? 8w1 : 8w0;
        if (hdr.idx.j == 2) {
            hdr.hs[hdr.idx.i].setInvalid();
        }
        mark(hdr.hs[hdr.idx.j]);
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.idx); pkt.emit(hdr.hs); pkt.emit(hdr.res); }
}

V1Switch(P(), V(), I(), E(), C(), D()) main;
