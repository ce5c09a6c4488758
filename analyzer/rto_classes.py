"""Why a retransmission timeout happened: Lin and Kung's three classes ([NETRENO]
§4.1, Fig. 1), judged for each RTO a sender profile's machine finds
(analyzer/machine.py), and the shares of Fig. 1 over many of them.

- **non-trigger**: "the sender retransmits a packet without previous attempts because the fast
  retransmission algorithm has not been triggered": the timer fired with no recovery under way
  (the machine in its open state) and the segment had never been sent again;
- **multiple loss**: "a packet that is different from previous retransmissions sent at the
  beginning of this timeout period": a recovery was under way (fast recovery, or the RTO
  recovery of an earlier timeout) and the timer fired for a segment it had not resent;
- **lost retransmission**: "the same packet that has already been resent".

With each RTO the window it happened at: [NETRENO] "records the connection's instant congestion
window size"; a trace shows the data outstanding when the timer fired (SND.MAX - SND.UNA), which
for a sender that is not limited by its data or the peer's window is its window. Fig. 1 plots,
for every X, the share of the RTOs at a window of X segments or more, in all and per class.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["NON_TRIGGER", "MULTIPLE_LOSS", "LOST_RETRANSMISSION", "RTO_CLASSES", "rto_class",
           "class_counts", "window_shares"]

NON_TRIGGER = "non_trigger"
MULTIPLE_LOSS = "multiple_loss"
LOST_RETRANSMISSION = "lost_retransmission"
RTO_CLASSES = (NON_TRIGGER, MULTIPLE_LOSS, LOST_RETRANSMISSION)


def rto_class(recovering: bool, resent_before: bool) -> str:
    """The class of an RTO: ``recovering``, a recovery was under way when the timer fired;
    ``resent_before``, the segment it resends had been retransmitted already."""
    if resent_before:
        return LOST_RETRANSMISSION
    return MULTIPLE_LOSS if recovering else NON_TRIGGER


def class_counts(rtos: Iterable[tuple[str, int]]) -> dict[str, int]:
    """How many of the (class, window) RTOs fall in each class."""
    out = dict.fromkeys(RTO_CLASSES, 0)
    for cls, _ in rtos:
        out[cls] += 1
    return out


def window_shares(rtos: Iterable[tuple[str, int]], xs: Iterable[int]) -> dict[str, list[float]]:
    """Fig. 1's curves: for each X in ``xs``, the share of all RTOs whose window (segments) is
    at least X, in all (``total``) and per class; shares of the whole, so at X = 1 the classes
    add up to the total's 1.0."""
    rtos = list(rtos)
    n = len(rtos)
    xs = list(xs)
    out: dict[str, list[float]] = {"total": []}
    for cls in RTO_CLASSES:
        out[cls] = []
    for x in xs:
        at_least = [cls for cls, w in rtos if w >= x]
        out["total"].append(len(at_least) / n if n else 0.0)
        for cls in RTO_CLASSES:
            out[cls].append(sum(1 for c in at_least if c == cls) / n if n else 0.0)
    return out
