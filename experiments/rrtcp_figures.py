"""Reproduce RR-TCP's evaluation (seeds/000-rr-tcp-dsack.txt §5) in virtual time: Figures 1 and
4-19, Tables 3 and 4, and the §5.7 sweep.

    python -m experiments.rrtcp_figures --mode quick --out results/rrtcp/     # minutes
    python -m experiments.rrtcp_figures --mode full --out results/rrtcp/      # 000's runs
    python -m experiments.rrtcp_figures --mode full --sweep-57 --out results/rrtcp/   # hours

000's setup (``experiments.studies.rrtcp.scenario``): one long-lived flow over 000's dumbbell
(``topologies.RrTcpTopo``: bottleneck capacity maxwnd / RTT, 50 packets of 1000 bytes) through
the P4 gateways, with 000's impairments on the bottleneck: data packets delayed by one of 000's
distributions (the simulator's delay element), two paths of constant delay (the gateway's
alternate path), delayed ACKs, random drops (the gateway's drop), drop bursts (the simulator).
Each figure and table says which element made its impairments. The figures and their runs are
``experiments.studies.rrtcp.evaluation``; the metrics ``report``; 000's statements, checked
against our numbers, ``checks``.

Outputs in --out: figNN_*.png (Figs. 1, 4-19), table3_mean_rto.md and table4_bursty_loss.md
(000's numbers beside ours), paper_table.md/.csv (every statement of 000 on its figures and
tables: ok, not ok or not run), runs.csv, points.csv, summary.json, the journal runs.jsonl
(``--resume``) and invocations.jsonl. ``--sweep-57`` runs §5.7's sweep instead, into
OUT/sweep57/ (sweep57.md, sweep57.csv, its own journal), whose two statements the figures'
paper_table.md then reports too.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from experiments.runner.cli import (HelpFormatter, csv_list, finite_float, out_of_range,
                                    series_too_long)
from experiments.runner.program import gateway_program
from experiments.runner.report import summary_header, write_csv
from experiments.runner.sweep import (add_run_options, add_sweep_options, default_jobs,
                                      mode_defaults, run_driver)
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
    # 000 §5: 1000 s per run, 5 seeds of the reordering process; the x values are ours (000's
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
def _sweep57_checks(out: Path) -> list[dict]:
    path = out / SWEEP57_DIR / "summary.json"
    try:
        return json.loads(path.read_text())["checks"]
    except (OSError, ValueError, KeyError):
        return sweep_checks([], [])


def paper_table(checks: list[dict], cfg: RrConfig) -> str:
    counts = {k: sum(c["ok"] == k for c in checks) for k in ("ok", "not ok", "not run")}
    lines = [f"000's statements on its figures and tables (digest 000 §4), checked on "
             f"{cfg.duration:g} s runs" + (" (on slower paths as many packets: longer)"
                                            if cfg.per_packet else "")
             + f", {cfg.seeds} seed(s) per point (000: 1000 s, 5 seeds): "
             f"{counts['ok']} ok, {counts['not ok']} not ok, {counts['not run']} not run.", "",
             "| item | 000 says (and the test) | ours | |", "|---|---|---|---|"]
    for c in checks:
        lines.append(f"| {c['item']} | {c['claim']} | {c['ours']} | {c['ok']} |")
    return "\n".join(lines)


def write_outputs(rows: list[dict], cfg: RrConfig, out: Path, *, mode: str,
                  invocations: Sequence[dict] = (), code_version: str | None = None) -> dict:
    points = points_of(rows)
    ps, ts = panels(cfg), tables(cfg)
    trace_runs = run_traces(cfg)
    figures = plot_panels(points, ps, out)
    figures += plot_traces(trace_runs, traces(cfg), out)
    table_text = {}
    for table in ts:
        table_text[table.name] = table_markdown(table, points)
        (out / table.name).write_text(table_text[table.name] + "\n")
    checks = [c.row() for c in checks_of(View(points, ps, ts, trace_runs))]
    checks += [{**c, "ok": {True: "ok", False: "not ok", None: "not run"}.get(c["ok"], c["ok"])}
               for c in _sweep57_checks(out)]
    write_csv(out / "runs.csv", rows)
    prows = point_rows(points)
    write_csv(out / "points.csv", prows)
    write_csv(out / "paper_table.csv", checks)
    markdown = paper_table(checks, cfg)
    (out / "paper_table.md").write_text(markdown + "\n")
    summary = {**summary_header(rows, cfg, mode=mode, invocations=invocations,
                                code_version=code_version),
               "points": [{**r, "key": None} for r in prows], "checks": checks,
               "tables": table_text, "table_markdown": markdown, "figures": figures}
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
               "senders": summary_rows,
               "checks": checks, "table_markdown": markdown}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


# --------------------------------------------------------------------------- CLI
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.rrtcp_figures", formatter_class=HelpFormatter,
        description="Reproduce RR-TCP's evaluation (000 §5: Figures 1 and 4-19, Tables 3 and "
                    "4; with --sweep-57 §5.7's sweep) on 000's topology with the P4 gateways. "
                    "Options without a default shown take the --mode's value.")
    p.add_argument("--mode", choices=sorted(MODES), default="quick",
                   help="full: 000's 1000 s runs, 5 seeds (about an hour on 2 cores with "
                        "PyPy workers); quick: 60 s runs (as many packets on slower paths: "
                        "240 s at P = 200 ms), 2 seeds, fewer points (minutes)")
    add_sweep_options(p, out="results/rrtcp")
    p.add_argument("--seeds", type=int, help=f"seeds per point ({mode_defaults(MODES, 'seeds')})")
    p.add_argument("--duration", type=finite_float,
                   help=f"seconds of virtual time per run ({mode_defaults(MODES, 'duration')})")
    p.add_argument("--figures", type=csv_list(str, ALL_FIGURES),
                   help=f"which of 000's figures and tables (t3, t4) to reproduce (default: "
                        f"all: {','.join(ALL_FIGURES)})")
    p.add_argument("--levels", type=csv_list(finite_float),
                   help=f"Figs. 4-5: fractions of data packets delayed, each in (0, 1] "
                        f"({mode_defaults(MODES, 'levels')})")
    p.add_argument("--variants", type=csv_list(str, sorted(ALL_VARIANTS)),
                   help="only these senders (default: each figure's own, 000's); SACK without "
                        "delays runs whatever is chosen, as the reference")
    p.add_argument("--sweep-57", action="store_true",
                   help="run 000 §5.7's sweep (full mode only) into OUT/sweep57/ instead of "
                        "the figures: every sender under conditions drawn from 000's ranges")
    p.add_argument("--sweep-57-conditions", type=int, default=CONDITIONS, metavar="N",
                   help="conditions the §5.7 sweep draws (12 runs each)")
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
    if args.sweep_57 and args.mode != "full":
        p.error("--sweep-57 runs 000's 1000 s runs: it needs --mode full")
    if args.sweep_57_conditions < 1:
        p.error("--sweep-57-conditions must be >= 1")
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
        n = args.sweep_57_conditions
        return run_driver(args, cfg, build_specs=lambda c: sweep_specs(c, n),
                          write_outputs=write_sweep57, name_of=series_name,
                          label="RR-TCP §5.7 sweep", modes=MODES)
    return run_driver(args, cfg, build_specs=build_specs, write_outputs=write_outputs,
                      name_of=series_name, label="RR-TCP figures", modes=MODES)


if __name__ == "__main__":
    sys.exit(main())
