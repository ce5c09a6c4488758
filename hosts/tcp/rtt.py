"""Retransmission timeout computation: RFC 6298 §2 (Jacobson/Karels with Karn's rule), with the
parameters the OS profiles of [TCPDEBUG] vary, and Linux 2.4's own estimator.

The generic estimator ([TCPDEBUG] §1.3, Table 1.1, RFC 6298 §2 with its constants as parameters):
``srtt = (1 - b)·srtt + b·rtt``, ``rttvar = (1 - a)·rttvar + a·|srtt - rtt|``,
``RTO = m·srtt + max(G, k·rttvar)``, at least ``min_rto``; measurements in whole ticks of the
timer granularity G, and the RTO rounded up to a whole tick.
"""

from __future__ import annotations

import math

__all__ = ["RttEstimator", "LinuxRttEstimator", "HistogramRtoEstimator", "make_estimator",
           "ESTIMATORS",
           "ALPHA", "BETA", "K", "CLOCK_GRANULARITY"]

ALPHA = 1 / 8               # RFC 6298 §2.3 ([TCPDEBUG]'s b)
BETA = 1 / 4                # RFC 6298 §2.3 ([TCPDEBUG]'s a)
K = 4                       # RFC 6298 §2.2
CLOCK_GRANULARITY = 0.001   # G of RFC 6298 §2.2 (our clock: virtual seconds)


class RttEstimator:
    """RFC 6298's estimator; ``m``, ``k``, the gains and G as [TCPDEBUG] Table 1.1 varies them."""

    def __init__(self, *, initial_rto: float, min_rto: float, max_rto: float,
                 granularity: float = CLOCK_GRANULARITY, srtt_gain: float = ALPHA,
                 rttvar_gain: float = BETA, m: float = 1.0, k: float = K):
        self.srtt: float | None = None
        self.rttvar = 0.0
        self.min_rto, self.max_rto = min_rto, max_rto
        self.granularity = granularity
        self.srtt_gain, self.rttvar_gain, self.m, self.k = srtt_gain, rttvar_gain, m, k
        self.rto = initial_rto          # RFC 6298 (2.1)
        self.backoff = 0

    def ticks(self, seconds: float) -> float:
        """A duration as the OS's timer measures it: whole ticks, at least one (a measurement
        inside one tick reads as one; the default 1 ms tick leaves our runs' values as they are)."""
        g = self.granularity
        return max(g, math.ceil(seconds / g - 1e-9) * g) if g > CLOCK_GRANULARITY else seconds

    def sample(self, rtt: float, *, snd_una: int = 0, snd_nxt: int = 0) -> None:
        """A measurement from a segment that was not retransmitted (Karn's rule, RFC 6298 §3).
        ``snd_una``/``snd_nxt`` matter to estimators that work per window (Linux's)."""
        rtt = self.ticks(rtt)
        if self.srtt is None:                                   # RFC 6298 (2.2)
            self.srtt, self.rttvar = rtt, rtt / 2
        else:                                                   # RFC 6298 (2.3)
            self.rttvar = (1 - self.rttvar_gain) * self.rttvar \
                + self.rttvar_gain * abs(self.srtt - rtt)
            self.srtt = (1 - self.srtt_gain) * self.srtt + self.srtt_gain * rtt
        self.backoff = 0
        self._set_rto(self.m * self.srtt + max(self.granularity, self.k * self.rttvar))

    def _set_rto(self, base: float) -> None:
        base = max(self.min_rto, base)                          # RFC 6298 (2.4)
        if self.granularity > CLOCK_GRANULARITY:                # the timer fires on a tick
            base = math.ceil(base / self.granularity - 1e-9) * self.granularity
        self.rto = min(self.max_rto, base)                      # RFC 6298 (2.5)

    def on_timeout(self) -> None:
        """RFC 6298 (5.5): back the timer off."""
        self.backoff += 1
        self.rto = min(self.max_rto, self.rto * 2)


class LinuxRttEstimator(RttEstimator):
    """Linux 2.4's estimator ([TCPDEBUG] §1.3: "a significantly different computation for the variance";
    as Linux 2.4's tcp_rtt_estimator computes it): ``mdev`` follows 4·|error| with gain a
    (``rttvar_gain``, Linux: 1/4), but only with a/8 of that when the sample is below srtt;
    ``rttvar`` is the largest ``mdev`` of the current window of data, never below ``min_rto``
    (200 ms: the floor is on the variance term, so RTO >= srtt + 200 ms), and decays a quarter of
    the way towards that window's maximum once per window; srtt moves with gain b
    (``srtt_gain``, Linux: 1/8); RTO = m·srtt + k·rttvar, Linux's own with m = k = 1 ([TCPDEBUG] Table
    1.1). [TCPDEBUG] ch. 4 varies a, b, m and k (analyzer/rto_replay.py replays them with this class)."""

    def __init__(self, *, k: float = 1.0, **kw):
        super().__init__(k=k, **kw)
        self.mdev = 0.0
        self.mdev_max = 0.0
        self._window_end = 0        # Linux's rtt_seq: the window ends when snd_una passes it

    def sample(self, rtt: float, *, snd_una: int = 0, snd_nxt: int = 0) -> None:
        rtt = self.ticks(rtt)
        floor = self.min_rto
        if self.srtt is None:
            self.srtt = rtt
            self.mdev = 2 * rtt                 # "make sure rto = 3*rtt"
            self.mdev_max = self.rttvar = max(self.mdev, floor)
            self._window_end = snd_nxt
        else:
            err = rtt - self.srtt
            self.srtt += self.srtt_gain * err
            a = self.rttvar_gain
            if err < 0:
                step = a * (4 * -err) - a * self.mdev
                if step > 0:
                    step /= 8                   # a shorter RTT barely raises the variance
            else:
                step = a * (4 * err) - a * self.mdev
            self.mdev += step
            if self.mdev > self.mdev_max:
                self.mdev_max = self.mdev
                if self.mdev_max > self.rttvar:
                    self.rttvar = self.mdev_max
            if snd_una > self._window_end:      # once per window of data
                if self.mdev_max < self.rttvar:
                    self.rttvar -= (self.rttvar - self.mdev_max) / 4
                self._window_end = snd_nxt
                self.mdev_max = floor
        self.backoff = 0
        self._set_rto(self.m * self.srtt + self.k * self.rttvar)


class HistogramRtoEstimator(RttEstimator):
    """DSACK-HG's RTO ([RRTCP] §5.3, Table 2): the 99.8th percentile of a histogram of the
    connection's RTT samples ("a detailed histogram of RTT samples for each packet, rather than
    an exponentially weighted moving average"), at least ``min_rto``, backed off on a timeout
    as RFC 6298 (5.5) until the next sample. The histogram keeps every sample of the connection
    ([RRTCP] gives no lifetime; it calls it "nearly perfect information concerning the RTT
    distribution") in bins of ``BIN`` s; the RTO is the upper edge of the percentile's bin.
    srtt and rttvar are kept as RFC 6298's for those who read them (RR-TCP's R)."""

    PERCENTILE = 0.998          # [RRTCP] Table 2: "RTT Histogram ratio 99.8%ile sampled"
    BIN = 0.010                 # s: the clock's tick of [RRTCP]'s setup

    def __init__(self, **kw):
        super().__init__(**kw)
        self.counts: list[int] = [0]    # samples per bin
        self.n = 0
        self.bin = 0                    # the percentile's bin
        self.above = 0                  # samples in bins above it

    def sample(self, rtt: float, *, snd_una: int = 0, snd_nxt: int = 0) -> None:
        super().sample(rtt, snd_una=snd_una, snd_nxt=snd_nxt)
        b = int(self.ticks(rtt) / self.BIN + 1e-9)
        counts = self.counts
        if b >= len(counts):
            counts.extend([0] * (b + 1 - len(counts)))
        counts[b] += 1
        self.n += 1
        if b > self.bin:
            self.above += 1
        self._settle()
        self._set_rto((self.bin + 1) * self.BIN)

    def _settle(self) -> None:
        """Move the percentile's bin to the smallest whose cumulative count is at least
        PERCENTILE of the samples: at most ``allowed`` samples lie above it."""
        counts = self.counts
        allowed = self.n - math.ceil(self.PERCENTILE * self.n - 1e-9)
        while self.above > allowed:
            self.bin += 1
            self.above -= counts[self.bin]
        while self.bin > 0 and self.above + counts[self.bin] <= allowed:
            self.above += counts[self.bin]
            self.bin -= 1


ESTIMATORS = {"rfc6298": RttEstimator, "linux-2.4": LinuxRttEstimator,
              "histogram": HistogramRtoEstimator}


def make_estimator(config, name: str | None = None) -> RttEstimator:
    """The estimator a TcpConfig asks for (``rto_estimator``, or ``name`` when a variant is
    built on its own, and the RTO parameters)."""
    return ESTIMATORS[name or config.rto_estimator](
        initial_rto=config.initial_rto, min_rto=config.min_rto, max_rto=config.max_rto,
        granularity=config.clock_granularity, m=config.rto_m, k=config.rto_k)
