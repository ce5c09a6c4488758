/* -*- P4_16 -*- */
/*
 * rdtcp.p4 -- the RD-TCP gateway for v1model (simple_switch).
 *
 * An IPv4 router that records, per flow, the sequence range of the TCP data segments it drops
 * and stamps that range as an EPDN option into the flow's next forwarded data segment
 * ([RDTCP] §3, §3.1), plus the drop and reordering injection experiments use.
 * Ports, tables, registers, counters, the collision policy and every knob: p4src/README.md.
 *
 * The six blocks of V1Switch follow in their order; the ingress is a sequence of pieces, each a
 * control declared in the file that owns it (include/). Control-plane names are API: every
 * table, action, register and counter keeps MyIngress.<name> (an absolute @name), whichever
 * piece holds it.
 *
 * Compile: rdtcp-p4c p4src/rdtcp.p4 -o build/rdtcp.json      (or p4c-bm2-ss, same arguments)
 * Sizes:   -D EPDN_ENTRIES=N (default 65536), -D MAX_PORTS=N (power of two, default 64)
 */
#include <core.p4>
#include <v1model.p4>

/*************************************************************************
 *********************** H E A D E R S  **********************************
 *************************************************************************/
#include "include/headers.p4"         /* types, constants, headers, metadata */
#include "include/checksums.p4"       /* the IPv4 header checksum's field list */
#include "include/tcp_checksum.p4"    /* RFC 1624 updates of the TCP checksum; TcpChecksum */

/*************************************************************************
 *********************** P A R S E R  ************************************
 *************************************************************************/
#include "include/parser.p4"          /* MyParser */

/*************************************************************************
 ************   C H E C K S U M    V E R I F I C A T I O N   *************
 *************************************************************************/
/* RFC 1812 §5.2.2: a router MUST verify the IP header checksum and discard a datagram whose
 * checksum is wrong; otherwise the recomputation (MyComputeChecksum) would turn a header
 * corrupted on the link into a valid one. A failure sets standard_metadata.checksum_error; Route
 * drops the packet (DROP_MALFORMED). The TCP checksum is end to end: the receiver's to verify. */
control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(), IPV4_CHECKSUM_FIELDS, hdr.ipv4.hdr_checksum,
                        HashAlgorithm.csum16);
    }
}

/*************************************************************************
 **************  I N G R E S S   P R O C E S S I N G   *******************
 *************************************************************************/
/* The pieces, declared in the order their declarations need (DROP_RED and epdn_events are used
 * by pieces applied before the one that owns them); applied in the order of MyIngress.apply. */
#include "include/classify.p4"        /* Classify: well-formed TCP, data */
#include "include/forwarding.p4"      /* Route: ipv4_lpm, l2_forward (routing.p4) */
#include "include/buffer.p4"          /* Buffer: RED if configured, the drop-tail limit; port_qlen */
#include "include/epdn.p4"            /* Epdn: drops recorded, stamps inserted; epdn_events */
#include "include/trust.p4"           /* TrustBoundary: EPDN options from hosts stripped */
#include "include/impair.p4"          /* Impairment: injected drops and reorderings */
#include "include/verdict.p4"         /* Verdict: drop and count, or forward */

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    Classify() classify;
    Route() route;
    TrustBoundary() trust_boundary;
    Impairment() impairment;
    Buffer() buffer;
    Verdict() verdict;
    Epdn() epdn;
    TcpChecksum() tcp_checksum;

    apply {
        classify.apply(hdr, meta, standard_metadata);
        route.apply(hdr, meta, standard_metadata);
        trust_boundary.apply(hdr, meta, standard_metadata);
        impairment.apply(hdr, meta, standard_metadata);
        buffer.apply(hdr, meta, standard_metadata);
        verdict.apply(hdr, meta, standard_metadata);
        epdn.apply(hdr, meta, standard_metadata);
        tcp_checksum.apply(hdr, meta);
    }
}

/*************************************************************************
 ****************  E G R E S S   P R O C E S S I N G   *******************
 *************************************************************************/
control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        /* The packet left the port's queue: leave the virtual queue (buffer.p4). */
        bit<32> idx = ((bit<32>)standard_metadata.egress_port) & PORT_INDEX_MASK;
        bit<32> qlen = 0;
        port_qlen.read(qlen, idx);
        port_qlen.write(idx, qlen |-| 1);

        /* A reordering loop: back to ingress, which queues it again on recirc_port. */
        if (meta.loops_left != 0) {
            meta.loops_left = meta.loops_left - 1;
            recirculate_preserving_field_list(FL_RECIRC);
        }
    }
}

/*************************************************************************
 *************   C H E C K S U M    C O M P U T A T I O N   **************
 *************************************************************************/
/* The IPv4 header, on every IPv4 packet: the TTL changes at each hop, the total length when an
 * option is inserted or removed (options of invalid stack entries are left out). */
control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(), IPV4_CHECKSUM_FIELDS, hdr.ipv4.hdr_checksum,
                        HashAlgorithm.csum16);
    }
}

/*************************************************************************
 ***********************  D E P A R S E R  *******************************
 *************************************************************************/
/* An inserted EPDN option is emitted right after the fixed TCP header: the first option. The
 * rest of the option area follows, as the parts tcp_options.p4 extracted (TrustBoundary may
 * have rewritten them shorter). */
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

/*************************************************************************
 ***********************  S W I T C H  ***********************************
 *************************************************************************/
V1Switch(
    MyParser(),
    MyVerifyChecksum(),
    MyIngress(),
    MyEgress(),
    MyComputeChecksum(),
    MyDeparser()
) main;
