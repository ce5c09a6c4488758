// Table keys that call functions (spec 10.x, 14.2.1.1): the key is evaluated each time the
// table is applied, so it is computed into a control-local variable before every apply (p4c's
// SideEffectOrdering writes the same: `key_0 = f(...)` in a synthetic action, then the table
// keyed on key_0). Such a key is named by @name, as p4c requires.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct headers_t { h_t h; }
struct meta_t { }

bit<8> mix(in bit<8> x, in bit<8> y) { return x ^ (y << 1); }
bit<8> bump(inout bit<8> x) { x = x + 1; return x; }     // a side effect of the key

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_c(bit<8> v) { hdr.h.c = v; }
    action nop() { }
    table t {
        key = { mix(hdr.h.a, hdr.h.b): exact @name("mixed"); }
        actions = { set_c; nop; }
        default_action = nop();
    }
    table u {
        key = { bump(hdr.h.d): exact @name("bumped"); }
        actions = { nop; }
        default_action = nop();
    }
    apply {
        std.egress_spec = 1;
        if (hdr.h.a == 0) {
            hdr.h.b = hdr.h.b + 1;      // seen by this application's key
            t.apply();
        } else {
            t.apply();
        }
        if (u.apply().hit) { hdr.h.a = 0xAA; }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
