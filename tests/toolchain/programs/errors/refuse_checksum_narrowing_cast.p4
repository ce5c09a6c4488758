// Refusal: see refuse_checksum_narrowing_cast.stderr for the expected message. In the
// checksum controls a calculation input may be a field, a constant, a concatenation of such
// or a widening cast of an unsigned one (zero bits then the value); a narrowing cast would
// need a computed value, which a calculation cannot take.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; bit<16> ck; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(true, { hdr.h.a, (bit<8>)hdr.h.b }, hdr.h.ck, HashAlgorithm.csum16);
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
