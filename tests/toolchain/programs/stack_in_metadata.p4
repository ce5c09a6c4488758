// A header stack and a header union inside the user metadata struct (p4c allows both: they
// are header instances that are never emitted unless the deparser names them): stack
// elements written, pushed and read; the union keeps at most one member valid.
#include <core.p4>
#include <v1model.p4>

header byte_t { bit<8> v; }
header word_t { bit<16> w; }
header_union num_t { byte_t small; word_t big; }
header out_t { bit<8> top; bit<8> second; bit<8> count; bit<8> small_valid; bit<16> big; }
struct headers_t { byte_t x; out_t res; }
struct meta_t { byte_t[3] saved; num_t num; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.x); transition accept; }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        meta.saved[0] = hdr.x;                   // a header copied into the stack
        meta.saved.push_front(1);                // [0] invalid, [1] = x
        meta.saved[0].setValid();
        meta.saved[0].v = hdr.x.v + 1;
        meta.num.small.setValid();
        meta.num.small.v = hdr.x.v;
        if (hdr.x.v > 0x80) {
            meta.num.big.setValid();             // small becomes invalid
            meta.num.big.w = 0xBEEF;
        }
        hdr.res.setValid();
        hdr.res.top = meta.saved[0].v;
        hdr.res.second = meta.saved[1].v;
        hdr.res.count = meta.saved[2].isValid() ? 8w3 : 8w2;
        hdr.res.small_valid = meta.num.small.isValid() ? 8w1 : 8w0;
        hdr.res.big = meta.num.big.isValid() ? meta.num.big.w : 16w0;
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.x); pkt.emit(hdr.res); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
