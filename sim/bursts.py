"""Bursty drop events on a link ([RRTCP] §5.7, Table 4 and Figure 19).

[RRTCP] introduces "a small fraction (0.02%) of packet drops. Each drop event lasts for a period
that varies uniformly in [300, 400] ms, during which all consecutive packets to arrive are
dropped." Read here (an inference: the paper gives no more) as: each data packet
crossing the link outside an event starts one with ``probability`` (0.0002); the event lasts
U(``low``, ``high``) seconds from that packet's departure, and every frame leaving in it, the
first included, is lost. Such a burst empties a window, so it ends in a timeout even for a
sender whose dupthresh is bounded by 0.9 cwnd, which is what [RRTCP] uses it for.

A ``Channel.gate`` (``sim.links``): it sees each frame as its last bit leaves and drops those in
an event; ``events`` records (start, end) of each, the channel's ``lost`` counts the frames.
The draws come from ``random.Random(seed)`` only, so a seed fixes every event.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from sim.reorder import carries_tcp_data

if TYPE_CHECKING:  # pragma: no cover
    from sim.links import Channel

__all__ = ["DropBursts", "BURST_LOW", "BURST_HIGH"]

BURST_LOW, BURST_HIGH = 0.300, 0.400    # [RRTCP] §5.7: each drop event lasts U[300, 400] ms


class DropBursts:
    """Drop events on ``channel``: started by a data frame with ``probability``, U(``low``,
    ``high``) seconds long, losing every frame that leaves during one."""

    def __init__(self, channel: "Channel", *, probability: float, seed: int,
                 low: float = BURST_LOW, high: float = BURST_HIGH):
        if not (isinstance(probability, (int, float)) and 0.0 <= probability <= 1.0):
            raise ValueError(f"burst start probability must be in [0, 1], got {probability!r}")
        if not (math.isfinite(low) and math.isfinite(high) and 0 <= low <= high):
            raise ValueError(f"burst length bounds must satisfy 0 <= low <= high seconds, got "
                             f"{low!r}, {high!r}")
        if channel.gate is not None:
            raise ValueError(f"channel {channel.name!r} already has a link model (gate)")
        self.probability, self.low, self.high = probability, low, high
        self.rng = random.Random(seed)
        self.channel = channel
        self.events: list[tuple[float, float]] = []     # (start, end) of each drop event
        self._until = float("-inf")
        channel.gate = self._gate

    @property
    def lost(self) -> int:
        """Frames dropped (the channel counts what its gate refused)."""
        return self.channel.lost

    def _gate(self, frame: bytes, departure: float) -> float | None:
        if departure < self._until:
            return None
        if carries_tcp_data(frame) and self.rng.random() < self.probability:
            self._until = departure + self.rng.uniform(self.low, self.high)
            self.events.append((departure, self._until))
            return None
        return departure
