/*
 * impair.p4 -- Impairment, the piece of MyIngress that injects drops and reorderings: the knobs
 * experiments turn (p4src/README.md). Its registers keep their names, MyIngress.drop_prob etc.
 *
 * Impairments apply to well-formed TCP segments that carry data, on their first pass, and are
 * chosen per egress port (index port & PORT_INDEX_MASK) after routing:
 *  1. a pattern, when pattern_len[p] > 0: the k-th data segment routed to p takes the action of
 *     slot impair_pattern[p * PATTERN_SLOTS + (k mod pattern_len[p])] (IMPAIR_PASS/DROP/RECIRC/ALT);
 *  2. otherwise probabilities, 32-bit fractions (p * 2^32, saturating at 2^32 - 1), tried in order
 *     drop_prob, recirc_prob, alt_prob, each with its own random draw.
 * An injected drop is recorded in the EPDN table like a congestion drop (p4src/README.md).
 * Reordering: IMPAIR_RECIRC makes the packet loop recirc_loops[p] times through port p's queue,
 * so it falls behind the packets queued after it (delay-based reordering, [RDTCP] §7);
 * IMPAIR_ALT sends it by alt_port[p] (a second, longer path to the same next hop). A reordering
 * happens only to a packet the buffer admits, and is counted then (Verdict, verdict.p4, which
 * starts the loops).
 */
#ifndef RDTCP_IMPAIR_P4
#define RDTCP_IMPAIR_P4

control Impairment(inout headers_t hdr,
                   inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {

    @name(".MyIngress.drop_prob")
    register<bit<32>>(MAX_PORTS) drop_prob;
    @name(".MyIngress.recirc_prob")
    register<bit<32>>(MAX_PORTS) recirc_prob;
    @name(".MyIngress.alt_prob")
    register<bit<32>>(MAX_PORTS) alt_prob;
    @name(".MyIngress.alt_port")
    register<port_t>(MAX_PORTS)  alt_port;        /* the alternate egress port of port p */
    @name(".MyIngress.pattern_len")
    register<bit<32>>(MAX_PORTS) pattern_len;     /* 0 = no pattern; at most PATTERN_SLOTS */
    @name(".MyIngress.pattern_pos")
    register<bit<32>>(MAX_PORTS) pattern_pos;     /* next slot: data segments seen mod pattern_len */
    @name(".MyIngress.impair_pattern")
    register<bit<2>>(MAX_PORTS * PATTERN_SLOTS) impair_pattern;

    /* One Bernoulli trial: impair = what when a uniform 32-bit draw falls below threshold. */
    action impair_draw(in bit<32> threshold, in bit<2> what) {
        bit<32> r = 0;
        random(r, 32w0, 32w0xFFFFFFFF);
        meta.impair = (r < threshold) ? what : meta.impair;
    }

    action impair_drop(in bit<8> cause) {
        meta.drop_cause = cause;
    }

    action impair_alternate_port(in port_t port) {
        meta.out_port = port;
        meta.out_idx = ((bit<32>)port) & PORT_INDEX_MASK;
    }

    apply {
        if (meta.first_pass && meta.drop_cause == DROP_NONE && meta.is_data == 1) {
            bit<32> plen = 0;
            pattern_len.read(plen, meta.out_idx);
            if (plen != 0) {
                /* 1. the control plane's pattern: slot k mod len of this port */
                bit<32> pos = 0;
                pattern_pos.read(pos, meta.out_idx);
                if (pos >= plen || pos >= PATTERN_SLOTS) {
                    pos = 0;
                }
                impair_pattern.read(meta.impair, (meta.out_idx << PATTERN_SLOTS_LOG2) + pos);
                pos = pos + 1;
                if (pos >= plen) {
                    pos = 0;
                }
                pattern_pos.write(meta.out_idx, pos);
                if (meta.impair == IMPAIR_DROP) {
                    impair_drop(DROP_PATTERN);
                }
            } else {
                /* 2. probabilities, one independent draw each */
                bit<32> p = 0;
                drop_prob.read(p, meta.out_idx);
                if (p != 0) {
                    impair_draw(p, IMPAIR_DROP);
                }
                if (meta.impair == IMPAIR_PASS) {
                    recirc_prob.read(p, meta.out_idx);
                    if (p != 0) {
                        impair_draw(p, IMPAIR_RECIRC);
                    }
                }
                if (meta.impair == IMPAIR_PASS) {
                    alt_prob.read(p, meta.out_idx);
                    if (p != 0) {
                        impair_draw(p, IMPAIR_ALT);
                    }
                }
                if (meta.impair == IMPAIR_DROP) {
                    impair_drop(DROP_RANDOM);
                }
            }
            if (meta.impair == IMPAIR_ALT) {
                port_t alt = 0;
                alt_port.read(alt, meta.out_idx);
                impair_alternate_port(alt);
            }
        }
    }
}

#endif /* RDTCP_IMPAIR_P4 */
