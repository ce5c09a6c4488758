// `exit` inside a directly called action still copies the action's inout/out arguments
// back, and those of every action it was called from (P4_16 spec 6.8 and 12.x; p4c's
// RemoveActionParameters puts the copy-out before each exit). Nothing after the exit runs,
// neither in the action, nor in its caller's body, nor in the control.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header v_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct headers_t { ethernet_t ethernet; v_t v; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action inner(inout bit<8> x) {
        x = 0x11;
        if (hdr.v.d == 1) {
            exit;
        }
        x = 0x22;
    }
    action outer(inout bit<8> y) {
        y = 0x33;
        inner(hdr.v.b);
        y = 0x44;              // skipped after an exit in inner
    }
    apply {
        std.egress_spec = 1;
        outer(hdr.v.a);
        hdr.v.c = 0x55;        // skipped after an exit
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
