// P4 functions (spec 10.x) are inlined at their calls as p4c's InlineFunctions does:
// arguments copied in and out (spec 6.8), `return` from inside an if, calls inside
// expressions evaluated in order, a header argument sharing its variable with another copied, the right operand of && only when it is evaluated
// (spec 8.5), a function calling a function, a struct argument, and a call in an action,
// in a parser state and in a select key.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header v_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; bit<8> e; bit<8> f; }
struct headers_t { ethernet_t ethernet; v_t v; }
struct meta_t { bit<8> calls; bit<8> sel; }

// saturating add: returns from inside an if
bit<8> sat_add(in bit<8> x, in bit<8> y) {
    bit<9> wide = (bit<9>)x + (bit<9>)y;
    if (wide > 255) {
        return 255;
    }
    return wide[7:0];
}

// counts its calls through an inout struct argument and an inout field
bool bump(inout meta_t m, inout bit<8> n) {
    m.calls = m.calls + 1;
    n = n + 1;
    return n > 2;
}

bit<8> twice(in bit<8> x) { return sat_add(x, x); }

void split(in bit<8> x, out bit<8> hi, out bit<8> lo) {
    hi = x >> 4;
    lo = x & 0xf;
}

// changes its argument: a caller's operand read before the call keeps its old value
bit<8> clobber(inout bit<8> x) {
    x = 0;
    return 1;
}

// the same header passed twice: e is a copy, written back after t (parameter order)
void mix(inout bit<16> t, inout ethernet_t e) {
    t = 0x4242;
    e.ether_type = e.ether_type + 1;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        meta.sel = twice(8w1);
        transition select(sat_add(hdr.ethernet.ether_type[7:0], meta.sel)) {
            0xB7: parse_v;           // 0xB5 + 2
            default: accept;
        }
    }
    state parse_v { pkt.extract(hdr.v); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    bit<8> seven = twice(8w3) + 1;    // a control-local initialiser with a call
    bit<8> copy_of_seven = seven;     // initialised after it, in declaration order
    action in_action() {
        hdr.v.d = twice(hdr.v.d);
    }
    apply {
        std.egress_spec = 1;
        hdr.ethernet.src[7:0] = copy_of_seven;
        if (!hdr.v.isValid()) { mix(hdr.ethernet.ether_type, hdr.ethernet); return; }
        hdr.v.a = sat_add(hdr.v.a, hdr.v.b);
        // && short-circuits: bump runs only while the left operand is true
        if (hdr.v.c == 0 && bump(meta, hdr.v.c)) {
            hdr.v.b = 1;
        }
        bool third = bump(meta, hdr.v.c) && bump(meta, hdr.v.c);
        if (third) { hdr.v.b = hdr.v.b + 0x10; }
        hdr.v.f = meta.calls;
        in_action();
        split(hdr.v.e, hdr.v.e, hdr.v.f);    // copy-out in parameter order: lo lands in f
        mix(hdr.ethernet.ether_type, hdr.ethernet);
        hdr.v.b = hdr.v.b + clobber(hdr.v.b);   // old b + 1 (spec 8.x: left to right)
        hdr.v.c = hdr.v.a == 0x30 ? twice(hdr.v.c) : hdr.v.c;   // only the chosen branch
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
