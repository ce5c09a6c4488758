"""The paper's reordering: "N random queue swaps" per interval in the bottleneck queue.

seeds/003-rd-tcp-epdn.txt §4–5 vary "the number of random queue swaps performed every 1 or 8
seconds" at R1's drop-tail queue in ns-2. Here, exactly:

* Interval k covers [k·T, (k+1)·T). At its start, N swap times are drawn independently and
  uniformly in the interval (``rng.uniform``), sorted, and scheduled.
* At a swap time the queue of the port is inspected. Position 0 is the packet on the wire (the
  traffic manager's head finishes serialisation at its dequeue time, as ns-2's link holds the
  packet being transmitted outside its queue), so only the waiting packets 1..L-1 take part:
  two distinct positions i < j are drawn uniformly (``rng.sample``) and swapped with
  ``tm.swap(port, i, j)``. With fewer than two waiting packets the swap is skipped and counted.
* The RNG is ``random.Random`` seeded from the run seed, so a seed fixes every swap.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from sim.switch import SwitchNode

__all__ = ["QueueSwapper"]


class QueueSwapper:
    """Performs ``swaps`` random pair swaps per ``interval`` seconds on one egress queue."""

    def __init__(self, node: "SwitchNode", port: int, *, swaps: int, interval: float,
                 seed: int, start: float = 0.0):
        if swaps < 0:
            raise ValueError(f"swaps must be >= 0, got {swaps}")
        if interval <= 0:
            raise ValueError(f"interval must be > 0 seconds, got {interval}")
        self.node = node
        self.port = port
        self.swaps = swaps
        self.interval = interval
        self.rng = random.Random(seed)
        self.done = 0
        self.skipped = 0
        if swaps:
            node.events.schedule(start, self._plan_interval, start)

    def _plan_interval(self, start: float) -> None:
        events = self.node.events
        times = sorted(self.rng.uniform(start, start + self.interval) for _ in range(self.swaps))
        for t in times:
            events.schedule(t, self._swap_once)
        events.schedule(start + self.interval, self._plan_interval, start + self.interval)

    def _swap_once(self, _arg: object = None) -> None:
        tm = self.node.switch.tm
        waiting = tm.queue_length(self.port) - 1      # position 0 is being serialised
        if waiting < 2:
            self.skipped += 1
            return
        i, j = sorted(self.rng.sample(range(1, waiting + 1), 2))
        tm.swap(self.port, i, j)
        self.done += 1
        self.node.rearm()
