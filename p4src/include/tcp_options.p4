/*
 * tcp_options.p4 -- the TCP option area after the first-option position, as the parser reads
 * it (v1model). A fragment of MyParser's body, after parser_states.p4, whose PARSE_TCP_OPTIONS
 * and PARSE_EPDN_OPTIONS hooks lead here.
 *
 * Why: a gateway writes its EPDN option as the first option, and that is the one
 * parser_states.p4 extracts (hdr.epdn). A host may put more EPDN options further in the list
 * (two in a row, a NOP then one, three...), and the trust boundary (trust.p4) must remove every
 * one of them: it needs the rest of the option list as headers it can rewrite, and as one value
 * it can walk option by option.
 *
 * How: the area (data offset minus the fixed header and the first-option EPDN: 1 to 10 words)
 * is extracted as the headers of 32, 16, 8 and 4 bytes whose sizes add up to it (nine words are
 * 32 + 4 bytes), each in one state, and appended to meta.opt_area on the way. The walk itself
 * is the ingress's (trust.p4): only an edge port needs it, and a parser without loops keeps the
 * common parse (Ethernet, IPv4, TCP) a straight line on the embedded switch.
 */
#ifndef RDTCP_TCP_OPTIONS_P4
#define RDTCP_TCP_OPTIONS_P4

    /* No EPDN in the first-option position: the area is the whole option list. */
    state parse_tcp_options {
        meta.opt_words = (bit<8>)hdr.tcp.data_offset - 5;
        transition parse_option_area;
    }

    /* After the first-option EPDN (hdr.epdn, 3 words): the rest of the list, if any. */
    state parse_options_after_epdn {
        meta.opt_words = (bit<8>)hdr.tcp.data_offset - 8;
        transition parse_option_area;
    }

    state parse_option_area {
        transition select(meta.opt_words) {
            8 .. 15: parse_option_bytes_32;
            4 .. 7: parse_option_bytes_16;
            2 .. 3: parse_option_bytes_8;
            1: parse_option_bytes_4;
            default: accept;
        }
    }

    /* Each part goes to the bottom of meta.opt_area, the parts before it moving up. */
    state parse_option_bytes_32 {
        packet.extract(hdr.tcp_options_32);
        meta.opt_area = (bit<320>)hdr.tcp_options_32.bytes;
        transition select(meta.opt_words) {
            9: parse_option_bytes_4;
            10: parse_option_bytes_8;
            default: accept;
        }
    }

    state parse_option_bytes_16 {
        packet.extract(hdr.tcp_options_16);
        meta.opt_area = (bit<320>)hdr.tcp_options_16.bytes;
        transition select(meta.opt_words) {
            5: parse_option_bytes_4;
            6: parse_option_bytes_8;
            7: parse_option_bytes_8;
            default: accept;
        }
    }

    state parse_option_bytes_8 {
        packet.extract(hdr.tcp_options_8);
        meta.opt_area = (meta.opt_area << 64) | (bit<320>)hdr.tcp_options_8.bytes;
        transition select(meta.opt_words) {
            3: parse_option_bytes_4;
            7: parse_option_bytes_4;
            default: accept;
        }
    }

    state parse_option_bytes_4 {
        packet.extract(hdr.tcp_options_4);
        meta.opt_area = (meta.opt_area << 32) | (bit<320>)hdr.tcp_options_4.bytes;
        transition accept;
    }

#endif /* RDTCP_TCP_OPTIONS_P4 */
