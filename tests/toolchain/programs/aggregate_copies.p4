// Header- and struct-typed action arguments are copied in and out (P4_16 spec 6.8), which
// shows when the body also changes the argument's own storage; struct-typed local
// variables (initialised from a struct, a struct expression, or not at all); list
// expressions as header initialisers and arguments.
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header v_t { bit<8> a; bit<8> b; }
struct pair_t { v_t v; bit<8> n; }
struct headers_t { ethernet_t ethernet; v_t v; v_t w; }
struct meta_t { bit<8> n; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.v); pkt.extract(hdr.w);
                  transition accept; } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    // in: the body's write to hdr.v does not change what val reads
    action read_in(in v_t val) {
        hdr.v.a = 0xEE;
        hdr.v.b = val.a;
    }
    // inout: the copy-out of the whole header undoes the direct write to hdr.w.b
    action inout_undo(inout v_t val) {
        val.a = val.a + 1;
        hdr.w.b = 0xDD;
    }
    // out: starts invalid, so the copy-out of an untouched out header invalidates it
    action out_header(out v_t val) { }
    // a list expression as a header argument: a copy built from the list
    action from_list(in v_t val) { hdr.w.a = val.a + val.b; }
    // a struct argument, aliased with a second argument
    action structs(inout headers_t h, inout v_t w) {
        h.w.a = 0x77;
        w.b = 0x66;
    }
    apply {
        std.egress_spec = 1;
        read_in(hdr.v);
        inout_undo(hdr.w);
        v_t lv = { 0x20, 0x01 };           // a header local initialised from a list: valid
        from_list({ 0x30, lv.b });         // w.a = 0x31
        if (hdr.ethernet.ether_type == 0x88B6) {
            out_header(hdr.w);
        }
        if (hdr.ethernet.ether_type == 0x88B7) {
            structs(hdr, hdr.w);        // w's copy-out comes last: w.a back to its old value
        }
        pair_t p = { hdr.v, 3 };
        pair_t q = p;
        pair_t r;
        r.n = q.n + 1;
        q.v.a = 0x10;
        hdr.v.a = q.v.a + p.v.a + r.n;  // 0x10 + 0xEE + 4 = 0x02 (mod 256)
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.v); pkt.emit(hdr.w); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
