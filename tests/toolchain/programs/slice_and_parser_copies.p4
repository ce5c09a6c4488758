// Slices as l-values in more places: a slice of a slice (`n[7:4][1:0]` is n[5:4]) and a
// slice passed as an inout action argument (copied in, written back into the slice, spec
// 6.8); header and header stack assignments inside a parser state; a header stack local.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header b_t { bit<8> v; }
struct headers_t { ethernet_t ethernet; b_t[2] in_s; b_t[2] out_s; b_t first; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.in_s.next);
        pkt.extract(hdr.in_s.next);
        hdr.out_s = hdr.in_s;              // the whole stack, validity included
        hdr.first = hdr.in_s[0];           // one header
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action bump(inout bit<2> x) { x = x + 1; }
    apply {
        std.egress_spec = 1;
        hdr.in_s[0].v[7:4][1:0] = 2w3;     // bits 5:4
        bump(hdr.in_s[1].v[1:0]);          // the low two bits + 1, wrapping in 2 bits
        b_t[2] tmp = hdr.out_s;            // a header stack local: a copy
        tmp[0].v = 0x77;
        hdr.first.v = tmp[0].v + tmp[1].v;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.in_s); pkt.emit(hdr.out_s); pkt.emit(hdr.first); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
