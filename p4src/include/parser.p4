/*
 * parser.p4 -- parser and deparser of the RD-TCP gateway (v1model signatures).
 *
 * Ethernet, IPv4 with its options kept word by word (so the deparser re-emits them), TCP of
 * unfragmented datagrams only, and an EPDN option found with one lookahead at the first-option
 * position. Nothing here rejects a packet: a truncated header ends parsing with
 * PacketTooShort and the ingress treats the packet as "not well-formed TCP" (never modified).
 */
#ifndef RDTCP_PARSER_P4
#define RDTCP_PARSER_P4

/*************************************************************************
 ***********************  P A R S E R  ***********************************
 *************************************************************************/
parser MyParser(packet_in packet,
                out headers_t hdr,
                inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {

    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        meta.ip_option_words = hdr.ipv4.ihl - 5;
        /* ihl < 5 is malformed: accept here, the ingress drops it (DROP_MALFORMED). */
        transition select(hdr.ipv4.ihl) {
            5: parse_ipv4_payload;
            6 .. 15: parse_ipv4_options;
            default: accept;
        }
    }

    state parse_ipv4_options {
        packet.extract(hdr.ipv4_options.next);
        meta.ip_option_words = meta.ip_option_words - 1;
        transition select(meta.ip_option_words) {
            0: parse_ipv4_payload;
            default: parse_ipv4_options;
        }
    }

    /* Only an unfragmented datagram (MF clear, offset 0) starts with a whole TCP segment whose
     * checksum the gateway can recompute. The mask 0x1 selects the MF flag (RFC 791 §3.1). */
    state parse_ipv4_payload {
        transition select(hdr.ipv4.frag_offset, hdr.ipv4.flags, hdr.ipv4.protocol) {
            (13w0, 3w0 &&& 3w1, PROTO_TCP): parse_tcp;
            default: accept;
        }
    }

    /* At least 12 option bytes (data offset >= 8) are needed to hold an EPDN option. */
    state parse_tcp {
        packet.extract(hdr.tcp);
        transition select(hdr.tcp.data_offset) {
            8 .. 15: parse_first_option;
            default: accept;
        }
    }

    state parse_first_option {
        transition select(packet.lookahead<bit<32>>()) {
            EPDN_FIRST_WORD: parse_epdn;
            default: accept;
        }
    }

    state parse_epdn {
        packet.extract(hdr.epdn);
        transition accept;
    }
}

/*************************************************************************
 ***********************  D E P A R S E R  *******************************
 *************************************************************************/
/* An inserted EPDN option is emitted right after the fixed TCP header: the first option. */
control MyDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.ipv4_options);
        packet.emit(hdr.tcp);
        packet.emit(hdr.epdn);
    }
}

#endif /* RDTCP_PARSER_P4 */
