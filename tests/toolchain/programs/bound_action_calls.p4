// A function call in an argument that a table's actions list binds to an `in` parameter
// (as in p4c's testdata issue2266.p4 and issue2321.p4, which p4c-bm2-ss compiles). P4_16
// spec 14.2.1.2: "the expressions supplied as arguments to an action are not evaluated
// until the action is invoked"; arguments are evaluated left to right, each call with its
// copy-in/copy-out (6.8). p4c's RemoveActionParameters turns each bound `in` argument into
// an assignment at the start of the action's body, where the call is then inlined. The
// arguments are expressions of the control's scope, not the action's (an action parameter
// of the same name as a control-local variable does not hide it there).
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header v_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; bit<8> e; }
struct headers_t { ethernet_t ethernet; v_t v; }
struct meta_t { }

bit<8> next_seq(inout bit<8> n) {
    n = n + 1;
    return n << 1;
}
bit<8> seven() { return 7; }
bit<8> twice(in bit<8> v) { return v + v; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    bit<8> x = 0x30;
    action pair(in bit<8> y, in bit<8> z) { hdr.v.b = y; hdr.v.c = z; }
    action add_const(in bit<8> k, bit<8> data) { hdr.v.d = k + data; }
    action shadow(in bit<8> x) { hdr.v.e = x; }
    table t {
        key = { hdr.v.a: exact; }
        actions = {
            pair(next_seq(hdr.v.a), next_seq(hdr.v.a));
            add_const(seven());
            shadow(twice(x));
            NoAction;
        }
        default_action = NoAction;
    }
    apply {
        std.egress_spec = 1;
        t.apply();
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
