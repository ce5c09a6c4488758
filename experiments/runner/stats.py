"""Statistics the reports use beyond the standard library's ``statistics``."""

from __future__ import annotations

import math
from typing import Sequence

__all__ = ["mann_whitney_p", "shift_interval", "signed_rank_p", "paired_shift_interval"]


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the Mann-Whitney U test that ``a`` and ``b`` come from the same
    distribution: the normal approximation of U with the tie correction and a continuity
    correction of 1/2 (adequate from about 8 values per sample; Mann and Whitney 1947,
    Lehmann's Nonparametrics §1.4). 1.0 when either sample is empty or every value ties."""
    n1, n2 = len(a), len(b)
    if not n1 or not n2:
        return 1.0
    pooled = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(pooled)
    ties = 0.0
    i = 0
    while i < len(pooled):          # average ranks over runs of equal values
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t ** 3 - t
        i = j + 1
    r1 = sum(r for r, (_, g) in zip(ranks, pooled) if g == 0)
    u = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(var)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def _normal_quantile(p: float) -> float:
    """The standard normal quantile, by bisection on erfc (ample for confidence levels)."""
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2)) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def shift_interval(a: Sequence[float], b: Sequence[float],
                   confidence: float = 0.90) -> tuple[float, float] | None:
    """The distribution-free confidence interval of the shift between ``a`` and ``b``
    (a - b), which goes with the Mann-Whitney test (Lehmann's Nonparametrics §2.6; Bauer
    1972): the C-th smallest and C-th largest of the len(a) * len(b) differences a_i - b_j,
    with C from the normal approximation of U's null distribution. Its centre is the
    Hodges-Lehmann estimate. A 90 % interval inside (-d, d) is equivalence within d by two
    one-sided tests at 5 %. None when the samples are too small for any interval at this
    confidence (C < 1)."""
    m, n = len(a), len(b)
    if not m or not n:
        return None
    z = _normal_quantile(1 - (1 - confidence) / 2)
    c = math.floor(m * n / 2 - z * math.sqrt(m * n * (m + n + 1) / 12))
    if c < 1:
        return None
    diffs = sorted(x - y for x in a for y in b)
    return diffs[c - 1], diffs[len(diffs) - c]


def _signed_rank_null(n: int) -> list[float]:
    """P(T+ = t) for t = 0 .. n(n+1)/2 under the null of Wilcoxon's signed-rank test (each
    rank's sign + or - with probability 1/2, no ties), by counting the subsets of 1..n with
    each sum."""
    top = n * (n + 1) // 2
    ways = [1] + [0] * top
    for r in range(1, n + 1):
        for t in range(top, r - 1, -1):
            ways[t] += ways[t - r]
    total = 2 ** n
    return [w / total for w in ways]


def signed_rank_p(d: Sequence[float]) -> float:
    """Two-sided p-value of Wilcoxon's signed-rank test that the paired differences ``d`` are
    symmetric about 0: zeros dropped (Wilcoxon's rule), the exact null distribution up to 30
    non-zero differences (ties of |d| take their mean rank, and the exact distribution is then
    an approximation), the normal approximation beyond. 1.0 when every difference is 0."""
    nz = [x for x in d if x != 0]
    n = len(nz)
    if not n:
        return 1.0
    order = sorted(range(n), key=lambda i: abs(nz[i]))
    ranks = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and abs(nz[order[j + 1]]) == abs(nz[order[i]]):
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    t_plus = sum(r for r, x in zip(ranks, nz) if x > 0)
    top = n * (n + 1) / 2
    t = min(t_plus, top - t_plus)
    if n <= 30:
        null = _signed_rank_null(n)
        return min(1.0, 2 * sum(p for s, p in enumerate(null) if s <= math.floor(t + 1e-9)))
    z = (abs(t_plus - top / 2) - 0.5) / math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def paired_shift_interval(d: Sequence[float],
                          confidence: float = 0.90) -> tuple[float, float] | None:
    """The distribution-free confidence interval of the centre of the paired differences
    ``d``, which goes with Wilcoxon's signed-rank test (Lehmann's Nonparametrics §4.3): with
    c the largest count such that P(T+ <= c) <= (1 - confidence) / 2, the (c+1)-th smallest and
    (c+1)-th largest of the n(n+1)/2 Walsh averages (d_i + d_j) / 2, i <= j. Its centre is the
    Hodges-Lehmann estimate. None when n is too small for any interval at this confidence
    (5 pairs at least for 90 %)."""
    n = len(d)
    if not n:
        return None
    alpha = (1 - confidence) / 2
    if n <= 30:
        null = _signed_rank_null(n)
        cum, c = 0.0, -1
        for s, p in enumerate(null):
            cum += p
            if cum > alpha + 1e-12:
                break
            c = s
    else:
        z = _normal_quantile(1 - alpha)
        c = math.floor(n * (n + 1) / 4 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24)) - 1
    if c < 0:
        return None
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    return walsh[c], walsh[len(walsh) - 1 - c]
