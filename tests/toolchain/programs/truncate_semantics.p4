// truncate() as simple_switch implements it (behavioral-model include/bm/bm_sim/packet.h,
// Packet::truncate / get_data_size; targets/simple_switch/simple_switch.cpp egress_thread):
// - several calls keep the smallest length ("the smallest provided length value will be used");
// - the cut is applied when the packet is transmitted: a recirculated packet is a new Packet
//   made from the whole deparsed buffer (clone_no_phv_ptr), so it re-enters ingress uncut;
// - copies (multicast, clones) are new Packets and are not cut by the original's truncate().
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header data_t { bit<8> mode; bit<8> itype; }
struct headers_t { ethernet_t ethernet; data_t data; }
struct meta_t { }

parser TrParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.data); transition accept; }
}
control TrVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TrIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.data.mode == 1) { truncate(20); truncate(30); }
        if (hdr.data.mode == 2) { truncate(30); truncate(20); }
        if (hdr.data.mode == 3) {
            if (std.instance_type == 0) { truncate(18); } else { std.egress_spec = 2; }
        }
        if (hdr.data.mode == 4) { truncate(17); std.mcast_grp = 7; }
    }
}

control TrEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        // (a unicast packet reaches egress with instance_type 0 even after a recirculation:
        // simple_switch sets PKT_INSTANCE_TYPE_NORMAL before enqueueing it)
        if (hdr.data.mode == 3 && std.egress_port == 1) { recirculate_preserving_field_list(0); }
        hdr.data.itype = (bit<8>)std.instance_type;
    }
}
control TrCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TrDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.data); } }

V1Switch(TrParser(), TrVerify(), TrIngress(), TrEgress(), TrCompute(), TrDeparser()) main;
