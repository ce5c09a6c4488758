/*
 * parser.p4 -- the parser of the RD-TCP gateway (v1model signature).
 *
 * The states themselves are architecture-neutral and live in parser_states.p4 (the TNA port,
 * p4src/tna/, includes the same file); this file gives them v1model's parser signature and adds
 * the states of tcp_options.p4, which read the rest of the TCP option area.
 */
#ifndef RDTCP_PARSER_P4
#define RDTCP_PARSER_P4

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

#endif /* RDTCP_PARSER_P4 */
