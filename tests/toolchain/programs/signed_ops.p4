// Signed int<W> values (two's complement, P4_16 spec 8.7), saturating arithmetic (8.6/8.7),
// casts between bit<W> and int<W> (8.9), unsigned division and modulo, unary minus.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header sops_t {
    int<8> c; int<8> d; int<16> e; int<64> g; bit<8> u; bit<8> v;
    int<8> add; int<8> sub; int<8> mul; int<8> shr; int<8> shl; int<8> neg;
    int<8> sat_add; int<8> sat_sub; bit<8> usat_add; bit<8> usat_sub;
    bit<8> lt; bit<8> ge; int<16> widen; bit<16> widen_bits; bit<8> to_bits; int<8> to_int;
    int<16> e_add; int<64> g_sub; bit<8> div; bit<8> mod; bit<8> uneg; int<8> narrow;
}
struct headers_t { ethernet_t ethernet; sops_t s; }
struct meta_t { }

parser SignedParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x88B5: parse_s; default: accept; }
    }
    state parse_s { pkt.extract(hdr.s); transition accept; }
}

control SignedVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control SignedIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action compute() {
        hdr.s.add = hdr.s.c + hdr.s.d;
        hdr.s.sub = hdr.s.c - hdr.s.d;
        hdr.s.mul = hdr.s.c * hdr.s.d;
        hdr.s.shr = hdr.s.c >> 2;
        hdr.s.shl = hdr.s.c << 1;
        hdr.s.neg = -hdr.s.c;
        hdr.s.sat_add = hdr.s.c |+| hdr.s.d;
        hdr.s.sat_sub = hdr.s.c |-| hdr.s.d;
        hdr.s.usat_add = hdr.s.u |+| hdr.s.v;
        hdr.s.usat_sub = hdr.s.u |-| hdr.s.v;
        hdr.s.lt = (hdr.s.c < hdr.s.d) ? 8w1 : 8w0;
        hdr.s.ge = (hdr.s.c >= hdr.s.d) ? 8w1 : 8w0;
        hdr.s.widen = (int<16>)hdr.s.c;
        hdr.s.widen_bits = (bit<16>)(int<16>)hdr.s.c;
        hdr.s.to_bits = (bit<8>)hdr.s.c;
        hdr.s.to_int = (int<8>)hdr.s.u;
        hdr.s.e_add = hdr.s.e + (int<16>)hdr.s.d;
        hdr.s.g_sub = hdr.s.g - 1;
        hdr.s.div = hdr.s.u / 3;
        hdr.s.mod = hdr.s.u % 7;
        hdr.s.uneg = -hdr.s.u;
        hdr.s.narrow = (int<8>)hdr.s.e;
    }
    apply {
        std.egress_spec = 2;
        if (hdr.s.isValid()) { compute(); }
    }
}

control SignedEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control SignedCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control SignedDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.s); } }

V1Switch(SignedParser(), SignedVerify(), SignedIngress(), SignedEgress(), SignedCompute(), SignedDeparser()) main;
