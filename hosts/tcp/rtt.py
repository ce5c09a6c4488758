"""Retransmission timeout computation, RFC 6298 §2 (Jacobson/Karels with Karn's rule)."""

from __future__ import annotations

__all__ = ["RttEstimator", "ALPHA", "BETA", "K", "CLOCK_GRANULARITY"]

ALPHA = 1 / 8               # RFC 6298 §2.3
BETA = 1 / 4                # RFC 6298 §2.3
K = 4                       # RFC 6298 §2.2
CLOCK_GRANULARITY = 0.001   # G of RFC 6298 §2.2 (our clock: virtual seconds)


class RttEstimator:
    def __init__(self, *, initial_rto: float, min_rto: float, max_rto: float):
        self.srtt: float | None = None
        self.rttvar = 0.0
        self.min_rto, self.max_rto = min_rto, max_rto
        self.rto = initial_rto          # RFC 6298 (2.1)
        self.backoff = 0

    def sample(self, rtt: float) -> None:
        """A measurement from a segment that was not retransmitted (Karn's rule, RFC 6298 §3)."""
        if self.srtt is None:                                   # RFC 6298 (2.2)
            self.srtt, self.rttvar = rtt, rtt / 2
        else:                                                   # RFC 6298 (2.3)
            self.rttvar = (1 - BETA) * self.rttvar + BETA * abs(self.srtt - rtt)
            self.srtt = (1 - ALPHA) * self.srtt + ALPHA * rtt
        self.backoff = 0
        self._update()

    def _update(self) -> None:
        base = self.srtt + max(CLOCK_GRANULARITY, K * self.rttvar)
        self.rto = min(self.max_rto, max(self.min_rto, base))   # RFC 6298 (2.4), (2.5)

    def on_timeout(self) -> None:
        """RFC 6298 (5.5): back the timer off."""
        self.backoff += 1
        self.rto = min(self.max_rto, self.rto * 2)
