// Parser: lookahead in select (8 and 16 bits), masks, ranges and default, advance, a header
// stack filled with .next in a loop, verify with a program error, stack overflow
// (StackOutOfBounds) and truncation (PacketTooShort); bytes skipped with advance are not
// re-emitted, the unparsed rest of the packet is kept as payload.
#include <core.p4>
#include <v1model.p4>

error { BadTag }

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tag_t { bit<8> kind; bit<8> len; }
header opt_t { bit<16> v; }
header rep_t { bit<8> err; bit<8> path; bit<8> count; bit<8> opt_valid; }
struct headers_t { ethernet_t ethernet; tag_t[3] tags; opt_t opt; rep_t rep; }
struct meta_t { bit<8> path; bit<8> count; }

parser TlvParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x88B5: parse_tags; default: accept; }
    }
    state parse_tags {
        transition select(pkt.lookahead<bit<8>>()) {
            0: parse_end;
            0x80 &&& 0x80: skip_two;
            1 .. 9: parse_tag;
            default: bad;
        }
    }
    state skip_two {
        pkt.advance(16);
        meta.path = meta.path | 0x10;
        transition parse_tags;
    }
    state parse_tag {
        pkt.extract(hdr.tags.next);
        meta.count = meta.count + 1;
        transition parse_tags;
    }
    state parse_end {
        pkt.advance(8);
        transition select(pkt.lookahead<bit<16>>()) { 0xABCD: parse_opt; default: accept; }
    }
    state parse_opt {
        pkt.extract(hdr.opt);
        verify(meta.count > 0, error.BadTag);
        meta.path = meta.path | 1;
        transition accept;
    }
    state bad {
        verify(false, error.BadTag);
        transition accept;
    }
}

control TlvVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TlvIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.rep.setValid();
        if (std.parser_error == error.NoError) { hdr.rep.err = 0; }
        else if (std.parser_error == error.PacketTooShort) { hdr.rep.err = 1; }
        else if (std.parser_error == error.StackOutOfBounds) { hdr.rep.err = 3; }
        else if (std.parser_error == error.BadTag) { hdr.rep.err = 7; }
        else { hdr.rep.err = 0xFF; }
        hdr.rep.path = meta.path;
        hdr.rep.count = meta.count;
        hdr.rep.opt_valid = 7w0 ++ (bit<1>)hdr.opt.isValid();
    }
}

control TlvEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control TlvCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TlvDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.tags); pkt.emit(hdr.opt); pkt.emit(hdr.rep); }
}

V1Switch(TlvParser(), TlvVerify(), TlvIngress(), TlvEgress(), TlvCompute(), TlvDeparser()) main;
