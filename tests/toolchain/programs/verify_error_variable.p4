// verify() with an error held in a variable (P4_16 spec 12.7: the second argument is any
// expression of type error). BMv2 builds verify's error as an expression
// (P4Objects::init_parsers), so the variable goes to the JSON as a field, not a constant.
// The parser picks the error from the packet's first byte; ingress reports parser_error.
#include <core.p4>
#include <v1model.p4>

error { TooBig, Reserved }

header h_t { bit<8> kind; bit<8> len; }
struct headers { h_t h; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta,
         inout standard_metadata_t sm) {
    error e = error.TooBig;     // parser-local: visible in every state (spec 12.2)
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.kind) {
            0xFF: reserved;
            default: check;
        }
    }
    state reserved {
        e = error.Reserved;
        transition check;
    }
    state check {
        // kind 0xFF fails with Reserved; other kinds fail with TooBig when len > 16
        verify(hdr.h.kind != 0xFF && hdr.h.len <= 16, e);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.TooBig) { sm.egress_spec = 2; }
        if (sm.parser_error == error.Reserved) { sm.egress_spec = 3; }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
