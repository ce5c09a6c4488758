// V1MODEL_VERSION 20200408 (p4c's v1model.p4 with that version defined first): the PortId_t
// typedef, standard_metadata port fields of that type, and counter<I>, meter<I> and
// register<T, I> indexed by a bit<8> value.
#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>
header h_t { bit<8> idx; bit<32> val; bit<16> port; }
struct headers_t { h_t h; }
struct meta_t { PortId_t p; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    register<bit<32>, bit<8>>(256) r;
    counter<bit<8>>(256, CounterType.packets) c;
    meter<bit<8>>(256, MeterType.packets) m;
    apply {
        bit<32> v;
        r.read(v, hdr.h.idx);
        v = v + 1;
        r.write(hdr.h.idx, v);
        hdr.h.val = v;
        c.count(hdr.h.idx);
        bit<2> colour;
        m.execute_meter(hdr.h.idx, colour);
        meta.p = std.ingress_port;
        hdr.h.port = (bit<16>)meta.p;
        std.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
