"""RD-TCP ([RDTCP] §3, §3.1): EPDN stamps tell the receiver which gaps are
drops; the receiver marks ACKs whose hole it believes reordered; the sender waits 3+k
duplicate ACKs for those.

The paper numbers packets; EPDN stamps carry byte ranges (docs/architecture.md §4), so the reordered list
and the drop list are byte ranges: [drop_lo, drop_hi) is the stamp, "PNO_k" the end of the
highest byte received (Receiver.highest) and "PNO_i" the arriving segment [start, end).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hosts.tcp.ranges import RangeSet
from hosts.tcp.variants.base import (DUPTHRESH, RESET_DUPTHRESH, Decisions, LossRecoveryPolicy,
                                     ReceiverView, SenderView, SetDupthresh, chain, register)
from hosts.tcp.variants.dsack import dupthresh_cap
from hosts.tcp.variants.spurious import FalseRecoveryUndo, FalseRetransmitDetector

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from netbase.segment import Segment


@register
class RdTcp(LossRecoveryPolicy):
    name = "rdtcp"

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.k = config.rdtcp_k
        self.waiting = False          # sender: waiting for 3+k dupacks on a reordered hole
        self.reordered = RangeSet()   # receiver: [RDTCP] §3.1 "reordered list"
        self.dropped = RangeSet()     # receiver: [RDTCP] §3.1 "drop list"

    # ------------------------------------------------------------------------ sender, [RDTCP] §3.1
    # "TCP Sender: Processing the acknowledgements"
    def on_dupack(self, view: SenderView, seg: Segment, dupacks: int, *, now: float) -> Decisions:
        if dupacks == DUPTHRESH and view.rdtcp_ok and seg.reorder:
            # the ACK making the third dupack has the reorder bit: wait for k more, "3+k"
            self.waiting = True
            return SetDupthresh(DUPTHRESH + self.wait_k(view))
        if self.waiting and not seg.reorder:
            # a later dupack lacks the bit: the packet could have been dropped, retransmit now
            self.waiting = False
            return RESET_DUPTHRESH
        return None

    def wait_k(self, view: SenderView) -> int:
        """How many duplicate ACKs beyond three to wait for on a hole marked reordered."""
        return self.k

    def on_new_ack(self, view: SenderView, *, now: float) -> Decisions:
        if not self.waiting:                # (every new ACK: _stop_waiting, inline)
            return None
        self.waiting = False
        return RESET_DUPTHRESH

    def _stop_waiting(self) -> Decisions:
        """The wait is over: dupthresh 3 again (it is 3+k only while waiting)."""
        if not self.waiting:
            return None
        self.waiting = False
        return RESET_DUPTHRESH

    def timeout_enters_recovery(self, view: SenderView, *, now: float) -> bool:
        # "If the timer runs out while waiting for '3+k' dupacks ..., then the sender assumes
        # that the packet has been dropped, retransmits the packet and enters fast recovery."
        # The rest of "that particular gap" is then retransmitted "after receiving 3 dupacks":
        # on_timeout returns dupthresh 3 again, so the engine's IsLost (RFC 6675 §4) marks every
        # hole with 3 SACKed segments above it during that recovery.
        return self.waiting

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        return self._stop_waiting()

    # ---------------------------------------------------------------------- receiver, [RDTCP] §3.1
    # "TCP receiver: Processing data packets"
    def on_data(self, rcv: ReceiverView, start: int, end: int,
                stamp: tuple[int, int] | None, *, now: float) -> None:
        high = rcv.highest                                  # PNO_k before this segment
        if stamp is not None:
            lo, hi = stamp
            self.reordered.remove(lo, hi)                   # reported dropped, not reordered
            # the part of the dropped range not yet reached goes to the drop list "for future
            # references" (beyond PNO_i, or beyond PNO_k when the segment fills a hole)
            self.dropped.add(max(lo, end, high), hi)
        if start > high:
            # PNO_i > PNO_k: the new hole [PNO_k, PNO_i) is reordering unless it is in the drop
            # list or the stamp reports it dropped
            self._mark_reordered(rcv, high, start, stamp)
        elif stamp is not None:
            lo, hi = stamp
            if lo > high:       # gap between PNO_k and min:PNO_i
                self._mark_reordered(rcv, high, lo, stamp)
            if hi < start:      # gap between max:PNO_i and PNO_i
                self._mark_reordered(rcv, hi, start, stamp)
        # "PNO_i is in the reordered list: delete it"; done last, so that the gaps marked above
        # never include PNO_i itself ([RDTCP] §3.1 note: PNO_i and PNO_k are not inserted)
        self.reordered.remove(start, end)
        floor = min(rcv.rcv_nxt, start)
        self.dropped.drop_below(floor)

    def _mark_reordered(self, rcv: ReceiverView, start: int, end: int,
                        stamp: tuple[int, int] | None) -> None:
        excluded = [self.dropped, rcv.ooo]
        if stamp is not None:
            rs = RangeSet()
            rs.add(*stamp)
            excluded.append(rs)
        for s, e in self.reordered.minus(max(start, rcv.rcv_nxt), end, *excluded):
            self.reordered.add(s, e)

    # "TCP receiver: Sending acknowledgements": the reorder bit is set when the data the ACK
    # asks for next (the byte after the last in-order one) is in the reordered list.
    def ack_reorder_bit(self, rcv: ReceiverView, *, now: float) -> bool:
        self.reordered.drop_below(rcv.rcv_nxt)
        return self.reordered.contains(rcv.rcv_nxt)


@register
class RdTcpAdaptiveK(RdTcp):
    """RD-TCP whose k grows while its waits prove too short: the extension [RDTCP] §3 sketches
    and leaves to further research ("if the TCP sender detects spurious retransmits even though
    it has incremented the value of 'k', then the sender can further increase the value of 'k'",
    citing Blanton and Allman [10], whose BL-INC raises dupthresh by one per false fast
    retransmit, [RRTCP] §5.1).

    Rules, as BL-INC's applied to k: a fast-recovery episode entered after waiting for 3+k
    duplicate ACKs (a hole the receiver marked reordered) whose every retransmission the peer
    then reports by DSACK raises k by one; a retransmission timeout puts k back to its
    configured value. The wait is bounded when it is used, by 90 % of cwnd in segments ([RRTCP]
    §5.1's bound, so that a real loss can still gather enough duplicate ACKs), as
    ``rdtcp-measured``'s is: bounding k itself when it is raised, right after the reduction the
    false fast retransmit caused, would undo the raise whenever the halved window is small. Episodes entered at 3 duplicate ACKs (no
    reorder bit, or EPDN reported a drop) say nothing about k and are not watched. There is no
    window undo: RD-TCP's reduction stands, as in the paper.
    """

    name = "rdtcp-adaptive"

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.k_configured = self.k
        self.episode = FalseRetransmitDetector()

    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        if self.waiting:
            self.episode.start(view.snd_una)
        else:
            self.episode.cancel()

    def on_retransmit(self, view: SenderView, start: int, end: int, last_sent_at: float, *,
                      now: float) -> Decisions:
        self.episode.on_retransmit()
        return None

    def on_dsack(self, view: SenderView, start: int, end: int, retransmitted: bool, *,
                 now: float) -> Decisions:
        if self.episode.on_dsack(end, retransmitted):
            self.k += 1
        return None

    def wait_k(self, view: SenderView) -> int:
        cap = dupthresh_cap(view) - DUPTHRESH
        return max(self.k_configured, min(self.k, cap))

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        self.episode.cancel()
        self.k = self.k_configured
        return super().on_timeout(view, now=now)


@register
class RdTcpMeasuredK(RdTcp):
    """RD-TCP whose k is set from the amount of reordering measured, the other form of [RDTCP] §3's
    proposal ("The TCP receiver can detect the amount of reordering present in the network and
    can inform the sender about this amount, which in turn can set the value of 'k' based on
    that value"; §7's first item of further work).

    The amount is how many later segments overtook the reordered one: the number of duplicate
    ACKs its hole drew before it arrived. With an ACK for every segment (this engine
    acknowledges each out-of-order segment at once, RFC 5681 §4.2) the sender counts exactly
    the duplicate ACKs the receiver sent for the hole, so it measures the amount itself and no
    option is needed to carry it. A hole filled before 3+k duplicate ACKs needs no change. For
    a hole retransmitted after waiting 3+k, the count goes on until the first ACK that advances
    (the hole filled); when a DSACK then reports that retransmission as a duplicate (RFC 2883
    §4: the original arrived as well, after that many segments had overtaken it), k is raised so
    that 3+k is one above the count and the same displacement is waited out next time. Linux
    raises tp->reordering to the distance it measures in the same way (tcp_check_sack_reordering).

    k never falls on a measurement; a retransmission timeout puts it back to its configured
    value (as BL-INC resets dupthresh, [RRTCP] §5.1). The wait is bounded when it is used, by 90 % of
    cwnd in segments ([RRTCP] §5.1's bound, so that a hole can still gather enough duplicate ACKs),
    and k remembers the measured amount even while a reduced cwnd could not produce it.
    """

    name = "rdtcp-measured"

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.k_configured = self.k
        self.hole: int | None = None    # start of the hole last retransmitted after 3+k dupacks
        self.counting = False           # that hole is not yet filled
        self.overtaken = 0              # duplicate ACKs it drew so far

    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        # only a wait of 3+k measures anything: at 3 dupacks the gateway reported a drop
        self.hole = view.snd_una if self.waiting else None
        self.counting = self.waiting
        self.overtaken = view.dupacks

    def on_dupack(self, view: SenderView, seg: Segment, dupacks: int, *, now: float) -> Decisions:
        if self.counting:
            self.overtaken = dupacks
        return super().on_dupack(view, seg, dupacks, now=now)

    def on_new_ack(self, view: SenderView, *, now: float) -> Decisions:
        self.counting = False
        return super().on_new_ack(view, now=now)

    def on_dsack(self, view: SenderView, start: int, end: int, retransmitted: bool, *,
                 now: float) -> Decisions:
        if retransmitted and self.hole is not None and start <= self.hole < end:
            self.k = max(self.k, self.overtaken + 1 - DUPTHRESH)
            self.hole = None
        return None

    def wait_k(self, view: SenderView) -> int:
        cap = dupthresh_cap(view) - DUPTHRESH
        return max(self.k_configured, min(self.k, cap))

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        self.hole = None
        self.counting = False
        self.k = self.k_configured
        return super().on_timeout(view, now=now)


@register
class RdTcpMeasuredKUndo(RdTcpMeasuredK):
    """``rdtcp-measured`` that also undoes a false fast retransmit: when DSACKs show every
    retransmission of a fast-recovery episode unnecessary, cwnd and ssthresh go back to their
    values before it (DSACK undo, RFC 3708 detection, [RRTCP] §2's response), the same DSACK that
    raises k.

    Why: learning k costs one false fast retransmit per new, larger displacement (k is raised
    only after a wait proved too short), and without undo each of them halves the window; early
    in a transfer, in slow start or while cwnd is below twice the path's BDP, that idles the
    bottleneck. Raising the threshold from measurements and undoing false reductions is the
    pairing Linux uses (tcp_check_sack_reordering raises tp->reordering, tcp_try_undo_dsack
    restores the window); neither half alone suffices under the figures' swap model (see
    experiments/README.md: ``dsack`` undoes but keeps dupthresh 3; ``rdtcp-measured`` raises k
    but keeps every cut). Every episode is watched, as ``dsack``'s are: one entered at 3
    duplicate ACKs for a drop EPDN reported is never DSACKed whole, so it is never undone.
    """

    name = "rdtcp-measured-undo"

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.undo = FalseRecoveryUndo()

    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        super().on_enter_recovery(view, prior_cwnd, prior_ssthresh, now=now)
        self.undo.start(view, prior_cwnd, prior_ssthresh)

    def on_retransmit(self, view: SenderView, start: int, end: int, last_sent_at: float, *,
                      now: float) -> Decisions:
        self.undo.on_retransmit()
        return None

    def on_dsack(self, view: SenderView, start: int, end: int, retransmitted: bool, *,
                 now: float) -> Decisions:
        learnt = super().on_dsack(view, start, end, retransmitted, now=now)   # k from the amount
        return chain(learnt, self.undo.on_dsack(end, retransmitted))

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        self.undo.cancel()
        return super().on_timeout(view, now=now)
