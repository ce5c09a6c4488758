// A header without fields (P4_16 allows `header h_t {}`): extracting it reads no bytes but
// makes it valid, emitting it writes none (p4c sample parser-unroll-issue3537.p4 has one).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header empty_t { }
header out_t { bit<8> valid_before; bit<8> valid_after; }
struct headers_t { empty_t e; ethernet_t ethernet; empty_t e2; out_t o; }
struct meta_t { }

parser EhParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.e); pkt.extract(hdr.ethernet); transition accept; }
}
control EhVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control EhIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.o.setValid();
        hdr.o.valid_before = hdr.e.isValid() ? 8w1 : 8w0;
        hdr.e2.setValid();
        hdr.o.valid_after = hdr.e2.isValid() ? 8w1 : 8w0;
    }
}
control EhEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control EhCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control EhDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.e); pkt.emit(hdr.ethernet); pkt.emit(hdr.e2); pkt.emit(hdr.o); }
}

V1Switch(EhParser(), EhVerify(), EhIngress(), EhEgress(), EhCompute(), EhDeparser()) main;
