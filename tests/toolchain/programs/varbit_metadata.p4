// A varbit field in the metadata struct (as p4c's issue1291-bmv2 declares one): it lives in a
// metadata instance of its own, as a varbit local does (a BMv2 header holds one varbit field).
// Ingress keeps the first TLV's data there and writes it into the second TLV (its length byte
// follows), so the packet leaves with the first TLV's data twice. (Copied in ingress: the
// embedded target does not yet keep a varbit's length through a parser `set`, which is how
// p4c writes a varbit copy in a parser.)
#include <core.p4>
#include <v1model.p4>

header tlv_t { bit<8> len; varbit<64> data; }
struct headers_t { tlv_t a; tlv_t b; }
struct meta_t { bit<8> len; varbit<64> saved; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.a, (bit<32>)pkt.lookahead<bit<8>>() << 3);
        meta.len = hdr.a.len;
        pkt.extract(hdr.b, (bit<32>)pkt.lookahead<bit<8>>() << 3);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        meta.saved = hdr.a.data;
        hdr.b.data = meta.saved;
        hdr.b.len = meta.len;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.a); pkt.emit(hdr.b); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
