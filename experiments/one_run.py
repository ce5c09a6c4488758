"""One run of the paper's scenario, to look at closely: counters, time series, plot and pcap.

    python -m experiments.one_run --variant rdtcp --swaps 15 --duration 60 --series 0.1 \\
        --pcap --out run/
    pypy3 -m experiments.one_run ...        # about twice as fast; no PNG (no matplotlib there)

Writes into --out: ``run.json`` (the run's row, as in the sweep's runs.csv), with --series
``series.csv`` (cwnd, ssthresh, dupthresh, retransmissions, spurious retransmissions, goodput
every STEP seconds) and ``series.png``, with --pcap ``bottleneck.pcap`` (both directions of the
R1-R2 link, Wireshark-readable; the EPDN option and the reorder bit are in the TCP header, see
hosts/scapy_epdn.py). Prints a short summary.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from experiments.paper import INJECTIONS, RDTCP_K, RDTCP_VARIANTS, VARIANTS, RunSpec

__all__ = ["main", "plot_series"]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.one_run",
        description="Simulate one bulk transfer over the paper's dumbbell (003 §4) with the P4 "
                    "gateway, and write its counters, time series, plot and pcap.")
    p.add_argument("--variant", choices=VARIANTS, default="rdtcp", help="sender (default rdtcp)")
    p.add_argument("--swaps", type=int, default=15, help="queue swaps per interval (default 15)")
    p.add_argument("--interval", type=float, default=1.0, help="swap interval in s (default 1)")
    p.add_argument("--swap-span", type=int, default=0, metavar="N",
                   help="swapped packets at most N places apart (default 0: anywhere)")
    p.add_argument("--k", type=int, default=RDTCP_K, help=f"RD-TCP's k (default {RDTCP_K}; rdtcp-adaptive and rdtcp-measured start from it)")
    p.add_argument("--injection", choices=INJECTIONS, default="swap",
                   help="reordering: the paper's swaps or a P4 injection (default swap)")
    p.add_argument("--level", type=float, default=0.0,
                   help="probability per data packet of the P4 injection")
    p.add_argument("--duration", type=float, default=60.0, help="virtual seconds (default 60)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--series", type=float, metavar="STEP", help="sample time series every STEP s")
    p.add_argument("--pcap", action="store_true", help="capture the bottleneck link")
    p.add_argument("--out", default="run", help="output directory (default run/)")
    args = p.parse_args(argv)
    if args.duration <= 0 or args.interval <= 0:
        p.error("--duration and --interval must be > 0 seconds")
    if args.series is not None and args.series <= 0:
        p.error("--series must be > 0 seconds")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    from experiments.paper import run_paper
    from sim.program import gateway_json
    from toolchain.target import load_program

    args = parse_args(argv)
    try:
        spec = RunSpec(variant=args.variant, swaps=args.swaps if args.injection == "swap" else 0,
                       interval=args.interval, seed=args.seed, duration=args.duration,
                       injection=args.injection, level=args.level, k=args.k,
                       swap_span=args.swap_span, sample_step=args.series or 0.0)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pcap = str(out / "bottleneck.pcap") if args.pcap else None
    result = run_paper(spec, load_program(gateway_json()), pcap=pcap)
    row = result.row()
    (out / "run.json").write_text(json.dumps(row, indent=2) + "\n")
    written = ["run.json"]
    if result.series:
        from sim.trace import SERIES_COLUMNS
        with open(out / "series.csv", "w") as f:
            f.write(",".join(SERIES_COLUMNS) + "\n")
            f.writelines(",".join(map(str, r)) + "\n" for r in result.series)
        written.append("series.csv")
        if plot_series(result.series, out / "series.png", title=_title(spec)):
            written.append("series.png")
        else:
            print("note: matplotlib is not importable here, so no series.png", file=sys.stderr)
    if pcap:
        written.append("bottleneck.pcap")
    print(f"{_title(spec)}: {row['throughput_Bps']:,.0f} B/s over {spec.duration:g} s; "
          f"{row['fast_retransmits']} fast retransmits, {row['spurious_retransmits']} spurious "
          f"retransmissions, {row['timeouts']} timeouts; {row['swaps_done']} swaps "
          f"({row['swaps_skipped']} skipped); wall {row['wall_s']:.1f} s")
    print(f"wrote {', '.join(written)} in {out}/")
    return 0


def _title(spec: RunSpec) -> str:
    if spec.injection != "swap":
        what = f"{spec.injection} {spec.level:g}"
    else:
        span = f", span {spec.swap_span}" if spec.swap_span else ""
        what = f"{spec.swaps} swaps every {spec.interval:g} s{span}"
    k = f" k={spec.k}" if spec.variant in RDTCP_VARIANTS else ""
    return f"{spec.variant}{k}, {what}, seed {spec.seed}"


def plot_series(rows: list, path: Path, *, title: str) -> bool:
    """cwnd, ssthresh (segments) and dupthresh over time, with retransmission marks, above the
    goodput. False when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    from experiments.paper import MSS
    t = [r[0] for r in rows]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True,
                                      gridspec_kw={"height_ratios": [2, 1]})
    top.plot(t, [r[2] / MSS for r in rows], lw=0.8, label="cwnd (segments)")
    top.plot(t, [min(r[3] / MSS, 600) for r in rows], lw=0.8, ls="--", label="ssthresh (segments)")
    top.step(t, [r[4] for r in rows], lw=0.8, where="post", label="dupthresh")
    spurious = [r[0] for a, r in zip(rows, rows[1:]) if r[6] > a[6]]
    fast = [r[0] for a, r in zip(rows, rows[1:]) if r[7] > a[7]]
    top.plot(fast, [0] * len(fast), "k|", ms=10, label="fast retransmit")
    top.plot(spurious, [-8] * len(spurious), "r|", ms=10, label="spurious retransmission")
    top.set_ylabel("segments")
    top.set_title(title)
    top.legend(fontsize=7, loc="upper right", framealpha=0.8)
    top.grid(alpha=0.3)
    bottom.plot(t, [r[10] for r in rows], lw=0.6)
    bottom.set_ylabel("goodput (B/s)")
    bottom.set_xlabel("time (s)")
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


if __name__ == "__main__":
    sys.exit(main())
