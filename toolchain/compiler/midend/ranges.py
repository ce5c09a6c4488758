"""Range match -> value/mask pairs.

BMv2 parse-state transitions only match value/mask (JSON_format.md, "parsers"), so a select
case `lo .. hi` becomes the minimal list of aligned power-of-two blocks covering [lo, hi],
each one a value with a prefix mask, as p4c does.
"""
from __future__ import annotations


def range_to_masks(lo: int, hi: int, width: int) -> list[tuple[int, int]]:
    """Cover [lo, hi] (inclusive, unsigned, `width` bits) with (value, mask) pairs."""
    full = (1 << width) - 1
    lo, hi = max(lo, 0), min(hi, full)
    out = []
    while lo <= hi:
        size = lo & -lo if lo else 1 << width     # largest block aligned at lo ...
        while size > hi - lo + 1:                  # ... that does not pass hi
            size >>= 1
        out.append((lo, full & ~(size - 1)))
        lo += size
    return out
