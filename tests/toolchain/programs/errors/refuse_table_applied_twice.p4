// Refusal: see refuse_table_applied_twice.stderr for the expected message. A table applied
// twice is fine when both applications continue alike (p4c's CFG::checkMergeable); here
// one is followed by an assignment and the other by the end of the control.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action a() { }
    table t { key = { hdr.h.a: exact; } actions = { a; } }
    apply { if (hdr.h.b == 1) { t.apply(); meta.m = 1; } else { t.apply(); } }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
