"""Reproduce RD-TCP's Figures 1–4 (seeds/003-rd-tcp-epdn.txt §5–6) in virtual time.

    python -m experiments.rdtcp_figures --mode full --jobs 2 --out results/
    python -m experiments.rdtcp_figures --mode quick --out results/     # CI-sized

Each point is the throughput of one bulk transfer (A -> B over the paper's dumbbell) against the
number of random queue swaps per 1 s or 8 s interval at R1's bottleneck, for TCP SACK, TCP with
DSACK undo and RD-TCP (k = 3), several seeds per point (mean and standard deviation). Further
series use the gateway's own P4 reordering injections (alternate path, recirculation).

Outputs in --out: runs.csv (one row per run), points.csv (mean/std per point),
fig1_sack.png, fig2_rdtcp.png, fig3_sack_vs_rdtcp.png, fig4_dsack_vs_rdtcp.png,
fig5_injection.png (when injection series ran), fig6_k_study.png (RD-TCP at the paper's 15 swaps
every second against k, for unbounded and bounded swap distances: the paper's §6 statements on k),
paper_table.md/.csv (the paper's numbers beside ours), summary.json (configuration, points, shape
checks, k study, timings).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

from experiments.paper import INJECTIONS, PAPER_VARIANTS, VARIANTS, RunSpec
from experiments.worker import worker_env

__all__ = ["MODES", "SweepConfig", "build_specs", "main", "K_STUDY_SWAPS", "K_STUDY_INTERVAL"]

# The k study runs at the one reordering level the paper quotes numbers for (003 §5-6).
K_STUDY_SWAPS = 15
K_STUDY_INTERVAL = 1.0


@dataclass(frozen=True)
class SweepConfig:
    duration: float
    seeds: int
    swaps: tuple[int, ...]
    intervals: tuple[float, ...]
    variants: tuple[str, ...]
    injections: tuple[str, ...]       # P4 injection series besides the paper's swaps
    levels: tuple[float, ...]         # their per-packet probabilities
    swap_span: int = 0                # figures' swap model: max places apart (0: anywhere)
    k_values: tuple[int, ...] = ()    # k study: RD-TCP's k at 15 swaps every 1 s ...
    k_spans: tuple[int, ...] = ()     # ... for each of these swap spans


MODES = {
    # The paper's 10-minute transfers; swap counts around its quoted 15 per second.
    "full": SweepConfig(duration=600.0, seeds=3, swaps=(0, 5, 10, 15, 20, 25, 30),
                        intervals=(1.0, 8.0), variants=VARIANTS,
                        injections=("altpath", "recirc"), levels=(0.0, 0.01, 0.02, 0.05),
                        k_values=(0, 1, 2, 3, 4, 5, 6, 8), k_spans=(0, 5)),
    # Minutes on two cores: shorter transfers, fewer points, no injection series.
    "quick": SweepConfig(duration=60.0, seeds=2, swaps=(0, 5, 15, 30), intervals=(1.0, 8.0),
                         variants=VARIANTS, injections=(), levels=(0.0, 0.02),
                         k_values=(0, 1, 3, 6), k_spans=(0, 5)),
}


def build_specs(cfg: SweepConfig) -> list[RunSpec]:
    """Every run of the sweep, each once. Zero swaps is one point shared by both intervals;
    the k study reuses the figures' RD-TCP run where they coincide."""
    specs: list[RunSpec] = []
    for variant in cfg.variants:
        for seed in range(1, cfg.seeds + 1):
            base = RunSpec(variant=variant, seed=seed, duration=cfg.duration,
                           swap_span=cfg.swap_span)
            for swaps in cfg.swaps:
                for interval in (cfg.intervals if swaps else cfg.intervals[:1]):
                    specs.append(replace(base, swaps=swaps, interval=interval))
            for injection in (cfg.injections if variant in PAPER_VARIANTS else ()):
                for level in cfg.levels:
                    if level > 0:
                        specs.append(replace(base, injection=injection, level=level))
    if "rdtcp" in cfg.variants:
        for seed in range(1, cfg.seeds + 1):
            for span in cfg.k_spans:
                for k in cfg.k_values:
                    specs.append(RunSpec(variant="rdtcp", seed=seed, duration=cfg.duration,
                                         swaps=K_STUDY_SWAPS, interval=K_STUDY_INTERVAL, k=k,
                                         swap_span=span))
    return list(dict.fromkeys(specs))


# --------------------------------------------------------------------------- running
_PROGRAM = None


def _init_worker(program_path: str) -> None:
    global _PROGRAM
    from toolchain.target import load_program
    _PROGRAM = load_program(program_path)


def _run_one(spec: RunSpec) -> dict:
    from experiments.paper import run_paper
    try:
        result = run_paper(spec, _PROGRAM)
        row = result.row()
        if result.series:
            row["_series"] = result.series
        return row
    except Exception as exc:  # one failed run must not lose the sweep; it is reported
        return {**spec.__dict__, "error": f"{type(exc).__name__}: {exc}"}


def run_specs(specs: Sequence[RunSpec], *, jobs: int, program_path: str,
              progress: bool = True, python: str | None = None,
              journal: Path | None = None) -> list[dict]:
    """Run every spec on ``jobs`` processes (1 and no ``python``: in this process), with a
    progress bar. ``python``: an interpreter to run the workers in (``experiments.worker``).
    ``journal``: a JSON-lines file each row is appended to the moment its run ends, so an
    interrupted sweep keeps what it did (``--resume`` reads it back)."""
    from tqdm import tqdm
    bar = tqdm(total=len(specs), unit="run", disable=not progress, file=sys.stderr,
               desc="RD-TCP figures")
    rows: list[dict] = []
    log = open(journal, "a") if journal is not None else None

    def record(row: dict) -> None:
        rows.append(row)
        if log is not None:
            log.write(json.dumps(row) + "\n")
            log.flush()
        bar.update()

    # longest first packs the pool better: the P4-injection runs carry recirculation work
    ordered = sorted(specs, key=lambda s: (s.duration, s.injection != "swap"), reverse=True)
    try:
        if python:
            _run_in_interpreter(ordered, jobs=jobs, python=python, program_path=program_path,
                                done=record)
        elif jobs <= 1:
            _init_worker(program_path)
            for spec in ordered:
                record(_run_one(spec))
        else:
            ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
            with ctx.Pool(jobs, initializer=_init_worker, initargs=(program_path,)) as pool:
                for row in pool.imap_unordered(_run_one, ordered, chunksize=1):
                    record(row)
    finally:
        bar.close()
        if log is not None:
            log.close()
    return sorted(rows, key=_row_key)


def read_journal(path: Path) -> list[dict]:
    """The rows of an earlier sweep's journal that ran to completion without error (a line cut
    short by an interruption, or a failed run, is left for this sweep to run again)."""
    rows = []
    if not path.exists():
        return rows
    with open(path) as f:
        for line in f:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and "error" not in row and "throughput_Bps" in row:
                rows.append(row)
    return rows


def spec_key(spec_or_row) -> tuple:
    """What identifies a run: every RunSpec field, from a spec or from its row."""
    from dataclasses import fields
    get = spec_or_row.get if isinstance(spec_or_row, dict) else \
        (lambda name: getattr(spec_or_row, name))
    return tuple(get(f.name) for f in fields(RunSpec))


def _run_in_interpreter(specs: Sequence[RunSpec], *, jobs: int, python: str,
                        program_path: str, done) -> None:
    """``jobs`` worker processes of ``python -m experiments.worker``, fed one spec at a time.
    A worker that dies fails its run (with the end of its stderr) and is replaced."""
    import subprocess
    import tempfile
    import threading
    from dataclasses import asdict

    from sim.program import REPO_ROOT

    env = worker_env(REPO_ROOT)
    pending = list(reversed(specs))
    lock = threading.Lock()

    def start(errlog):
        return subprocess.Popen([python, "-m", "experiments.worker", program_path],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog,
                                text=True, cwd=REPO_ROOT, env=env)

    def serve() -> None:
        with tempfile.TemporaryFile("w+") as errlog:
            proc = start(errlog)
            try:
                while True:
                    with lock:
                        if not pending:
                            return
                        spec = pending.pop()
                    proc.stdin.write(json.dumps(asdict(spec)) + "\n")
                    proc.stdin.flush()
                    line = proc.stdout.readline()
                    if line:
                        row = json.loads(line)
                    else:
                        proc.wait()
                        errlog.seek(0)
                        tail = errlog.read()[-400:].strip()
                        row = {**asdict(spec), "error": f"worker {python} exited with status "
                                                        f"{proc.returncode}: {tail}"}
                        errlog.seek(0)
                        errlog.truncate()
                        proc = start(errlog)
                    with lock:
                        done(row)
            finally:
                proc.stdin.close()
                proc.wait()

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def worker_python(choice: str) -> tuple[str | None, str]:
    """The interpreter for the workers and a sentence saying why: ``auto`` takes PyPy
    (``pypy3`` on PATH) when it can import the simulator, else this process's interpreter
    (forked workers); any other value is an interpreter to use, checked the same way."""
    import shutil
    import subprocess

    from sim.program import REPO_ROOT

    if choice == "self":
        return None, f"workers: this interpreter ({sys.implementation.name})"
    path = shutil.which("pypy3") if choice == "auto" else shutil.which(choice)
    if path is None:
        if choice == "auto":
            return None, "workers: this interpreter (no pypy3 on PATH; installing it speeds runs up)"
        raise SystemExit(f"error: --worker-python {choice}: no such interpreter on PATH")
    env = worker_env(REPO_ROOT)
    probe = subprocess.run([path, "-m", "experiments.worker", "--probe"], capture_output=True,
                           text=True, cwd=REPO_ROOT, env=env)
    if probe.returncode != 0 or not probe.stdout.startswith("ok"):
        why = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        if choice == "auto":
            return None, f"workers: this interpreter ({path} cannot run the simulator: {why})"
        raise SystemExit(f"error: --worker-python {choice}: cannot run the simulator: {why}")
    nursery = f", PYPY_GC_NURSERY={env['PYPY_GC_NURSERY']}" if "PyPy" in probe.stdout else ""
    return path, f"workers: {path} ({probe.stdout.strip()[3:]}{nursery})"


def _row_key(row: dict) -> tuple:
    return (row["variant"], row["injection"], row["interval"], row["swaps"], row["level"],
            row.get("k", 0), row.get("swap_span", 0), row["seed"])


# --------------------------------------------------------------------------- CLI
def _csv_list(kind, choices: Iterable | None = None):
    def parse(text: str):
        try:
            values = tuple(kind(v) for v in text.split(",") if v.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
        if not values:
            raise argparse.ArgumentTypeError("the list is empty")
        if choices is not None:
            bad = [v for v in values if v not in choices]
            if bad:
                raise argparse.ArgumentTypeError(
                    f"unknown {', '.join(map(str, bad))}; choose from {', '.join(choices)}")
        return values
    return parse


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.rdtcp_figures",
        description="Reproduce RD-TCP's Figures 1-4 (throughput against random queue swaps for "
                    "TCP SACK, DSACK and RD-TCP) on the simulated dumbbell with the P4 gateway.")
    p.add_argument("--mode", choices=sorted(MODES), default="full",
                   help="full: the paper's 10-minute transfers; quick: a CI-sized sweep")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="worker processes (default: all cores)")
    p.add_argument("--out", default="results", help="output directory (created)")
    p.add_argument("--seeds", type=int, help="seeds per point (overrides the mode)")
    p.add_argument("--duration", type=float, help="seconds of virtual time per transfer")
    p.add_argument("--swaps", type=_csv_list(int), help="swap counts, e.g. 0,5,15,30")
    p.add_argument("--interval", type=_csv_list(float), help="swap intervals in s, e.g. 1,8")
    p.add_argument("--variants", type=_csv_list(str, VARIANTS),
                   help=f"senders, comma-separated (default all: {','.join(VARIANTS)})")
    p.add_argument("--injections", type=_csv_list(str, INJECTIONS[1:]),
                   help="extra P4 injection series: altpath,recirc")
    p.add_argument("--no-injections", action="store_true", help="skip the P4 injection series")
    p.add_argument("--levels", type=_csv_list(float), help="injection probabilities per packet")
    p.add_argument("--swap-span", type=int, metavar="N",
                   help="figures' swap model: swapped packets at most N places apart "
                        "(default 0: anywhere in the queue, the paper's unqualified 'random swaps')")
    p.add_argument("--k-values", type=_csv_list(int),
                   help=f"k study: RD-TCP's k values at {K_STUDY_SWAPS} swaps every "
                        f"{K_STUDY_INTERVAL:g} s, e.g. 0,1,3,6")
    p.add_argument("--k-spans", type=_csv_list(int),
                   help="k study: swap spans to run it for (0: anywhere), e.g. 0,5")
    p.add_argument("--no-k-study", action="store_true", help="skip the k study")
    p.add_argument("--series", type=float, metavar="STEP",
                   help="also write per-flow time series (cwnd, ssthresh, dupthresh, "
                        "retransmissions, goodput) sampled every STEP s into OUT/series/")
    p.add_argument("--worker-python", default="auto", metavar="PYTHON",
                   help="interpreter the runs execute in: 'auto' (default: pypy3 when it is on "
                        "PATH and can run the simulator, ~2-3x faster; else this one), 'self' "
                        "(this one), or a command/path such as pypy3; results are identical")
    p.add_argument("--resume", action="store_true",
                   help="keep the runs an earlier sweep into the same --out finished (its "
                        "runs.jsonl) and run only the others")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("--jobs must be >= 1")
    if args.seeds is not None and args.seeds < 1:
        p.error("--seeds must be >= 1")
    if args.duration is not None and args.duration <= 0:
        p.error("--duration must be > 0 seconds")
    if args.swaps and min(args.swaps) < 0:
        p.error("--swaps must be >= 0")
    if args.interval and min(args.interval) <= 0:
        p.error("--interval must be > 0 seconds")
    if args.swap_span is not None and args.swap_span < 0:
        p.error("--swap-span must be >= 0 (0: anywhere in the queue)")
    if args.k_values and min(args.k_values) < 0:
        p.error("--k-values must be >= 0")
    if args.k_spans and min(args.k_spans) < 0:
        p.error("--k-spans must be >= 0 (0: anywhere in the queue)")
    if args.series is not None and args.series <= 0:
        p.error("--series must be > 0 seconds")
    if args.levels and not all(0 <= v <= 1 for v in args.levels):
        p.error("--levels are probabilities in [0, 1]")
    return args


def sweep_config(args: argparse.Namespace) -> SweepConfig:
    cfg = MODES[args.mode]
    overrides = {"seeds": args.seeds, "duration": args.duration, "swaps": args.swaps,
                 "intervals": args.interval, "variants": args.variants,
                 "injections": args.injections, "levels": args.levels,
                 "swap_span": args.swap_span, "k_values": args.k_values,
                 "k_spans": args.k_spans}
    cfg = replace(cfg, **{k: v for k, v in overrides.items() if v is not None})
    if args.no_injections:
        cfg = replace(cfg, injections=())
    if args.no_k_study:
        cfg = replace(cfg, k_values=(), k_spans=())
    return cfg


def _missing_parts() -> str | None:
    """A sentence naming a part of the project the runs need and cannot import, else None."""
    try:
        from hosts.tcp import TcpConfig, TcpConnection  # noqa: F401
        from hosts.wire import decode_frame, encode_frame  # noqa: F401
    except ImportError as exc:
        return f"the host TCP stack is not importable ({exc})"
    try:
        from controller import Controller  # noqa: F401
        from toolchain.target import SimpleSwitch  # noqa: F401
    except ImportError as exc:
        return f"the P4 target or the controller is not importable ({exc})"
    return None


def write_series(rows: list[dict], folder: Path) -> None:
    """One CSV per run that recorded a time series (rows keep everything else)."""
    from sim.trace import SERIES_COLUMNS
    for row in rows:
        series = row.pop("_series", None)
        if not series:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        name = (f"{row['variant']}_k{row['k']}_{row['injection']}_swaps{row['swaps']}_"
                f"span{row['swap_span']}_every{row['interval']:g}s_level{row['level']:g}_"
                f"seed{row['seed']}.csv")
        with open(folder / name, "w") as f:
            f.write(",".join(SERIES_COLUMNS) + "\n")
            f.writelines(",".join(map(str, r)) + "\n" for r in series)


def _previous_rows(journal: Path, specs: Sequence[RunSpec], *, resume: bool) -> list[dict]:
    """With ``resume``, the finished rows of the journal that this sweep asks for (the journal is
    rewritten with just those); without, an old journal is kept aside as runs.jsonl.prev."""
    if not resume:
        if journal.exists():
            journal.replace(journal.with_suffix(".jsonl.prev"))
        return []
    wanted = {spec_key(s) for s in specs}
    kept: dict[tuple, dict] = {}
    for row in read_journal(journal):
        if spec_key(row) in wanted:
            kept[spec_key(row)] = row
    with open(journal, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in kept.values())
    return list(kept.values())


def main(argv: Sequence[str] | None = None) -> int:
    from experiments.report import write_outputs
    from sim.program import REPO_ROOT, gateway_json

    args = parse_args(argv)
    cfg = sweep_config(args)
    missing = _missing_parts()
    if missing:
        print(f"error: cannot run the sweep: {missing}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    gateway_json()                      # compile (or reuse the cache) once, before forking
    program_path = os.environ.get("RDTCP_PROGRAM") or str(REPO_ROOT / "build" / "rdtcp.json")
    specs = build_specs(cfg)
    if args.series:
        specs = [replace(s, sample_step=args.series) for s in specs]
    python, why = worker_python(args.worker_python)
    journal = out / "runs.jsonl"
    kept = _previous_rows(journal, specs, resume=args.resume)
    todo = [s for s in specs if spec_key(s) not in {spec_key(r) for r in kept}]
    print(f"{len(specs)} runs ({args.mode} mode, {cfg.duration:g} s each) on {args.jobs} "
          f"process(es) -> {out}/; {why}" +
          (f"; {len(specs) - len(todo)} kept from {journal}" if args.resume else ""),
          file=sys.stderr)
    rows = sorted(kept + run_specs(todo, jobs=args.jobs, program_path=program_path,
                                   progress=not args.no_progress, python=python,
                                   journal=journal), key=_row_key)
    write_series(rows, out / "series")
    summary = write_outputs(rows, cfg, out, mode=args.mode,
                            wall_s=time.perf_counter() - started, jobs=args.jobs, workers=why)
    failed = [r for r in rows if "error" in r]
    for r in failed[:5]:
        print(f"run failed: {r['variant']} swaps={r['swaps']} seed={r['seed']}: {r['error']}",
              file=sys.stderr)
    print(summary["table_markdown"])
    print(f"wrote {out}/ in {summary['wall_s']:.1f} s", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
