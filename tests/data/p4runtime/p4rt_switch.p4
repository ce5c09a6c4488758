// Every kind of P4Runtime object on one v1model switch, for the P4Info and P4Runtime server
// tests: packet-in/out through CPU port 64 with @controller_header metadata, tables of every
// match kind (exact, lpm, ternary, range, optional) with priorities, direct counters and meters,
// an idle timeout, @tableonly/@defaultonly actions and a const default action, an action
// profile and an action selector, indirect counters and meters, registers, a digest, a
// parser value set, multicast groups and clone sessions. A PacketOut for port 0 runs through
// the tables (ingress port 64), so tests without interfaces see forwarding as PacketIns.
#include <core.p4>
#include <v1model.p4>

#define CPU_PORT 64

typedef bit<48> mac_t;
typedef bit<9> port_t;

@controller_header("packet_out")
header packet_out_t {
    port_t egress_port;
    bit<7> _pad;
}

@controller_header("packet_in")
header packet_in_t {
    port_t ingress_port;
    bit<7> _pad;
}

header ethernet_t { mac_t dst; mac_t src; bit<16> ether_type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len; bit<16> identification;
    bit<3> flags; bit<13> frag_offset; bit<8> ttl; bit<8> protocol; bit<16> hdr_checksum;
    bit<32> src; bit<32> dst;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t packet_in;
    ethernet_t ethernet;
    ipv4_t ipv4;
}

struct learn_t {
    mac_t src;
    port_t port;
}

struct meta_t {
    bit<16> flow;
    bit<32> color;
    bit<8> tag;
}

parser SwParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    value_set<bit<16>>(4) tagged_types;
    state start {
        transition select(std.ingress_port) { CPU_PORT: parse_packet_out; default: parse_ethernet; }
    }
    state parse_packet_out { pkt.extract(hdr.packet_out); transition parse_ethernet; }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            tagged_types: tagged;
            default: accept;
        }
    }
    state tagged { meta.tag = 1; transition accept; }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control SwVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control SwIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    counter(128, CounterType.packets_and_bytes) port_in;
    meter(128, MeterType.packets) port_meter;
    register<bit<32>>(128) last_len;
    direct_counter(CounterType.packets_and_bytes) fwd_hits;
    direct_meter<bit<32>>(MeterType.bytes) acl_rate;
    action_profile(64) nexthops;
    action_selector(HashAlgorithm.crc16, 128, 14) ecmp_sel;

    action drop() { mark_to_drop(std); }
    action set_port(port_t port) { std.egress_spec = port; }
    action to_cpu() { std.egress_spec = CPU_PORT; }
    action flood(bit<16> group) { std.mcast_grp = group; }
    action mirror(bit<32> session) { clone(CloneType.I2E, session); }
    action acl_mark(bit<8> tos) { hdr.ipv4.diffserv = tos; acl_rate.read(meta.color); }
    action learn() { digest<learn_t>(1, { hdr.ethernet.src, std.ingress_port }); }
    action fwd_count(port_t port) { std.egress_spec = port; }
    action set_nexthop(port_t port, mac_t dmac) { std.egress_spec = port; hdr.ethernet.dst = dmac; }

    table smac {
        key = { hdr.ethernet.src: exact; }
        actions = { learn; NoAction; }
        default_action = learn();
        support_timeout = true;
        size = 256;
    }
    table fwd {
        key = { hdr.ethernet.dst: exact; }
        actions = { set_port; fwd_count; flood; @tableonly to_cpu; @defaultonly drop; }
        default_action = drop();
        counters = fwd_hits;
        size = 256;
    }
    table acl {
        key = {
            hdr.ipv4.src: ternary;
            hdr.ipv4.dst: range;
            hdr.ipv4.protocol: optional;
        }
        actions = { acl_mark; mirror; NoAction; }
        meters = acl_rate;
        size = 64;
    }
    table routes {
        key = { hdr.ipv4.dst: lpm; }
        actions = { set_nexthop; drop; }
        const default_action = drop();
        implementation = nexthops;
    }
    table ecmp {
        key = { hdr.ipv4.dst: exact; hdr.ipv4.src: selector; hdr.ipv4.protocol: selector; }
        actions = { set_nexthop; }
        implementation = ecmp_sel;
    }

    apply {
        port_in.count((bit<32>)std.ingress_port);
        if (hdr.packet_out.isValid()) {
            // a PacketOut for port 0 goes through the tables; for another port, straight out
            port_t out_port = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            if (out_port != 0) {
                std.egress_spec = out_port;
                return;
            }
        }
        port_meter.execute_meter((bit<32>)std.ingress_port, meta.color);
        last_len.write((bit<32>)std.ingress_port, std.packet_length);
        if (hdr.ethernet.isValid()) {
            smac.apply();
            fwd.apply();
        }
        if (hdr.ipv4.isValid()) {
            acl.apply();
            if (hdr.ipv4.ttl == 1) { ecmp.apply(); } else { routes.apply(); }
        }
    }
}

control SwEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (std.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = std.ingress_port;
        }
    }
}

control SwCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control SwDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(SwParser(), SwVerify(), SwIngress(), SwEgress(), SwCompute(), SwDeparser()) main;
