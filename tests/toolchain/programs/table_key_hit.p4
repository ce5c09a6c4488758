// A table keyed on whether another table hit (p4c's issue2362-bmv2): the other table is applied
// where the key is computed, just before each apply of this one, and its hit bit is the key
// (p4c's midend: `if (w.apply().hit) key_0 = true; else key_0 = false;` then the table).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action nop() { }
    action set_b(bit<8> v) { hdr.h.b = v; }
    table w {
        key = { hdr.h.a: exact; }
        actions = { nop; }
        default_action = nop();
    }
    table v {
        key = { w.apply().hit: exact @name("w_hit"); }
        actions = { set_b; nop; }
        default_action = nop();
    }
    apply {
        std.egress_spec = 1;
        v.apply();
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
