// resubmit.p4 with its field list named by a serializable enum member, as in p4c's
// issue1001-1-bmv2 sample: @field_list(FieldLists.RESUBMIT) and
// resubmit_preserving_field_list((bit<8>)FieldLists.RESUBMIT) name field list 1.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header r_t { bit<8> want; bit<8> rounds; bit<8> other; bit<8> itype; }
struct headers_t { ethernet_t ethernet; r_t r; }
enum bit<8> FieldLists { RESUBMIT = 1, UNUSED = 7 }
struct meta_t { @field_list(FieldLists.RESUBMIT) bit<8> rounds; bit<8> other; }

parser RsParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x88B5: parse_r; default: accept; }
    }
    state parse_r { pkt.extract(hdr.r); transition accept; }
}

control RsVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control RsIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 2;
        if (hdr.r.isValid()) {
            if (meta.rounds < hdr.r.want) {
                meta.rounds = meta.rounds + 1;
                meta.other = 0x55;
                resubmit_preserving_field_list((bit<8>)FieldLists.RESUBMIT);
            }
            hdr.r.rounds = meta.rounds;
            hdr.r.other = meta.other;
            hdr.r.itype = (bit<8>)std.instance_type;
        }
    }
}

control RsEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control RsCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control RsDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.r); } }

V1Switch(RsParser(), RsVerify(), RsIngress(), RsEgress(), RsCompute(), RsDeparser()) main;
