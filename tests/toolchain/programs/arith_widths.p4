// Unsigned arithmetic at widths 1, 8, 16, 32, 48, 64 and 128: +, -, * wrap modulo 2^W,
// << drops high bits, >> shifts in zeros, ~ stays within the width (P4_16 spec 8.6).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header w1_t { bit<1> a; bit<1> b; bit<1> add; bit<1> sub; bit<1> mul; bit<1> shl; bit<1> shr; bit<1> inv; }
header w8_t { bit<8> a; bit<8> b; bit<8> add; bit<8> sub; bit<8> mul; bit<8> shl; bit<8> shr; bit<8> inv; }
header w16_t { bit<16> a; bit<16> b; bit<16> add; bit<16> sub; bit<16> mul; bit<16> shl; bit<16> shr; bit<16> inv; }
header w32_t { bit<32> a; bit<32> b; bit<32> add; bit<32> sub; bit<32> mul; bit<32> shl; bit<32> shr; bit<32> inv; }
header w48_t { bit<48> a; bit<48> b; bit<48> add; bit<48> sub; bit<48> mul; bit<48> shl; bit<48> shr; bit<48> inv; }
header w64_t { bit<64> a; bit<64> b; bit<64> add; bit<64> sub; bit<64> mul; bit<64> shl; bit<64> shr; bit<64> inv; }
header w128_t { bit<128> a; bit<128> b; bit<128> add; bit<128> sub; bit<128> mul; bit<128> shl; bit<128> shr; bit<128> inv; }
struct headers_t { ethernet_t ethernet; w1_t w1; w8_t w8; w16_t w16; w32_t w32; w48_t w48; w64_t w64; w128_t w128; }
struct meta_t { }

parser ArithParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x88B5: parse_ops; default: accept; }
    }
    state parse_ops {
        pkt.extract(hdr.w1); pkt.extract(hdr.w8); pkt.extract(hdr.w16); pkt.extract(hdr.w32); pkt.extract(hdr.w48); pkt.extract(hdr.w64); pkt.extract(hdr.w128);
        transition accept;
    }
}

control ArithVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control ArithIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action compute_w1() {
        hdr.w1.add = hdr.w1.a + hdr.w1.b;
        hdr.w1.sub = hdr.w1.a - hdr.w1.b;
        hdr.w1.mul = hdr.w1.a * hdr.w1.b;
        hdr.w1.shl = hdr.w1.a << 1;
        hdr.w1.shr = hdr.w1.a >> 1;
        hdr.w1.inv = ~hdr.w1.a;
    }
    action compute_w8() {
        hdr.w8.add = hdr.w8.a + hdr.w8.b;
        hdr.w8.sub = hdr.w8.a - hdr.w8.b;
        hdr.w8.mul = hdr.w8.a * hdr.w8.b;
        hdr.w8.shl = hdr.w8.a << 3;
        hdr.w8.shr = hdr.w8.a >> 3;
        hdr.w8.inv = ~hdr.w8.a;
    }
    action compute_w16() {
        hdr.w16.add = hdr.w16.a + hdr.w16.b;
        hdr.w16.sub = hdr.w16.a - hdr.w16.b;
        hdr.w16.mul = hdr.w16.a * hdr.w16.b;
        hdr.w16.shl = hdr.w16.a << 3;
        hdr.w16.shr = hdr.w16.a >> 3;
        hdr.w16.inv = ~hdr.w16.a;
    }
    action compute_w32() {
        hdr.w32.add = hdr.w32.a + hdr.w32.b;
        hdr.w32.sub = hdr.w32.a - hdr.w32.b;
        hdr.w32.mul = hdr.w32.a * hdr.w32.b;
        hdr.w32.shl = hdr.w32.a << 3;
        hdr.w32.shr = hdr.w32.a >> 3;
        hdr.w32.inv = ~hdr.w32.a;
    }
    action compute_w48() {
        hdr.w48.add = hdr.w48.a + hdr.w48.b;
        hdr.w48.sub = hdr.w48.a - hdr.w48.b;
        hdr.w48.mul = hdr.w48.a * hdr.w48.b;
        hdr.w48.shl = hdr.w48.a << 3;
        hdr.w48.shr = hdr.w48.a >> 3;
        hdr.w48.inv = ~hdr.w48.a;
    }
    action compute_w64() {
        hdr.w64.add = hdr.w64.a + hdr.w64.b;
        hdr.w64.sub = hdr.w64.a - hdr.w64.b;
        hdr.w64.mul = hdr.w64.a * hdr.w64.b;
        hdr.w64.shl = hdr.w64.a << 3;
        hdr.w64.shr = hdr.w64.a >> 3;
        hdr.w64.inv = ~hdr.w64.a;
    }
    action compute_w128() {
        hdr.w128.add = hdr.w128.a + hdr.w128.b;
        hdr.w128.sub = hdr.w128.a - hdr.w128.b;
        hdr.w128.mul = hdr.w128.a * hdr.w128.b;
        hdr.w128.shl = hdr.w128.a << 3;
        hdr.w128.shr = hdr.w128.a >> 3;
        hdr.w128.inv = ~hdr.w128.a;
    }
    apply {
        std.egress_spec = 1;
        if (hdr.w1.isValid()) {
            compute_w1(); compute_w8(); compute_w16(); compute_w32(); compute_w48(); compute_w64(); compute_w128();
        }
    }
}

control ArithEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control ArithCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control ArithDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.w1); pkt.emit(hdr.w8); pkt.emit(hdr.w16); pkt.emit(hdr.w32); pkt.emit(hdr.w48); pkt.emit(hdr.w64); pkt.emit(hdr.w128);
    }
}

V1Switch(ArithParser(), ArithVerify(), ArithIngress(), ArithEgress(), ArithCompute(), ArithDeparser()) main;
