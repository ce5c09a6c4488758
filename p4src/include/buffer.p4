/*
 * buffer.p4 -- Buffer, the piece of MyIngress that admits a packet to its egress port's queue,
 * or drops it: Random Early Detection where the control plane turns it on, then the per-port
 * drop-tail limit the program enforces itself.
 *
 * Why: a P4 program cannot see the traffic manager's tail drops, so it could not record them in
 * the EPDN table (p4src/README.md, "Why the program keeps its own queue count"). The program therefore keeps a virtual
 * queue length per egress port -- +1 when the ingress admits a packet to the port, -1 when the
 * packet reaches the egress pipeline of that port -- and drops in ingress when the queue holds
 * buffer_limit[p] packets. The traffic manager's own queue is configured deeper than the limit
 * (the controller does it), so every congestion drop happens here, where it can be recorded.
 *
 * The two registers are declared at the top level because both MyIngress (+1, limit check) and
 * MyEgress (-1) use port_qlen; their names carry no control prefix (p4c's naming).
 * Index: port & PORT_INDEX_MASK.
 *
 * Random Early Detection (Floyd and Jacobson, "Random Early Detection Gateways for Congestion
 * Avoidance", IEEE/ACM ToN 1993, §4 and Fig. 2; the gateway of [NETRENO] §7, Net Reno's
 * evaluation), per egress port, off unless the control plane sets red_max_th[p].
 * For every packet that would enter port p's queue:
 *   avg <- avg + w_q (q - avg)                       the average queue, q the queue it finds
 *   avg >= max_th:          drop; count <- 0
 *   min_th <= avg < max_th: count <- count + 1; p_b = max_p (avg - min_th) / (max_th - min_th);
 *                           drop with p_a = p_b / (1 - count p_b); if dropped, count <- 0
 *   avg < min_th:           count <- -1
 * A drop discards the whole packet on arrival (EPD, as [NETRENO]'s ATM switch did: the decision is
 * taken before any of it is queued), counts as its own cause (DROP_RED) and, for a data segment,
 * is recorded in the EPDN table like any other drop (epdn.p4), so RD-TCP sees it as a loss.
 *
 * The queue is the program's own count, port_qlen (buffer.p4), in packets: the queue Buffer
 * limits and that every drop here can be recorded against. v1model's enq_qdepth and deq_qdepth
 * are known only in egress, after the packet is queued: too late for a drop decision and for
 * the EPDN record, which both happen in ingress.
 *
 * Fixed point, so that the data plane only adds, multiplies and shifts:
 *   red_avg, red_min_th, red_max_th   packets * 2^16 (at most 65535 packets)
 *   red_w_q                           w_q * 2^24 (1 .. 2^24)
 *   red_slope                         max_p * 2^32 / ((max_th - min_th) / 2^16), at most 2^32 - 1:
 *                                     p_b * 2^32 = (avg - min_th) * red_slope / 2^16
 *   red_count                         count + 1 (0 is count = -1)
 * p_a = p_b / (1 - count p_b) needs no division: with P = p_b * 2^32 and a uniform 32-bit draw r,
 * r / 2^32 < p_a  <=>  r * (2^32 - count P) < P * 2^32 (count P < 2^32; p_a >= 1 otherwise).
 *
 * Not modelled: FJ's decay of avg over an idle period (avg <- (1 - w_q)^m avg, m the packets the
 * link could have sent while the queue was empty); an arrival to an empty queue counts once, as
 * q = 0. The difference matters only after the queue sat empty.
 */
#ifndef RDTCP_BUFFER_P4
#define RDTCP_BUFFER_P4

register<bit<32>>(MAX_PORTS) port_qlen;     /* packets admitted to port p and not yet at its egress */
register<bit<32>>(MAX_PORTS) buffer_limit;  /* drop-tail limit in packets; 0 = unlimited */

const bit<8>  DROP_RED = 7;          /* index into MyIngress.drops (headers.p4: DROP_CAUSES) */
const bit<32> RED_Q_MAX = 65535;     /* packets the fixed-point average can hold */

control Buffer(inout headers_t hdr,
               inout metadata_t meta,
               inout standard_metadata_t standard_metadata) {

    @name(".MyIngress.red_min_th")
    register<bit<32>>(MAX_PORTS) red_min_th;
    @name(".MyIngress.red_max_th")
    register<bit<32>>(MAX_PORTS) red_max_th;     /* 0: RED off on the port */
    @name(".MyIngress.red_w_q")
    register<bit<32>>(MAX_PORTS) red_w_q;
    @name(".MyIngress.red_slope")
    register<bit<32>>(MAX_PORTS) red_slope;
    @name(".MyIngress.red_avg")
    register<bit<32>>(MAX_PORTS) red_avg;        /* state: the average queue */
    @name(".MyIngress.red_count")
    register<bit<32>>(MAX_PORTS) red_count;      /* state: packets since the last drop, + 1 */

    /* The queue the packet finds, its limit, and whether RED runs on it: one access each. */
    action read_queue() {
        port_qlen.read(meta.queue_len, meta.out_idx);
        buffer_limit.read(meta.queue_limit, meta.out_idx);
        red_max_th.read(meta.red_max_th, meta.out_idx);
    }

    /* Drop-tail: room in the queue, so the packet enters it (+1). */
    action admit() {
        port_qlen.write(meta.out_idx, meta.queue_len + 1);
    }

    /* FJ §4: avg <- (1 - w_q) avg + w_q q, as avg + w_q (q - avg) in either direction. */
    action red_average() {
        bit<32> w = 0;
        red_w_q.read(w, meta.out_idx);
        red_avg.read(meta.red_avg, meta.out_idx);
        red_count.read(meta.red_count, meta.out_idx);
        bit<32> q_fx = ((meta.queue_len > RED_Q_MAX) ? RED_Q_MAX : meta.queue_len) << 16;
        bit<32> up = (bit<32>)(((bit<64>)(q_fx - meta.red_avg) * (bit<64>)w) >> 24);
        bit<32> down = (bit<32>)(((bit<64>)(meta.red_avg - q_fx) * (bit<64>)w) >> 24);
        meta.red_avg = (q_fx >= meta.red_avg) ? meta.red_avg + up : meta.red_avg - down;
        red_avg.write(meta.out_idx, meta.red_avg);
        red_min_th.read(meta.red_min_th, meta.out_idx);
    }

    /* FJ Fig. 2: p_b and count * p_b (both * 2^32), then one draw: drop with
     * p_a = p_b / (1 - count p_b), certain once count p_b >= 1. */
    action red_draw() {
        bit<32> slope = 0;
        red_slope.read(slope, meta.out_idx);
        meta.red_p = (bit<32>)(((bit<64>)(meta.red_avg - meta.red_min_th) * (bit<64>)slope) >> 16);
        meta.red_cp = (bit<64>)meta.red_count * (bit<64>)meta.red_p;
        bit<32> r = 0;
        random(r, 32w0, 32w0xFFFFFFFF);
        meta.red_hit = (meta.red_cp >= 64w0x100000000
                        || (bit<64>)r * (64w0x100000000 - meta.red_cp)
                           < ((bit<64>)meta.red_p << 32)) ? 1w1 : 1w0;
    }

    /* FJ: mark the arriving packet (here: drop it, EPD) and count <- 0. */
    action red_drop() {
        meta.drop_cause = DROP_RED;
        meta.red_count = 1;
    }

/* Drop-tail: a full queue drops the packet, else it enters the queue. */
#define DROP_TAIL                                                                              \
    if (meta.queue_limit != 0 && meta.queue_len >= meta.queue_limit) {                         \
        meta.drop_cause = DROP_BUFFER;                                                         \
    } else {                                                                                   \
        admit();                                                                               \
    }

    apply {
        if (meta.drop_cause == DROP_NONE) {
            read_queue();
            if (meta.red_max_th == 0) {
                DROP_TAIL
            } else {
                red_average();
                if (meta.red_avg >= meta.red_max_th) {
                    red_drop();
                } else if (meta.red_avg >= meta.red_min_th) {
                    red_draw();
                    if (meta.red_hit == 1) {
                        red_drop();
                    } else {
                        meta.red_count = meta.red_count |+| 1;
                    }
                } else {
                    meta.red_count = 0;
                }
                red_count.write(meta.out_idx, meta.red_count);
                if (meta.drop_cause == DROP_NONE) {
                    DROP_TAIL                       /* RED let it through: the limit still holds */
                }
            }
        }
    }
}

#endif /* RDTCP_BUFFER_P4 */
