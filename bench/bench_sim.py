"""Benchmark of the simulator: wall-clock seconds for the paper's 10-minute RD-TCP scenario and
for the full Figure 1–4 sweep, and a cProfile split of where the time goes.

    python bench/bench_sim.py                    # one 600 s run + profile of a 60 s run + sweep estimate
    python bench/bench_sim.py --sweep            # also run the full sweep for real (--jobs cores)
    python bench/bench_sim.py --duration 120     # shorter scenario
    python bench/bench_sim.py --frames           # network part only: the scenario's packet load
                                                 # (data at the bottleneck rate + one ACK each)
                                                 # through both P4 gateways, no TCP engines

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
PARTS = (("toolchain/target", "P4 target"), ("<bmv2:", "P4 target (generated code)"), ("toolchain", "P4 toolchain (other)"),
         ("hosts/wire", "wire encode/decode"), ("netio/checksum", "wire: Internet checksum (netio)"), ("hosts/", "TCP engine"),
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
    from scapy.layers.inet import IP, TCP
    from scapy.layers.l2 import Ether

    from experiments.paper import BOTTLENECK_BPS, build_network
    net = build_network(RunSpec(variant="sack", duration=duration), program)
    a, b = net.hosts["a"], net.hosts["b"]
    data = Ether(src=a.mac, dst=a.gateway_mac) / IP(src=a.ip, dst=b.ip) / TCP(flags="A")
    data = bytes(data / bytes(1514 - len(data)))
    ack = bytes(Ether(src=b.mac, dst=b.gateway_mac) / IP(src=b.ip, dst=a.ip) / TCP(flags="A"))
    gap = 1514 * 8 / BOTTLENECK_BPS
    n = int(duration / gap)
    r1, r2 = net.switches["r1"], net.switches["r2"]
    for i in range(n):
        net.events.schedule(i * gap, r1.on_frame, (1, data))
        net.events.schedule(i * gap + 0.0525, r2.on_frame, (1, ack))
    return net, n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=600.0)
    ap.add_argument("--profile-duration", type=float, default=60.0)
    ap.add_argument("--sweep", action="store_true", help="run the full sweep for real")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--frames", action="store_true",
                    help="network part only (no TCP engines): the scenario's packet load")
    args = ap.parse_args(argv)
    print("command: python bench/bench_sim.py " + " ".join(sys.argv[1:]))
    from toolchain.target import load_program
    program = load_program(gateway_json())
    if args.frames:
        return bench_frames(program, args)

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


if __name__ == "__main__":
    sys.exit(main())
