// Sub-parsers instantiated in a parser are inlined as p4c's InlineParsers does: the calling
// state is split around the apply, the sub-parser's states are copied (one copy per apply),
// its accept continues the calling state and its reject rejects; headers by reference, a
// scalar out argument copied back (spec 6.8).
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tag_t { bit<8> kind; bit<8> value; }
struct headers_t { ethernet_t ethernet; tag_t[3] tags; }
struct meta_t { bit<8> last_kind; bit<8> count; }

// one tag; `kind` (copied out raised by `bias`) 0xFF is invalid and rejects the packet
parser TagParser(packet_in pkt, inout headers_t hdr, out bit<8> kind, in bit<8> bias) {
    bit<8> b = bias;             // initialised at each apply, after the copy-in
    state start {
        pkt.extract(hdr.tags.next);
        kind = hdr.tags.last.kind + b;
        transition select(hdr.tags.last.kind) {
            0xFF: reject_it;
            default: accept;
        }
    }
    state reject_it {
        verify(false, error.ParserInvalidArgument);
        transition accept;
    }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    TagParser() tag;
    state start {
        pkt.extract(hdr.ethernet);
        meta.count = 0;
        transition select(hdr.ethernet.ether_type) {
            0x88B5: two_tags;
            default: accept;
        }
    }
    state two_tags {
        tag.apply(pkt, hdr, meta.last_kind, 1);
        meta.count = meta.count + 1;
        tag.apply(pkt, hdr, meta.last_kind, 2);  // a second copy of the sub-parser
        meta.count = meta.count + 1;
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (std.parser_error != error.NoError) {
            std.egress_spec = 2;
        }
        hdr.ethernet.src[7:0] = meta.last_kind;
        hdr.ethernet.src[15:8] = meta.count;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.tags); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
