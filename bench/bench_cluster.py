"""Wall time of RR-TCP's evaluation per number of Dask workers (``--scheduler local:N``).

    python bench/bench_cluster.py                          # the full mode: 1,203 runs of 1000 s
    python bench/bench_cluster.py --figures t3 --duration 30 --workers 1,2,4    # minutes
    python bench/bench_cluster.py --dry-run                # the commands only

For each N of ``--workers`` it runs ``python -m experiments.rrtcp_figures --mode full
--scheduler local:N`` into a fresh folder and prints the process's wall time (the cluster's
start included), the sweep's own (invocations.jsonl: from the first task to the last row), the
speed-up of each against the first N, the load average before and after, and the interpreters
that ran the rows. The full mode takes about an hour on 2 PyPy workers of an idle 2-core
machine, so a smaller sweep (``--figures``, ``--duration``) is the way to see the scaling on one
machine; on a cluster, run the printed command with --scheduler of your own.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import goals  # bench/, this script's folder

ROOT = Path(__file__).resolve().parents[1]


def command(n: int, out: Path, args: argparse.Namespace) -> list[str]:
    argv = [sys.executable, "-m", "experiments.rrtcp_figures", "--mode", "full",
            "--scheduler", f"local:{n}", "--no-progress", "--out", str(out)]
    if args.figures:
        argv += ["--figures", args.figures]
    if args.duration:
        argv += ["--duration", f"{args.duration:g}"]
    return argv + (["--worker-python", args.worker_python] if args.worker_python else [])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", default="1,2,4", help="the N of local:N to time, in turn")
    p.add_argument("--figures", help="only these of [RRTCP]'s figures and tables (default: all)")
    p.add_argument("--duration", type=float, help="seconds per run (default: the full mode's)")
    p.add_argument("--worker-python", help="as the drivers' --worker-python (default: auto)")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    args = p.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    print(f"# {' '.join(shlex.quote(a) for a in [sys.executable, *sys.argv])}")
    print(f"# machine: {os.cpu_count()} cores")
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        for n in counts:
            out = Path(tmp) / f"local{n}"
            cmd = command(n, out, args)
            print(f"$ {' '.join(shlex.quote(a) for a in cmd)}", flush=True)
            if args.dry_run:
                continue
            load = os.getloadavg()[0]
            started = time.perf_counter()
            done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
            wall = time.perf_counter() - started
            if done.returncode not in (0, 1):       # 1: a statement's run failed, still timed
                print(done.stderr[-2000:], file=sys.stderr)
                return done.returncode
            last = [json.loads(line) for line in (out / "invocations.jsonl").read_text()
                    .splitlines()][-1]
            summary = json.loads((out / "summary.json").read_text())
            results.append((n, last["runs_done"], wall, last["wall_s"], load,
                            os.getloadavg()[0], summary.get("interpreters", {})))
    if not results:
        return 0
    print()
    print("| workers | runs | process wall s | sweep wall s | speed-up (sweep) | load before, "
          "after | interpreters |")
    print("|---:|---:|---:|---:|---:|---|---|")
    base = results[0][3]
    for n, runs, wall, sweep, before, after, interpreters in results:
        print(f"| local:{n} | {runs} | {wall:.1f} | {sweep:.1f} | {base / sweep:.2f}x | "
              f"{before:.1f}, {after:.1f} | "
              + ", ".join(f"{k} ({v})" for k, v in interpreters.items()) + " |")
    _goal(results)
    return 0


def _goal(results) -> None:
    """One line in bench/'s goal form: two workers run the sweep at least 1.6 times as fast as
    one (two cores; the rest is the cluster's own start and the last runs' tail), judged only
    when the machine had a core free for each worker (load average below the cores)."""
    by = {n: (sweep, before) for n, _, _, sweep, before, _, _ in results}
    goal = "local:2 runs the sweep >= 1.6x as fast as local:1"
    if 1 not in by or 2 not in by:
        goals.not_judged(goal, "--workers lacks 1 or 2")
        return
    ratio = by[1][0] / by[2][0]
    load = max(by[1][1], by[2][1])
    if load >= (os.cpu_count() or 1):
        goals.not_judged(goal, f"load average {load:.1f} on {os.cpu_count()} cores",
                         f"{ratio:.2f}x")
    else:
        goals.at_least(goal, ratio, 1.6, f"{ratio:.2f}x")

if __name__ == "__main__":
    sys.exit(main())
