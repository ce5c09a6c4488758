// Refusal: see refuse_stack_in_metadata.stderr for the expected message. Headers,
// header stacks and unions are allowed in the metadata struct, stacks of unions are not.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
header_union u_t { h_t x; }
struct headers_t { h_t h; }
struct meta_t { u_t[2] inmeta; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
