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

from hosts.tcp.variants.base import DUPTHRESH, LossRecoveryPolicy, register

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
    def _flight_before_early_sends(self, conn) -> int:
        """FlightSize without the segments sent on duplicate ACKs ("the inflated congestion
        window should be deflated back for computing the slow start threshold"); across a
        carried positive ACK the engine no longer knows where the episode began."""
        flight = conn.flight_size_before_limited_transmit
        if self.carried and self.sw_mark is not None:
            flight = min(flight, max(0, self.sw_mark - conn.snd_una))
        return flight

    def ssthresh_after_loss(self, conn) -> int:
        if conn.sack_ok:
            return super().ssthresh_after_loss(conn)
        return max(self._flight_before_early_sends(conn) // 2, 2 * conn.mss)  # RFC 5681 eq. (4)

    def _carry_dupacks(self, conn) -> None:
        """002 §4.2: a positive ACK for k packets before the third duplicate ACK, j packets
        sent early: k >= j clears dupacks; else dupacks -= k, "as if the next unacknowledged
        packet is now receiving duplicate ACKs" (the window moved less than the ACKs seen)."""
        k = -(-(conn.snd_una - self.sw_una) // conn.mss)
        j = (conn.snd_max - self.sw_mark) // conn.mss
        carry = self.sw_dupacks - k
        if k < j and carry > 0:
            conn.carry_dupacks(carry)
            self.sw_dupacks, self.sw_una, self.carried = carry, conn.snd_una, True
        else:
            self._end_episode()

    def _end_episode(self) -> None:
        self.sw_mark, self.sw_dupacks, self.carried = None, 0, False

    # ------------------------------------------------------------------ duplicate ACKs
    def on_dupack(self, conn, seg, dupacks: int) -> None:
        if conn.sack_ok or conn.in_loss:
            return
        if conn.in_recovery:
            self._recovery_dupack(conn)
        elif self.b2b_wait:
            # NR-B2B (002 §6.4): "the second recovery will be triggered by the next incoming
            # duplicate ACK" (entered here: RFC 6582 §3.2 step 2 would refuse it at ack = recover)
            self.b2b_wait -= 1
            if not self.b2b_wait:
                conn.enter_recovery()
        else:
            if dupacks == 1:
                self.sw_mark = conn.snd_max if conn.cwnd < SW_MAX * conn.mss else None
            self.sw_dupacks, self.sw_una = dupacks, conn.snd_una

    def _recovery_dupack(self, conn) -> None:
        self.ticks += 1                                     # 002 §6.2: a duplicate ACK, a tick
        if self.wait:
            # NR-OOO (002 §5.3): "the number of additional duplicate ACKs is 3 - D"
            self.wait -= 1
            if not self.wait:
                self._resend_head(conn)
            return
        if self.ticks >= self.t_ref + self.round + REORDER_TICKS:
            # NR-LRX (002 §6.2): one RTT of ticks and three more, SND.UNA still not acked:
            # its retransmission was lost, send it "again"
            self.lrx_resends += 1
            self.lrx_last_ticks = self.ticks
            self._resend_head(conn)

    def _resend_head(self, conn) -> None:
        """Send SND.UNA now in place of the new segment this duplicate ACK releases (002 §5.1:
        one packet per ACK), and time it from here with W / 2 ticks per RTT (002 §6.1)."""
        conn.retransmit_head()
        conn.cwnd = max(conn.mss, conn.cwnd - conn.mss)
        self.t_ref, self.round = self.ticks, self.half

    # ------------------------------------------------------------------ recovery
    def on_enter_recovery(self, conn, prior_cwnd: int, prior_ssthresh: int) -> None:
        if conn.sack_ok:
            return
        # NR-LRX (002 §6.1-6.2): T_ref = 3 at fast retransmit, the first RTT is W ticks
        self.ticks = self.t_ref = max(conn.dupacks, DUPTHRESH)
        self.round = self._flight_before_early_sends(conn) // conn.mss
        self.half = self.round // 2
        self.marker = conn.snd_max
        self.wait = self.b2b_wait = 0
        self.exiting = False

    def on_retransmit(self, conn, start: int, end: int) -> None:
        if conn.in_recovery and not conn.sack_ok:
            self.ticks += 1             # 002 §6.2: "one additional tick ... for each retransmission"
            self.marker = conn.snd_max  # 002 §5.3 rule 1: the marker at snd_nxt

    def retransmit_on_partial_ack(self, conn) -> bool:
        if conn.sack_ok:
            return True
        # NR-LRX (002 §6.2): a positive ACK leaving holes times the next unacked packet
        self.t_ref, self.round = self.ticks, self.half
        d = (self.marker - conn.snd_una) // conn.mss
        if d >= DUPTHRESH or not conn.unsent:
            # NR-OOO (002 §5.3): D >= 3, the hole is a loss. NR-LSNR rule 1 (002 §5.1):
            # "this partial ACK does not cause more packets to be sent" than the retransmission
            self.wait = 0
            conn.cwnd = max(conn.mss, min(conn.cwnd, conn.pipe))
            return True
        # NR-OOO (002 §5.3): D < 3, "send a new packet" and wait for 3 - D duplicate ACKs
        self.wait = DUPTHRESH - d
        conn.cwnd = conn.pipe + conn.mss
        return False

    def on_new_ack(self, conn) -> None:
        if conn.sack_ok:
            return
        if conn.in_recovery:
            self._end_episode()
            self.exiting = conn.snd_una >= conn.recovery_point
        elif conn.in_loss:
            self._end_episode()
        else:
            if self.b2b_wait:
                # the segment NR-B2B suspected arrived after all: no second reduction, and
                # no more than the window of the full ACK (its one extra segment is sent)
                self.b2b_wait = 0
                conn.cwnd = min(conn.cwnd, self.b2b_cwnd)
            if self.sw_mark is not None and self.sw_dupacks:
                self._carry_dupacks(conn)
            else:
                self._end_episode()

    def on_ack(self, conn, seg, prior_una: int) -> None:
        if not self.exiting:
            return
        self.exiting = False
        # NR-LSNR rule 2 (002 §5.1): "at most one packet can be sent"; RFC 6582 §3.2 step 3
        # option (1), min(ssthresh, max(FlightSize, SMSS) + SMSS): at least two segments, so an
        # empty pipe does not restart from one segment that a delayed ACK holds back 200 ms
        conn.cwnd = min(conn.cwnd, max(conn.flight_size, conn.mss) + conn.mss)
        if conn.snd_una < self.marker:
            # NR-B2B (002 §6.4): data sent before the last retransmission is still missing
            d = (self.marker - conn.snd_una) // conn.mss
            self.b2b_wait = max(1, DUPTHRESH - d)
            self.b2b_cwnd = conn.cwnd
            conn.cwnd = conn.flight_size + conn.mss         # "send out a new packet"

    def on_timeout(self, conn) -> None:
        self._end_episode()
        self.wait = self.b2b_wait = 0
        self.exiting = False
