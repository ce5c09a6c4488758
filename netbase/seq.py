"""32-bit TCP sequence-number arithmetic (RFC 9293 §3.4): every comparison is modulo 2^32.

Sequence numbers are compared only through these helpers, so a transfer that wraps past
2^32 behaves exactly like one that does not (tests/netbase/test_seq.py).
"""

from __future__ import annotations

SEQ_MOD = 1 << 32
_HALF = 1 << 31
_MASK = SEQ_MOD - 1

__all__ = ["SEQ_MOD", "seq_add", "seq_sub", "seq_lt", "seq_leq", "seq_gt", "seq_geq",
           "seq_max", "seq_min"]


def seq_add(a: int, n: int) -> int:
    """a + n modulo 2^32."""
    return (a + n) & _MASK


def seq_sub(a: int, b: int) -> int:
    """The signed distance a - b in sequence space (in [-2^31, 2^31))."""
    return ((a - b + _HALF) & _MASK) - _HALF


def seq_lt(a: int, b: int) -> bool:
    return seq_sub(a, b) < 0


def seq_leq(a: int, b: int) -> bool:
    return seq_sub(a, b) <= 0


def seq_gt(a: int, b: int) -> bool:
    return seq_sub(a, b) > 0


def seq_geq(a: int, b: int) -> bool:
    return seq_sub(a, b) >= 0


def seq_max(a: int, b: int) -> int:
    return a if seq_geq(a, b) else b


def seq_min(a: int, b: int) -> int:
    return a if seq_leq(a, b) else b
