"""[FRTO]'s Figs. 1-4: time-sequence diagrams of single transfers, the conventional RTO recovery
beside F-RTO (and Eifel), each after the event the figure is about.

- Fig. 1: a delay triggers spurious retransmission ([FRTO] §2: the conventional sender, a delay
  spike on the link, the whole window retransmitted for nothing);
- Fig. 2: the conventional RTO recovery and F-RTO after an excessive delay (here with Eifel,
  [FRTO]'s other detector, below them);
- Fig. 3: the two after a lost retransmission (a segment sent three times);
- Fig. 4: the two after a burst loss (an outage of the BURST scenario ending in a timeout).

[FRTO] drew each from one traced transfer of its scenarios. Here each figure's transfer is the
first seed (1, 2, ... up to ``SEARCH_SEEDS``) whose conventional run shows the figure's event,
found from the run's counters and its capture at the sender's interface; every sender of the
figure then runs with that seed, so they meet the same impairment up to the event (their runs
are identical until their recoveries differ). Each panel shows the seconds around the event's
timeout (a retransmission after a second without a transmission), Fig. 1 the whole transfer
above them. The diagrams are drawn by
``experiments.runner.timeseq``, as every study's are.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from experiments.runner.spec import RunSpec
from experiments.runner.timeseq import TimeSequence, read_time_sequence, time_sequence_panels
from experiments.studies.frto.scenario import run_frto

__all__ = ["TraceFigure", "TRACE_FIGURES", "SEARCH_SEEDS", "trace_figures"]

SEARCH_SEEDS = 30       # seeds tried per figure before saying the event did not happen
SILENCE = 1.0           # s without a transmission before a retransmission: the timer's (a
                        # segment takes 86 ms on [FRTO]'s 28.8 kbit/s link, its minimum RTO 200 ms)
BEFORE, AFTER = 3.0, 9.0    # the figures' stretch around the event's timeout, as [FRTO]'s are
CONVENTIONAL = "sack"   # [FRTO]'s conventional RTO recovery: Regular SACK on Linux 2.4
NAMES = {"sack": "conventional RTO recovery (Regular SACK)", "frto": "F-RTO (SACK)",
         "eifel": "Eifel (SACK, timestamps)"}


def _spurious(row: dict, ts: TimeSequence) -> bool:
    """A timeout after a stall and at least two unneeded retransmissions: a window resent."""
    return row["stalls"] > 0 and row["timeouts"] > 0 and row["unneeded_retransmits"] >= 2


def _lost_retransmission(row: dict, ts: TimeSequence) -> bool:
    """A timeout and a segment sent at least three times (its retransmission was lost too)."""
    again = Counter(s for _, s in ts.resent)
    return row["timeouts"] > 0 and any(n >= 2 for n in again.values())


def _burst(row: dict, ts: TimeSequence) -> bool:
    """An outage during the transfer, a timeout and at least three data segments lost."""
    return row["outages"] > 0 and row["timeouts"] > 0 and row["lost_data"] >= 3


def _timeouts(ts: TimeSequence) -> list:
    """(time, segment) of the retransmissions that follow SILENCE seconds without a
    transmission: those the retransmission timer made."""
    sends = sorted([(t, s, False) for t, s in ts.sent] + [(t, s, True) for t, s in ts.resent])
    return [(t, s) for (before, _, _), (t, s, again) in zip(sends, sends[1:])
            if again and t - before >= SILENCE]


def _first_timeout(ts: TimeSequence) -> float | None:
    return next((t for t, _ in _timeouts(ts)), None)


def _timeout_of_a_retransmission(ts: TimeSequence) -> float | None:
    """The first timeout that retransmits a segment already retransmitted."""
    resent = sorted(ts.resent)
    for t, s in _timeouts(ts):
        if any(s == s0 and t0 < t for t0, s0 in resent):
            return t
    return None


@dataclass(frozen=True)
class TraceFigure:
    name: str                       # the PNG's file name
    scenario: str
    level: float
    variants: tuple[str, ...]
    event: Callable[[dict, TimeSequence], bool]
    title: str
    at: Callable[[TimeSequence], float | None] = _first_timeout    # the event's timeout


TRACE_FIGURES = (
    TraceFigure("fig1_spurious_rto.png", "frto-delay", 0.02, (CONVENTIONAL,), _spurious,
                "[FRTO] Fig. 1: a delay triggers spurious retransmission"),
    TraceFigure("fig2_delay_frto.png", "frto-delay", 0.02, (CONVENTIONAL, "frto", "eifel"),
                _spurious, "[FRTO] Fig. 2: the conventional RTO and F-RTO after an excessive delay"),
    TraceFigure("fig3_lost_retransmission.png", "frto-loss", 0.10, (CONVENTIONAL, "frto"),
                _lost_retransmission,
                "[FRTO] Fig. 3: the conventional RTO and F-RTO after a lost retransmission",
                _timeout_of_a_retransmission),
    TraceFigure("fig4_burst.png", "frto-burst", 0.0, (CONVENTIONAL, "frto"), _burst,
                "[FRTO] Fig. 4: the conventional RTO and F-RTO after a burst loss"),
)


def _traced(spec: RunSpec, program: Any, where: Path) -> tuple[dict, TimeSequence]:
    pcap = where / f"{spec.variant}-{spec.scenario}-{spec.seed}.pcap"
    result = run_frto(spec, program, pcap=str(pcap))
    return result.row(), read_time_sequence(pcap)


def trace_figures(program: Any, out: Path, *, variants: tuple[str, ...],
                  scenarios: tuple[str, ...], duration: float) -> tuple[list[str], list[str]]:
    """Draw the figures of TRACE_FIGURES whose scenario is in ``scenarios`` ([FRTO]'s scenario
    names: delay, loss, burst), each with those of its senders in ``variants`` (the
    conventional one always). Returns (file names written, one note per figure not drawn)."""
    written, notes = [], []
    found: dict = {}                # (scenario, level, event) -> (seed, conventional trace)
    with tempfile.TemporaryDirectory(prefix="frto-traces-") as tmp:
        where = Path(tmp)
        for fig in TRACE_FIGURES:
            if fig.scenario.removeprefix("frto-") not in scenarios:
                continue
            key = (fig.scenario, fig.level, fig.event)
            if key not in found:
                found[key] = _search(fig, program, where, duration)
            if found[key] is None:
                notes.append(f"{fig.name}: no seed of 1-{SEARCH_SEEDS} shows the event "
                             f"({fig.event.__doc__.strip()})")
                continue
            seed, conventional = found[key]
            runs = [(CONVENTIONAL, conventional)]
            for variant in fig.variants[1:]:
                if variant in variants:
                    spec = RunSpec(variant, scenario=fig.scenario, level=fig.level, seed=seed,
                                   duration=duration)
                    runs.append((variant, _traced(spec, program, where)[1]))
            end = max(max((t for t, _ in ts.acks), default=0.0) for _, ts in runs)
            at = fig.at(conventional)
            window = (0.0, end) if at is None else (max(0.0, at - BEFORE), at + AFTER)
            panels = [(f"{NAMES.get(v, v)}: {_counts(ts)}", ts, window) for v, ts in runs]
            shade = None
            if len(runs) == 1 and at is not None:   # Fig. 1: the whole transfer above
                panels.insert(0, (f"{NAMES[CONVENTIONAL]}, the whole transfer", conventional,
                                  (0.0, end)))
                shade = window
            level = f" {fig.level:.0%}" if fig.level else ""
            stretch = "" if at is None else (f"; {window[0]:.1f}-{window[1]:.1f} s around the "
                                             f"timeout at {at:.1f} s")
            title = (f"{fig.title}\n{fig.scenario}{level}, seed {seed} (the first whose "
                     f"conventional run shows it), captured at the sender{stretch}")
            if time_sequence_panels(panels, out / fig.name, title=title, shade=shade):
                written.append(fig.name)
    return written, notes


def _search(fig: TraceFigure, program: Any, where: Path, duration: float):
    for seed in range(1, SEARCH_SEEDS + 1):
        spec = RunSpec(CONVENTIONAL, scenario=fig.scenario, level=fig.level, seed=seed,
                       duration=duration)
        row, ts = _traced(spec, program, where)
        if fig.event(row, ts):
            return seed, ts
    return None


def _counts(ts: TimeSequence) -> str:
    return f"{len(ts.sent)} segments sent, {len(ts.resent)} retransmitted in the transfer"
