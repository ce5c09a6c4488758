// for loops (P4_16 1.2.4+, spec 12.9) in actions, functions and an apply block: compiled to
// _jump_if_zero / _jump inside one action as p4c's BMv2 back end does. Covers a loop variable
// initialised from a field, break, continue, nested loops, exit and return inside a loop,
// an empty condition, several comma-separated init declarations and updates.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
// op selects the computation; x and y are its operands
header in_t { bit<8> op; bit<8> x; bit<8> y; }
header out_t { bit<8> r1; bit<8> r2; bit<16> r3; }
struct headers_t { ethernet_t ethernet; in_t arg; out_t res; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.arg); transition accept; }
}

// the smallest i in 1..15 with i * i >= v (0xFF when there is none): return inside a loop
bit<8> ceil_sqrt(in bit<8> v) {
    for (bit<8> i = 1; i < 16; i = i + 1) {
        if (i * i >= v) {
            return i;
        }
    }
    return 0xFF;
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action popcount() {
        for (bit<8> v = hdr.arg.x; v != 0; v = v >> 1) {
            hdr.res.r1 = hdr.res.r1 + (v & 1);
        }
    }
    action lowest_set_bit() {
        hdr.res.r1 = 8;                               // none set
        for (bit<8> i = 0; i < 8; i = i + 1) {
            if (((hdr.arg.x >> i) & 1) == 1) {
                hdr.res.r1 = i;
                break;
            }
        }
    }
    action sum_of_odd_below() {
        for (bit<8> i = 0; i < hdr.arg.x; i = i + 1) {
            if ((i & 1) == 0) {
                continue;
            }
            hdr.res.r2 = hdr.res.r2 + i;
        }
    }
    action product() {
        for (bit<8> i = 0; i < hdr.arg.x; i = i + 1) {
            for (bit<8> j = 0; j < hdr.arg.y; j = j + 1) {
                hdr.res.r3 = hdr.res.r3 + 1;
            }
        }
    }
    action stop_at_y() {
        for (bit<8> i = 0; i < hdr.arg.x; i = i + 1) {
            hdr.res.r1 = i;
            if (i == hdr.arg.y) {
                hdr.res.r2 = 0xEE;
                exit;                                 // the rest of the pipeline is skipped
            }
        }
    }
    action meet_in_middle() {
        for (bit<8> lo = 0, bit<8> hi = hdr.arg.x; lo < hi; lo = lo + 1, hi = hi - 1) {
            hdr.res.r1 = hdr.res.r1 + 1;
        }
    }
    apply {
        std.egress_spec = 1;
        hdr.res.setValid();
        hdr.res.r1 = 0;
        hdr.res.r2 = 0;
        hdr.res.r3 = 0;
        if (hdr.arg.op == 1) {
            popcount();
        } else if (hdr.arg.op == 2) {
            lowest_set_bit();
        } else if (hdr.arg.op == 3) {
            sum_of_odd_below();
        } else if (hdr.arg.op == 4) {
            product();
        } else if (hdr.arg.op == 5) {
            stop_at_y();
        } else if (hdr.arg.op == 6) {
            hdr.res.r1 = ceil_sqrt(hdr.arg.x);
        } else if (hdr.arg.op == 7) {
            meet_in_middle();
        } else if (hdr.arg.op == 8) {
            // a loop in the apply block itself, without a condition
            for (bit<8> k = 0; ; k = k + 1) {
                if (k == hdr.arg.x) {
                    break;
                }
                hdr.res.r3 = hdr.res.r3 + (bit<16>)hdr.arg.y;
            }
        }
        hdr.res.r3 = hdr.res.r3 | 0x8000;             // marks that the pipeline went on
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.arg); pkt.emit(hdr.res); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
