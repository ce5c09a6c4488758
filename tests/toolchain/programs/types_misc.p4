// Types: a serializable enum as a header field and in a value switch, a plain enum in
// metadata, nested metadata structs copied as a whole, a bool metadata field as a table key,
// an lpm key with const entries written value &&& mask, and a key that is an expression
// (computed into a temporary before the table is applied).
#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind { PING = 1, PONG = 2, OTHER = 9 }
enum Colour { RED, GREEN, BLUE }

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header m_t { Kind kind; bit<32> addr; bit<8> r1; bit<8> r2; bit<8> r3; bit<8> r4; }
struct inner_t { bit<8> x; bool flag; }
struct meta_t { inner_t a; inner_t b; Colour colour; }
struct headers_t { ethernet_t ethernet; m_t m; }

parser TParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x88B5: parse_m; default: accept; }
    }
    state parse_m { pkt.extract(hdr.m); transition accept; }
}

control TVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_r2(bit<8> v) { hdr.m.r2 = v; }
    action set_r3(bit<8> v) { hdr.m.r3 = v; }
    table by_flag {
        key = { meta.b.flag: exact; }
        actions = { set_r2; NoAction; }
        const entries = {
            true: set_r2(0xF1);
            false: set_r2(0xF0);
        }
    }
    table by_prefix {
        key = { hdr.m.addr: lpm; hdr.m.r1 + 1: exact @name("r1_plus_one"); }
        actions = { set_r3; NoAction; }
        const entries = {
            (0x0A000000 &&& 0xFF000000, 0x11): set_r3(8);
            (0x0A0B0000 &&& 0xFFFF0000, 0x11): set_r3(16);
        }
        default_action = set_r3(0xEE);
    }
    apply {
        std.egress_spec = 1;
        if (!hdr.m.isValid()) { return; }
        meta.a.x = 7;
        meta.a.flag = hdr.m.kind == Kind.PONG;
        meta.b = meta.a;
        switch (hdr.m.kind) {
            Kind.PING: { meta.colour = Colour.RED; }
            Kind.PONG: { meta.colour = Colour.GREEN; }
            default: { meta.colour = Colour.BLUE; }
        }
        by_flag.apply();
        by_prefix.apply();
        if (meta.colour == Colour.GREEN) { hdr.m.r4 = meta.b.x; } else { hdr.m.r4 = 0; }
        if (meta.colour == Colour.BLUE) { hdr.m.kind = Kind.OTHER; }
    }
}

control TEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control TCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.m); } }

V1Switch(TParser(), TVerify(), TIngress(), TEgress(), TCompute(), TDeparser()) main;
