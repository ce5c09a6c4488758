// Initial table entries that the control plane may change (`entries` without const, spec
// 14.2.1.4), with entry priorities, per-entry const, largest_priority_wins and priority_delta.
// p4c's BMv2 back end writes the entries in source order with priorities 1, 2, ... (BMv2: the
// smallest wins), so of two matching entries the first listed wins; these are listed in
// priority order, as the spec's priorities rank them too. p4c also sizes the table to its entries
// (max_size 5), so the control plane may modify them but has no room to add more.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<8> m; bit<8> res; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set(bit<8> v) { hdr.h.res = v; }
    action none() { hdr.h.res = 0xEE; }
    table t {
        key = { hdr.h.k: exact; hdr.h.m: ternary; }
        actions = { set; none; }
        default_action = none();
        largest_priority_wins = true;
        priority_delta = 10;
        entries = {
            const priority=100: (0x01, 0x0F &&& 0x0F) : set(1);     // 100
                                (0x01, 0x00 &&& 0x0C) : set(2);     // 90
                                (0x01, _)             : set(3);     // 80
                  priority=50:  (0x02, 0x80 &&& 0x80) : set(4);
            const               (0x02, _)             : set(5);     // 40
        }
    }
    apply {
        std.egress_spec = 1;
        t.apply();
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
