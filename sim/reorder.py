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
* ``span`` (optional, the paper does not say how far apart its pairs were) bounds the distance:
  the pair is drawn uniformly among the pairs with ``j - i <= span``. A packet moved back by
  ``d = j - i`` places is overtaken by ``d`` packets, so the receiver sends ``d`` duplicate ACKs
  for it: with ``span <= 2 + k`` RD-TCP's 3+k threshold is never reached by one swap alone.
  ``span = 0`` (the default) is unbounded: the exact draw above.
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
                 seed: int, start: float = 0.0, span: int = 0):
        if swaps < 0:
            raise ValueError(f"swaps must be >= 0, got {swaps}")
        if interval <= 0:
            raise ValueError(f"interval must be > 0 seconds, got {interval}")
        if span < 0:
            raise ValueError(f"span must be >= 0 places (0: unbounded), got {span}")
        self.node = node
        self.port = port
        self.swaps = swaps
        self.interval = interval
        self.span = span
        self.displacements: dict[int, int] = {}   # j - i of every swap done -> how many
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
        if self.span and self.span < waiting - 1:
            i, j = self._bounded_pair(waiting)
        else:
            i, j = sorted(self.rng.sample(range(1, waiting + 1), 2))
        tm.swap(self.port, i, j)
        self.done += 1
        self.displacements[j - i] = self.displacements.get(j - i, 0) + 1
        self.node.rearm()

    def _bounded_pair(self, waiting: int) -> tuple[int, int]:
        """A pair 1 <= i < j <= waiting with j - i <= span, uniform over such pairs: there are
        ``waiting - d`` pairs at distance d, so one index into their concatenation picks one."""
        r = self.rng.randrange(sum(waiting - d for d in range(1, self.span + 1)))
        for d in range(1, self.span + 1):
            if r < waiting - d:
                return 1 + r, 1 + r + d
            r -= waiting - d
        raise AssertionError("unreachable: r is below the number of pairs")
