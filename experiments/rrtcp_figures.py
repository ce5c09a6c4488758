"""Reproduce RR-TCP's Figures 4 and 5 (seeds/000-rr-tcp-dsack.txt §5.1.1) in virtual time.

    python -m experiments.rrtcp_figures --mode quick --out results/rrtcp/     # minutes
    python -m experiments.rrtcp_figures --mode full --out results/rrtcp/      # the paper's runs

000's setup (§5, Fig. 3, Table 2; ``experiments.runner.scenario.SCENARIOS["rrtcp"]``): one long-lived flow
over a 50 ms, 4 Mb/s bottleneck whose capacity is exactly maxwnd / RTT (50 packets of 1000
bytes), through the same P4 gateways as every run. A fraction of the data packets (1-30 %) is
delayed on the bottleneck link by a further N(25 ms, 8 ms) "without holding others back"
(``sim.reorder.PacketDelayer``); there are no drops. Fig. 4 is throughput against the fraction
delayed, with SACK-NODELAY (SACK without delays) as the ideal at 0; Fig. 5 the false fast
retransmit ratio: false fast retransmits per delayed packet, i.e. the share of reorderings the
sender failed to tolerate (a DSACK-FA sender tolerating the 90th percentile stays "less than 10
%"). With no drops in the network every fast retransmit is false; a run that had a drop (the
report says so) gives no ratio.

Senders by 000's names: SACK (``sack``), DSACK-R (``dsack``: undo only), DSACK-FA (``rrtcp-fa``:
fixed FA ratio 90 %), DSACK-TA (``rrtcp``: the FA ratio adapted by cost), BL-INC and BL-AVG
(``dsack-inc``, ``dsack-avg``: Blanton and Allman, 000 §3), and RACK-TLP (``rack``, RFC 8985)
as today's reference, which 000 predates.

Outputs in --out: runs.csv, points.csv, fig4_rrtcp_throughput.png, fig5_rrtcp_ffr.png,
paper_table.md/.csv (000's statements on Figs. 4-5 beside ours), summary.json (configuration,
points, checks, invocations), the journal runs.jsonl (``--resume``) and invocations.jsonl.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Sequence

import matplotlib.pyplot as plt

from experiments.runner.cli import (HelpFormatter, csv_list, finite_float, out_of_range,
                                    series_too_long)
from experiments.runner.plots import LABELS, plot_curve, save_figure, sender_style, stats_note
from experiments.runner.report import write_csv
from experiments.runner.scenario import RunSpec
from experiments.runner.sweep import (add_run_options, add_sweep_options, default_jobs,
                                      mode_defaults, run_driver)
from hosts.tcp.variants import VARIANTS as ALL_VARIANTS

__all__ = ["MODES", "RrSweepConfig", "build_specs", "main", "parse_args", "points_of",
           "checks_of", "MAXWND", "VARIANTS", "PAPER_NAMES"]

SCENARIO = "rrtcp"
MAXWND = 50                 # 000 Table 2: maximum sending window, packets
TA_KEEPS_AT_30 = 0.71       # 000 §5.1.1: "DSACK-TA can maintain over 71% ... when 30% ... delayed"
FA_FFR_BELOW = 0.10         # 000 §5.1.1: DSACK-FA's false fast retransmit ratio "less than 10%"
PAPER_NAMES = {"sack": "SACK", "dsack": "DSACK-R", "rrtcp-fa": "DSACK-FA", "rrtcp": "DSACK-TA",
               "dsack-inc": "BL-INC", "dsack-avg": "BL-AVG", "rack": "RACK-TLP (RFC 8985)"}
VARIANTS = tuple(PAPER_NAMES)


@dataclass(frozen=True)
class RrSweepConfig:
    duration: float
    seeds: int
    levels: tuple[float, ...]       # fractions of data packets delayed
    variants: tuple[str, ...]


MODES = {
    # 000 §5: 1000 s per run, 5 seeds of the reordering RNG, 1-30 % delayed
    "full": RrSweepConfig(duration=1000.0, seeds=5,
                          levels=(0.01, 0.02, 0.05, 0.10, 0.15, 0.20, 0.25, 0.30),
                          variants=VARIANTS),
    "quick": RrSweepConfig(duration=100.0, seeds=2, levels=(0.05, 0.15, 0.30), variants=VARIANTS),
}


def build_specs(cfg: RrSweepConfig) -> list[RunSpec]:
    """SACK-NODELAY (deterministic: seed 1 only), then every sender at every level and seed."""
    base = RunSpec(variant="sack", scenario=SCENARIO, duration=cfg.duration,
                   max_cwnd_segments=MAXWND)
    specs = [base]
    for variant in cfg.variants:
        for seed in range(1, cfg.seeds + 1):
            for level in cfg.levels:
                specs.append(replace(base, variant=variant, seed=seed, injection="delay",
                                     level=level))
    return list(dict.fromkeys(specs))


def series_name(row: dict) -> str:
    what = f"delay{row['level']:g}" if row["injection"] == "delay" else "nodelay"
    return f"{row['variant']}_{what}_seed{row['seed']}.csv"


# --------------------------------------------------------------------------- report
def _ffr_ratio(row: dict) -> float | None:
    """False fast retransmits per delayed packet; None when the run dropped a packet (then a
    fast retransmit may have been true) or delayed none."""
    drops = sum(int(v) for k, v in row.items() if "_drops_" in k)
    delayed = int(row.get("delayed_segments", 0))
    if drops or not delayed:
        return None
    return int(row["fast_retransmits"]) / delayed


def points_of(rows: Sequence[dict]) -> dict[tuple[str, float], dict]:
    """Per (variant, level): throughput mean and sample sd, the same relative to SACK-NODELAY,
    the mean false fast retransmit ratio, timeouts and drops per run."""
    groups: dict[tuple[str, float], list[dict]] = {}
    for r in rows:
        if "error" not in r:
            groups.setdefault((r["variant"], float(r["level"])), []).append(r)
    ideal_rows = groups.get(("sack", 0.0))
    ideal = statistics.fmean(float(r["throughput_Bps"]) for r in ideal_rows) if ideal_rows \
        else None
    points = {}
    for key, group in sorted(groups.items()):
        tput = [float(r["throughput_Bps"]) for r in group]
        ffr = [f for f in map(_ffr_ratio, group) if f is not None]
        mean = statistics.fmean(tput)
        std = statistics.stdev(tput) if len(tput) > 1 else None
        points[key] = {
            "variant": key[0], "level": key[1], "n": len(group), "mean": mean, "std": std,
            "relative": mean / ideal if ideal else None,
            "relative_std": std / ideal if ideal and std is not None else None,
            "ffr_ratio": statistics.fmean(ffr) if ffr else None,
            "timeouts_mean": statistics.fmean(int(r["timeouts"]) for r in group),
            "fast_retransmits_mean": statistics.fmean(int(r["fast_retransmits"]) for r in group),
            "drops_total": sum(int(v) for r in group for k, v in r.items() if "_drops_" in k)}
    return points


def checks_of(points: dict, cfg: RrSweepConfig) -> list[dict]:
    """000 §5.1.1's statements on Figs. 4-5, each with our numbers and whether they hold; a
    statement about a sender or level the sweep did not run is left out."""
    levels = sorted(cfg.levels)
    def rel(v, lv):
        p = points.get((v, lv))
        return p["relative"] if p else None
    def ffr(v, lv):
        p = points.get((v, lv))
        return p["ffr_ratio"] if p else None
    checks = []
    def add(claim, values, ok):
        if all(x is not None for x in values.values()):
            checks.append({"claim": claim, "ours": values, "ok": ok(values)})
    add("SACK's throughput falls as more packets are delayed",
        {f"{lv:.0%}": rel("sack", lv) for lv in [0.0] + levels},
        lambda v: all(a >= b for a, b in zip(list(v.values()), list(v.values())[1:])))
    for lv in levels:
        add(f"DSACK-FA and DSACK-TA above SACK at {lv:.0%} delayed",
            {"sack": rel("sack", lv), "rrtcp-fa": rel("rrtcp-fa", lv), "rrtcp": rel("rrtcp", lv)},
            lambda v: v["rrtcp-fa"] > v["sack"] and v["rrtcp"] > v["sack"])
        add(f"DSACK-TA performs best (at least DSACK-FA's throughput) at {lv:.0%} delayed",
            {"rrtcp-fa": rel("rrtcp-fa", lv), "rrtcp": rel("rrtcp", lv)},
            lambda v: v["rrtcp"] >= v["rrtcp-fa"])
        add(f"DSACK-FA's false fast retransmit ratio below {FA_FFR_BELOW:.0%} at {lv:.0%} "
            f"delayed", {"rrtcp-fa": ffr("rrtcp-fa", lv)},
            lambda v: v["rrtcp-fa"] < FA_FFR_BELOW)
        add(f"DSACK-TA prevents still more false fast retransmits than DSACK-FA at {lv:.0%} "
            f"delayed", {"rrtcp-fa": ffr("rrtcp-fa", lv), "rrtcp": ffr("rrtcp", lv)},
            lambda v: v["rrtcp"] <= v["rrtcp-fa"])
    if 0.30 in levels:
        add(f"DSACK-TA keeps over {TA_KEEPS_AT_30:.0%} of SACK-NODELAY's throughput at 30% "
            f"delayed", {"rrtcp": rel("rrtcp", 0.30)}, lambda v: v["rrtcp"] > TA_KEEPS_AT_30)
    return checks


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def table_markdown(points: dict, checks: list[dict], cfg: RrSweepConfig) -> str:
    levels = sorted(cfg.levels)
    head = "| sender | " + " | ".join(f"{lv:.0%}" for lv in levels) + " |"
    lines = [f"Throughput relative to SACK-NODELAY (mean over seeds of {cfg.duration:g} s "
             f"transfers; 000 ran 1000 s); in brackets false fast retransmits per delayed packet",
             "", head, "|---|" + "---:|" * len(levels)]
    for v in cfg.variants:
        cells = []
        for lv in levels:
            p = points.get((v, lv))
            cells.append("-" if p is None else
                         f"{_fmt(p['relative'])} ({_fmt(p['ffr_ratio'])})")
        lines.append(f"| {PAPER_NAMES.get(v, v)} (`{v}`) | " + " | ".join(cells) + " |")
    ideal = points.get(("sack", 0.0))
    if ideal:
        lines += ["", f"SACK-NODELAY: {ideal['mean']:,.0f} B/s."]
    lines += ["", "| 000 §5.1.1 says | ours | holds |", "|---|---|---|"]
    for c in checks:
        ours = ", ".join(f"{k} {_fmt(v)}" for k, v in c["ours"].items())
        lines.append(f"| {c['claim']} | {ours} | {'yes' if c['ok'] else 'no'} |")
    return "\n".join(lines)


def write_outputs(rows: list[dict], cfg: RrSweepConfig, out: Path, *, mode: str,
                  invocations: Sequence[dict] = (), code_version: str | None = None) -> dict:
    points = points_of(rows)
    checks = checks_of(points, cfg)
    write_csv(out / "runs.csv", rows)
    prows = list(points.values())
    write_csv(out / "points.csv", prows)
    write_csv(out / "paper_table.csv", [{"claim": c["claim"], "ok": c["ok"],
                                        **{f"ours_{k}": v for k, v in c["ours"].items()}}
                                       for c in checks])
    markdown = table_markdown(points, checks, cfg)
    (out / "paper_table.md").write_text(markdown + "\n")
    figures = plot_figures(points, cfg, out)
    invocations = list(invocations)
    summary = {"mode": mode, "config": asdict(cfg), "code_version": code_version,
               "wall_s": round(sum(i["wall_s"] for i in invocations
                                   if isinstance(i.get("wall_s"), (int, float))), 3),
               "invocations": invocations, "runs": len(rows),
               "failed_runs": sum("error" in r for r in rows), "points": prows,
               "checks": checks, "table_markdown": markdown, "figures": figures}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def plot_figures(points: dict, cfg: RrSweepConfig, out: Path) -> list[str]:
    """Fig. 4 (throughput) and Fig. 5 (false fast retransmit ratio) against % delayed."""
    written = []
    ideal = points.get(("sack", 0.0))
    for name, field, ylabel, senders in (
            ("fig4_rrtcp_throughput.png", "mean", "throughput (data bytes/s delivered in order)",
             cfg.variants),
            # 000 shows no ratio for SACK: "the SACK implementation does not detect these events"
            ("fig5_rrtcp_ffr.png", "ffr_ratio", "false fast retransmits per delayed packet",
             [v for v in cfg.variants if v != "sack"])):
        fig, ax = plt.subplots(figsize=(8, 5))
        drawn = []
        for v in senders:
            curve = [points[(v, lv)] for lv in sorted(cfg.levels)
                     if (v, lv) in points and points[(v, lv)][field] is not None]
            if not curve:
                continue
            colour, marker = sender_style(v)
            shown = [{"mean": p[field], "std": p["std"] if field == "mean" else None}
                     for p in curve]
            plot_curve(ax, [p["level"] * 100 for p in curve], shown, colour=colour,
                       marker=marker, label=f"{PAPER_NAMES.get(v, v)}: {LABELS.get(v, v)}")
            drawn += curve
        if not drawn:
            plt.close(fig)
            continue
        if field == "mean" and ideal:
            ax.plot([0], [ideal["mean"]], "*", ms=14, color="gold", mec="black",
                    label="SACK-NODELAY (no packet delayed)")
        ax.set_xlabel("data packets delayed by a further N(25 ms, 8 ms) (%)")
        ax.set_ylabel(ylabel)
        if field == "mean":
            ax.set_ylim(bottom=0)
        else:   # ratios from about 0.4 (undo only) down to 0.001: logarithmic, 0 still shown
            ax.set_yscale("symlog", linthresh=1e-3)
            ax.set_ylim(bottom=0)
        number = "4" if field == "mean" else "5"
        ax.set_title(f"000 Fig. {number}: 50 ms bottleneck, maxwnd {MAXWND}, no drops; "
                     f"{cfg.duration:g} s transfers\n{stats_note(drawn)}", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
        save_figure(fig, out / name)
        written.append(name)
    return written


# --------------------------------------------------------------------------- CLI
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.rrtcp_figures", formatter_class=HelpFormatter,
        description="Reproduce RR-TCP's Figures 4 and 5 (000 §5.1.1: throughput and false fast "
                    "retransmit ratio against the fraction of packets delayed) on 000's "
                    "topology with the P4 gateways. Options without a default shown take the "
                    "--mode's value.")
    p.add_argument("--mode", choices=sorted(MODES), default="quick",
                   help="full: 000's 1000 s runs, 5 seeds, 1-30 %% delayed (about 1.5 hours on "
                        "2 cores); quick: 100 s runs, 2 seeds, 5/15/30 %%")
    add_sweep_options(p, out="results/rrtcp")
    p.add_argument("--seeds", type=int, help=f"seeds per point ({mode_defaults(MODES, 'seeds')})")
    p.add_argument("--duration", type=finite_float,
                   help="seconds of virtual time per transfer "
                        f"({mode_defaults(MODES, 'duration')})")
    p.add_argument("--levels", type=csv_list(finite_float),
                   help=f"fractions of data packets delayed, each in (0, 1] "
                        f"({mode_defaults(MODES, 'levels')})")
    p.add_argument("--variants", type=csv_list(str, sorted(ALL_VARIANTS)),
                   help=f"senders, comma-separated (default: {','.join(VARIANTS)}); SACK "
                        f"without delays runs whatever is chosen, as the reference")
    add_run_options(p)
    args = p.parse_args(argv)
    default_jobs(args)
    duration = args.duration if args.duration is not None else MODES[args.mode].duration
    bad = (out_of_range(args, ("jobs", "seeds", "duration", "series", "levels"))
           or series_too_long(args.series, duration, "transfers"))
    if bad:
        p.error(bad)
    if args.levels is not None and not all(0 < lv <= 1 for lv in args.levels):
        p.error("--levels: each fraction delayed must be in (0, 1]; 0 is SACK-NODELAY, which "
                "always runs")
    return args


def sweep_config(args: argparse.Namespace) -> RrSweepConfig:
    overrides = {"seeds": args.seeds, "duration": args.duration, "levels": args.levels,
                 "variants": args.variants}
    return replace(MODES[args.mode], **{k: v for k, v in overrides.items() if v is not None})


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    return run_driver(args, sweep_config(args), build_specs=build_specs,
                      write_outputs=write_outputs, name_of=series_name, label="RR-TCP figures",
                      modes=MODES)


if __name__ == "__main__":
    sys.exit(main())
