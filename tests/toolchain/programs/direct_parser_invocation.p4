// Direct type invocation of a sub-parser (spec 16.2: `P.apply(...)` without declaring an
// instance): each apply runs the sub-parser's states, here twice in a row.
#include <core.p4>
#include <v1model.p4>

header byte_t { bit<8> v; }
struct headers_t { byte_t first; byte_t second; byte_t tag; }
struct meta_t { }

// reads one byte; a byte of 0xFF is followed by a tag byte, also read
parser ByteAndTag(packet_in pkt, out byte_t b, out byte_t tag) {
    state start {
        pkt.extract(b);
        transition select(b.v) {
            0xFF: read_tag;
            default: accept;
        }
    }
    state read_tag { pkt.extract(tag); transition accept; }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        ByteAndTag.apply(pkt, hdr.first, hdr.tag);
        ByteAndTag.apply(pkt, hdr.second, hdr.tag);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.tag.isValid()) {
            hdr.tag.v = hdr.tag.v + 1;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.first); pkt.emit(hdr.second); pkt.emit(hdr.tag); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
