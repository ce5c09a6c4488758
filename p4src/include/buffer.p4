/*
 * buffer.p4 -- Buffer, the piece of MyIngress that admits a packet to its egress port's queue:
 * the per-port drop-tail buffer the program enforces itself.
 *
 * Why: a P4 program cannot see the traffic manager's tail drops, so it could not record them in
 * the EPDN table (design.md "Drops the program can see"). The program therefore keeps a virtual
 * queue length per egress port -- +1 when the ingress admits a packet to the port, -1 when the
 * packet reaches the egress pipeline of that port -- and drops in ingress when the queue holds
 * buffer_limit[p] packets. The traffic manager's own queue is configured deeper than the limit
 * (the controller does it), so every congestion drop happens here, where it can be recorded.
 *
 * The two registers are declared at the top level because both MyIngress (+1, limit check) and
 * MyEgress (-1) use port_qlen; their names carry no control prefix (p4c's naming).
 * Index: port & PORT_INDEX_MASK.
 */
#ifndef RDTCP_BUFFER_P4
#define RDTCP_BUFFER_P4

register<bit<32>>(MAX_PORTS) port_qlen;     /* packets admitted to port p and not yet at its egress */
register<bit<32>>(MAX_PORTS) buffer_limit;  /* drop-tail limit in packets; 0 = unlimited */

control Buffer(inout headers_t hdr,
               inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {
    apply {
        if (meta.drop_cause == DROP_NONE) {
            bit<32> qlen = 0;
            bit<32> limit = 0;
            port_qlen.read(qlen, meta.out_idx);
            buffer_limit.read(limit, meta.out_idx);
            if (limit != 0 && qlen >= limit) {
                meta.drop_cause = DROP_BUFFER;
            } else {
                port_qlen.write(meta.out_idx, qlen + 1);
            }
        }
    }
}

#endif /* RDTCP_BUFFER_P4 */
