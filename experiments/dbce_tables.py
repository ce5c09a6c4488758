"""[TCPDEBUG]'s chapters 3-5 on the simulator's traces: the out-of-sequence segments classified
(ch. 3), delay-based congestion estimators scored by LPA/FPA and the modelled change in
duration, and the retransmission timer replayed under other RTO parameters ([TCPDEBUG] ch.
3-5, App. A-B).

    python -m experiments.dbce_tables --mode quick --out results/dbce/    # 2 minutes (4 on a busy machine)
    python -m experiments.dbce_tables --mode full --out results/dbce/     # ~3,000 connections

[TCPDEBUG] ran TCPdebug over 1.85 M Internet connections (§5.2); here many connections
(``experiments.studies.dbce.scenario``: Poisson arrivals, heavy-tailed sizes, senders on [TCPDEBUG]
Table 4.5's four stacks) cross the networks of ``experiments.studies.dbce.networks`` ([RDTCP]'s
dumbbell with its bottleneck rate, delay and buffer varied, random drops in the P4 gateway,
cross traffic), with and without the gateway's P4 reordering injections, captured at the
senders' interface; every connection goes through the analyzer (``analyzer.series``), the
estimators (``analyzer.dbce``) and the timer replay (``analyzer.rto_replay``), summarised by
``analyzer.study``.

Outputs in --out: paper_table.md (ours beside [TCPDEBUG]'s numbers, and [TCPDEBUG]'s statements on ch. 3-5,
each with two verdicts, direction and size, and those not run), statements.csv,
estimators.csv (Figs. 5.2-5.4, 5.6-5.11's numbers per estimator, every ACK's samples and once a
flight), connections.csv (one row per connection), breakdowns.csv (by throughput and median
flight size, §5.5), table_5_4.csv (§5.5.2's clusters, experiments.studies.dbce.clusters:
Table 5.4 and each estimator's change per cluster), rto_settings.csv (ch. 4's replay),
table_4_4.csv (retransmissions by OS),
table_4_6.csv (Table 4.6: the dupACK threshold's impact by OS, in paper_table.md as [TCPDEBUG] prints it),
table_3_2.csv, table_3_4.csv, table_3_5.csv, table_3_6.csv, table_3_7.csv, table_3_8.csv (ch. 3:
the analyzer's
classification of the OOS segments per network and reordering, experiments.studies.dbce.chapter3;
in paper_table.md as [TCPDEBUG] prints them), fig3_5_unexplained.png (Fig. 3.5),
runs.csv, summary.json; figures fig5_1_loss_rate.png (Fig. 5.1), fig5_3_lead.png (Fig. 5.3),
fig5_5_best_case.png (Fig. 5.5; experiments.studies.dbce.figures), fig_lpa.png (Fig. 5.2),
fig_fpa.png (Fig. 5.4),
fig_duration.png (Figs. 5.6-5.11), fig_breakdown.png (§5.5: by cluster and by median flight),
fig_rto.png (ch. 4: spurious timeouts against waiting time); ch. 4's figures
(experiments.studies.dbce.chapter4): fig4_2_detection.png, fig4_3_best_case.png,
fig4_4_linux_k2.png, fig4_5_linux_k3.png, fig4_6_linux_k6.png, fig4_7_minrto.png,
fig4_8_linux_a.png, fig4_9_linux_d2.png, fig4_10_smart.png, fig4_11_smart_vs_best.png with
fig4_2_detection.csv, fig4_3_best_case.csv, fig4_10_smart.csv, fig4_binned.csv; the cluster
study's fig5_12_17_clusters.png (Figs. 5.12-5.17), fig5_18_vegas_clusters.png,
fig5_22_cim_clusters.png, fig5_26_tris_clusters.png (Figs. 5.18-5.29) with fig5_clusters.csv
and fig5_18_29_clusters.csv; a figure the run cannot draw is listed in paper_table.md and
summary.json's figures_not_drawn with why; the journal runs.jsonl (``--resume``).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter

from analyzer.study import ESTIMATOR_ORDER, scored, summarize
from experiments.runner.cli import HelpFormatter, csv_list, finite_float, out_of_range
from experiments.runner.plots import save_figure
from experiments.runner.report import summary_header, write_csv
from experiments.runner.spec import RunSpec
from experiments.runner.sweep import (add_run_options, add_sweep_options, default_jobs,
                                      mode_defaults, run_driver)
from experiments.runner.verdicts import counts, csv_rows
from experiments.runner.verdicts import markdown as verdicts_markdown
from experiments.runner.verdicts import rows as verdict_rows
from experiments.studies.dbce.chapter3 import (chapter3_figures, chapter3_markdown,
                                               chapter3_tables)
from experiments.studies.dbce.chapter4 import chapter4_figures
from experiments.studies.dbce.clusters import (cluster, cluster_figures, cluster_rows,
                                               table_5_4_markdown)
from experiments.studies.dbce.figures import chapter5_figures, log_bins
from experiments.studies.dbce.networks import NETWORKS
from experiments.studies.dbce.table46 import table_4_6, table_4_6_markdown
from experiments.studies.dbce.statements import (LINUX_STACK, PAPER_TABLE_4_4,
                                                 chapter3_statements, chapter4_statements,
                                                 chapter5_statements)

__all__ = ["MODES", "DbceSweepConfig", "build_specs", "connections_of", "statements", "main",
           "parse_args", "REORDERINGS", "PAPER_SAYS"]

# the P4 gateway's reordering injections (experiments.runner.gateways): name -> (injection,
# level); "none" is no injection
REORDERINGS = {"none": ("swap", 0.0), "recirc": ("recirc", 0.01), "altpath": ("altpath", 0.01)}
VARIANTS = ("sack", "newreno")


@dataclass(frozen=True)
class DbceSweepConfig:
    seeds: int
    duration: float                 # virtual seconds a run lasts (connections start in half)
    networks: tuple[str, ...]
    reorderings: tuple[str, ...]
    variants: tuple[str, ...]


MODES = {
    "full": DbceSweepConfig(seeds=2, duration=90.0, networks=tuple(NETWORKS),
                            reorderings=tuple(REORDERINGS), variants=VARIANTS),
    # full mode's runs of seed 1: 36 runs, about 1,400 connections, enough timer events (35
    # among the 288 Linux connections, 200 over all) for every ch. 4 statement on the timer,
    # which 12 runs of 40 s (one timer event in 48 Linux connections) could not decide
    "quick": DbceSweepConfig(seeds=1, duration=90.0, networks=tuple(NETWORKS),
                             reorderings=tuple(REORDERINGS), variants=VARIANTS),
}


def build_specs(cfg: DbceSweepConfig) -> list[RunSpec]:
    specs = []
    for network in cfg.networks:
        for reordering in cfg.reorderings:
            injection, level = REORDERINGS[reordering]
            for variant in cfg.variants:
                for seed in range(1, cfg.seeds + 1):
                    specs.append(RunSpec(variant, scenario=network, injection=injection,
                                         level=level, seed=seed, duration=cfg.duration))
    return specs


def series_name(row: dict) -> str:
    what = row["injection"] if row["level"] else "none"
    return f"{row['scenario']}_{what}_{row['variant']}_seed{row['seed']}.csv"


def connections_of(rows: Sequence[dict]) -> list[dict]:
    """Every analysed connection of the runs, with its run's network, reordering and seed."""
    out = []
    for r in rows:
        if "error" in r or not str(r.get("scenario", "")).startswith("dbce-"):
            continue
        reordering = r["injection"] if r["level"] else "none"
        for c in r["connections"]:
            out.append({**c, "network": r["scenario"], "reordering": reordering,
                        "variant": r["variant"], "seed": r["seed"]})
    return out


# --------------------------------------------------------------------------- [TCPDEBUG]'s findings
# What [TCPDEBUG] says of each estimator (§5.4, Figs. 5.2-5.11), beside our rows
PAPER_SAYS = {
    "CARD": "best LPA (> 45 % of connections predicted well); wrong in 65-75 % of connections; "
            "~ Random(0.8)",
    "Tri-S": "LPA = 0 in 70-90 % of connections; lengthens most connections (harmful)",
    "DUAL": "LPA close behind CARD; lengthens most connections (harmful)",
    "Vegas": "LPA = 0 in 70-90 %; no false positive in > 90 %; median change ~ 0 (too "
             "conservative)",
    "BFA": "improves > 50 % of connections, ~ Random(0.8)",
    "CIM": "LPA close behind CARD; best overall change in duration",
    "FAST": "simulated, never reported",
    "DECA": "LPA close behind CARD; ~ Random(0.8)",
    "DAIMD": "LPA = 0 in 70-90 %; no false positive in ~ 80 %; median change ~ 0 (too "
             "conservative)",
    "Random(0.8)": "LPA above every estimator; FPA a little below; ~ CARD, BFA, DECA",
    "Tri-S (as printed)": "(Table 5.1's formula as printed; not [TCPDEBUG]'s reading)",
    "FAST (as printed)": "(Table 5.1's formula as printed; not [TCPDEBUG]'s reading)",
}
# --------------------------------------------------------------------------- tables


def table_4_4(connections: list) -> list[dict]:
    """[TCPDEBUG] Table 4.4 by the stack each connection ran: retransmissions by need (the analyzer's
    judgement) and by what detected them (the identified profile's class)."""
    out = []
    for os_name, paper in PAPER_TABLE_4_4.items():
        tot = {(n, k): 0 for n in ("needed", "unneeded") for k in ("timer", "dupacks")}
        conns = [c for c in connections if c.get("os") == os_name]
        for c in conns:
            for need, by in (c.get("retransmissions") or {}).items():
                for kind, count in by.items():
                    if (need, kind) in tot:
                        tot[(need, kind)] += count
        total = sum(tot.values())
        row = {"os": os_name, "connections": len(conns), "retransmissions": total}
        for (need, kind), count in tot.items():
            row[f"{need}_{kind}"] = count
            row[f"{need}_{kind}_pct"] = round(100 * count / total, 1) if total else None
        timer = tot[("needed", "timer")] + tot[("unneeded", "timer")]
        row["spurious_share_of_timer"] = tot[("unneeded", "timer")] / timer if timer else None
        row["paper_pct"] = paper
        out.append(row)
    return out


def _f(v, spec=".2f") -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and math.isnan(v):
        return "-"
    return format(v, spec)


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.0f} %"


def table_markdown(study: dict, stated: list, t44: list, cfg: DbceSweepConfig,
                   runs: int, connections: list, *, clusters: list | str = "not clustered",
                   not_drawn: Sequence[tuple[str, str]] = ()) -> str:
    lossless = [c for c in connections if c["segments"] >= 10 and c["samples"]
                and not c["episodes"]]
    lines = [
        f"{runs} simulated run(s) ({len(cfg.networks)} networks x {len(cfg.reorderings)} "
        f"reorderings x {len(cfg.variants)} senders x {cfg.seeds} seed(s), {cfg.duration:g} s "
        f"each); {study['connections']} connections, {study['scored']} scored (>= 10 data "
        f"segments and an RTT sample, [TCPDEBUG] §5.2), {study['lossy']} with a loss episode; "
        f"{_pct(len(lossless) / study['scored'] if study['scored'] else None)} without loss "
        f"([TCPDEBUG] Fig. 5.1: 60-85 %).",
        "", "**Delay-based congestion estimators ([TCPDEBUG] ch. 5)**: every ACK's RTT samples; LPA "
        "over lossy connections, FPA over all; the change in duration is [TCPDEBUG]'s model "
        "(App. B) over lossy connections, in RTTs (positive: shorter).", "",
        "| estimator (Table 5.1) | LPA | LPA = 0 | FPA | no FP | CN phase >= 1 RTT before loss "
        "| median change (add / mult) | shorter / longer (add) | LPA / FPA once a flight | "
        "[TCPDEBUG] says |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    flight = {r["estimator"]: r for r in study["estimators_per_flight"]}
    for r in study["estimators"]:
        f = flight[r["estimator"]]
        lines.append(
            f"| {r['estimator']} ({r['row']}) | {_f(r['lpa_mean'])} | {_pct(r['lpa_zero'])} | "
            f"{_f(r['fpa_mean'])} | {_pct(r['fp_none'])} | {_pct(r['lead_1rtt'])} | "
            f"{_f(r['add_median'])} / {_f(r['mult_median'])} | {_pct(r['add_improved'])} / "
            f"{_pct(r['add_worsened'])} | {_f(f['lpa_mean'])} / {_f(f['fpa_mean'])} | "
            f"{PAPER_SAYS[r['estimator']]} |")
    b = study["best_case"]
    lines += ["", f"Best case (every loss predicted, no false prediction, §5.4.3): median "
                  f"saving {_f(b['add_median'])} RTTs (additive), {_f(b['mult_median'])} "
                  f"(multiplicative); {_pct(b['below_0.1'])} of connections gain less than 0.1 "
                  f"RTT ([TCPDEBUG]: 60 %), {_pct(b['above_10'])} more than 10 RTTs ([TCPDEBUG]: 25 %)."]
    lines += ["", table_5_4_markdown(clusters) if isinstance(clusters, list)
              else f"**Table 5.4 ([TCPDEBUG] §5.5.2)**: not run: {clusters}."]
    for feature, title in (("flight", "median flight size"),):
        rows = study["breakdowns"].get(feature) or []
        if not rows:
            continue
        names = [k[:-len(" median")] for k in rows[0] if k.endswith(" median")]
        lines += ["", f"**By {title}** (lossy connections; §5.5): median change (additive, "
                      f"RTTs) and mean LPA", "",
                  "| group | connections | best case | "
                  + " | ".join(names) + " |",
                  "|---|---:|---:|" + "---:|" * len(names)]
        for row in rows:
            lines.append(f"| {row['group']} | {row['connections']} | "
                         f"{_f(row['best_median'])} | "
                         + " | ".join(f"{_f(row[n + ' median'])} ({_f(row[n + ' LPA'])})"
                                      for n in names) + " |")
    lines += ["", "**Retransmissions by sender stack ([TCPDEBUG] Table 4.4)**: % of retransmissions, "
                  "ours / [TCPDEBUG]'s", "",
              "| stack | connections | retransmissions | needed RTO | needed FR/R | spurious RTO "
              "| spurious FR/R | spurious share of timeouts |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in t44:
        p = r["paper_pct"]
        lines.append(
            f"| {r['os']} | {r['connections']} | {r['retransmissions']} | "
            f"{_f(r['needed_timer_pct'], '.1f')} / {p[0]} | "
            f"{_f(r['needed_dupacks_pct'], '.1f')} / {p[1]} | "
            f"{_f(r['unneeded_timer_pct'], '.1f')} / {p[2]} | "
            f"{_f(r['unneeded_dupacks_pct'], '.1f')} / {p[3]} | "
            f"{_pct(r['spurious_share_of_timer'])} / {p[2] / (p[0] + p[2]):.0%} |")
    base = study["rto_baseline"]
    linux_rows = study["rto_by_stack"].get(LINUX_STACK, [])
    n_linux = linux_rows[0]["connections"] if linux_rows else 0
    everyone = {r["setting"]: r for r in study["rto_settings"]}
    compare = "; ".join(
        f"{name}: {everyone[name]['spurious_timeouts']} spurious timeouts, mean wait "
        f"{_f(everyone[name]['wait_mean'])} RTTs, mean change {_f(everyone[name]['delta_mean'])}"
        for name in (LINUX_STACK, "RFC 2988", "RFC 2988, every ACK") if name in everyone)
    lines += ["", f"**The timer replayed ([TCPDEBUG] ch. 4)** over {base['connections']} connections, "
                  f"each against its own stack's timer: {base['by_timer']} losses detected by "
                  f"the timer (mean wait {_f(base['wait_mean'])} RTTs), {base['by_fast']} by "
                  f"fast retransmit, {base['spurious_timeouts']} spurious timeouts; the best "
                  f"case would save {_f(base['best_delta_mean'])} RTTs a connection on average "
                  f"({_pct(base['best_shorter_10pct'])} more than 10 % shorter). Every "
                  f"connection replayed under each estimator: {compare}.", "",
              f"The {n_linux} Linux connections, each setting against Linux's own timer ([TCPDEBUG] "
              f"§4.4.2 shows Linux; rto_settings.csv has every stack's):", "",
              "| setting | spurious timeouts | spurious share | mean wait (RTTs) | fast "
              "retransmits | RTO -> FR / FR -> RTO | mean change (RTTs) | > 10 % shorter / "
              "longer |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in linux_rows:
        lines.append(f"| {r['setting']} | {r['spurious_timeouts']} | {_pct(r['spurious_share'])}"
                     f" | {_f(r['wait_mean'])} | {r['by_fast']} | {r['rto_to_fast']} / "
                     f"{r['fast_to_rto']} | {_f(r['delta_mean'])} | "
                     f"{_pct(r['shorter_10pct'])} / {_pct(r['longer_10pct'])} |")
    lines += ["", table_4_6_markdown(table_4_6(study, connections)),
              "", chapter3_markdown(chapter3_tables(connections))]
    if not_drawn:
        lines += ["", "**Figures not drawn**", ""]
        lines += [f"- {fig}: not run: {why}" for fig, why in not_drawn]
    lines += ["", verdicts_markdown(stated, paper="[TCPDEBUG]", columns=(("paper", "[TCPDEBUG]"),
                                                                ("ours", "ours")),
                                    intro="**[TCPDEBUG]'s statements** (ch. 3-5) on these traces")]
    return "\n".join(lines)


def statements(study: dict, t44: list, connections: list,
               clusters: list | str = "not clustered") -> list:
    """[TCPDEBUG]'s statements on ch. 3, 4 and 5, each with two verdicts
    (``experiments.studies.dbce.statements``); ``clusters``: §5.5's cluster rows or why
    there are none."""
    return (chapter3_statements() + chapter4_statements(study, t44, connections)
            + chapter5_statements(study, connections, clusters))


def cluster_study(connections: list) -> tuple[list, list, list | str]:
    """§5.5.2's clusters of the scored lossy connections: (the connections, their cluster
    numbers, the rows of Table 5.4 or why they could not be clustered)."""
    usable, numbers, why = cluster(scored(connections))
    if why:
        return [], [], why
    return usable, numbers, cluster_rows(usable, numbers, plotted_estimators())


def flat_connection(c: dict) -> dict:
    """connections.csv's row: the characteristics, then LPA/FPA/changes per estimator."""
    keep = ("network", "reordering", "variant", "seed", "connection", "sender", "os",
            "profile", "size", "completed", "data_bytes", "segments", "duration",
            "throughput", "samples", "samples_per_flight", "min_rtt", "rtt_p90", "rtt_mean",
            "median_flight", "losses", "episodes", "loss_rate", "flight_rtt_corr",
            "loss_distance")
    row = {k: c.get(k) for k in keep}
    row["best_add"], row["best_mult"] = c["best"]
    for name, modes in c["dbce"].items():
        lpa, fpa, add, mult = modes["all"][:4]
        row[f"{name} LPA"], row[f"{name} FPA"] = lpa, fpa
        row[f"{name} add"], row[f"{name} mult"] = add, mult
    return row


def write_outputs(rows: list[dict], cfg: DbceSweepConfig, out: Path, *, mode: str,
                  invocations: Sequence[dict] = (), code_version: str | None = None) -> dict:
    connections = connections_of(rows)
    study = summarize(connections)
    t44 = table_4_4(connections)
    usable, numbers, clustered = cluster_study(connections)
    stated = statements(study, t44, connections, clustered)
    write_csv(out / "runs.csv", [{k: v for k, v in r.items() if k != "connections"}
                                 for r in rows])
    write_csv(out / "connections.csv", [flat_connection(c) for c in connections])
    write_csv(out / "estimators.csv",
              [{"samples": "every ACK", **r} for r in study["estimators"]]
              + [{"samples": "once a flight", **r} for r in study["estimators_per_flight"]])
    write_csv(out / "breakdowns.csv", [{"feature": f, **r} for f, rs in
                                       study["breakdowns"].items() for r in rs])
    write_csv(out / "rto_settings.csv",
              [{"stack": "every connection", **r} for r in study["rto_settings"]]
              + [{"stack": stack, **r} for stack, rs in study["rto_by_stack"].items()
                 for r in rs])
    write_csv(out / "table_4_4.csv", [{k: (list(v) if isinstance(v, tuple) else v)
                                       for k, v in r.items()} for r in t44])
    t46 = table_4_6(study, connections)
    write_csv(out / "table_4_6.csv", [{**{k: v for k, v in r.items() if k != "paper"},
                                       **dict(zip(("paper_fr", "paper_rto", "paper_rto_to_fr",
                                                   "paper_spurious_caused", "paper_fr_to_rto",
                                                   "paper_spurious_avoided"), r["paper"]))}
                                      for r in t46])
    ch3 = chapter3_tables(connections)
    for name, table in ch3.items():
        if table:               # Table 3.6 needs rows analysed with the RFC-only profile
            write_csv(out / f"{name}.csv", table)
    if isinstance(clustered, list):
        write_csv(out / "table_5_4.csv", clustered)
    figures = plot_figures(study, connections, out,
                           clustered if isinstance(clustered, list) else None) \
        + chapter3_figures(connections, out)
    ch4_figures, not_drawn = chapter4_figures(connections, out)
    figures += ch4_figures + cluster_figures(usable, numbers, out)
    if isinstance(clustered, str):
        not_drawn.append(("Table 5.4, Figs. 5.12-5.29", clustered))
    markdown = table_markdown(study, stated, t44, cfg, len(rows), connections,
                              clusters=clustered, not_drawn=not_drawn)
    (out / "paper_table.md").write_text(markdown + "\n")
    write_csv(out / "statements.csv", csv_rows(stated))
    summary = {**summary_header(rows, cfg, mode=mode, invocations=invocations,
                                code_version=code_version),
               "connections": study["connections"], "scored": study["scored"],
               "lossy": study["lossy"], "study": study, "statements": verdict_rows(stated),
               "verdicts": counts(stated), "table_4_4": t44, "table_4_6": t46, **ch3,
               "table_5_4": clustered if isinstance(clustered, list) else [],
               "table_markdown": markdown,
               "figures": figures,
               "figures_not_drawn": [{"figure": f, "why": w} for f, w in not_drawn]}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


# --------------------------------------------------------------------------- figures
def _cdf(ax, values, label, style):
    values = sorted(v for v in values if v is not None)
    if not values:
        return
    n = len(values)
    ax.step(values, [(i + 1) / n for i in range(n)], where="post", label=label, **style)


def _styles() -> dict:
    names = list(plotted_estimators())
    cycle = ["-", "--", ":", "-."]
    return {n: {"ls": cycle[i % 4], "lw": 1.2 if n != "Random(0.8)" else 2.0,
                "color": f"C{i % 10}"} for i, n in enumerate(names)}


def plotted_estimators() -> list:
    """[TCPDEBUG]'s nine and Random(0.8) (not the rows as printed)."""
    return [n for n in ESTIMATOR_ORDER if "as printed" not in n]


def plot_figures(study: dict, connections: list, out: Path,
                 clusters: list | None = None) -> list[str]:
    conns = scored(connections)
    lossy = [c for c in conns if c["episodes"]]
    styles = _styles()
    written = []
    if not conns:
        return written
    for name, metric, index, population, title in (
            ("fig_lpa.png", "LPA", 0, lossy, "[TCPDEBUG] Fig. 5.2: loss prediction ability"),
            ("fig_fpa.png", "FPA", 1, conns, "[TCPDEBUG] Fig. 5.4: false positive avoidance")):
        if not population:
            continue
        fig, ax = plt.subplots(figsize=(7, 5))
        for est in plotted_estimators():
            _cdf(ax, [c["dbce"][est]["all"][index] for c in population], est, styles[est])
        ax.set_xlabel(f"{metric} per connection")
        ax.set_ylabel("fraction of connections")
        ax.set_title(f"{title} ({len(population)} connections)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
        save_figure(fig, out / name)
        written.append(name)
    written += chapter5_figures(conns, plotted_estimators(), styles, out)
    if lossy:
        fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
        for ax, col, policy in ((axes[0], 2, "additive"), (axes[1], 3, "multiplicative")):
            best = [c["best"][col - 2] for c in lossy]
            edges = log_bins(best)
            for est, marker in (("CIM", "o"), ("Vegas", "s"), ("Tri-S", "^"),
                                ("Random(0.8)", "x")):
                xs, med, lo, hi = [], [], [], []
                for a, b in zip(edges, edges[1:]):
                    ys = [c["dbce"][est]["all"][col] for c, x in zip(lossy, best) if a <= x < b]
                    if not ys:
                        continue
                    ys.sort()
                    xs.append(math.sqrt(a * b))
                    med.append(statistics.median(ys))
                    lo.append(ys[len(ys) // 4])
                    hi.append(ys[(3 * len(ys)) // 4])
                if xs:
                    ax.errorbar(xs, med, yerr=[[m - l for m, l in zip(med, lo)],
                                               [h - m for m, h in zip(med, hi)]],
                                marker=marker, capsize=3, label=est, lw=1)
            ax.plot(edges, edges, ":", color="0.5", label="best case")
            ax.set_xscale("log")
            _plain_symlog(ax)
            ax.set_xlabel("best-case saving (RTTs, log bins)")
            ax.set_title(f"{policy} decrease", fontsize=10)
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("modelled saving (RTTs): median and quartiles per bin\n"
                           "(linear within ±1, logarithmic beyond)")
        axes[0].legend(fontsize=8, loc="upper left")
        fig.suptitle("[TCPDEBUG] Figs. 5.6-5.11: change in duration against the best case "
                     f"({len(lossy)} lossy connections)", fontsize=10)
        save_figure(fig, out / "fig_duration.png")
        written.append("fig_duration.png")
    # §5.5: by the clusters of Table 5.4 (when there are) and by median flight size
    brk = {"cluster": [{**r, "group": f"cluster {r['cluster']}"} for r in clusters or []],
           "flight": study["breakdowns"].get("flight") or []}
    if any(brk.values()):
        names = ("CIM", "Vegas", "Tri-S", "DUAL", "CARD", "Random(0.8)")
        features = [f for f in ("cluster", "flight") if brk[f]]
        fig, axes = plt.subplots(1, len(features), figsize=(6 * len(features), 4.5),
                                 sharey=True, squeeze=False)
        axes = axes[0]
        for ax, feature in zip(axes, features):
            rows = brk[feature]
            width = 0.8 / (len(names) + 1)
            for j, est in enumerate(("best case",) + names):
                key = "best_median" if est == "best case" else f"{est} median"
                ys = [r[key] if r[key] is not None else 0.0 for r in rows]
                ax.bar([i + j * width for i in range(len(rows))], ys, width, label=est)
            ax.set_xticks([i + 0.4 for i in range(len(rows))])
            ax.set_xticklabels([r["group"] for r in rows], fontsize=8)
            _plain_symlog(ax)
            what = "cluster (Table 5.4)" if feature == "cluster" else "median flight size"
            ax.set_title(f"by {what}", fontsize=10)
            ax.grid(alpha=0.3, axis="y")
        axes[0].set_ylabel("median modelled saving, additive (RTTs)")
        # below the panels: inside, it would cover the bars
        fig.legend(*axes[0].get_legend_handles_labels(), loc="upper center", ncol=7,
                   fontsize=7, bbox_to_anchor=(0.5, 0.0), frameon=False)
        fig.suptitle("[TCPDEBUG] §5.5: who gains (lossy connections)", fontsize=10)
        save_figure(fig, out / "fig_breakdown.png")
        written.append("fig_breakdown.png")
    settings = [r for r in study["rto_settings"] if r["wait_mean"] is not None]
    if settings:
        plot_rto_settings(settings, out / "fig_rto.png")
        written.append("fig_rto.png")
    return written


def _plain_symlog(ax) -> None:
    """A symmetric log axis (linear within ±1) with plain numbers: -10, -1, 0, 1, 10, 100,
    not matplotlib's -10^0."""
    ax.set_yscale("symlog", linthresh=1)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))


def plot_rto_settings(settings: list, path: Path) -> None:
    """[TCPDEBUG] ch. 4's trade-off per replayed setting (every connection against its own stack's
    timer): spurious timeouts (left) and the mean wait of a loss the timer detects (right), one
    bar per setting named on the shared axis, each estimator's family in its colour."""
    families = (("Linux", "C0"), ("RFC 2988", "C1"), ("Smart", "C2"), ("Solaris", "C3"))
    rows = sorted(settings, key=lambda r: [f for f, _ in families].index(
        next((f for f, _ in families if r["setting"].startswith(f)), "Linux")))
    colour = [next((c for f, c in families if r["setting"].startswith(f)), "C0") for r in rows]
    ys = list(range(len(rows)))[::-1]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 0.22 * len(rows) + 1.6), sharey=True)
    left.barh(ys, [r["spurious_timeouts"] for r in rows], color=colour)
    right.barh(ys, [r["wait_mean"] for r in rows], color=colour)
    left.set_yticks(ys)
    left.set_yticklabels([r["setting"].replace(" (Table 4.5)", "") for r in rows], fontsize=6.5)
    left.set_xlabel("spurious timeouts (all connections)")
    right.set_xlabel("mean wait of a loss the timer detects (RTTs, EWMA 1/4)")
    for ax in (left, right):
        ax.grid(alpha=0.3, axis="x")
    fig.suptitle("[TCPDEBUG] ch. 4: each replayed setting's spurious timeouts against its waiting "
                 "time (blue: Linux's estimator, orange: RFC 2988's, green: Smart-Config, red: "
                 "Solaris')",
                 fontsize=9)
    fig.tight_layout()
    save_figure(fig, path)


# --------------------------------------------------------------------------- CLI
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.dbce_tables", formatter_class=HelpFormatter,
        description="[TCPDEBUG]'s chapters 3-5 on the simulator's traces: many connections "
                    "over varied dumbbells with the P4 gateways, their out-of-sequence segments "
                    "classified (ch. 3: Tables 3.2, 3.4-3.8, Fig. 3.5), scored by "
                    "the delay-based congestion estimators of Table 5.1 (LPA, FPA, modelled "
                    "change in duration; Figs. 5.1-5.11; the cluster study, Table 5.4 and Figs. "
                    "5.12-5.29) and their timers replayed under other RTO parameters (ch. 4: "
                    "Tables 4.4 and 4.6, Figs. 4.2-4.11). Options without a default "
                    "shown take the --mode's value.")
    p.add_argument("--mode", choices=sorted(MODES), default="quick",
                   help="full: every network, reordering and sender, 2 seeds, 90 s runs "
                        "(about 3,000 connections, 4 minutes on 2 cores with PyPy); quick: "
                        "the same with 1 seed (about 1,500 connections, 2 minutes)")
    add_sweep_options(p, out="results/dbce")
    p.add_argument("--seeds", type=int, help=f"runs per point ({mode_defaults(MODES, 'seeds')})")
    p.add_argument("--duration", type=finite_float,
                   help=f"virtual seconds a run lasts; connections start in its first half "
                        f"({mode_defaults(MODES, 'duration')})")
    p.add_argument("--networks", type=csv_list(str, tuple(NETWORKS)),
                   help=f"networks, comma-separated (default: {','.join(NETWORKS)})")
    kinds = ", ".join(f"{k} ({v[0]} {v[1]:g})" if v[1] else k for k, v in REORDERINGS.items())
    p.add_argument("--reorderings", type=csv_list(str, tuple(REORDERINGS)),
                   help=f"the P4 gateway's reordering, comma-separated: {kinds} "
                        f"({mode_defaults(MODES, 'reorderings')})")
    p.add_argument("--variants", type=csv_list(str, VARIANTS),
                   help=f"senders: sack (SACK offered) and/or newreno "
                        f"({mode_defaults(MODES, 'variants')})")
    add_run_options(p)
    args = p.parse_args(argv)
    default_jobs(args)
    bad = out_of_range(args, ("jobs", "seeds", "duration"))
    if bad:
        p.error(bad)
    if args.series:
        p.error("--series: these runs record no per-flow time series (the connections' RTT "
                "series go through the analyzer instead)")
    return args


def sweep_config(args: argparse.Namespace) -> DbceSweepConfig:
    overrides = {"seeds": args.seeds, "duration": args.duration, "networks": args.networks,
                 "reorderings": args.reorderings, "variants": args.variants}
    return replace(MODES[args.mode], **{k: v for k, v in overrides.items() if v is not None})


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    return run_driver(args, sweep_config(args), build_specs=build_specs,
                      write_outputs=write_outputs, name_of=series_name,
                      label="[TCPDEBUG] ch. 4-5")


if __name__ == "__main__":
    sys.exit(main())
