// Control flow: if/else (nested, else-if) inside an action with an extern call and a return in
// a branch, a value written in a branch read after it; exit; table .hit/.miss; switch on
// action_run with a default case; a direct action call with an argument; bool metadata; an
// apply-level local variable.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ctl_t { bit<8> x; bit<8> y; bit<8> r1; bit<8> r2; bit<8> r3; bit<8> path; }
struct headers_t { ethernet_t ethernet; ctl_t ctl; }
struct meta_t { bool flag; }

parser FlowParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x88B5: parse_ctl; default: accept; }
    }
    state parse_ctl { pkt.extract(hdr.ctl); transition accept; }
}

control FlowVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control FlowIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action classify(bit<8> limit) {
        if (hdr.ctl.x > limit) {
            hdr.ctl.r1 = 1;
            if (hdr.ctl.y == 0) {
                mark_to_drop(std);
                return;
            }
            hdr.ctl.r2 = hdr.ctl.y;
        } else if (hdr.ctl.x == limit) {
            hdr.ctl.r1 = 2;
        } else {
            hdr.ctl.r1 = 3;
            meta.flag = true;
        }
        hdr.ctl.r3 = hdr.ctl.r1 + limit;
    }
    action set_port(bit<9> port) { std.egress_spec = port; }
    action tag(bit<8> v) { hdr.ctl.path = hdr.ctl.path | v; }

    table t_first {
        key = { hdr.ctl.x: exact; }
        actions = { classify; NoAction; }
        default_action = classify(100);
    }
    table t_hit {
        key = { hdr.ctl.y: exact; }
        actions = { tag; NoAction; }
        default_action = NoAction();
    }
    table t_switch {
        key = { hdr.ctl.x: ternary; }
        actions = { set_port; tag; NoAction; }
        default_action = NoAction();
    }

    apply {
        std.egress_spec = 1;
        if (!hdr.ctl.isValid()) {
            exit;
        }
        t_first.apply();
        if (t_hit.apply().hit) {
            hdr.ctl.path = hdr.ctl.path | 0x10;
        } else {
            hdr.ctl.path = hdr.ctl.path | 0x20;
        }
        switch (t_switch.apply().action_run) {
            set_port: { hdr.ctl.path = hdr.ctl.path | 0x40; }
            default: { tag(0x80); }
        }
        if (meta.flag) {
            hdr.ctl.path = hdr.ctl.path | 0x01;
        }
        bit<8> mixed = hdr.ctl.x ^ hdr.ctl.y;
        hdr.ctl.y = mixed;
    }
}

control FlowEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control FlowCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control FlowDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ctl); } }

V1Switch(FlowParser(), FlowVerify(), FlowIngress(), FlowEgress(), FlowCompute(), FlowDeparser()) main;
