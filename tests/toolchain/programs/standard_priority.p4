// standard_metadata.priority picks the egress queue (p4c aliases it as
// "intrinsic_metadata.priority", simple_switch's SSWITCH_PRIORITY_QUEUEING_SRC). simple_switch
// started without --priority-queues (as p4c's STF runner starts it) has one queue per port and
// drops a packet whose priority is not 0 when it is enqueued (simple_switch.cpp
// SimpleSwitch::enqueue, "Priority out of range, dropping packet").
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header prio_t { bit<8> prio; bit<8> seen; }
struct headers_t { ethernet_t ethernet; prio_t p; }
struct meta_t { }

parser PqParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.p); transition accept; }
}
control PqVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control PqIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        std.priority = (bit<3>)hdr.p.prio;
    }
}
control PqEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { hdr.p.seen = (bit<8>)std.priority; }
}
control PqCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control PqDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.p); } }

V1Switch(PqParser(), PqVerify(), PqIngress(), PqEgress(), PqCompute(), PqDeparser()) main;
