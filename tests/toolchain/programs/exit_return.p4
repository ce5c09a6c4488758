// exit inside an action called directly from apply (nothing after it runs, not even the rest
// of the apply block), exit inside a table action, return in apply, a value switch, and a slice
// assignment.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header x_t { bit<8> op; bit<8> a; bit<8> b; bit<16> w; }
struct headers_t { ethernet_t ethernet; x_t x; }
struct meta_t { }

parser XParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x88B5: parse_x; default: accept; }
    }
    state parse_x { pkt.extract(hdr.x); transition accept; }
}

control XVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control XIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action stop_here(bit<8> v) {
        hdr.x.a = v;
        if (v == 0x11) {
            exit;
        }
        hdr.x.b = 0x22;
    }
    action finish() {
        hdr.x.a = 0x33;
        exit;
    }
    table t {
        key = { hdr.x.op: exact; }
        actions = { finish; NoAction; }
        default_action = NoAction();
    }
    apply {
        std.egress_spec = 1;
        if (!hdr.x.isValid()) {
            return;
        }
        hdr.x.w[11:4] = 0xAB;
        switch (hdr.x.op) {
            1: { stop_here(0x11); }
            2: { stop_here(0x12); }
            3:
            4: { t.apply(); }
            default: { hdr.x.a = 0x44; }
        }
        hdr.x.b = hdr.x.b + 1;
    }
}

control XEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control XCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control XDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.x); } }

V1Switch(XParser(), XVerify(), XIngress(), XEgress(), XCompute(), XDeparser()) main;
