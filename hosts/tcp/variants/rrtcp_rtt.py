"""RR-TCP's RTO ([RRTCP] §4.4, §5.3): DSACK-ES, the enhanced RTT sampling of
falsely retransmitted segments, and DSACK-HG, an RTO from a histogram of RTT samples.

- ``rrtcp-faes`` (DSACK-FAES, Table 1): DSACK-FA with DSACK-ES.
- ``rrtcp-taes`` (DSACK-TAES, Table 1): DSACK-TA with DSACK-ES, the scheme [RRTCP] recommends (§7).
- ``rrtcp-hg`` (DSACK-HG, §5.3, Table 1): DSACK-TA on an RTO set to the 99.8th percentile of a
  histogram of the connection's RTT samples (``hosts.tcp.rtt.HistogramRtoEstimator``) instead of
  the EWMA estimator; the histogram gets the engine's samples and DSACK-ES's. [RRTCP] includes it as a reference point.

Karn's rule keeps every retransmitted segment out of the RTO's estimator, and on a path that
delays packets it is the delayed ones that get retransmitted: the estimator sees the short RTTs
only and the RTO is too aggressive (§4.4). DSACK-ES takes one sample for a retransmission that
a DSACK later shows unnecessary: the first ACK is paired with the original, the DSACK with the
retransmission, and their mean, mean(t_ack1 - t_orig, t_dsack - t_rtx), goes to the estimator
(either pairing gives the same mean). Without a DSACK the segment was lost: no sample (Karn).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hosts.tcp.variants.base import Decisions, RttSample, SenderView, chain, register
from hosts.tcp.variants.rrtcp import RrTcp, RrTcpFa
from hosts.tcp.variants.rrtcp_parts import HISTORY_LIFETIME

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig

__all__ = ["EnhancedRttSampling", "RrTcpFaes", "RrTcpTaes", "RrTcpHg", "chain"]


class EnhancedRttSampling:
    """DSACK-ES's record of retransmitted segments (§4.4): start -> [end, t_orig, t_rtx,
    t_ack1], oldest first. A segment sent more than twice pairs its original with its latest
    retransmission. Entries older than ``horizon`` seconds (a loss: no DSACK will come) go."""

    def __init__(self, horizon: float = HISTORY_LIFETIME):
        self.horizon = horizon
        self.pending: dict[int, list] = {}

    def on_retransmit(self, start: int, end: int, last_sent_at: float, now: float) -> None:
        entry = self.pending.pop(start, None)
        t_orig = entry[1] if entry is not None else last_sent_at
        self.pending[start] = [end, t_orig, now, None]      # newest last
        self._expire(now)

    def on_delivered(self, start: int, transmissions: int, now: float) -> None:
        """The first ACK (or SACK) of [start, ...)."""
        if transmissions > 1:
            entry = self.pending.get(start)
            if entry is not None and entry[3] is None:
                entry[3] = now

    def on_dsack(self, start: int, end: int, now: float) -> list[float]:
        """A DSACK for [start, end): the samples of the retransmissions it covers."""
        samples = []
        for seg_start in [s for s in self.pending if start <= s < end]:
            seg_end, t_orig, t_rtx, t_ack1 = self.pending.pop(seg_start)
            if t_ack1 is not None:
                samples.append(((t_ack1 - t_orig) + (now - t_rtx)) / 2)
        return samples

    def _expire(self, now: float) -> None:
        pending, horizon = self.pending, now - self.horizon
        while pending:
            oldest = next(iter(pending))
            if pending[oldest][2] >= horizon:
                break
            del pending[oldest]


class _EnhancedSampling(RrTcpFa):
    """DSACK-ES on top of an RR-TCP policy, which observes deliveries (put before it)."""

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.es = EnhancedRttSampling()

    def on_retransmit(self, view: SenderView, start: int, end: int, last_sent_at: float, *,
                      now: float) -> Decisions:
        decision = super().on_retransmit(view, start, end, last_sent_at, now=now)
        self.es.on_retransmit(start, end, last_sent_at, now)
        return decision

    def on_delivered(self, view: SenderView, start: int, end: int, sent_at: float,
                     transmissions: int, *, now: float) -> None:
        super().on_delivered(view, start, end, sent_at, transmissions, now=now)
        self.es.on_delivered(start, transmissions, now)

    def on_dsack(self, view: SenderView, start: int, end: int, retransmitted: bool, *,
                 now: float) -> Decisions:
        decision = super().on_dsack(view, start, end, retransmitted, now=now)
        if not retransmitted:
            return decision
        return chain(*(RttSample(s) for s in self.es.on_dsack(start, end, now)), decision)


@register
class RrTcpFaes(_EnhancedSampling, RrTcpFa):
    """DSACK-FAES ([RRTCP] Table 1): DSACK-FA + DSACK-ES."""

    name = "rrtcp-faes"


@register
class RrTcpTaes(_EnhancedSampling, RrTcp):
    """DSACK-TAES ([RRTCP] Table 1, §7): DSACK-TA + DSACK-ES."""

    name = "rrtcp-taes"


@register
class RrTcpHg(_EnhancedSampling, RrTcp):
    """DSACK-HG ([RRTCP] §5.3): DSACK-TA with the RTO at the 99.8th percentile of its RTT samples."""

    name = "rrtcp-hg"
    rto_estimator = "histogram"
