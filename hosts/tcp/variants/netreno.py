"""Net Reno: Lin and Kung's fast recovery for a NewReno sender (seeds/002-net-reno-fast-recovery.txt;
notes/digest-002-net-reno.md names the mechanisms).

``netreno`` is the NewReno path of the engine (the peer did not negotiate SACK; RFC 6582 with
the pipe of RFC 6675 §4, each duplicate ACK counting as a segment gone) with these rules:

- NR-LSNR, loss-sensitive New-Reno (002 §5.1): a partial ACK retransmits the next hole at once
  and releases nothing else (cwnd deflated to pipe), so that once the flight is down to about
  W/2 every ACK, duplicate or partial, sends exactly one segment and the flight ends near
  W/2 - c, c the number of losses; the full ACK leaves recovery with cwnd = min(ssthresh,
  max(FlightSize, SMSS) + SMSS) (RFC 6582 §3.2 step 3 option 1), at most one segment released
  (two when nothing is outstanding), then slow start.
- NR-SW, small windows (002 §4.2): the early sends on duplicate ACKs 1 and 2 are the engine's
  Limited Transmit (RFC 3042: one new segment per duplicate ACK, cwnd untouched, not counted in
  ssthresh, RFC 5681 §3.2), which the engine does at every window; the paper's inflation did it
  only below 10 segments. What the policy adds is the accounting of a positive ACK that arrives
  before the third duplicate ACK, while cwnd < 10 segments: when it acknowledges fewer segments
  (k) than were sent early (j), the next unacknowledged segment inherits dupacks - k.
- NR-OOO, reordering guard (002 §5.3): the marker M is SND.MAX at every retransmission; on a
  partial ACK A, D = (M - A) / MSS segments sent before the last retransmission lie above A.
  D >= 3: A's segment is lost, retransmit it. Else send one new segment and retransmit after
  3 - D more duplicate ACKs (a segment displaced by 1-2 places is not resent). With no new data
  to send no duplicate ACK would come, so it retransmits at once (NR-LD is not built).
- NR-LRX, lost retransmissions by the ACK clock (002 §6.1-6.2): ticks T = duplicate ACKs of
  this recovery + one per retransmission; T_ref = 3 at fast retransmit; when T >= T_ref + W + 3
  (W = the flight at fast retransmit, in segments, without Limited Transmit's) SND.UNA is sent
  again. A partial ACK or a re-send sets T_ref = T and the round to W / 2 ticks. The re-send
  takes the place of the segment its duplicate ACK would release (no further window cut); the
  RTO stays the fallback.
- NR-B2B, back-to-back recoveries (002 §6.4): a full ACK below the marker M leaves unacknowledged
  a segment sent before the last retransmission, which should have arrived before it: a loss of
  data sent during recovery. One new segment goes out and the next duplicate ACK starts a second
  fast retransmit (the paper's "dupacks = 2"); 3 - D of them when D = (M - A) / MSS < 2 (the
  reordering guard of NR-OOO).

Not built: NR-LSSACK (002 §5.2, the planned ``netreno-sack``): with a SACK peer this variant is
plain ``sack``; NR-MARK (§6.3, the marked packets that restart a stalled ACK clock) and NR-LD
(§6.5, limited data).
"""

from __future__ import annotations

from hosts.tcp.variants.base import (DUPTHRESH, ENTER_RECOVERY, CarryDupacks,
                                     LossRecoveryPolicy, RetransmitHead, SenderView, SetCwnd,
                                     register)

SW_MAX = 10         # 002 §4.2: the small-window rules only while cwnd < 10 packets
REORDER_TICKS = 3   # 002 §6.2: "three additional duplicate ACKs" after an ACK-clock RTT


@register
class NetReno(LossRecoveryPolicy):
    name = "netreno"
    offers_sack = False     # 002's Net Reno is a NewReno sender (NR-LSSACK is not built)

    def __init__(self, config):
        super().__init__(config)
        # NR-SW (002 §4.2): the duplicate-ACK episode outside recovery
        self.sw_mark: int | None = None     # SND.MAX at its first duplicate ACK (cwnd < SW_MAX)
        self.sw_dupacks = 0                 # duplicate ACKs it counts
        self.sw_una = 0                     # SND.UNA they acknowledged
        self.carried = False                # dupacks were carried over a positive ACK
        # recovery
        self.marker = 0                     # M (002 §5.3): SND.MAX at the last retransmission
        self.wait = 0                       # duplicate ACKs until the deferred retransmission
        self.ticks = 0                      # T (002 §6.2)
        self.t_ref = 0
        self.round = 0                      # ticks in one ACK-clock RTT: W, then W / 2
        self.half = 0                       # W / 2
        self.exiting = False                # this ACK is the full ACK
        self.b2b_wait = 0                   # duplicate ACKs until the second fast retransmit
        self.b2b_cwnd = 0                   # cwnd to go back to if it does not come
        self.lrx_resends = 0                # NR-LRX re-sends (public, for tests and counts)
        self.lrx_last_ticks = 0             # T at the last of them

    # ------------------------------------------------------------------ NR-SW (002 §4.2)
    def _flight_before_early_sends(self, view: SenderView) -> int:
        """FlightSize without the segments sent on duplicate ACKs ("the inflated congestion
        window should be deflated back for computing the slow start threshold"); across a
        carried positive ACK the engine no longer knows where the episode began."""
        flight = view.flight_size_before_limited_transmit
        if self.carried and self.sw_mark is not None:
            flight = min(flight, max(0, self.sw_mark - view.snd_una))
        return flight

    def ssthresh_after_loss(self, view, *, now):
        if view.sack_ok:
            return super().ssthresh_after_loss(view, now=now)
        return max(self._flight_before_early_sends(view) // 2, 2 * view.mss)  # RFC 5681 eq. (4)

    def _carry_dupacks(self, view: SenderView) -> CarryDupacks | None:
        """002 §4.2: a positive ACK for k packets before the third duplicate ACK, j packets
        sent early: k >= j clears dupacks; else dupacks -= k, "as if the next unacknowledged
        packet is now receiving duplicate ACKs" (the window moved less than the ACKs seen)."""
        k = -(-(view.snd_una - self.sw_una) // view.mss)
        j = (view.snd_max - self.sw_mark) // view.mss
        carry = self.sw_dupacks - k
        if k < j and carry > 0:
            self.sw_dupacks, self.sw_una, self.carried = carry, view.snd_una, True
            return CarryDupacks(carry)
        self._end_episode()
        return None

    def _end_episode(self) -> None:
        self.sw_mark, self.sw_dupacks, self.carried = None, 0, False

    # ------------------------------------------------------------------ duplicate ACKs
    def on_dupack(self, view, seg, dupacks, *, now):
        if view.sack_ok or view.in_loss:
            return None
        if view.in_recovery:
            return self._recovery_dupack(view)
        if self.b2b_wait:
            # NR-B2B (002 §6.4): "the second recovery will be triggered by the next incoming
            # duplicate ACK" (entered here: RFC 6582 §3.2 step 2 would refuse it at ack = recover)
            self.b2b_wait -= 1
            return None if self.b2b_wait else ENTER_RECOVERY
        if dupacks == 1:
            self.sw_mark = view.snd_max if view.cwnd < SW_MAX * view.mss else None
        self.sw_dupacks, self.sw_una = dupacks, view.snd_una
        return None

    def _recovery_dupack(self, view: SenderView) -> RetransmitHead | None:
        self.ticks += 1                                     # 002 §6.2: a duplicate ACK, a tick
        if self.wait:
            # NR-OOO (002 §5.3): "the number of additional duplicate ACKs is 3 - D"
            self.wait -= 1
            return None if self.wait else self._resend_head(view)
        if self.ticks >= self.t_ref + self.round + REORDER_TICKS:
            # NR-LRX (002 §6.2): one RTT of ticks and three more, SND.UNA still not acked:
            # its retransmission was lost, send it "again"
            self.lrx_resends += 1
            self.lrx_last_ticks = self.ticks
            return self._resend_head(view)
        return None

    def _resend_head(self, view: SenderView) -> RetransmitHead:
        """Send SND.UNA now in place of the new segment this duplicate ACK releases (002 §5.1:
        one packet per ACK), and time it from here with W / 2 ticks per RTT (002 §6.1)."""
        self.t_ref, self.round = self.ticks, self.half
        return RetransmitHead(cwnd=max(view.mss, view.cwnd - view.mss))

    # ------------------------------------------------------------------ recovery
    def on_enter_recovery(self, view, prior_cwnd, prior_ssthresh, *, now):
        if view.sack_ok:
            return
        # NR-LRX (002 §6.1-6.2): T_ref = 3 at fast retransmit, the first RTT is W ticks
        self.ticks = self.t_ref = max(view.dupacks, DUPTHRESH)
        self.round = self._flight_before_early_sends(view) // view.mss
        self.half = self.round // 2
        self.marker = view.snd_max
        self.wait = self.b2b_wait = 0
        self.exiting = False

    def on_retransmit(self, view, start, end, last_sent_at, *, now):
        if view.in_recovery and not view.sack_ok:
            self.ticks += 1             # 002 §6.2: "one additional tick ... for each retransmission"
            self.marker = view.snd_max  # 002 §5.3 rule 1: the marker at snd_nxt

    def on_partial_ack(self, view, *, now):
        if view.sack_ok:
            return None                 # with a SACK peer, plain SACK (NR-LSSACK is not built)
        # NR-LRX (002 §6.2): a positive ACK leaving holes times the next unacked packet
        self.t_ref, self.round = self.ticks, self.half
        d = (self.marker - view.snd_una) // view.mss
        if d >= DUPTHRESH or not view.unsent:
            # NR-OOO (002 §5.3): D >= 3, the hole is a loss. NR-LSNR rule 1 (002 §5.1):
            # "this partial ACK does not cause more packets to be sent" than the retransmission
            self.wait = 0
            return RetransmitHead(cwnd=max(view.mss, min(view.cwnd, view.pipe)))
        # NR-OOO (002 §5.3): D < 3, "send a new packet" and wait for 3 - D duplicate ACKs
        self.wait = DUPTHRESH - d
        return SetCwnd(view.pipe + view.mss)

    def on_new_ack(self, view, *, now):
        if view.sack_ok:
            return None
        if view.in_recovery:
            self._end_episode()
            self.exiting = view.snd_una >= view.recovery_point
        elif view.in_loss:
            self._end_episode()
        else:
            cwnd = None
            if self.b2b_wait:
                # the segment NR-B2B suspected arrived after all: no second reduction, and
                # no more than the window of the full ACK (its one extra segment is sent)
                self.b2b_wait = 0
                cwnd = SetCwnd(min(view.cwnd, self.b2b_cwnd))
            if self.sw_mark is not None and self.sw_dupacks:
                carry = self._carry_dupacks(view)
                if carry is not None:
                    return carry if cwnd is None else (cwnd, carry)
            else:
                self._end_episode()
            return cwnd
        return None

    def on_ack(self, view, seg, prior_una, *, now):
        if not self.exiting:
            return None
        self.exiting = False
        # NR-LSNR rule 2 (002 §5.1): "at most one packet can be sent"; RFC 6582 §3.2 step 3
        # option (1), min(ssthresh, max(FlightSize, SMSS) + SMSS): at least two segments, so an
        # empty pipe does not restart from one segment that a delayed ACK holds back 200 ms
        cwnd = min(view.cwnd, max(view.flight_size, view.mss) + view.mss)
        if view.snd_una < self.marker:
            # NR-B2B (002 §6.4): data sent before the last retransmission is still missing
            d = (self.marker - view.snd_una) // view.mss
            self.b2b_wait = max(1, DUPTHRESH - d)
            self.b2b_cwnd = cwnd
            cwnd = view.flight_size + view.mss              # "send out a new packet"
        return SetCwnd(cwnd)

    def on_timeout(self, view, *, now):
        self._end_episode()
        self.wait = self.b2b_wait = 0
        self.exiting = False
