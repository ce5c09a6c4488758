"""Stateful externs: register, counter and meter arrays, stored flat.

BMv2 keeps a register array as one flat array of values (``RegisterArray``), a counter array
as a flat array of (packets, bytes) pairs, a meter array as its meters side by side. So do
these: a register cell up to 64 bits wide is one 64-bit slot of an ``array('Q')`` (a wider
one, a Python int in a list), a counter cell two 64-bit slots, a meter cell its buckets'
numbers in four flat arrays, never an object per cell. The memory a program's arrays take is
then known from its JSON (``state_bytes``), and bounded at load time (json_loader).

Meters follow BMv2's ``src/bm_sim/meters.cpp``: a meter has one token bucket per rate
(committed, then peak; rates in units per microsecond, bursts in units), and a packet's color
is that of the first bucket, peak first, lacking tokens for it: RFC 2698's two-rate
three-color marker, color-blind (GREEN 0, YELLOW 1, RED 2). Buckets hold whole tokens and
are refilled from the switch's start: a bucket has received ``floor(t * rate)`` tokens by
``t`` microseconds after it (time 0 of the ``now`` passed in), so tokens never accrue in
fractions between packets. An unconfigured meter marks everything GREEN.
"""

from __future__ import annotations

from array import array

__all__ = ["CounterArray", "MeterArray", "GREEN", "YELLOW", "RED", "register_array",
           "fill", "register_cell_bytes", "COUNTER_CELL_BYTES", "meter_cell_bytes"]

GREEN, YELLOW, RED = 0, 1, 2
U64 = (1 << 64) - 1
COUNTER_CELL_BYTES = 16          # packets and bytes, 64 bits each


def register_cell_bytes(width: int) -> int:
    """Bytes one cell of a ``width``-bit register takes: a 64-bit slot, or for a wider one a
    list slot and a Python int of that many bits (CPython: 24 bytes and 30 bits per 4)."""
    return 8 if width <= 64 else 8 + 24 + 4 * -(-width // 30)


def meter_cell_bytes(rate_count: int) -> int:
    """Four 64-bit numbers per bucket, and the cell's configured flag."""
    return 32 * rate_count + 1


def register_array(width: int, size: int):
    """``size`` cells of a ``width``-bit register, all 0."""
    if width <= 64:
        return _zeros("Q", size)
    return [0] * size


def _zeros(typecode: str, n: int) -> array:
    # by repetition: PyPy then allocates zeroed memory without writing it
    return array(typecode, [0]) * n


def fill(cells, value: int, start: int = 0, end: int | None = None) -> None:
    """Cells ``start`` up to ``end`` (default: the last) set to ``value``, in place (the
    generated code holds the array itself)."""
    end = len(cells) if end is None else end
    if isinstance(cells, array):
        cells[start:end] = array(cells.typecode, [value]) * (end - start)
    else:
        cells[start:end] = [value] * (end - start)


class CounterArray:
    """Packets and bytes per cell, two flat arrays of unsigned 64-bit counts that wrap as
    BMv2's do (the generated code updates them in place: ``_C<id>p``/``_C<id>b``)."""

    def __init__(self, name: str, size: int):
        self.name = name
        self.packets = _zeros("Q", size)
        self.bytes = _zeros("Q", size)

    def __len__(self) -> int:
        return len(self.packets)

    def count(self, index: int, P) -> None:
        if 0 <= index < len(self.packets):
            self.packets[index] = (self.packets[index] + 1) & U64
            self.bytes[index] = (self.bytes[index] + P.ingress_length) & U64

    def write(self, index: int, packets: int, nbytes: int) -> None:
        self.packets[index], self.bytes[index] = packets & U64, nbytes & U64

    def reset(self) -> None:
        fill(self.packets, 0)
        fill(self.bytes, 0)


class MeterArray:
    """A meter array, flat: bucket ``b`` of cell ``i`` is slot ``i * rate_count + b`` of four
    arrays (rate, burst, tokens, tokens credited since the start); ``configured[i]`` says
    whether cell ``i`` has rates; the counts are BMv2's unsigned 64-bit ones (the credit
    wraps as BMv2's uint64 does). A direct meter's entry holds an array of one cell."""

    def __init__(self, spec: dict):
        self.name = spec["name"]
        self.rate_count = rc = int(spec.get("rate_count", 2))
        self.by_bytes = spec.get("type", "bytes") == "bytes"
        self.size = size = int(spec.get("size", 0))
        self.rate = array("d", [0.0]) * (size * rc)
        self.burst = _zeros("Q", size * rc)
        self.tokens = _zeros("Q", size * rc)
        self.credited = _zeros("Q", size * rc)
        self.configured = bytearray(size)

    def __len__(self) -> int:
        return self.size

    def set_rates(self, index: int, rates: list[tuple[float, int]]) -> None:
        """Meter::set_rate for cell ``index``: each bucket starts full, credited from 0."""
        base = index * self.rate_count
        for b, (r, burst) in enumerate(rates):
            self.rate[base + b] = float(r)
            self.burst[base + b] = self.tokens[base + b] = int(burst) & U64
            self.credited[base + b] = 0
        self.configured[index] = 1

    def set_all_rates(self, rates: list[tuple[float, int]]) -> None:
        for i in range(self.size):
            self.set_rates(i, rates)

    def get_rates(self, index: int) -> list[tuple[float, int]]:
        if not self.configured[index]:
            return []
        base = index * self.rate_count
        return [(self.rate[base + b], self.burst[base + b]) for b in range(self.rate_count)]

    def reset(self) -> None:
        """Every cell unconfigured (BMv2's reset_state)."""
        self.configured[:] = bytes(self.size)

    def execute(self, index: int, P) -> int:
        """Meter::execute for cell ``index``: from the peak bucket down, refill (whole tokens
        credited up to the packet's microsecond), then take the packet's units or stop at the
        first bucket that lacks them: its color. A bucket after that one is neither refilled
        nor debited now; its refill is only deferred, since it is counted from the start."""
        if not 0 <= index < self.size or not self.configured[index]:
            return GREEN
        amount = P.ingress_length if self.by_bytes else 1
        now_us = P.now_us
        base = index * self.rate_count
        rate, burst, tokens_, credited_ = self.rate, self.burst, self.tokens, self.credited
        for b in range(self.rate_count - 1, -1, -1):
            slot = base + b
            credited = int(now_us * rate[slot]) & U64   # BMv2: uint64 of micros * rate
            tokens = tokens_[slot] + ((credited - credited_[slot]) & U64)
            credited_[slot] = credited
            if tokens > burst[slot]:
                tokens = burst[slot]
            if tokens < amount:
                tokens_[slot] = tokens
                return b + 1
            tokens_[slot] = tokens - amount
        return GREEN
