"""Stateful externs: counters and meters (registers are plain Python lists of ints).

Meters follow BMv2's ``src/bm_sim/meters.cpp``: a meter has one token bucket per rate
(committed, then peak; rates in units per microsecond, bursts in units), and a packet's color
is that of the first bucket, peak first, lacking tokens for it: RFC 2698's two-rate
three-color marker, color-blind (GREEN 0, YELLOW 1, RED 2). Buckets hold whole tokens and
are refilled from the switch's start: a bucket has received ``floor(t * rate)`` tokens by
``t`` microseconds after it (time 0 of the ``now`` passed in), so tokens never accrue in
fractions between packets. An unconfigured meter marks everything GREEN.
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


# a bucket: [info rate (units/us), burst (units), tokens, tokens credited since the start]
RATE, BURST, TOKENS, CREDITED = range(4)


class Meter:
    """One meter instance: token buckets in whole tokens, credited from the switch's start."""

    __slots__ = ("by_bytes", "rates")

    def __init__(self, by_bytes: bool):
        self.by_bytes = by_bytes
        self.rates: list[list] | None = None       # committed first, as set

    def set_rates(self, rates: list[tuple[float, int]]) -> None:
        """Meter::set_rate: each bucket starts full, and the tokens credited since the start
        are counted from 0 again (the next packet's refill is capped by the burst anyway)."""
        self.rates = [[float(r), int(b), int(b), 0] for r, b in rates]

    def execute_one(self, P) -> int:
        """Meter::execute: from the peak bucket down, refill (whole tokens credited up to the
        packet's microsecond), then take the packet's units or stop at the first bucket that
        lacks them: its color. A bucket after that one is neither refilled nor debited now;
        its refill is only deferred, since it is counted from the start."""
        rates = self.rates
        if not rates:
            return GREEN
        amount = P.ingress_length if self.by_bytes else 1
        now_us = P.now_us
        for i in range(len(rates) - 1, -1, -1):
            b = rates[i]
            credited = int(now_us * b[RATE])       # as BMv2: uint64 of micros * rate (double)
            tokens = b[TOKENS] + credited - b[CREDITED]
            b[CREDITED] = credited
            if tokens > b[BURST]:
                tokens = b[BURST]
            if tokens < amount:
                b[TOKENS] = tokens
                return i + 1
            b[TOKENS] = tokens - amount
        return GREEN


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
