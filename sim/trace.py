"""Per-flow time series sampled at a fixed virtual-time step, written as CSV.

Each sample reads the sender's public engine state (``cwnd``, ``ssthresh``, ``dupthresh``,
``stats``) and the receiver application's delivered byte count; goodput is the in-order bytes
delivered to the receiving application during the step divided by the step.
"""

from __future__ import annotations

import csv
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:  # pragma: no cover
    from sim.events import EventQueue

__all__ = ["FlowSampler", "SERIES_COLUMNS", "write_series_csv"]

SERIES_COLUMNS = ("time", "flow", "cwnd", "ssthresh", "dupthresh", "retransmits",
                  "spurious_retransmits", "fast_retransmits", "timeouts", "delivered_bytes",
                  "goodput_Bps")


def _stat(stats: Any, name: str) -> int:
    value = stats.get(name, 0) if isinstance(stats, dict) else getattr(stats, name, 0)
    return int(value or 0)


class FlowSampler:
    """Appends one row per flow every ``step`` seconds while the simulation runs."""

    def __init__(self, events: "EventQueue", flows: Iterable[Any], *, step: float):
        if step <= 0:
            raise ValueError(f"sampling step must be > 0 seconds, got {step}")
        self.events = events
        self.flows = list(flows)
        self.step = step
        self.rows: list[tuple] = []
        self._last = {f.name: 0 for f in self.flows}
        events.schedule(events.now, self._sample)

    def _sample(self, _arg: object = None) -> None:
        now = self.events.now
        for flow in self.flows:
            conn, delivered = flow.sender, flow.delivered_bytes
            stats = conn.stats
            self.rows.append((
                round(now, 9), flow.name, conn.cwnd, conn.ssthresh, conn.dupthresh,
                _stat(stats, "retransmits"), _stat(stats, "spurious_retransmits"),
                _stat(stats, "fast_retransmits"), _stat(stats, "timeouts"), delivered,
                (delivered - self._last[flow.name]) / self.step if now > 0 else 0.0))
            self._last[flow.name] = delivered
        self.events.schedule(now + self.step, self._sample)

    def write_csv(self, path: str) -> None:
        write_series_csv(path, self.rows)


def write_series_csv(path: Any, rows: Iterable[tuple]) -> None:
    """A time series as CSV: the SERIES_COLUMNS header, then one line per sample."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(SERIES_COLUMNS)
        w.writerows(rows)
