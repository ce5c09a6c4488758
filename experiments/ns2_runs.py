"""The papers' scenarios in real ns-2, beside the engine on the same network.

    python -m experiments.ns2_runs --variant sack --duration 600            # [RDTCP]'s dumbbell
    python -m experiments.ns2_runs --variant sack --swaps 15 --seeds 3      # [RDTCP]'s swaps
    python -m experiments.ns2_runs --scenario rrtcp --variant sack --level 0.035 \\
        --delay normal:0.1,0.033 --ack-level 0.3 --drop 0.005 --path-delay 0.2 --maxwnd 50
    python -m experiments.ns2_runs --study swaps --out results/ns2/        # a gap's runs

Each RunSpec is written as an ns-2 script (experiments/ns2/tcl.py: the topology, ns-2's agent
for the variant, the scenario's reordering and loss as ns-2's error models, see
experiments/ns2/scenario.py) and run with ``ns``; with ``--engine both`` (the default) the
engine also runs the same scenario in sim.nsnet, ns-2's network model, with the ns2 profile.
Writes rows.csv and rows.json (one row per run, the RunSpec's fields and the results, ``engine``
ns2 or engine-nsnet) and the scripts in --out/scripts/, and prints each run and, per spec, the
mean throughput of each engine. A spec ns-2 cannot express is refused before anything runs;
ns missing or failing is an error naming the script, exit status 2, and no rows are written.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from experiments.ns2.install import Ns2Error
from experiments.ns2.runs import run_ns2, run_ours
from experiments.ns2.scenario import AGENTS, Inexpressible, describe
from experiments.ns2.studies import STUDIES
from experiments.runner.cli import (HelpFormatter, UsageError, finite_float, make_out_dir,
                                    out_of_range)
from experiments.runner.spec import INJECTIONS, SCENARIOS, RunSpec

__all__ = ["main"]

ENGINES = {"ns2": ("ns2",), "engine": ("engine-nsnet",), "both": ("ns2", "engine-nsnet")}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.ns2_runs", formatter_class=HelpFormatter,
        description="Run a paper's scenario in ns-2 2.35 and, on the same network, in the "
                    "engine; write their rows side by side.")
    p.add_argument("--study", choices=sorted(STUDIES),
                   help="one of the gap studies (experiments/ns2/studies.py) instead of a spec")
    p.add_argument("--scenario", choices=sorted(SCENARIOS), default="rdtcp",
                   help="the network (rdtcp: [RDTCP]'s dumbbell; rrtcp: [RRTCP]'s path; netreno-lab: "
                        "[NETRENO] §7.2 with RED)")
    p.add_argument("--variant", default="sack",
                   help=f"sender: one ns-2 has ({', '.join(AGENTS)})")
    p.add_argument("--swaps", type=int, default=0, help="[RDTCP]'s queue swaps per interval")
    p.add_argument("--interval", type=finite_float, default=1.0, help="swap interval (s)")
    p.add_argument("--injection", choices=INJECTIONS, default=None,
                   help="reordering: swap ([RDTCP]'s) or delay ([RRTCP]'s); default: delay with "
                        "--level, else swap")
    p.add_argument("--level", type=finite_float, default=0.0,
                   help="probability per data packet of a delay (rrtcp, rdtcp) or of a drop "
                        "(netreno-lab)")
    p.add_argument("--delay", default="", help="[RRTCP]'s delay distribution (sim.delays), e.g. "
                                               "normal:0.025,0.008")
    p.add_argument("--ack-level", type=finite_float, default=0.0,
                   help="probability per ACK of a delay ([RRTCP] §5.4)")
    p.add_argument("--drop", type=finite_float, default=0.0,
                   help="probability per data packet of a drop at R1 ([RRTCP])")
    p.add_argument("--path-delay", type=finite_float, default=0.0,
                   help="[RRTCP]'s bottleneck delay P (s; 0: 50 ms)")
    p.add_argument("--maxwnd", type=int, default=500, help="window_ (packets)")
    p.add_argument("--duration", type=finite_float, default=600.0, help="virtual seconds")
    p.add_argument("--seeds", type=int, default=1, help="seeds 1..N per spec")
    p.add_argument("--engine", choices=sorted(ENGINES), default="both",
                   help="ns2, engine (ours in sim.nsnet) or both")
    p.add_argument("--out", default="results/ns2", help="output directory, created if missing")
    args = p.parse_args(argv)
    bad = out_of_range(args, ("duration", "interval", "swaps", "seeds"))
    if bad:
        p.error(bad)
    if args.maxwnd < 1:
        p.error("--maxwnd must be >= 1 packet")
    return args


def specs_of(args: argparse.Namespace) -> list[RunSpec]:
    """The runs asked for; UsageError (one line) for a spec that is not a RunSpec."""
    if args.study:
        return list(STUDIES[args.study].specs)
    injection = args.injection or ("delay" if args.level and args.scenario != "netreno-lab"
                                   else "swap")
    try:
        base = RunSpec(variant=args.variant, scenario=args.scenario, swaps=args.swaps,
                       interval=args.interval, injection=injection, level=args.level,
                       delay=args.delay, ack_level=args.ack_level, drop=args.drop,
                       path_delay=args.path_delay, max_cwnd_segments=args.maxwnd,
                       duration=args.duration)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    return [replace(base, seed=s) for s in range(1, args.seeds + 1)]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        specs = specs_of(args)
        runs = [describe(s) for s in specs]         # refuse before anything runs
        engines = STUDIES[args.study].engines if args.study else ENGINES[args.engine]
        if not args.study and args.engine != "ns2":
            for r in runs:
                if r.red is not None:
                    raise Inexpressible("RED is not in sim.nsnet: give --engine ns2 (the "
                                        "engine's RED runs are experiments.netreno_tables')")
        out = Path(args.out)
        make_out_dir(out)
    except (UsageError, Inexpressible) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows = []
    try:
        for r in runs:
            for engine in engines:
                row = run_ns2(r, out / "scripts") if engine == "ns2" else run_ours(r)
                rows.append(row)
                print(f"{engine:13s} {_label(r.spec)}: {row['throughput_Bps']:,.0f} B/s, "
                      f"{row['retransmits']} retransmits, {row['fast_retransmits']} fast "
                      f"retransmits, {row['timeouts']} timeouts ({row['wall_s']:.1f} s)",
                      flush=True)
    except Ns2Error as exc:
        print(f"error: {exc}", file=sys.stderr)
        print("no rows written: the runs did not all finish", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted: no rows written", file=sys.stderr)
        return 130
    _write(out, rows)
    for line in summary(rows):
        print(line)
    print(f"wrote rows.csv, rows.json and the ns-2 scripts in {out}/")
    return 0


def _label(spec: RunSpec) -> str:
    parts = [spec.scenario, spec.variant]
    if spec.swaps:
        parts.append(f"{spec.swaps} swaps/{spec.interval:g} s")
    if spec.level:
        parts.append(f"level {spec.level:g}" + (f" {spec.delay}" if spec.delay else ""))
    if spec.ack_level:
        parts.append(f"ACKs {spec.ack_level:g}")
    if spec.drop:
        parts.append(f"drop {spec.drop:g}")
    return ", ".join(parts) + f", seed {spec.seed}"


def summary(rows: list[dict]) -> list[str]:
    """Per spec (all seeds) and engine: the mean throughput, n and the sd."""
    groups: dict[tuple, dict[str, list[float]]] = {}
    for row in rows:
        key = _label(RunSpec(**{k: row[k] for k in RunSpec.__dataclass_fields__
                                if k != "seed"})).rsplit(", seed", 1)[0]
        groups.setdefault(key, {}).setdefault(row["engine"], []).append(row["throughput_Bps"])
    out = []
    for key, engines in groups.items():
        cells = []
        for engine, values in engines.items():
            sd = f" sd {statistics.stdev(values):,.0f}" if len(values) > 1 else ""
            cells.append(f"{engine} {statistics.mean(values):,.0f} B/s (n={len(values)}{sd})")
        out.append(f"{key}: " + "; ".join(cells))
    return out


def _write(out: Path, rows: list[dict]) -> None:
    (out / "rows.json").write_text(json.dumps(rows, indent=1) + "\n")
    names = list(dict.fromkeys(k for row in rows for k in row))
    with open(out / "rows.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=names)
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    sys.exit(main())
