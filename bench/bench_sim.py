"""Benchmark of the simulator: wall-clock seconds for the paper's 10-minute RD-TCP scenario and
for the full Figure 1–4 sweep, and a cProfile split of where the time goes.

    python bench/bench_sim.py                    # one 600 s run + profile of a 60 s run + sweep estimate
    python bench/bench_sim.py --sweep            # only the Figure 1-4 sweep, for real (--jobs
                                                 # processes): 3 senders x (no swaps + 6 swap
                                                 # counts x 2 intervals), 1 seed, 600 s each
                                                 # (39 runs), no P4 injections, no k study
    python bench/bench_sim.py --duration 120     # shorter scenario
    python bench/bench_sim.py --frames           # network part only: the scenario's packet load
                                                 # (data at the bottleneck rate + one ACK each)
                                                 # through both P4 gateways, no TCP engines
    python bench/bench_sim.py --python /usr/bin/pypy3   # also time the scenario under another
                                                 # interpreter (a subprocess), both figures printed
    python bench/bench_sim.py --checksum         # the two ones'-complement sums of netbase.wire
    python bench/bench_sim.py --against ns2,ns3 --python /usr/bin/pypy3
                                                 # the paper's dumbbell with SACK and no
                                                 # reordering, here, in ns-2 and in ns-3
                                                 # (bench/against.py), one 600 s run each

Goals: <= 10 s wall for the 600 s scenario under PyPy, <= 5 min for the 39-run sweep on 2
cores. Figures, how to compare two versions (instruction counts, alternating runs) and the
design choices they decided: bench/README.md.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from experiments.runner.spec import RunSpec  # noqa: E402
from experiments.studies.rdtcp.scenario import BOTTLENECK_BPS, run_paper  # noqa: E402
import against  # noqa: E402  (bench/, this script's folder)
from goals import at_most, not_judged  # noqa: E402
from sim.program import gateway_json  # noqa: E402

# Where a function lives decides whose time it is.
PARTS = (("toolchain/switch", "P4 target"), ("<bmv2:", "P4 target (generated code)"),
         ("<v1model-metadata:", "P4 target (generated code)"), ("<wire-size:", "P4 target (generated code)"),
         ("toolchain", "P4 toolchain (other)"),
         ("netbase/wire", "wire encode/decode"), ("netbase/checksum", "wire: Internet checksum (netbase)"), ("netbase/", "sequence arithmetic, segments (netbase)"),
         ("hosts/", "TCP engine"),
         ("controller/", "controller"), ("sim/events", "event loop"), ("sim/", "simulator nodes"),
         ("experiments/", "experiment"), ("heapq", "event loop"))


def part_of(filename: str) -> str:
    for needle, part in PARTS:
        if needle in filename.replace(os.sep, "/"):
            return part
    return "python builtins (called from all parts)"


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


def frame_load(program, duration: float):
    """Replay the scenario's packet load without TCP: a full-size data frame from a every
    bottleneck serialisation time and one 54-byte ACK from b per data frame, through the
    paper's network with both gateways configured by the controller."""
    from experiments.studies.rdtcp.scenario import build_network
    from netbase.segment import Segment
    from netbase.wire import encode_frame
    net = build_network(RunSpec(variant="sack", duration=duration), program)
    a, b = net.hosts["a"], net.hosts["b"]
    # built with netbase.wire (no Scapy), so that this part runs under PyPy too
    data = encode_frame(Segment(20, 80, 0, 0, payload=bytes(1514 - 54)), src_ip=a.ip,
                        dst_ip=b.ip, src_mac=a.mac, dst_mac=a.gateway_mac)
    ack = encode_frame(Segment(80, 20, 0, 0), src_ip=b.ip, dst_ip=a.ip, src_mac=b.mac,
                       dst_mac=b.gateway_mac)
    gap = 1514 * 8 / BOTTLENECK_BPS
    n = int(duration / gap)
    r1, r2 = net.switches["r1"], net.switches["r2"]
    for i in range(n):
        net.events.schedule(i * gap, r1.on_frame, (1, data))
        net.events.schedule(i * gap + 0.0525, r2.on_frame, (1, ack))
    return net, n


def paper_spec(duration: float, *, plain: bool = False) -> RunSpec:
    """The paper scenario (RD-TCP, 15 swaps/s, seed 1), or with ``plain`` the same dumbbell
    with SACK and no reordering: the run ns-2 and ns-3 are compared on (--against)."""
    if plain:
        return RunSpec(variant="sack", seed=1, duration=duration)
    return RunSpec(variant="rdtcp", swaps=15, interval=1.0, seed=1, duration=duration)


def scenario_figures(program, duration: float, *, plain: bool = False) -> dict:
    """Wall and CPU time of the paper scenario (``paper_spec``) in this interpreter."""
    spec = paper_spec(duration, plain=plain)
    t0, c0 = time.perf_counter(), time.process_time()
    result = run_paper(spec, program)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"python": f"{sys.implementation.name} {sys.version.split()[0]} ({sys.executable})",
            "wall_s": wall, "cpu_s": cpu, "events": result.stats.get("events", 0),
            "throughput_Bps": result.throughput_Bps, "delivered_bytes": result.delivered_bytes}


def print_scenario(fig: dict, duration: float) -> None:
    wall, events = fig["wall_s"], fig["events"]
    packets = duration * BOTTLENECK_BPS / (8 * 1514)   # full-size data frames the bottleneck carries
    print(f"paper scenario, RD-TCP, 15 swaps/s, {duration:g} s virtual, {fig['python']}: "
          f"{wall:.2f} s wall, {events:,} events "
          f"({events / wall:,.0f}/s, {events / packets:.1f} per bottleneck data packet), "
          f"throughput {fig['throughput_Bps']:,.0f} B/s")


SCENARIO_GOAL = "the 600 s scenario in <= 10 s wall under PyPy"


def judge_scenario(figures: list[dict], duration: float) -> None:
    """The scenario goal, judged on a PyPy figure of a 600 s run; a CPython figure is no
    measure of it (the sweeps run on PyPy when it is there)."""
    pypy = [f for f in figures if f["python"].startswith("pypy")]
    if duration != 600:
        not_judged(SCENARIO_GOAL, f"this run was {duration:g} s")
    elif not pypy:
        not_judged(SCENARIO_GOAL, "this is CPython; run `pypy3 bench/bench_sim.py` or add "
                                  "--python /usr/bin/pypy3",
                   f"CPython {figures[0]['wall_s']:.1f} s")
    else:
        at_most(SCENARIO_GOAL, pypy[0]["wall_s"], 10.0, f"{pypy[0]['wall_s']:.1f} s")


def scenario_in(python: str, duration: float, *, plain: bool = False) -> dict:
    """Run the scenario under interpreter ``python`` (a subprocess of this script) and return
    its figures; the program JSON is the one this process compiled (RDTCP_PROGRAM)."""
    from experiments.runner.pool import worker_env       # the environment the sweeps' workers get
    env = dict(worker_env(ROOT), RDTCP_PROGRAM=str(ROOT / "build" / "rdtcp.json"))
    proc = subprocess.run([python, str(Path(__file__).resolve()), "--scenario-json",
                           "--duration", repr(duration)] + (["--plain"] if plain else []),
                          env=env, cwd=str(ROOT), capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise SystemExit(f"bench_sim: the scenario failed under {python} "
                         f"(exit {proc.returncode}):\n  " + "\n  ".join(tail))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_checksum(python: str | None) -> int:
    """Microseconds per ones'-complement sum of a 1480-byte segment, both variants."""
    code = ("import os, sys, time; sys.path.insert(0, %r); from netbase import wire; "
            "data = [os.urandom(1480) for _ in range(64)]; r = {}\n"
            "for name in ('_sum16_bigint', '_sum16_loop'):\n"
            "    f = getattr(wire, name); [f(d) for d in data * 50]; t0 = time.perf_counter()\n"
            "    for i in range(20000): f(data[i & 63])\n"
            "    r[name] = (time.perf_counter() - t0) / 20000 * 1e6\n"
            "print(sys.implementation.name, ' '.join('%%s %%.2f us' %% kv for kv in r.items()), "
            "'(in use: %%s)' %% wire._sum16.__name__)") % str(ROOT)
    for py in [sys.executable] + ([python] if python else []):
        out = subprocess.run([py, "-c", code], capture_output=True, text=True)
        print("  " + (out.stdout.strip() or out.stderr.strip().splitlines()[-1]))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description="Benchmark of the simulator: wall-clock seconds for the paper's 10-minute "
                    "RD-TCP scenario and for the full Figure 1-4 sweep, and a cProfile split of "
                    "where the time goes. Goals: <= 10 s and <= 5 min on 2 cores (bench/README.md).")
    ap.add_argument("--duration", type=float, default=600.0,
                    help="virtual seconds of the timed RD-TCP run (default 600, the paper's 10 minutes)")
    ap.add_argument("--profile-duration", type=float, default=60.0,
                    help="virtual seconds of the run profiled with cProfile (default 60)")
    ap.add_argument("--sweep", action="store_true",
                    help="time the Figure 1-4 sweep for real (39 runs of 600 s) and nothing else")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="processes for --sweep (default: the number of cores)")
    ap.add_argument("--frames", action="store_true",
                    help="network part only (no TCP engines): the scenario's packet load")
    ap.add_argument("--python", metavar="PATH",
                    help="also run the measured scenario under this interpreter (e.g. /usr/bin/pypy3)")
    ap.add_argument("--no-profile", action="store_true", help="skip the cProfile split")
    ap.add_argument("--checksum", action="store_true",
                    help="time netbase.wire's two ones'-complement sums (and under --python)")
    ap.add_argument("--against", metavar="TOOLS",
                    help="also run the paper's dumbbell with SACK and no reordering in ns2 "
                         "and/or ns3 (comma-separated; a tool that is not installed is named "
                         "and skipped) beside this simulator, and judge the goals: <= 0.5x "
                         "ns-3's time and <= 5x ns-2's")
    ap.add_argument("--out", metavar="DIR", default=None,
                    help="where --against writes its ns-2 script and ns-3 program (default "
                         "build/against/)")
    ap.add_argument("--scenario-json", action="store_true", help=argparse.SUPPRESS)  # child mode
    ap.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)  # with it: SACK, no swaps
    args = ap.parse_args(argv)
    if args.duration <= 0 or args.profile_duration <= 0:
        ap.error("--duration and --profile-duration must be positive seconds")
    if args.jobs < 1:
        ap.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.python and not os.access(args.python, os.X_OK):
        ap.error(f"--python {args.python}: not an executable file")
    if args.against is not None:
        try:
            args.against = against.parse_tools(args.against)
        except ValueError as e:
            ap.error(str(e))
    from toolchain.switch import load_program
    if args.scenario_json:
        print(json.dumps(scenario_figures(load_program(gateway_json()), args.duration,
                                          plain=args.plain)))
        return 0
    print("command: python bench/bench_sim.py " + " ".join(sys.argv[1:]))
    print(f"interpreter: {sys.implementation.name} {sys.version.split()[0]} ({sys.executable})")
    print("goals: <= 10 s wall for the 600 s scenario under PyPy (the interpreter of the "
          "sweeps' workers; the 600 s figures in bench/README.md and the README are PyPy's, "
          "CPython takes about 45 s), <= 5 min for the Figure 1-4 sweep on 2 cores")
    if args.checksum:
        return bench_checksum(args.python)
    if args.sweep:
        return run_sweep(args.jobs)
    program = load_program(gateway_json())
    if args.frames:
        return bench_frames(program, args)
    if args.against:
        return bench_against(args)

    fig = scenario_figures(program, args.duration)
    print_scenario(fig, args.duration)
    figures = [fig]
    if args.python:
        other = scenario_in(args.python, args.duration)
        print_scenario(other, args.duration)
        if other["delivered_bytes"] != fig["delivered_bytes"] or other["events"] != fig["events"]:
            print(f"  WARNING: the two interpreters disagree ({fig['delivered_bytes']} vs "
                  f"{other['delivered_bytes']} bytes delivered): results must be identical")
        figures.append(other)
    judge_scenario(figures, args.duration)

    from dataclasses import replace

    from experiments.rdtcp_figures import MODES, build_specs
    full = MODES["full"]
    # the sweep --sweep runs (SWEEP_ARGS): one seed, the paper's three senders, no extra series
    paper = replace(full, seeds=1, variants=("sack", "dsack", "rdtcp"), injections=(),
                    k_values=())
    for name, cfg, goal in (("Figure 1-4 sweep (--sweep)", paper, " (goal <= 5 min)"),
                            ("whole full mode", full, "")):
        n = len(build_specs(cfg))
        for f in figures:
            per_run = f["wall_s"] * cfg.duration / args.duration
            print(f"{name} at {f['python'].split()[0]} speed: {n} runs x ~{per_run:.1f} s / "
                  f"{args.jobs} cores = ~{n * per_run / args.jobs / 60:.1f} min estimated{goal}")

    if not args.no_profile:
        parts, top = profile_split(RunSpec(variant="rdtcp", swaps=15, interval=1.0, seed=1,
                                           duration=args.profile_duration), program)
        total = sum(parts.values())
        print(f"cProfile of a {args.profile_duration:g} s run ({total:.2f} s of own time):")
        for part, secs in sorted(parts.items(), key=lambda kv: -kv[1]):
            print(f"  {part:24s} {secs:7.2f} s  {100 * secs / total:5.1f} %")
        print("  top functions by own time:")
        for secs, name in top:
            print(f"    {secs:6.2f} s  {name}")

    return 0


# The Figure 1-4 sweep as the paper plots it: the three senders, both swap intervals, one seed,
# full length (39 runs of 600 s: a zero-swap run is the same for both intervals), without the P4 injection series and the k study.
SWEEP_ARGS = ["--mode", "full", "--seeds", "1", "--variants", "sack,dsack,rdtcp",
              "--no-injections", "--no-k-study", "--no-progress"]


def run_sweep(jobs: int) -> int:
    """Wall time of the Figure 1-4 sweep, run for real by experiments.rdtcp_figures in a
    subprocess (its own worker interpreter choice, e.g. pypy3 when on PATH), into a temporary
    directory that is removed afterwards."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="bench_sim_sweep_") as out:
        cmd = [sys.executable, "-m", "experiments.rdtcp_figures", *SWEEP_ARGS,
               "--jobs", str(jobs), "--out", out]
        print("sweep command: python " + " ".join(cmd[1:]).replace(out, "<tmpdir>"))
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=str(ROOT), capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            print(f"bench_sim: the sweep failed (exit {proc.returncode}):\n  " + "\n  ".join(tail))
            return 1
        runs = _count_runs(Path(out))
        # rdtcp_figures' first line says how many runs on which worker interpreter
        header = next((l.strip().replace(out, "<tmpdir>") for l in proc.stderr.splitlines()
                       if " runs (" in l), "")
    if header:
        print("  " + header)
    print(f"Figure 1-4 sweep: {runs} runs in {wall:.1f} s wall = {wall / 60:.2f} min on {jobs} "
          f"processes")
    at_most(f"the Figure 1-4 sweep in <= 5 min on {jobs} processes", wall / 60, 5.0,
            f"{wall / 60:.2f} min")
    return 0


def _count_runs(out: Path) -> str:
    """Rows of the sweep's per-run CSV (the runs it did), or '?' if it wrote none."""
    csv = out / "runs.csv"
    if not csv.is_file():
        return "?"
    with open(csv) as f:
        return str(max(0, sum(1 for _ in f) - 1))


def bench_frames(program, args) -> int:
    net, n = frame_load(program, args.duration)
    t0 = time.perf_counter()
    net.run(until=args.duration + 1)
    wall = time.perf_counter() - t0
    print(f"network only, {args.duration:g} s virtual: {n:,} data + {n:,} ACK frames through 2 "
          f"gateways in {wall:.2f} s wall ({4 * n / wall:,.0f} switch passes/s, "
          f"{net.events.executed:,} events)")
    net, _ = frame_load(program, args.profile_duration)
    prof = cProfile.Profile()
    prof.enable()
    net.run(until=args.profile_duration + 1)
    prof.disable()
    parts: dict[str, float] = {}
    for (filename, _l, _f), (_cc, _nc, tottime, _ct, _c) in pstats.Stats(prof).stats.items():
        parts[part_of(filename)] = parts.get(part_of(filename), 0.0) + tottime
    total = sum(parts.values())
    print(f"cProfile of {args.profile_duration:g} s ({total:.2f} s of own time):")
    for part, secs in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"  {part:24s} {secs:7.2f} s  {100 * secs / total:5.1f} %")
    return 0


AGAINST_GOALS = {"ns3": 0.5, "ns2": 5.0}      # at most this many times the tool's time


def bench_against(args) -> int:
    """The paper's dumbbell with SACK and no reordering (``paper_spec(plain=True)``) in this
    simulator (this interpreter and --python's, each a child process) and in each tool of
    --against (bench/against.py); one row each, then the goals, judged on CPU seconds (a
    child's user + system time: its wall time on an idle core; wall figures are printed
    beside them) against this simulator's fastest interpreter."""
    from experiments.ns2.scenario import describe
    out = Path(args.out) if args.out else ROOT / "build" / "against"
    spec = paper_spec(args.duration, plain=True)
    run = describe(spec)
    print(f"scenario: {'; '.join(run.notes)}, {args.duration:g} s, seed {spec.seed} "
          f"({against.env_note()} at the start)")
    rows = []
    for python in [sys.executable] + ([args.python] if args.python else []):
        fig = scenario_in(python, args.duration, plain=True)
        rows.append({"tool": f"ours, {fig['python'].split(' (')[0]}", "wall_s": fig["wall_s"],
                     "cpu_s": fig["cpu_s"], "throughput_Bps": fig["throughput_Bps"],
                     "rerun": f"{python} bench/bench_sim.py --scenario-json --plain --duration "
                              f"{args.duration:g}"})
    ours = min(rows, key=lambda r: r["cpu_s"])
    tools = {}
    for tool in args.against:
        why = against.missing(tool)
        if why:
            print(f"{tool}: skipped: {why}")
            continue
        try:
            tools[tool] = against.run_tool(tool, run, out)
        except against.ERRORS as e:
            print(f"{tool}: skipped: {e}")
            continue
        rows.append(tools[tool])
    print(f"{'run':28s} {'wall s':>8s} {'CPU s':>8s} {'throughput B/s':>15s}")
    for r in rows:
        print(f"{r['tool']:28s} {r['wall_s']:8.2f} {r['cpu_s']:8.2f} {r['throughput_Bps']:15,.0f}")
    for r in rows:
        print(f"  rerun {r['tool']}: {r['rerun']}")
    print(f"({against.env_note()} at the end)")
    for tool, row in tools.items():
        goal = AGAINST_GOALS[tool]
        ratio = ours["cpu_s"] / row["cpu_s"] if row["cpu_s"] > 0 else float("inf")
        at_most(f"this simulator ({ours['tool'].split(', ')[1]}) at most {goal:g}x "
                f"{row['tool']}'s time, {args.duration:g} s dumbbell (CPU seconds)", ratio, goal,
                f"{ratio:.2f}x: {ours['cpu_s']:.2f} s against {row['cpu_s']:.2f} s; wall "
                f"{ours['wall_s'] / row['wall_s']:.2f}x")
    for tool in args.against:
        if tool not in tools:
            not_judged(f"this simulator at most {AGAINST_GOALS[tool]:g}x {tool}'s time",
                       f"{tool} did not run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
