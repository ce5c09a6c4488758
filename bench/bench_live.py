"""Benchmark of live runs against the simulator: one bulk transfer over the paper's dumbbell in
real time (experiments.live_run) and the same run in virtual time
(experiments.studies.rdtcp.scenario), side by side: throughput, handshake RTT (nominal 104 ms of
propagation), retransmissions, R1's drops, and what the live run cost in wall-clock time.

    sudo python bench/bench_live.py [--variant rdtcp] [--duration 20] [--backend netns] [--drop P]

Needs root and iproute2 (the live run builds and removes its own namespaces and veths).
The live throughput is taken over --duration seconds after the handshake, the simulator's
over its whole run (handshake included): over 20 s the difference is one round trip.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NOMINAL_RTT = 0.104           # 2 x (1 + 50 + 1) ms
GOAL_RATIO = 0.05             # live throughput within 5 % of the simulator's (same engine, gateway)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="rdtcp")
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--backend", default="netns", choices=("auto", "netns", "mininet"))
    ap.add_argument("--drop", type=float, default=0.0)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from goals import at_most, not_judged
    goal = f"live throughput within {GOAL_RATIO:.0%} of the simulated run's"

    from experiments import live_run
    from experiments.runner.program import gateway_program
    from experiments.runner.spec import RunSpec
    from experiments.studies.rdtcp.scenario import run_paper
    from live.network import LiveError, check_environment

    try:
        check_environment()
    except LiveError as e:              # say why, and go on with the other benchmarks
        print(f"bench_live: skipped: {e}")
        not_judged(goal, "no live run here")
        return 0

    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        argv = ["--variant", args.variant, "--duration", f"{args.duration:g}", "--backend",
                args.backend, "--out", tmp] + (["--drop", f"{args.drop:g}"] if args.drop else [])
        started = time.monotonic()
        status = live_run.main(argv)
        wall = time.monotonic() - started
        if status not in (0, 1):
            return status
        live = json.loads((Path(tmp) / "run.json").read_text())
    if args.drop:
        print("note: the simulator run has no injected drops (RunSpec has no drop knob)")
    _, program = gateway_program()
    sim = run_paper(RunSpec(variant=args.variant, duration=args.duration), program).row()
    rows = [("throughput B/s", f"{live['throughput_Bps']:,.0f}", f"{sim['throughput_Bps']:,.0f}"),
            ("handshake RTT ms", f"{live['handshake_rtt_s'] * 1000:.1f}",
             f"{NOMINAL_RTT * 1000:.1f} (nominal)"),
            ("retransmissions", live["retransmits"], sim["retransmits"]),
            ("fast retransmits", live["fast_retransmits"], sim["fast_retransmits"]),
            ("timeouts", live["timeouts"], sim["timeouts"]),
            ("r1 buffer drops", live["r1_drops_buffer"], sim["r1_drops_buffer"]),
            ("wall s", f"{wall:.1f}", f"{sim['wall_s']:.1f}")]
    print(f"{args.variant}, {args.duration:g} s, backend {live['backend']}:")
    print(f"{'':18} {'live':>14} {'simulated':>20}")
    for name, a, b in rows:
        print(f"{name:18} {a!s:>14} {b!s:>20}")
    ratio = live['throughput_Bps'] / sim['throughput_Bps']
    print(f"live/simulated throughput: {ratio:.3f}")
    print("command: sudo python bench/bench_live.py " + " ".join(sys.argv[1:]))
    if args.drop:
        not_judged(goal, "--drop: the simulated run has no injected drops", f"{ratio:.3f}")
    else:
        at_most(goal, abs(ratio - 1), GOAL_RATIO, f"live/simulated {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
