/*
 * routing.p4 -- IPv4 routing and the L2 patch panel, architecture-neutral: tables and actions,
 * included in the body of the control that applies them, Route in both programs (v1model:
 * forwarding.p4; TNA: p4src/tna/rdtcp_tna.p4), unchanged.
 *
 * IPv4 is routed by longest-prefix match with MAC rewrite (the tutorials' basic.p4 semantics:
 * the new source is the address the frame was sent to, the new destination the next hop) and
 * a TTL decrement. Frames that are not IPv4 (ARP, IPv6, ...) are bridged unchanged, byte for
 * byte, by l2_forward: ingress port -> egress port, a patch panel the controller fills in.
 *
 * The including file defines RDTCP_INGRESS_PORT, the architecture's ingress-port field
 * (v1model: standard_metadata.ingress_port). A macro rather than a metadata copy keeps the
 * table key's control-plane name what p4c has always called it.
 *
 * Names are API (commands files, the controller, PTF): each object carries its control-plane
 * name, MyIngress.<name>, as an absolute @name, so it is the same whichever control holds it
 * (p4c names an object of a control instance <instance>.<name> otherwise).
 */
#ifndef RDTCP_INGRESS_PORT
#error "define RDTCP_INGRESS_PORT (the architecture's ingress port field) before routing.p4"
#endif

    /* No forwarding entry: the packet goes nowhere (counted as DROP_NO_ROUTE). */
    @name(".MyIngress.drop")
    action drop() {
        meta.drop_cause = DROP_NO_ROUTE;
    }

    @name(".MyIngress.ipv4_forward")
    action ipv4_forward(macAddr_t dst_addr, port_t port) {
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = dst_addr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        meta.out_port = port;
    }

    @name(".MyIngress.ipv4_lpm")
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

    @name(".MyIngress.l2_output")
    action l2_output(port_t port) {
        meta.out_port = port;
    }

    @name(".MyIngress.l2_forward")
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

    /* TTL would reach 0 here (RFC 1812 §5.3.1); no ICMP time-exceeded is generated. */
    action drop_ttl() {
        meta.drop_cause = DROP_TTL;
    }
