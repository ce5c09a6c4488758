// A table's apply().hit / .miss inside a larger expression (spec 14.2.2): the table is
// applied where the expression evaluates it, so the right operand of && applies its table
// only when the left operand is true (spec 8.5).
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header v_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; bit<8> e; }
struct headers_t { ethernet_t ethernet; v_t v; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action mark() { hdr.v.e = 0xAA; }
    table t { key = { hdr.v.a: exact; } actions = { NoAction; } }
    table u { key = { hdr.v.b: exact; } actions = { mark; NoAction; } default_action = mark(); }
    apply {
        std.egress_spec = 1;
        bool t_hit = t.apply().hit;
        if (hdr.v.b == 1 && !u.apply().miss) {
            hdr.v.c = 1;
        }
        hdr.v.d = t_hit ? 8w0x11 : 8w0x22;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
