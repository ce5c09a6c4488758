"""What every figure sweep does with its run specs, whichever paper's figures it draws:
compile the gateway once, keep the journal (``--resume``), run the rest on workers with a
progress bar, record the invocation, write each run's time series and hand the rows to the
sweep's report. ``experiments.rdtcp_figures`` ([RDTCP]'s Figures 1-4) and
``experiments.rrtcp_figures`` ([RRTCP]'s Figures 4-5) build their specs and reports; this runs them.

A sweep's argument namespace carries the options both share: ``out``, ``jobs``, ``mode``,
``resume``, ``no_progress``, ``worker_python``, ``series``, ``scheduler`` and
``scheduler_file`` (the runs on a Dask cluster: ``experiments.runner.cluster``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import fields, is_dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from experiments.runner import pool
from experiments.runner.cli import UsageError, check_out_dir, finite_float, make_out_dir
from experiments.runner.cluster import scheduler_address
from experiments.runner.journal import (code_version, finished_count, previous_rows,
                                        read_invocations, record_invocation, row_key)
from experiments.runner.pool import run_specs, study_modules, worker_python
from experiments.runner.program import ProgramError, gateway_program
from experiments.runner.spec import RunSpec
from sim.trace import write_series_csv

__all__ = ["main_guarded", "run_sweep", "run_lengths", "run_driver", "write_series", "mode_defaults",
           "add_sweep_options",
           "add_run_options", "default_jobs"]

# report(rows, out, invocations, code_version) -> summary with "table_markdown" and "wall_s"
Report = Callable[[list, Path, list, str], dict]


def mode_defaults(modes: dict, name: str) -> str:
    """The modes' values of one field of their configs, for --help: 'default by --mode: full 3,
    quick 2' (tuples comma-separated, an empty one "none")."""
    def show(value) -> str:
        if isinstance(value, tuple):
            return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value) or "none"
        return f"{value:g}" if isinstance(value, float) else str(value)
    return "default by --mode: " + ", ".join(f"{mode} {show(getattr(cfg, name))}"
                                            for mode, cfg in modes.items())


def add_sweep_options(p: argparse.ArgumentParser, *, out: str) -> None:
    """--jobs and --out, the first options of every sweep's command line."""
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes, at most one per run to do (default: all cores)")
    p.add_argument("--out", default=out, help="output directory, created if missing")


def add_run_options(p: argparse.ArgumentParser) -> None:
    """--series, --worker-python, --resume and --no-progress, the last options of every sweep's
    command line (``run_sweep`` reads them)."""
    p.add_argument("--series", type=finite_float, metavar="STEP",
                   help="also write per-flow time series (cwnd, ssthresh, dupthresh, "
                        "retransmissions, goodput) sampled every STEP s (at most --duration) "
                        "into OUT/series/; with --resume only the runs whose row lacks a series "
                        "at STEP run again (default: none)")
    p.add_argument("--worker-python", default="auto", metavar="PYTHON",
                   help="interpreter the runs execute in: 'auto' (pypy3 when it is on PATH "
                        "and can run the simulator, 2-5x faster; else this one), 'self' "
                        "(this one), or a command/path such as pypy3; results are identical")
    p.add_argument("--resume", action="store_true",
                   help="keep the runs an earlier sweep into the same --out finished (its "
                        "runs.jsonl) with this code version and run only the others: rows of "
                        "other code (e.g. before a git pull) or of no recorded version run "
                        "again, and so do rows without the --series asked for (a row with a "
                        "series serves a sweep without one); without --resume an existing "
                        "journal is set aside as runs.jsonl.prev")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", type=scheduler_address, metavar="ADDRESS",
                       help="run each run as a task on this Dask scheduler (tcp://HOST:8786), "
                            "or on local:N, a LocalCluster of N workers started here (--jobs "
                            "is then not used); the files written are those of a run here "
                            "(experiments/CLUSTER.md)")
    where.add_argument("--scheduler-file", metavar="PATH",
                       help="the same, with the scheduler named by its scheduler file (dask "
                            "scheduler --scheduler-file, dask-jobqueue)")


def default_jobs(args: argparse.Namespace) -> None:
    """--jobs left out: one worker per core."""
    if args.jobs is None:
        args.jobs = os.cpu_count() or 1


def write_series(rows: list[dict], folder: Path, name_of: Callable[[dict], str]) -> None:
    """One CSV per run that recorded a time series (rows keep everything else)."""
    for row in rows:
        series = row.pop("_series", None)
        if not series:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        write_series_csv(folder / name_of(row), series)


def main_guarded(sweep: Callable[[dict], int]) -> int:
    """Run ``sweep(where)``: a usage error is one line and exit status 2; Ctrl-C says how many
    runs the journal kept (``where`` holds the journal and specs once the sweep knows them)."""
    where: dict = {}
    try:
        return sweep(where)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if "journal" in where:
            journal, specs = where["journal"], where["specs"]
            kept = finished_count(journal, specs, where["version"])
            print(f"\ninterrupted: {kept} of {len(specs)} runs kept in {journal}; rerun with "
                  f"--resume to finish", file=sys.stderr)
        else:
            print("\ninterrupted before any run started", file=sys.stderr)
        return 130                      # 128 + SIGINT, as a shell reports it


def run_driver(args: argparse.Namespace, cfg: Any, *, build_specs: Callable[[Any], list],
               write_outputs: Callable[..., Any], name_of: Callable[[dict], str],
               label: str, modes: dict[str, Any] | None = None) -> int:
    """A figure driver's main once its options are parsed into ``cfg`` (a mode's config with
    the overrides): run ``build_specs(cfg)`` and report them with ``write_outputs(rows, cfg,
    out, mode=, invocations=, code_version=)``, usage errors and Ctrl-C handled
    (``main_guarded``). ``cfg.duration``: seconds per run, for the sweep's first line, which
    also names the settings that differ from ``modes[args.mode]`` (the driver's MODES)."""
    def report(rows, out, invocations, version):
        return write_outputs(rows, cfg, out, mode=args.mode, invocations=invocations,
                             code_version=version)
    described = describe_mode(args.mode, cfg, (modes or {}).get(args.mode))
    return main_guarded(lambda where: run_sweep(build_specs(cfg), args, where,
                                                duration=cfg.duration, name_of=name_of,
                                                report=report, label=label,
                                                described=described))


def describe_mode(mode: str, cfg: Any, base: Any | None) -> str:
    """'full mode', or 'full mode with duration, swaps changed' when options overrode the
    mode's settings: a 60 s sweep is not the full mode's sweep."""
    if base is None or not is_dataclass(cfg):
        return f"{mode} mode"
    changed = [f.name for f in fields(cfg) if getattr(cfg, f.name) != getattr(base, f.name)]
    return f"{mode} mode" + (f" with {', '.join(changed)} changed" if changed else "")


def run_lengths(specs: Sequence[RunSpec], default: float) -> str:
    """'60 s each', or '10-1800 s' when the sweep's parts run for different times (Net Reno's
    simulation, lab and trace runs)."""
    lengths = sorted({s.duration for s in specs}) or [default]
    if len(lengths) == 1:
        return f"{lengths[0]:g} s each"
    return f"{lengths[0]:g}-{lengths[-1]:g} s"


def run_sweep(specs: Sequence[RunSpec], args: argparse.Namespace, where: dict, *,
              duration: float, name_of: Callable[[dict], str], report: Report,
              label: str = "runs", described: str | None = None) -> int:
    """Run ``specs`` (those a resumed journal does not hold), then ``report`` on all their
    rows; prints the report's table. Exit status 1 when a run failed, else 0. ``label`` names
    the sweep on its progress bar. With ``args.scheduler`` or ``args.scheduler_file`` the runs
    are tasks on that Dask scheduler (reached, or refused, before anything else)."""
    check_out_dir(Path(args.out))
    backend = None
    if getattr(args, "scheduler", None) or getattr(args, "scheduler_file", None):
        from experiments.runner.cluster import DaskBackend
        backend = DaskBackend.connect(args.scheduler, args.scheduler_file)
    try:
        return _run_sweep(specs, args, where, duration=duration, name_of=name_of,
                          report=report, label=label, described=described, backend=backend)
    finally:
        if backend is not None:
            backend.close()


def _run_sweep(specs: Sequence[RunSpec], args: argparse.Namespace, where: dict, *,
               duration: float, name_of: Callable[[dict], str], report: Report,
               label: str, described: str | None, backend) -> int:
    out = Path(args.out)
    # everything that can refuse the input comes before --out is created
    if backend is None:
        python, why = worker_python(args.worker_python, study_modules(specs))
    try:
        program_path, _ = gateway_program()  # compiled (or the cache reused) once, before forking
    except ProgramError as exc:
        raise UsageError(str(exc)) from None
    version = code_version(program_path)
    if backend is not None:             # every worker checked: its code, its interpreter
        python, why = None, backend.prepare(specs, program_path=program_path, version=version,
                                            python_choice=args.worker_python)
    make_out_dir(out)
    started = time.perf_counter()
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if args.series:
        specs = [replace(s, sample_step=args.series) for s in specs]
    journal = out / "runs.jsonl"
    try:
        resumed = previous_rows(journal, specs, resume=args.resume, version=version)
        open(journal, "a").close()      # writable, or say so now rather than after a run
    except OSError as exc:
        raise UsageError(f"{journal}: {exc.strerror or exc}") from None
    where.update(journal=journal, specs=specs, version=version)
    kept = resumed.kept
    todo = [s for s in specs if s not in kept]
    jobs = pool.jobs_for(args.jobs, len(todo))
    on = f"the Dask scheduler {backend.address}" if backend else f"{jobs} process(es)"
    print(f"{len(specs)} runs ({described or args.mode + ' mode'}, {run_lengths(specs, duration)}, "
          f"code version "
          f"{version}) -> {out}/; " +
          (f"{len(kept)} kept from {journal}, " if args.resume else "") +
          (f"{len(todo)} to run on {on}; {why}" if todo else "nothing to run"),
          file=sys.stderr)
    entry = {"started": started_at, "code_version": version, "resume": bool(args.resume),
             "jobs": None if backend else jobs, "workers": why,
             **({"scheduler": backend.address} if backend else {}),
             "runs_asked": len(specs), "runs_reused": len(kept),
             "reused_runs": sorted(name_of(r)[:-len(".csv")] for r in kept.values())}
    lines_before = _line_count(journal)
    try:
        new = run_specs(todo, jobs=jobs, program_path=program_path,
                        progress=not args.no_progress, python=python, journal=journal,
                        code_version=version, label=label, backend=backend)
    except BaseException as exc:        # Ctrl-C above all: the runs it kept are in the log
        try:
            record_invocation(journal, {
                "outcome": "interrupted" if isinstance(exc, KeyboardInterrupt) else
                f"failed: {type(exc).__name__}",
                "wall_s": round(time.perf_counter() - started, 3), **entry,
                "runs_done": _line_count(journal) - lines_before})
        except OSError:
            pass                        # the interruption is what to report
        raise
    wall_s = time.perf_counter() - started
    record_invocation(journal, {"outcome": "finished", "wall_s": round(wall_s, 3), **entry,
                                "runs_done": len(new),
                                "runs_failed": sum("error" in r for r in new)})
    rows = sorted(list(kept.values()) + new, key=row_key)
    write_series(rows, out / "series", name_of)
    invocations = read_invocations(journal)
    summary = report(rows, out, invocations, version)
    failed = [r for r in rows if "error" in r]
    for r in failed[:5]:
        print(f"run failed: {name_of(r)[:-len('.csv')]}: {r['error']}", file=sys.stderr)
    print(summary["table_markdown"])
    total = (f" (the sweep's {len(invocations)} invocations on this journal: "
             f"{summary['wall_s']:.1f} s)" if len(invocations) > 1 else "")
    print(f"wrote {out}/ in {wall_s:.1f} s{total}", file=sys.stderr)
    return 1 if failed else 0


def _line_count(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0
