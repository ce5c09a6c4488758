// Refusal: see refuse_sub_control.stderr for the expected message. Sub-controls are inlined,
// but one with a table cannot be applied twice (BMv2 places a table once in a pipeline).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control Sub(inout headers_t hdr) {
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }
    apply { t.apply(); }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Sub() sub;
    apply { sub.apply(hdr); sub.apply(hdr); }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
