/*
 * routing.p4 -- IPv4 routing and the L2 patch panel, architecture-neutral. A fragment of the
 * ingress control's declarations (names read MyIngress.ipv4_lpm etc.), included by
 * forwarding.p4 (v1model) and by p4src/tna/rdtcp_tna.p4 (TNA) unchanged.
 *
 * IPv4 is routed by longest-prefix match with MAC rewrite (the tutorials' basic.p4 semantics:
 * the new source is the address the frame was sent to, the new destination the next hop) and
 * a TTL decrement. Frames that are not IPv4 (ARP, IPv6, ...) are bridged unchanged, byte for
 * byte, by l2_forward: ingress port -> egress port, a patch panel the controller fills in.
 *
 * The including file defines RDTCP_INGRESS_PORT, the architecture's ingress-port field
 * (v1model: standard_metadata.ingress_port). A macro rather than a metadata copy keeps the
 * table key's control-plane name what p4c has always called it.
 */
#ifndef RDTCP_INGRESS_PORT
#error "define RDTCP_INGRESS_PORT (the architecture's ingress port field) before routing.p4"
#endif

    /* No forwarding entry: the packet goes nowhere (counted as DROP_NO_ROUTE). */
    action drop() {
        meta.drop_cause = DROP_NO_ROUTE;
    }

    action ipv4_forward(macAddr_t dst_addr, port_t port) {
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = dst_addr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        meta.out_port = port;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dst_addr: lpm;
        }
        actions = {
            ipv4_forward;
            drop;
            NoAction;
        }
        size = 1024;
        default_action = drop();
    }

    action l2_output(port_t port) {
        meta.out_port = port;
    }

    table l2_forward {
        key = {
            RDTCP_INGRESS_PORT: exact;
        }
        actions = {
            l2_output;
            drop;
            NoAction;
        }
        size = MAX_PORTS;
        default_action = drop();
    }

    /* IPv4 the router must not forward: version != 4, ihl < 5 or a total length that does not
     * cover the header (RFC 1812 §5.2.2). */
    action drop_malformed() {
        meta.drop_cause = DROP_MALFORMED;
    }

    /* A TCP fragment from a host (edge port): the trust boundary cannot be enforced on it. A
     * forged EPDN option may sit in any fragment, and removing one would shift the offsets of the
     * fragments after it, which a stateless switch never sees together. TCP hosts send whole
     * segments with DF set (path MTU discovery, RFC 1191 §3), so this drops nothing in normal
     * operation. Counted with DROP_MALFORMED: a packet this gateway must not forward. */
    action drop_edge_fragment() {
        meta.drop_cause = DROP_MALFORMED;
    }

    /* TTL would reach 0 here (RFC 1812 §5.3.1); no ICMP time-exceeded is generated. */
    action drop_ttl() {
        meta.drop_cause = DROP_TTL;
    }
