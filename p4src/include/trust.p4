/*
 * trust.p4 -- TrustBoundary, the piece of MyIngress that keeps hosts from forging drop reports
 * (docs/architecture.md §4): on an edge port, where hosts attach, every EPDN option of an arriving segment is
 * removed, and a TCP fragment is dropped (v1model).
 *
 * A receiver honours EPDN only as the first option (docs/architecture.md §4), but removing the
 * first one can make the next one first, and a NOP before an option is no reason for a later
 * gateway or receiver to read it differently: so every EPDN option goes, wherever it stands and
 * however many there are (RFC 6994 options are options like any other; RFC 9293 §3.1).
 *
 *  - the first-option EPDN (hdr.epdn) is removed as a header;
 *  - the ones further in are found by walking the option area (tcp_options.p4 reads it) one
 *    option at a time, as a receiver walks it (End of Option List ends the list, No-Operation
 *    is one byte, every other option carries its length, and a malformed length ends the walk:
 *    what follows it is not an option to a receiver either), then cut out of the area, which
 *    is written back shorter.
 *
 * A legacy router (legacy_router, epdn.p4) has no trust boundary: it checks no source, strips
 * nothing and drops no fragment, as a router not upgraded to RD-TCP would not ([RDTCP] §7).
 *
 * Stripping keeps a host from writing a drop report; it does not keep a host from sending in
 * another host's name. A segment that claims another host's flow and is dropped here (the
 * attacker first filled the queue) would be recorded in that flow's EPDN entry, and the victim's
 * next segment would leave stamped with a range the attacker chose. So an edge port also checks
 * who sends: an IPv4 packet whose source address is not one of the port's hosts' is dropped
 * (DROP_SPOOFED) before the queue or the EPDN table sees it (ingress filtering, BCP 38 = RFC 2827
 * §3; strict unicast reverse-path forwarding, RFC 3704 §2.2). The table edge_source holds, per
 * edge port, the allowed prefixes (source_ok); anything else misses and is dropped, so an edge
 * port whose entries are missing drops rather than trusts. The controller fills it from the
 * config (a port's `sources`, by default the prefixes routed out of it). Core ports
 * (edge_port 0) are not looked up.
 *
 * Only well-formed TCP (meta.tcp_ok) is rewritten, on its first pass. The TCP checksum is
 * updated incrementally (tcp_checksum.p4) and never recomputed over the payload. A segment
 * stripped is counted (EV_STRIP) in epdn_events (epdn.p4).
 */
#ifndef RDTCP_TRUST_P4
#define RDTCP_TRUST_P4

/* The drop of a packet from an edge port with a source address its hosts may not use is
 * DROP_SPOOFED, an index into MyIngress.drops declared with the other causes (headers.p4,
 * which the TNA program shares, as it shares the table's size EDGE_SOURCE_ENTRIES). Never
 * recorded in the EPDN table. */

/* RFC 9293 §3.2: the option kinds without a length byte. */
const bit<8> TCP_OPT_EOL = 0;      /* End of Option List: what follows is padding */
const bit<8> TCP_OPT_NOP = 1;      /* No-Operation: one byte */

/* Bytes 0xFD, 0x01 and 0x80 across the 40 bytes of meta.opt_area (find_epdn_kind). */
#define OPT_BYTES_FD 320w0xFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFDFD
#define OPT_BYTES_01 320w0x01010101010101010101010101010101010101010101010101010101010101010101010101010101
#define OPT_BYTES_80 320w0x80808080808080808080808080808080808080808080808080808080808080808080808080808080

/* The area moved up (toward bit 319) or down by n bytes, n a bit<8> of at most 63. BMv2 takes
 * a shift amount of at most 8 bits (p4c's bmv2 back end refuses a wider one: "shift amount
 * limited to 8 bits on this target"), which reaches 255 bits but not the area's 320: so two
 * shifts of 4n bits each. Where the walk reads the area, it reads it at the top, through a
 * slice at a constant position. */
#define OPT_AREA_UP(v, n) (((v) << ((n) << 2)) << ((n) << 2))
#define OPT_AREA_DOWN(v, n) (((v) >> ((n) << 2)) >> ((n) << 2))

/* Controls have no loops: the walk is unrolled. A step that starts with fewer than 12 bytes
 * left cannot find an EPDN option, so 29 steps walk any area: 40 bytes of No-Operation leave
 * 12 after 28 steps, and anything longer than a NOP leaves fewer sooner. */
#define WALK_TCP_OPTION if (meta.opt_left >= EPDN_LEN) { walk_tcp_option(); }
#define WALK_TCP_OPTIONS_4 WALK_TCP_OPTION WALK_TCP_OPTION WALK_TCP_OPTION WALK_TCP_OPTION
#define WALK_TCP_OPTIONS_29                                                                    \
    WALK_TCP_OPTIONS_4 WALK_TCP_OPTIONS_4 WALK_TCP_OPTIONS_4 WALK_TCP_OPTIONS_4                \
    WALK_TCP_OPTIONS_4 WALK_TCP_OPTIONS_4 WALK_TCP_OPTIONS_4 WALK_TCP_OPTION

control TrustBoundary(inout headers_t hdr,
                      inout metadata_t meta,
                      inout standard_metadata_t standard_metadata) {

    /* 1: hosts attach to port p; sources arriving there are checked, EPDN options stripped.
     * Index p & mask. */
    @name(".MyIngress.edge_port")
    register<bit<1>>(MAX_PORTS) edge_port;

    /* The source checks of the edge ports (see the top of this file). */
    @name(".MyIngress.source_ok")
    action source_ok() {
    }

    @name(".MyIngress.source_spoofed")
    action source_spoofed() {
        meta.drop_cause = DROP_SPOOFED;
    }

    @name(".MyIngress.edge_source")
    table edge_source {
        key = {
            standard_metadata.ingress_port: exact;
            hdr.ipv4.src_addr: lpm;
        }
        actions = {
            source_ok;
            source_spoofed;
        }
        size = EDGE_SOURCE_ENTRIES;
        default_action = source_spoofed();
    }

    /* A TCP fragment from a host: the trust boundary cannot be enforced on it. A forged EPDN
     * option may sit in any fragment, and removing one would shift the offsets of the fragments
     * after it, which a stateless switch never sees together. TCP hosts send whole segments with
     * DF set (path MTU discovery, RFC 1191 §3), so this drops nothing in normal operation.
     * Counted with DROP_MALFORMED: a packet this gateway must not forward. */
    action drop_edge_fragment() {
        meta.drop_cause = DROP_MALFORMED;
    }

    /* The first-option EPDN (RFC 9293 §3.1: data offset in 32-bit words). */
    action epdn_strip_option() {
        EPDN_WORDS16(CSUM_SUB);
        CSUM_SUB(TCP_DOFF_WORD);
        CSUM_SUB(TCP_LENGTH);
        hdr.epdn.setInvalid();
        hdr.tcp.data_offset = hdr.tcp.data_offset - EPDN_WORDS;
        hdr.ipv4.total_len = hdr.ipv4.total_len - EPDN_BYTES;
        CSUM_ADD(TCP_DOFF_WORD);
        CSUM_ADD(TCP_LENGTH);
        meta.tcp_modified = 1;
    }

    /* An area with no byte 0xFD (the EPDN kind) holds no EPDN option: not walked. x = area ^
     * FD..FD has a zero byte exactly when the area has a byte 0xFD, and x has a zero byte
     * exactly when (x - 01..01) & ~x & 80..80 is nonzero (Hacker's Delight §6-1; exact as a
     * yes/no). The area is first moved to the top of opt_area, where the walk reads it, and
     * the bytes below it, zero, are no 0xFD. */
    action find_epdn_kind() {
        meta.opt_area = OPT_AREA_UP(meta.opt_area, 8w40 - (meta.opt_words << 2));
        bit<320> x = meta.opt_area ^ OPT_BYTES_FD;
        meta.opt_fd = ((x - OPT_BYTES_01) & ~x & OPT_BYTES_80) != 0 ? 1w1 : 1w0;
        meta.opt_pos = 0;
        meta.opt_left = meta.opt_words << 2;
    }

    /* One step of the walk: the option at offset meta.opt_pos of the area. It ends the walk
     * (opt_left becomes 0) when it is End of Option List or its length is below 2 or past the
     * area; otherwise the walk moves past it, noting its offset if it is an EPDN option (kind
     * 253, length 12, ExID 0x5244: the first word EPDN_FIRST_WORD, as parser_states.p4 tests).
     * A step runs with at least 12 bytes left, so opt_pos <= 28. */
    action walk_tcp_option() {
        meta.opt_word = OPT_AREA_UP(meta.opt_area, meta.opt_pos)[319:288];
        meta.opt_len = (meta.opt_word[31:24] == TCP_OPT_NOP) ? 8w1 : meta.opt_word[23:16];
        meta.opt_ends = (meta.opt_word[31:24] == TCP_OPT_EOL || meta.opt_len > meta.opt_left
                         || (meta.opt_word[31:24] != TCP_OPT_NOP && meta.opt_len < 2)) ? 1w1 : 1w0;
        meta.opt_epdn = (meta.opt_ends == 0 && meta.opt_word == EPDN_FIRST_WORD) ? 1w1 : 1w0;
        meta.forged_at = (meta.opt_epdn == 1) ? ((meta.forged_at << 8) | (bit<24>)meta.opt_pos)
                                              : meta.forged_at;
        meta.forged_n = meta.forged_n + (bit<8>)meta.opt_epdn;
        meta.opt_pos = meta.opt_pos + meta.opt_len;
        meta.opt_left = (meta.opt_ends == 1) ? 8w0 : meta.opt_left - meta.opt_len;
    }

    /* The EPDN option at offset `pos` of the area is cut out of meta.opt_area: the bytes after
     * it move up by 12, the area is 3 words shorter. TCP checksum (RFC 1624 eqn. 3): the bytes
     * after the option move by 12, an even number, so each keeps its half of its 16-bit word
     * and its share of the sum; only the option's own bytes leave the sum. At an odd offset
     * those bytes sit in the words the other way round, so their share is the byte swap of
     * their aligned sum (RFC 1071 §2(B): the sum is byte-order independent). */
    action cut_tcp_option(in bit<8> pos) {
        bit<96> option = OPT_AREA_UP(meta.opt_area, pos)[319:224];
        bit<32> option_sum = (bit<32>)option[95:80] + (bit<32>)option[79:64]
                             + (bit<32>)option[63:48] + (bit<32>)option[47:32]
                             + (bit<32>)option[31:16] + (bit<32>)option[15:0];
        option_sum = (option_sum & 0xFFFF) + (option_sum >> 16);
        option_sum = (option_sum & 0xFFFF) + (option_sum >> 16);
        CSUM_SUB((pos[0:0] == 1) ? (option_sum[7:0] ++ option_sum[15:8]) : option_sum[15:0]);
        CSUM_SUB(TCP_DOFF_WORD);
        CSUM_SUB(TCP_LENGTH);
        bit<320> before = ~OPT_AREA_DOWN(~320w0, pos);
        meta.opt_area = (meta.opt_area & before) | ((meta.opt_area << 96) & ~before);
        meta.opt_words = meta.opt_words - 3;
        hdr.tcp.data_offset = hdr.tcp.data_offset - EPDN_WORDS;
        hdr.ipv4.total_len = hdr.ipv4.total_len - EPDN_BYTES;
        CSUM_ADD(TCP_DOFF_WORD);
        CSUM_ADD(TCP_LENGTH);
        meta.tcp_modified = 1;
    }

    /* The area after the cuts, top-aligned in meta.opt_area, into the parts its length needs
     * (tcp_options.p4), from the top down. A cut leaves at most 7 words: no part of 32 bytes. */
    action clear_option_bytes() {
        hdr.tcp_options_32.setInvalid();
        hdr.tcp_options_16.setInvalid();
        hdr.tcp_options_8.setInvalid();
        hdr.tcp_options_4.setInvalid();
    }
    action write_option_bytes_16() {
        hdr.tcp_options_16.setValid();
        hdr.tcp_options_16.bytes = meta.opt_area[319:192];
        meta.opt_area = meta.opt_area << 128;
    }
    action write_option_bytes_8() {
        hdr.tcp_options_8.setValid();
        hdr.tcp_options_8.bytes = meta.opt_area[319:256];
        meta.opt_area = meta.opt_area << 64;
    }
    action write_option_bytes_4() {
        hdr.tcp_options_4.setValid();
        hdr.tcp_options_4.bytes = meta.opt_area[319:288];
    }


    apply {
        bool tcp_fragment = hdr.ipv4.isValid() && hdr.ipv4.protocol == PROTO_TCP
                            && (hdr.ipv4.frag_offset != 0 || (hdr.ipv4.flags & 3w1) == 3w1);
        /* 1 on an edge port of an RD-TCP gateway: a legacy router has no trust boundary, so
         * sources, options and fragments pass it (epdn.p4) */
        bit<1> edge = 0;
        if (meta.first_pass && meta.drop_cause == DROP_NONE && hdr.ipv4.isValid()) {
            edge_port.read(edge, ((bit<32>)standard_metadata.ingress_port) & PORT_INDEX_MASK);
            if (edge == 1) {
                bit<1> legacy = 0;
                legacy_router.read(legacy, 0);
                edge = ~legacy;
            }
            if (edge == 1) {
                edge_source.apply();          /* who sends: see the top of this file */
            }
        }
        if (edge == 1 && meta.drop_cause == DROP_NONE
                && ((meta.tcp_ok == 1 && (hdr.epdn.isValid() || meta.opt_words != 0))
                    || tcp_fragment)) {
            if (tcp_fragment) {
                drop_edge_fragment();
            } else {
                if (meta.opt_words != 0) {
                    find_epdn_kind();
                    if (meta.opt_fd == 1) {
                        WALK_TCP_OPTIONS_29
                    }
                }
                if (hdr.epdn.isValid() || meta.forged_n != 0) {
                    epdn_events.count(EV_STRIP);
                }
                if (hdr.epdn.isValid()) {
                    epdn_strip_option();
                }
                /* the options further in, the last found first, so the offsets before it hold */
                if (meta.forged_n != 0) {
                    cut_tcp_option(meta.forged_at[7:0]);
                    if (meta.forged_n >= 2) {
                        cut_tcp_option(meta.forged_at[15:8]);
                    }
                    if (meta.forged_n >= 3) {
                        cut_tcp_option(meta.forged_at[23:16]);
                    }
                    clear_option_bytes();
                    if ((meta.opt_words & 4) != 0) {
                        write_option_bytes_16();
                    }
                    if ((meta.opt_words & 2) != 0) {
                        write_option_bytes_8();
                    }
                    if ((meta.opt_words & 1) != 0) {
                        write_option_bytes_4();
                    }
                }
            }
        }
    }
}

#endif /* RDTCP_TRUST_P4 */
