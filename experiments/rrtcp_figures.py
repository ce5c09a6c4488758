"""Reproduce RR-TCP's evaluation ([RRTCP] §5) in virtual time: Figures 1 and
4-19, Tables 3 and 4, and the §5.7 sweep.

    python -m experiments.rrtcp_figures --mode quick --out results/rrtcp/     # minutes
    python -m experiments.rrtcp_figures --mode full --out results/rrtcp/      # [RRTCP]'s runs
    python -m experiments.rrtcp_figures --mode full --sweep-57 --out results/rrtcp/   # hours

[RRTCP]'s setup (``experiments.studies.rrtcp.scenario``): one long-lived flow over [RRTCP]'s dumbbell
(``topologies.RrTcpTopo``: bottleneck capacity maxwnd / RTT, 50 packets of 1000 bytes) through
the P4 gateways, with [RRTCP]'s impairments on the bottleneck: data packets delayed by one of [RRTCP]'s
distributions (the simulator's delay element), two paths of constant delay (the gateway's
alternate path), delayed ACKs, random drops (the gateway's drop), drop bursts (the simulator).
Each figure and table says which element made its impairments. The figures and their runs are
``experiments.studies.rrtcp.evaluation``; the metrics ``report``; [RRTCP]'s statements, each judged
by direction and size on our numbers, ``checks``.

Outputs in --out: figNN_*.png (Figs. 1, 4-19), table3_mean_rto.md and table4_bursty_loss.md
([RRTCP]'s numbers beside ours), paper_table.md (every statement of [RRTCP] on its figures and
tables with two verdicts, direction and size, and the list of those not run), paper_table.csv
and statements.csv (the same statements), runs.csv, points.csv, summary.json, the journal runs.jsonl
(``--resume``) and invocations.jsonl. ``--sweep-57`` runs §5.7's sweep instead, into
OUT/sweep57/ (sweep57.md, sweep57.csv, its own journal), whose three statements the figures'
paper_table.md then reports too.

With --ns2 the runs of the senders ns-2 2.35 has (SACK and SACK-NODELAY here) also run in ns-2
itself (experiments.ns2.beside: [RRTCP]'s path, its delays as ns-2 error models), after ours: each
figure with a SACK curve gets ns-2's beside it (wide, pale, x markers, "ns-2:" in the legend)
and paper_table.md a column ns-2 (each statement judged on ns-2's runs, with its two verdicts;
"—" with the reason where it needs a sender ns-2 lacks); runs.csv and points.csv carry
``engine`` (ours, ns2), summary.json an ``ns2`` part, OUT/ns2/ the scripts. Without ``ns`` the
flag is an error (exit status 2) before anything runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from experiments.ns2.beside import NS2_VERDICTS, Ns2Beside, add_ns2_option, ns2_writer
from experiments.runner.cli import (HelpFormatter, csv_list, finite_float, out_of_range,
                                    series_too_long)
from experiments.runner.program import gateway_program
from experiments.runner.report import summary_header, write_csv
from experiments.runner.sweep import (add_run_options, add_sweep_options, default_jobs,
                                      mode_defaults, run_driver)
from experiments.runner.verdicts import Statement, beside, counts, csv_rows
from experiments.runner.verdicts import markdown as verdicts_markdown
from experiments.runner.verdicts import rows as verdict_rows
from experiments.studies.rrtcp.checks import View, checks_of
from experiments.studies.rrtcp.evaluation import (ALL_FIGURES, PAPER_NAMES, RrConfig, build_specs,
                                                  panels, tables, traces)
from experiments.studies.rrtcp.plots import plot_panels, plot_traces
from experiments.studies.rrtcp.report import point_rows, points_of, table_markdown
from experiments.studies.rrtcp.scenario import run_rrtcp
from experiments.studies.rrtcp.sweep57 import (CONDITIONS, best_table, sweep_checks, sweep_markdown,
                                               sweep_specs)
from hosts.tcp.variants import VARIANTS as ALL_VARIANTS

__all__ = ["MODES", "main", "parse_args", "write_outputs", "series_name", "PAPER_NAMES"]

MODES = {
    # [RRTCP] §5: 1000 s per run, 5 seeds of the reordering process; the x values are ours ([RRTCP]'s
    # figure images are missing), as many as fit 2 hours on 2 cores
    "full": RrConfig(duration=1000.0, seeds=5, figures=ALL_FIGURES,
                     levels=(0.01, 0.05, 0.10, 0.15, 0.20, 0.30),
                     drops=(0.0, 0.005, 0.01, 0.02), path_delays=(0.04, 0.07, 0.1, 0.15, 0.2),
                     fa_ratios=(0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05),
                     long_k=(4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 8.0),
                     ack_levels=(0.0, 0.05, 0.1, 0.2, 0.3), dist_levels=(0.05, 0.15, 0.30),
                     path_gaps=(0.025, 0.05, 0.1, 0.15, 0.2), bl_k=(0.1, 0.5, 1.5, 4.0)),
    # every figure and table with fewer points, seeds and shorter runs (a few minutes)
    "quick": RrConfig(duration=60.0, seeds=2, figures=ALL_FIGURES, levels=(0.05, 0.15, 0.30),
                      drops=(0.0, 0.01, 0.02), path_delays=(0.05, 0.1, 0.2),
                      fa_ratios=(0.95, 0.9, 0.6, 0.3, 0.05), long_k=(4.5, 6.0, 8.0),
                      ack_levels=(0.0, 0.1, 0.3), dist_levels=(0.05, 0.30),
                      path_gaps=(0.05, 0.1, 0.2), bl_k=(0.5, 2.0, 4.0), per_packet=True),
}
SWEEP57_DIR = "sweep57"


def series_name(row: dict) -> str:
    """A run's time-series file name: the sender and what sets its run apart."""
    parts = [row["variant"]]
    if row["injection"] == "altpath":
        parts.append(f"alt{row['level']:g}+{row['alt_extra_delay']}")
    elif row["level"]:
        parts.append(f"delay{row['level']:g}")
    for name in ("delay", "ack_level", "drop", "bursts", "path_delay", "fa_ratio"):
        if row.get(name):
            parts.append(f"{name}{row[name]}".replace(":", "-").replace(",", "-"))
    return "_".join(parts + [f"seed{row['seed']}"]) + ".csv"


# --------------------------------------------------------------------------- traces
def run_traces(cfg: RrConfig) -> dict[str, list[dict]]:
    """The one-run figures (1, 9, 19), run here: their series and counters by figure."""
    program = gateway_program()[1]
    out: dict[str, list[dict]] = {}
    for trace in traces(cfg):
        for spec in trace.specs:
            result = run_rrtcp(spec, program, trace_step=trace.step,
                               delay_nth=trace.delay_nth or None,
                               sender_trace=trace.number == "1")
            out.setdefault(trace.number, []).append(
                {"spec": spec, "label": PAPER_NAMES.get(spec.variant, spec.variant),
                 "series": result.stats.pop("trace"), "stats": result.stats,
                 "mss": result.mss, "throughput_Bps": result.throughput_Bps})
    return out


# --------------------------------------------------------------------------- report
def _sweep57_checks(out: Path) -> list[Statement]:
    """§5.7's statements as the sweep's own run wrote them (not run when it has not run)."""
    path = out / SWEEP57_DIR / "summary.json"
    try:
        return [Statement.from_row(r) for r in json.loads(path.read_text())["statements"]]
    except (OSError, ValueError, KeyError, TypeError):
        return sweep_checks([], [])


def paper_table(checks: list[Statement], cfg: RrConfig, *, ns2: bool = False) -> str:
    intro = (f"[RRTCP]'s statements on its figures and tables (§2.1, §5), judged on "
             f"{cfg.duration:g} s runs" + (" (on slower paths as many packets: longer)"
                                           if cfg.per_packet else "")
             + f", {cfg.seeds} seed(s) per point ([RRTCP]: 1000 s, 5 seeds)."
             + (f" ns-2: {NS2_VERDICTS}." if ns2 else ""))
    columns = (("paper", "[RRTCP]"), ("ns-2", "ns-2"), ("ours", "ours")) if ns2 else \
        (("paper", "[RRTCP]"), ("ours", "ours"))
    return verdicts_markdown(checks, paper="[RRTCP]", columns=columns, intro=intro)


def ns2_row(row: dict) -> dict:
    """An ns-2 row with the counts our metrics read (``report.run_metrics``): segments sent,
    packets delivered. It has no count of delayed packets or of drops, so no FFR ratio."""
    return {**row, "segments_sent": row["data_packets_sent"],
            "delivered_packets": int(row["delivered_bytes"]) // int(row["mss"])}


def write_outputs(rows: list[dict], cfg: RrConfig, out: Path, *, mode: str,
                  invocations: Sequence[dict] = (), code_version: str | None = None,
                  ns2: Ns2Beside | None = None) -> dict:
    """The figures, tables, paper_table.md and the CSV and JSON files in ``out``; ``ns2``:
    ns-2's runs of the same points (``--ns2``), beside ours in the figures and statements; the
    rows then carry ``engine``."""
    points = points_of(rows)
    ps, ts = panels(cfg), tables(cfg)
    trace_runs = run_traces(cfg)
    ns2_points = points_of(ns2_row(r) for r in ns2.rows) if ns2 else None
    ns2_figures: list[str] = []
    figures = plot_panels(points, ps, out, ns2_points=ns2_points, ns2_figures=ns2_figures)
    figures += plot_traces(trace_runs, traces(cfg), out)
    table_text = {}
    for table in ts:
        table_text[table.name] = table_markdown(table, points)
        (out / table.name).write_text(table_text[table.name] + "\n")
    checks = checks_of(View(points, ps, ts, trace_runs)) + _sweep57_checks(out)
    if ns2:
        beside(checks, checks_of(View(ns2_points, ps, ts, {})), "ns-2",
               lacking=ns2.lacking_text())
    write_csv(out / "runs.csv", ns2.with_engine(rows) if ns2 else rows)
    prows = point_rows(points)
    write_csv(out / "points.csv",
              ns2.with_engine(prows, point_rows(ns2_points)) if ns2 else prows)
    write_csv(out / "paper_table.csv", csv_rows(checks))
    write_csv(out / "statements.csv", csv_rows(checks))
    markdown = paper_table(checks, cfg, ns2=ns2 is not None)
    (out / "paper_table.md").write_text(markdown + "\n")
    summary = {**summary_header(rows, cfg, mode=mode, invocations=invocations,
                                code_version=code_version),
               "points": [{**r, "key": None} for r in prows],
               "statements": verdict_rows(checks), "verdicts": counts(checks),
               "tables": table_text, "table_markdown": markdown, "figures": figures}
    if ns2:
        summary["ns2"] = {**ns2.summary([{**r, "key": None} for r in point_rows(ns2_points)]),
                          "figures": ns2_figures}
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
    return summary


def write_sweep57(rows: list[dict], cfg: RrConfig, out: Path, *, mode: str,
                  invocations: Sequence[dict] = (), code_version: str | None = None) -> dict:
    per_condition, summary_rows = best_table(rows)
    checks = sweep_checks(per_condition, summary_rows)
    write_csv(out / "runs.csv", rows)
    write_csv(out / "sweep57.csv", per_condition)
    markdown = sweep_markdown(per_condition, summary_rows, checks, cfg.duration)
    (out / "sweep57.md").write_text(markdown + "\n")
    summary = {**summary_header(rows, cfg, mode=mode, invocations=invocations,
                                code_version=code_version),
               "senders": summary_rows, "statements": verdict_rows(checks),
               "verdicts": counts(checks), "table_markdown": markdown}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


# --------------------------------------------------------------------------- CLI
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.rrtcp_figures", formatter_class=HelpFormatter,
        description="Reproduce RR-TCP's evaluation ([RRTCP] §5: Figures 1 and 4-19, Tables 3 and "
                    "4; with --sweep-57 §5.7's sweep) on [RRTCP]'s topology with the P4 gateways. "
                    "Options without a default shown take the --mode's value.")
    p.add_argument("--mode", choices=sorted(MODES), default="quick",
                   help="full: [RRTCP]'s 1000 s runs, 5 seeds (about an hour on 2 cores with "
                        "PyPy workers); quick: 60 s runs (as many packets on slower paths: "
                        "240 s at P = 200 ms), 2 seeds, fewer points (minutes)")
    add_sweep_options(p, out="results/rrtcp")
    p.add_argument("--seeds", type=int, help=f"seeds per point ({mode_defaults(MODES, 'seeds')})")
    p.add_argument("--duration", type=finite_float,
                   help=f"seconds of virtual time per run ({mode_defaults(MODES, 'duration')})")
    p.add_argument("--figures", type=csv_list(str, ALL_FIGURES),
                   help=f"which of [RRTCP]'s figures and tables (t3, t4) to reproduce (default: "
                        f"all: {','.join(ALL_FIGURES)})")
    p.add_argument("--levels", type=csv_list(finite_float),
                   help=f"Figs. 4-5: fractions of data packets delayed, each in (0, 1] "
                        f"({mode_defaults(MODES, 'levels')})")
    p.add_argument("--variants", type=csv_list(str, sorted(ALL_VARIANTS)),
                   help="only these senders (default: each figure's own, [RRTCP]'s); SACK without "
                        "delays runs whatever is chosen, as the reference")
    p.add_argument("--sweep-57", action="store_true",
                   help="run [RRTCP] §5.7's sweep (full mode only) into OUT/sweep57/ instead of "
                        "the figures: every sender under conditions drawn from [RRTCP]'s ranges")
    p.add_argument("--sweep-57-conditions", type=int, default=CONDITIONS, metavar="N",
                   help="conditions the §5.7 sweep draws (12 runs each)")
    p.add_argument("--seeds-per-condition", type=int, default=1, metavar="N",
                   help="runs of each sender in each §5.7 condition (seeds 1-N): its "
                        "throughput there is their mean, and the tables give their spread")
    add_ns2_option(p, "sack, [RRTCP]'s SACK and SACK-NODELAY")
    add_run_options(p)
    args = p.parse_args(argv)
    default_jobs(args)
    duration = args.duration if args.duration is not None else MODES[args.mode].duration
    bad = (out_of_range(args, ("jobs", "seeds", "duration", "series", "levels"))
           or series_too_long(args.series, duration, "runs"))
    if bad:
        p.error(bad)
    if args.levels is not None and not all(0 < lv <= 1 for lv in args.levels):
        p.error("--levels: each fraction delayed must be in (0, 1]; 0 is SACK-NODELAY, which "
                "always runs")
    if args.ns2 and args.sweep_57:
        p.error("--ns2 draws ns-2 beside the figures; the §5.7 sweep has no figures")
    if args.sweep_57 and args.mode != "full":
        p.error("--sweep-57 runs [RRTCP]'s 1000 s runs: it needs --mode full")
    if args.sweep_57_conditions < 1:
        p.error("--sweep-57-conditions must be >= 1")
    if args.seeds_per_condition < 1:
        p.error("--seeds-per-condition must be >= 1")
    if args.seeds_per_condition > 1 and not args.sweep_57:
        p.error("--seeds-per-condition is for --sweep-57 (the figures take --seeds)")
    return args


def sweep_config(args: argparse.Namespace) -> RrConfig:
    overrides = {"seeds": args.seeds, "duration": args.duration, "levels": args.levels,
                 "variants": args.variants, "figures": args.figures}
    return replace(MODES[args.mode], **{k: v for k, v in overrides.items() if v is not None})


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cfg = sweep_config(args)
    if args.sweep_57:
        args.out = str(Path(args.out) / SWEEP57_DIR)
        n, seeds = args.sweep_57_conditions, args.seeds_per_condition
        return run_driver(args, cfg, build_specs=lambda c: sweep_specs(c, n, seeds),
                          write_outputs=write_sweep57, name_of=series_name,
                          label="RR-TCP §5.7 sweep", modes=MODES)
    write = ns2_writer(args, lambda: build_specs(cfg), write_outputs)
    if write is None:
        return 2
    return run_driver(args, cfg, build_specs=build_specs, write_outputs=write,
                      name_of=series_name, label="RR-TCP figures", modes=MODES)


if __name__ == "__main__":
    sys.exit(main())
