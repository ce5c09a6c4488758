// An inout argument the action body never uses, whose variable the body does not touch
// either, is neither read nor written (the copy-out would write back the value just
// read; p4c removes the pair): an h[i] argument with i out of range is never accessed,
// so the packet goes on unchanged instead of failing on the index.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header b_t { bit<8> v; }
struct headers_t { ethernet_t ethernet; b_t[2] s; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.s.next); pkt.extract(hdr.s.next);
                  transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action ignore(inout bit<8> unused) { std.egress_spec = 1; }
    action bump(inout bit<8> x) { x = x + 1; }
    apply {
        ignore(hdr.s[hdr.ethernet.ether_type[0:0] ++ hdr.ethernet.ether_type[8:8]].v);
        if (hdr.ethernet.ether_type == 0x0001) {
            bump(hdr.s[hdr.ethernet.ether_type[0:0]].v);     // index 1: used, copied
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.s); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
