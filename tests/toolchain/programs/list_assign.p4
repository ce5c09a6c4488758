// A struct assigned from a struct-valued expression {f = a, ...}, a header from a list {a, b}
// (which also makes it valid, spec 8.12).
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header h_t { bit<8> a; bit<8> b; }
struct pair_t { bit<8> x; bit<8> y; }
struct headers_t { ethernet_t ethernet; h_t h; }
struct meta_t { pair_t p; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        meta.p = { x = 3, y = 9 };
        hdr.h = { meta.p.y, meta.p.x + 1 };
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
