/*
 * verdict.p4 -- Verdict, the piece of MyIngress that carries out what the pieces before it
 * decided (v1model): a packet with a drop cause is dropped and counted by cause (and, for the
 * drops that the EPDN table records, by egress port); any other leaves by meta.out_port, and a
 * reordering chosen by Impairment (impair.p4) happens and is counted now that the packet is
 * admitted. The loops of a reordering are a knob of its port, recirc_loops[p].
 */
#ifndef RDTCP_VERDICT_P4
#define RDTCP_VERDICT_P4

control Verdict(inout headers_t hdr,
                inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {

    @name(".MyIngress.drops")
    counter(DROP_CAUSES, CounterType.packets_and_bytes) drops;        /* by DROP_* cause */
    @name(".MyIngress.port_drops")
    counter(MAX_PORTS, CounterType.packets_and_bytes) port_drops;     /* buffer, injected, RED drops, by port */
    @name(".MyIngress.reorders")
    counter(REORDER_KINDS, CounterType.packets_and_bytes) reorders;   /* by REORDER_* kind */
    @name(".MyIngress.recirc_loops")
    register<bit<8>>(MAX_PORTS) recirc_loops;    /* loops per recirculated packet (>= 1 to act) */

    /* Loop `loops` times through the queue of the chosen port (see MyEgress). Counted (like
     * IMPAIR_ALT) only once the packet is admitted: a reordering that happened. */
    action impair_recirculate(in bit<8> loops) {
        meta.loops_left = loops;
        reorders.count(REORDER_RECIRC);
    }

    apply {
        if (meta.drop_cause != DROP_NONE) {
            mark_to_drop(standard_metadata);
            drops.count((bit<32>)meta.drop_cause);
            if (meta.drop_cause <= DROP_PATTERN || meta.drop_cause == DROP_RED) {
                port_drops.count(meta.out_idx);
            }
        } else {
            standard_metadata.egress_spec = meta.out_port;
            /* a reordering loop: recirc_loops[p] more passes through p's queue (MyEgress) */
            if (meta.first_pass && meta.impair == IMPAIR_RECIRC) {
                bit<8> loops = 0;
                recirc_loops.read(loops, meta.out_idx);
                if (loops != 0) {
                    meta.recirc_port = meta.out_port;
                    impair_recirculate(loops);
                }
            }
            if (meta.first_pass && meta.impair == IMPAIR_ALT) {
                reorders.count(REORDER_ALT);
            }
        }
    }
}

#endif /* RDTCP_VERDICT_P4 */
