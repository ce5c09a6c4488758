// lookahead<H>().field in a select (keys at their offsets inside H), a parser-level variable
// with an initialiser, a direct meter whose colour a table action reads, and a header-typed
// local variable copied from and into headers (validity travels with assign_header).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tag_t { bit<8> kind; bit<8> len; bit<16> val; }
header out_t { bit<8> color; bit<8> seen; bit<8> saved_kind; bit<8> path; }
struct headers_t { ethernet_t ethernet; tag_t tag; tag_t copy; out_t rep; }
struct meta_t { bit<8> seen; bit<8> color; bit<8> path; }

parser MiscParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    bit<8> seen_init = 7;
    state start {
        pkt.extract(hdr.ethernet);
        meta.seen = seen_init;
        transition select(hdr.ethernet.ether_type) { 0x88B5: check; default: accept; }
    }
    state check {
        transition select(pkt.lookahead<tag_t>().kind, pkt.lookahead<tag_t>().val) {
            (1, 0xABCD): tagged;
            (1, _): tagged_other;
            default: accept;
        }
    }
    state tagged { meta.path = 1; pkt.extract(hdr.tag); transition accept; }
    state tagged_other { meta.path = 2; pkt.extract(hdr.tag); transition accept; }
}

control MiscVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MiscIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    direct_meter<bit<8>>(MeterType.packets) dm;
    action colour(bit<8> tagv) {
        dm.read(meta.color);
        hdr.tag.len = tagv;
    }
    table t {
        key = { hdr.tag.kind: exact; }
        actions = { colour; NoAction; }
        meters = dm;
        default_action = NoAction();
    }
    apply {
        std.egress_spec = 1;
        if (hdr.tag.isValid()) {
            t.apply();
            tag_t saved = hdr.tag;
            saved.val = saved.val + 1;
            hdr.copy = saved;
            hdr.rep.setValid();
            hdr.rep.color = meta.color;
            hdr.rep.seen = meta.seen;
            hdr.rep.saved_kind = saved.kind;
            hdr.rep.path = meta.path;
        }
    }
}

control MiscEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control MiscCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MiscDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.tag); pkt.emit(hdr.copy); pkt.emit(hdr.rep); }
}

V1Switch(MiscParser(), MiscVerify(), MiscIngress(), MiscEgress(), MiscCompute(), MiscDeparser()) main;
