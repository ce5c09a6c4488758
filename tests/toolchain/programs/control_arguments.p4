// Controls given to controls as constructor arguments (spec 16.1: a constructor parameter
// of a control type) and direct type invocation (`C.apply(...)` without an instance). The
// instance given to two controls is one instance: its register is shared by both applies
// (one BMv2 register array), while each apply runs its own copy of the code.
#include <core.p4>
#include <v1model.p4>

header data_t { bit<8> a; bit<8> b; bit<8> c; }
struct headers_t { data_t data; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.data); transition accept; }
}

control Bump(inout bit<8> x);

// counts its applies (over all packets) and adds the count
control Tally(inout bit<8> x) {
    register<bit<8>>(1) seen;
    apply {
        bit<8> n;
        seen.read(n, 0);
        n = n + 1;
        seen.write(0, n);
        x = x + n;
    }
}

// adds k, then applies the control it was given
control AddThen(inout bit<8> x)(Bump then, bit<8> k) {
    apply {
        x = x + k;
        then.apply(x);
    }
}

control Outer(inout bit<8> first, inout bit<8> second) {
    Tally() tally;
    AddThen(tally, 10) add10;
    AddThen(tally, 20) add20;
    apply {
        add10.apply(first);
        add20.apply(second);
    }
}

control Increment(inout bit<8> x) {
    apply { x = x + 1; }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        Outer.apply(hdr.data.a, hdr.data.b);     // direct type invocation
        Increment.apply(hdr.data.c);
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.data); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
