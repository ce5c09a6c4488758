/*
 * parser.p4 -- parser and deparser of the RD-TCP gateway (v1model signatures).
 *
 * The states themselves are architecture-neutral and live in parser_states.p4 (the TNA port,
 * p4src/tna/, includes the same file); this file gives them v1model's parser signature and adds
 * the states of tcp_options.p4, which read the rest of the TCP option area.
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

    /* v1model hands the parser the frame itself: straight to Ethernet. */
    state start {
        transition parse_ethernet;
    }

#define PARSE_TCP_OPTIONS parse_tcp_options
#define PARSE_EPDN_OPTIONS parse_options_after_epdn
#include "parser_states.p4"
#include "tcp_options.p4"
}

/*************************************************************************
 ***********************  D E P A R S E R  *******************************
 *************************************************************************/
/* An inserted EPDN option is emitted right after the fixed TCP header: the first option. The
 * rest of the option area follows, as the parts tcp_options.p4 extracted (trust.p4 may have
 * rewritten them shorter). */
control MyDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.ipv4_options);
        packet.emit(hdr.tcp);
        packet.emit(hdr.epdn);
        packet.emit(hdr.tcp_options_32);
        packet.emit(hdr.tcp_options_16);
        packet.emit(hdr.tcp_options_8);
        packet.emit(hdr.tcp_options_4);
    }
}

#endif /* RDTCP_PARSER_P4 */
