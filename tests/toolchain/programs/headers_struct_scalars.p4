// Scalar members of the headers struct (p4c's BMv2 back end keeps them in `scalars`, named
// after the struct type): a counter the parser loop increments, a bool and an error.
#include <core.p4>
#include <v1model.p4>

header item_t { bit<7> more; bit<1> last_bit; }
header out_t { bit<8> count; bit<8> flag; }
struct headers_t {
    item_t[4] items;
    bit<8> count;
    bool seen_last;
    error err;
    out_t res;
}
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        hdr.count = 0;
        hdr.seen_last = false;
        transition item;
    }
    state item {
        pkt.extract(hdr.items.next);
        hdr.count = hdr.count + 1;
        transition select(hdr.items.last.last_bit) { 1: done; default: item; }
    }
    state done {
        hdr.seen_last = true;
        hdr.err = error.NoMatch;
        transition accept;
    }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.res.setValid();
        hdr.res.count = hdr.count;
        hdr.res.flag = 0;
        if (hdr.seen_last && hdr.err == error.NoMatch) {
            hdr.res.flag = 1;
        }
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.items); pkt.emit(hdr.res); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;
