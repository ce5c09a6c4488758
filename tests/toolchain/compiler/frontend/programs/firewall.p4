/* A stateful firewall in the style of the P4 tutorials: a two-hash Bloom filter in registers
 * remembers outgoing TCP flows; incoming packets of unknown flows are dropped. */
#include <core.p4>
#include <v1model.p4>

#define BLOOM_FILTER_ENTRIES 4096
#define BLOOM_FILTER_BIT_WIDTH 1

const bit<16> TYPE_IPV4 = 0x800;
const bit<8>  TYPE_TCP  = 6;

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header tcp_t {
    bit<16> srcPort; bit<16> dstPort; bit<32> seqNo; bit<32> ackNo; bit<4> dataOffset;
    bit<4> res; bit<1> cwr; bit<1> ece; bit<1> urg; bit<1> ack; bit<1> psh; bit<1> rst;
    bit<1> syn; bit<1> fin; bit<16> window; bit<16> checksum; bit<16> urgentPtr;
}

struct metadata { }
struct headers { ethernet_t ethernet; ipv4_t ipv4; tcp_t tcp; }

enum bit<1> Direction { OUT = 0, IN = 1 }

parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { TYPE_IPV4: parse_ipv4; default: accept; }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) { TYPE_TCP: tcp; default: accept; }
    }
    state tcp { packet.extract(hdr.tcp); transition accept; }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    register<bit<BLOOM_FILTER_BIT_WIDTH>>(BLOOM_FILTER_ENTRIES) bloom_filter_1;
    register<bit<BLOOM_FILTER_BIT_WIDTH>>(BLOOM_FILTER_ENTRIES) bloom_filter_2;
    bit<32> reg_pos_one; bit<32> reg_pos_two;
    bit<1> reg_val_one; bit<1> reg_val_two;
    bit<1> direction;

    action drop() { mark_to_drop(standard_metadata); }

    action compute_hashes(bit<32> ipAddr1, bit<32> ipAddr2, bit<16> port1, bit<16> port2) {
        hash(reg_pos_one, HashAlgorithm.crc16, (bit<32>)0,
             { ipAddr1, ipAddr2, port1, port2, hdr.ipv4.protocol }, (bit<32>)BLOOM_FILTER_ENTRIES);
        hash(reg_pos_two, HashAlgorithm.crc32, (bit<32>)0,
             { ipAddr1, ipAddr2, port1, port2, hdr.ipv4.protocol }, (bit<32>)BLOOM_FILTER_ENTRIES);
    }

    action ipv4_forward(bit<48> dstAddr, bit<9> port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { ipv4_forward; drop; NoAction; }
        size = 1024;
        default_action = drop();
    }

    action set_direction(bit<1> dir) { direction = dir; }

    table check_ports {
        key = { standard_metadata.ingress_port: exact; standard_metadata.egress_spec: exact; }
        actions = { set_direction; NoAction; }
        size = 1024;
        default_action = NoAction();
    }

    apply {
        if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
            if (hdr.tcp.isValid()) {
                direction = 0;
                switch (check_ports.apply().action_run) {
                    set_direction: {
                        if (direction == (bit<1>)Direction.OUT) {
                            compute_hashes(hdr.ipv4.srcAddr, hdr.ipv4.dstAddr,
                                           hdr.tcp.srcPort, hdr.tcp.dstPort);
                        } else {
                            compute_hashes(hdr.ipv4.dstAddr, hdr.ipv4.srcAddr,
                                           hdr.tcp.dstPort, hdr.tcp.srcPort);
                        }
                        if (direction == 0) {
                            if (hdr.tcp.syn == 1) {
                                bloom_filter_1.write(reg_pos_one, 1);
                                bloom_filter_2.write(reg_pos_two, 1);
                            }
                        } else if (direction == 1) {
                            bloom_filter_1.read(reg_val_one, reg_pos_one);
                            bloom_filter_2.read(reg_val_two, reg_pos_two);
                            if (reg_val_one != 1 || reg_val_two != 1) { drop(); }
                        }
                    }
                    default: { }
                }
            }
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) { apply { } }

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply { packet.emit(hdr.ethernet); packet.emit(hdr.ipv4); packet.emit(hdr.tcp); }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
