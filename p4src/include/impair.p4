/*
 * impair.p4 -- drop and reordering injection, the knobs experiments turn (design.md).
 * A fragment of MyIngress's declarations (names read MyIngress.drop_prob etc.).
 *
 * Impairments apply to well-formed TCP segments that carry data, on their first pass, and are
 * chosen per egress port (index port & PORT_INDEX_MASK) after routing:
 *  1. a pattern, when pattern_len[p] > 0: the k-th data segment routed to p takes the action of
 *     slot impair_pattern[p * PATTERN_SLOTS + (k mod pattern_len[p])] (IMPAIR_PASS/DROP/RECIRC/ALT);
 *  2. otherwise probabilities, 32-bit fractions (p * 2^32, saturating at 2^32 - 1), tried in order
 *     drop_prob, recirc_prob, alt_prob, each with its own random draw.
 * An injected drop is recorded in the EPDN table like a congestion drop (design.md).
 * Reordering: IMPAIR_RECIRC makes the packet loop recirc_loops[p] times through port p's queue,
 * so it falls behind the packets queued after it (delay-based reordering, 003 §7);
 * IMPAIR_ALT sends it by alt_port[p] (a second, longer path to the same next hop).
 */

    register<bit<32>>(MAX_PORTS) drop_prob;
    register<bit<32>>(MAX_PORTS) recirc_prob;
    register<bit<32>>(MAX_PORTS) alt_prob;
    register<bit<8>>(MAX_PORTS)  recirc_loops;    /* loops per recirculated packet (>= 1 to act) */
    register<port_t>(MAX_PORTS)  alt_port;        /* the alternate egress port of port p */
    register<bit<32>>(MAX_PORTS) pattern_len;     /* 0 = no pattern; at most PATTERN_SLOTS */
    register<bit<32>>(MAX_PORTS) pattern_pos;     /* next slot: data segments seen mod pattern_len */
    register<bit<2>>(MAX_PORTS * PATTERN_SLOTS) impair_pattern;

    counter(REORDER_KINDS, CounterType.packets_and_bytes) reorders;   /* by REORDER_* kind */

    /* One Bernoulli trial: impair = what when a uniform 32-bit draw falls below threshold. */
    action impair_draw(in bit<32> threshold, in bit<2> what) {
        bit<32> r = 0;
        random(r, 32w0, 32w0xFFFFFFFF);
        meta.impair = (r < threshold) ? what : meta.impair;
    }

    action impair_drop(in bit<8> cause) {
        meta.drop_cause = cause;
    }

    /* Loop `loops` times through the queue of the chosen port (see MyEgress). Counted (like
     * IMPAIR_ALT) only once the packet is admitted: a reordering that happened. */
    action impair_recirculate(in bit<8> loops) {
        meta.loops_left = loops;
        reorders.count(REORDER_RECIRC);
    }

    action impair_alternate_port(in port_t port) {
        meta.out_port = port;
        meta.out_idx = ((bit<32>)port) & PORT_INDEX_MASK;
    }
