// varbit fields (P4_16 spec 7.1.6.5 varbit, 8.9.2 operations on varbit, 12.8.2 two-argument
// extract): IPv4 options sized by ihl and covered by the header checksum; TLV-like headers
// whose length byte is read with lookahead; varbit equality, a local varbit variable and
// varbit field copies (they carry the length: BMv2 assign_VL); copying a whole header with
// a varbit field; the parser errors of a length past the maximum or past the packet's end.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> total_len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> protocol; bit<16> checksum; bit<32> src; bit<32> dst;
}
header ipv4_options_t { varbit<320> options; }
// len counts the bytes of data
header tlv_t { bit<8> len; varbit<64> data; }
header report_t { bit<8> same; bit<8> min_bytes; bit<8> error_code; }

struct headers_t {
    ethernet_t ethernet; ipv4_t ipv4; ipv4_options_t ipv4_options;
    tlv_t a; tlv_t b; tlv_t copy; report_t report;
}
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            0x88B5: parse_tlvs;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        // ihl counts 32-bit words, 5 of them the fixed header
        pkt.extract(hdr.ipv4_options, ((bit<32>)hdr.ipv4.ihl - 5) * 32);
        transition accept;
    }
    state parse_tlvs {
        // the length of each TLV's data is its first byte, read before extracting it
        pkt.extract(hdr.a, (bit<32>)pkt.lookahead<bit<8>>() << 3);
        bit<32> b_bits = (bit<32>)pkt.lookahead<bit<8>>() * 8;
        pkt.extract(hdr.b, b_bits);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action swap_data() {
        // a local varbit variable holds a value and its length
        varbit<64> t = hdr.a.data;
        hdr.a.data = hdr.b.data;
        hdr.b.data = t;
        bit<8> l = hdr.a.len;
        hdr.a.len = hdr.b.len;
        hdr.b.len = l;
    }
    apply {
        std.egress_spec = 1;
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            exit;
        }
        hdr.report.setValid();
        hdr.report.min_bytes = (bit<8>)hdr.a.minSizeInBytes();
        if (std.parser_error == error.HeaderTooShort) {
            hdr.report.error_code = 1;
        } else if (std.parser_error == error.PacketTooShort) {
            hdr.report.error_code = 2;
        }
        if (!hdr.a.isValid() || !hdr.b.isValid()) {
            exit;                         // the fields of an invalid header are unspecified
        }
        if (hdr.a.data == hdr.b.data) {
            hdr.report.same = 1;
        }
        if (hdr.a.data != hdr.b.data) {
            hdr.copy = hdr.a;
            swap_data();
        }
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control CC(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.total_len, hdr.ipv4.id,
              hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.src, hdr.ipv4.dst,
              hdr.ipv4_options.options },
            hdr.ipv4.checksum, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv4_options);
        pkt.emit(hdr.report);
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
        pkt.emit(hdr.copy);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
