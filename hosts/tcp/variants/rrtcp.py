"""RR-TCP ([RRTCP], Zhang, Karp, Floyd and Peterson): a SACK sender that
measures how far its segments are displaced and sets dupthresh from that history.

- ``rrtcp-fa`` (DSACK-FA, [RRTCP] §4.2 on top of DSACK-R, §4.1 and Table 1): DSACK undo of a false
  fast retransmit (and of a false timeout, §4.3.1), every segment's reordering length measured
  from the ACK stream (§4.1.1) into a histogram of the last 80 s (§4.1.2), and dupthresh set to
  the FA-ratio percentile of that histogram plus one, the FA ratio fixed at 0.90 (Table 2).
  That dupthresh decides when fast retransmit starts; inside a recovery the engine marks holes
  lost at 3 SACKed segments above them, as for SACK (see ``RrTcpFa._apply``).
- ``rrtcp`` (DSACK-TA, §4.3, the form the paper recommends short of ES): DSACK-FA whose FA
  ratio adapts: +S on each false fast retransmit, -(C_TO/C_FFR)S on each timeout, and
  -(C_LT/C_FFR)S on each idle period after limited transmit ran out, when that cost exceeds
  C_FFR (§4.3.4, costs of §4.3.1-4.3.3).

The pieces are the paper's, in rrtcp_parts.py (measurement §4.1, dupthresh §4.2, costs and
the FA ratio's loop §4.3); the two variants compose them over the DSACK undo of dsack.py.
DSACK-ES and DSACK-HG are rrtcp_rtt.py, the -RTX forms rrtcp_rtx.py. Limited transmit's bound of
one cwnd (§2.3, Table 2) is the engine's, ``TcpConfig.limited_transmit_cwnds``, the same rule
for every sender; ``LimitedTransmitIdle`` reads it (and the windows) to tell when it ran out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hosts.tcp.variants.base import (DUPTHRESH, Decisions, SenderView, SetDupthresh,
                                     SpuriousTimeout, Undo, chain, register)
from hosts.tcp.variants.dsack import DsackUndo
from hosts.tcp.variants.rrtcp_parts import (FA_RATIO, FaRatioAdapter, FfrDuration,
                                            LimitedTransmitIdle, ReorderingHistogram,
                                            ReorderingSampler, WindowAverage, dupthresh_for,
                                            false_fast_retransmit_cost, limited_transmit_cost,
                                            srtt, timeout_cost)
from hosts.tcp.variants.spurious import FalseRetransmitDetector

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from netbase.segment import Segment

__all__ = ["ReorderingHistogram", "ReorderingSampler", "dupthresh_for", "timeout_cost",
           "false_fast_retransmit_cost", "limited_transmit_cost", "WindowAverage", "FfrDuration",
           "LimitedTransmitIdle", "FaRatioAdapter", "RrTcpFa", "RrTcp"]


@register
class RrTcpFa(DsackUndo):
    """DSACK-FA ([RRTCP] §4.2): DSACK-R's undo (dsack.py; an episode with a real loss among its
    retransmissions is not undone) plus a false timeout's undo, and dupthresh from the
    reordering histogram at a fixed FA ratio, bounded by 90 % of cwnd as the engine's other
    raised-dupthresh variants are ([RRTCP] §5.1) so that a loss can still draw enough dupacks."""

    name = "rrtcp-fa"
    observes_deliveries = True

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.histogram = ReorderingHistogram()
        self.sampler = ReorderingSampler(self.histogram)
        self.target = DUPTHRESH         # dupthresh_for(histogram, FA), before the cwnd bound
        self._basis: tuple | None = None    # (histogram.changes, FA) target was computed from
        self.cut_at: float | None = None    # when the last fast retransmit cut the window
        self.ffr_duration = FfrDuration()   # D
        # §4.3.1: "After a false timeout, when DSACK information returns, the pre-timeout
        # congestion window is restored"
        self.timeout_episode = FalseRetransmitDetector()
        self.timeout_prior: tuple[int, int] | None = None

    @property
    def fa_ratio(self) -> float:
        return FA_RATIO if self.config.fa_ratio is None else self.config.fa_ratio

    @property
    def fast_retransmit_threshold(self) -> int:
        """The duplicate ACKs fast retransmit waits for outside a recovery (§4.2)."""
        return max(DUPTHRESH, self.target)

    # -------------------------------------------------------------- dupthresh (§4.2)
    def _apply(self, view: SenderView) -> SetDupthresh | None:
        """The ``SetDupthresh`` of ``_dupthresh``, None when it is the one in force."""
        n = self._dupthresh(view)
        return None if n == view.dupthresh else SetDupthresh(n)

    def _dupthresh(self, view: SenderView) -> int:
        """dupthresh from the histogram and the FA ratio, recomputed when either changed
        (§4.2). Unlike Blanton and Allman's schemes it is not bounded by cwnd ([RRTCP] §5.7: that
        bound is what keeps them from avoiding longer reorderings); limited transmit's bound
        and, for DSACK-TA, the costs of idle periods and timeouts keep it in check.

        The raised value decides when to enter fast retransmit (§4.2: it is there to avoid
        false ones). Once a recovery runs, the engine's IsLost (RFC 6675 §4) uses the standard
        3, as the SACK baseline does: in the paper's ns-2 sack1 sender a recovery retransmits
        every hole below the highest SACK whatever dupthresh is (ScoreBoard::GetNextRetran),
        and a raised IsLost threshold leaves the holes near the top of a window of losses to
        the timer."""
        basis = (self.histogram.changes, self.fa_ratio)
        if basis != self._basis:
            self._basis = basis
            self.target = dupthresh_for(self.histogram, self.fa_ratio)
        if view.in_recovery or view.in_loss:
            return DUPTHRESH
        return self.fast_retransmit_threshold

    def _close_ack(self, view: SenderView, now: float) -> None:
        """The ACK's deliveries are all reported: take its sample (§4.1.1) and let old
        events go (§4.1.3's coarse timer, run on every ACK)."""
        self.sampler.ack_done(now, view.highest_sacked(), view.mss)
        self.histogram.expire(now)

    # -------------------------------------------------------------- hooks
    def on_delivered(self, view: SenderView, start: int, end: int, sent_at: float,
                     transmissions: int, *, now: float) -> None:
        self.sampler.delivered(start, end, transmissions)

    def on_dupack(self, view: SenderView, seg: Segment, dupacks: int, *, now: float) -> Decisions:
        super().on_dupack(view, seg, dupacks, now=now)      # (DsackUndo's: counts only)
        self._close_ack(view, now)
        return self._apply(view)    # before the engine compares dupacks with it

    def on_new_ack(self, view: SenderView, *, now: float) -> Decisions:
        self._close_ack(view, now)
        return None

    def on_ack(self, view: SenderView, seg: Segment, prior_una: int, *, now: float) -> Decisions:
        self._close_ack(view, now)
        return self._apply(view)

    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        super().on_enter_recovery(view, prior_cwnd, prior_ssthresh, now=now)
        self.cut_at = now           # §4.1: the fast retransmit's start time
        self.timeout_episode.cancel()

    def on_retransmit(self, view: SenderView, start: int, end: int, last_sent_at: float, *,
                      now: float) -> Decisions:
        self.timeout_episode.on_retransmit()
        return super().on_retransmit(view, start, end, last_sent_at, now=now)

    def on_dsack(self, view: SenderView, start: int, end: int, retransmitted: bool, *,
                 now: float) -> Decisions:
        if retransmitted:
            self.sampler.dsack(now, start, end, view.mss)
        decision = super().on_dsack(view, start, end, retransmitted, now=now)   # DSACK undo
        if self.timeout_episode.on_dsack(end, retransmitted):
            undo = self._undo_false_timeout(view)
            decision = chain(decision, undo)
        if decision is None:
            return self._apply(view)    # (an undo's on_undo sets it for the restored window)
        return decision

    def on_undo(self, view: SenderView, *, now: float) -> Decisions:
        # on_false_fast_retransmit, if the episode's, then dupthresh for the restored window
        return chain(super().on_undo(view, now=now), self._apply(view))

    def on_false_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> Decisions:
        if self.cut_at is not None:
            self.ffr_duration.sample(now - self.cut_at)         # §4.1, §4.3.2: D
            self.cut_at = None
        return None

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        first = not view.in_loss        # the first expiry of this episode, not a backoff
        decision = super().on_timeout(view, now=now)    # the fast-recovery episode is not judged
        self.cut_at = None
        if first:
            self.timeout_prior = (view.cwnd, view.ssthresh)     # before the engine's cut
            self.timeout_episode.start(view.snd_una)
            decision = chain(decision, self.on_timeout_episode(view, now=now))
        return decision

    def on_timeout_episode(self, view: SenderView, *, now: float) -> Decisions:
        """A retransmission timeout (once per episode). DSACK-FA's FA ratio is fixed."""
        return None

    def _undo_false_timeout(self, view: SenderView) -> SpuriousTimeout | Undo:
        assert self.timeout_prior is not None   # set with the episode (on_timeout)
        cwnd, ssthresh = self.timeout_prior
        self.timeout_prior = None
        if view.in_loss:
            # go-back-N still running: stop it, as the other spurious-timeout responses do
            return SpuriousTimeout(cwnd, ssthresh)
        return Undo(cwnd, ssthresh)


@register
class RrTcp(RrTcpFa):
    """DSACK-TA ([RRTCP] §4.3): DSACK-FA whose FA ratio adapts to the costs of false fast
    retransmits, timeouts and limited-transmit idle periods (§4.3.4), S = 0.01.

    W is an EWMA of the usable window once per RTT outside recovery, R the smoothed RTT, T the
    RTO that expired (the one in force at the last ACK: the engine has already backed the timer
    off when the hook runs), D the EWMA of false fast retransmit durations (R before the first)."""

    name = "rrtcp"

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.adapter = FaRatioAdapter(self.fa_ratio_first)
        self.window = WindowAverage()
        self.lt_idle = LimitedTransmitIdle(config.limited_transmit_cwnds)
        self.rto_in_force: float | None = None

    @property
    def fa_ratio(self) -> float:
        return self.adapter.ratio

    @property
    def fa_ratio_first(self) -> float:
        return FA_RATIO if self.config.fa_ratio is None else self.config.fa_ratio

    def _c_ffr(self, w: float, r: float) -> float:
        return false_fast_retransmit_cost(w, self.ffr_duration.get(r), r)

    def on_dupack(self, view: SenderView, seg: Segment, dupacks: int, *, now: float) -> Decisions:
        self.lt_idle.on_dupack(view)
        return super().on_dupack(view, seg, dupacks, now=now)

    def on_ack(self, view: SenderView, seg: Segment, prior_una: int, *, now: float) -> Decisions:
        decision = super().on_ack(view, seg, prior_una, now=now)
        self.window.on_ack(view, now)
        self.rto_in_force = view.rtt.rto
        period = self.lt_idle.on_ack(view, prior_una, self._dupthresh(view), now)
        if period is not None:
            idle, dupacks = period
            w, r = self.window.get(view), srtt(view)
            self.adapter.on_limited_transmit_idle(limited_transmit_cost(idle, r, w, dupacks),
                                                  self._c_ffr(w, r))
            decision = self._apply(view)    # the moved FA ratio's, in place of the one above
        return decision

    def on_false_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> Decisions:
        decision = super().on_false_fast_retransmit(view, dupacks, now=now)
        self.adapter.on_false_fast_retransmit()
        return decision

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        self.lt_idle.on_timeout()
        return super().on_timeout(view, now=now)

    def on_timeout_episode(self, view: SenderView, *, now: float) -> Decisions:
        w, r = self.window.get(view), srtt(view)
        t = self.rto_in_force or view.rtt.rto
        self.adapter.on_timeout(timeout_cost(w, t, r), self._c_ffr(w, r))
        return self._apply(view)
