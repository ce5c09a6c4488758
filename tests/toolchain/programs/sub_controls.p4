// Sub-controls instantiated inside a control are inlined as p4c's InlineControls does:
// the sub-control's table keeps its control-plane name under the instance's name
// (I.fwd.dmac, I.fwd.set_port), header and struct arguments are passed by reference, a
// scalar argument is copied in and out (spec 6.8), `return` ends only the sub-control, and
// a table-free sub-control may be applied several times.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header v_t { bit<8> a; bit<8> b; bit<8> c; }
struct headers_t { ethernet_t ethernet; v_t v; }
struct meta_t { bit<8> hits; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control Forward(in ethernet_t eth, inout standard_metadata_t std, inout bit<8> hits) {
    action set_port(bit<9> port) { std.egress_spec = port; hits = hits + 1; }
    action miss() { std.egress_spec = 3; }
    table dmac {
        key = { eth.dst: exact; }
        actions = { set_port; miss; }
        default_action = miss();
    }
    apply { dmac.apply(); }
}

// adds `by` to x unless x is already large; applied twice below
control AddSmall(inout bit<8> x, in bit<8> by) {
    bit<8> start = x;            // initialised at each apply, after the copy-in
    apply {
        if (start != x) {
            x = 0xEE;            // never: start is this apply's x
        }
        if (x > 0x80) {
            return;             // ends AddSmall only: the caller goes on
        }
        x = x + by;
    }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Forward() fwd;
    AddSmall() add;
    apply {
        meta.hits = 0;
        fwd.apply(hdr.ethernet, std, meta.hits);
        hdr.v.a = meta.hits;
        add.apply(hdr.v.b, 0x10);
        add.apply(hdr.v.c, hdr.v.b);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
