// Whole header-stack elements known only at run time (P4_16 spec 8.18), as p4c's BMv2 back
// end writes them (JSON_format.md): `stack.last` copied as a header in the parser and
// `stack[i]` with i from the packet copied both ways in ingress, each an assign_header whose
// operand is dereference_header_stack(...); `stack.lastIndex` as last_stack_index, in a
// parser select key and in a parser assignment.
// Labels are MPLS-like: 7-bit value, bottom-of-stack bit. The last byte of the source MAC picks
// the label that ingress swaps with the first one.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header label_t { bit<7> v; bit<1> bos; }
header out_t { bit<8> depth; bit<8> last_v; bit<8> single; }
struct headers_t { ethernet_t ethernet; out_t report; label_t[4] labels; }
struct meta_t { label_t last; bit<32> depth; bit<8> single; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition labels;
    }
    state labels {
        pkt.extract(hdr.labels.next);
        meta.last = hdr.labels.last;            // a whole header from .last
        transition select(hdr.labels.last.bos) {
            1: done;
            default: labels;
        }
    }
    state done {
        meta.depth = hdr.labels.lastIndex;
        transition select(hdr.labels.lastIndex) {
            0: single;
            default: accept;
        }
    }
    state single {
        meta.single = 1;
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.report.setValid();
        hdr.report.depth = (bit<8>)meta.depth;
        hdr.report.last_v = (bit<8>)meta.last.v;
        hdr.report.single = meta.single;
        bit<8> idx = hdr.ethernet.src[7:0];
        if (idx <= (bit<8>)meta.depth) {
            label_t tmp = hdr.labels[idx];      // run-time index, read as a header
            hdr.labels[idx] = hdr.labels[0];    // ... and written as one
            hdr.labels[0] = tmp;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.report); pkt.emit(hdr.labels); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
