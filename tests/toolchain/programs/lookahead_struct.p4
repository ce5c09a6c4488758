// lookahead<S>() of a struct (spec 12.8.3: any fixed-width type), as in p4c's issue2465-bmv2:
// the struct's fields come from the bits ahead in declaration order, its headers (also those
// of a header stack inside it) become valid, and nothing is consumed. Both a declaration with
// the lookahead as initialiser and an assignment to a struct of metadata.
#include <core.p4>
#include <v1model.p4>

header tag_t { bit<8> v; }
struct peek_t { bit<4> kind; bool urgent; bit<3> pad; tag_t[2] tags; }
header h_t { bit<8> a; bit<8> b; bit<8> c; }
header report_t { bit<8> kind; bit<8> urgent; bit<8> tag0; bit<8> tag1; bit<8> meta_tag1; }
struct headers_t { h_t h; report_t report; }
struct meta_t { peek_t seen; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        peek_t l = pkt.lookahead<peek_t>();
        meta.seen = pkt.lookahead<peek_t>();
        hdr.report.setValid();
        hdr.report.kind = (bit<8>)l.kind;
        hdr.report.tag0 = l.tags[0].v;
        hdr.report.tag1 = l.tags[1].isValid() ? l.tags[1].v : 8w0xEE;
        transition select(l.kind, l.urgent) {
            (1, true): urgent;
            default: normal;
        }
    }
    state urgent {
        hdr.report.urgent = 1;
        transition normal;
    }
    state normal {
        pkt.extract(hdr.h);                  // the same bits, not consumed by the lookaheads
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.report.meta_tag1 = meta.seen.tags[1].v;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.report); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
