// An action named like the extern function it calls (as p4c's testdata issue1541.p4, which
// p4c compiles): a declaration is not visible inside itself, so `hash(...)` in the body of
// `action hash()` is v1model's hash extern (p4c's ResolutionContext::lookup leaves out the
// declaration being defined; P4_16 spec 6.8: no recursion). v1model hash: result = base +
// (hash(data) % max); the identity algorithm's hash of one 8-bit field is its value.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header v_t { bit<8> a; bit<8> b; }
struct headers_t { ethernet_t ethernet; v_t v; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action hash() {
        hash(hdr.v.b, HashAlgorithm.identity, 8w1, { hdr.v.a }, 16w16);
    }
    table t {
        key = { hdr.v.a: exact; }
        actions = { hash; NoAction; }
        default_action = NoAction;
    }
    apply {
        std.egress_spec = 1;
        t.apply();
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
