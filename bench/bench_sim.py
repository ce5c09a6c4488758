"""Benchmark of the simulator: wall-clock seconds for the paper's 10-minute RD-TCP scenario and
for the full Figure 1–4 sweep, and a cProfile split of where the time goes.

    python bench/bench_sim.py                    # one 600 s run + profile of a 60 s run + sweep estimate
    python bench/bench_sim.py --sweep            # also run the full sweep for real (--jobs cores)
    python bench/bench_sim.py --duration 120     # shorter scenario

Goals (issue 4): <= 10 s for the 10-minute scenario, <= 5 min for the full sweep on 2 cores.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments.paper import RunSpec, run_paper  # noqa: E402
from experiments.rdtcp_figures import MODES, build_specs  # noqa: E402
from sim.program import gateway_json  # noqa: E402

# Where a function lives decides whose time it is.
PARTS = (("toolchain/target", "P4 target"), ("toolchain", "P4 toolchain (other)"),
         ("hosts/wire", "wire encode/decode"), ("hosts/", "TCP engine"),
         ("controller/", "controller"), ("sim/events", "event loop"), ("sim/", "simulator nodes"),
         ("experiments/", "experiment"), ("heapq", "event loop"))


def part_of(filename: str) -> str:
    for needle, part in PARTS:
        if needle in filename.replace(os.sep, "/"):
            return part
    return "python/builtins"


def profile_split(spec: RunSpec, program) -> tuple[dict[str, float], list[tuple[float, str]]]:
    prof = cProfile.Profile()
    prof.enable()
    run_paper(spec, program)
    prof.disable()
    stats = pstats.Stats(prof)
    parts: dict[str, float] = {}
    top = []
    for (filename, line, func), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        part = part_of(filename)
        parts[part] = parts.get(part, 0.0) + tottime
        top.append((tottime, f"{Path(filename).name}:{line} {func} [{part}]"))
    return parts, sorted(top, reverse=True)[:15]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=600.0)
    ap.add_argument("--profile-duration", type=float, default=60.0)
    ap.add_argument("--sweep", action="store_true", help="run the full sweep for real")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    print("command: python bench/bench_sim.py " + " ".join(sys.argv[1:]))
    from toolchain.target import load_program
    program = load_program(gateway_json())

    spec = RunSpec(variant="rdtcp", swaps=15, interval=1.0, seed=1, duration=args.duration)
    t0 = time.perf_counter()
    result = run_paper(spec, program)
    wall = time.perf_counter() - t0
    events = result.stats.get("events", 0)
    print(f"paper scenario, RD-TCP, 15 swaps/s, {args.duration:g} s virtual: {wall:.2f} s wall "
          f"(goal <= 10 s for 600 s), {events:,} events ({events / wall:,.0f}/s), "
          f"throughput {result.throughput_Bps:,.0f} B/s")

    specs = build_specs(MODES["full"])
    per_run = wall * MODES["full"].duration / args.duration
    print(f"full sweep: {len(specs)} runs x ~{per_run:.1f} s / {args.jobs} cores = "
          f"~{len(specs) * per_run / args.jobs / 60:.1f} min estimated (goal <= 5 min)")

    parts, top = profile_split(RunSpec(variant="rdtcp", swaps=15, interval=1.0, seed=1,
                                       duration=args.profile_duration), program)
    total = sum(parts.values())
    print(f"cProfile of a {args.profile_duration:g} s run ({total:.2f} s of own time):")
    for part, secs in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"  {part:24s} {secs:7.2f} s  {100 * secs / total:5.1f} %")
    print("  top functions by own time:")
    for secs, name in top:
        print(f"    {secs:6.2f} s  {name}")

    if args.sweep:
        from experiments.rdtcp_figures import main as figures_main
        t0 = time.perf_counter()
        figures_main(["--mode", "full", "--jobs", str(args.jobs), "--out", "results/bench",
                      "--no-progress"])
        print(f"full sweep: {time.perf_counter() - t0:.1f} s wall on {args.jobs} processes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
