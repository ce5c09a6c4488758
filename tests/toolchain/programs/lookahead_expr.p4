// lookahead inside expressions (an assignment, a verify condition, a select key expression):
// BMv2 only takes a lookahead as a whole set source or key, so each is first set into a
// temporary.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header h_t { bit<8> a; }
struct headers_t { ethernet_t ethernet; h_t h; }
struct meta_t { bit<8> x; }
error { Zero }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        meta.x = pkt.lookahead<bit<8>>() + 1;
        verify(pkt.lookahead<bit<8>>() != 0, error.Zero);
        transition select(pkt.lookahead<bit<8>>() & 0xF0) { 0x10: one; default: accept; }
    }
    state one { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { std.egress_spec = 1; hdr.ethernet.ether_type = (bit<16>)meta.x; } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
