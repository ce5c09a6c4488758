// A header stack indexed by a value known only at run time (P4_16 spec 8.18): the index is the
// last byte of the source MAC, lowered to BMv2's dereference_header_stack as an r-value and an
// l-value (JSON_format.md).
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header label_t { bit<8> v; bit<8> w; }
struct headers_t { ethernet_t ethernet; label_t[3] labels; }
struct meta_t { bit<8> idx; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.labels.next);
        pkt.extract(hdr.labels.next);
        pkt.extract(hdr.labels.next);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        meta.idx = hdr.ethernet.src[7:0];
        if (meta.idx < 3) {
            hdr.labels[meta.idx].w = hdr.labels[meta.idx].v;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.labels); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
