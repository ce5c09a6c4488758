"""RR-TCP's pieces ([RRTCP]), each the paper's: a segment's reordering length
from the ACK stream (``ReorderingSampler``, §4.1.1), the histogram of the last 80 s
(``ReorderingHistogram``, §4.1.2-4.1.3), dupthresh from it (``dupthresh_for``, §4.2), the costs
of a timeout, a false fast retransmit and an idle limited transmit (§4.3.1-4.3.3) with their W
and D (``WindowAverage``, ``FfrDuration``) and the idle period (``LimitedTransmitIdle``), and the
FA ratio's control loop (``FaRatioAdapter``, §4.3.4). The variants that compose them are in
rrtcp.py.

The paper counts packets; the engine counts bytes. A reordering length is the distance in
bytes between the end of the highest segment ACKed or SACKed before the ACK and the end of the
segment it reports, in MSS-sized packets (rounded up: with full-sized segments it is exact).
"""

from __future__ import annotations

import math
from collections import deque

from hosts.tcp.variants.base import DUPTHRESH, SenderView

__all__ = ["ReorderingHistogram", "ReorderingSampler", "dupthresh_for", "timeout_cost",
           "false_fast_retransmit_cost", "limited_transmit_cost", "WindowAverage", "FfrDuration",
           "LimitedTransmitIdle", "FaRatioAdapter", "srtt", "HISTORY_LIFETIME", "HISTORY_EVENTS",
           "MAX_LENGTH", "MAX_DUPTHRESH", "FA_RATIO", "FA_STEP", "EWMA_GAIN", "LT_CWNDS"]

HISTORY_LIFETIME = 80.0     # Table 2: reordering events are kept 80 s
HISTORY_EVENTS = 1000       # §4.1.3: the histogram stores up to 1000 events
MAX_LENGTH = 63             # §4.1.3: 6 bits per packet, lengths 1..63
MAX_DUPTHRESH = 64          # §4.2 / Table 2: so dupthresh lies in [3, 64]
FA_RATIO = 0.90             # Table 2: the initial (DSACK-FA: fixed) FA ratio
FA_STEP = 0.01              # §4.3.4: S
EWMA_GAIN = 1 / 8           # §4.3.2's D (Table 2's alpha); W likewise
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
def srtt(view: SenderView) -> float:
    """R: the smoothed RTT (the RTO before the first sample, which the handshake gives)."""
    return view.rtt.srtt or view.rtt.rto


def _window_packets(view: SenderView) -> float:
    """The window the sender can use, in packets: cwnd bounded by the peer's window."""
    return max(1.0, min(view.cwnd, view.snd_wnd) / view.mss)


class WindowAverage:
    """W of §4.3.1, "the steady state window size": an EWMA (gain 1/8) of the usable window,
    sampled once per RTT outside any recovery (the paper leaves it open)."""

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
        self._next_at = now + srtt(view)

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

    Limited transmit runs out at its bound, ``bound`` windows of cwnd beyond what was out at
    the episode's first duplicate ACK ([RRTCP] §2.3, Table 2: one; ``TcpConfig.
    limited_transmit_cwnds``, which the engine enforces), or when the peer's window is full:
    the sender is idle when it holds data it may not send.
    """

    def __init__(self, bound: float | None = LT_CWNDS):
        self.bound = bound
        self.since: float | None = None     # when limited transmit ran out
        self.dupacks = 0                    # d
        self.mark: int | None = None        # SND.MAX at the episode's first duplicate ACK

    def on_dupack(self, view: SenderView) -> None:
        if view.dupacks == 1:
            self.mark = view.snd_max
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

    def _blocked(self, view: SenderView) -> bool:
        unsent = view.unsent
        if unsent <= 0:
            return False
        room = view.snd_una + view.snd_wnd - view.snd_max
        if room < min(view.mss, unsent):
            return True
        return self.bound is not None and self.mark is not None and \
            view.snd_max + view.mss > self.mark + int(self.bound * view.cwnd)


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
