// Refusal: see refuse_defaultonly_in_entry.stderr for the expected message. An action listed @defaultonly cannot be an entry's action.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<32> x; bit<16> n16; bit<8> n8; bit<512> w; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set(bit<8> v) { hdr.h.b = v; }
    action miss() { hdr.h.b = 0; }
    table t {
        key = { hdr.h.a: exact; }
        actions = { set; @defaultonly miss; }
        const entries = {
            1: set(7);
            2: miss();
        }
        default_action = miss();
    }
    apply { t.apply(); }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply {  } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
