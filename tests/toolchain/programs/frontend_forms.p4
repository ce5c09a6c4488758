// Source forms p4c accepts: an unstructured annotation whose body holds any characters
// (an apostrophe), a string literal running over several lines, a one-element list `{ v }`
// as the keyset of a one-field key, and a parser-level variable initialised with a function
// call (run when parsing starts); core.p4's static_assert, as a constant and a statement; an
// action called with named arguments that leave out parameters with defaults before the
// last one given (spec 6.8.2), one of them a serializable enum member.
#include <core.p4>
#include <v1model.p4>

const bool version_ok = static_assert(V1MODEL_VERSION >= 20180101, "v1model too old");

@free_text(It's any text: 6 * 9 = 42 ')
header h_t { bit<8> k; bit<8> v; bit<16> port_plus; bit<8> e1; bit<8> e2; }
enum bit<8> mode_t { A = 1, B = 2 }
struct headers_t { h_t h; }
struct meta_t { }

bit<16> plus_one(in bit<16> x) {
    return x + 1;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    bit<16> port1 = plus_one((bit<16>)std.ingress_port);
    state start {
        pkt.extract(hdr.h);
        hdr.h.port_plus = port1;
        transition accept;
    }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_v(bit<8> v) { hdr.h.v = v; }
    action fill(inout h_t h, in mode_t mode = mode_t.B, in bit<8> x = 4, in bit<8> y = 5) {
        h.e1 = (bit<8>)mode + x;
        h.e2 = y;
    }
    @entry_restriction("
        // a note the control plane reads
        k != 0;
    ")
    table t {
        key = { hdr.h.k : exact; }
        actions = { set_v; NoAction; }
        const entries = {
            { (8w0x10 | 8w0x01) } : set_v(0xAA);
            { 8w0x20 } : set_v(0xBB);
        }
        default_action = NoAction();
    }
    apply {
        static_assert(version_ok);
        std.egress_spec = 1;
        t.apply();
        fill(h = hdr.h, y = 7);
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;
