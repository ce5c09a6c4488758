"""Reproduce RD-TCP's Figures 1–4 ([RDTCP] §5–6) in virtual time.

    python -m experiments.rdtcp_figures --mode full --jobs 2 --out results/
    python -m experiments.rdtcp_figures --mode quick --out results/     # CI-sized

Each point is the throughput of one bulk transfer (A -> B over the paper's dumbbell) against the
number of random queue swaps per 1 s or 8 s interval at R1's bottleneck, for TCP SACK, TCP with
DSACK undo and RD-TCP (k = 3), several seeds per point (mean and sample standard deviation).
Further series use the gateway's own P4 reordering injections (alternate path, recirculation).

Zero-swap points are deterministic, so they run for seed 1 only (n = 1, no sd): without swaps
and without an injection nothing random acts on the transfer. The seed only draws the two
endpoints' initial sequence numbers, which change no timing (runs of seeds 1-3 give identical
rows and time series; tests/experiments/test_runner_cli.py checks it), and the gateway's random
stream is drawn only by an injection. No injection series runs at level 0: that is the same
zero-swap run.

Outputs in --out: runs.csv (one row per run), points.csv (n, mean, sample sd and the swaps done
and asked per point),
fig1_sack.png, fig2_rdtcp.png, fig3_sack_vs_rdtcp.png, fig4_dsack_vs_rdtcp.png,
fig5_injection.png (when injection series ran), fig6_k_study.png (RD-TCP at the paper's 15 swaps
every second against k, for unbounded and bounded swap distances: the paper's §6 statements on k),
with --legacy the incremental-deployment series ([RDTCP] §7: experiments.studies.rdtcp.legacy) in
legacy.csv, legacy.json and fig10_legacy.png,
paper_table.md (the paper's numbers beside ours, each within 10 % or not, and [RDTCP]'s statements,
each with two verdicts, direction and size, and those not run), paper_table.csv, statements.csv,
summary.json (configuration, points, shape checks, statements and their counts, k study, the code version, and each invocation's wall time, jobs and workers), the journal
runs.jsonl that --resume reads back (each row stamped with the code version that made it;
--resume reuses only rows of the running code's version) and invocations.jsonl (one line per
invocation of the sweep on that journal).

With --ns2 the runs of the senders ns-2 2.35 has (SACK; NewReno and Reno when --variants names
them) also run in ns-2 itself (experiments.ns2.beside: the same dumbbell, [RDTCP]'s swaps as
hold-backs before R1's queue), after ours: every figure gets ns-2's curve beside ours (wide,
pale, x markers), paper_table.md a column ns-2 (its throughput and size verdict) and the
statements a column ns-2 (each judged on ns-2's runs, with its own two verdicts), "—" with the
reason for the senders ns-2 lacks; runs.csv and points.csv carry ``engine`` (ours, ns2),
summary.json an ``ns2`` part, OUT/ns2/ the scripts. Without ``ns`` the flag is an error (exit
status 2) before anything runs.

The parts: experiments.runner.cli (argument types, --help, errors), experiments.runner.sweep (what every figure
sweep does with its specs), experiments.runner.journal (runs.jsonl), experiments.runner.pool (running the specs
on workers), experiments.studies.rdtcp.report (tables and figures).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from experiments.helptext import add_list_variants, prog_name
from experiments.runner.cli import (HelpFormatter, csv_list, finite_float, out_of_range,
                                    series_too_long)
from experiments.runner.report import summary_header, write_csv
from experiments.runner.spec import INJECTIONS, P4_INJECTIONS, RDTCP_VARIANTS, SENDERS, RunSpec
from experiments.ns2.beside import NS2_VERDICTS, Ns2Beside, add_ns2_option, ns2_writer
from experiments.runner.verdicts import beside, counts, csv_rows
from experiments.runner.verdicts import markdown as verdicts_markdown
from experiments.runner.verdicts import rows as verdict_rows
from experiments.runner.sweep import (add_run_options, add_sweep_options, default_jobs,
                                      mode_defaults, run_driver)
from experiments.studies.rdtcp.legacy import (LEGACY_FIGURE, LEGACY_INTERVAL, legacy_markdown,
                                              legacy_points, legacy_rows, plot_legacy,
                                              series_variants)
from experiments.studies.rdtcp.plots import plot_all
from experiments.studies.rdtcp.report import (STATISTICS_NOTE, aggregate_all, figure_points,
                                              k_study, paper_table, point_rows, shape_checks,
                                              table_markdown)
from experiments.studies.rdtcp.scenario import PAPER_VARIANTS, VARIANTS
from experiments.studies.rdtcp.statements import statements_of

__all__ = ["MODES", "SweepConfig", "build_specs", "main", "parse_args", "sweep_config",
           "write_outputs", "K_STUDY_SWAPS", "K_STUDY_INTERVAL"]

# The k study runs at the one reordering level the paper quotes numbers for ([RDTCP] §5-6).
K_STUDY_SWAPS = 15
K_STUDY_INTERVAL = 1.0


@dataclass(frozen=True)
class SweepConfig:
    duration: float
    seeds: int
    swaps: tuple[int, ...]
    intervals: tuple[float, ...]
    variants: tuple[str, ...]
    injections: tuple[str, ...]       # injection series besides the paper's swaps (P4, delay)
    levels: tuple[float, ...]         # their per-packet probabilities
    swap_span: int = 0                # figures' swap model: max places apart (0: anywhere)
    k_values: tuple[int, ...] = ()    # k study: RD-TCP's k at 15 swaps every 1 s ...
    k_spans: tuple[int, ...] = ()     # ... for each of these swap spans
    legacy: tuple[str, ...] = ()      # incremental deployment ([RDTCP] §7): legacy routers, r1/r2/both
    legacy_swaps: tuple[int, ...] = (0, 15)  # ... at these swaps per second
    r2_drop: float = 0.005            # ... and loss at R2: drop probability per data segment


MODES = {
    # The paper's 10-minute transfers; swap counts around its quoted 15 per second.
    "full": SweepConfig(duration=600.0, seeds=3, swaps=(0, 5, 10, 15, 20, 25, 30),
                        intervals=(1.0, 8.0), variants=VARIANTS,
                        injections=("altpath", "recirc", "delay"),
                        levels=(0.0, 0.01, 0.02, 0.05),
                        k_values=(0, 1, 2, 3, 4, 5, 6, 8), k_spans=(0, 5)),
    # Minutes on two cores: shorter transfers, fewer points, no injection series.
    "quick": SweepConfig(duration=60.0, seeds=2, swaps=(0, 5, 15, 30), intervals=(1.0, 8.0),
                         variants=VARIANTS, injections=(), levels=(0.0, 0.02),
                         k_values=(0, 1, 3, 6), k_spans=(0, 5)),
}


def build_specs(cfg: SweepConfig) -> list[RunSpec]:
    """Every run of the sweep, each once. Zero swaps is one point shared by both intervals, run
    for seed 1 only (deterministic: see the module docstring); the k study reuses the figures'
    RD-TCP run where they coincide."""
    specs: list[RunSpec] = []
    for variant in cfg.variants:
        for seed in range(1, cfg.seeds + 1):
            base = RunSpec(variant=variant, seed=seed, duration=cfg.duration,
                           swap_span=cfg.swap_span)
            for swaps in cfg.swaps:
                if not swaps and seed > 1:
                    continue            # other seeds would repeat seed 1's run exactly
                for interval in (cfg.intervals if swaps else cfg.intervals[:1]):
                    specs.append(replace(base, swaps=swaps, interval=interval))
            for injection in cfg.injections:
                # the P4 series for the paper's senders; reordering by delay ([RDTCP] §7's further
                # work, [RRTCP]'s model) for every sender, since how the extensions fare is the point
                if injection in P4_INJECTIONS and variant not in PAPER_VARIANTS:
                    continue
                for level in cfg.levels:
                    if level > 0:
                        specs.append(replace(base, injection=injection, level=level))
    if "rdtcp" in cfg.variants:
        for seed in range(1, cfg.seeds + 1):
            for span in cfg.k_spans:
                for k in cfg.k_values:
                    specs.append(RunSpec(variant="rdtcp", seed=seed, duration=cfg.duration,
                                         swaps=K_STUDY_SWAPS, interval=K_STUDY_INTERVAL, k=k,
                                         swap_span=span))
    return list(dict.fromkeys(specs + legacy_specs(cfg)))


def legacy_specs(cfg: SweepConfig) -> list[RunSpec]:
    """The incremental-deployment series ([RDTCP] §7, experiments.studies.rdtcp.legacy): each RD-TCP
    sender with both gateways upgraded and with each of ``cfg.legacy``'s routers a legacy one,
    SACK and RACK-TLP with both upgraded (they read no EPDN), each with loss at R1 (its queue)
    and at R2 (``cfg.r2_drop``), at ``cfg.legacy_swaps`` swaps per second. A run without swaps
    and without R2's drops is deterministic: seed 1 only, as in the figures."""
    if not cfg.legacy:
        return []
    specs = []
    for variant in series_variants(cfg.variants):
        settings = ("none",) + cfg.legacy if variant in RDTCP_VARIANTS else ("none",)
        for legacy in settings:
            for r2_drop in (0.0, cfg.r2_drop):
                for swaps in cfg.legacy_swaps:
                    for seed in range(1, cfg.seeds + 1):
                        if seed > 1 and not swaps and not r2_drop:
                            continue
                        specs.append(RunSpec(
                            variant=variant, seed=seed, duration=cfg.duration, swaps=swaps,
                            interval=LEGACY_INTERVAL if swaps else cfg.intervals[0],
                            swap_span=cfg.swap_span, legacy=legacy, r2_drop=r2_drop))
    return specs


# --------------------------------------------------------------------------- CLI
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=prog_name("experiments.rdtcp_figures", "rdtcp-experiment"),
        formatter_class=HelpFormatter,
        description="Reproduce RD-TCP's Figures 1-4 (throughput against random queue swaps for "
                    "TCP SACK, DSACK and RD-TCP) on the simulated dumbbell with the P4 gateway. "
                    "Options without a default shown take the --mode's value.")
    p.add_argument("--mode", choices=sorted(MODES), default="full",
                   help="full: the paper's 10-minute transfers; quick: a CI-sized sweep")
    add_sweep_options(p, out="results")
    p.add_argument("--seeds", type=int,
                   help=f"seeds per point ({mode_defaults(MODES, 'seeds')}; zero-swap points are "
                        "deterministic and run seed 1 only)")
    p.add_argument("--duration", type=finite_float,
                   help="seconds of virtual time per transfer "
                        f"({mode_defaults(MODES, 'duration')})")
    p.add_argument("--swaps", type=csv_list(int),
                   help=f"swap counts per interval ({mode_defaults(MODES, 'swaps')})")
    p.add_argument("--interval", type=csv_list(finite_float),
                   help=f"swap intervals in s ({mode_defaults(MODES, 'intervals')})")
    p.add_argument("--variants", type=csv_list(str, SENDERS),
                   help=f"senders, comma-separated: any of hosts.tcp.variants (default: "
                        f"{','.join(VARIANTS)})")
    add_list_variants(p, SENDERS)
    p.add_argument("--injections", type=csv_list(str, INJECTIONS[1:]),
                   help=f"extra reordering series: altpath,recirc (the P4 gateway's, for "
                        f"{','.join(PAPER_VARIANTS)}), delay (each data packet delayed by "
                        f"N(25 ms, 8 ms) with the level's probability, every sender) "
                        f"({mode_defaults(MODES, 'injections')})")
    p.add_argument("--no-injections", action="store_true", help="skip the injection series")
    p.add_argument("--levels", type=csv_list(finite_float),
                   help=f"injection probabilities per packet ({mode_defaults(MODES, 'levels')}; "
                        "level 0 is the zero-swap run and is not repeated)")
    p.add_argument("--swap-span", type=int, metavar="N",
                   help="figures' swap model: swapped packets at most N places apart "
                        "(default: 0, anywhere in the queue: the paper's unqualified 'random "
                        "swaps')")
    p.add_argument("--k-values", type=csv_list(int),
                   help=f"k study: RD-TCP's k values at {K_STUDY_SWAPS} swaps every "
                        f"{K_STUDY_INTERVAL:g} s ({mode_defaults(MODES, 'k_values')})")
    p.add_argument("--k-spans", type=csv_list(int),
                   help=f"k study: swap spans to run it for, 0: anywhere "
                        f"({mode_defaults(MODES, 'k_spans')})")
    p.add_argument("--no-k-study", action="store_true", help="skip the k study")
    p.add_argument("--legacy", type=csv_list(str, LEGACY_CHOICES),
                   help="incremental deployment ([RDTCP] §7): also run RD-TCP's senders with these "
                        "gateways as legacy routers (no EPDN), comma-separated r1, r2, both, "
                        "beside both upgraded and beside SACK and RACK-TLP, with loss at R1 "
                        "(its queue) and at R2 (--r2-drop); writes legacy.csv, legacy.json and "
                        f"{LEGACY_FIGURE} (default: not run)")
    p.add_argument("--legacy-swaps", type=csv_list(int),
                   help=f"--legacy series: swaps every {LEGACY_INTERVAL:g} s "
                        f"({mode_defaults(MODES, 'legacy_swaps')})")
    p.add_argument("--r2-drop", type=finite_float, metavar="P",
                   help="--legacy series: probability per data segment that R2 drops it, for "
                        f"the runs with loss at R2 ({mode_defaults(MODES, 'r2_drop')})")
    add_ns2_option(p, "sack; newreno and reno when --variants names them")
    add_run_options(p)
    args = p.parse_args(argv)
    default_jobs(args)
    duration = args.duration if args.duration is not None else MODES[args.mode].duration
    bad = (out_of_range(args, ("jobs", "seeds", "duration", "swaps", "interval", "swap_span",
                               "k_values", "k_spans", "series"))
           or series_too_long(args.series, duration, "transfers")
           or out_of_range(args, ("levels",)))
    if bad:
        p.error(bad)
    # options that the other one would silently discard
    if args.no_injections and (args.injections or args.levels):
        p.error("--no-injections contradicts --injections/--levels")
    if args.no_k_study and (args.k_values or args.k_spans):
        p.error("--no-k-study contradicts --k-values/--k-spans")
    if (args.k_values or args.k_spans) and args.variants and "rdtcp" not in args.variants:
        p.error("--k-values/--k-spans study rdtcp's k: add rdtcp to --variants")
    # the P4 injection series run for the paper's senders only (build_specs)
    p4_only = args.injections is not None and not set(args.injections) - set(P4_INJECTIONS)
    if p4_only and args.variants and not set(args.variants) & set(PAPER_VARIANTS):
        p.error(f"--injections {','.join(args.injections)} run for {', '.join(PAPER_VARIANTS)} "
                f"only: add one of them to --variants")
    if args.levels and not any(args.levels):
        p.error("--levels: level 0 is the zero-swap run, not an injection series; give a "
                "level > 0")
    bad = _legacy_conflict(args)
    if bad:
        p.error(bad)
    return args


LEGACY_CHOICES = ("r1", "r2", "both")


def _legacy_conflict(args: argparse.Namespace) -> str | None:
    """A sentence naming a --legacy series option that would not act, else None."""
    if not args.legacy:
        shaping = [o for o, v in (("--legacy-swaps", args.legacy_swaps),
                                  ("--r2-drop", args.r2_drop)) if v is not None]
        if shaping:
            return (f"{' and '.join(shaping)} shape(s) the --legacy series: give --legacy "
                    f"r1, r2 or both with it")
        return None
    if args.variants and not set(args.variants) & set(RDTCP_VARIANTS):
        return (f"--legacy studies the RD-TCP senders ({', '.join(RDTCP_VARIANTS)}): a legacy "
                f"router changes only the EPDN stamps they read; add one to --variants")
    if args.legacy_swaps is not None and any(v < 0 for v in args.legacy_swaps):
        return "--legacy-swaps must be >= 0"
    if args.r2_drop is not None and not 0 < args.r2_drop <= 1:
        return ("--r2-drop must be a probability in (0, 1]: 0 would repeat the runs with loss "
                "at R1")
    return None


def sweep_config(args: argparse.Namespace) -> SweepConfig:
    cfg = MODES[args.mode]
    overrides = {"seeds": args.seeds, "duration": args.duration, "swaps": args.swaps,
                 "intervals": args.interval, "variants": args.variants,
                 "injections": args.injections, "levels": args.levels,
                 "swap_span": args.swap_span, "k_values": args.k_values,
                 "k_spans": args.k_spans,
                 "legacy": tuple(dict.fromkeys(args.legacy)) if args.legacy else None,
                 "legacy_swaps": args.legacy_swaps, "r2_drop": args.r2_drop}
    cfg = replace(cfg, **{k: v for k, v in overrides.items() if v is not None})
    if args.no_injections:
        cfg = replace(cfg, injections=())
    if args.no_k_study:
        cfg = replace(cfg, k_values=(), k_spans=())
    return cfg


def series_name(row: dict) -> str:
    """The file name of a run's time series, naming only what acts on the run: k for the RD-TCP
    senders, the swaps (count, span, interval) or the P4 injection and its level, the seed."""
    parts = [row["variant"]]
    if row["variant"] in RDTCP_VARIANTS:
        parts.append(f"k{row['k']}")
    if row.get("legacy", "none") != "none":
        parts.append(f"legacy-{row['legacy']}")
    if row.get("r2_drop", 0.0):
        parts.append(f"r2drop{row['r2_drop']:g}")
    if row["injection"] != "swap":
        parts.append(f"{row['injection']}{row['level']:g}")
    elif row["swaps"]:
        parts.append(f"swaps{row['swaps']}_every{row['interval']:g}s_span{row['swap_span']}")
    else:
        parts.append("noreordering")
    return "_".join(parts + [f"seed{row['seed']}"]) + ".csv"


def write_outputs(rows: list[dict], cfg: Any, out: Path, *, mode: str,
                  invocations: list[dict] = (), code_version: str | None = None,
                  ns2: Ns2Beside | None = None) -> dict:
    """runs.csv, points.csv, figures, paper_table.{md,csv} and summary.json in ``out``.
    ``invocations``: one entry per invocation of the sweep on its journal, oldest first (the
    sweep's invocations.jsonl: wall_s, jobs, workers, code_version, runs done and reused, ...);
    summary.json lists them and its ``wall_s`` is their total. ``ns2``: ns-2's runs of the
    same specs (``--ns2``), set beside ours in every file; the rows then carry ``engine``."""
    all_points = aggregate_all(rows)
    points = figure_points(all_points, swap_span=getattr(cfg, "swap_span", 0))
    study = k_study(all_points, swaps=K_STUDY_SWAPS, interval=K_STUDY_INTERVAL) \
        if getattr(cfg, "k_values", ()) else {}
    duration = getattr(cfg, "duration", None)
    ns2_all = aggregate_all(ns2.rows) if ns2 else {}
    ns2_points = figure_points(ns2_all, swap_span=getattr(cfg, "swap_span", 0)) if ns2 else None
    write_csv(out / "runs.csv", ns2.with_engine(rows) if ns2 else rows)
    prows = point_rows(all_points)
    write_csv(out / "points.csv", ns2.with_engine(prows, point_rows(ns2_all)) if ns2 else prows)
    table = paper_table(points, duration=duration, ns2_points=ns2_points,
                        ns2_lacking=ns2.plan.lacking if ns2 else None)
    write_csv(out / "paper_table.csv", table)
    stated = statements_of(rows, points, study)
    columns = (("paper", "[RDTCP]"), ("ours", "ours"))
    if ns2:
        beside(stated, statements_of(ns2.rows, ns2_points, {}), "ns-2",
               lacking=ns2.lacking_text())
        columns = (("paper", "[RDTCP]"), ("ns-2", "ns-2"), ("ours", "ours"))
    write_csv(out / "statements.csv", csv_rows(stated))
    runs_text = (f"{duration:g} s transfers" if duration is not None else "our transfers")
    markdown = (table_markdown(table, duration=duration) + "\n\n"
                + verdicts_markdown(stated, paper="[RDTCP]", columns=columns,
                                    intro=f"**[RDTCP]'s statements** on its Figs. 1-4 and §6's k, "
                                          f"judged on {runs_text} ([RDTCP]: 10-minute transfers)"
                                          + (f"; ns-2: {NS2_VERDICTS}" if ns2 else "")))
    (out / "paper_table.md").write_text(markdown + "\n")
    ns2_figures: list[str] = []
    figures = plot_all(points, out, k_study=study, duration=duration, ns2_points=ns2_points,
                       ns2_figures=ns2_figures)
    legacy = write_legacy(rows, cfg, out, duration=duration)
    if legacy:
        figures += legacy["figures"]
        markdown += "\n\n" + legacy["table_markdown"]
    summary = {**summary_header(rows, cfg, mode=mode, invocations=invocations,
                                code_version=code_version),
               "statistics": STATISTICS_NOTE,
               "points": prows, "checks": shape_checks(points), "paper_table": table,
               "statements": verdict_rows(stated), "verdicts": counts(stated),
               "table_markdown": markdown, "figures": figures,
               "k_study": {str(span): ks for span, ks in study.items()}}
    if legacy:
        summary["legacy"] = legacy
    if ns2:
        summary["ns2"] = {**ns2.summary(point_rows(ns2_all)), "figures": ns2_figures}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def write_legacy(rows: list[dict], cfg: Any, out: Path, *,
                 duration: float | None) -> dict | None:
    """The incremental-deployment series' legacy.csv, legacy.json and figure, when it ran;
    returns what summary.json keeps of it (None when it did not run)."""
    if not getattr(cfg, "legacy", ()):
        return None
    points = legacy_points(rows, swaps=cfg.legacy_swaps, swap_span=cfg.swap_span)
    table = legacy_rows(points)
    write_csv(out / "legacy.csv", table)
    figures = [LEGACY_FIGURE] if plot_legacy(points, out / LEGACY_FIGURE,
                                             duration=duration) else []
    legacy = {"legacy_routers": list(cfg.legacy), "swaps_per_s": list(cfg.legacy_swaps),
              "swap_interval_s": LEGACY_INTERVAL, "r2_drop": cfg.r2_drop, "points": table,
              "table_markdown": legacy_markdown(table, duration=duration), "figures": figures}
    (out / "legacy.json").write_text(json.dumps(legacy, indent=2) + "\n")
    return legacy


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cfg = sweep_config(args)
    write = ns2_writer(args, lambda: build_specs(cfg), write_outputs)
    if write is None:
        return 2
    return run_driver(args, cfg, build_specs=build_specs, write_outputs=write,
                      name_of=series_name, label="RD-TCP figures", modes=MODES)


if __name__ == "__main__":
    sys.exit(main())
