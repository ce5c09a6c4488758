"""Seed 004's chapters 4 and 5 on the simulator's traces: delay-based congestion estimators
scored by LPA/FPA and the modelled change in duration, and the retransmission timer replayed
under other RTO parameters (seeds/004-rewaskar-tcpdebug-dbce.txt ch. 4-5, App. A-B).

    python -m experiments.dbce_tables --mode quick --out results/dbce/    # about a minute
    python -m experiments.dbce_tables --mode full --out results/dbce/     # ~3,000 connections

004 ran TCPdebug over 1.85 M Internet connections (§5.2); here many connections
(``experiments.studies.dbce.scenario``: Poisson arrivals, heavy-tailed sizes, senders on 004
Table 4.5's four stacks) cross the networks of ``experiments.studies.dbce.networks`` (003's
dumbbell with its bottleneck rate, delay and buffer varied, random drops in the P4 gateway,
cross traffic), with and without the gateway's P4 reordering injections, captured at the
senders' interface; every connection goes through the analyzer (``analyzer.series``), the
estimators (``analyzer.dbce``) and the timer replay (``analyzer.rto_replay``), summarised by
``analyzer.study``.

Outputs in --out: paper_table.md (ours beside 004's findings, each with whether it holds),
estimators.csv (Figs. 5.2-5.4, 5.6-5.11's numbers per estimator, every ACK's samples and once a
flight), connections.csv (one row per connection), breakdowns.csv (by throughput and median
flight size, §5.5), rto_settings.csv (ch. 4's replay), table_4_4.csv (retransmissions by OS),
runs.csv, summary.json; figures fig_lpa.png (Fig. 5.2), fig_fpa.png (Fig. 5.4),
fig_duration.png (Figs. 5.6-5.11), fig_breakdown.png (§5.5), fig_rto.png (ch. 4: spurious
timeouts against waiting time); the journal runs.jsonl (``--resume``).
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

from analyzer.study import ESTIMATOR_ORDER, scored, summarize
from experiments.runner.cli import HelpFormatter, csv_list, finite_float, out_of_range
from experiments.runner.plots import save_figure
from experiments.runner.report import summary_header, write_csv
from experiments.runner.spec import RunSpec
from experiments.runner.sweep import (add_run_options, add_sweep_options, default_jobs,
                                      mode_defaults, run_driver)
from experiments.studies.dbce.networks import NETWORKS

__all__ = ["MODES", "DbceSweepConfig", "build_specs", "connections_of", "checks_of",
           "chapter4_checks", "main", "parse_args", "REORDERINGS", "PAPER_SAYS"]

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
    "quick": DbceSweepConfig(seeds=1, duration=40.0, networks=tuple(NETWORKS),
                             reorderings=("none", "recirc"), variants=("sack",)),
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


# --------------------------------------------------------------------------- 004's findings
# What 004 says of each estimator (§5.4, Figs. 5.2-5.11; digest §3.5), beside our rows
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
    "Tri-S (as printed)": "(Table 5.1's formula as printed; not 004's reading)",
    "FAST (as printed)": "(Table 5.1's formula as printed; not 004's reading)",
}
REAL = ("CARD", "Tri-S", "DUAL", "Vegas", "BFA", "CIM", "FAST", "DECA", "DAIMD")
NEAR = 0.10         # "about as good": shares of connections improved within 10 points


def checks_of(study: dict) -> list[dict]:
    """004 ch. 5's findings (digest §3.5) as checks on our summary; a check whose numbers are
    missing (no lossy connection) is left out. ``ok``: it holds."""
    rows = {r["estimator"]: r for r in study["estimators"]}
    flight = {r["estimator"]: r for r in study["estimators_per_flight"]}
    checks = []

    def add(key, claim, paper, values, ok):
        if all(v is not None for v in values.values()):
            checks.append({"key": key, "claim": claim, "paper": paper, "ours": values,
                           "ok": bool(ok(values))})

    for name in ("Vegas", "DAIMD"):
        add(f"conservative_{name.lower()}", f"{name} is too conservative: it predicts no loss "
            f"in most lossy connections and is rarely wrong",
            "LPA = 0 in 70-90 % of connections; no false positive in > 90 % (Vegas), ~ 80 % "
            "(DAIMD)",
            {"lpa_zero": rows[name]["lpa_zero"], "fp_none": rows[name]["fp_none"]},
            lambda v: v["lpa_zero"] >= 0.7 and v["fp_none"] >= 0.75)
    for name in ("Tri-S", "DUAL"):
        add(f"harmful_{name.lower().replace('-', '')}", f"{name} is harmful: it lengthens most "
            f"lossy connections (additive decrease)", "more harm than good for most "
            "connections", {"worsened": rows[name]["add_worsened"],
                            "median": rows[name]["add_median"]},
            lambda v: v["worsened"] > 0.5)
    medians = {n: rows[n]["add_median"] for n in REAL}
    add("cim_best", "CIM is the best estimator overall (largest median saving, additive; a "
        "tie is not best)", "CIM performs the best",
        {"CIM": medians["CIM"], "best other": max((v for n, v in medians.items()
                                                   if n != "CIM" and v is not None),
                                                  default=None)},
        lambda v: v["CIM"] > v["best other"])
    add("random_like_card_bfa_deca", "Random(0.8) is about as good as CARD, BFA and DECA "
        f"(shares of lossy connections made shorter within {NEAR:.0%})",
        "Random(0.8) performs almost as well as CARD, BFA, DECA",
        {n: rows[n]["add_improved"] for n in ("Random(0.8)", "CARD", "BFA", "DECA")},
        lambda v: all(abs(v["Random(0.8)"] - v[n]) <= NEAR for n in ("CARD", "BFA", "DECA")))
    add("card_best_lpa", "CARD has the best LPA of the estimators", "CARD best, then DECA, "
        "CIM, DUAL", {n: rows[n]["lpa_mean"] for n in ("CARD", "DECA", "CIM", "DUAL")},
        lambda v: v["CARD"] >= max(rows[n]["lpa_mean"] or 0 for n in REAL))
    add("random_lpa_highest", "Random(0.8) predicts more losses than every estimator",
        "Random(0.8) has a higher LPA than every existing estimator",
        {"Random(0.8)": rows["Random(0.8)"]["lpa_mean"],
         "best estimator": max((rows[n]["lpa_mean"] or 0) for n in REAL)},
        lambda v: v["Random(0.8)"] > v["best estimator"])
    add("aggressive_often_wrong", "CARD, CIM, DUAL, Tri-S and DECA make a wrong prediction in "
        "most connections", "wrong in 65-75 % of connections",
        {n: rows[n]["fp_some"] for n in ("CARD", "CIM", "DUAL", "Tri-S", "DECA")},
        lambda v: all(x > 0.5 for x in v.values()))
    leads = [rows[n]["lead_1rtt"] for n in REAL if rows[n]["lead_1rtt"] is not None]
    add("timely", "a congestion phase before a loss mostly begins at least an RTT before it",
        "50-70 % of them, for every estimator (Fig. 5.3)",
        {"median over estimators": statistics.median(leads) if leads else None},
        lambda v: v["median over estimators"] >= 0.5)
    diffs = [abs(rows[n]["lpa_mean"] - flight[n]["lpa_mean"]) for n in REAL
             if rows[n]["lpa_mean"] is not None and flight[n]["lpa_mean"] is not None]
    add("per_flight_same_lpa", "one RTT sample a flight gives nearly the LPA of every sample",
        "LPA nearly identical (§5.4.4)", {"largest difference": max(diffs) if diffs else None},
        lambda v: v["largest difference"] <= 0.1)
    brk = study["breakdowns"]
    if len(brk.get("throughput", [])) >= 2:
        low, high = brk["throughput"][0], brk["throughput"][-1]
        add("high_throughput_gains", "high-throughput connections gain most (best case and "
            "CIM)", "high throughput and large flights benefit most (§5.5)",
            {"best low": low["best_median"], "best high": high["best_median"],
             "CIM low": low["CIM median"], "CIM high": high["CIM median"]},
            lambda v: v["best high"] > v["best low"] and v["CIM high"] > v["CIM low"])
    if len(brk.get("flight", [])) >= 2:
        small, large = brk["flight"][0], brk["flight"][-1]
        add("large_flight_gains", "connections with large flights gain most (best case and "
            "CIM)", "high throughput and large flights benefit most (§5.5)",
            {"best small": small["best_median"], "best large": large["best_median"],
             "CIM small": small["CIM median"], "CIM large": large["CIM median"]},
            lambda v: v["best large"] > v["best small"] and v["CIM large"] > v["CIM small"])
    return checks


LINUX_STACK = "Linux 2.4 (Table 4.5)"
MIN_EVENTS = 20     # timer events (losses it detects, spurious timeouts) a ch. 4 check needs


def chapter4_checks(study: dict, table44: list) -> list[dict]:
    """004 ch. 4's findings (§4.4, §4.5; digest §2.4-2.7) on the replay's rows: the estimators
    compared on every connection, the parameters on the Linux connections against Linux's own
    timer (004 shows Linux's figures, §4.4.2). A check on fewer than MIN_EVENTS timer events
    decides nothing: it is reported with ``ok`` None and the count."""
    everyone = {r["setting"]: r for r in study["rto_settings"]}
    rows = {r["setting"]: r for r in study["rto_by_stack"].get(LINUX_STACK, [])}
    checks = []

    def events(table, name):
        r = table.get(name)
        return r["by_timer"] + r["spurious_timeouts"] if r else 0

    base_all = study["rto_baseline"]
    evidence_all = base_all["by_timer"] + base_all["spurious_timeouts"]
    evidence_linux = events(rows, LINUX_STACK)

    def add(key, claim, paper, values, ok, evidence=None):
        if all(v is not None for v in values.values()):
            decided = evidence is None or evidence >= MIN_EVENTS
            checks.append({"key": key, "claim": claim, "paper": paper, "ours": values,
                           "ok": bool(ok(values)) if decided else None,
                           "timer_events": evidence})

    def delta(name, table=rows):
        return table[name]["delta_mean"] if name in table else None

    add("linux_beats_rfc2988", "Linux's RTO estimator is more efficient than RFC 2988's "
        "(every connection replayed under both)",
        "considerably more efficient than the proposed standard (§4.5)",
        {"Linux": delta(LINUX_STACK, everyone), "RFC 2988": delta("RFC 2988", everyone)},
        lambda v: v["Linux"] > v["RFC 2988"], evidence_all)
    add("k2_helps_k6_hurts", "a small k shortens connections, a large one lengthens them "
        "(Linux)", "k = 2 close to the best case; k = 6 consistently longer (§4.4.2)",
        {"k = 2": delta("Linux, k = 2"), "k = 6": delta("Linux, k = 6")},
        lambda v: v["k = 2"] > 0 > v["k = 6"], evidence_linux)
    add("large_minrto_hurts", "a larger minRTO lengthens connections (Linux)",
        "a larger minRTO adversely impacts almost all connections (§4.4.2)",
        {"400 ms": delta("Linux, minRTO = 400 ms"), "1000 ms": delta("Linux, minRTO = 1000 ms")},
        lambda v: v["400 ms"] < 0 and v["1000 ms"] < 0, evidence_linux)
    add("d4_hurts", "D = 4 lengthens connections (Linux)", "D = 4 consistently worsens most "
        "connections (§4.4.3)", {"D = 4": delta("Linux, D = 4")}, lambda v: v["D = 4"] < 0,
        evidence_linux)
    smart = next((r for r in rows.values() if r["setting"].startswith("Smart")), None)
    if smart:
        add("smart_config", "Smart-Config shortens many connections by more than 10 % and "
            "lengthens few by as much", "> 10 % shorter for ~40 % of Linux connections, < 3 % "
            "longer by > 10 % (§4.4.4)", {"shorter": smart["shorter_10pct"],
                                           "longer": smart["longer_10pct"]},
            lambda v: v["shorter"] > v["longer"] and v["longer"] < 0.03, evidence_linux)
    by_os = {r["os"]: r for r in table44}
    if "windows-xp" in by_os and "linux-2.4" in by_os:
        add("windows_more_spurious_timeouts", "Windows XP's timeouts are more often spurious "
            "than Linux's", "~30 % of Windows' RTO retransmissions spurious, ~6 % of Linux's "
            "(§4.4.1)", {"Windows": by_os["windows-xp"]["spurious_share_of_timer"],
                          "Linux": by_os["linux-2.4"]["spurious_share_of_timer"]},
            lambda v: v["Windows"] > v["Linux"],
            min(by_os[o]["needed_timer"] + by_os[o]["unneeded_timer"]
                for o in ("windows-xp", "linux-2.4")))
    return checks


# --------------------------------------------------------------------------- tables
# 004 Table 4.4: % of retransmissions: needed RTO, needed FR/R, spurious RTO, spurious FR/R
PAPER_TABLE_4_4 = {"windows-xp": (59.5, 10.9, 26.0, 3.6), "linux-2.4": (56.7, 37.1, 3.5, 2.7),
                   "solaris": (70.7, 19.9, 4.9, 4.5), "freebsd-4.10": (56.6, 7.2, 31.7, 4.5)}


def table_4_4(connections: list) -> list[dict]:
    """004 Table 4.4 by the stack each connection ran: retransmissions by need (the analyzer's
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


def table_markdown(study: dict, checks: list, ch4: list, t44: list, cfg: DbceSweepConfig,
                   runs: int, connections: list) -> str:
    lossless = [c for c in connections if c["segments"] >= 10 and c["samples"]
                and not c["episodes"]]
    lines = [
        f"{runs} simulated run(s) ({len(cfg.networks)} networks x {len(cfg.reorderings)} "
        f"reorderings x {len(cfg.variants)} senders x {cfg.seeds} seed(s), {cfg.duration:g} s "
        f"each); {study['connections']} connections, {study['scored']} scored (>= 10 data "
        f"segments and an RTT sample, 004 §5.2), {study['lossy']} with a loss episode; "
        f"{_pct(len(lossless) / study['scored'] if study['scored'] else None)} without loss "
        f"(004 Fig. 5.1: 60-85 %).",
        "", "**Delay-based congestion estimators (004 ch. 5)**: every ACK's RTT samples; LPA "
        "over lossy connections, FPA over all; the change in duration is 004's model "
        "(App. B) over lossy connections, in RTTs (positive: shorter).", "",
        "| estimator (Table 5.1) | LPA | LPA = 0 | FPA | no FP | CN phase >= 1 RTT before loss "
        "| median change (add / mult) | shorter / longer (add) | LPA / FPA once a flight | "
        "004 says |",
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
                  f"RTT (004: 60 %), {_pct(b['above_10'])} more than 10 RTTs (004: 25 %)."]
    for feature, title in (("throughput", "throughput tercile"),
                           ("flight", "median flight size")):
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
    lines += ["", "**004's findings (ch. 5) on these traces**", "",
              "| 004 says | ours | holds |", "|---|---|---|"]
    for c in checks:
        lines.append(f"| {c['claim']} ({c['paper']}) | {_ours(c['ours'])} | "
                     f"{'yes' if c['ok'] else 'no'} |")
    lines += ["", "**Retransmissions by sender stack (004 Table 4.4)**: % of retransmissions, "
                  "ours / 004's", "",
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
    lines += ["", f"**The timer replayed (004 ch. 4)** over {base['connections']} connections, "
                  f"each against its own stack's timer: {base['by_timer']} losses detected by "
                  f"the timer (mean wait {_f(base['wait_mean'])} RTTs), {base['by_fast']} by "
                  f"fast retransmit, {base['spurious_timeouts']} spurious timeouts; the best "
                  f"case would save {_f(base['best_delta_mean'])} RTTs a connection on average "
                  f"({_pct(base['best_shorter_10pct'])} more than 10 % shorter). Every "
                  f"connection replayed under each estimator: {compare}.", "",
              f"The {n_linux} Linux connections, each setting against Linux's own timer (004 "
              f"§4.4.2 shows Linux; rto_settings.csv has every stack's):", "",
              "| setting | spurious timeouts | spurious share | mean wait (RTTs) | fast "
              "retransmits | RTO -> FR / FR -> RTO | mean change (RTTs) | > 10 % shorter / "
              "longer |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in linux_rows:
        lines.append(f"| {r['setting']} | {r['spurious_timeouts']} | {_pct(r['spurious_share'])}"
                     f" | {_f(r['wait_mean'])} | {r['by_fast']} | {r['rto_to_fast']} / "
                     f"{r['fast_to_rto']} | {_f(r['delta_mean'])} | "
                     f"{_pct(r['shorter_10pct'])} / {_pct(r['longer_10pct'])} |")
    lines += ["", "**004's findings (ch. 4) on these traces**", "",
              "| 004 says | ours | holds |", "|---|---|---|"]
    for c in ch4:
        held = ("yes" if c["ok"] else "no") if c["ok"] is not None else \
            f"undecided: {c['timer_events']} timer events (< {MIN_EVENTS})"
        lines.append(f"| {c['claim']} ({c['paper']}) | {_ours(c['ours'])} | {held} |")
    return "\n".join(lines)


def _ours(values: dict) -> str:
    def one(v):
        return f"{v:.3g}" if isinstance(v, float) else str(v)
    return ", ".join(f"{k} {one(v)}" for k, v in values.items())


def flat_connection(c: dict) -> dict:
    """connections.csv's row: the characteristics, then LPA/FPA/changes per estimator."""
    keep = ("network", "reordering", "variant", "seed", "connection", "sender", "os",
            "profile", "size", "completed", "data_bytes", "segments", "duration",
            "throughput", "samples", "samples_per_flight", "min_rtt", "rtt_p90",
            "median_flight", "losses", "episodes", "loss_rate")
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
    checks = checks_of(study)
    t44 = table_4_4(connections)
    ch4 = chapter4_checks(study, t44)
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
    markdown = table_markdown(study, checks, ch4, t44, cfg, len(rows), connections)
    (out / "paper_table.md").write_text(markdown + "\n")
    figures = plot_figures(study, connections, out)
    summary = {**summary_header(rows, cfg, mode=mode, invocations=invocations,
                                code_version=code_version),
               "connections": study["connections"], "scored": study["scored"],
               "lossy": study["lossy"], "study": study, "checks": checks,
               "chapter4_checks": ch4, "table_4_4": t44, "table_markdown": markdown,
               "figures": figures}
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
    """004's nine and Random(0.8) (not the rows as printed)."""
    return [n for n in ESTIMATOR_ORDER if "as printed" not in n]


def plot_figures(study: dict, connections: list, out: Path) -> list[str]:
    conns = scored(connections)
    lossy = [c for c in conns if c["episodes"]]
    styles = _styles()
    written = []
    if not conns:
        return written
    for name, metric, index, population, title in (
            ("fig_lpa.png", "LPA", 0, lossy, "004 Fig. 5.2: loss prediction ability"),
            ("fig_fpa.png", "FPA", 1, conns, "004 Fig. 5.4: false positive avoidance")):
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
    if lossy:
        fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
        for ax, col, policy in ((axes[0], 2, "additive"), (axes[1], 3, "multiplicative")):
            best = [c["best"][col - 2] for c in lossy]
            edges = _log_bins(best)
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
            ax.set_yscale("symlog", linthresh=1)
            ax.set_xlabel("best-case saving (RTTs, log bins)")
            ax.set_title(f"{policy} decrease", fontsize=10)
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("modelled saving (RTTs): median and quartiles per bin")
        axes[0].legend(fontsize=8)
        fig.suptitle("004 Figs. 5.6-5.11: change in duration against the best case "
                     f"({len(lossy)} lossy connections)", fontsize=10)
        save_figure(fig, out / "fig_duration.png")
        written.append("fig_duration.png")
    brk = study["breakdowns"]
    if any(brk.values()):
        names = ("CIM", "Vegas", "Tri-S", "DUAL", "CARD", "Random(0.8)")
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
        for ax, feature in zip(axes, ("throughput", "flight")):
            rows = brk.get(feature) or []
            width = 0.8 / (len(names) + 1)
            for j, est in enumerate(("best case",) + names):
                key = "best_median" if est == "best case" else f"{est} median"
                ys = [r[key] if r[key] is not None else 0.0 for r in rows]
                ax.bar([i + j * width for i in range(len(rows))], ys, width, label=est)
            ax.set_xticks([i + 0.4 for i in range(len(rows))])
            ax.set_xticklabels([r["group"] for r in rows], fontsize=8)
            ax.set_yscale("symlog", linthresh=1)
            what = "throughput tercile" if feature == "throughput" else "median flight size"
            ax.set_title(f"by {what}", fontsize=10)
            ax.grid(alpha=0.3, axis="y")
        axes[0].set_ylabel("median modelled saving, additive (RTTs)")
        axes[0].legend(fontsize=7)
        fig.suptitle("004 §5.5: who gains (lossy connections)", fontsize=10)
        save_figure(fig, out / "fig_breakdown.png")
        written.append("fig_breakdown.png")
    settings = study["rto_settings"]
    if settings:
        fig, ax = plt.subplots(figsize=(8, 5.5))
        for family, colour in (("Linux", "C0"), ("RFC 2988", "C1"), ("Smart", "C2")):
            pts = [r for r in settings if r["setting"].startswith(family)
                   and r["wait_mean"] is not None]
            if not pts:
                continue
            ax.plot([r["wait_mean"] for r in pts], [r["spurious_timeouts"] for r in pts], "o",
                    color=colour, label=family)
            for r in pts:
                short = ("Smart-Config" if family == "Smart" else
                         r["setting"].split(", ", 1)[1] if ", " in r["setting"] else "default")
                ax.annotate(short, (r["wait_mean"], r["spurious_timeouts"]), fontsize=6,
                            xytext=(3, 2), textcoords="offset points")
        ax.set_xlabel("mean waiting time of a loss the timer detects (RTTs, EWMA 1/4)")
        ax.set_ylabel("spurious timeouts (all connections)")
        ax.set_title("004 ch. 4: spurious timeouts against waiting time, one point per "
                     "setting", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        save_figure(fig, out / "fig_rto.png")
        written.append("fig_rto.png")
    return written


def _log_bins(values: list) -> list:
    positive = [v for v in values if v > 0]
    if not positive:
        return [0.01, 1.0]
    lo = 10 ** math.floor(math.log10(min(positive)))
    hi = 10 ** math.ceil(math.log10(max(positive)) + 1e-9)
    edges = []
    x = lo
    while x <= hi * 1.0001:
        edges.append(x)
        x *= math.sqrt(10)
    return edges


# --------------------------------------------------------------------------- CLI
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.dbce_tables", formatter_class=HelpFormatter,
        description="Seed 004's chapters 4 and 5 on the simulator's traces: many connections "
                    "over varied dumbbells with the P4 gateways, scored by the delay-based "
                    "congestion estimators of Table 5.1 (LPA, FPA, modelled change in "
                    "duration) and their timers replayed under other RTO parameters. Options "
                    "without a default shown take the --mode's value.")
    p.add_argument("--mode", choices=sorted(MODES), default="quick",
                   help="full: every network, reordering and sender, 2 seeds, 90 s runs "
                        "(about 3,000 connections, 4 minutes on 2 cores with PyPy); quick: 1 "
                        "seed, 40 s, SACK, with and without recirculation (about 200 "
                        "connections, a minute)")
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
                      label="004 ch. 4-5")


if __name__ == "__main__":
    sys.exit(main())
