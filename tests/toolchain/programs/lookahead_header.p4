// lookahead<H>() of a whole header, into a local header variable and into a header of the
// headers struct: the fields come from the bits ahead (not consumed) and the header is valid.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header h_t { bit<4> a; bit<12> b; }
struct headers_t { ethernet_t ethernet; h_t peeked; h_t h; }
struct meta_t { bit<16> b; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        h_t tmp = pkt.lookahead<h_t>();
        hdr.peeked = pkt.lookahead<h_t>();
        meta.b = (bit<16>)tmp.b;
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { std.egress_spec = 1; hdr.ethernet.ether_type = meta.b; } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.peeked); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
