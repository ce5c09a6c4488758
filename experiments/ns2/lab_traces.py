"""The lab's own scenarios traced packet by packet in ns-2 and in the engine.

The validation suites (``experiments.ns2.corpus``) check the engine on ns-2's small test
networks; the numbers the lab reproduces come from its own scenarios, with hundreds of packets
in flight and bursts of drops at a full queue. Here such a scenario, written once as an ns-2
script (``experiments.ns2.tcl``) and once as the same network in ``sim.nsnet``
(``experiments.ns2.runs.build_ours``), runs in both with ns-2's packet trace on; the sender's
transmissions are compared as the suites compare theirs (``experiments.ns2.trace.compare``):
the same packets in the same order, each leaving within 1 ms of ns-2's time, and the same
drops. The outcome names how far the two agree (the time and count of the packets before the
first difference) and the first difference itself.

Only scenarios without random elements are traced: ns-2 draws its error models from its own
random number stream, which the engine's network does not follow, so a swap or delay run agrees
only in distribution (``python -m experiments.ns2_runs`` compares those by their numbers).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

from experiments.ns2.runs import build_ours, run_ns2
from experiments.ns2.scenario import Ns2Run, describe
from experiments.ns2.trace import TOLERANCE, Difference, Section, compare
from experiments.runner.spec import RunSpec

__all__ = ["LAB_SCENARIOS", "LabOutcome", "sent_and_dropped", "trace_ns2", "trace_ours",
           "check", "check_all"]

TRACE_FILE = "all.tr"

# name -> the spec; [RDTCP] §4's dumbbell without reordering, with each sender ns-2 has: the
# start-up's slow-start overshoot drops about 110 packets at R1 in one window
LAB_SCENARIOS: dict[str, RunSpec] = {
    f"dumbbell-{v}": RunSpec(v, duration=20.0) for v in ("sack", "newreno", "reno")}


@dataclass(frozen=True)
class LabOutcome:
    name: str
    duration: float
    packets: int                    # ns-2's transmissions of the sender over the run
    same_packets: int               # ... sent alike (packet and time) before the first difference
    difference: Difference | None   # None: identical over the run
    agree_until: float              # ns-2's time of the last transmission sent alike

    @property
    def identical(self) -> bool:
        return self.difference is None

    def line(self) -> str:
        head = f"{self.name} ({self.duration:g} s, {self.packets} packets sent by ns-2)"
        if self.identical:
            return f"{head}: identical"
        return (f"{head}: the same {self.same_packets} packets until {self.agree_until:.6f} s; "
                f"then {self.difference}")


def sent_and_dropped(lines: Iterable[str], src: int, hop: int) -> list[Section]:
    """From an ns-2 trace: the sender's data packets as they leave node ``src`` for ``hop``
    (the ``-`` events: transmission starts) and every data packet dropped anywhere, each point
    (time, packet number) in time order."""
    sent, dropped = [], []
    s, h = str(src), str(hop)
    for line in lines:
        f = line.split()
        if len(f) < 12 or f[4] != "tcp":
            continue
        if f[0] == "-" and f[2] == s and f[3] == h:
            sent.append((float(f[1]), f[10]))
        elif f[0] == "d":
            dropped.append((float(f[1]), f[10]))
    return [Section("sent", tuple(sent)), Section("drops", tuple(dropped))]


def trace_ns2(run: Ns2Run, workdir: str | os.PathLike) -> Path:
    """Run ``run`` in ns-2 with its packet trace; the trace file's path (read it as it is
    compared: a long run's trace is hundreds of megabytes). Ns2Error when ns fails."""
    run_ns2(run, workdir, trace=TRACE_FILE)
    return Path(workdir) / TRACE_FILE


def trace_ours(run: Ns2Run) -> list[str]:
    """Run ``run`` in sim.nsnet with the engine's ns2 profile; its trace in ns-2's format."""
    net, _flow = build_ours(run, trace=True)
    net.run(run.spec.duration)
    return [ln.rstrip("\n") for ln in net.trace_lines or ()]


def _nodes(run: Ns2Run) -> tuple[int, int]:
    """Node numbers (ns-2's creation order) of the sender and its first hop."""
    index = {name: i for i, name in enumerate(run.nodes)}
    src = run.src
    hop = next(ln.b if ln.a == src else ln.a for ln in run.links if src in (ln.a, ln.b))
    return index[src], index[hop]


def check(name: str, workdir: str | os.PathLike, *, duration: float | None = None,
          tolerance: float = TOLERANCE, spec: RunSpec | None = None) -> LabOutcome:
    """Trace the lab scenario ``name`` (or ``spec``) in ns-2 and in the engine, compare."""
    spec = spec or LAB_SCENARIOS[name]
    if duration is not None:
        spec = replace(spec, duration=float(duration))
    run = describe(spec)
    if run.impairments or run.holdback is not None:
        raise ValueError(f"{name}: a scenario with random elements agrees with ns-2 only in "
                         f"distribution, not packet by packet")
    src, hop = _nodes(run)
    workdir = Path(workdir) / name
    with trace_ns2(run, workdir).open() as lines:
        expected = sent_and_dropped(lines, src, hop)
    ours = sent_and_dropped(trace_ours(run), src, hop)
    diff = compare(expected, ours, tolerance=tolerance)
    sent = expected[0].points
    if diff is None:
        same = len(sent)
    elif diff.section == "sent":
        same = diff.index
    else:       # the transmissions agree; a drop differs: alike up to that drop's time
        t = diff.expected[0] if diff.expected else diff.ours[0] if diff.ours else 0.0
        same = sum(1 for p in sent if p[0] < t)
    until = sent[same - 1][0] if same else 0.0
    return LabOutcome(name, spec.duration, len(sent), same, diff, until)


def check_all(workdir: str | os.PathLike, names: Sequence[str] | None = None, *,
              duration: float | None = None, tolerance: float = TOLERANCE) -> list[LabOutcome]:
    return [check(n, workdir, duration=duration, tolerance=tolerance)
            for n in (names or LAB_SCENARIOS)]
