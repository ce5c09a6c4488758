"""RACK-TLP (RFC 8985): time-based loss detection, today's reference point for reordering.

RACK (§6) replaces counting duplicate ACKs: a segment is lost when a segment *sent after it*
has been delivered and more than a reordering window has passed since, ``RACK.rtt +
RACK.reo_wnd`` after it was sent. The window starts at zero until reordering is seen (so that
without reordering RACK acts like DupThresh), then is min_RTT / 4, grows by that much for each
round trip in which a DSACK arrived, and is bounded by SRTT. TLP (§7) sends a probe two SRTTs
after the last ACK when the flight's tail may be lost, so that the ACK it draws lets RACK find
the losses instead of the retransmission timer.

Composition over the engine (hosts/tcp/variants/base.py): the engine's RFC 6675 recovery,
congestion control and RTO stay; this policy turns off the engine's DupThresh loss marking
(``dupthresh_loss_marking``, with SACK),
finds losses on the scoreboard itself (``detect_loss``, §6.2 step 5) and returns them
(``MarkLost``) with ``ENTER_RECOVERY``, asks for probes with ``SEND_PROBE`` and runs its two
timers (reordering timer, PTO) through ``deadline``. Without SACK it is plain RFC 5681/6582
(RACK needs SACK to know what was delivered).

``rack`` is RFC 8985 alone: a fast recovery RACK started on reordering keeps its reduction
(Linux adds DSACK undo, variants/dsack.py's, on top; not composed here yet).

Choices where RFC 8985 leaves room: RACK.min_RTT is the minimum over the connection (the RFC
asks for a windowed minimum; runs here last minutes on a fixed path); a retransmitted segment
gives no RTT when the timestamps option is off and its RTT is below min_RTT (§6.2 step 2); the
PTO is armed on every ACK outside recovery (Linux's way, §7.2 allows it) and not before the
first RTT sample; TLP.max_ack_delay is 200 ms (the delayed-ACK bound of RFC 5681 §4.2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hosts.tcp.scoreboard import END, LOST, RETRANS, SACKED, SENT_AT, TX
from hosts.tcp.variants.base import (DUPTHRESH, ENTER_RECOVERY, REDUCE_WINDOW, SEND_PROBE,
                                     Decisions, MarkLost, RecordView, ScoreboardView, SenderView,
                                     register)
from hosts.tcp.variants.sack import Sack

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from netbase.segment import Segment

REO_WND_PERSIST = 16        # §6.2 step 4: recoveries the inflated window outlives a DSACK
TLP_MAX_ACK_DELAY = 0.2     # §7.2: a delayed ACK's worst case (RFC 5681 §4.2: < 0.5 s; 200 ms)
PTO_WITHOUT_SRTT = 1.0      # §7.2: "Else: PTO = 1 sec"

__all__ = ["Rack", "RackState", "sent_after", "detect_loss"]


def sent_after(t1: float, seq1: int, t2: float, seq2: int) -> bool:
    """RACK_sent_after (§6.2): segment 1 was sent after segment 2 (equal times: the higher
    sequence was sent later)."""
    return t1 > t2 or (t1 == t2 and seq1 > seq2)


def detect_loss(sb: ScoreboardView, xmit_ts: float, end_seq: int, window: float,
                now: float) -> tuple[list[RecordView], float]:
    """§6.2 step 5, RACK_detect_loss: every outstanding segment (not SACKed, not already
    marked lost and unsent since) sent before the delivered segment (xmit_ts, end_seq) and at
    least ``window`` (RACK.rtt + RACK.reo_wnd) before now is lost: its delivery is overdue by
    more than the reordering window. Returns those records and the seconds until the next of
    the others qualifies (0.0 if none: the reordering timer, §6.3).

    The scan goes in sequence order and stops at the first segment sent only once that was sent
    after (xmit_ts, end_seq): original transmissions go out in sequence order and a later
    transmission only makes a segment later, so every segment beyond it is later too."""
    lost = []
    timeout = 0.0
    segs = sb.records
    for i in range(sb.head, len(segs)):
        r = segs[i]
        if sent_after(r[SENT_AT], r[END], xmit_ts, end_seq):
            if r[TX] == 1:
                break
            continue                            # retransmitted after it: not overdue
        if r[SACKED] or (r[LOST] and not r[RETRANS]):
            continue
        remaining = r[SENT_AT] + window - now
        if remaining <= 0:
            lost.append(r)
        elif remaining > timeout:
            timeout = remaining
    return lost, timeout


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
    dupthresh_loss_marking = False      # with SACK RACK finds the losses (§6.2), not IsLost

    def __init__(self, config: TcpConfig) -> None:
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
    def should_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> bool:
        if view.sack_ok:
            return False                # RACK decides what is lost, not a dupack count
        return super().should_fast_retransmit(view, dupacks, now=now)

    def on_delivered(self, view: SenderView, start: int, end: int, sent_at: float,
                     transmissions: int, *, now: float) -> None:
        self._deliveries.append((start, end, sent_at, transmissions))

    def on_dsack(self, view: SenderView, start: int, end: int, retransmitted: bool, *,
                 now: float) -> Decisions:
        self._dsack = True
        if self.tlp_end_seq is not None and self.tlp_is_retrans and start < self.tlp_end_seq <= end:
            self._tlp_dsacked = True
        return super().on_dsack(view, start, end, retransmitted, now=now)

    def on_ack(self, view: SenderView, seg: Segment, prior_una: int, *, now: float) -> Decisions:
        if not view.sack_ok:
            self._deliveries.clear()
            return None
        deliveries, self._deliveries = self._deliveries, []
        rack = self.rack
        if deliveries:
            rack.update(deliveries, now, self._tsecr(view, seg))
            rack.detect_reordering(deliveries)
        losses = self._detect_losses(view, now)
        # the recovery losses start resets the probe (§7.1): its ACK matters only without them
        decision = losses if losses is not None else self._process_tlp_ack(view)
        self._schedule_pto(view, now, advanced=view.snd_una > prior_una,
                           recovering=losses is not None)
        self._dsack = False
        return decision

    def deadline(self) -> float | None:
        if self.reorder_deadline is None:
            return self.pto_deadline
        if self.pto_deadline is None:
            return self.reorder_deadline
        return min(self.reorder_deadline, self.pto_deadline)

    def on_deadline(self, view: SenderView, *, now: float) -> Decisions:
        decision = None
        if self.reorder_deadline is not None and now >= self.reorder_deadline:
            self.reorder_deadline = None
            decision = self._detect_losses(view, now)   # §6.3: the reordering timer re-runs it
        if self.pto_deadline is not None and now >= self.pto_deadline:
            self.pto_deadline = None
            if decision is None:
                decision = self._probe(view)
        return decision

    def on_probe_sent(self, view: SenderView, retransmission: bool, *, now: float) -> None:
        """§7.3: one probe, then the RTO (not another PTO) guards the flight."""
        self.tlp_is_retrans = retransmission
        self.tlp_end_seq = view.snd_max
        self._tlp_dsacked = False

    def timeout_retransmits_all(self, view: SenderView, *, now: float) -> bool:
        return self.rack.rtt is None        # no RACK state yet: the engine's RFC 6675 §5.1 rule

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        # §6.3 RACK_mark_losses_on_RTO: the head (the engine marks it) and everything sent more
        # than RACK.rtt + reo_wnd ago; the rest waits for RACK on the ACKs to come
        decision = None
        if self.rack.rtt is not None:
            lost, _ = detect_loss(view.scoreboard, now, view.snd_max,
                                  self.rack.rtt + self.reo_wnd, now)
            if lost:
                decision = MarkLost(lost, "send-time")
        self.tlp_end_seq = None             # §7.1: reset on RTO recovery
        self.reorder_deadline = self.pto_deadline = None
        return decision

    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        super().on_enter_recovery(view, prior_cwnd, prior_ssthresh, now=now)
        self.tlp_end_seq = None             # §7.1: reset on fast recovery
        self.pto_deadline = None

    # ------------------------------------------------------------ RACK (§6.2 steps 4-5)
    def _detect_losses(self, view: SenderView, now: float):
        """Steps 4-5: the reordering window, then the losses it shows (``MarkLost``, and fast
        recovery unless one runs: RFC 6675 §5 (4)) and the reordering timer for the rest."""
        rack = self.rack
        recovering = view.in_recovery or view.in_loss
        self.reo_wnd = rack.update_reo_wnd(
            view.snd_una, view.snd_max, self._dsack,
            leaving_recovery=self._was_recovering and not recovering, in_recovery=recovering,
            sacked_segments=view.sacked_out // view.mss, srtt=view.rtt.srtt)
        self._was_recovering = recovering
        self.reorder_deadline = None
        if rack.rtt is None:
            return None
        lost, timeout = detect_loss(view.scoreboard, rack.xmit_ts, rack.end_seq,
                                    rack.rtt + self.reo_wnd, now)
        if timeout > 0:
            self.reorder_deadline = now + timeout
        if not lost:
            return None
        self._was_recovering = True         # the engine enters recovery unless it runs one
        return MarkLost(lost, "send-time"), ENTER_RECOVERY

    # ------------------------------------------------------------ TLP (§7)
    def _schedule_pto(self, view: SenderView, now: float, *, advanced: bool,
                      recovering: bool) -> None:
        """§7.2: a probe timer while data is outstanding outside recovery and no probe is in
        flight; re-armed by every ACK that advances SND.UNA."""
        if recovering or view.in_recovery or view.in_loss or view.flight_size == 0 \
                or self.tlp_end_seq is not None or view.rtt.srtt is None:
            self.pto_deadline = None
            return
        if not advanced and self.pto_deadline is not None:
            return
        pto = 2 * view.rtt.srtt
        if view.flight_size <= view.mss:
            pto += TLP_MAX_ACK_DELAY
        deadline = now + pto
        rto = view.rto_deadline
        self.pto_deadline = min(deadline, rto) if rto is not None else deadline

    def _probe(self, view: SenderView):
        """§7.3: one probe at a time, none during a recovery."""
        if view.in_recovery or view.in_loss or self.tlp_end_seq is not None:
            return None
        return SEND_PROBE

    def _process_tlp_ack(self, view: SenderView):
        """§7.4.2: did the probe repair a loss? Only a retransmitted probe whose ACK goes
        beyond it with no DSACK for it says the original was lost: then the congestion
        response of a loss is due."""
        end = self.tlp_end_seq
        if end is None or view.snd_una < end:
            return None
        if not self.tlp_is_retrans or self._tlp_dsacked:
            self.tlp_end_seq = None
        elif view.snd_una > end:
            self.tlp_end_seq = None
            return REDUCE_WINDOW
        return None

    @staticmethod
    def _tsecr(view: SenderView, seg) -> int | None:
        if not view.ts_ok:
            return None
        ts = seg.option("Timestamp")
        return ts[1] if ts else None
