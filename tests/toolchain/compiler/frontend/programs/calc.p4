/* A calculator in the style of the P4 tutorials' exercises: a custom header after Ethernet,
 * recognised with lookahead, an operation table with const entries, the result sent back. */
#include <core.p4>
#include <v1model.p4>

const bit<16> ETYPE_CALC = 0x1234;
const bit<8>  CALC_P     = 0x50;   // 'P'
const bit<8>  CALC_4     = 0x34;   // '4'
const bit<8>  CALC_VER   = 0x01;

typedef bit<48> mac_t;

header ethernet_t { mac_t dst; mac_t src; bit<16> etherType; }

header calc_t {
    bit<8>  p;
    bit<8>  four;
    bit<8>  ver;
    bit<8>  op;
    bit<32> a;
    bit<32> b;
    bit<32> res;
}

struct headers_t { ethernet_t ethernet; calc_t calc; }
struct meta_t { }

error { BadCalcHeader }

parser CalcParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETYPE_CALC: check_calc;
            default: accept;
        }
    }
    state check_calc {
        transition select(pkt.lookahead<calc_t>().p, pkt.lookahead<calc_t>().four,
                          pkt.lookahead<calc_t>().ver) {
            (CALC_P, CALC_4, CALC_VER): parse_calc;
            default: accept;
        }
    }
    state parse_calc {
        pkt.extract(hdr.calc);
        verify(hdr.calc.op != 0, error.BadCalcHeader);
        transition accept;
    }
}

control CalcVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control CalcIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action send_back(bit<32> result) {
        mac_t tmp = hdr.ethernet.dst;
        hdr.ethernet.dst = hdr.ethernet.src;
        hdr.ethernet.src = tmp;
        hdr.calc.res = result;
        sm.egress_spec = sm.ingress_port;
    }
    action op_add() { send_back(hdr.calc.a + hdr.calc.b); }
    action op_sub() { send_back(hdr.calc.a - hdr.calc.b); }
    action op_and() { send_back(hdr.calc.a & hdr.calc.b); }
    action op_or()  { send_back(hdr.calc.a | hdr.calc.b); }
    action op_xor() { send_back(hdr.calc.a ^ hdr.calc.b); }
    action op_sat() { send_back(hdr.calc.a |+| hdr.calc.b); }
    action op_drop() { mark_to_drop(sm); }

    table calculate {
        key = { hdr.calc.op: exact; }
        actions = { op_add; op_sub; op_and; op_or; op_xor; op_sat; op_drop; }
        const default_action = op_drop();
        const entries = {
            0x2b: op_add();     // '+'
            0x2d: op_sub();     // '-'
            0x26: op_and();     // '&'
            0x7c: op_or();      // '|'
            0x5e: op_xor();     // '^'
            0x73: op_sat();     // 's'
        }
    }

    apply {
        if (hdr.calc.isValid()) {
            calculate.apply();
        } else {
            op_drop();
        }
    }
}

control CalcEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control CalcCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control CalcDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.calc);
    }
}

V1Switch(CalcParser(), CalcVerify(), CalcIngress(), CalcEgress(), CalcCompute(),
         CalcDeparser()) main;
