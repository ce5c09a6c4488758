"""TCP SACK with DSACK undo, and Blanton and Allman's DSACK-based dupthresh increases.

Detection: a DSACK block (RFC 2883 §4) covering data we retransmitted means the original
arrived too, i.e. the retransmission was unnecessary (RFC 3708). When DSACKs show that every
retransmission of a fast-recovery episode was unnecessary, the fast retransmit was false.

- ``dsack`` (Blanton and Allman's BL-R, [RRTCP] §5.1): restore cwnd and ssthresh to their values
  before the reduction ([RRTCP] §2, Figure 1: "the sender restores its old window"); dupthresh stays 3.
- ``dsack-inc`` (BL-INC with K = 1, [RRTCP] §5.1): BL-R, and each false fast retransmit raises
  dupthresh by one.
- ``dsack-avg`` (BL-AVG, [RRTCP] §5.1): BL-R, and each false fast retransmit sets dupthresh to the
  mean of itself and the number of duplicate ACKs that episode saw (how far the segment was
  displaced).

For the last two, as in Blanton and Allman's code that [RRTCP] compares against: dupthresh never
exceeds 90 % of cwnd (in segments) and a retransmission timeout resets it to 3. [RDTCP] §2 cites these
schemes ([10]) as "TCP using DSACK"; its Fig. 4 does not say which of them it ran.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hosts.tcp.variants.base import (DUPTHRESH, RESET_DUPTHRESH, Decisions, LossRecoveryPolicy,
                                     SenderView, SetDupthresh, Undo, chain, register)
from hosts.tcp.variants.spurious import FalseRecoveryUndo

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from netbase.segment import Segment

CWND_FRACTION_CAP = 0.9     # [RRTCP] §5.1: BL variants bound dupthresh by 0.9 * cwnd


def dupthresh_cap(view: SenderView) -> int:
    """The highest duplicate-ACK threshold a window of cwnd can still reach ([RRTCP] §5.1)."""
    return int(CWND_FRACTION_CAP * view.cwnd / view.mss)


@register
class DsackUndo(LossRecoveryPolicy):
    name = "dsack"

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.undo = FalseRecoveryUndo()             # the last fast-recovery episode's DSACKs
        self.episode_dupacks = 0                    # most dupacks seen since recovery began
        self.proved_false = False                   # the Undo returned is this episode's

    def on_dupack(self, view: SenderView, seg: Segment, dupacks: int, *, now: float) -> Decisions:
        if dupacks > self.episode_dupacks:
            self.episode_dupacks = dupacks
        return None

    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        self.undo.start(view, prior_cwnd, prior_ssthresh)
        self.episode_dupacks = view.dupacks

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        # a timeout's retransmissions are not undone (only the fast-retransmit reduction is)
        self.undo.cancel()
        return None

    def on_retransmit(self, view: SenderView, start: int, end: int, last_sent_at: float, *,
                      now: float) -> Decisions:
        self.undo.on_retransmit()
        return None

    def on_dsack(self, view: SenderView, start: int, end: int, retransmitted: bool, *,
                 now: float) -> Decisions:
        undo = self.undo.on_dsack(end, retransmitted)
        self.proved_false = undo is not None
        return undo

    def on_undo(self, view: SenderView, *, now: float) -> Decisions:
        if self.proved_false:
            self.proved_false = False
            return self.on_false_fast_retransmit(view, self.episode_dupacks, now=now)
        return None

    def on_false_fast_retransmit(self, view: SenderView, dupacks: int, *,
                                 now: float) -> Decisions:
        """Every retransmission of the last recovery was spurious and its window is restored;
        the episode saw ``dupacks`` duplicate ACKs (called from ``on_undo``, whose decisions
        these are). BL-R keeps dupthresh at 3."""
        return None


class BlantonAllmanUndo(DsackUndo):
    """Blanton and Allman's response to a false fast retransmit (BA02, the code [RRTCP] §5.7 ran
    for its BL schemes): not DSACK-R's immediate restore but ssthresh set back to the cwnd
    before the reduction, from which cwnd slow-starts back."""

    def on_dsack(self, view: SenderView, start: int, end: int, retransmitted: bool, *,
                 now: float) -> Decisions:
        undo = super().on_dsack(view, start, end, retransmitted, now=now)
        if not isinstance(undo, Undo):
            return undo                         # (None: nothing proved false)
        return Undo(view.cwnd, undo.cwnd)


class _DupthreshAdapting(BlantonAllmanUndo):
    @staticmethod
    def _set_dupthresh(view: SenderView, value: int) -> SetDupthresh:
        """dupthresh ``value``, within [3, 90 % of cwnd] ([RRTCP] §5.1)."""
        return SetDupthresh(max(DUPTHRESH, min(value, dupthresh_cap(view))))

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        # [RRTCP] §5.1: a timeout resets dupthresh to 3
        return chain(super().on_timeout(view, now=now), RESET_DUPTHRESH)


@register
class DsackInc(_DupthreshAdapting):
    name = "dsack-inc"

    def on_false_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> Decisions:
        return self._set_dupthresh(view, view.dupthresh + 1)


@register
class DsackAvg(_DupthreshAdapting):
    name = "dsack-avg"

    def on_false_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> Decisions:
        return self._set_dupthresh(view, (view.dupthresh + dupacks + 1) // 2)
