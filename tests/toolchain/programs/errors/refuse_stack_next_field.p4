// Refusal: see refuse_stack_next_field.stderr for the expected message.
// Reading a field of a stack's next element (as p4c's testdata issue692-bmv2.p4, an expected
// failure of p4c's BMv2 tests): p4c-bm2-ss reports "<stack>.next uninitialized: next field
// read" (backends/bmv2/common/expression.cpp, ExpressionConverter::postorder(Member)).
#include <core.p4>
#include <v1model.p4>
header t_t { bit<8> y; }
struct headers_t { t_t[2] ts; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ts.next);
        transition select(hdr.ts.next.y) { 0: start; default: accept; }
    }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ts); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
