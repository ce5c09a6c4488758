"""Stateful externs: counters and meters (registers are plain Python lists of ints).

Meters follow BMv2's ``src/bm_sim/meters.cpp``: a meter has one token bucket per rate,
ordered committed then peak (rates in units per microsecond, bursts in units), and the
color is the highest color whose bucket lacks tokens for the packet — RFC 2698's
two-rate three-color marker (color-blind): GREEN 0, YELLOW 1, RED 2. Only buckets of a
color above the packet's color are debited. An unconfigured meter marks everything GREEN.
"""

from __future__ import annotations

__all__ = ["CounterArray", "Meter", "MeterArray", "GREEN", "YELLOW", "RED"]

GREEN, YELLOW, RED = 0, 1, 2


class CounterArray:
    def __init__(self, name: str, size: int):
        self.name = name
        self.packets = [0] * size
        self.bytes = [0] * size

    def __len__(self) -> int:
        return len(self.packets)

    def count(self, index: int, P) -> None:
        if 0 <= index < len(self.packets):
            self.packets[index] += 1
            self.bytes[index] += P.ingress_length

    def reset(self) -> None:
        # in place: the generated code holds these two lists (``_C<id>p``/``_C<id>b``)
        n = len(self.packets)
        self.packets[:] = [0] * n
        self.bytes[:] = [0] * n


class Meter:
    """One meter instance: token buckets refilled from the packet's timestamp (µs)."""

    __slots__ = ("by_bytes", "rates")

    def __init__(self, by_bytes: bool):
        self.by_bytes = by_bytes
        self.rates: list[list[float]] | None = None    # [info_rate/us, burst, tokens, last_us]

    def set_rates(self, rates: list[tuple[float, int]]) -> None:
        self.rates = [[float(r), float(b), float(b), None] for r, b in rates]

    def execute_one(self, P) -> int:
        if not self.rates:
            return GREEN
        now = P.now_us
        amount = P.ingress_length if self.by_bytes else 1
        for r in self.rates:
            if r[3] is not None:
                r[2] = min(r[2] + (now - r[3]) * r[0], r[1])
            r[3] = now
        color = GREEN
        for i in range(len(self.rates) - 1, -1, -1):
            if self.rates[i][2] < amount:
                color = i + 1
                break
        for i, r in enumerate(self.rates):
            if i + 1 > color:
                r[2] -= amount
        return color


class MeterArray:
    def __init__(self, spec: dict):
        self.name = spec["name"]
        self.rate_count = int(spec.get("rate_count", 2))
        by_bytes = spec.get("type", "bytes") == "bytes"
        self.by_bytes = by_bytes
        self.meters = [Meter(by_bytes) for _ in range(int(spec.get("size", 0)))]

    def __len__(self) -> int:
        return len(self.meters)

    def execute(self, index: int, P) -> int:
        if 0 <= index < len(self.meters):
            return self.meters[index].execute_one(P)
        return GREEN
