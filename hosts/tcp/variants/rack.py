"""RACK-TLP (RFC 8985): time-based loss detection, today's reference point for reordering.

RACK (§6) replaces counting duplicate ACKs: a segment is lost when a segment *sent after it*
has been delivered and more than a reordering window has passed since, ``RACK.rtt +
RACK.reo_wnd`` after it was sent. The window starts at zero until reordering is seen (so that
without reordering RACK acts like DupThresh), then is min_RTT / 4, grows by that much for each
round trip in which a DSACK arrived, and is bounded by SRTT. TLP (§7) sends a probe two SRTTs
after the last ACK when the flight's tail may be lost, so that the ACK it draws lets RACK find
the losses instead of the retransmission timer.

Composition over the engine (hosts/tcp/variants/__init__.py): the engine's RFC 6675 recovery,
congestion control and RTO stay; this policy turns off the engine's DupThresh loss marking,
marks losses with ``conn.mark_lost_by_send_time`` (the scoreboard scan of §6.2 step 5), starts
recovery with ``conn.enter_recovery`` and runs its two timers (reordering timer, PTO) through
``conn.policy_deadline``. Without SACK it is plain RFC 5681/6582 (RACK needs SACK to know what
was delivered).

``rack`` is RFC 8985 alone: a fast recovery RACK started on reordering keeps its reduction
(Linux adds DSACK undo, variants/dsack.py's, on top; not composed here yet).

Choices where RFC 8985 leaves room: RACK.min_RTT is the minimum over the connection (the RFC
asks for a windowed minimum; runs here last minutes on a fixed path); a retransmitted segment
gives no RTT when the timestamps option is off and its RTT is below min_RTT (§6.2 step 2); the
PTO is armed on every ACK outside recovery (Linux's way, §7.2 allows it) and not before the
first RTT sample; TLP.max_ack_delay is 200 ms (the delayed-ACK bound of RFC 5681 §4.2).
"""

from __future__ import annotations

from hosts.tcp.variants.base import DUPTHRESH, register
from hosts.tcp.variants.sack import Sack

REO_WND_PERSIST = 16        # §6.2 step 4: recoveries the inflated window outlives a DSACK
TLP_MAX_ACK_DELAY = 0.2     # §7.2: a delayed ACK's worst case (RFC 5681 §4.2: < 0.5 s; 200 ms)
PTO_WITHOUT_SRTT = 1.0      # §7.2: "Else: PTO = 1 sec"

__all__ = ["Rack", "RackState", "sent_after"]


def sent_after(t1: float, seq1: int, t2: float, seq2: int) -> bool:
    """RACK_sent_after (§6.2): segment 1 was sent after segment 2 (equal times: the higher
    sequence was sent later)."""
    return t1 > t2 or (t1 == t2 and seq1 > seq2)


class RackState:
    """RACK's per-connection variables (§5.2) and steps 2-4 of §6.2."""

    __slots__ = ("xmit_ts", "end_seq", "rtt", "min_rtt", "fack", "reordering_seen",
                 "reo_wnd_mult", "reo_wnd_persist", "dsack_round")

    def __init__(self) -> None:
        self.xmit_ts = float("-inf")    # send time of the most recently sent delivered segment
        self.end_seq = 0
        self.rtt: float | None = None   # RTT of that segment
        self.min_rtt = float("inf")
        self.fack = 0                   # highest sequence delivered
        self.reordering_seen = False
        self.reo_wnd_mult = 1
        self.reo_wnd_persist = 0
        self.dsack_round: int | None = None

    def update(self, deliveries: list[tuple], now: float, tsecr_ms: int | None) -> None:
        """Step 2, RACK_update: the newly delivered segments (start, end, sent_at, tx), taken
        in the order they were sent, advance (xmit_ts, end_seq) and set RACK.rtt."""
        for _, end, sent_at, tx in sorted(deliveries, key=lambda d: (d[2], d[1])):
            rtt = now - sent_at
            if tx > 1:
                # the ACK may be for the original transmission: use it only when the timestamp
                # echo shows it answers this one, or it is too short to answer the original
                if tsecr_ms is not None and tsecr_ms < int(sent_at * 1000):
                    continue
                if rtt < self.min_rtt:
                    continue
            else:
                self.min_rtt = min(self.min_rtt, rtt)
            self.rtt = rtt
            if sent_after(sent_at, end, self.xmit_ts, self.end_seq):
                self.xmit_ts, self.end_seq = sent_at, end

    def detect_reordering(self, deliveries: list[tuple]) -> None:
        """Step 3: an original transmission delivered below the highest sequence already
        delivered was reordered."""
        for _, end, _, tx in sorted(deliveries, key=lambda d: d[1]):
            if end > self.fack:
                self.fack = end
            elif end < self.fack and tx == 1:
                self.reordering_seen = True

    def update_reo_wnd(self, snd_una: int, snd_nxt: int, dsack: bool, leaving_recovery: bool,
                       in_recovery: bool, sacked_segments: int, srtt: float | None) -> float:
        """Step 4, RACK_update_reo_wnd: the reordering window now."""
        if self.dsack_round is not None and snd_una >= self.dsack_round:
            self.dsack_round = None
        if self.dsack_round is None and dsack:
            # at most one increase per round trip: a burst of DSACKs is one reordering event
            self.dsack_round = snd_nxt
            self.reo_wnd_mult += 1
            self.reo_wnd_persist = REO_WND_PERSIST
        elif leaving_recovery:
            self.reo_wnd_persist -= 1
            if self.reo_wnd_persist <= 0:
                self.reo_wnd_mult = 1
        if not self.reordering_seen and (in_recovery or sacked_segments >= DUPTHRESH):
            return 0.0                  # no reordering seen: as fast as DupThresh
        if self.min_rtt == float("inf"):
            return 0.0
        wnd = self.reo_wnd_mult * self.min_rtt / 4
        return min(wnd, srtt) if srtt is not None else wnd


@register
class Rack(Sack):
    """SACK whose losses RACK finds by time and TLP probes for (a SACK sender, RFC 8985 §3)."""

    name = "rack"
    observes_deliveries = True

    def __init__(self, config):
        super().__init__(config)
        self.rack = RackState()
        self._deliveries: list[tuple] = []     # this ACK's newly delivered segments
        self._dsack = False                     # this ACK carried a DSACK
        self._was_recovering = False
        self.reo_wnd = 0.0
        self.reorder_deadline: float | None = None
        self.pto_deadline: float | None = None
        self.tlp_end_seq: int | None = None     # §7.1: the probe in flight (SND.NXT after it)
        self.tlp_is_retrans = False
        self._tlp_dsacked = False

    # ------------------------------------------------------------ engine hooks
    def should_fast_retransmit(self, conn, dupacks):
        if conn.sack_ok:
            return False                # RACK decides what is lost, not a dupack count
        return super().should_fast_retransmit(conn, dupacks)

    def on_delivered(self, conn, start, end, sent_at, transmissions):
        self._deliveries.append((start, end, sent_at, transmissions))

    def on_dsack(self, conn, start, end, retransmitted):
        self._dsack = True
        if self.tlp_end_seq is not None and self.tlp_is_retrans and start < self.tlp_end_seq <= end:
            self._tlp_dsacked = True
        super().on_dsack(conn, start, end, retransmitted)

    def on_ack(self, conn, seg, prior_una):
        super().on_ack(conn, seg, prior_una)
        if not conn.sack_ok:
            self._deliveries.clear()
            return
        self.dupthresh_loss_marking = False
        deliveries, self._deliveries = self._deliveries, []
        rack = self.rack
        if deliveries:
            rack.update(deliveries, conn.now, self._tsecr(conn, seg))
            rack.detect_reordering(deliveries)
        self._detect_losses(conn)
        self._process_tlp_ack(conn, seg)
        self._schedule_pto(conn, advanced=conn.snd_una > prior_una)
        self._dsack = False
        self._arm(conn)

    def on_deadline(self, conn, now):
        out = []
        if self.reorder_deadline is not None and now >= self.reorder_deadline:
            self.reorder_deadline = None
            self._detect_losses(conn)           # §6.3: the reordering timer re-runs detection
        if self.pto_deadline is not None and now >= self.pto_deadline:
            self.pto_deadline = None
            out += self._send_probe(conn, now)
        self._arm(conn)
        return out

    def timeout_retransmits_all(self, conn):
        return self.rack.rtt is None        # no RACK state yet: the engine's RFC 6675 §5.1 rule

    def on_timeout(self, conn):
        super().on_timeout(conn)
        # §6.3 RACK_mark_losses_on_RTO: the head (the engine marks it) and everything sent more
        # than RACK.rtt + reo_wnd ago; the rest waits for RACK on the ACKs to come
        if self.rack.rtt is not None:
            conn.mark_lost_by_send_time(conn.now, conn.snd_max, self.rack.rtt + self.reo_wnd)
        self.tlp_end_seq = None             # §7.1: reset on RTO recovery
        self.reorder_deadline = self.pto_deadline = None
        conn.policy_deadline = None

    def on_enter_recovery(self, conn, prior_cwnd, prior_ssthresh):
        super().on_enter_recovery(conn, prior_cwnd, prior_ssthresh)
        self.tlp_end_seq = None             # §7.1: reset on fast recovery
        self.pto_deadline = None

    # ------------------------------------------------------------ RACK (§6.2 steps 4-5)
    def _detect_losses(self, conn) -> None:
        rack = self.rack
        recovering = conn.in_recovery or conn.in_loss
        self.reo_wnd = rack.update_reo_wnd(
            conn.snd_una, conn.snd_max, self._dsack,
            leaving_recovery=self._was_recovering and not recovering, in_recovery=recovering,
            sacked_segments=conn.sacked_out // conn.mss, srtt=conn.rtt.srtt)
        self._was_recovering = recovering
        self.reorder_deadline = None
        if rack.rtt is None:
            return
        marked, timeout = conn.mark_lost_by_send_time(rack.xmit_ts, rack.end_seq,
                                                      rack.rtt + self.reo_wnd)
        if marked:
            conn.enter_recovery()           # no-op when a recovery already runs
            self._was_recovering = conn.in_recovery or conn.in_loss
        if timeout > 0:
            self.reorder_deadline = conn.now + timeout

    # ------------------------------------------------------------ TLP (§7)
    def _schedule_pto(self, conn, *, advanced: bool) -> None:
        """§7.2: a probe timer while data is outstanding outside recovery and no probe is in
        flight; re-armed by every ACK that advances SND.UNA."""
        if conn.in_recovery or conn.in_loss or conn.flight_size == 0 \
                or self.tlp_end_seq is not None or conn.rtt.srtt is None:
            self.pto_deadline = None
            return
        if not advanced and self.pto_deadline is not None:
            return
        pto = 2 * conn.rtt.srtt
        if conn.flight_size <= conn.mss:
            pto += TLP_MAX_ACK_DELAY
        deadline = conn.now + pto
        rto = conn.rto_deadline
        self.pto_deadline = min(deadline, rto) if rto is not None else deadline

    def _send_probe(self, conn, now: float) -> list:
        """§7.3: one probe, then the RTO (not another PTO) guards the flight."""
        if conn.in_recovery or conn.in_loss or self.tlp_end_seq is not None:
            return []
        una_before = conn.snd_max
        seg = conn.send_probe(now)
        if seg is None:
            return []
        self.tlp_is_retrans = conn.snd_max == una_before
        self.tlp_end_seq = conn.snd_max
        self._tlp_dsacked = False
        conn.restart_rto()
        return [seg]

    def _process_tlp_ack(self, conn, seg) -> None:
        """§7.4.2: did the probe repair a loss? Only a retransmitted probe whose ACK goes
        beyond it with no DSACK for it says the original was lost: then the congestion
        response of a loss is due."""
        end = self.tlp_end_seq
        if end is None or conn.snd_una < end:
            return
        if not self.tlp_is_retrans or self._tlp_dsacked:
            self.tlp_end_seq = None
        elif conn.snd_una > end:
            self.tlp_end_seq = None
            conn.reduce_window()

    def _arm(self, conn) -> None:
        deadlines = [t for t in (self.reorder_deadline, self.pto_deadline) if t is not None]
        conn.policy_deadline = min(deadlines) if deadlines else None

    @staticmethod
    def _tsecr(conn, seg) -> int | None:
        if not conn.ts_ok:
            return None
        ts = seg.option("Timestamp")
        return ts[1] if ts else None

