// Direct action calls copy inout arguments in and out (P4_16 spec 6.8): the body writes the
// argument's own variable, and the copy-out on return overwrites that write.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header v_t { bit<8> a; bit<8> b; bit<8> c; }
struct headers_t { ethernet_t ethernet; v_t v; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    bit<8> c = 12;
    action read_then_clobber(inout bit<8> x) {
        hdr.v.a = x;
        c = 24;          // the caller's c, not x: undone by x's copy-out
    }
    action bump(inout bit<8> x, out bit<8> y) {
        x = x + 1;
        y = x;
        if (x == 8w3) { return; }
        y = 99;
    }
    apply {
        std.egress_spec = 1;
        read_then_clobber(c);
        read_then_clobber(c);
        hdr.v.b = c;
        bump(hdr.v.c, hdr.v.c);   // aliased: the out copy is written last
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
