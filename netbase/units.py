"""Mininet's link-option units, parsed to SI: ``bw`` in Mb/s, ``delay`` as "1ms", "50us", "0.1s"."""

from __future__ import annotations

import re

__all__ = ["parse_delay", "parse_bw"]

_DELAY = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(s|ms|us)?\s*$")
_SCALE = {"s": 1.0, "ms": 1e-3, "us": 1e-6, None: 1e-6}  # tc/netem's bare number is microseconds


def parse_delay(value: str | float | int | None) -> float:
    """Seconds from a Mininet/netem delay ("1ms", "50ms", "200us", "0.5s"); None means 0."""
    if value is None:
        return 0.0
    if isinstance(value, (int, float)):
        raise ValueError(f"delay must be a string with a unit like '1ms', got {value!r}")
    m = _DELAY.match(value)
    if not m:
        raise ValueError(f"cannot parse delay {value!r}: expected a number and s, ms or us")
    return float(m.group(1)) * _SCALE[m.group(2)]


def parse_bw(value: float | int | None) -> float | None:
    """Bits per second from Mininet's ``bw`` (Mb/s); None means unlimited."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"bw must be a positive number of Mb/s, got {value!r}")
    return float(value) * 1e6
