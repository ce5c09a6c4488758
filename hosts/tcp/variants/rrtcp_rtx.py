"""RR-TCP's -RTX forms ([RRTCP] §5.1.1): the reordering length of a
retransmitted segment taken with Ludwig's RTX bit instead of the -MEAN pairing.

- ``rrtcp-fa-rtx`` (DSACK-FA-RTX) and ``rrtcp-rtx`` (DSACK-TA-RTX): DSACK-FA and DSACK-TA whose
  retransmissions carry the RTX bit (``hosts.tcp.sender.RTX_BIT``), which the receiver echoes
  in the ACK each draws. The sender then knows which ACK the original drew, and records the
  original's reordering length only ("DSACK-FA-RTX uses the reordering length of the original
  transmission only"). ``rrtcp-fa`` and ``rrtcp`` are the -MEAN forms (§4.1.1: the first ACK
  paired with the original, the DSACK with the retransmission, their mean recorded), which
  [RRTCP]'s other figures use.

The original's ACK is the first ACK for the segment when it echoes no RTX bit (the original
arrived first: its length is m - h then); otherwise the retransmission arrived first and the
original, arriving later as a duplicate, draws the DSACK, whose ACK echoes no RTX bit: its
length is m - h at that DSACK. A retransmission never DSACKed was a loss: no sample.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hosts.tcp.sender import RTX_BIT
from hosts.tcp.variants.base import Decisions, SenderView, register
from hosts.tcp.variants.rrtcp import RrTcp, RrTcpFa
from hosts.tcp.variants.rrtcp_parts import ReorderingHistogram, ReorderingSampler

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from netbase.segment import Segment

__all__ = ["RtxReorderingSampler", "RrTcpFaRtx", "RrTcpRtx"]


class RtxReorderingSampler(ReorderingSampler):
    """§4.1.1's sampler with the RTX bit: ``ack_done`` is told whether the ACK echoes it."""

    def __init__(self, histogram: ReorderingHistogram) -> None:
        super().__init__(histogram)
        self._dsacked: list[int] = []   # lengths the ACK being processed DSACKed

    def ack_done(self, now: float, highest: int, mss: int, rtx_echo: bool = False) -> int | None:
        acked, dsacked = self._acked, self._dsacked
        self._acked, self._dsacked = [], []
        sample = None
        if not rtx_echo:        # the original drew this ACK: its DSACKs are the originals'
            for length in dsacked:
                if length >= 1:
                    self.histogram.add(now, length)
                    sample = length
        if len(acked) == 1:
            start, end, transmissions = acked[0]
            length = self.packets(self.highest - end, mss)
            if transmissions > 1 and rtx_echo:
                # the retransmission drew it; the original's length comes with its DSACK
                self.pending.pop(start, None)
                self.pending[start] = (end, 0, now)
            elif length >= 1:
                self.histogram.add(now, length)
                sample = length
        self.highest = max(self.highest, highest)
        self._expire_pending(now)
        return sample

    def dsack(self, now: float, start: int, end: int, mss: int) -> list[int]:
        """A DSACK for [start, end): the lengths it gives, recorded by ``ack_done`` once the
        ACK carrying it shows (no RTX bit) that the original drew it."""
        for seg_start in [s for s in self.pending if start <= s < end]:
            seg_end, _, _ = self.pending.pop(seg_start)
            self._dsacked.append(self.packets(self.highest - seg_end, mss))
        return []


class _RtxMeasured(RrTcpFa):
    """An RR-TCP policy measuring retransmitted segments with the RTX bit (put before the
    -MEAN form it changes)."""

    marks_retransmissions = True

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.sampler = self.rtx_sampler = RtxReorderingSampler(self.histogram)
        self._echo = False          # the ACK being processed echoes the RTX bit

    def _close_ack(self, view: SenderView, now: float) -> None:
        self.rtx_sampler.ack_done(now, view.highest_sacked(), view.mss, self._echo)
        self.histogram.expire(now)

    def on_dupack(self, view: SenderView, seg: Segment, dupacks: int, *, now: float) -> Decisions:
        self._echo = bool(seg.reserved & RTX_BIT)
        return super().on_dupack(view, seg, dupacks, now=now)

    def on_new_ack(self, view: SenderView, *, now: float) -> Decisions:
        """The ACK's sample waits for ``on_ack``, which has the ACK (and its RTX bit)."""
        return None

    def on_ack(self, view: SenderView, seg: Segment, prior_una: int, *, now: float) -> Decisions:
        self._echo = bool(seg.reserved & RTX_BIT)
        return super().on_ack(view, seg, prior_una, now=now)


@register
class RrTcpFaRtx(_RtxMeasured, RrTcpFa):
    """DSACK-FA-RTX ([RRTCP] §5.1.1)."""

    name = "rrtcp-fa-rtx"


@register
class RrTcpRtx(_RtxMeasured, RrTcp):
    """DSACK-TA-RTX ([RRTCP] §5.1.1)."""

    name = "rrtcp-rtx"
