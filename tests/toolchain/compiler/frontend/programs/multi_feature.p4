/* Features of several P4 tutorials exercises in one program: source routing (a header stack
 * consumed with pop_front), ECN marking from the queue depth, QoS DSCP rewrite, multicast,
 * ECMP load balancing with hash(), and conditional compilation. */
#include <core.p4>
#include <v1model.p4>

#ifndef ECN_THRESHOLD
#define ECN_THRESHOLD 10
#endif
#define MAX_HOPS 9

typedef bit<9>  egressSpec_t;
typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;

const bit<16> TYPE_IPV4 = 0x800;
const bit<16> TYPE_SRCROUTING = 0x1234;
const bit<19> ECN_THRESH = ECN_THRESHOLD;

header ethernet_t { macAddr_t dstAddr; macAddr_t srcAddr; bit<16> etherType; }
header srcRoute_t { bit<1> bos; bit<15> port; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<6> diffserv; bit<2> ecn; bit<16> totalLen;
    bit<16> identification; bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol;
    bit<16> hdrChecksum; ip4Addr_t srcAddr; ip4Addr_t dstAddr;
}
header tcp_t { bit<16> srcPort; bit<16> dstPort; bit<32> seq; bit<32> ack; bit<4> off;
               bit<4> res; bit<8> flags; bit<16> window; bit<16> csum; bit<16> urg; }

struct metadata { bit<14> ecmp_select; }
struct headers {
    ethernet_t            ethernet;
    srcRoute_t[MAX_HOPS]  srcRoutes;
    ipv4_t                ipv4;
    tcp_t                 tcp;
}

enum bit<6> Dscp { BEST_EFFORT = 0, EXPEDITED = 46, AF11 = 10 }

parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_SRCROUTING: parse_srcRouting;
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_srcRouting {
        packet.extract(hdr.srcRoutes.next);
        transition select(hdr.srcRoutes.last.bos) { 1: parse_ipv4; default: parse_srcRouting; }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) { 6: parse_tcp; default: accept; }
    }
    state parse_tcp { packet.extract(hdr.tcp); transition accept; }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) { apply { } }

control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    action drop() { mark_to_drop(standard_metadata); }

    action srcRoute_nhop() {
        standard_metadata.egress_spec = (bit<9>)hdr.srcRoutes[0].port;
        hdr.srcRoutes.pop_front(1);
    }
    action srcRoute_finish() { hdr.ethernet.etherType = TYPE_IPV4; }
    action update_ttl() { hdr.ipv4.ttl = hdr.ipv4.ttl - 1; }

    action set_ecmp_select(bit<16> ecmp_base, bit<32> ecmp_count) {
        hash(meta.ecmp_select, HashAlgorithm.crc16, ecmp_base,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
               hdr.tcp.srcPort, hdr.tcp.dstPort },
             ecmp_count);
    }
    action set_nhop(macAddr_t nhop_dmac, ip4Addr_t nhop_ipv4, egressSpec_t port) {
        hdr.ethernet.dstAddr = nhop_dmac;
        hdr.ipv4.dstAddr = nhop_ipv4;
        standard_metadata.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    action multicast() { standard_metadata.mcast_grp = 1; }

    action expedited() { hdr.ipv4.diffserv = (bit<6>)Dscp.EXPEDITED; }
    action default_class() { hdr.ipv4.diffserv = Dscp.BEST_EFFORT; }

    @name("ecmp_group") table ecmp_group {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { drop; set_ecmp_select; multicast; }
        size = 1024;
        default_action = drop();
    }
    table ecmp_nhop {
        key = { meta.ecmp_select: exact; }
        actions = { drop; set_nhop; }
        size = 2;
        const default_action = drop();
    }
    table qos {
        key = { hdr.ipv4.protocol: ternary; hdr.tcp.dstPort: range; }
        actions = { expedited; default_class; NoAction; }
        const entries = {
            (17, 5000 .. 5100): expedited();
            (6, _): default_class();
        }
        default_action = NoAction();
    }

    apply {
        if (hdr.srcRoutes[0].isValid()) {
            if (hdr.srcRoutes[0].bos == 1) { srcRoute_finish(); }
            srcRoute_nhop();
            if (hdr.ipv4.isValid()) { update_ttl(); }
            exit;
        }
        if (!hdr.ipv4.isValid() || hdr.ipv4.ttl == 0) { drop(); return; }
        switch (ecmp_group.apply().action_run) {
            drop: { exit; }
            multicast:
            set_ecmp_select: { }
        }
        if (meta.ecmp_select != 0 || hdr.tcp.isValid()) { ecmp_nhop.apply(); }
        qos.apply();
    }
}

control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    action mark_ecn() { hdr.ipv4.ecn = 3; }
    apply {
        if (hdr.ipv4.ecn == 1 || hdr.ipv4.ecn == 2) {
            if (standard_metadata.enq_qdepth >= ECN_THRESH) { mark_ecn(); }
        }
        if (standard_metadata.egress_port == standard_metadata.ingress_port) {
            mark_to_drop(standard_metadata);
        }
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.ecn,
              hdr.ipv4.totalLen, hdr.ipv4.identification, hdr.ipv4.flags,
              hdr.ipv4.fragOffset, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.srcRoutes);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.tcp);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
