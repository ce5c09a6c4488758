/*
 * headers.p4 -- types, constants, headers and metadata of the RD-TCP gateway.
 *
 * Architecture-neutral: the TNA port (p4src/tna/) includes this file unchanged; the two
 * architecture hooks (RDTCP_LOOP_STATE, RDTCP_ARCH_METADATA) default to v1model's needs. Names are API (commands files,
 * STF, PTF, the controller and the simulator use them); see p4src/README.md.
 */
#ifndef RDTCP_HEADERS_P4
#define RDTCP_HEADERS_P4

/*************************************************************************
 ************************  T Y P E S   ***********************************
 *************************************************************************/
typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;
typedef bit<9>  port_t;
typedef bit<32> seq_t;          /* TCP sequence number: compared only mod 2^32 (SEQ_LT) */

/*************************************************************************
 ************************  C O N S T A N T S  ****************************
 *************************************************************************/
const bit<16> TYPE_IPV4 = 0x0800;
const bit<8>  PROTO_TCP = 6;

/* EPDN option (docs/architecture.md §4): RFC 6994 experimental option kind 253 with
 * ExID 0x5244 ("RD"), length 12: kind, len, ExID, drop_lo, drop_hi. Its first 32 bits are fixed,
 * so the parser recognises it with one lookahead at the first-option position. */
const bit<8>  TCP_OPT_EPDN     = 253;
const bit<8>  EPDN_LEN         = 12;
const bit<16> EPDN_EXID        = 0x5244;
const bit<32> EPDN_FIRST_WORD  = 0xFD0C5244;
const bit<4>  EPDN_WORDS       = 3;        /* 12 bytes = 3 words of TCP data offset */
const bit<16> EPDN_BYTES       = 12;
/* Data offset above which three more words would exceed the 60-byte TCP header (RFC 9293 §3.1). */
const bit<4>  TCP_MAX_DOFF_FOR_EPDN = 12;

/* Compile-time sizes, overridable with -D NAME=VALUE (p4c and rdtcp-p4c alike). */
#ifndef EPDN_ENTRIES
#define EPDN_ENTRIES 65536          /* per-flow EPDN table entries (12 bytes each) */
#endif
#ifndef MAX_PORTS
#define MAX_PORTS 64                /* per-port knob arrays; must be a power of two */
#endif
#define PORT_INDEX_MASK (MAX_PORTS - 1)
#define PATTERN_SLOTS 256           /* impairment pattern length per port (fixed: index = port<<8 | pos) */
#define PATTERN_SLOTS_LOG2 8
#define EDGE_SOURCE_ENTRIES 1024    /* TrustBoundary's edge_source: allowed prefixes, every edge
                                     * port's together (controller/names.py EDGE_SOURCE_SIZE) */

const bit<32> DEFAULT_MTU = 1500;   /* used when port_mtu[p] == 0 (Ethernet, RFC 894) */

/* Field list preserved across a reordering loop: the index given to
 * recirculate_preserving_field_list and to @field_list on the preserved metadata fields. A macro,
 * not a const: p4c's back end needs an integer literal in @field_list (simpleSwitch.cpp,
 * "Annotation must be a constant integer"), and the preprocessor puts one there. */
#define FL_RECIRC 1

/* The annotation on the metadata a reordering loop keeps: v1model's @field_list. An architecture
 * that carries that state otherwise (TNA: in a bridged header) defines RDTCP_LOOP_STATE empty
 * before including this file. */
#ifndef RDTCP_LOOP_STATE
#define RDTCP_LOOP_STATE @field_list(FL_RECIRC)
#endif

/* The TCP option area after the first option (v1model): read by the parser
 * (p4src/include/tcp_options.p4), walked by an edge port for the EPDN options a host put there
 * and written back without them (p4src/include/trust.p4). */
#define TCP_OPTION_AREA_METADATA                                                               \
    bit<320> opt_area;      /* the area (<= 40 bytes): parsed at the bottom, walked at the top */ \
    bit<8>   opt_words;     /* its length in 32-bit words */                                   \
    bit<1>   opt_fd;        /* a byte of it is 0xFD, the EPDN kind: worth walking */           \
    bit<8>   opt_pos;       /* the walk: offset in opt_area of the next option */             \
    bit<8>   opt_left;      /* the walk: bytes from there to the end; 0 once it stops */       \
    bit<32>  opt_word;      /* the walk: the option's first 4 bytes (kind, length, ...) */     \
    bit<8>   opt_len;       /* the walk: its length (1 for No-Operation) */                    \
    bit<1>   opt_ends;      /* the walk: it ends the list (End of Option List, bad length) */  \
    bit<1>   opt_epdn;      /* the walk: it is an EPDN option */                               \
    bit<8>   forged_n;      /* EPDN options the walk found (at most 3 fit) */                  \
    bit<24>  forged_at;     /* their offsets in opt_area, the last found in the low byte */

/* Extra metadata fields an architecture's pieces need. v1model: the accumulator of the TCP
 * checksum's incremental update done in ingress (p4src/include/tcp_checksum.p4, RFC 1624), the
 * first-pass flag, the queue and RED state of Buffer, the option area of TrustBoundary; TNA: the
 * payload's residual from the parser's Checksum and per-packet knobs (p4src/tna/). */
#ifndef RDTCP_ARCH_METADATA
#define RDTCP_ARCH_METADATA                                                                    \
    bit<32> tcp_csum_acc;   /* TCP checksum: ~HC + the changed words, folded at the end */     \
    bit<1>  entry_ours;     /* the flow's EPDN slot holds its own entry (TNA: has_entry) */    \
    bool    first_pass;     /* not back from a reordering loop (classify.p4) */                \
    bit<32> queue_len;      /* the egress port's queue the packet finds (buffer.p4) */         \
    bit<32> queue_limit;    /* its drop-tail limit; 0 = none */                                \
    bit<32> red_max_th;     /* RED (buffer.p4): 0 = off on the port; else packets * 2^16 */    \
    bit<32> red_min_th;     /* RED: packets * 2^16 */                                          \
    bit<32> red_avg;        /* RED: the port's average queue, packets * 2^16 */                \
    bit<32> red_count;      /* RED: packets since its last drop, + 1 */                        \
    bit<32> red_p;          /* RED: p_b * 2^32 */                                              \
    bit<64> red_cp;         /* RED: count * p_b * 2^32 */                                      \
    bit<1>  red_hit;        /* RED: the draw says drop */                                      \
    bit<32> frame_ip_bytes; /* the frame's bytes after Ethernet: what IPv4 may claim */        \
    TCP_OPTION_AREA_METADATA
#endif

/* Drop causes: index into the counter MyIngress.drops (0 = not dropped, never counted). The
 * drops the EPDN table records are buffer, random, pattern (cause <= DROP_PATTERN) and RED
 * (verdict.p4, epdn.p4). */
const bit<8> DROP_NONE      = 0;
const bit<8> DROP_BUFFER    = 1;   /* per-port buffer limit reached (drop-tail, p4src/README.md) */
const bit<8> DROP_RANDOM    = 2;   /* injected: drop_prob */
const bit<8> DROP_PATTERN   = 3;   /* injected: control-plane pattern slot IMPAIR_DROP */
const bit<8> DROP_NO_ROUTE  = 4;   /* no forwarding entry: IPv4 LPM miss or l2_forward miss */
const bit<8> DROP_TTL       = 5;   /* TTL <= 1 (RFC 1812 §5.3.1; no ICMP is generated) */
const bit<8> DROP_MALFORMED = 6;   /* IPv4 header unusable (RFC 1812 §5.2.2); TCP fragment on an edge port */
/* 7: DROP_RED, Random Early Detection (v1model: p4src/include/buffer.p4, which declares it) */
/* A packet from an edge port with a source address the port's hosts may not use (ingress
 * filtering: TrustBoundary, trust.p4 and the TNA program's). Never recorded in the EPDN table. */
const bit<8> DROP_SPOOFED   = 8;
#define DROP_CAUSES 9

/* EPDN events: index into the counter MyIngress.epdn_events. */
const bit<32> EV_RECORD      = 0;  /* a dropped data segment recorded in the flow's entry */
const bit<32> EV_STAMP       = 1;  /* option inserted into a forwarded data segment, entry cleared */
const bit<32> EV_MERGE       = 2;  /* upstream option widened with the entry, entry cleared */
const bit<32> EV_COLLISION   = 3;  /* another flow's live entry evicted (its report is lost) */
const bit<32> EV_STRIP       = 4;  /* option arriving on an edge port removed */
const bit<32> EV_DEFER_MTU   = 5;  /* entry kept: the stamped segment would exceed the port MTU */
const bit<32> EV_DEFER_NO_ROOM = 6;  /* entry kept: no room for 12 option bytes (data offset > 12) */
#define EPDN_EVENTS 7

/* Injected reorderings: index into the counter MyIngress.reorders. */
const bit<32> REORDER_RECIRC = 0;  /* packet looped recirc_loops[p] times through the queue */
const bit<32> REORDER_ALT    = 1;  /* packet sent by the alternate port alt_port[p] */
#define REORDER_KINDS 2

/* Impairment pattern slot values (register MyIngress.impair_pattern). */
const bit<2> IMPAIR_PASS   = 0;
const bit<2> IMPAIR_DROP   = 1;
const bit<2> IMPAIR_RECIRC = 2;
const bit<2> IMPAIR_ALT    = 3;

/* a <  b in sequence space (RFC 9293 §3.4: arithmetic modulo 2^32), via the signed difference. */
#define SEQ_LT(a, b) (((int<32>)((a) - (b))) < 0)
#define SEQ_MIN(a, b) (SEQ_LT(a, b) ? (a) : (b))
#define SEQ_MAX(a, b) (SEQ_LT(a, b) ? (b) : (a))

/*************************************************************************
 ************************  H E A D E R S  ********************************
 *************************************************************************/
header ethernet_t {
    macAddr_t dst_addr;
    macAddr_t src_addr;
    bit<16>   ether_type;
}

header ipv4_t {
    bit<4>    version;
    bit<4>    ihl;
    bit<8>    diffserv;
    bit<16>   total_len;
    bit<16>   identification;
    bit<3>    flags;
    bit<13>   frag_offset;
    bit<8>    ttl;
    bit<8>    protocol;
    bit<16>   hdr_checksum;
    ip4Addr_t src_addr;
    ip4Addr_t dst_addr;
}

/* One 32-bit word of IPv4 options: kept as headers (not skipped) so the deparser re-emits them. */
header ipv4_option_word_t {
    bit<32> word;
}
#define IPV4_OPTION_WORDS 10       /* ihl 15 - 5 */

/* The TCP option area after the first option (at most 40 bytes) as the headers of 32, 16, 8 and
 * 4 bytes whose sizes add up to its length, each present at most once: the deparser emits the
 * area with four validity tests (p4src/include/tcp_options.p4). */
header tcp_option_bytes_32_t { bit<256> bytes; }
header tcp_option_bytes_16_t { bit<128> bytes; }
header tcp_option_bytes_8_t  { bit<64>  bytes; }
header tcp_option_bytes_4_t  { bit<32>  bytes; }

header tcp_t {
    bit<16> src_port;
    bit<16> dst_port;
    seq_t   seq_no;
    seq_t   ack_no;
    bit<4>  data_offset;
    bit<4>  res;                /* 3 reserved bits (the reorder bit is 0x2 of this byte) + AE */
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

/* The EPDN option, always the first option when a gateway inserted it. */
header epdn_t {
    bit<8>  kind;
    bit<8>  len;
    bit<16> exid;
    seq_t   drop_lo;            /* lowest first byte of the dropped segments */
    seq_t   drop_hi;            /* highest end (seq + len) of the dropped segments */
}

struct headers_t {
    ethernet_t                            ethernet;
    ipv4_t                                ipv4;
    ipv4_option_word_t[IPV4_OPTION_WORDS] ipv4_options;
    tcp_t                                 tcp;
    epdn_t                                epdn;
    tcp_option_bytes_32_t                 tcp_options_32;
    tcp_option_bytes_16_t                 tcp_options_16;
    tcp_option_bytes_8_t                  tcp_options_8;
    tcp_option_bytes_4_t                  tcp_options_4;
}

struct metadata_t {
    bit<1>  tcp_ok;             /* TCP header parsed and every length consistent */
    bit<1>  is_data;            /* tcp_ok and the segment carries payload */
    bit<1>  tcp_modified;       /* TCP segment changed (option inserted/merged/stripped) */
    bit<16> ip_hdr_bytes;
    bit<32> payload_len;
    bit<32> flow_hash;          /* crc32 of the 5-tuple: chooses the EPDN slot */
    bit<32> flow_fp;            /* crc32 of the reordered 5-tuple: fingerprint (0 = "empty") */
    bit<32> flow_idx;           /* flow_hash mod EPDN_ENTRIES */
    bit<32> entry_fp;           /* the flow's EPDN entry as read at ingress */
    seq_t   entry_lo;
    seq_t   entry_hi;
    seq_t   rec_lo;             /* range a drop record writes (segment, carried stamp, entry) */
    seq_t   rec_hi;
    bit<32> port_mtu;           /* MTU of out_port in bytes */
    bit<8>  drop_cause;
    bit<2>  impair;             /* IMPAIR_* chosen for this packet */
    port_t  out_port;
    bit<32> out_idx;            /* out_port & PORT_INDEX_MASK: index of the per-port knobs */
    /* Kept across a reordering loop (see MyEgress). */
    RDTCP_LOOP_STATE
    bit<8>  loops_left;
    RDTCP_LOOP_STATE
    port_t  recirc_port;
    RDTCP_ARCH_METADATA
}

#endif /* RDTCP_HEADERS_P4 */
