// Refusal: see refuse_user_extern_function.stderr for the expected message.
// A user-declared extern function (as p4c's testdata extern-funcs-bmv2.p4): p4c-bm2-ss
// reports "unknown extern function" (backends/bmv2/common/extern.cpp,
// ExternConverter::convertExternFunction) unless run with --emit-externs, and the JSON it then
// writes calls a primitive simple_switch has only when a module provides it (--load-modules).
#include <core.p4>
#include <v1model.p4>
extern void my_extern_func(out bit<8> d, in bit<8> s);
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { my_extern_func(hdr.h.a, hdr.h.b); }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
