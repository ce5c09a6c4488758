// Tables: exact with two keys, lpm, ternary with priorities, range + exact const entries whose
// order gives their priority, default actions with arguments, a const default action, size.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tk_t { bit<8> a; bit<16> b; bit<32> ip; bit<8> out1; bit<8> out2; bit<8> out3; bit<8> out4; }
struct headers_t { ethernet_t ethernet; tk_t tk; }
struct meta_t { }

parser TablesParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x88B5: parse_tk; default: accept; }
    }
    state parse_tk { pkt.extract(hdr.tk); transition accept; }
}

control TablesVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TablesIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set1(bit<8> v) { hdr.tk.out1 = v; }
    action set2(bit<8> v) { hdr.tk.out2 = v; }
    action set3(bit<8> v) { hdr.tk.out3 = v; }
    action set4(bit<8> v) { hdr.tk.out4 = v; }

    table exact_multi {
        key = { hdr.tk.a: exact; hdr.tk.b: exact; }
        actions = { set1; }
        default_action = set1(0xEE);
        size = 16;
    }
    table lpm_t {
        key = { hdr.tk.ip: lpm; }
        actions = { set2; NoAction; }
        default_action = NoAction();
    }
    table tern {
        key = { hdr.tk.a: ternary; hdr.tk.b: ternary; }
        actions = { set3; }
        const default_action = set3(0xDD);
    }
    table const_t {
        key = { hdr.tk.b: range; hdr.tk.a: exact; }
        actions = { set4; }
        const entries = {
            (0 .. 99, 1): set4(1);
            (50 .. 0xFFFF, 1): set4(2);
            (_, 2): set4(3);
        }
        default_action = set4(0xCC);
    }

    apply {
        std.egress_spec = 1;
        if (hdr.tk.isValid()) {
            exact_multi.apply();
            lpm_t.apply();
            tern.apply();
            const_t.apply();
        }
    }
}

control TablesEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control TablesCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TablesDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.tk); } }

V1Switch(TablesParser(), TablesVerify(), TablesIngress(), TablesEgress(), TablesCompute(), TablesDeparser()) main;
