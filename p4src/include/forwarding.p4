/*
 * forwarding.p4 -- routing and per-port properties (v1model). A fragment of MyIngress's
 * declarations: rdtcp.p4 includes it inside the control body, so names read MyIngress.ipv4_lpm etc.
 *
 * The tables and their actions are architecture-neutral and live in routing.p4 (the TNA port
 * includes it too); this file adds the v1model externs: the per-port registers and the drop
 * counters.
 */

    /* Port properties, index port & PORT_INDEX_MASK. */
    register<bit<16>>(MAX_PORTS) port_mtu;     /* IP MTU in bytes; 0 = DEFAULT_MTU */

    counter(DROP_CAUSES, CounterType.packets_and_bytes) drops;   /* by DROP_* cause */
    counter(MAX_PORTS, CounterType.packets_and_bytes) port_drops; /* every drop after routing, by port */

#define RDTCP_INGRESS_PORT standard_metadata.ingress_port
#include "routing.p4"
