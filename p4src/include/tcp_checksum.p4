/*
 * tcp_checksum.p4 -- the TCP checksum of a segment the ingress rewrites (v1model): the words
 * the pieces that change a segment feed it (trust.p4 removes options, epdn.p4 inserts or
 * widens one), and TcpChecksum, the last piece of MyIngress, which folds the sum once.
 *
 * Updated incrementally, RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), for every 16-bit word the
 * gateway changes (the data-offset word, the pseudo-header's TCP length, the option's words; an
 * inserted word replaces 0, a removed one is replaced by 0). Not recomputed over the payload:
 * (1) a segment corrupted on the way keeps a wrong checksum, so the receiver still detects it (a
 * recomputation would bless the corruption: RFC 1624 §1); (2) bytes after the IP datagram
 * (Ethernet padding, a trailer) stay outside the sum, where a v1model checksum "with payload"
 * would cover them. Classify (classify.p4) starts the sum in meta.tcp_csum_acc with ~HC; it is 32
 * bits wide so no carry is lost (at most 36 terms of 16 bits: ~HC, a strip's 10, three cuts' 5,
 * a stamp's 10).
 */
#ifndef RDTCP_TCP_CHECKSUM_P4
#define RDTCP_TCP_CHECKSUM_P4

#define CSUM_ADD(w) meta.tcp_csum_acc = meta.tcp_csum_acc + (bit<32>)(w)
#define CSUM_SUB(w) meta.tcp_csum_acc = meta.tcp_csum_acc + (bit<32>)(~(w))
/* The TCP header word holding the data offset, and the TCP length of the pseudo-header (RFC 9293 §3.1). */
#define TCP_DOFF_WORD (hdr.tcp.data_offset ++ hdr.tcp.res ++ hdr.tcp.flags)
#define TCP_LENGTH (hdr.ipv4.total_len - meta.ip_hdr_bytes)
/* OP applied to each of the six 16-bit words of hdr.epdn. */
#define EPDN_RANGE_WORDS(OP) OP(hdr.epdn.drop_lo[31:16]); OP(hdr.epdn.drop_lo[15:0]); \
                             OP(hdr.epdn.drop_hi[31:16]); OP(hdr.epdn.drop_hi[15:0])
#define EPDN_WORDS16(OP) OP(hdr.epdn.kind ++ hdr.epdn.len); OP(hdr.epdn.exid); EPDN_RANGE_WORDS(OP)

control TcpChecksum(inout headers_t hdr, inout metadata_t meta) {

    /* RFC 1624 eqn. 3, last step: fold the carries back in (twice: the first fold can carry once
     * more) and complement. Once per packet, after every change. */
    action tcp_checksum_finish() {
        meta.tcp_csum_acc = (meta.tcp_csum_acc & 0xFFFF) + (meta.tcp_csum_acc >> 16);
        meta.tcp_csum_acc = (meta.tcp_csum_acc & 0xFFFF) + (meta.tcp_csum_acc >> 16);
        hdr.tcp.checksum = ~meta.tcp_csum_acc[15:0];
    }

    apply {
        if (meta.tcp_modified == 1) {
            tcp_checksum_finish();
        }
    }
}

#endif /* RDTCP_TCP_CHECKSUM_P4 */
