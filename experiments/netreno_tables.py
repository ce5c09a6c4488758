"""Reproduce Net Reno's evaluation ([NETRENO] §4.1, §7.1-7.2) in
virtual time with the P4 gateway.

    python -m experiments.netreno_tables --mode quick --out results/netreno/   # a few minutes
    python -m experiments.netreno_tables --mode full --out results/netreno/    # [NETRENO]'s runs

- §7.1 (Tables 1-2): five always-backlogged senders, C1-C4 on (1 ms, 103.3 Mb/s) and C5 on
  (16 ms, 31.0 Mb/s), sharing a (2 ms, 51.7 Mb/s) link to one sink behind RED in the P4
  gateway (buffer 16, min_th 4, max_th 8, w_q 0.002, max_p 1/50); 512-byte segments; [NETRENO]'s
  senders new-reno and sack (the loss-sensitive ``lsnr``, ``lssack``), net-reno (``netreno``),
  net-reno-sack (``netreno-sack``), and beside them RFC 6582's and RFC 6675's (``newreno``,
  ``sack``); 10 runs of 30 s -> table1_rtos.md, table2_drops.md (RTOs and drops per
  connection, summed over the runs, [NETRENO]'s numbers beside ours).
- §7.2 (Table 3): one sender through a RED gateway (buffer 20, min_th 5, max_th 10, w_q 1/512,
  max_p 0.02) from 100 to 10 Mb/s, each optimization alone and together on the loss-sensitive
  new-reno and sack, and NetBSD's Reno -> table3_goodput.md.
- §4.1 (Fig. 1): the analyzer's causes of the RTOs (non-trigger, multiple loss, lost
  retransmission; analyzer/rto_classes.py) of simulated 100 KB transfers of NetBSD's Reno ->
  fig1_rto_causes.png/.csv.
- §4.2, §6.2, §6.4 (Figs. 2-5): time-sequence diagrams of one traced connection each, a
  mechanism at work (experiments.studies.netreno.traces): NR-SW recovering a loss in a window
  of three -> fig2_small_window.png; SACK's lost retransmission ending in a timeout ->
  fig3_lost_retransmission.png; the same connection with NR-LRX's ACK clock sending it again
  -> fig4_ack_clock.png; NR-B2B's second recovery on the first duplicate ACK ->
  fig5_back_to_back.png; each with its points in a .csv (the same runs in both modes, about
  half a minute; ``--no-traces`` leaves them out).

Every host runs NetBSD 1.2's timers (experiments.studies.netreno.scenario). RED is the P4
gateway's (p4src/include/buffer.p4), configured through the controller's ``ports.N.red``;
``--queue droptail`` runs the same networks with the program's drop-tail buffer instead.

Outputs in --out: the tables (.md and .csv), fig1_rto_causes.png/.csv, fig2-fig5 .png/.csv,
runs.csv, summary.json (configuration, tables, [NETRENO]'s statements with their verdicts, the traced
runs of Figs. 2-5 and their events, invocations), paper_table.md (all
of it: the tables, then [NETRENO]'s statements, each with two verdicts, direction and size, and those
not run), statements.csv, the journal runs.jsonl (``--resume``) and invocations.jsonl.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from experiments.runner.cli import HelpFormatter, csv_list, finite_float, out_of_range
from experiments.runner.program import gateway_program
from experiments.runner.report import summary_header, write_csv
from experiments.runner.spec import SENDERS, RunSpec
from experiments.runner.sweep import (add_run_options, add_sweep_options, default_jobs,
                                      mode_defaults, run_driver)
from experiments.runner.verdicts import counts, csv_rows
from experiments.runner.verdicts import rows as verdict_rows
from experiments.studies.netreno.report import (FIG1_XS, TABLE3_ROWS, fig1_data, markdown,
                                                plot_fig1, table1_markdown, table2_markdown,
                                                table3_markdown, table3_rows, table12_rows)
from experiments.studies.netreno.statements import statements_of
from experiments.studies.netreno.traces import trace_figures

__all__ = ["MODES", "NetRenoSweepConfig", "build_specs", "write_outputs", "main", "parse_args",
           "SIM_VARIANTS", "LAB_VARIANTS", "PARTS"]

PARTS = ("sim", "lab", "trace")
# §7.1's rows: [NETRENO]'s four senders, then RFC 6582 / RFC 6675
SIM_VARIANTS = ("lsnr", "lssack", "netreno", "netreno-sack", "newreno", "sack")
# §7.2's rows, both columns
LAB_VARIANTS = tuple(v for _, nr, _, sk, _ in TABLE3_ROWS for v in (nr, sk) if v)


@dataclass(frozen=True)
class NetRenoSweepConfig:
    runs: int                       # §7.1: runs per sender
    duration: float                 # §7.1: seconds per run
    sim_variants: tuple[str, ...]
    lab_runs: int                   # §7.2: runs per sender
    lab_duration: float             # §7.2: seconds per run
    lab_variants: tuple[str, ...]
    lab_loss: float                 # §7.2: data packets the program drops at random besides
    trace_runs: int                 # §4.1: runs per drop level, each of 20 transfers of 100 KB
    trace_levels: tuple[float, ...]
    trace_variants: tuple[str, ...]
    queue: str                      # "red" ([NETRENO]'s) or "droptail"
    parts: tuple[str, ...]
    traces: bool = True             # Figs. 2-5: one traced connection per figure


MODES = {
    # [NETRENO] §7.1: "10 times, each simulating about 30 seconds"; §7.2: "Each test were run 300
    # seconds"; §4.1: 2,000 transfers (here 34 runs of 20 at each of three drop levels)
    "full": NetRenoSweepConfig(runs=10, duration=30.0, sim_variants=SIM_VARIANTS, lab_runs=3,
                               lab_duration=300.0, lab_variants=LAB_VARIANTS, lab_loss=0.0,
                               trace_runs=34, trace_levels=(0.01, 0.02, 0.05),
                               trace_variants=("reno",), queue="red", parts=PARTS),
    "quick": NetRenoSweepConfig(runs=2, duration=10.0, sim_variants=SIM_VARIANTS[:4],
                                lab_runs=1, lab_duration=60.0, lab_variants=LAB_VARIANTS,
                                lab_loss=0.0, trace_runs=2, trace_levels=(0.01, 0.02, 0.05),
                                trace_variants=("reno",), queue="red", parts=PARTS),
}
TRACE_DURATION = 1800.0     # virtual seconds for 20 transfers (each at most 300 s)


def build_specs(cfg: NetRenoSweepConfig) -> list[RunSpec]:
    suffix = "" if cfg.queue == "red" else "-droptail"
    specs = []
    if "sim" in cfg.parts:
        specs += [RunSpec(v, scenario=f"netreno-sim{suffix}", seed=seed, duration=cfg.duration)
                  for v in cfg.sim_variants for seed in range(1, cfg.runs + 1)]
    if "lab" in cfg.parts:
        specs += [RunSpec(v, scenario=f"netreno-lab{suffix}", seed=seed,
                          duration=cfg.lab_duration, level=cfg.lab_loss)
                  for v in cfg.lab_variants for seed in range(1, cfg.lab_runs + 1)]
    if "trace" in cfg.parts:
        specs += [RunSpec(v, scenario="netreno-trace", seed=seed, duration=TRACE_DURATION,
                          level=level)
                  for v in cfg.trace_variants for level in cfg.trace_levels
                  for seed in range(1, cfg.trace_runs + 1)]
    return specs


def series_name(row: dict) -> str:
    return f"{row['scenario']}_{row['variant']}_{row['level']:g}_seed{row['seed']}.csv"


# --------------------------------------------------------------------------- report
def write_outputs(rows: list[dict], cfg: NetRenoSweepConfig, out: Path, *, mode: str,
                  invocations: Sequence[dict] = (), code_version: str | None = None) -> dict:
    t12 = table12_rows(rows, cfg.sim_variants)
    t3 = table3_rows(rows)
    fig1 = fig1_data(rows)
    stated = statements_of(rows, t12, t3, fig1)
    write_csv(out / "runs.csv", [{k: v for k, v in r.items() if k != "rtos"} for r in rows])
    figures = []
    if t12:
        (out / "table1_rtos.md").write_text(table1_markdown(t12, cfg) + "\n")
        (out / "table2_drops.md").write_text(table2_markdown(t12, cfg) + "\n")
        write_csv(out / "table1_rtos.csv", _flat12(t12, "rtos"))
        write_csv(out / "table2_drops.csv", _flat12(t12, "drops"))
    if t3:
        (out / "table3_goodput.md").write_text(table3_markdown(t3, cfg) + "\n")
        write_csv(out / "table3_goodput.csv", _flat3(t3))
    if fig1:
        write_csv(out / "fig1_rto_causes.csv", _flat_fig1(fig1))
        if plot_fig1(fig1, out / "fig1_rto_causes.png"):
            figures.append("fig1_rto_causes.png")
    traces: list = []
    trace_notes: list = []
    if cfg.traces:
        traced, trace_notes, traces = trace_figures(gateway_program()[1], out)
        figures += traced
    text = markdown(t12, t3, fig1, stated, cfg)
    (out / "paper_table.md").write_text(text + "\n")
    write_csv(out / "statements.csv", csv_rows(stated))
    summary = {**summary_header(rows, cfg, mode=mode, invocations=invocations,
                                code_version=code_version),
               "table1_2": t12, "table3": t3,
               "fig1": {v: {k: d[k] for k in ("counts", "shares", "transfers", "completed",
                                             "engine_timeouts", "levels", "mean_window")}
                        for v, d in fig1.items()},
               "statements": verdict_rows(stated), "verdicts": counts(stated),
               "table_markdown": text, "figures": figures, "traces": traces,
               "trace_notes": trace_notes}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def _flat12(t12: list[dict], what: str) -> list[dict]:
    out = []
    for r in t12:
        row = {"variant": r["variant"], "sender": r["sender"], "runs": r["runs"],
               "seconds": r["seconds"]}
        row.update({f"c{i + 1}": v for i, v in enumerate(r[what])})
        row["total"] = r[f"{what}_total"]
        if what == "rtos":
            row["handshake_rtos"] = r["syn_rtos_total"]
        paper = r[f"paper_{what}"]
        row.update({f"paper_c{i + 1}": v for i, v in enumerate(paper or [None] * 5)})
        row["paper_total"] = sum(paper) if paper else None
        out.append(row)
    return out


def _flat3(t3: list[dict]) -> list[dict]:
    out = []
    for r in t3:
        row = {"row": r["row"]}
        for col in ("newreno", "sack"):
            c = r[col] or {}
            row.update({f"{col}_{k}": c.get(k) for k in ("variant", "runs", "goodput_kbps",
                                                         "rtos", "loss_rate")})
            row[f"paper_{col}_kbps"] = r[f"paper_{col}"]
        out.append(row)
    return out


def _flat_fig1(fig1: dict) -> list[dict]:
    return [{"variant": v, "x": x, **{name: round(d["shares"][name][i], 5)
                                      for name in d["shares"]}}
            for v, d in fig1.items() for i, x in enumerate(FIG1_XS)]


# --------------------------------------------------------------------------- CLI
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.netreno_tables", formatter_class=HelpFormatter,
        description="Reproduce Net Reno's Tables 1-3 and Figs. 1-5 ([NETRENO] §7.1, §7.2, §4.1-6.4) "
                    "with the P4 gateway. Options without a default shown take the --mode's "
                    "value.")
    p.add_argument("--mode", choices=sorted(MODES), default="quick",
                   help="full: [NETRENO]'s 10 runs of 30 s (Tables 1-2), 300 s (Table 3), 2,040 "
                        "transfers (Fig. 1); quick: 2 runs of 10 s, 60 s, 120 transfers")
    add_sweep_options(p, out="results/netreno")
    p.add_argument("--parts", type=csv_list(str, PARTS),
                   help="what to run: sim (Tables 1-2), lab (Table 3), trace (Fig. 1) "
                        "(default: all)")
    p.add_argument("--queue", choices=("red", "droptail"),
                   help="the gateway's queue in sim and lab: red ([NETRENO]'s, in the P4 program) or "
                        "the program's drop-tail buffer of the same size (default: red)")
    p.add_argument("--runs", type=int,
                   help=f"§7.1 runs per sender ({mode_defaults(MODES, 'runs')})")
    p.add_argument("--duration", type=finite_float,
                   help=f"§7.1 seconds per run ({mode_defaults(MODES, 'duration')})")
    p.add_argument("--variants", type=csv_list(str, SENDERS),
                   help=f"§7.1 senders (default: {','.join(SIM_VARIANTS)}; quick: the first "
                        f"four)")
    p.add_argument("--lab-runs", type=int, help=f"§7.2 runs per sender "
                                                f"({mode_defaults(MODES, 'lab_runs')})")
    p.add_argument("--lab-duration", type=finite_float,
                   help=f"§7.2 seconds per run ({mode_defaults(MODES, 'lab_duration')})")
    p.add_argument("--lab-loss", type=finite_float, metavar="P",
                   help="§7.2: data packets the P4 program drops at random besides the queue's "
                        "drops (default: 0; [NETRENO]'s 1 %% was its RED gateway's own)")
    p.add_argument("--trace-runs", type=int,
                   help=f"§4.1 runs per drop level, each 20 transfers of 100 KB "
                        f"({mode_defaults(MODES, 'trace_runs')})")
    p.add_argument("--trace-levels", type=csv_list(finite_float),
                   help="§4.1 probabilities the gateway drops a data packet "
                        f"({mode_defaults(MODES, 'trace_levels')})")
    p.add_argument("--no-traces", dest="traces", action="store_false",
                   help="leave out Figs. 2-5, the time-sequence diagrams of one traced "
                        "connection each (fig2_small_window, fig3_lost_retransmission, "
                        "fig4_ack_clock, fig5_back_to_back .png/.csv; about half a minute of "
                        "runs)")
    add_run_options(p)
    args = p.parse_args(argv)
    default_jobs(args)
    bad = out_of_range(args, ("jobs", "duration", "series"))
    for name in ("runs", "lab_runs", "trace_runs"):
        value = getattr(args, name)
        if bad is None and value is not None and value < 1:
            bad = f"--{name.replace('_', '-')} must be >= 1"
    for name in ("lab_duration",):
        if bad is None and getattr(args, name) is not None and getattr(args, name) <= 0:
            bad = "--lab-duration must be > 0 seconds"
    if bad is None and args.lab_loss is not None and not 0 <= args.lab_loss < 1:
        bad = "--lab-loss must be a probability in [0, 1)"
    if bad is None and args.trace_levels is not None \
            and not all(0 <= v < 1 for v in args.trace_levels):
        bad = "--trace-levels are probabilities in [0, 1)"
    if bad:
        p.error(bad)
    conflict = _conflict(args)
    if conflict:
        p.error(conflict)
    return args


# the options that act only on one part: (option, attribute, the part)
_PART_OPTIONS = (("--runs", "runs", "sim"), ("--duration", "duration", "sim"),
                 ("--variants", "variants", "sim"), ("--lab-runs", "lab_runs", "lab"),
                 ("--lab-duration", "lab_duration", "lab"), ("--lab-loss", "lab_loss", "lab"),
                 ("--trace-runs", "trace_runs", "trace"),
                 ("--trace-levels", "trace_levels", "trace"))


def _conflict(args: argparse.Namespace) -> str | None:
    """A sentence naming a typed option that would not act on the sweep, else None."""
    parts = args.parts or PARTS
    for option, name, part in _PART_OPTIONS:
        if getattr(args, name) is not None and part not in parts:
            return f"{option} sets the {part} part, which --parts {','.join(parts)} leaves out"
    if args.queue is not None and not {"sim", "lab"} & set(parts):
        return "--queue sets the gateway of sim and lab, which --parts leaves out"
    return None


def sweep_config(args: argparse.Namespace) -> NetRenoSweepConfig:
    overrides = {"runs": args.runs, "duration": args.duration, "sim_variants": args.variants,
                 "lab_runs": args.lab_runs, "lab_duration": args.lab_duration,
                 "lab_loss": args.lab_loss, "trace_runs": args.trace_runs,
                 "trace_levels": args.trace_levels, "queue": args.queue, "parts": args.parts,
                 "traces": None if args.traces else False}
    return replace(MODES[args.mode], **{k: v for k, v in overrides.items() if v is not None})


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cfg = sweep_config(args)
    return run_driver(args, cfg, build_specs=build_specs, write_outputs=write_outputs,
                      name_of=series_name, label="Net Reno tables", modes=MODES)


if __name__ == "__main__":
    sys.exit(main())
