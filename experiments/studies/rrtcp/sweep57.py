"""[RRTCP] §5.7's comparison over "an extensive set of network conditions": every DSACK variant and
SACK on networks drawn from [RRTCP]'s ranges, and how often each sender is best and by how much.

[RRTCP]: "we vary the link delay of (R1, R2) between [50, 400] ms; the packet drop rate between
[0, 9] percent; the fraction of delayed packets between [0.1, 10] percent; and mean packet
delays between [25, 1600] ms, using many of the random processes supported in ns-2 (normal,
exponential, hyperexponential, Pareto, Pareto II, and uniform). ... DSACK-TAES has the best
overall performance ... other schemes, especially DSACK-FA or DSACK-BL-TIMEINC, offer slightly
better throughput than DSACK-TAES. In these cases, the throughput differences are mostly < 5%,
and all < 10%."

[RRTCP] does not list its conditions, so they are drawn here, reproducibly (``random.Random(57)``):
P log-uniform in [50, 400] ms; no drops in a quarter of the conditions, else a drop rate
log-uniform in [0.1, 9] %; the fraction delayed log-uniform in [0.1, 10] %; the mean delay
log-uniform in [25, 1600] ms; one of the six distributions with that mean (normal with sd
mean/3, as [RRTCP]'s figures; uniform on [0, 2 mean]; ns-2's default shapes otherwise). Each
condition runs every sender with seeds 1..N (``--seeds-per-condition``; by default one: the
conditions are the sample), for the mode's run length ([RRTCP]: 1000 s). With more than one seed a
sender's throughput in a condition is the mean of its runs, which the statements are judged on,
and the tables give the spread of its runs about it.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import Iterable

from experiments.runner.spec import RunSpec
from experiments.runner.verdicts import Near, Statement, bound, judge, not_run
from experiments.runner.verdicts import markdown as verdicts_markdown
from experiments.studies.rrtcp.evaluation import PAPER_NAMES, RrConfig, base_spec, point_key
from hosts.tcp.variants import VARIANTS as ALL_VARIANTS

__all__ = ["conditions", "sweep_specs", "best_table", "sweep_checks", "sweep_markdown",
           "SENDERS", "SEED", "CONDITIONS"]

SEED = 57                   # the conditions' random stream ([RRTCP] §5.7)
CONDITIONS = 300            # conditions drawn: 3,600 runs of 12 senders (about 1 hour on 2 cores)
SENDERS = ("sack", "dsack", "rrtcp-fa", "rrtcp-faes", "rrtcp", "rrtcp-taes", "rrtcp-hg",
           "dsack-inc", "dsack-avg", "dsack-ewma", "dsack-timedel", "dsack-timeinc")
FINAL = "rrtcp-taes"        # [RRTCP] §7: DSACK-TAES, the scheme [RRTCP] recommends
MOSTLY, ALL = 0.05, 0.10    # "mostly < 5%, and all < 10%"


def _log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def _distribution(kind: str, mean: float) -> str:
    return {"normal": f"normal:{mean:.4g},{mean / 3:.4g}", "exponential": f"exponential:{mean:.4g}",
            "hyperexponential": f"hyperexponential:{mean:.4g},4",
            "pareto": f"pareto:{mean:.4g},1.5", "pareto2": f"pareto2:{mean:.4g},1.2",
            "uniform": f"uniform:0,{2 * mean:.4g}"}[kind]


def conditions(n: int) -> list[dict]:
    """The first ``n`` conditions of the reproducible draw (a longer sweep extends a shorter
    one: condition i is the same whatever ``n``)."""
    rng = random.Random(SEED)
    out = []
    for _ in range(n):
        p = round(_log_uniform(rng, 0.050, 0.400), 3)
        drop = 0.0 if rng.random() < 0.25 else round(_log_uniform(rng, 0.001, 0.09), 4)
        level = round(_log_uniform(rng, 0.001, 0.10), 4)
        mean = _log_uniform(rng, 0.025, 1.6)
        kind = rng.choice(("normal", "exponential", "hyperexponential", "pareto", "pareto2",
                           "uniform"))
        out.append({"path_delay": p, "drop": drop, "level": level,
                    "delay": _distribution(kind, mean)})
    return out


def _senders(cfg: RrConfig) -> list[str]:
    return [v for v in SENDERS if v in ALL_VARIANTS and (not cfg.variants or v in cfg.variants)]


def sweep_specs(cfg: RrConfig, n: int, seeds: int = 1) -> list[RunSpec]:
    """Every sender under each of the ``n`` conditions, with seeds 1 to ``seeds`` (a sweep with
    more seeds extends one with fewer: its runs are the same)."""
    return [base_spec(cfg, v, seed=seed, **c) for c in conditions(n) for v in _senders(cfg)
            for seed in range(1, seeds + 1)]


def _condition_of(key: RunSpec) -> tuple:
    return (key.path_delay, key.drop, key.level, key.delay)


def best_table(rows: Iterable[dict]) -> tuple[list[dict], list[dict]]:
    """Per condition, each sender's throughput (the mean of its seeds' runs) relative to the
    best sender's there, and the best: every sender with that throughput, '+'-joined (senders
    often tie exactly: runs that nothing set apart, such as a condition whose delays never
    exceed any sender's threshold, are the same run); with more than one seed, ``V_sd``, the
    sample standard deviation of sender V's runs relative to that best. Then per sender: in
    how many conditions it was best or tied for best, its mean and worst relative throughput,
    ``seeds`` (runs per condition) and ``spread`` (the mean of its ``V_sd``, None for one seed).
    Only conditions where every sender of the sweep has every seed's run are compared (a
    failed run would make another sender best there); ``incomplete`` counts the others."""
    runs: dict[tuple, dict[str, dict[int, float | None]]] = {}
    swept: set[str] = set()
    for row in rows:
        key = point_key(row)
        swept.add(key.variant)
        seeds = runs.setdefault(_condition_of(key), {}).setdefault(key.variant, {})
        seeds[int(row["seed"])] = None if "error" in row else float(row["throughput_Bps"])
    complete = {}
    for cond, by_sender in runs.items():
        seeds = {seed for per in by_sender.values() for seed in per}
        if set(by_sender) == swept and all(set(per) == seeds and None not in per.values()
                                           for per in by_sender.values()):
            complete[cond] = {v: [per[seed] for seed in sorted(seeds)]
                              for v, per in by_sender.items()}
    incomplete = len(runs) - len(complete)
    per_condition = []
    for cond, by_sender in complete.items():
        tputs = {v: statistics.fmean(t) for v, t in by_sender.items()}
        best = max(tputs.values())
        winners = "+".join(v for v in sorted(tputs, key=SENDERS.index) if tputs[v] == best)
        entry = {"path_delay": cond[0], "drop": cond[1], "level": cond[2], "delay": cond[3],
                 "seeds": len(next(iter(by_sender.values()))), "best": winners,
                 **{v: (t / best if best else None) for v, t in tputs.items()}}
        if entry["seeds"] > 1:
            entry.update({f"{v}_sd": (statistics.stdev(t) / best if best else None)
                          for v, t in by_sender.items()})
        per_condition.append(entry)
    senders = sorted({v for c in complete.values() for v in c}, key=SENDERS.index)
    summary = []
    for v in senders:
        rel = [c[v] for c in per_condition if c.get(v) is not None]
        sds = [c[f"{v}_sd"] for c in per_condition if c.get(f"{v}_sd") is not None]
        summary.append({"variant": v, "name": PAPER_NAMES.get(v, v), "conditions": len(rel),
                        "best": sum(c[v] == 1.0 for c in per_condition),
                        "mean_relative": statistics.fmean(rel) if rel else None,
                        "worst_relative": min(rel) if rel else None,
                        "seeds": max((c["seeds"] for c in per_condition), default=0),
                        "spread": statistics.fmean(sds) if sds else None,
                        "incomplete_conditions": incomplete})
    return per_condition, summary


SAYS_BEST = ("As expected, DSACK-TAES has the best overall performance because it combines the "
             "benefits of false fast retransmit avoidance, timeout avoidance, and enhanced RTT "
             "sampling")
SAYS_MOSTLY = ("Under a few cases, other schemes ... offer slightly better throughput than "
               "DSACK-TAES. In these cases, the throughput differences are mostly < 5%")
SAYS_ALL = "... and all < 10%"
NOT_RUN_WHY = "§5.7's sweep runs with --mode full --sweep-57 (its journal in OUT/sweep57/)"


def sweep_checks(per_condition: list[dict], summary: list[dict]) -> list[Statement]:
    """[RRTCP] §5.7's statements, with our numbers: TAES best overall (direction: the highest
    mean throughput relative to each condition's best), where another scheme beats it the
    difference mostly under 5 % (size: over half of the defeats) and all under 10 % (size:
    the largest)."""
    final = next((s for s in summary if s["variant"] == FINAL), None)
    item = "§5.7 sweep"
    if final is None or not per_condition:
        return [not_run("57_best", item, SAYS_BEST, paper="-", why=NOT_RUN_WHY, has_size=False),
                not_run("57_mostly", item, SAYS_MOSTLY, paper="< 5 %", why=NOT_RUN_WHY,
                        has_direction=False),
                not_run("57_all", item, SAYS_ALL, paper="< 10 %", why=NOT_RUN_WHY,
                        has_direction=False)]
    top = max(summary, key=lambda s: s["mean_relative"] or 0)
    # the conditions where another scheme beats TAES (a tie is no defeat)
    beaten = [c for c in per_condition if c.get(FINAL) is not None and c[FINAL] < 1.0]
    shortfalls = [1 - c[FINAL] for c in beaten]
    mostly = sum(s < MOSTLY for s in shortfalls)
    seeds = final["seeds"]
    # with several seeds: the shortfalls larger than twice their standard error, TAES's and the
    # best sender's runs taken as independent samples (the rest are within the runs' noise)
    return [
        judge("57_best", item, SAYS_BEST, paper="-",
              values={"TAES mean relative": final["mean_relative"],
                      "TAES best or tied in": final["best"],
                      "highest mean relative": f"{top['name']} {top['mean_relative']:.4f}"},
              direction=lambda v: top["variant"] == FINAL,
              test="the highest mean throughput relative to each condition's best"),
        judge("57_mostly", item, SAYS_MOSTLY, paper="< 5 % in most",
              values={"conditions TAES is beaten in": len(shortfalls),
                      "by under 5 %": mostly,
                      **({} if seeds < 2 else {
                          f"beyond twice their standard error over {seeds} seeds":
                          sum(_beyond_noise(c, seeds) for c in beaten)})},
              direction=None,
              size=Near("share of the defeats under 5 %",
                        lambda v: mostly / len(shortfalls) if shortfalls else 1.0, 0.5,
                        bound())),
        judge("57_all", item, SAYS_ALL, paper="< 10 %",
              values={"conditions TAES is beaten in": len(shortfalls)}, direction=None,
              size=Near("largest defeat", lambda v: max(shortfalls, default=0.0), ALL,
                        bound(over=False))),
    ]


def _beyond_noise(condition: dict, seeds: int) -> bool:
    """Whether TAES's shortfall in ``condition`` exceeds twice the standard error of the
    difference between its mean and the best sender's (each of ``seeds`` runs)."""
    best = condition["best"].split("+")[0]
    error = math.sqrt((condition[f"{FINAL}_sd"] ** 2 + condition[f"{best}_sd"] ** 2) / seeds)
    return 1 - condition[FINAL] > 2 * error


def sweep_markdown(per_condition: list[dict], summary: list[dict], checks: list[Statement],
                   duration: float) -> str:
    seeds = summary[0]["seeds"] if summary else 1
    each = ("once each" if seeds <= 1 else
            f"{seeds} times each (seeds 1-{seeds}; a sender's throughput in a condition is the "
            f"mean of its runs, spread: the mean over the conditions of the standard deviation "
            f"of its runs, relative to the best sender's mean)")
    spread = seeds > 1
    lines = [f"[RRTCP] §5.7: {len(per_condition)} conditions drawn from [RRTCP]'s ranges, every sender "
             f"{each}, {duration:g} s runs ([RRTCP]: 1000 s). Relative: a sender's throughput "
             f"over the best sender's in that condition."
             + (f" {summary[0]['incomplete_conditions']} condition(s) where a sender's run failed "
                f"are left out." if summary and summary[0]["incomplete_conditions"] else ""), "",
             "| sender | best or tied for best in | mean relative | worst relative |"
             + (" spread |" if spread else ""),
             "|---|---:|---:|---:|" + ("---:|" if spread else "")]
    for s in summary:
        lines.append(f"| {s['name']} (`{s['variant']}`) | {s['best']} of {s['conditions']} | "
                     f"{s['mean_relative']:.4f} | {s['worst_relative']:.4f} |"
                     + (f" {s['spread']:.4f} |" if spread else ""))
    lines += ["", verdicts_markdown(checks, paper="[RRTCP]", columns=(("paper", "[RRTCP]"),
                                                                ("ours", "ours")))]
    return "\n".join(lines)
