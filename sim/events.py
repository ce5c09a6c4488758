"""The event queue: a binary heap of (time, sequence, callback, argument).

Ties at the same virtual time run in the order they were scheduled (the sequence number), so a
run is a pure function of its inputs and seed. Cancelling is lazy: owners that re-arm a timer
remember the deadline they want and ignore stale firings (see ``sim.nodes``), which keeps the
heap free of tombstones.
"""

from __future__ import annotations

import heapq
from typing import Any, Callable

__all__ = ["EventQueue"]


class EventQueue:
    """Virtual clock and pending events; ``run(until)`` executes them in time order."""

    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[[Any], None], Any]] = []
        self._seq = 0
        self.executed = 0

    def schedule(self, time: float, callback: Callable[[Any], None], arg: Any = None) -> None:
        """Run ``callback(arg)`` at virtual ``time`` (never earlier than now)."""
        if not time >= self.now:        # also refuses NaN, which would break the heap order
            raise ValueError(f"cannot schedule at {time!r}: the clock is already at {self.now!r}")
        self._seq += 1
        heapq.heappush(self._heap, (time, self._seq, callback, arg))

    def reserve(self) -> int:
        """Take the next sequence number now, for an event whose entry goes into the heap
        later with ``schedule_reserved``: it then runs exactly where ``schedule`` called at
        this moment would have put it among events of the same time."""
        self._seq += 1
        return self._seq

    def schedule_reserved(self, time: float, seq: int, callback: Callable[[Any], None],
                          arg: Any = None) -> None:
        """``schedule`` with a sequence number taken earlier by ``reserve``."""
        if not time >= self.now:        # also refuses NaN, which would break the heap order
            raise ValueError(f"cannot schedule at {time!r}: the clock is already at {self.now!r}")
        heapq.heappush(self._heap, (time, seq, callback, arg))

    def peek_time(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def __len__(self) -> int:
        return len(self._heap)

    def run(self, until: float) -> None:
        """Execute every event with time <= ``until``; the clock ends at ``until``."""
        heap, pop = self._heap, heapq.heappop
        n = 0
        while heap and heap[0][0] <= until:
            time, _, callback, arg = pop(heap)
            self.now = time
            callback(arg)
            n += 1
        self.executed += n
        self.now = max(self.now, until)
