"""Blanton and Allman's remaining DSACK schemes, as [RRTCP] describes them (§3, §5.7): BL-EWMA,
BL-TIMEDEL and BL-TIMEINC. BL-R, BL-INC and BL-AVG are dsack.py's ``dsack``, ``dsack-inc`` and
``dsack-avg``; all six share DSACK undo (``DsackUndo``: a fast retransmit whose every
retransmission a DSACK shows unnecessary is false, and its window reduction is undone).

- ``dsack-ewma`` (BL-EWMA): "setting dupthresh to an exponentially weighted moving average of
  the number of duplicate ACKs received", the count of each false fast retransmit's episode;
  bounded by 90 % of cwnd and reset to 3 by a timeout, as BL-INC and BL-AVG.
- ``dsack-timedel`` (BL-TIMEDEL) and ``dsack-timeinc`` (BL-TIMEINC): dupthresh stays 3, but the
  fast retransmit waits for a timer started at the episode's first duplicate ACK. TIMEDEL sets
  the timer to the time from the first duplicate ACK to the first ACK for the delayed segment,
  measured on each false fast retransmit; TIMEINC lengthens it by 10 ms on each. "The maximum
  value the timer can reach is half TCP's smoothed round-trip time estimate, and the timer is
  never reduced in its length." A cumulative ACK before the timer runs out ends the episode
  with no fast retransmit.
"""

from __future__ import annotations

import abc
import math
from typing import TYPE_CHECKING

from hosts.tcp.variants.base import DUPTHRESH, ENTER_RECOVERY, Decisions, SenderView, register
from hosts.tcp.variants.dsack import BlantonAllmanUndo, _DupthreshAdapting

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from netbase.segment import Segment

__all__ = ["DsackEwma", "DsackTimeDel", "DsackTimeInc", "EWMA_GAIN", "TIMEINC_STEP"]

# [RRTCP] does not give BL-EWMA's gain; 1/8, the gain TCP's own EWMAs use
# (RFC 6298's alpha)
EWMA_GAIN = 1 / 8
TIMEINC_STEP = 0.010    # [RRTCP] §3: "a constant value (10 ms in their simulations)"


@register
class DsackEwma(_DupthreshAdapting):
    name = "dsack-ewma"

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.average = float(DUPTHRESH)

    def on_false_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> Decisions:
        self.average += EWMA_GAIN * (dupacks - self.average)
        return self._set_dupthresh(view, math.ceil(self.average))

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        self.average = float(DUPTHRESH)         # the reset forgets the history too
        return super().on_timeout(view, now=now)


class _DelayedFastRetransmit(BlantonAllmanUndo, metaclass=abc.ABCMeta):
    """A fast retransmit delayed by a timer that grows after false ones (BL-TIMEDEL/INC). A
    scheme is the rule ``_longer``: a subclass without it cannot be instantiated."""

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.delay = 0.0                    # the timer's length, never reduced
        self.first_dupack_at: float | None = None   # this episode's first duplicate ACK
        self.due: float | None = None       # when the waiting fast retransmit may go
        self.episode_first_dupack: float | None = None  # of the last fast retransmit's episode
        self.hole_acked_at: float | None = None     # the first ACK for its segment

    def _timer(self, view: SenderView) -> float:
        srtt = view.rtt.srtt
        return self.delay if srtt is None else min(self.delay, srtt / 2)

    def on_dupack(self, view: SenderView, seg: Segment, dupacks: int, *, now: float) -> Decisions:
        if dupacks == 1:
            self.first_dupack_at = now
        return super().on_dupack(view, seg, dupacks, now=now)

    def should_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> bool:
        if dupacks < view.dupthresh:
            return False
        start = self.first_dupack_at if self.first_dupack_at is not None else now
        go_at = start + self._timer(view)
        if now >= go_at:
            self.due = None
            return True
        self.due = go_at
        return False

    def deadline(self) -> float | None:
        return self.due

    def on_deadline(self, view: SenderView, *, now: float) -> Decisions:
        self.due = None
        if view.dupacks >= view.dupthresh and not view.in_recovery and not view.in_loss:
            return ENTER_RECOVERY
        return None

    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        super().on_enter_recovery(view, prior_cwnd, prior_ssthresh, now=now)
        self.due = None
        self.episode_first_dupack = self.first_dupack_at
        self.hole_acked_at = None

    def on_new_ack(self, view: SenderView, *, now: float) -> Decisions:
        self.due = None                     # the episode ended before the timer did
        self.first_dupack_at = None
        if self.episode_first_dupack is not None and self.hole_acked_at is None:
            self.hole_acked_at = now
        return None

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        self.due = None
        return super().on_timeout(view, now=now)

    def on_false_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> Decisions:
        srtt = view.rtt.srtt
        longer = self._longer(view)
        if srtt is not None:
            longer = min(longer, srtt / 2)      # the timer's maximum
        self.delay = max(self.delay, longer)    # never reduced
        return None

    @abc.abstractmethod
    def _longer(self, view: SenderView) -> float:
        """The timer's length after a false fast retransmit, before its bound (half the smoothed
        RTT) and before it is kept from shrinking."""


@register
class DsackTimeDel(_DelayedFastRetransmit):
    name = "dsack-timedel"

    def _longer(self, view: SenderView) -> float:
        if self.episode_first_dupack is None or self.hole_acked_at is None:
            return self.delay
        return self.hole_acked_at - self.episode_first_dupack


@register
class DsackTimeInc(_DelayedFastRetransmit):
    name = "dsack-timeinc"

    def _longer(self, view: SenderView) -> float:
        return self.delay + TIMEINC_STEP
