// Externs: register read-modify-write (with a register_write from the control plane), an
// indexed counter and a direct counter, an unconfigured meter (always green, 0), random with
// lo == hi, and a CRC-16 hash.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ex_t { bit<8> idx; bit<32> reg_before; bit<32> reg_after; bit<8> color; bit<8> rnd; bit<16> h; }
struct headers_t { ethernet_t ethernet; ex_t ex; }
struct meta_t { }

parser ExParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x88B5: parse_ex; default: accept; }
    }
    state parse_ex { pkt.extract(hdr.ex); transition accept; }
}

control ExVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control ExIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    register<bit<32>>(16) acc;
    counter(16, CounterType.packets_and_bytes) pkts;
    direct_counter(CounterType.packets) per_entry;
    meter(4, MeterType.packets) rate;

    action bump(bit<32> amount) {
        bit<32> v;
        acc.read(v, (bit<32>)hdr.ex.idx);
        hdr.ex.reg_before = v;
        v = v + amount;
        acc.write((bit<32>)hdr.ex.idx, v);
        hdr.ex.reg_after = v;
        pkts.count((bit<32>)hdr.ex.idx);
    }
    table by_idx {
        key = { hdr.ex.idx: exact; }
        actions = { bump; NoAction; }
        counters = per_entry;
        default_action = bump(1);
    }
    apply {
        std.egress_spec = 1;
        if (hdr.ex.isValid()) {
            by_idx.apply();
            rate.execute_meter((bit<32>)hdr.ex.idx & 3, hdr.ex.color);
            random(hdr.ex.rnd, 8w5, 8w5);
            hash(hdr.ex.h, HashAlgorithm.crc16, 16w0, { hdr.ex.idx }, 32w65536);
        }
    }
}

control ExEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control ExCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control ExDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ex); } }

V1Switch(ExParser(), ExVerify(), ExIngress(), ExEgress(), ExCompute(), ExDeparser()) main;
