"""One run of the paper's scenario, to look at closely: counters, time series, plot and pcap.

    python -m experiments.one_run --variant rdtcp --swaps 15 --duration 60 --series 0.1 \\
        --pcap --out run/
    pypy3 -m experiments.one_run ...        # about twice as fast; no PNG (no matplotlib there)

``--profile NAME`` runs both ends with one of the engine's profiles over the scenario's
configuration (hosts.tcp.profiles: ``ns2`` is ns-2 2.35's one-way agents, the others [TCPDEBUG]'s
operating systems); the row records it as ``profile``.

Writes into --out: ``run.json`` (the run's row, as in the sweep's runs.csv), with --series
``series.csv`` (cwnd, ssthresh, dupthresh, retransmissions, spurious retransmissions, goodput
every STEP seconds) and ``series.png``, with --pcap ``bottleneck.pcap`` (both directions of the
R1-R2 link as R1's bottleneck port sees them, Wireshark-readable; the EPDN option and the
reorder bit are in the TCP header, see netbase/scapy_epdn.py), with --pcap a ``sender.pcap`` (A's
interface: every segment as the sender sends it), and with either ``timeseq.png``, the capture's
time-sequence diagram (``experiments.runner.timeseq``: segments sent, retransmissions, the
cumulative ACK), with a panel zoomed on the first retransmission. Prints a short summary.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from experiments.helptext import add_list_variants
from experiments.runner.cli import (HelpFormatter, UsageError, finite_float, make_out_dir,
                                    out_of_range, series_too_long)
from experiments.runner.gateways import LEGACY_SETTINGS, legacy_routers
from experiments.runner.journal import code_version
from experiments.runner.program import ProgramError, gateway_program
from experiments.runner.spec import INJECTIONS, RDTCP_VARIANTS, SENDERS, RunSpec
from experiments.runner.timeseq import read_time_sequence, time_sequence_figure
from experiments.studies.rdtcp.scenario import (BOTTLENECK_BPS, CAPTURE_POINTS, MAX_CWND_SEGMENTS,
                                                RDTCP_K, run_paper)
from hosts.tcp.profiles import PROFILES
from sim.trace import write_series_csv

__all__ = ["main", "plot_series", "series_lines"]


PCAP_NAMES = {"r1": "bottleneck.pcap", "a": "sender.pcap"}   # --pcap AT -> file in --out
# timeseq.png's zoom around the first retransmission: a few RTTs of the paper's dumbbell
ZOOM_BEFORE, ZOOM_AFTER = 0.3, 0.7

# what an option left out means; None as the argparse default tells a typed option from one the
# user left out, so an option that does not apply to the run is refused only when typed
SWAP_DEFAULTS = {"swaps": 15, "interval": 1.0, "swap_span": 0}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.one_run", formatter_class=HelpFormatter,
        description="Simulate one bulk transfer over the paper's dumbbell ([RDTCP] §4) with the P4 "
                    "gateway, and write its counters, time series, plot and pcap.")
    p.add_argument("--variant", choices=SENDERS, default="rdtcp", metavar="VARIANT",
                   help="sender")
    add_list_variants(p, SENDERS)
    p.add_argument("--swaps", type=int,
                   help=f"queue swaps per interval (default: {SWAP_DEFAULTS['swaps']}; "
                        "the paper's swaps, not with --injection altpath|recirc|delay)")
    p.add_argument("--interval", type=finite_float,
                   help=f"swap interval in s (default: {SWAP_DEFAULTS['interval']:g})")
    p.add_argument("--swap-span", type=int, metavar="N",
                   help="swapped packets at most N places apart (default: 0, anywhere)")
    p.add_argument("--k", type=int,
                   help=f"RD-TCP's k (default: {RDTCP_K}; rdtcp-adaptive and rdtcp-measured start "
                        f"from it; only for {', '.join(RDTCP_VARIANTS)})")
    p.add_argument("--injection", choices=INJECTIONS, default="swap",
                   help="reordering: the paper's queue swaps, a P4 injection (altpath, recirc), "
                        "or delay: data packets delayed on the bottleneck link by a further "
                        "N(25 ms, 8 ms)")
    p.add_argument("--level", type=finite_float, metavar="P",
                   help="probability per data packet of the injection (needed with "
                        "--injection altpath|recirc|delay, and only there)")
    p.add_argument("--legacy", choices=LEGACY_SETTINGS[1:],
                   help="incremental deployment ([RDTCP] §7): these gateways run as legacy routers "
                        "(the same queue, no EPDN recording, stamping or stripping), so a drop "
                        "there reaches B without a stamp (default: both are RD-TCP gateways; "
                        f"only for {', '.join(RDTCP_VARIANTS)}, which read the stamps)")
    p.add_argument("--r2-drop", type=finite_float, metavar="P",
                   help="probability per data segment that R2 drops it on its way to B (the "
                        "gateway's drop injection: loss downstream of R1's queue; default: none)")
    p.add_argument("--duration", type=finite_float, default=60.0, help="virtual seconds")
    p.add_argument("--seed", type=int, default=1,
                   help="run seed: draws the queue swaps, the injection's choices and the "
                        "initial sequence numbers (1 or more, as the sweep numbers them); a run "
                        "without reordering comes out the same for every seed")
    p.add_argument("--series", type=finite_float, metavar="STEP",
                   help="sample time series every STEP s, at most --duration (default: none)")
    p.add_argument("--pcap", nargs="?", const="r1", choices=sorted(CAPTURE_POINTS),
                   metavar="AT",
                   help="write a pcap: r1 (the default when AT is left out) captures R1's "
                        "bottleneck port into bottleneck.pcap (after R1's drops and swaps), a "
                        "captures the sender's interface into sender.pcap (every segment as A "
                        "sends it, so Wireshark's retransmission counts match run.json's); "
                        "either also draws timeseq.png, the capture's time-sequence diagram")
    p.add_argument("--profile", choices=sorted(PROFILES),
                   help="run both ends with this engine profile over the scenario's "
                        "configuration (ns2: ns-2 2.35's agents; default: the scenario's own)")
    p.add_argument("--out", default="run", help="output directory, created if missing")
    args = p.parse_args(argv)
    bad = (out_of_range(args, ("duration", "interval", "swaps", "swap_span", "k", "level",
                               "seed", "series"))
           or series_too_long(args.series, args.duration, "run"))
    if bad:
        p.error(bad)
    conflict = _conflict(args)
    if conflict:
        p.error(conflict)
    for name, value in SWAP_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.injection != "swap":
        args.swaps = 0                  # the injection is the run's only reordering
    args.k = RDTCP_K if args.k is None else args.k
    args.level = 0.0 if args.level is None else args.level
    try:                                # anything RunSpec refuses beyond the checks above
        args.spec = RunSpec(variant=args.variant, swaps=args.swaps, interval=args.interval,
                            seed=args.seed, duration=args.duration, injection=args.injection,
                            level=args.level, k=args.k, swap_span=args.swap_span,
                            sample_step=args.series or 0.0, legacy=args.legacy or "none",
                            r2_drop=args.r2_drop or 0.0)
    except (TypeError, ValueError) as exc:
        p.error(str(exc))
    return args


def _conflict(args: argparse.Namespace) -> str | None:
    """A sentence naming typed options that would not act on the run, else None."""
    swap_options = [f"--{name.replace('_', '-')}" for name in SWAP_DEFAULTS
                    if getattr(args, name) is not None]
    if args.injection != "swap":
        if swap_options:
            return (f"{', '.join(swap_options)} set(s) the queue swaps, which --injection "
                    f"{args.injection} replaces; leave them out or use --injection swap")
        if args.level is None:
            return (f"--injection {args.injection} needs --level P, the probability per data "
                    f"packet (without it nothing is reordered)")
    elif args.level is not None:
        return ("--level is the probability of an injection: give --injection altpath, "
                "recirc or delay with it (the queue swaps take --swaps and --interval)")
    elif args.swaps == 0 and (args.interval is not None or args.swap_span is not None):
        given = [o for o, v in (("--interval", args.interval), ("--swap-span", args.swap_span))
                 if v is not None]
        return f"{' and '.join(given)} shape(s) the swaps: nothing to shape with --swaps 0"
    if args.k is not None and args.variant not in RDTCP_VARIANTS:
        return (f"--k is RD-TCP's; --variant {args.variant} has no k (it applies to "
                f"{', '.join(RDTCP_VARIANTS)})")
    if args.legacy is not None and args.variant not in RDTCP_VARIANTS:
        return (f"--legacy changes only the EPDN stamps a receiver reads, and --variant "
                f"{args.variant} reads none (it applies to {', '.join(RDTCP_VARIANTS)})")
    if args.r2_drop is not None and not 0 < args.r2_drop <= 1:
        return "--r2-drop must be a probability in (0, 1] (leave it out for no drops at R2)"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    spec = args.spec
    out = Path(args.out)
    try:
        program_path, program = gateway_program()
        make_out_dir(out)
    except (ProgramError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    pcap_name = PCAP_NAMES.get(args.pcap)
    pcap = str(out / pcap_name) if pcap_name else None
    try:
        result = run_paper(spec, program, pcap=pcap, pcap_at=args.pcap or "r1",
                           profile=args.profile)
    except KeyboardInterrupt:
        print("\ninterrupted: the run did not finish, so no run.json", file=sys.stderr)
        return 130
    # as the sweep's rows: which code made it (experiments.runner.journal.code_version)
    row = {**result.row(), "profile": args.profile or "",
           "code_version": code_version(program_path)}
    (out / "run.json").write_text(json.dumps(row, indent=2) + "\n")
    written = ["run.json"]
    if result.series:
        write_series_csv(out / "series.csv", result.series)
        written.append("series.csv")
        if plot_series(result.series, out / "series.png", title=_title(spec), mss=result.mss,
                       max_cwnd_segments=spec.max_cwnd_segments):
            written.append("series.png")
        else:
            print("note: matplotlib is not importable here, so no series.png", file=sys.stderr)
    if pcap:
        written.append(pcap_name)
        if plot_timeseq(pcap, out / "timeseq.png", title=_title(spec)):
            written.append("timeseq.png")
    print(f"{_title(spec)}: {row['throughput_Bps']:,.0f} B/s over {spec.duration:g} s; "
          f"{row['fast_retransmits']} fast retransmits, {row['spurious_retransmits']} spurious "
          f"retransmissions, {row['timeouts']} timeouts; {row['swaps_done']} swaps "
          f"({row['swaps_skipped']} skipped); wall {row['wall_s']:.1f} s")
    print(drops_line(row))
    print(f"wrote {', '.join(written)} in {out}/")
    return 0


def plot_timeseq(pcap: str, path: Path, *, title: str) -> bool:
    """The capture's time-sequence diagram, zoomed on its first retransmission when it has one
    (ZOOM_BEFORE seconds before to ZOOM_AFTER after: the hole, its recovery and the ACKs that
    end it). False without matplotlib (PyPy) or data in the capture."""
    try:
        ts = read_time_sequence(pcap)
    except ValueError as exc:
        print(f"note: no timeseq.png: {exc}", file=sys.stderr)
        return False
    zoom = None
    if ts.resent:
        first = ts.resent[0][0]
        zoom = (max(0.0, round(first - ZOOM_BEFORE, 2)), round(first + ZOOM_AFTER, 2))
    return time_sequence_figure(ts, path, title=f"{title}: time-sequence diagram", zoom=zoom)


def _title(spec: RunSpec) -> str:
    if spec.injection != "swap":
        what = f"{spec.injection} {spec.level:g}"
    else:
        span = f", span {spec.swap_span}" if spec.swap_span else ""
        what = f"{spec.swaps} swaps every {spec.interval:g} s{span}"
    k = f" k={spec.k}" if spec.variant in RDTCP_VARIANTS else ""
    legacy = f", legacy {spec.legacy}" if spec.legacy != "none" else ""
    r2_drop = f", R2 drops {spec.r2_drop:g}" if spec.r2_drop else ""
    return f"{spec.variant}{k}, {what}{legacy}{r2_drop}, seed {spec.seed}"


def drops_line(row: dict) -> str:
    """Which router dropped, which is a legacy router, and what reached B as EPDN stamps."""
    def drops(router: str) -> int:
        return sum(row[f"{router}_drops_{cause}"] for cause in ("buffer", "random", "pattern"))
    legacy = legacy_routers(row["legacy"])
    where = ", ".join(f"{router.upper()} {drops(router)}"
                      + (" (legacy router)" if router in legacy else "")
                      for router in ("r1", "r2"))
    return (f"drops at {where}; B honoured {row['rcv_epdn_stamps']} EPDN stamps and sent "
            f"{row['rcv_reorder_acks']} ACKs with the reorder bit")


def series_lines(rows: list, *, mss: int, max_cwnd_segments: int = MAX_CWND_SEGMENTS) -> dict:
    """What series.png draws, from the sampled rows (sim.trace.SERIES_COLUMNS): time, cwnd and
    ssthresh in segments of the flow's own ``mss`` (1448 bytes on RD-TCP flows, which keep 12
    for the EPDN option; 1460 on the others), dupthresh, the times of fast and spurious
    retransmissions, goodput. ssthresh is None (a gap in the line) while it is not set: before
    the first loss it is the engine's "arbitrarily high" initial value (RFC 5681 §3.1), and an
    undo may restore that; anything above the window cap limits nothing and would only squash
    the plot."""
    if mss <= 0:
        raise ValueError(f"mss must be > 0 bytes, got {mss}")
    cap = max_cwnd_segments * mss
    return {"time": [r[0] for r in rows],
            "cwnd": [r[2] / mss for r in rows],
            "ssthresh": [r[3] / mss if r[3] <= cap else None for r in rows],
            "dupthresh": [r[4] for r in rows],
            "fast": [r[0] for a, r in zip(rows, rows[1:]) if r[7] > a[7]],
            "spurious": [r[0] for a, r in zip(rows, rows[1:]) if r[6] > a[6]],
            "goodput": [r[10] for r in rows]}


def plot_series(rows: list, path: Path, *, title: str, mss: int,
                max_cwnd_segments: int = MAX_CWND_SEGMENTS) -> bool:
    """cwnd, ssthresh (segments of ``mss`` bytes) and dupthresh over time, with retransmission
    marks, above the goodput (``series_lines``). False when matplotlib is missing."""
    try:                                # deferred on purpose: PyPy runs this module without it
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    lines = series_lines(rows, mss=mss, max_cwnd_segments=max_cwnd_segments)
    t = lines["time"]
    nan = float("nan")                  # matplotlib leaves a gap where ssthresh is unset
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True,
                                      gridspec_kw={"height_ratios": [2, 1]})
    top.plot(t, lines["cwnd"], lw=0.8, label=f"cwnd (segments of {mss} B)")
    top.plot(t, [nan if v is None else v for v in lines["ssthresh"]], lw=0.8, ls="--",
             label="ssthresh (segments; from its first setting)")
    top.step(t, lines["dupthresh"], lw=0.8, where="post", label="dupthresh (duplicate ACKs)")
    top.plot(lines["fast"], [0] * len(lines["fast"]), "k|", ms=10, label="fast retransmit")
    top.plot(lines["spurious"], [-8] * len(lines["spurious"]), "r|", ms=10,
             label="spurious retransmission")
    top.set_ylabel("segments")
    top.set_title(title)
    top.legend(fontsize=7, loc="upper right", framealpha=0.8)
    top.grid(alpha=0.3)
    # kB/s on a plain axis (matplotlib would write B/s with a "1e6" offset); the dotted line is
    # the bottleneck's rate: in-order delivery exceeds it for a sample when a hole fills
    bottom.plot(t, [v / 1000 for v in lines["goodput"]], lw=0.6, label="delivered in order")
    bottom.axhline(BOTTLENECK_BPS / 8000, color="0.4", lw=0.6, ls=":",
                   label="bottleneck rate")
    bottom.set_ylabel("goodput (kB/s)")
    bottom.legend(fontsize=7, loc="lower right", framealpha=0.8)
    bottom.set_xlabel("time (s)")
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


if __name__ == "__main__":
    sys.exit(main())
