// A table's actions list may bind an action's directional parameters (spec 14.2.1.2); the
// control plane supplies only the data parameters, and a default action repeats the bound
// arguments first (14.2.1.3). The body works on copies (p4c's RemoveActionParameters):
// an exit still copies the out argument back, and action_run names the bound action.
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
    action set_out(out bit<8> dst, bit<8> value) { dst = value; }
    action drop_it(inout standard_metadata_t sm) { mark_to_drop(sm); }
    action write_and_exit(out bit<8> dst) {
        dst = 0xEE;
        exit;
    }
    table t {
        key = { hdr.v.a: exact; }
        actions = { set_out(hdr.v.b); drop_it(std); write_and_exit(hdr.v.c); }
        default_action = set_out(hdr.v.b, 0x77);
    }
    apply {
        std.egress_spec = 1;
        switch (t.apply().action_run) {
            set_out: { hdr.v.c = 0x11; }
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
