// The `optional` match kind (v1model): a key matched exactly or not at all. BMv2 has no
// optional match type, so p4c writes it as ternary (full mask, or zero mask for `_`);
// const entries and run-time entries both use that form.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header h_t { bit<8> a; bit<8> b; bit<8> r; }
struct headers_t { ethernet_t ethernet; h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set(bit<8> v) { hdr.h.r = v; }
    table fixed {
        key = { hdr.h.a: optional; hdr.h.b: optional; }
        actions = { set; NoAction; }
        const entries = {
            (1, 2) : set(0x12);      // both given
            (1, _) : set(0x10);      // b left out
            (_, 2) : set(0x02);
        }
        default_action = NoAction();
    }
    table runtime {
        key = { hdr.h.a: optional; }
        actions = { set; NoAction; }
        default_action = NoAction();
    }
    apply {
        std.egress_spec = 1;
        if (!fixed.apply().hit) {
            runtime.apply();
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
