"""Reproduce F-RTO's Tables 1-3 and Figures 6-9 ([FRTO] §5.1-5.3) in virtual time.

    python -m experiments.frto_tables --mode quick --out results/frto/     # about a minute
    python -m experiments.frto_tables --mode full --out results/frto/      # the paper's 30 runs

[FRTO]'s setup (§5.1, ``experiments.studies.frto.scenario``; ``topologies.FrtoTopo``): one 100 KB
transfer from a fixed host to a mobile host over a 28.8 kbit/s link with 200 ms one-way delay
behind a 7-packet router buffer and the link's 6-packet send buffer, 296-byte packets, Linux
2.4's timers and delayed ACKs, through the same P4 gateways as every run, in three scenarios:
DELAY (each packet starts a link stall with
probability 0.02, Exp(3.5 s) long, nothing lost on the link; Table 1, Fig. 6), LOSS (packets
lost independently with probability 2, 5 or 10 % both ways; Table 2 and Fig. 7 are 5 %) and
BURST (U(0.1, 20) s good, Exp(3.5 s) bad periods that lose every packet both ways; Table 3,
Fig. 8). Six senders, by the paper's names: Regular SACK (``sack``), F-RTO w/ SACK (``frto``),
Eifel w/ SACK (``eifel``), Regular NewReno (``newreno``), F-RTO w/ NewReno (``frto-newreno``),
Eifel w/ NewReno (``eifel-newreno``). F-RTO answers a spurious timeout as the paper's does
([FRTO] §3 step 3a: cwnd = ssthresh = half the flight); ``--variants`` also takes F-RTO with the
other responses (``frto-rfc4015``, ``frto-undo`` and their ``-newreno`` forms) for comparison.

[FRTO]'s fairness test (§5.3, Fig. 9; ``run_frto_fairness``): six 50 KB transfers, three Regular
SACK senders at 0 s and three more at 3 s that are F-RTO w/ SACK (test A) or Regular SACK (test
B), with and without DELAY's stalls; the figure has each set's fastest and slowest transfer, and
the check is [FRTO]'s: the sets perform alike in both tests.

The tables are medians over the runs of: the transfer time (first SYN to the ACK of the FIN),
data packets lost (at the router and on the link), retransmissions; beside them the spurious
detections (timeouts, and Eifel's fast retransmits, answered as spurious) and the
retransmissions that were not needed (ground truth: data that had all arrived before). The
figures are box plots of throughput (102,400 bytes over the transfer time) as [FRTO]'s are.

Outputs in --out: runs.csv, points.csv, paper_table.md (ours beside [FRTO]'s numbers, and [FRTO]'s
statements each with two verdicts, direction and size, and the list of those not run),
paper_table.csv (the tables' rows), statements.csv (the statements),
fig6_delay.png, fig7_loss.png, fig8_burst.png, fig9_fairness.png, and [FRTO]'s time-sequence
diagrams fig1_spurious_rto.png, fig2_delay_frto.png, fig3_lost_retransmission.png and
fig4_burst.png (one traced transfer each, ``experiments.studies.frto.traces``; ``--no-traces``
leaves them out), summary.json (configuration,
points, statements and their counts, invocations), the journal runs.jsonl (``--resume``) and
invocations.jsonl.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

import matplotlib.pyplot as plt

from experiments.runner.cli import (HelpFormatter, csv_list, finite_float, out_of_range,
                                    series_too_long)
from experiments.runner.plots import save_figure, thousands
from experiments.runner.program import gateway_program
from experiments.runner.report import summary_header, write_csv
from experiments.runner.spec import RunSpec
from experiments.runner.verdicts import counts, csv_rows
from experiments.runner.verdicts import markdown as verdicts_markdown
from experiments.runner.verdicts import rows as verdict_rows
from experiments.runner.sweep import (add_run_options, add_sweep_options, default_jobs,
                                      mode_defaults, run_driver)
from experiments.studies.frto.scenario import CONVENTIONAL, FAIR_BYTES, TRANSFER_BYTES
from experiments.studies.frto.statements import (FAIR_FIELDS, PAPER, fairness_statements,
                                                 samples_of, statements_of)
from experiments.studies.frto.traces import trace_figures

__all__ = ["MODES", "FrtoSweepConfig", "build_specs", "points_of", "statements", "main",
           "parse_args", "PAPER", "PAPER_NAMES", "RESPONSE_NAMES", "VARIANTS", "SCENARIOS",
           "STALL_PROBABILITY"]

STALL_PROBABILITY = 0.02        # [FRTO] §5.1: "a packet is delayed with a probability of 0.02"
TABLE_LOSS = 0.05               # [FRTO] Table 2 / Fig. 7: the 5 % runs
SCENARIOS = ("delay", "loss", "burst", "fairness")
# [FRTO] §5.3: set 2 of the fairness test is F-RTO in test A, conventional in test B
FAIR_TESTS = {"A": "frto", "B": CONVENTIONAL}
FAIR_LEVELS = (STALL_PROBABILITY, 0.0)      # "both with and without additional sudden delays"
PAPER_NAMES = {"eifel": "Eifel w/ SACK", "frto": "F-RTO w/ SACK", "sack": "Regular SACK",
               "newreno": "Regular NewReno", "frto-newreno": "F-RTO w/ NewReno",
               "eifel-newreno": "Eifel w/ NewReno"}
VARIANTS = tuple(PAPER_NAMES)   # the tables' order
# F-RTO with the other responses to a spurious timeout (hosts/tcp/variants/frto.py; the tables'
# F-RTO is the paper's, HALVE): run only when --variants names them
RESPONSE_NAMES = {"frto-undo": "F-RTO (undo) w/ SACK", "frto-rfc4015": "F-RTO (RFC 4015) w/ SACK",
                  "frto-newreno-undo": "F-RTO (undo) w/ NewReno",
                  "frto-newreno-rfc4015": "F-RTO (RFC 4015) w/ NewReno"}
SENDER_NAMES = {**PAPER_NAMES, **RESPONSE_NAMES}
TABLE_OF = {"delay": "Table 1 / Fig. 6 (DELAY)", "loss": "Table 2 / Fig. 7 (LOSS)",
            "burst": "Table 3 / Fig. 8 (BURST)"}


@dataclass(frozen=True)
class FrtoSweepConfig:
    seeds: int
    duration: float                 # virtual seconds a transfer may take at most
    loss_levels: tuple[float, ...]  # LOSS scenario's loss probabilities
    scenarios: tuple[str, ...]
    variants: tuple[str, ...]
    fairness_runs: int              # runs per test and condition of the fairness test
    traces: bool = True             # Figs. 1-4: one traced transfer per sender and figure


MODES = {
    # [FRTO] §5.1: 30 runs per scenario and sender; LOSS at 2, 5 and 10 %; §5.3: 20 fairness runs
    "full": FrtoSweepConfig(seeds=30, duration=900.0, loss_levels=(0.02, 0.05, 0.10),
                            scenarios=SCENARIOS, variants=VARIANTS, fairness_runs=20),
    # LOSS at [FRTO]'s three levels in quick mode too: [FRTO] states the trend at 2 and 10 %
    "quick": FrtoSweepConfig(seeds=5, duration=900.0, loss_levels=(0.02, TABLE_LOSS, 0.10),
                             scenarios=SCENARIOS, variants=VARIANTS, fairness_runs=10),
}


def build_specs(cfg: FrtoSweepConfig) -> list[RunSpec]:
    """Every sender in every scenario (LOSS at each level) and seed; the fairness test's two
    tests with and without DELAY, ``fairness_runs`` seeds each."""
    specs = []
    for scenario in cfg.scenarios:
        if scenario == "fairness":
            specs += [RunSpec(variant, scenario="frto-fair", level=level, seed=seed,
                              duration=cfg.duration)
                      for variant in FAIR_TESTS.values() for level in FAIR_LEVELS
                      for seed in range(1, cfg.fairness_runs + 1)]
            continue
        levels = {"delay": (STALL_PROBABILITY,), "loss": cfg.loss_levels,
                  "burst": (0.0,)}[scenario]
        for variant in cfg.variants:
            for level in levels:
                for seed in range(1, cfg.seeds + 1):
                    specs.append(RunSpec(variant, scenario=f"frto-{scenario}", level=level,
                                         seed=seed, duration=cfg.duration))
    return specs


def series_name(row: dict) -> str:
    what = row["scenario"] + (f"{row['level']:g}" if row["scenario"] in ("frto-loss", "frto-fair")
                              else "")
    return f"{row['variant']}_{what}_seed{row['seed']}.csv"


# --------------------------------------------------------------------------- report
MEDIANS = ("transfer_s", "lost_data", "retransmits", "unneeded_retransmits",
           "spurious_detections", "timeouts", "fast_retransmits", "lost_acks", "stalls",
           "outages")


def _quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def points_of(rows: Sequence[dict]) -> dict[tuple[str, float, str], dict]:
    """Per (scenario, level, variant): n, transfers completed, the median of each MEDIANS
    column, and throughput's median, quartiles and extremes (the box plot)."""
    groups: dict[tuple[str, float, str], list[dict]] = {}
    for r in rows:
        if "error" not in r and str(r.get("scenario", "")).startswith("frto-"):
            if r["scenario"] == "frto-fair":
                continue
            key = (r["scenario"][len("frto-"):], float(r["level"]), r["variant"])
            groups.setdefault(key, []).append(r)
    points = {}
    for key, group in sorted(groups.items()):
        tput = sorted(float(r["throughput_Bps"]) for r in group)
        q1, q3 = _quartiles(tput)
        p = {"scenario": key[0], "level": key[1], "variant": key[2], "n": len(group),
             "completed": sum(bool(r["completed"]) for r in group),
             "throughput_median": statistics.median(tput), "throughput_q1": q1,
             "throughput_q3": q3, "throughput_min": tput[0], "throughput_max": tput[-1]}
        for name in MEDIANS:
            p[f"{name}_median"] = statistics.median(float(r[name]) for r in group)
        points[key] = p
    return points


def _table_scenarios(cfg: FrtoSweepConfig) -> list[str]:
    """The scenarios of Tables 1-3 the sweep runs (the fairness test is Fig. 9 alone)."""
    return [s for s in cfg.scenarios if s != "fairness"]


# --------------------------------------------------------------------------- fairness (Fig. 9)
def fairness_points_of(rows: Sequence[dict]) -> dict[tuple[str, float], dict]:
    """Per (test, level): runs, and each set's fastest and slowest throughput as a box
    (median, quartiles, extremes)."""
    test_of = {v: t for t, v in FAIR_TESTS.items()}
    groups: dict[tuple[str, float], list[dict]] = {}
    for r in rows:
        if "error" not in r and r.get("scenario") == "frto-fair" and r["variant"] in test_of:
            groups.setdefault((test_of[r["variant"]], float(r["level"])), []).append(r)
    points = {}
    for (test, level), group in sorted(groups.items()):
        p = {"test": test, "level": level, "variant": FAIR_TESTS[test], "n": len(group),
             "completed": sum(bool(r["completed"]) for r in group)}
        for name in FAIR_FIELDS:
            values = sorted(float(r[name]) for r in group)
            q1, q3 = _quartiles(values)
            p.update({f"{name}_median": statistics.median(values), f"{name}_q1": q1,
                      f"{name}_q3": q3, f"{name}_min": values[0], f"{name}_max": values[-1],
                      f"{name}_values": values,
                      f"{name}_by_seed": {int(r["seed"]): float(r[name]) for r in group}})
        points[(test, level)] = p
    return points


def fairness_markdown(points: dict, cfg: FrtoSweepConfig) -> list[str]:
    lines = ["", f"**Fig. 9 (fairness, [FRTO] §5.3)**: six 50 KB transfers, set 1 three Regular "
                 f"SACK senders at 0 s, set 2 three more at 3 s (test A: F-RTO w/ SACK, test "
                 f"B: Regular SACK); median throughput (bytes/s, 51,200 B over the transfer "
                 f"time) of each set's fastest and slowest transfer, {cfg.fairness_runs} runs "
                 f"each ([FRTO]: 20).", "",
             "| condition | test | set 1 fastest | set 1 slowest | set 2 fastest | set 2 slowest "
             "| runs done |", "|---|---|---:|---:|---:|---:|---:|"]
    for (test, level), p in sorted(points.items(), key=lambda kv: (-kv[0][1], kv[0][0])):
        cells = " | ".join(f"{p[f'{name}_median']:.0f}" for name in FAIR_FIELDS)
        lines.append(f"| {'DELAY' if level else 'no delays'} | {test} | {cells} | "
                     f"{p['completed']}/{p['n']} |")
    return lines


def plot_fairness(points: dict, out: Path) -> list[str]:
    """Fig. 9: (a) the fastest, (b) the slowest transfer of each set, box plots per test and
    condition, as [FRTO]'s figure (which shows the runs with delays; ours has both)."""
    if not points:
        return []
    fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
    keys = sorted(points, key=lambda k: (-k[1], k[0]))
    for ax, which, title in zip(axes, ("fastest", "slowest"), ("(a) fastest", "(b) slowest")):
        stats = []
        for test, level in keys:
            p = points[(test, level)]
            for s in (1, 2):
                name = f"set{s}_{which}_Bps"
                stats.append({"med": p[f"{name}_median"], "q1": p[f"{name}_q1"],
                              "q3": p[f"{name}_q3"], "whislo": p[f"{name}_min"],
                              "whishi": p[f"{name}_max"],
                              "label": f"{test} set {s}\n{'DELAY' if level else 'no delays'}"})
        ax.bxp(stats, showfliers=False)
        ax.set_title(f"{title} transfer of each set", fontsize=10)
        ax.set_ylabel("throughput (bytes/s, 50 KB / transfer time)")
        ax.tick_params(axis="y", labelleft=True)    # shared scale, each panel labelled
        ax.tick_params(axis="x", labelsize=7)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3, axis="y")
    n = min(p["n"] for p in points.values())
    fig.suptitle(f"[FRTO] Fig. 9: set 1 conventional at 0 s, set 2 at 3 s (test A F-RTO, test B "
                 f"conventional); {n} runs each; box: quartiles, whiskers: min/max", fontsize=10)
    save_figure(fig, out / "fig9_fairness.png")
    return ["fig9_fairness.png"]


def _paper_level(scenario: str) -> float:
    return {"delay": STALL_PROBABILITY, "loss": TABLE_LOSS, "burst": 0.0}[scenario]


def statements(rows: Sequence[dict], points: dict, fair: dict, cfg: FrtoSweepConfig) -> list:
    """[FRTO]'s statements on Tables 1-3 and Figs. 6-9, each with its two verdicts
    (``experiments.studies.frto.statements``)."""
    out = statements_of(points, samples_of(rows), levels=MODES["full"].loss_levels,
                        stall=STALL_PROBABILITY, table_loss=TABLE_LOSS)
    return out + fairness_statements(fair, FAIR_LEVELS)


def _fmt(v, digits: int = 1) -> str:
    if v is None:
        return "-"
    return f"{v:.{digits}f}" if digits else f"{v:g}"


def paper_rows(points: dict, cfg: FrtoSweepConfig) -> list[dict]:
    """One row per scenario and sender of the tables: our medians beside [FRTO]'s."""
    rows = []
    for scenario in _table_scenarios(cfg):
        level = _paper_level(scenario)
        for v in cfg.variants:
            p = points.get((scenario, level, v))
            paper = PAPER[scenario].get(v)
            rows.append({
                "scenario": scenario, "level": level, "variant": v,
                "sender": SENDER_NAMES.get(v, v), "n": p["n"] if p else 0,
                "completed": p["completed"] if p else 0,
                "time_s": p["transfer_s_median"] if p else None,
                "lost": p["lost_data_median"] if p else None,
                "retransmits": p["retransmits_median"] if p else None,
                "unneeded": p["unneeded_retransmits_median"] if p else None,
                "spurious_detections": p["spurious_detections_median"] if p else None,
                "paper_time_s": paper[0] if paper else None,
                "paper_lost": paper[1] if paper else None,
                "paper_retransmits": paper[2] if paper else None})
    return rows


def table_markdown(rows: list[dict], stated: list, cfg: FrtoSweepConfig,
                   fair: dict | None = None) -> str:
    lines = [f"Medians over {cfg.seeds} run(s) per sender of a 100 KB transfer ([FRTO]: 30 runs): "
             f"time (s) / data packets lost / retransmissions, ours beside [FRTO]'s; then "
             f"retransmissions not needed and spurious detections (ours)."]
    for scenario in _table_scenarios(cfg):
        lines += ["", f"**{TABLE_OF[scenario]}**"
                  + (f", loss {_paper_level(scenario):.0%}" if scenario == "loss" else ""), "",
                  "| sender | ours: time / lost / retx | [FRTO]: time / lost / retx | "
                  "not needed | spurious detections | runs done |",
                  "|---|---|---|---:|---:|---:|"]
        for r in rows:
            if r["scenario"] != scenario:
                continue
            ours = (f"{_fmt(r['time_s'], 2)} / {_fmt(r['lost'], 0)} / "
                    f"{_fmt(r['retransmits'], 0)}")
            paper = (f"{_fmt(r['paper_time_s'], 2)} / {_fmt(r['paper_lost'], 0)} / "
                     f"{_fmt(r['paper_retransmits'], 0)}")
            lines.append(f"| {r['sender']} (`{r['variant']}`) | {ours} | {paper} | "
                         f"{_fmt(r['unneeded'], 0)} | {_fmt(r['spurious_detections'], 0)} | "
                         f"{r['completed']}/{r['n']} |")
    if fair:
        lines += fairness_markdown(fair, cfg)
    lines += ["", f"**[FRTO]'s statements** ({cfg.seeds} run(s) per sender and scenario, "
                  f"{cfg.fairness_runs} per fairness test and condition; [FRTO]: 30 and 20)", "",
              verdicts_markdown(stated, paper="[FRTO]", columns=(("paper", "[FRTO]"),
                                                             ("ours", "ours")))]
    return "\n".join(lines)


def write_outputs(rows: list[dict], cfg: FrtoSweepConfig, out: Path, *, mode: str,
                  invocations: Sequence[dict] = (), code_version: str | None = None) -> dict:
    points = points_of(rows)
    fair = fairness_points_of(rows)
    stated = statements(rows, points, fair, cfg)
    table = paper_rows(points, cfg)
    write_csv(out / "runs.csv", rows)
    prows = list(points.values())
    write_csv(out / "points.csv", prows)
    write_csv(out / "paper_table.csv", table)
    write_csv(out / "statements.csv", csv_rows(stated))
    markdown = table_markdown(table, stated, cfg, fair)
    (out / "paper_table.md").write_text(markdown + "\n")
    figures = plot_figures(points, cfg, out) + plot_fairness(fair, out)
    trace_notes: list[str] = []
    if cfg.traces:
        traced, trace_notes = trace_figures(gateway_program()[1], out, variants=cfg.variants,
                                            scenarios=cfg.scenarios, duration=cfg.duration)
        figures += traced
    summary = {**summary_header(rows, cfg, mode=mode, invocations=invocations,
                                code_version=code_version),
               "transfer_bytes": TRANSFER_BYTES, "points": prows,
               "fairness_points": list(fair.values()),
               "paper_table": table, "statements": verdict_rows(stated),
               "verdicts": counts(stated), "table_markdown": markdown,
               "figures": figures, "trace_notes": trace_notes}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def plot_figures(points: dict, cfg: FrtoSweepConfig, out: Path) -> list[str]:
    """Figs. 6-8: throughput box plots (median, quartiles, min/max) per sender; Fig. 7 has one
    panel per loss level."""
    written = []
    for scenario, name in (("delay", "fig6_delay.png"), ("loss", "fig7_loss.png"),
                           ("burst", "fig8_burst.png")):
        levels = sorted({k[1] for k in points if k[0] == scenario})
        if not levels:
            continue
        fig, axes = plt.subplots(1, len(levels), figsize=(4.5 * len(levels) + 3, 5),
                                 squeeze=False)
        for ax, level in zip(axes[0], levels):
            present = [v for v in cfg.variants if (scenario, level, v) in points]
            stats = [{"med": points[(scenario, level, v)]["throughput_median"],
                      "q1": points[(scenario, level, v)]["throughput_q1"],
                      "q3": points[(scenario, level, v)]["throughput_q3"],
                      "whislo": points[(scenario, level, v)]["throughput_min"],
                      "whishi": points[(scenario, level, v)]["throughput_max"],
                      "label": SENDER_NAMES.get(v, v).replace(" w/ ", "\n")} for v in present]
            ax.bxp(stats, showfliers=False)
            paper = [TRANSFER_BYTES / PAPER[scenario][v][0] if v in PAPER[scenario]
                     and level == _paper_level(scenario) else None for v in present]
            xs = [i + 1 for i, p in enumerate(paper) if p is not None]
            if xs:
                ax.plot(xs, [p for p in paper if p is not None], "*", ms=12, color="gold",
                        mec="black", label="[FRTO]'s median (102,400 B / its median time)")
                ax.legend(fontsize=8, loc="lower right")
            ax.set_ylabel("throughput (bytes/s, 100 KB / transfer time)")
            thousands(ax)
            ax.set_ylim(bottom=0)
            ax.tick_params(axis="x", labelsize=8)
            n = min(points[(scenario, level, v)]["n"] for v in present)
            sub = f"loss {level:.0%}, " if scenario == "loss" else ""
            ax.set_title(f"{sub}{n} runs per sender", fontsize=9)
            ax.grid(alpha=0.3, axis="y")
        fig.suptitle(f"[FRTO] {TABLE_OF[scenario].split(' / ')[1]}: 28.8 kbit/s, 200 ms, "
                     f"7-packet router buffer; box: quartiles, whiskers: min/max", fontsize=10)
        save_figure(fig, out / name)
        written.append(name)
    return written


# --------------------------------------------------------------------------- CLI
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.frto_tables", formatter_class=HelpFormatter,
        description="Reproduce F-RTO's Tables 1-3 and Figures 6-8 ([FRTO] §5.1-5.2: 100 KB "
                    "transfers over a 28.8 kbit/s link with delay spikes, random losses or "
                    "loss bursts) with the P4 gateways, six senders. Options without a "
                    "default shown take the --mode's value.")
    p.add_argument("--mode", choices=sorted(MODES), default="quick",
                   help="full: [FRTO]'s 30 runs per sender, LOSS at 2/5/10 %% (a few minutes on "
                        "2 cores); quick: 5 runs per sender, LOSS at 5 %%")
    add_sweep_options(p, out="results/frto")
    p.add_argument("--seeds", type=int, help=f"runs per sender and scenario "
                                             f"({mode_defaults(MODES, 'seeds')})")
    p.add_argument("--duration", type=finite_float,
                   help="virtual seconds a transfer may take at most; one that has not "
                        "finished by then counts with this time "
                        f"({mode_defaults(MODES, 'duration')})")
    p.add_argument("--levels", type=csv_list(finite_float),
                   help=f"the LOSS scenario's loss probabilities, each in (0, 1) "
                        f"({mode_defaults(MODES, 'loss_levels')})")
    p.add_argument("--scenarios", type=csv_list(str, SCENARIOS),
                   help=f"scenarios, comma-separated (default: {','.join(SCENARIOS)})")
    p.add_argument("--fairness-runs", type=int,
                   help=f"runs per test (A, B) and condition (with and without DELAY) of "
                        f"the fairness test, Fig. 9 ({mode_defaults(MODES, 'fairness_runs')})")
    p.add_argument("--variants", type=csv_list(str, VARIANTS + tuple(RESPONSE_NAMES)),
                   help=f"senders, comma-separated (default: {','.join(VARIANTS)}; also "
                        f"{', '.join(RESPONSE_NAMES)}: F-RTO with another response to a "
                        f"spurious timeout than the paper's halving)")
    p.add_argument("--no-traces", dest="traces", action="store_false",
                   help="leave out Figs. 1-4, the time-sequence diagrams of single traced "
                        "transfers (a minute or two: the seed that shows each figure's event "
                        "is searched for)")
    add_run_options(p)
    args = p.parse_args(argv)
    default_jobs(args)
    duration = args.duration if args.duration is not None else MODES[args.mode].duration
    bad = (out_of_range(args, ("jobs", "seeds", "duration", "series", "fairness_runs"))
           or series_too_long(args.series, duration, "transfers"))
    if bad:
        p.error(bad)
    if args.levels is not None and not all(0 < lv < 1 for lv in args.levels):
        p.error("--levels: each loss probability must be in (0, 1)")
    if args.levels is not None and args.scenarios is not None and "loss" not in args.scenarios:
        p.error("--levels sets the LOSS scenario's probabilities, but --scenarios leaves it out")
    return args


def sweep_config(args: argparse.Namespace) -> FrtoSweepConfig:
    overrides = {"seeds": args.seeds, "duration": args.duration, "loss_levels": args.levels,
                 "scenarios": args.scenarios, "variants": args.variants,
                 "fairness_runs": args.fairness_runs, "traces": args.traces}
    return replace(MODES[args.mode], **{k: v for k, v in overrides.items() if v is not None})


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    return run_driver(args, sweep_config(args), build_specs=build_specs,
                      write_outputs=write_outputs, name_of=series_name, label="F-RTO tables",
                      modes=MODES)


if __name__ == "__main__":
    sys.exit(main())
