// A header kept in the user metadata struct: an ordinary header instance with its own
// validity (as p4c allows), here a saved copy of the Ethernet header restored later.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { ethernet_t saved; bit<8> n; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.ethernet.ether_type == 0x0800) {
            meta.saved = hdr.ethernet;            // valid copy
        }
        hdr.ethernet.dst = 0xFFFFFFFFFFFF;
        if (meta.saved.isValid()) {
            hdr.ethernet.dst = meta.saved.dst;    // restored
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
