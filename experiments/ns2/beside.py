"""ns-2 beside a figure driver: the driver's runs that ns-2 2.35 can express, run in ns-2 itself
(``experiments.ns2.runs.run_ns2``), for the driver's figures and tables to set ns-2's numbers
beside the paper's and ours (``--ns2`` on ``experiments.rdtcp_figures`` and
``experiments.rrtcp_figures``).

``plan(specs)`` sorts a sweep's specs before anything runs: those ns-2 can run (its senders
SACK, NewReno and Reno, ``experiments.ns2.scenario.AGENTS``, on the scenario as
``describe`` writes it: [RDTCP]'s swaps as hold-backs before R1's queue, [RRTCP]'s delays as error
models), the senders ns-2 lacks (each with the reason, for the tables' "—"), and the specs of
ns-2's senders it cannot express (a P4 injection, a bounded swap span), counted by reason.
``Ns2Plan.run`` runs them on ``jobs`` threads (each an ``ns`` process) and returns rows in the
runs' row format with ``engine`` "ns2"; a failing ``ns`` is an Ns2Error naming the script.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

from experiments.ns2 import install
from experiments.ns2.install import Ns2Error
from experiments.ns2.runs import run_ns2
from experiments.ns2.scenario import AGENTS, Inexpressible, Ns2Run, describe
from experiments.runner.cli import UsageError
from experiments.runner.spec import RunSpec

__all__ = ["Ns2Plan", "Ns2Beside", "plan", "require_ns2", "add_ns2_option", "ns2_writer", "NS2",
           "OURS",
           "AGENT_NAMES", "LACKS", "NS2_VERDICTS"]

NS2 = "ns2"                 # the rows' ``engine``: ns-2 2.35 itself
OURS = "ours"               # ... the lab's engine (the driver's own runs)
# ns-2's class of each sender it has, as the figures and tables name it
AGENT_NAMES = {v: f"Agent/TCP/{agent}" for v, (agent, _sink) in AGENTS.items()}
LACKS = "ns-2 2.35 has no such sender"
# what the statements' ns-2 column holds
NS2_VERDICTS = ("each statement judged on ns-2's runs of the same points, with its two "
                "verdicts; — where ns-2 ran nothing to judge it on, and why")


def require_ns2() -> None:
    """Ns2Error (one line) where ``ns`` is not installed."""
    if install.ns_binary() is None:
        raise Ns2Error(f"--ns2: ns-2 is not installed ({install.NS} is not on PATH; apt-get "
                       f"install ns2, or set NS2_BINARY)")


@dataclass
class Ns2Plan:
    runs: list[Ns2Run] = field(default_factory=list)
    lacking: dict[str, str] = field(default_factory=dict)     # variant -> why ns-2 has none
    inexpressible: dict[str, int] = field(default_factory=dict)   # reason -> specs refused

    def describe(self) -> str:
        """One line: what ns-2 will run and what it leaves out."""
        variants = sorted({r.spec.variant for r in self.runs})
        parts = [f"ns-2: {len(self.runs)} runs of {', '.join(variants) or 'no sender'}"]
        if self.lacking:
            parts.append(f"none of {', '.join(sorted(self.lacking))} ({LACKS})")
        if self.inexpressible:
            n = sum(self.inexpressible.values())
            parts.append(f"{n} of its senders' runs not expressible in ns-2 "
                         f"({'; '.join(sorted(self.inexpressible))})")
        return "; ".join(parts)

    def run(self, workdir: Path, *, jobs: int = 1, progress: bool = True) -> list[dict]:
        """Every planned run in ns-2 (scripts in ``workdir``), in the plan's order, each row's
        ``engine`` "ns2"; Ns2Error on the first run that fails."""
        if not self.runs:
            return []
        done = 0

        def one(run: Ns2Run) -> dict:
            nonlocal done
            row = run_ns2(run, workdir)
            done += 1
            if progress:
                print(f"\rns-2: {done} of {len(self.runs)} runs", end="", file=sys.stderr,
                      flush=True)
            return row
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            rows = list(pool.map(one, self.runs))
        if progress:
            print(file=sys.stderr)
        return rows


def plan(specs: Sequence[RunSpec]) -> Ns2Plan:
    """The specs ns-2 runs, the senders it lacks and the specs it cannot express (the module
    docstring); nothing runs."""
    out = Ns2Plan()
    for spec in dict.fromkeys(replace_for_ns2(s) for s in specs):
        if spec.variant not in AGENTS:
            out.lacking.setdefault(spec.variant, LACKS)
            continue
        try:
            out.runs.append(describe(spec))
        except Inexpressible as exc:
            reason = str(exc)
            out.inexpressible[reason] = out.inexpressible.get(reason, 0) + 1
    return out


def replace_for_ns2(spec: RunSpec) -> RunSpec:
    """The spec as ns-2 runs it: without the time-series sampling step, which only our
    engine records (ns-2's rows have no series)."""
    return replace(spec, sample_step=0.0) if spec.sample_step else spec


def add_ns2_option(p, senders: str) -> None:
    """--ns2 on a figure driver's command line; ``senders``: which of its senders ns-2 runs."""
    p.add_argument("--ns2", action="store_true",
                   help=f"also run the runs of the senders ns-2 2.35 has ({senders}) in ns-2 "
                        f"itself (experiments/ns2/scenario.py: the same network, the "
                        f"reordering from ns-2's error models) and set ns-2's curves beside "
                        f"ours in every figure and a column ns-2 in paper_table.md; rows of "
                        f"runs.csv carry engine (ours, ns2), the scripts are in OUT/ns2/; the "
                        f"senders ns-2 lacks get '—'. Needs ns (apt-get install ns2): without "
                        f"it, an error (exit status 2) (default: not run)")


def ns2_writer(args, specs: Callable[[], Sequence[RunSpec]], write_outputs):
    """A figure driver's ``write_outputs`` as its sweep runs it: itself without ``args.ns2``;
    with it, ns-2's runs of ``specs()`` made first (``Ns2Beside.around``). None, the error
    printed in one line, where ns is not installed (the driver exits with status 2)."""
    if not getattr(args, "ns2", False):
        return write_outputs
    try:
        return Ns2Beside.prepare(specs(), args).around(write_outputs)
    except Ns2Error as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


class Ns2Beside:
    """A driver's ns-2 runs: planned before anything runs (``prepare``: ns missing is an
    Ns2Error), run once ours are done, just before the driver writes its report
    (``around``)."""

    def __init__(self, ns2_plan: Ns2Plan, *, jobs: int = 1, progress: bool = True) -> None:
        self.plan = ns2_plan
        self.jobs = jobs
        self.progress = progress
        self.rows: list[dict] = []

    @classmethod
    def prepare(cls, specs: Sequence[RunSpec], args) -> "Ns2Beside":
        require_ns2()
        return cls(plan(specs), jobs=args.jobs, progress=not args.no_progress)

    def around(self, write_outputs):
        """The driver's ``write_outputs`` with ns-2's runs made first and passed as ``ns2``.
        A failing ns is a UsageError (one line, exit status 2) that keeps our runs."""
        def write(rows, cfg, out, **kw):
            print(self.plan.describe(), file=sys.stderr)
            try:
                self.rows = self.plan.run(Path(out) / "ns2", jobs=self.jobs,
                                          progress=self.progress)
            except Ns2Error as exc:
                raise UsageError(f"{exc} (no report written; our runs are kept in "
                                 f"{out}/runs.jsonl: --resume reuses them)") from None
            return write_outputs(rows, cfg, out, ns2=self, **kw)
        return write

    def with_engine(self, ours: list[dict], theirs: list[dict] | None = None) -> list[dict]:
        """Our rows then ns-2's (its runs, or ``theirs``), each with its ``engine``."""
        return ([{**r, "engine": OURS} for r in ours]
                + [{**r, "engine": NS2} for r in (self.rows if theirs is None else theirs)])

    def lacking_text(self) -> str:
        return (f"ns-2 has no {', '.join(sorted(self.plan.lacking))}" if self.plan.lacking
                else "")

    def summary(self, points: list[dict]) -> dict:
        """What summary.json keeps of ns-2's runs."""
        return {"runs": len(self.rows), "senders": {v: AGENT_NAMES[v] for v in
                                                    sorted({r["variant"] for r in self.rows})},
                "lacking": dict(sorted(self.plan.lacking.items())),
                "inexpressible": self.plan.inexpressible, "points": points,
                "scripts": "ns2/", "wall_s": round(sum(r["wall_s"] for r in self.rows), 3)}
