"""The Internet checksum of RFC 1071, computed fast in pure Python.

The ones'-complement sum of 16-bit big-endian words is computed by reading the whole buffer
as one big integer and folding it, which is an order of magnitude faster in CPython than a
per-word loop (a benchmark lives in bench/bench_checksum.py).
"""

from __future__ import annotations

__all__ = ["ones_complement_sum", "internet_checksum"]


def ones_complement_sum(data: bytes, initial: int = 0) -> int:
    """16-bit ones'-complement sum of ``data`` (odd length padded with a zero byte), RFC 1071 §1.

    ``initial`` lets callers chain a pseudo-header sum into the sum of a segment.
    """
    if len(data) & 1:
        data = data + b"\x00"
    n = int.from_bytes(data, "big")
    total = initial
    # Sum the base-2^16 digits of n by folding it in halves on 16-bit boundaries: each step is
    # one C-level bignum operation, and the end-around carry survives because 2^16 == 1 (mod 0xFFFF).
    nbits = n.bit_length()
    while nbits > 32:
        half = (nbits + 31) // 32 * 16
        n = (n >> half) + (n & ((1 << half) - 1))
        nbits = n.bit_length()
    total += n
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def internet_checksum(data: bytes, initial: int = 0) -> int:
    """The checksum field value for ``data``: complement of the ones'-complement sum (RFC 1071)."""
    return (~ones_complement_sum(data, initial)) & 0xFFFF
