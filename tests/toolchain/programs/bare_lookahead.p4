// A lookahead whose value is unused still needs its bits in the packet: BMv2 raises
// PacketTooShort when fewer remain, and ingress sees parser_error set.
#include <core.p4>
#include <v1model.p4>

struct peek_t { bit<32> a; bit<16> b; }
header h_t { bit<8> x; }
struct headers { h_t h; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.lookahead<peek_t>();   // 48 bits must be present
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error != error.NoError) { sm.egress_spec = 2; }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
