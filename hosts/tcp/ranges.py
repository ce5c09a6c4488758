"""Sets of sequence-number ranges [start, end), kept sorted and disjoint.

Used by the receiver for out-of-order data and SACK blocks (RFC 2018) and by RD-TCP for its
reordered list and drop list ([RDTCP] §3.1). Positions are *unwrapped* offsets (relative to the
connection's initial sequence number, so plain integer order is sequence order); the
engine converts at its edges.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

__all__ = ["RangeSet"]


class RangeSet:
    __slots__ = ("starts", "ends", "_total")

    def __init__(self):
        self.starts: list[int] = []
        self.ends: list[int] = []
        self._total = 0             # bytes covered, kept up to date (the receive window reads it per segment)

    def __bool__(self) -> bool:
        return bool(self.starts)

    def __iter__(self):
        return iter(zip(self.starts, self.ends))

    def __len__(self) -> int:
        return len(self.starts)

    def total(self) -> int:
        return self._total

    def _span(self, i: int, j: int) -> int:
        starts, ends = self.starts, self.ends
        return sum(ends[k] - starts[k] for k in range(i, j))

    def add(self, start: int, end: int) -> None:
        if start >= end:
            return
        i = bisect_left(self.ends, start)          # first range ending at/after start
        j = bisect_right(self.starts, end)         # ranges starting at/before end
        if i < j:
            start = min(start, self.starts[i])
            end = max(end, self.ends[j - 1])
        self._total += (end - start) - self._span(i, j)
        self.starts[i:j] = [start]
        self.ends[i:j] = [end]

    def remove(self, start: int, end: int) -> None:
        if start >= end or not self.starts:
            return
        i = bisect_right(self.ends, start)         # first range ending after start
        j = bisect_left(self.starts, end)          # ranges starting before end
        if i >= j:
            return
        keep_s, keep_e = [], []
        if self.starts[i] < start:
            keep_s.append(self.starts[i]); keep_e.append(start)
        if self.ends[j - 1] > end:
            keep_s.append(end); keep_e.append(self.ends[j - 1])
        self._total += sum(e - s for s, e in zip(keep_s, keep_e)) - self._span(i, j)
        self.starts[i:j] = keep_s
        self.ends[i:j] = keep_e

    def contains(self, pos: int) -> bool:
        i = bisect_right(self.starts, pos) - 1
        return i >= 0 and pos < self.ends[i]

    def covers(self, start: int, end: int) -> bool:
        i = bisect_right(self.starts, start) - 1
        return i >= 0 and end <= self.ends[i]

    def minus(self, start: int, end: int, *others: "RangeSet") -> list[tuple[int, int]]:
        """The parts of [start, end) in none of ``others`` (self excluded: pass it explicitly)."""
        parts = [(start, end)] if start < end else []
        for other in others:
            out = []
            for s, e in parts:
                pos = s
                i = bisect_right(other.ends, s)
                while i < len(other.starts) and other.starts[i] < e:
                    if other.starts[i] > pos:
                        out.append((pos, other.starts[i]))
                    pos = max(pos, other.ends[i])
                    i += 1
                if pos < e:
                    out.append((pos, e))
            parts = out
        return parts

    def overlap(self, start: int, end: int) -> list[tuple[int, int]]:
        """The parts of [start, end) that are in this set, in order."""
        out = []
        starts, ends = self.starts, self.ends
        i = bisect_right(ends, start)               # first range ending after start
        while i < len(starts) and starts[i] < end:
            out.append((max(start, starts[i]), min(end, ends[i])))
            i += 1
        return out

    def drop_below(self, pos: int) -> None:
        """Forget everything before ``pos`` (delivered data)."""
        self.remove(self.starts[0], pos) if self.starts and self.starts[0] < pos else None

    def first(self):
        return (self.starts[0], self.ends[0]) if self.starts else None
