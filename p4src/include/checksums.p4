/*
 * checksums.p4 -- the IPv4 header checksum's field list, for MyVerifyChecksum and
 * MyComputeChecksum (rdtcp.p4, v1model).
 *
 * IPv4: the header checksum is verified on arrival (RFC 1812 §5.2.2) and recomputed on every
 * IPv4 packet (the TTL changes at each hop and the total length when an option is inserted or
 * removed). Option words of invalid stack entries are skipped, so the sum covers exactly
 * ihl * 4 bytes (RFC 791 §3.1).
 * TCP: not here. The ingress updates it incrementally (RFC 1624) when it changes the segment
 * (p4src/include/tcp_checksum.p4): a recomputation "with payload" would cover bytes after the IP
 * datagram (padding, trailers) and would turn a segment corrupted upstream into one with a valid
 * checksum. A segment the gateway did not touch keeps its checksum as it came.
 */
#ifndef RDTCP_CHECKSUMS_P4
#define RDTCP_CHECKSUMS_P4

/* The IPv4 header's 16-bit words (RFC 791 §3.1), options included: the words of invalid stack
 * entries are left out of the sum, so it covers exactly ihl * 4 bytes. */
#define IPV4_CHECKSUM_FIELDS                                                                   \
    { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,                   \
      hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,             \
      hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr,                                 \
      hdr.ipv4_options[0].word, hdr.ipv4_options[1].word, hdr.ipv4_options[2].word,            \
      hdr.ipv4_options[3].word, hdr.ipv4_options[4].word, hdr.ipv4_options[5].word,            \
      hdr.ipv4_options[6].word, hdr.ipv4_options[7].word, hdr.ipv4_options[8].word,            \
      hdr.ipv4_options[9].word }

#endif /* RDTCP_CHECKSUMS_P4 */
