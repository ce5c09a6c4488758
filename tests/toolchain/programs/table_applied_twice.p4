// A table applied in both branches of an if, each application followed by the same code: BMv2
// holds the table once, reached from both branches, as p4c's back end allows
// (CFG::checkMergeable, backends/bmv2/common/controlFlowGraph.cpp). The key is computed
// (a + b), so its temporary is set before each application.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_c(bit<8> v) { hdr.h.c = v; }
    action miss() { hdr.h.c = 0xEE; }
    table t {
        key = { hdr.h.a + hdr.h.b: exact @name("sum"); }
        actions = { set_c; miss; }
        default_action = miss();
    }
    apply {
        std.egress_spec = 1;
        if (hdr.h.a == 0) {
            hdr.h.b = hdr.h.b + 1;      // changes the key this application sees
            t.apply();
        } else {
            t.apply();
        }
        hdr.h.d = hdr.h.c + 1;          // after either application
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
