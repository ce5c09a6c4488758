// header_union (spec 8.20): at most one member valid. Extracting a member, setValid() on it
// or assigning a valid header to it makes the other members invalid; the union is valid
// when one member is; emitting it emits the valid member.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header short_t { bit<8> x; }
header long_t { bit<16> y; }
header tag_t { bit<8> t; }
header_union opt_t { short_t s; long_t l; }
struct headers_t { ethernet_t ethernet; opt_t u; tag_t tag; short_t spare; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0001: parse_s;
            0x0002: parse_l;
            0x0003: parse_both;
            default: accept;
        }
    }
    state parse_s { pkt.extract(hdr.u.s); transition accept; }
    state parse_l { pkt.extract(hdr.u.l); transition accept; }
    // the second extract invalidates the first member
    state parse_both { pkt.extract(hdr.u.s); pkt.extract(hdr.u.l); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action to_long() {
        hdr.u.l.setValid();               // s becomes invalid
        hdr.u.l.y = 0xBEEF;
    }
    action from_spare() {
        hdr.spare.setValid();
        hdr.spare.x = 0x5A;
        hdr.u.s = hdr.spare;              // valid copy: l becomes invalid
    }
    apply {
        std.egress_spec = 1;
        hdr.tag.setValid();
        hdr.tag.t = hdr.u.isValid() ? 8w1 : 8w0;
        if (hdr.ethernet.ether_type == 0x0001) {
            to_long();
        } else if (hdr.ethernet.ether_type == 0x0002) {
            from_spare();
            hdr.spare.setInvalid();
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
