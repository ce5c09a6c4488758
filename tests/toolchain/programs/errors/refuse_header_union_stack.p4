// Refusal: see refuse_header_union_stack.stderr for the expected message. Stacks of header
// unions are supported with constant indices, .next as an extract target and .last.m.f as a
// select key (BMv2's union_stack_field); .last.m.f has no BMv2 form in other expressions.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
header g_t { bit<16> c; }
header_union u_t { h_t h; g_t g; }
struct headers_t { h_t h; u_t[2] u; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); pkt.extract(hdr.u.next.h); meta.m = hdr.u.last.h.a;
                  transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
