// push_front / pop_front on a stack of header unions: whole unions (every member) shift,
// the first (push) or last (pop) elements become invalid (BMv2 push / pop on a
// header_union_stack).
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> x; }
header b_t { bit<16> y; }
header_union u_t { a_t a; b_t b; }
header sel_t { bit<8> op; }
struct headers_t { sel_t sel; u_t[3] us; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.sel); pkt.extract(hdr.us.next.a); pkt.extract(hdr.us.next.b); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.sel.op == 1) {
            hdr.us.push_front(1);
            hdr.us[0].a.setValid();
            hdr.us[0].a.x = 0xCC;
        } else if (hdr.sel.op == 2) {
            hdr.us.pop_front(1);
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.sel); pkt.emit(hdr.us); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
