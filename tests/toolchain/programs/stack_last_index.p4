// stack.lastIndex (P4_16 spec 8.18: the index of the last extracted element), as p4c's BMv2
// back end writes it (ExpressionConverter: last_stack_index(stack), JSON_format.md): in a
// parser select key, in a parser assignment and in ingress. Labels are MPLS-like: 7-bit value,
// bottom-of-stack bit; ingress reports the depth, the last label's value and whether the select
// on lastIndex found a single label.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header label_t { bit<7> v; bit<1> bos; }
header report_t { bit<8> depth; bit<8> last_v; bit<8> single; bit<8> twice; }
struct headers_t { ethernet_t ethernet; report_t report; label_t[4] labels; }
struct meta_t { bit<32> depth; bit<8> last_v; bit<8> single; bit<8> twice; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition labels;
    }
    state labels {
        pkt.extract(hdr.labels.next);
        transition select(hdr.labels.last.bos) {
            1: done;
            default: labels;
        }
    }
    state done {
        meta.depth = hdr.labels.lastIndex;
        meta.twice = (bit<8>)(hdr.labels.lastIndex << 1);   // inside an expression
        meta.last_v = (bit<8>)hdr.labels.last.v;
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
        hdr.report.last_v = meta.last_v;
        hdr.report.single = meta.single;
        hdr.report.twice = meta.twice;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.report); pkt.emit(hdr.labels); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
