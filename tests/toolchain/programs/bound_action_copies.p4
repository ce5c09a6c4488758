// One action bound to a different field in each of three tables (spec 14.2.1.2): like p4c, the
// JSON holds three actions of one name, each table's action_ids naming its own copy, and the
// control plane's "I.put" means the copy of the table it writes (simple_switch binds per table).
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header v_t { bit<8> k; bit<8> a; bit<8> b; bit<8> c; }
struct headers_t { ethernet_t ethernet; v_t v; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action put(out bit<8> dst, bit<8> value) { dst = value; }
    action skip() { }
    table ta { key = { hdr.v.k: exact; } actions = { put(hdr.v.a); skip; } default_action = skip(); }
    table tb { key = { hdr.v.k: exact; } actions = { put(hdr.v.b); skip; } default_action = skip(); }
    table tc {
        key = { hdr.v.k: exact; }
        actions = { put(hdr.v.c); skip; }
        default_action = put(hdr.v.c, 0xCC);
    }
    apply {
        std.egress_spec = 1;
        ta.apply();
        tb.apply();
        tc.apply();
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
