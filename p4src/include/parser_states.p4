/*
 * parser_states.p4 -- the parser states of the RD-TCP gateway, architecture-neutral.
 *
 * A fragment of a parser body: the architecture's parser declares `packet` (packet_in) and
 * `hdr` (headers_t), does its own start (v1model: nothing; TNA: intrinsic and port metadata)
 * and transitions to parse_ethernet. The states use no metadata and no architecture extern,
 * so p4src/include/parser.p4 (v1model) and p4src/tna/rdtcp_tna.p4 (TNA) include them unchanged.
 *
 * Ethernet, IPv4 with its options kept word by word (so the deparser re-emits them), TCP of
 * unfragmented datagrams only, and an EPDN option found with one lookahead at the first-option
 * position. Nothing here rejects a packet: a truncated header ends parsing with PacketTooShort
 * and the ingress treats the packet as "not well-formed TCP" (never modified).
 *
 * Hooks: an architecture that must see the TCP header or the EPDN option as they are extracted
 * (TNA feeds its parser Checksum to get the TCP payload's checksum residual) defines
 * PARSE_TCP_HOOK / PARSE_EPDN_HOOK as statements, and PARSE_TCP_DONE as the state every TCP
 * path ends in, before including this file; by default the hooks are empty and the TCP paths
 * end in accept. Likewise PARSE_IPV4_HOOK (after the fixed IPv4 header), PARSE_IPV4_OPTION_HOOK
 * (after each option word) and PARSE_IPV4_DONE_HOOK (once the whole IPv4 header is in): TNA
 * verifies the IPv4 header checksum with them (v1model: MyVerifyChecksum, checksums.p4).
 * PARSE_TCP_OPTIONS and PARSE_EPDN_OPTIONS are the states that read the option area after the
 * first-option position, without and after a first-option EPDN (v1model: tcp_options.p4, for the
 * trust boundary); by default the TCP paths end there.
 */
#ifndef RDTCP_PARSER_STATES_P4
#define RDTCP_PARSER_STATES_P4

#ifndef PARSE_TCP_HOOK
#define PARSE_TCP_HOOK
#endif
#ifndef PARSE_EPDN_HOOK
#define PARSE_EPDN_HOOK
#endif
#ifndef PARSE_TCP_DONE
#define PARSE_TCP_DONE accept
#endif
#ifndef PARSE_TCP_OPTIONS
#define PARSE_TCP_OPTIONS PARSE_TCP_DONE
#endif
#ifndef PARSE_EPDN_OPTIONS
#define PARSE_EPDN_OPTIONS PARSE_TCP_DONE
#endif
#ifndef PARSE_IPV4_HOOK
#define PARSE_IPV4_HOOK
#endif
#ifndef PARSE_IPV4_OPTION_HOOK
#define PARSE_IPV4_OPTION_HOOK
#endif
#ifndef PARSE_IPV4_DONE_HOOK
#define PARSE_IPV4_DONE_HOOK
#endif

    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    /* The option words are counted by the state chain below (state parse_ipv4_options_N
     * extracts one word and N - 1 follow), not by a metadata counter: no parser arithmetic, so
     * the same states suit targets whose parsers cannot decrement metadata in a loop (Tofino). */
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        PARSE_IPV4_HOOK
        /* ihl < 5 is malformed: accept here, the ingress drops it (DROP_MALFORMED). */
        transition select(hdr.ipv4.ihl) {
            5: parse_ipv4_payload;
            6: parse_ipv4_options_1;
            7: parse_ipv4_options_2;
            8: parse_ipv4_options_3;
            9: parse_ipv4_options_4;
            10: parse_ipv4_options_5;
            11: parse_ipv4_options_6;
            12: parse_ipv4_options_7;
            13: parse_ipv4_options_8;
            14: parse_ipv4_options_9;
            15: parse_ipv4_options_10;
            default: accept;
        }
    }

    state parse_ipv4_options_10 { packet.extract(hdr.ipv4_options.next); PARSE_IPV4_OPTION_HOOK transition parse_ipv4_options_9; }
    state parse_ipv4_options_9  { packet.extract(hdr.ipv4_options.next); PARSE_IPV4_OPTION_HOOK transition parse_ipv4_options_8; }
    state parse_ipv4_options_8  { packet.extract(hdr.ipv4_options.next); PARSE_IPV4_OPTION_HOOK transition parse_ipv4_options_7; }
    state parse_ipv4_options_7  { packet.extract(hdr.ipv4_options.next); PARSE_IPV4_OPTION_HOOK transition parse_ipv4_options_6; }
    state parse_ipv4_options_6  { packet.extract(hdr.ipv4_options.next); PARSE_IPV4_OPTION_HOOK transition parse_ipv4_options_5; }
    state parse_ipv4_options_5  { packet.extract(hdr.ipv4_options.next); PARSE_IPV4_OPTION_HOOK transition parse_ipv4_options_4; }
    state parse_ipv4_options_4  { packet.extract(hdr.ipv4_options.next); PARSE_IPV4_OPTION_HOOK transition parse_ipv4_options_3; }
    state parse_ipv4_options_3  { packet.extract(hdr.ipv4_options.next); PARSE_IPV4_OPTION_HOOK transition parse_ipv4_options_2; }
    state parse_ipv4_options_2  { packet.extract(hdr.ipv4_options.next); PARSE_IPV4_OPTION_HOOK transition parse_ipv4_options_1; }
    state parse_ipv4_options_1  { packet.extract(hdr.ipv4_options.next); PARSE_IPV4_OPTION_HOOK transition parse_ipv4_payload; }

    /* Only an unfragmented datagram (MF clear, offset 0) starts with a whole TCP segment whose
     * checksum the gateway can recompute. The mask 0x1 selects the MF flag (RFC 791 §3.1). */
    state parse_ipv4_payload {
        PARSE_IPV4_DONE_HOOK
        transition select(hdr.ipv4.frag_offset, hdr.ipv4.flags, hdr.ipv4.protocol) {
            (13w0, 3w0 &&& 3w1, PROTO_TCP): parse_tcp;
            default: accept;
        }
    }

    /* At least 12 option bytes (data offset >= 8) are needed to hold an EPDN option. */
    state parse_tcp {
        packet.extract(hdr.tcp);
        PARSE_TCP_HOOK
        transition select(hdr.tcp.data_offset) {
            8 .. 15: parse_first_option;
            6 .. 7: PARSE_TCP_OPTIONS;
            default: PARSE_TCP_DONE;
        }
    }

    state parse_first_option {
        transition select(packet.lookahead<bit<32>>()) {
            EPDN_FIRST_WORD: parse_epdn;
            default: PARSE_TCP_OPTIONS;
        }
    }

    state parse_epdn {
        packet.extract(hdr.epdn);
        PARSE_EPDN_HOOK
        transition PARSE_EPDN_OPTIONS;
    }

#endif /* RDTCP_PARSER_STATES_P4 */
