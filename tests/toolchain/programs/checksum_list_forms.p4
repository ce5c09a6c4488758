// Calculation inputs that are not plain fields: a named constant (in update_checksum and in a
// hash in an action), a concatenation of fields, and a cast widening a field. A calculation
// hashes the bits of its inputs laid end to end, so `a ++ b` is the input a then b, and
// (bit<32>)len is 16 zero bits then len (RFC 1071 ones'-complement sum for csum16).
#include <core.p4>
#include <v1model.p4>

const bit<8> PROTO = 0x11;

header h_t { bit<8> a; bit<8> b; bit<16> len; bit<16> ck; bit<16> hv; }
struct headers_t { h_t h; }
struct meta_t { bit<4> hi; bit<4> lo; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action hash_const() {
        hash(hdr.h.hv, HashAlgorithm.csum16, 16w0, { PROTO, hdr.h.a }, 32w65536);
    }
    apply {
        std.egress_spec = 1;
        meta.hi = 0xA;
        meta.lo = 0x5;
        hash_const();
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control C(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.h.isValid(),
            { PROTO, hdr.h.a ++ hdr.h.b, (bit<32>)hdr.h.len, meta.hi ++ meta.lo },
            hdr.h.ck, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;
