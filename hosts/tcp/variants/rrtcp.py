"""RR-TCP (seeds/000-rr-tcp-dsack.txt, Zhang, Karp, Floyd and Peterson): a SACK sender that
measures how far its segments are displaced and sets dupthresh from that history.

- ``rrtcp-fa`` (DSACK-FA, 000 §4.2 on top of DSACK-R, §4.1 and Table 1): DSACK undo of a false
  fast retransmit (and of a false timeout, §4.3.1), every segment's reordering length measured
  from the ACK stream (§4.1.1) into a histogram of the last 80 s (§4.1.2), and dupthresh set to
  the FA-ratio percentile of that histogram plus one, the FA ratio fixed at 0.90 (Table 2).
  That dupthresh decides when fast retransmit starts; inside a recovery the engine marks holes
  lost at 3 SACKed segments above them, as for SACK (see ``RrTcpFa._apply``).
- ``rrtcp`` (DSACK-TA, §4.3, the form the paper recommends short of ES): DSACK-FA whose FA
  ratio adapts: +S on each false fast retransmit, -(C_TO/C_FFR)S on each timeout, and
  -(C_LT/C_FFR)S on each idle period after limited transmit ran out, when that cost exceeds
  C_FFR (§4.3.4, costs of §4.3.1-4.3.3).

The pieces are the paper's: ``ReorderingSampler`` (§4.1.1), ``ReorderingHistogram`` (§4.1.2),
``dupthresh_for`` (§4.2), the three cost functions (§4.3.1-4.3.3), ``WindowAverage`` and
``FfrDuration`` (their W and D), ``LimitedTransmitIdle`` (§4.3.3's idle period) and
``FaRatioAdapter`` (§4.3.4). The two variants compose them over the DSACK undo of dsack.py.

The paper counts packets; the engine counts bytes. A reordering length is the distance in
bytes between the end of the highest segment ACKed or SACKed before the ACK and the end of the
segment it reports, in MSS-sized packets (rounded up: with full-sized segments it is exact).

Not done, for want of a hook (hosts/tcp/variants/__init__.py lists them):
- DSACK-ES (§4.4, the RTT sample mean(t_ack1 - t_orig, t_dsack - t_rtx) of a DSACKed
  retransmission) needs the original transmission's send time; the hooks only give the latest
  (``on_delivered``'s ``sent_at``), so it needs e.g. ``on_retransmit`` to pass the send time it
  replaces.
- Limited transmit bounded to one cwnd beyond cwnd (§2.3, Table 2): the engine's limited
  transmit is RFC 6675's, one new segment per duplicate ACK with no bound but the peer's window,
  and no hook limits new data outside an RTO. So limited transmit "runs out" here when the
  peer's window is full, which is when ``LimitedTransmitIdle`` starts an idle period; k_LT of
  C_TO stays the paper's 1.
"""

from __future__ import annotations

import math
from collections import deque

from hosts.tcp.variants.base import DUPTHRESH, SenderView, SpuriousTimeout, Undo, register
from hosts.tcp.variants.dsack import DsackUndo, dupthresh_cap
from hosts.tcp.variants.spurious import FalseRetransmitDetector

__all__ = ["ReorderingHistogram", "ReorderingSampler", "dupthresh_for", "timeout_cost",
           "false_fast_retransmit_cost", "limited_transmit_cost", "WindowAverage", "FfrDuration",
           "LimitedTransmitIdle", "FaRatioAdapter", "RrTcpFa", "RrTcp"]

HISTORY_LIFETIME = 80.0     # Table 2: reordering events are kept 80 s
HISTORY_EVENTS = 1000       # §4.1.3: the histogram stores up to 1000 events
MAX_LENGTH = 63             # §4.1.3: 6 bits per packet, lengths 1..63
MAX_DUPTHRESH = 64          # §4.2 / Table 2: so dupthresh lies in [3, 64]
FA_RATIO = 0.90             # Table 2: the initial (DSACK-FA: fixed) FA ratio
FA_STEP = 0.01              # §4.3.4: S
EWMA_GAIN = 1 / 8           # §4.3.2's D (Table 2's alpha); W likewise (digest 000 §5 item 9)
LT_CWNDS = 1                # §2.3, Table 2: limited transmit sends at most k = 1 cwnd; k in C_TO


# ------------------------------------------------------------------------------- §4.1.2
class ReorderingHistogram:
    """Reordering lengths seen in the last ``lifetime`` seconds, at most ``capacity`` of them
    (§4.1.2-4.1.3). Each event is timestamped; the oldest are dropped on every insertion and
    whenever ``expire`` is called (the paper's coarse timer: the sender calls it on each ACK).
    Lengths above ``max_length`` count as ``max_length``."""

    def __init__(self, *, lifetime: float = HISTORY_LIFETIME, capacity: int = HISTORY_EVENTS,
                 max_length: int = MAX_LENGTH):
        self.lifetime, self.capacity, self.max_length = lifetime, capacity, max_length
        self.events: deque[tuple[float, int]] = deque()     # (time, length), oldest first
        self.counts = [0] * (max_length + 1)                # counts[L]: events of length L
        self.changes = 0                                    # bumped on every insertion/removal

    def __len__(self) -> int:
        return len(self.events)

    def lengths(self) -> list[int]:
        """The lengths held, oldest first."""
        return [length for _, length in self.events]

    def add(self, now: float, length: int) -> None:
        if length < 1:
            raise ValueError(f"a reordering length is at least 1, got {length}")
        self.expire(now)
        length = min(length, self.max_length)
        self.events.append((now, length))
        self.counts[length] += 1
        self.changes += 1
        if len(self.events) > self.capacity:
            self._pop_oldest()

    def expire(self, now: float) -> bool:
        """Drop events older than the lifetime; True when any was dropped."""
        events, horizon = self.events, now - self.lifetime
        dropped = False
        while events and events[0][0] < horizon:
            self._pop_oldest()
            dropped = True
        return dropped

    def _pop_oldest(self) -> None:
        _, length = self.events.popleft()
        self.counts[length] -= 1
        self.changes += 1

    def percentile(self, ratio: float) -> int | None:
        """The smallest length L whose cumulative share of the events is at least ``ratio``
        (§4.2: "if 90% of reordering events are of 8 packets or fewer" -> 8); None if empty."""
        total = len(self.events)
        if not total:
            return None
        need = ratio * total - 1e-9         # FA moves in steps of 0.01: no float residue
        seen = 0
        for length in range(1, self.max_length + 1):
            seen += self.counts[length]
            if seen >= need:
                return length
        return self.max_length


def dupthresh_for(histogram: ReorderingHistogram, fa_ratio: float) -> int:
    """§4.2 (DSACK-FA): dupthresh = the FA-ratio percentile of the reordering lengths + 1, so
    that that share of the reorderings draws fewer duplicate ACKs than dupthresh; in [3, 64],
    3 while nothing was measured."""
    length = histogram.percentile(fa_ratio)
    if length is None:
        return DUPTHRESH
    return max(DUPTHRESH, min(length + 1, MAX_DUPTHRESH))


# ------------------------------------------------------------------------------- §4.1.1
class ReorderingSampler:
    """One packet's reordering length from the ACK stream (§4.1.1, Figure 2).

    For each ACK: m is the end of the highest data ACKed or SACKed before it; the segments it
    newly ACKs or SACKs are reported one by one (``delivered``). If exactly one is (n == 1),
    its reordering length is m - h in packets, h its end; a sample >= 1 is a reordering
    (in-order and new-highest arrivals give <= 0). An ACK newly covering several segments
    (a lost, reordered or delayed ACK before it) gives no sample: this is what makes the
    measurement robust to ACK reordering (§4.1.1, §5.4). Duplicate-ACK counts are not used.

    A retransmitted segment is ambiguous: its sample is kept aside, and inserted only when a
    DSACK shows both copies arrived; then the first ACK is paired with the original, the DSACK
    with the retransmission, and their mean goes in (-MEAN, §4.1.1-4.1.2). Without a DSACK it
    was a loss and gives no sample. The mean is rounded up (the paper calls it conservative).
    """

    def __init__(self, histogram: ReorderingHistogram):
        self.histogram = histogram
        self.highest = 0                # m: end of the highest data ACKed or SACKed so far
        self._acked: list[tuple[int, int, int]] = []  # this ACK's newly covered (start, end, tx)
        # retransmitted segments whose first ACK gave a length, waiting for a DSACK:
        # start -> (end, length, time), oldest first (the paper's per-segment scoreboard field)
        self.pending: dict[int, tuple[int, int, float]] = {}

    @staticmethod
    def packets(nbytes: int, mss: int) -> int:
        return -(-nbytes // mss)

    def delivered(self, start: int, end: int, transmissions: int) -> None:
        """[start, end) was newly ACKed or SACKed by the ACK being processed."""
        self._acked.append((start, end, transmissions))

    def ack_done(self, now: float, highest: int, mss: int) -> int | None:
        """The ACK is processed (``highest``: the end of the highest data ACKed or SACKed
        now). Returns the length recorded in the histogram, if any. Calling it again for the
        same ACK does nothing."""
        acked, self._acked = self._acked, []
        sample = None
        if len(acked) == 1:
            start, end, transmissions = acked[0]
            length = self.packets(self.highest - end, mss)
            if transmissions > 1:
                self.pending.pop(start, None)       # keep the newest retransmission's entry
                self.pending[start] = (end, length, now)
            elif length >= 1:
                self.histogram.add(now, length)
                sample = length
        self.highest = max(self.highest, highest)
        self._expire_pending(now)
        return sample

    def dsack(self, now: float, start: int, end: int, mss: int) -> list[int]:
        """A DSACK for retransmitted data [start, end): the -MEAN samples it completes."""
        samples = []
        for seg_start in [s for s in self.pending if start <= s < end]:
            seg_end, first, _ = self.pending.pop(seg_start)
            second = self.packets(self.highest - seg_end, mss)     # m before the DSACK's ACK
            mean = -(-(first + second) // 2)
            if mean >= 1:
                self.histogram.add(now, mean)
                samples.append(mean)
        return samples

    def _expire_pending(self, now: float) -> None:
        # a retransmission never DSACKed was a loss; forget it with the histogram's horizon
        horizon = now - self.histogram.lifetime
        pending = self.pending
        while pending:
            oldest = next(iter(pending))
            if pending[oldest][2] >= horizon:
                break
            del pending[oldest]


# ------------------------------------------------------------------------------- §4.3.1-4.3.3
def timeout_cost(w: float, t: float, r: float, k: float = LT_CWNDS) -> float:
    """§4.3.1: the transmissions a timeout loses beyond a fast retransmit, the idle period
    W*T/R - W(1+k) plus slow start back to W/2, W(log2 W - 1) + 1: W(T/R + log2 W - k - 2) + 1
    (true and false timeouts alike, footnote 2). Never below 0."""
    w = max(w, 1.0)
    return max(0.0, w * (t / r + math.log2(w) - k - 2) + 1)


def false_fast_retransmit_cost(w: float, d: float, r: float) -> float:
    """§4.3.2: a window halved for k RTTs costs sum_{i<k} (W/2 - i) = k(W - k + 1)/2, with
    k = D/R interpolated linearly between floor and ceiling and D/R kept in [1, W/2] (the paper
    caps k at W/2; at D = R the cost is W/2), so the cost is at least W/2 > 0."""
    w = max(w, 1.0)
    x = min(max(d / r, 1.0), max(w / 2, 1.0))
    lo, hi = math.floor(x), math.ceil(x)

    def cost(k: int) -> float:
        return k * (w - k + 1) / 2

    return cost(lo) + (x - lo) * (cost(hi) - cost(lo))


def limited_transmit_cost(idle: float, r: float, w: float, dupacks: int) -> float:
    """§4.3.3: an idle period of I seconds after limited transmit ran out costs I/R * W
    transmissions, less the d duplicate ACKs that came back during it."""
    return idle / r * w - dupacks


# ------------------------------------------------------------------------------- W, D, R, T
def _srtt(view: SenderView) -> float:
    """R: the smoothed RTT (the RTO before the first sample, which the handshake gives)."""
    return view.rtt.srtt or view.rtt.rto


def _window_packets(view: SenderView) -> float:
    """The window the sender can use, in packets: cwnd bounded by the peer's window."""
    return max(1.0, min(view.cwnd, view.snd_wnd) / view.mss)


class WindowAverage:
    """W of §4.3.1, "the steady state window size": an EWMA (gain 1/8) of the usable window,
    sampled once per RTT outside any recovery (digest 000 §5 item 9; the paper leaves it open)."""

    def __init__(self, gain: float = EWMA_GAIN):
        self.gain = gain
        self.value: float | None = None
        self._next_at = 0.0

    def on_ack(self, view: SenderView, now: float) -> None:
        if view.in_recovery or view.in_loss or now < self._next_at:
            return
        sample = _window_packets(view)
        self.value = sample if self.value is None else \
            (1 - self.gain) * self.value + self.gain * sample
        self._next_at = now + _srtt(view)

    def get(self, view: SenderView) -> float:
        return self.value if self.value is not None else _window_packets(view)


class FfrDuration:
    """D of §4.3.2: an EWMA (alpha = 1/8) of how long false fast retransmits kept the window
    halved, from the cut to the DSACK that showed it false (§4.1). Before the first, D = R."""

    def __init__(self, gain: float = EWMA_GAIN):
        self.gain = gain
        self.value: float | None = None

    def sample(self, duration: float) -> None:
        self.value = duration if self.value is None else \
            (1 - self.gain) * self.value + self.gain * duration

    def get(self, r: float) -> float:
        return self.value if self.value is not None else r


class LimitedTransmitIdle:
    """§4.3.3's idle period: from the moment limited transmit can send nothing more while
    duplicate ACKs arrive below dupthresh, to the next ACK that advances the window, with no
    timeout in between; d counts the duplicate ACKs after that moment.

    With this engine's limited transmit (RFC 6675: a new segment per duplicate ACK) the bound
    that runs out is the peer's window: the sender is idle when it holds data it may not send.
    """

    def __init__(self):
        self.since: float | None = None     # when limited transmit ran out
        self.dupacks = 0                    # d

    def on_dupack(self) -> None:
        if self.since is not None:
            self.dupacks += 1

    def on_timeout(self) -> None:
        self.since = None

    def on_ack(self, view: SenderView, prior_una: int, dupthresh: int,
               now: float) -> tuple[float, int] | None:
        """Returns (I, d) when this ACK ends an idle period."""
        if self.since is not None:
            if view.snd_una > prior_una:
                period = (now - self.since, self.dupacks)
                self.since = None
                return period
            return None
        if (view.snd_una == prior_una and 0 < view.dupacks < dupthresh
                and not view.in_recovery and not view.in_loss and self._blocked(view)):
            self.since, self.dupacks = now, 0
        return None

    @staticmethod
    def _blocked(view: SenderView) -> bool:
        unsent = view.unsent
        room = view.snd_una + view.snd_wnd - view.snd_max
        return unsent > 0 and room < min(view.mss, unsent)


# ------------------------------------------------------------------------------- §4.3.4
class FaRatioAdapter:
    """DSACK-TA's control loop on the FA ratio (§4.3.4), kept in [0, 1] (the paper shows it
    reaching 99 %): +S per false fast retransmit; -(C_TO/C_FFR)S per timeout; -(C_LT/C_FFR)S
    per limited-transmit idle period whose cost exceeds C_FFR."""

    def __init__(self, ratio: float = FA_RATIO, step: float = FA_STEP):
        self.ratio, self.step = ratio, step

    def _move(self, delta: float) -> None:
        self.ratio = min(1.0, max(0.0, self.ratio + delta))

    def on_false_fast_retransmit(self) -> None:
        self._move(self.step)

    def on_timeout(self, c_to: float, c_ffr: float) -> None:
        self._move(-c_to / c_ffr * self.step)

    def on_limited_transmit_idle(self, c_lt: float, c_ffr: float) -> None:
        if c_lt > c_ffr:
            self._move(-c_lt / c_ffr * self.step)


# ------------------------------------------------------------------------------- the variants
@register
class RrTcpFa(DsackUndo):
    """DSACK-FA (000 §4.2): DSACK-R's undo (dsack.py; an episode with a real loss among its
    retransmissions is not undone) plus a false timeout's undo, and dupthresh from the
    reordering histogram at a fixed FA ratio, bounded by 90 % of cwnd as the engine's other
    raised-dupthresh variants are (000 §5.1) so that a loss can still draw enough dupacks."""

    name = "rrtcp-fa"
    observes_deliveries = True

    def __init__(self, config):
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
        return FA_RATIO

    # -------------------------------------------------------------- dupthresh (§4.2)
    def _apply(self, view: SenderView) -> None:
        """dupthresh from the histogram and the FA ratio, recomputed when either changed
        (§4.2), bounded by 90 % of the current cwnd.

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
            self.dupthresh = DUPTHRESH
        else:
            self.dupthresh = max(DUPTHRESH, min(self.target, dupthresh_cap(view)))

    def _close_ack(self, view: SenderView, now: float) -> None:
        """The ACK's deliveries are all reported: take its sample (§4.1.1) and let old
        events go (§4.1.3's coarse timer, run on every ACK)."""
        self.sampler.ack_done(now, view.highest_sacked(), view.mss)
        self.histogram.expire(now)

    # -------------------------------------------------------------- hooks
    def on_delivered(self, view, start, end, sent_at, transmissions, *, now):
        self.sampler.delivered(start, end, transmissions)

    def on_dupack(self, view, seg, dupacks, *, now):
        super().on_dupack(view, seg, dupacks, now=now)
        self._close_ack(view, now)
        self._apply(view)           # before the engine compares dupacks with it

    def on_new_ack(self, view, *, now):
        self._close_ack(view, now)

    def on_ack(self, view, seg, prior_una, *, now):
        self._close_ack(view, now)
        self._apply(view)

    def on_enter_recovery(self, view, prior_cwnd, prior_ssthresh, *, now):
        super().on_enter_recovery(view, prior_cwnd, prior_ssthresh, now=now)
        self.cut_at = now           # §4.1: the fast retransmit's start time
        self.timeout_episode.cancel()

    def on_retransmit(self, view, start, end, last_sent_at, *, now):
        super().on_retransmit(view, start, end, last_sent_at, now=now)
        self.timeout_episode.on_retransmit()

    def on_dsack(self, view, start, end, retransmitted, *, now):
        if retransmitted:
            self.sampler.dsack(now, start, end, view.mss)
        decision = super().on_dsack(view, start, end, retransmitted, now=now)   # DSACK undo
        if self.timeout_episode.on_dsack(end, retransmitted):
            undo = self._undo_false_timeout(view)
            decision = undo if decision is None else (decision, undo)
        if decision is None:
            self._apply(view)
        return decision

    def on_undo(self, view, *, now):
        super().on_undo(view, now=now)  # on_false_fast_retransmit, if the episode's
        self._apply(view)               # dupthresh for the restored window

    def on_false_fast_retransmit(self, view, dupacks, *, now):
        if self.cut_at is not None:
            self.ffr_duration.sample(now - self.cut_at)         # §4.1, §4.3.2: D
            self.cut_at = None

    def on_timeout(self, view, *, now):
        first = not view.in_loss        # the first expiry of this episode, not a backoff
        super().on_timeout(view, now=now)   # the fast-recovery episode is not judged
        self.cut_at = None
        if first:
            self.timeout_prior = (view.cwnd, view.ssthresh)     # before the engine's cut
            self.timeout_episode.start(view.snd_una)
            self.on_timeout_episode(view, now=now)

    def on_timeout_episode(self, view: SenderView, *, now: float) -> None:
        """A retransmission timeout (once per episode). DSACK-FA's FA ratio is fixed."""

    def _undo_false_timeout(self, view: SenderView) -> SpuriousTimeout | Undo:
        cwnd, ssthresh = self.timeout_prior
        self.timeout_prior = None
        if view.in_loss:
            # go-back-N still running: stop it, as the other spurious-timeout responses do
            return SpuriousTimeout(cwnd, ssthresh)
        return Undo(cwnd, ssthresh)


@register
class RrTcp(RrTcpFa):
    """DSACK-TA (000 §4.3): DSACK-FA whose FA ratio adapts to the costs of false fast
    retransmits, timeouts and limited-transmit idle periods (§4.3.4), S = 0.01.

    W is an EWMA of the usable window once per RTT outside recovery, R the smoothed RTT, T the
    RTO that expired (the one in force at the last ACK: the engine has already backed the timer
    off when the hook runs), D the EWMA of false fast retransmit durations (R before the first)."""

    name = "rrtcp"

    def __init__(self, config):
        super().__init__(config)
        self.adapter = FaRatioAdapter()
        self.window = WindowAverage()
        self.lt_idle = LimitedTransmitIdle()
        self.rto_in_force: float | None = None

    @property
    def fa_ratio(self) -> float:
        return self.adapter.ratio

    def _c_ffr(self, w: float, r: float) -> float:
        return false_fast_retransmit_cost(w, self.ffr_duration.get(r), r)

    def on_dupack(self, view, seg, dupacks, *, now):
        self.lt_idle.on_dupack()
        super().on_dupack(view, seg, dupacks, now=now)

    def on_ack(self, view, seg, prior_una, *, now):
        super().on_ack(view, seg, prior_una, now=now)
        self.window.on_ack(view, now)
        self.rto_in_force = view.rtt.rto
        period = self.lt_idle.on_ack(view, prior_una, self.dupthresh, now)
        if period is not None:
            idle, dupacks = period
            w, r = self.window.get(view), _srtt(view)
            self.adapter.on_limited_transmit_idle(limited_transmit_cost(idle, r, w, dupacks),
                                                  self._c_ffr(w, r))
            self._apply(view)

    def on_false_fast_retransmit(self, view, dupacks, *, now):
        super().on_false_fast_retransmit(view, dupacks, now=now)
        self.adapter.on_false_fast_retransmit()

    def on_timeout(self, view, *, now):
        self.lt_idle.on_timeout()
        super().on_timeout(view, now=now)

    def on_timeout_episode(self, view, *, now):
        w, r = self.window.get(view), _srtt(view)
        t = self.rto_in_force or view.rtt.rto
        self.adapter.on_timeout(timeout_cost(w, t, r), self._c_ffr(w, r))
        self._apply(view)
