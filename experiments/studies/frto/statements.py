"""[FRTO]'s statements about its Tables 1-3 and Figures 6-9 ([FRTO] §5.2-5.3), in
its words, each judged by direction and size (``experiments.runner.verdicts``) on our runs.

The paper's numbers are its medians over 30 runs (Tables 1-3). A statement about how much
faster or slower one sender is than another is judged on the ratio of the medians: the
paper's ratio within 0.05 (a difference of "17-19 %" is met by 14-24 %, not by 5 %). A
statement that two senders do not differ ("not different", "does not differ significantly",
"similar performance") is judged twice: direction, as the paper tested it, no significant
difference (a two-sided Mann-Whitney test at 5 % on the per-run times); size, an equivalence
test (the ratio of the two senders' times, its 90 % interval within ±10 %), which says when the
runs are too few to tell.
"""

from __future__ import annotations

import math
import statistics
from typing import Sequence

from experiments.runner.stats import signed_rank_p
from experiments.runner.verdicts import (ALIKE_MARGIN, Alike, Near, Statement, absolute, judge,
                                         not_run, relative)

__all__ = ["statements_of", "samples_of", "fairness_statements", "PAPER", "SIGNIFICANCE"]

SIGNIFICANCE = 0.05     # [FRTO] §5.3: "do not show significant difference"
# [FRTO] Tables 1-3: median time (s) for 100 KB, packets lost, retransmissions
PAPER = {
    "delay": {"eifel": (77.94, 11, 16), "frto": (76.23, 4, 12), "sack": (94.13, 9, 57),
              "newreno": (90.72, 10, 60), "frto-newreno": (75.18, 6, 13),
              "eifel-newreno": (79.21, 11, 19)},
    "loss": {"eifel": (80.68, 39, 26), "frto": (75.69, 36, 24), "sack": (76.18, 36, 22),
             "newreno": (82.38, 36, 26), "frto-newreno": (81.67, 36, 26),
             "eifel-newreno": (89.64, 38, 27)},
    "burst": {"eifel": (123.89, 50, 45), "frto": (64.94, 42, 40), "sack": (71.23, 42, 39),
              "newreno": (74.48, 42, 43), "frto-newreno": (67.80, 39, 43),
              "eifel-newreno": (80.03, 42, 42)},
}
PATHS = (("SACK", "sack", "frto", "eifel"), ("NewReno", "newreno", "frto-newreno",
                                              "eifel-newreno"))
TIME, LOST, RETX = 0, 1, 2


def samples_of(rows: Sequence[dict]) -> dict[tuple[str, float, str], dict[int, float]]:
    """Per (scenario, level, variant): the transfer time of each run by its seed (for the
    tests that compare two senders run by run: the runs of one seed share the link's random
    draws)."""
    out: dict[tuple[str, float, str], dict[int, float]] = {}
    for r in rows:
        if "error" in r or not str(r.get("scenario", "")).startswith("frto-"):
            continue
        if r["scenario"] == "frto-fair":
            continue
        key = (r["scenario"][len("frto-"):], float(r["level"]), r["variant"])
        out.setdefault(key, {})[int(r["seed"])] = float(r["transfer_s"])
    return out


def statements_of(points: dict, samples: dict, *, levels: Sequence[float] = (0.02, 0.05, 0.10),
                  stall: float = 0.02, table_loss: float = 0.05) -> list[Statement]:
    """Every statement of [FRTO] §5.2 on Tables 1-3 and Figs. 6-8, in the paper's order.
    ``points``: the medians per (scenario, level, variant) (``frto_tables.points_of``);
    ``samples``: the per-run times (``samples_of``); ``levels``: the LOSS levels [FRTO] ran."""
    def med(scenario, variant, what="transfer_s", level=None):
        level = {"delay": stall, "loss": table_loss, "burst": 0.0}[scenario] \
            if level is None else level
        p = points.get((scenario, level, variant))
        return p[f"{what}_median"] if p else None

    def runs(scenario, variant, level=None):
        level = {"delay": stall, "loss": table_loss, "burst": 0.0}[scenario] \
            if level is None else level
        return samples.get((scenario, level, variant))

    def paper(scenario, *variants, col=TIME):
        return ", ".join(f"{v} {PAPER[scenario][v][col]:g}" for v in variants)

    out: list[Statement] = []
    # ---- DELAY: Table 1, Fig. 6
    for path, conv, frto, eifel in PATHS:
        pc, pf = PAPER["delay"][conv][TIME], PAPER["delay"][frto][TIME]
        out.append(judge(
            f"delay_frto_faster_{path.lower()}", "Table 1 / Fig. 6 (DELAY)",
            f"using F-RTO improves performance over the conventional RTO recovery ... with the "
            f"{path} TCP", paper=f"median s: {paper('delay', conv, frto)} "
                                 f"({1 - pf / pc:.1%} less time)",
            values={conv: med("delay", conv), frto: med("delay", frto)},
            direction=lambda v, c=conv, f=frto: v[f] < v[c],
            test="F-RTO's median time below conventional recovery's",
            size=Near("time saved, 1 - F-RTO / conventional",
                      lambda v, c=conv, f=frto: 1 - v[f] / v[c], 1 - pf / pc, absolute())))
    for path, conv, frto, _ in PATHS:
        pc, pf = PAPER["delay"][conv][RETX], PAPER["delay"][frto][RETX]
        out.append(judge(
            f"delay_frto_retransmits_{path.lower()}", "Table 1 (DELAY)",
            f"The number of unnecessary retransmissions with the F-RTO algorithm is considerably "
            f"smaller than with the conventional RTO recovery ({path})",
            paper=f"median retransmissions: {paper('delay', conv, frto, col=RETX)}",
            values={conv: med("delay", conv, "retransmits"),
                    frto: med("delay", frto, "retransmits")},
            direction=lambda v, c=conv, f=frto: v[f] < v[c],
            test="F-RTO's median retransmissions below conventional recovery's",
            size=Near("F-RTO / conventional retransmissions", lambda v, c=conv, f=frto:
                      v[f] / v[c], pf / pc, absolute()),
            note="the paper's table counts all retransmissions (ours too; those not needed "
                 "are in paper_table's 'not needed' column)"))
    out.append(_alike_statement(
        "delay_sack_like_newreno", "Table 1 / Fig. 6 (DELAY)",
        "There is no significant difference between the SACK TCP and the NewReno TCP, when "
        "RTOs are triggered by excessive delays (conventional recovery)",
        f"median s: {paper('delay', 'sack', 'newreno')}",
        "Regular SACK", runs("delay", "sack"), "Regular NewReno", runs("delay", "newreno"),
        significance=True))
    for path, conv, frto, eifel in PATHS:
        pc, pe = PAPER["delay"][conv][RETX], PAPER["delay"][eifel][RETX]
        out.append(judge(
            f"delay_eifel_retransmits_{path.lower()}", "Table 1 (DELAY)",
            f"The Eifel TCP avoids most of the unnecessary retransmissions similarly to the "
            f"F-RTO algorithm ({path})",
            paper=f"median retransmissions: {paper('delay', conv, eifel, frto, col=RETX)}",
            values={conv: med("delay", conv, "retransmits"),
                    eifel: med("delay", eifel, "retransmits")},
            direction=lambda v, c=conv, e=eifel: v[e] < v[c],
            test="Eifel's median retransmissions below conventional recovery's",
            size=Near("Eifel / conventional retransmissions", lambda v, c=conv, e=eifel:
                      v[e] / v[c], pe / pc, absolute())))
    for path, conv, frto, eifel in PATHS:
        pf, pe = PAPER["delay"][frto], PAPER["delay"][eifel]
        out.append(judge(
            f"delay_eifel_loses_more_{path.lower()}", "Table 1 / Fig. 6 (DELAY)",
            f"Eifel typically has more packet losses due to congestion than F-RTO, resulting in "
            f"a slightly lower throughput than F-RTO ({path})",
            paper=f"median lost: {frto} {pf[LOST]}, {eifel} {pe[LOST]}; s: {frto} "
                  f"{pf[TIME]:g}, {eifel} {pe[TIME]:g}",
            values={f"{frto} lost": med("delay", frto, "lost_data"),
                    f"{eifel} lost": med("delay", eifel, "lost_data"),
                    f"{frto} s": med("delay", frto), f"{eifel} s": med("delay", eifel)},
            direction=lambda v, f=frto, e=eifel: v[f"{e} lost"] > v[f"{f} lost"]
            and v[f"{e} s"] > v[f"{f} s"],
            test="Eifel's median losses and time above F-RTO's",
            size=Near("Eifel / F-RTO time", lambda v, f=frto, e=eifel: v[f"{e} s"] / v[f"{f} s"],
                      pe[TIME] / pf[TIME], absolute())))
    # ---- LOSS: Table 2, Fig. 7 (5 %), and "the same trend" at 2 % and 10 %
    for level in levels:
        for path, conv, frto, _ in PATHS:
            where = f"LOSS {level:.0%}"
            runs_c, runs_f = runs("loss", conv, level), runs("loss", frto, level)
            why = "" if runs_c or runs_f else \
                f"the run has no LOSS runs at {level:.0%} (--levels)"
            out.append(_alike_statement(
                f"loss{level:g}_frto_like_conventional_{path.lower()}",
                "Table 2 / Fig. 7" if level == table_loss else f"Fig. 7's text ({where})",
                f"the performance of F-RTO is not different from the performance achieved with "
                f"the conventional RTO recovery ({path}, {where}"
                + ("" if level == table_loss else "; 'the trend ... is similar'") + ")",
                f"median s: {paper('loss', conv, frto)}" if level == table_loss
                else "no numbers (figure not in the text)",
                f"F-RTO w/ {path}", runs_f, f"Regular {path}", runs_c, why_missing=why))
    retx = {v: med("loss", v, "retransmits") for v in PAPER["loss"]}
    spread = [PAPER["loss"][v][RETX] for v in PAPER["loss"]]
    out.append(judge(
        "loss_retransmits_similar", "Table 2 (LOSS 5 %)",
        "Table 2 shows that the number of retransmissions are similar with all TCP variants "
        "tested", paper=f"median retransmissions {min(spread)}-{max(spread)}",
        values=retx, direction=None,
        size=Near("largest / smallest median", lambda v: max(v.values()) / min(v.values()),
                  max(spread) / min(spread), relative())))
    out.append(judge(
        "loss_sack_beats_newreno", "Table 2 / Fig. 7 (LOSS 5 %)",
        "the SACK TCP improves the performance over the NewReno TCP",
        paper=f"median s: {paper('loss', 'sack', 'newreno')}",
        values={"sack": med("loss", "sack"), "newreno": med("loss", "newreno")},
        direction=lambda v: v["sack"] < v["newreno"],
        test="Regular SACK's median time below Regular NewReno's",
        size=Near("NewReno / SACK time", lambda v: v["newreno"] / v["sack"],
                  PAPER["loss"]["newreno"][TIME] / PAPER["loss"]["sack"][TIME], absolute())))
    out.append(judge(
        "loss_eifel_timestamp_overhead", "Table 2 / Fig. 7 (LOSS 5 %)",
        "Eifel TCP using SACK and TCP timestamps has a lower throughput than SACK TCP without "
        "timestamps ... approximately a 4 % increase in the number of packets",
        paper=f"median s: {paper('loss', 'sack', 'eifel')}",
        values={"sack": med("loss", "sack"), "eifel": med("loss", "eifel")},
        direction=lambda v: v["eifel"] > v["sack"],
        test="Eifel w/ SACK's median time above Regular SACK's",
        size=Near("Eifel / SACK time", lambda v: v["eifel"] / v["sack"],
                  PAPER["loss"]["eifel"][TIME] / PAPER["loss"]["sack"][TIME], absolute()),
        note="ours carry the same 12 bytes of timestamps (244-byte segments against 256)"))
    # ---- BURST: Table 3, Fig. 8
    for path, conv, frto, _ in PATHS:
        out.append(_alike_statement(
            f"burst_frto_like_conventional_{path.lower()}", "Table 3 / Fig. 8 (BURST)",
            f"the TCP performance with F-RTO does not differ significantly from the performance "
            f"with the conventional RTO recovery when there are link outages ({path})",
            f"median s: {paper('burst', conv, frto)}",
            f"F-RTO w/ {path}", runs("burst", frto), f"Regular {path}", runs("burst", conv),
            significance=True))
    out.append(_alike_statement(
        "burst_sack_like_newreno", "Table 3 / Fig. 8 (BURST)",
        "Use of the SACK TCP does not notably improve the performance with bursty losses",
        f"median s: {paper('burst', 'sack', 'newreno')}",
        "Regular SACK", runs("burst", "sack"), "Regular NewReno", runs("burst", "newreno")))
    pb = PAPER["burst"]
    out.append(judge(
        "burst_eifel_sack_worst", "Table 3 / Fig. 8 (BURST)",
        "Eifel TCP gives a clearly worse throughput than the conventional TCP when SACK TCP is "
        "used", paper=f"median s: {paper('burst', 'eifel', 'sack', 'frto')}",
        values={v: med("burst", v) for v in ("eifel", "sack", "frto")},
        direction=lambda v: v["eifel"] > max(v["sack"], v["frto"]),
        test="Eifel w/ SACK the slowest SACK sender (median time)",
        size=Near("Eifel / Regular SACK time", lambda v: v["eifel"] / v["sack"],
                  pb["eifel"][TIME] / pb["sack"][TIME], relative())))
    out.append(judge(
        "burst_eifel_newreno_less", "Table 3 / Fig. 8 (BURST)",
        "Unlike SACK, the NewReno TCP ensures that a retransmission is made for each partial "
        "ACK. Therefore the Eifel sender often avoids the second RTO with NewReno",
        paper=f"median s: {paper('burst', 'eifel-newreno', 'newreno', 'eifel', 'sack')}",
        values={v: med("burst", v) for v in ("eifel-newreno", "newreno", "eifel", "sack")},
        direction=lambda v: v["eifel-newreno"] / v["newreno"] < v["eifel"] / v["sack"],
        test="Eifel's time over conventional recovery's smaller with NewReno than with SACK",
        size=Near("Eifel w/ NewReno / Regular NewReno time",
                  lambda v: v["eifel-newreno"] / v["newreno"],
                  pb["eifel-newreno"][TIME] / pb["newreno"][TIME], absolute())))
    return out


def _alike_statement(key, item, says, paper, name_a, a, name_b, b, *,
                     why_missing="", what="time", significance=False) -> Statement:
    """A "no difference" statement on two senders' runs ({seed: value}), paired by seed: its
    size the equivalence test, and a direction (no significant difference) only where [FRTO]
    speaks of significance ("no significant difference", "does not differ significantly");
    "not different from" and "similar" order nothing."""
    values = {f"{name_a} median": statistics.median(a.values()) if a else None,
              f"{name_b} median": statistics.median(b.values()) if b else None,
              name_a: a, name_b: b}
    seeds = sorted(set(a or ()) & set(b or ()))
    p = signed_rank_p([math.log(a[k] / b[k]) for k in seeds]) if seeds else None
    values["p"] = round(p, 3) if p is not None else None
    return judge(key, item, says, paper=paper, values=values,
                 direction=(lambda v: v["p"] >= SIGNIFICANCE) if significance else None,
                 test=f"no significant difference: two-sided Wilcoxon signed-rank test on the "
                      f"per-seed log ratios, p >= {SIGNIFICANCE:g}" if significance else "",
                 size=Alike(what, name_a, name_b, ALIKE_MARGIN),
                 show=[f"{name_a} median", f"{name_b} median", "p"], why_missing=why_missing)


FAIR_FIELDS = ("set1_fastest_Bps", "set1_slowest_Bps", "set2_fastest_Bps", "set2_slowest_Bps")


def fairness_statements(points: dict, levels: Sequence[float]) -> list[Statement]:
    """[FRTO] §5.3 (Fig. 9): "the connection sets between test A and test B give similar
    performance" with delays, and "do not show significant difference" without: for each set's
    fastest and slowest transfer, test A's runs against test B's."""
    out = []
    for level in levels:
        a, b = points.get(("A", level)), points.get(("B", level))
        where = "with DELAY" if level else "without delays"
        says = ("The box-plot diagrams show that the connection sets between test A and test B "
                "give similar performance" if level else
                "the results of the experiments without random additional delays do not show "
                "significant difference between the test runs involving F-RTO connections and "
                "the test runs having only TCP connections with the conventional RTO recovery")
        for name in FAIR_FIELDS:
            what = name.replace("_Bps", "").replace("_", " ").replace("set", "set ")
            key = f"fig9_{'delay' if level else 'nodelay'}_{name.replace('_Bps', '')}"
            item = f"Fig. 9{'(a)' if 'fastest' in name else '(b)'} {where}"
            if not (a and b):
                out.append(not_run(key, item, f"{says} ({what})", paper="box plots, no numbers",
                                   why="the fairness test was not run (--scenarios)"))
                continue
            out.append(_alike_statement(
                key, item, f"{says} ({what})", "box plots, no numbers",
                "test A", a[f"{name}_by_seed"], "test B", b[f"{name}_by_seed"],
                what="throughput", significance=not level))
    return out
