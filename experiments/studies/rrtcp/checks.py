"""[RRTCP]'s statements about its figures and tables (§2.1, §5), in its words, each
judged by direction and size (``experiments.runner.verdicts``) on our numbers: the ordering or
shape it states, and its number within a stated tolerance where it gives one.

[RRTCP]'s figures are missing from the text; its numbers are those of its prose and its two tables.
Where it gives a shape with a word of degree ("drops rapidly", "far fewer", "significantly")
the direction's test says how the word is read, beside the statement, so a reader can disagree
with the reading. A statement that two things do not differ ("atop one another", "comparable",
"no significant effect", "similar") is judged as an equivalence of the runs, paired by seed (the
runs of one seed share the delay and drop draws): direction, no significant difference
(Wilcoxon signed-rank, p >= 0.05), size, the 90 % interval of the ratio within the margin.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Callable, Sequence

from experiments.runner.stats import signed_rank_p
from experiments.runner.verdicts import (ALIKE_MARGIN, Alike, Near, Statement, absolute, bound,
                                         judge, relative)
from experiments.studies.rrtcp.evaluation import TABLE3_K, Panel, TableSpec
from experiments.studies.rrtcp.report import (TABLE3_PAPER, TABLE4_PAPER, curve_values,
                                              point_value)

__all__ = ["checks_of", "View", "SIGNIFICANCE", "ATOP"]

SIGNIFICANCE = 0.05
ATOP = 0.05             # "plotted atop one another": within 5 %, closer than "comparable"


class View:
    """What the statements read: the points, the figures' curves, the tables and the traces."""

    def __init__(self, points: dict, panels: Sequence[Panel], tables: Sequence[TableSpec],
                 traces: dict[str, list[dict]]):
        self.points, self.panels, self.traces = points, panels, traces
        self.tables = {t.number: t for t in tables}

    def curve(self, number: str, variant: str, metric: str | None = None, *, style: str = "",
              label: str | None = None) -> dict[float, Any]:
        return curve_values(self.points, self.panels, number, variant, metric, style=style,
                            label=label)

    def seeds(self, number: str, variant: str, *, style: str = "") -> dict[float, dict]:
        """The curve's runs: {x: {seed: throughput}}."""
        return self.curve(number, variant, "by_seed", style=style)

    def ref(self, number: str, variant: str, metric: str | None = None) -> Any:
        """A horizontal reference line's value (a sender at one point, e.g. Fig. 8's TA)."""
        values = self.curve(number, variant, metric)
        return values.get(0.0)

    def table(self, number: str, variant: str, metric: str, **match) -> Any:
        table = self.tables.get(number)
        for _, key in table.rows if table else ():
            if key.variant == variant and all(getattr(key, k) == v for k, v in match.items()):
                return point_value(self.points, key, metric)
        return None


def _common(*curves: dict) -> list[float]:
    """The x values every curve has, sorted."""
    xs = set(curves[0]) if curves else set()
    for c in curves[1:]:
        xs &= set(c)
    return sorted(xs)


def _pct(d: dict) -> dict:
    return {f"{x:g}%": v for x, v in d.items()}     # x in per cent already


def _st(key: str, item: str, says: str, paper: str, values: dict,
        direction: Callable[[dict], bool] | None, test: str = "", size=None,
        note: str = "", **kw) -> Statement:
    """[RRTCP]'s statement (every curve a value: an empty one is a point not run)."""
    return judge(f"{item.lower().replace(' ', '').replace('.', '')}_{key}", item, says,
                 paper=paper or "-", values=values, direction=direction, test=test, size=size,
                 note=note, **kw)


def _pairs(a: dict[float, dict], b: dict[float, dict], xs=None) -> tuple[dict, dict]:
    """Runs of two curves paired by (x, seed) at the x they share (or ``xs``)."""
    xs = _common(a, b) if xs is None else xs
    pa = {(x, s): v for x in xs for s, v in (a.get(x) or {}).items()}
    pb = {(x, s): v for x in xs for s, v in (b.get(x) or {}).items()}
    keys = set(pa) & set(pb)
    return ({k: pa[k] for k in keys}, {k: pb[k] for k in keys}) if keys else ({}, {})


def _alike(key, item, says, paper, name_a, a: dict, name_b, b: dict, *, what="throughput",
           margin=ALIKE_MARGIN, shown: dict | None = None, note="",
           significance: bool = False, order=None) -> Statement:
    """A "no difference" statement on two sets of runs paired by key (seed, or (x, seed)):
    its size is the equivalence test; it has a direction only when [RRTCP] speaks of significance
    ("no significant effect"): then no significant difference (Wilcoxon signed-rank on the
    log ratios). "Atop one another", "comparable", "similar" order nothing, and a difference
    too small to matter may still be significant. ``order``: (direction, test) of a statement
    that also orders something."""
    common = sorted(set(a) & set(b), key=str)
    p = signed_rank_p([math.log(a[k] / b[k]) for k in common if a[k] > 0 and b[k] > 0]) \
        if common else None
    values = {**(shown or {}), name_a: a or None, name_b: b or None,
              "p": round(p, 3) if p is not None else None}
    direction, test = order or (None, "")
    if significance:
        direction = lambda v: v["p"] >= SIGNIFICANCE    # noqa: E731
        test = (f"no significant difference between the runs paired by seed (Wilcoxon "
                f"signed-rank on the log ratios, p >= {SIGNIFICANCE:g})")
    return _st(key, item, says, paper, values, direction, test=test,
               size=Alike(what, name_a, name_b, margin),
               show=[*(shown or {}), "p"], note=note)


# ------------------------------------------------------------------------------- Fig. 1
def _fig1(v: View) -> list[Statement]:
    runs = v.traces.get("1") or []
    trace = runs[0]["stats"].get("sender_trace") if runs else None
    series = runs[0]["series"] if runs else None
    fr = next((t for t, _, what in trace or () if what == "retransmitted"), None)
    dsack = next((t for t, _, what in trace or () if what == "dsack"), None)
    mss = runs[0]["mss"] if runs else None

    def cwnd_at(t, after):
        if series is None or t is None:
            return None
        rows = [r for r in series if (r[0] > t if after else r[0] < t)]
        row = rows[0] if after and rows else (rows[-1] if rows else None)
        return None if row is None else row[1] / mss
    before, halved = cwnd_at(fr, False), cwnd_at(fr, True)
    restored = cwnd_at(dsack, True)
    return [
        _st("halved", "Fig. 1", "Just after one second, a cluster of duplicate ACKs arrives at "
            "the sender, triggering fast retransmit of the delayed packet, and causing the "
            "window size to be halved", "window halved",
            {"fast retransmit at (s)": fr, "cwnd before (pkts)": before,
             "cwnd after (pkts)": halved},
            lambda k: halved < before, test="cwnd lower after the fast retransmit",
            size=Near("cwnd after / before", lambda k: halved / before, 0.5, absolute())),
        _st("dsack_time", "Fig. 1", "the DSACK arrives at approximately time 1.45",
            "fast retransmit just after 1 s, DSACK at about 1.45 s",
            {"DSACK at (s)": dsack, "fast retransmit at (s)": fr}, None,
            size=Near("DSACK - fast retransmit (s)", lambda k: dsack - fr, (0.40, 0.45),
                      relative()),
            note="our clock starts at the connection's first SYN, [RRTCP]'s figure at its first "
                 "packet shown: the time from the fast retransmit to the DSACK is compared"),
        _st("restored", "Fig. 1", "Note that the sender restores its old window of sixteen "
            "packets thereafter", "16 packets",
            {"cwnd before (pkts)": before, "cwnd after the DSACK (pkts)": restored},
            lambda k: restored > halved, test="cwnd raised again after the DSACK",
            size=Near("cwnd after the DSACK / before the fast retransmit",
                      lambda k: restored / before, 1.0, absolute()),
            note="the window of sixteen before the fast retransmit is the trace's "
                 "construction (the first packet of a window of 16 delayed 0.45 s), not a "
                 "result: the size compares the window after the DSACK with it"),
    ]


# ------------------------------------------------------------------------------- Figs. 4-5
def _fig4_5(v: View) -> list[Statement]:
    sack, fa, ta = (v.curve("4", s) for s in ("sack", "rrtcp-fa", "rrtcp"))
    rel_ta = v.curve("4", "rrtcp", "relative")
    ideal = v.curve("4", "sack", label="SACK-NODELAY").get(0.0)
    others = {s: v.curve("4", s) for s in ("sack", "dsack", "rrtcp-fa", "rrtcp-fa-rtx")}
    xs = _common(sack, fa, ta)
    top = max(rel_ta) if rel_ta else None
    ta_rtx, fa_rtx = v.curve("4", "rrtcp-rtx"), v.curve("4", "rrtcp-fa-rtx")
    pa, pb = _pairs(v.seeds("4", "rrtcp"), v.seeds("4", "rrtcp-rtx"))
    out = [
        _st("sack_drops", "Fig. 4", "as more packets are delayed, the throughput of SACK drops "
            "rapidly", "", {"SACK": _pct(sack), "SACK-NODELAY": ideal},
            lambda k: all(a >= b for a, b in zip(list(sack.values()), list(sack.values())[1:]))
            and sack[max(sack)] < 0.5 * ideal,
            test="falls at every level; 'rapidly': below half of SACK-NODELAY at the highest"),
        _st("dsack_better", "Fig. 4", "but that of DSACK-FA and -TA is better (top priority: "
            "SACK << FA < TA)", "", {"SACK": _pct(sack), "FA": _pct(fa), "TA": _pct(ta)},
            lambda k: all(fa[x] > sack[x] and ta[x] > fa[x] for x in xs),
            test="SACK < FA < TA at every level"),
        _st("ta_best", "Fig. 4", "DSACK-TA performs best, as its throughput decreases much more "
            "slowly than that of the other schemes", "",
            {"TA": _pct(ta), **{s: _pct(c) for s, c in others.items() if c}},
            lambda k: all(ta[x] >= c[x] for c in others.values() for x in c if x in ta),
            test="at least every other sender but TA-RTX (plotted atop it) at every level"),
        _st("ta_71", "Fig. 4", "DSACK-TA can maintain over 71% of the throughput possible "
            "without packet delays, even when 30% of packets are delayed", "over 71 %",
            {"TA relative": rel_ta.get(top) if top else None, "at (% delayed)": top},
            None, size=Near("TA / SACK-NODELAY at the highest level",
                            lambda k: rel_ta[top] if top >= 30 else None, 0.71, bound())),
        _alike("ta_rtx_atop", "Fig. 4", "DSACK-TA-MEAN and DSACK-TA-RTX are plotted atop one "
               "another", "", "TA-MEAN", pa, "TA-RTX", pb, margin=ATOP,
               shown={"TA-MEAN means": _pct(ta) or None, "TA-RTX means": _pct(ta_rtx) or None},
               note="runs paired by (level, seed); 'atop one another': within 5 %"),
        _st("fa_mean_better", "Fig. 4", "the FA-MEAN variant performs a bit better than the "
            "FA-RTX variant", "", {"FA-MEAN": _pct(fa), "FA-RTX": _pct(fa_rtx)},
            lambda k: statistics.fmean(fa[x] for x in _common(fa, fa_rtx))
            > statistics.fmean(fa_rtx[x] for x in _common(fa, fa_rtx)),
            test="higher on average over the levels"),
    ]
    ffr_fa, ffr_ta = v.curve("5", "rrtcp-fa"), v.curve("5", "rrtcp")
    fa_end = v.curve("4", "rrtcp", "fa_ratio_end")
    timeouts = v.curve("4", "rrtcp", "timeouts")
    out += [
        _st("fa_under_10", "Fig. 5", "the fraction of packets resent with fast retransmit for "
            "which retransmission is false under DSACK-FA is less than 10%", "< 10 %",
            {"FA": _pct(ffr_fa)}, None,
            size=Near("FA's largest false fast retransmit ratio",
                      lambda k: max(ffr_fa.values()), 0.10, bound(over=False))),
        _st("ta_fewer", "Fig. 5", "DSACK-TA prevents still more false fast retransmits", "",
            {"FA": _pct(ffr_fa), "TA": _pct(ffr_ta)},
            lambda k: all(ffr_ta[x] <= ffr_fa[x] for x in _common(ffr_fa, ffr_ta)),
            test="TA's ratio at most FA's at every level"),
        _st("ta_99", "Fig. 5", "In cases with virtually no RTOs, such as in this simulation, "
            "DSACK-TA adjusts the FA ratio to 99%", "99 %",
            {"TA final FA ratio": _pct(fa_end), "TA timeouts per run": _pct(timeouts)},
            lambda k: fa_end[max(fa_end)] > 0.90,
            test="TA's FA ratio at the end of the run above its start (0.90) at the highest "
                 "level",
            size=Near("TA's final FA ratio at the highest level",
                      lambda k: fa_end[max(fa_end)], 0.99, absolute())),
    ]
    return out


# ------------------------------------------------------------------------------- Figs. 6-9
def _fig6_7(v: View) -> list[Statement]:
    sack, fa, ta = (v.curve("6", s) for s in ("sack", "rrtcp-fa", "rrtcp"))
    xs = _common(sack, fa, ta)
    lo, hi = (xs[0], xs[-1]) if len(xs) > 1 else (None, None)
    out = [
        _st("sharp", "Fig. 6", "the throughput of DSACK-TA and DSACK-FA decreases sharply as the "
            "loss rate increases", "", {"FA": _pct(fa), "TA": _pct(ta)},
            lambda k: hi is not None and fa[hi] < 0.5 * fa[lo] and ta[hi] < 0.5 * ta[lo],
            test="'sharply': below half of no drops at the highest drop rate"),
        _st("gap_shrinks", "Fig. 6", "the difference between DSACK and SACK diminishes as the "
            "drops grow", "", {"SACK": _pct(sack), "TA": _pct(ta)},
            lambda k: hi is not None and ta[hi] / sack[hi] < ta[lo] / sack[lo],
            test="TA / SACK lower at the highest drop rate than without drops"),
    ]
    sack, dsack, fa, ta = (v.curve("7", s) for s in ("sack", "dsack", "rrtcp-fa", "rrtcp"))
    xs = _common(sack, dsack, fa, ta)
    fr_fa, fr_ta = v.curve("7", "rrtcp-fa", "fr_fraction"), v.curve("7", "rrtcp", "fr_fraction")
    out += [
        _st("ta_best", "Fig. 7", "As shown in Figure 7, DSACK-TA performs best", "",
            {"TA": ta, "FA": fa, "DSACK-R": dsack, "SACK": sack},
            lambda k: all(ta[x] >= max(fa[x], dsack[x], sack[x]) for x in xs),
            test="at every link delay"),
        _st("fa_fewer_fr", "Fig. 7", "this is not because DSACK-TA causes the lowest percentage "
            "of false fast retransmits; DSACK-FA actually causes an even smaller percentage", "",
            {"FA": fr_fa, "TA": fr_ta},
            lambda k: all(fr_fa[x] <= fr_ta[x] for x in _common(fr_fa, fr_ta)),
            test="FA's fast retransmits per packet at most TA's at every link delay"),
        _st("fa_approaches", "Fig. 7", "The performance of DSACK-FA approaches DSACK-TA's as the "
            "link delay increases", "", {"TA": ta, "FA": fa},
            lambda k: len(xs) > 1 and (ta[xs[-1]] - fa[xs[-1]]) / ta[xs[-1]]
            < (ta[xs[0]] - fa[xs[0]]) / ta[xs[0]],
            test="(TA - FA) / TA smaller at the longest delay than the shortest"),
    ]
    return out


def _fig8_9(v: View) -> list[Statement]:
    to = v.curve("8a", "rrtcp-fa")
    fr = v.curve("8b", "rrtcp-fa")
    tput = v.curve("8c", "rrtcp-fa")
    ta, dsack = v.ref("8c", "rrtcp"), v.ref("8c", "dsack")
    low = min(to) if to else None
    knee = 60 if 60 in to and 95 in to and low is not None and low < 60 else None
    fa90 = tput.get(90)
    fa_mean, dup_mean = v.ref("8c", "rrtcp", "fa_ratio_mean"), v.ref("8c", "rrtcp",
                                                                      "dupthresh_mean")
    return [
        _st("knee", "Fig. 8a", "the fraction of sent packets that encounter timeouts decreases "
            "rapidly as the FA ratio decreases from 95% to 60%, then decreases further only "
            "slightly (top priority: a knee near 60 %)", "",
            {"FA timeouts per packet": to, "knee at 60% run": knee},
            lambda k: to[95] - to[60] > 2 * max(0.0, to[60] - to[low]),
            test="the fall from 95 % to 60 % more than twice the fall below 60 %"),
        _st("fr_rises", "Fig. 8b", "as the FA ratio decreases, the fraction of fast retransmits "
            "increases", "", {"FA fast retransmits": fr},
            lambda k: fr[min(fr)] > fr[max(fr)], test="higher at the lowest ratio than at 95 %"),
        _st("ta_above", "Fig. 8c", "DSACK-TA achieves a higher throughput than DSACK-R and than "
            "DSACK-FA at 90%", "", {"TA": ta, "DSACK-R": dsack, "FA 90%": fa90},
            lambda k: ta > dsack and ta > fa90),
        _st("ta_max", "Fig. 8c", "DSACK-TA achieves approximately the maximum throughput among "
            "all fixed FA ratios (top priority)", "the best fixed ratio's",
            {"TA": ta, "FA fixed": tput}, None,
            size=Near("TA / the best fixed FA ratio's", lambda k: ta / max(tput.values()), 1.0,
                      absolute())),
        _st("fa_70", "Fig. 9", "DSACK-TA's FA ratio oscillates about 70% (§5.2's text: "
            "'approximately 60%')", "60-70 %", {"TA mean FA ratio": fa_mean}, None,
            size=Near("TA's FA ratio averaged over the runs", lambda k: fa_mean, (0.60, 0.70),
                      absolute())),
        _st("dupthresh_25", "Fig. 9", "dupthresh oscillates around 25", "about 25",
            {"TA mean dupthresh": dup_mean}, None,
            size=Near("TA's dupthresh averaged over the runs", lambda k: dup_mean, 25,
                      relative())),
    ]


# ------------------------------------------------------------------------------- Figs. 10-13
def _first_below(a: dict, b: dict) -> float | None:
    """The first x (of those both curves have) from which a stays below b."""
    xs = _common(a, b)
    for i, x in enumerate(xs):
        if all(a[y] < b[y] for y in xs[i:]):
            return x
    return None


def _fig10_13(v: View) -> list[Statement]:
    fa, ta, taes, hg = (v.curve("10", s) for s in ("rrtcp-fa", "rrtcp", "rrtcp-taes",
                                                   "rrtcp-hg"))
    to_fa, to_ta, to_taes = (v.curve("11", s) for s in ("rrtcp-fa", "rrtcp", "rrtcp-taes"))
    xs = _common(fa, ta)
    beyond = [x for x in xs if x > 1.1 + 1e-9]
    before = [x for x in xs if x <= 1.1 + 1e-9]
    crossing = _first_below(ta, fa)
    pa, pb = _pairs(v.seeds("10", "rrtcp-taes"), v.seeds("10", "rrtcp-hg"))
    out = [
        _st("ta_collapses", "Fig. 10", "when k goes beyond 5.5, which corresponds to a mean delay "
            "of 1.1 seconds, the throughput of DSACK-TA drops sharply and becomes even worse "
            "than that of DSACK-FA (top priority)", "TA below FA beyond 1.1 s",
            {"TA": ta, "FA": fa, "means beyond 1.1 s run": beyond or None},
            lambda k: all(ta[x] < fa[x] for x in beyond) and all(ta[x] >= fa[x] for x in before),
            test="TA below FA at every mean delay beyond 1.1 s, at or above it before",
            size=Near("mean delay (s) from which TA stays below FA",
                      lambda k: crossing, 1.1, relative()),
            note="the size is where the collapse begins; a grid without a point near 1.1 s "
                 "places it at the next point run"),
        _st("ta_timeouts", "Fig. 11", "the fraction of packets that encounter timeouts under "
            "DSACK-TA increases rapidly, and exceeds that for DSACK-FA after the mean delay "
            "surpasses 1.1 seconds", "", {"TA": to_ta, "FA": to_fa,
                                          "means beyond 1.1 s run": beyond or None},
            lambda k: all(to_ta[x] > to_fa[x] for x in beyond),
            test="TA's timeouts per packet above FA's at every mean delay beyond 1.1 s"),
        _st("taes_fixes", "Figs. 10-11", "DSACK-TAES ... maintains a low incidence of timeouts "
            "even when packet delays are severe ... The more conservative RTO chosen by "
            "DSACK-TAES leads to fewer timeouts and increased throughput (top priority)", "",
            {"TAES": taes, "TA": ta, "TAES timeouts": to_taes,
             "means beyond 1.1 s run": beyond or None},
            lambda k: all(to_taes[x] < to_ta[x] and taes[x] > ta[x] for x in beyond),
            test="beyond 1.1 s fewer timeouts and more throughput than TA"),
        _alike("taes_like_hg", "Figs. 10-11", "Even across the range of delays in Figures 10 "
               "and 11, DSACK-TAES offers high throughput and low timeout incidence, comparable "
               "to those of DSACK-HG", "", "TAES", pa, "HG", pb,
               shown={"TAES means": taes or None, "HG means": hg or None},
               note="throughput runs paired by (mean delay, seed)"),
    ]
    to12_fa, to12_faes = v.curve("12", "rrtcp-fa"), v.curve("12", "rrtcp-faes")
    ta12 = v.ref("12", "rrtcp")
    t13_faes, taes13, hg13 = v.curve("13", "rrtcp-faes"), v.ref("13", "rrtcp-taes"), \
        v.ref("13", "rrtcp-hg")
    out += [
        _st("ta_over_04", "Fig. 12", f"DSACK-TA causes more than 0.4% of packets to encounter "
            f"timeouts (k = {TABLE3_K:g})", "> 0.4 %", {"TA": ta12}, None,
            size=Near("TA's timeouts per packet", lambda k: ta12, 0.004, bound())),
        _st("fa95_fewer", "Fig. 12", "DSACK-FA at 95% has far fewer timeouts than DSACK-TA",
            "", {"FA 95%": to12_fa.get(95), "TA": ta12},
            lambda k: to12_fa[95] < 0.5 * ta12, test="'far fewer': under half"),
        _st("fa_rises", "Fig. 12", "under DSACK-FA, many more packets encounter timeouts as the "
            "FA ratio decreases below 95%", "", {"FA": to12_fa},
            lambda k: to12_fa[min(to12_fa)] > to12_fa[max(to12_fa)],
            test="more at the lowest ratio than at 95 %"),
        _st("faes_low", "Fig. 12", "The incidence of timeouts under DSACK-FAES always remains "
            "low", "", {"FAES": to12_faes, "TA": ta12},
            lambda k: all(x < ta12 for x in to12_faes.values()),
            test="'low': below TA's at every ratio"),
        _st("taes_matches", "Fig. 13", "DSACK-TAES matches the best throughputs achieved by "
            "DSACK-FAES across all FA ratio values, and even DSACK-HG", "the best FAES, HG",
            {"TAES": taes13, "FAES": t13_faes, "HG": hg13},
            lambda k: taes13 >= max(t13_faes.values()) or taes13 >= hg13,
            test="TAES at or above the best FAES or HG",
            size=Near("TAES / the better of the best FAES and HG",
                      lambda k: taes13 / max(max(t13_faes.values()), hg13), 1.0, absolute())),
    ]
    return out


def _table3(v: View) -> list[Statement]:
    rto = {s: v.table("3", s, "rto_mean_s") for s in ("sack", "dsack", "rrtcp", "rrtcp-taes",
                                                      "rrtcp-hg")}
    rto["rrtcp-fa"] = v.table("3", "rrtcp-fa", "rto_mean_s", fa_ratio=0.95)
    names = {"sack": "SACK", "dsack": "DSACK-R", "rrtcp-fa": "FA 95%", "rrtcp": "TA",
             "rrtcp-taes": "TAES", "rrtcp-hg": "HG"}
    named = {names[s]: x for s, x in rto.items()}
    out = [_st("order", "Table 3", "Without additional samples, the average RTO used by "
               "DSACK-TA is much shorter than that used by DSACK-FA with an FA ratio of 95% "
               "(top priority: TA < HG < FA ~ TAES)",
               ", ".join(f"{names[s]} {TABLE3_PAPER[s]:g}" for s in names), named,
               lambda k: rto["rrtcp"] < rto["rrtcp-hg"] < min(rto["rrtcp-fa"],
                                                              rto["rrtcp-taes"]),
               test="TA < HG < the smaller of FA at 95 % and TAES")]
    for s in names:
        out.append(_st(f"rto_{s}", "Table 3", f"(Table 3) mean RTO of {names[s]}: "
                       f"{TABLE3_PAPER[s]:g} s", f"{TABLE3_PAPER[s]:g} s",
                       {"mean RTO (s)": rto[s]}, None,
                       size=Near("mean RTO (s)", lambda k: k["mean RTO (s)"],
                                 TABLE3_PAPER[s], relative())))
    return out


# ------------------------------------------------------------------------------- Figs. 14-19
def _fig14_16(v: View) -> list[Statement]:
    senders = ("dsack", "rrtcp-fa", "rrtcp", "rrtcp-taes")
    fig14 = {s: v.curve("14", s) for s in senders}
    fig14 = {s: c for s, c in fig14.items() if c}
    zero, most = {}, {}
    for s in fig14:
        runs = v.seeds("14", s)
        if len(runs) > 1:
            top = max(runs)
            zero.update({(s, seed): x for seed, x in runs[0.0].items()} if 0.0 in runs else {})
            most.update({(s, seed): x for seed, x in runs[top].items()})
    out = [_alike("no_effect", "Fig. 14", "reordered ACKs have no significant negative effect "
                  "on the sender's throughput", "", "most ACKs delayed", most,
                  "no ACK delayed", zero,
                  shown={s: _pct(c) for s, c in fig14.items()} or {"senders": None},
                  note="runs paired by (sender, seed), at the most ACKs delayed against none",
                  significance=True)]
    gains: dict[str, dict] = {}
    runs_gain: dict[str, dict] = {}
    for panel in v.panels:
        if panel.number == "15":
            for style in dict.fromkeys(c.style for c in panel.curves):
                sack = v.curve("15", "sack", style=style)
                ta = v.curve("15", "rrtcp", style=style)
                gains[style] = {x: ta[x] / sack[x] for x in _common(sack, ta)}
                s_runs, t_runs = v.seeds("15", "sack", style=style), \
                    v.seeds("15", "rrtcp", style=style)
                runs_gain[style] = {(x, seed): t_runs[x][seed] / s_runs[x][seed]
                                    for x in _common(s_runs, t_runs)
                                    for seed in set(s_runs[x]) & set(t_runs[x])}
    mean_gain = {d: statistics.fmean(g.values()) for d, g in gains.items() if g}
    least = min(mean_gain, key=mean_gain.get) if mean_gain else None
    most_d = max(mean_gain, key=mean_gain.get) if mean_gain else None
    out.append(_alike(
        "similar_gains", "Fig. 15", "across all reordering length distributions simulated, "
        "DSACK-TA achieves similar throughput gains over SACK", "",
        f"gain ({most_d})", runs_gain.get(most_d, {}), f"gain ({least})",
        runs_gain.get(least, {}), what="TA / SACK",
        shown={f"TA/SACK {d}": _pct(g) for d, g in gains.items()} or {"gains": None},
        note="the distributions with the largest and smallest mean gain, their per-run gains "
             "paired by (level, seed): if these two are alike, every two are",
        order=(lambda k: all(g > 1 for gs in gains.values() for g in gs.values()),
               "TA above SACK at every level, for every distribution")))
    sack, ta = v.curve("16", "sack"), v.curve("16", "rrtcp")
    gaps = [x for x in _common(sack, ta) if x > 0]
    out += [
        _st("significant", "Fig. 16", "DSACK-TA-MEAN continues to offer significantly increased "
            "throughput over SACK", "", {"TA": ta, "SACK": sack},
            lambda k: bool(gaps) and all(ta[x] >= 2 * sack[x] for x in gaps),
            test="'significantly': at least twice SACK's at every delay"),
        _st("diminish", "Fig. 16", "the performance advantage of DSACK-TA-MEAN over SACK begins "
            "to diminish at delays longer than 100 ms", "", {"TA": ta, "SACK": sack},
            lambda k: 100.0 in ta and max(ta) > 100.0
            and ta[max(ta)] - sack[max(ta)] < ta[100.0] - sack[100.0],
            test="TA - SACK (B/s) smaller at the longest delay than at 100 ms"),
        _st("sevenfold", "Fig. 16", "Even with limited transmit of one window and a path RTT "
            "difference of two 100 ms RTTs (200 ms), DSACK-TA-MEAN offers a seven-fold "
            "throughput improvement over SACK", "7 times",
            {"TA/SACK at 200 ms": ta[200.0] / sack[200.0] if 200.0 in gaps else None},
            lambda k: k["TA/SACK at 200 ms"] > 1, test="TA above SACK at 200 ms",
            size=Near("TA / SACK at 200 ms", lambda k: k["TA/SACK at 200 ms"], 7, relative())),
    ]
    return out


BL = ("dsack", "dsack-inc", "dsack-avg", "dsack-ewma", "dsack-timedel", "dsack-timeinc")


def _fig17_18(v: View) -> list[Statement]:
    tput = {s: v.curve("17", s) for s in ("sack", "rrtcp") + BL}
    fr = {s: v.curve("18", s) for s in ("rrtcp",) + BL}
    tput = {s: c for s, c in tput.items() if c}
    fr = {s: c for s, c in fr.items() if c}
    xs = _common(*tput.values()) if tput else []
    lo, hi = (xs[0], xs[-1]) if len(xs) > 1 else (None, None)
    dsacks = [s for s in tput if s != "sack"]
    best = max(dsacks, key=lambda s: tput[s][lo]) if lo is not None and dsacks else None
    worst = min(dsacks, key=lambda s: tput[s][lo]) if lo is not None and dsacks else None
    run_best = (v.seeds("17", best).get(lo) or {}) if best else {}
    run_worst = (v.seeds("17", worst).get(lo) or {}) if worst else {}
    return [
        _st("small_better", "Fig. 17", "when kP is small, all schemes perform similarly better "
            "than SACK", "", {s: c.get(lo) for s, c in tput.items()} if lo else {"points": None},
            lambda k: "sack" in tput and all(tput[s][lo] > tput["sack"][lo] for s in dsacks),
            test="every DSACK sender above SACK at the smallest mean delay"),
        _alike("small_similar", "Fig. 17", "when kP is small, all schemes perform similarly",
               "", f"best ({best})", run_best, f"worst ({worst})", run_worst,
               shown={"smallest mean delay (s)": lo},
               note="the DSACK senders with the highest and lowest mean at the smallest mean "
                    "delay, their runs paired by seed: if these two are alike, every two are"),
        _st("ta_pulls_ahead", "Fig. 17", "as kP increases, DSACK-TA achieves increasingly higher "
            "throughput as compared with all other schemes we simulated", "",
            {s: {lo: c.get(lo), hi: c.get(hi)} for s, c in tput.items()} if hi else
            {"points": None},
            lambda k: "rrtcp" in tput and all(tput["rrtcp"][hi] >= c[hi] for c in tput.values())
            and tput["rrtcp"][hi] - max(c[hi] for s, c in tput.items() if s != "rrtcp")
            > tput["rrtcp"][lo] - max(c[lo] for s, c in tput.items() if s != "rrtcp"),
            test="best at the longest mean delay, by more than at the shortest"),
        _st("ta_fr_zero", "Fig. 18", "the fraction of fast retransmits suffered by DSACK-TA "
            "hovers around 0%", "about 0 %", {"TA": fr.get("rrtcp")}, None,
            size=Near("TA's largest fraction of fast retransmits",
                      lambda k: max(fr["rrtcp"].values()), 0.0, absolute(0.0005)),
            note="'around 0 %': within 0.05 % of packets (the tolerance of a fraction this "
                 "small; 5 points would say nothing)"),
        _st("bl_suffer", "Fig. 18", "the other schemes suffer increasingly from fast "
            "retransmits as the mean packet delay increases", "",
            {s: c for s, c in fr.items() if s != "rrtcp"} or {"BL": None},
            lambda k: all(c[max(c)] > c[min(c)] for s, c in fr.items() if s != "rrtcp"),
            test="each more at the longest mean delay than at the shortest"),
    ]


def _table4_fig19(v: View) -> list[Statement]:
    pk = {(s, b): v.table("4", s, "delivered_packets", bursts=b)
          for s in ("dsack-inc", "rrtcp") for b in (0.0, 0.0002)}
    frr = {(s, b): v.table("4", s, "fr_ratio_pct", bursts=b)
           for s in ("dsack-inc", "rrtcp") for b in (0.0, 0.0002)}
    seeds = {(s, b): v.table("4", s, "by_seed", bursts=b)
             for s in ("dsack-inc", "rrtcp") for b in (0.0, 0.0002)}
    table = v.tables.get("4")
    duration = table.rows[0][1].duration if table and table.rows else 1000.0
    scale = 1000.0 / duration
    label = {"dsack-inc": "BL-INC", "rrtcp": "TA"}
    out = [_alike("bl_like_ta", "Table 4", "we see that the throughput of DSACK-BL-INC is "
                  "comparable to that of DSACK-TA when there aren't bursty packet drops",
                  "97,184 and 103,770 packets", "BL-INC", seeds[("dsack-inc", 0.0)] or {},
                  "TA", seeds[("rrtcp", 0.0)] or {},
                  shown={"BL-INC packets": pk[("dsack-inc", 0.0)],
                         "TA packets": pk[("rrtcp", 0.0)]})]
    out.append(_st(
        "bursts_cost_bl", "Table 4", "After we introduce a small fraction of bursty packet drops, "
        "however, the throughput of DSACK-BL-INC suffers more than that of DSACK-TA",
        "BL-INC 97,184 -> 60,708, TA 103,770 -> 81,916 packets",
        {f"{label[s]} {'drops' if b else 'no drops'}": x for (s, b), x in pk.items()},
        lambda k: pk[("rrtcp", 0.0002)] / pk[("rrtcp", 0.0)]
        > pk[("dsack-inc", 0.0002)] / pk[("dsack-inc", 0.0)],
        test="TA keeps a larger share of its throughput with drops",
        size=Near("BL-INC's share kept / TA's", lambda k: (
            pk[("dsack-inc", 0.0002)] / pk[("dsack-inc", 0.0)])
            / (pk[("rrtcp", 0.0002)] / pk[("rrtcp", 0.0)]),
            (60708 / 97184) / (81916 / 103770), absolute())))
    out.append(_st(
        "ta_higher", "Table 4", "Thus, DSACK-TA suffers fewer false fast retransmits and offers "
        "higher throughput", "TA 81,916 against BL-INC 60,708 packets with drops",
        {"TA drops": pk[("rrtcp", 0.0002)], "BL-INC drops": pk[("dsack-inc", 0.0002)]},
        lambda k: k["TA drops"] > k["BL-INC drops"], test="TA more packets with bursty drops",
        size=Near("TA / BL-INC packets with drops", lambda k: k["TA drops"] / k["BL-INC drops"],
                  81916 / 60708, relative())))
    out.append(_st(
        "bl_more_fr", "Table 4", "because DSACK-BL-INC experiences more false fast "
        "retransmits", "FR ratio % BL-INC 0.13 / 0.48, TA 0.03 / 0.19",
        {f"{label[s]} FR % {'drops' if b else 'no drops'}": x for (s, b), x in frr.items()},
        lambda k: frr[("dsack-inc", 0.0)] > frr[("rrtcp", 0.0)]
        and frr[("dsack-inc", 0.0002)] > frr[("rrtcp", 0.0002)],
        test="BL-INC's FR ratio above TA's with and without drops"))
    for (s, b), (packets, ratio) in ((k, TABLE4_PAPER[(k[0], bool(k[1]))]) for k in pk):
        where = "with bursty drops" if b else "without drops"
        out.append(_st(f"{s}_{'drops' if b else 'nodrops'}", "Table 4",
                       f"(Table 4) {label[s]} {where}: {packets:,} packets, FR ratio "
                       f"{ratio} %", f"{packets:,} packets",
                       {"packets in 1000 s": pk[(s, b)] * scale if pk[(s, b)] else None},
                       None, size=Near("packets in 1000 s", lambda k: k["packets in 1000 s"],
                                       packets, relative()),
                       note="" if scale == 1 else f"scaled from {duration:g} s runs"))
        out.append(_st(f"{s}_{'drops' if b else 'nodrops'}_fr", "Table 4",
                       f"(Table 4) {label[s]} {where}: FR ratio {ratio} %", f"{ratio} %",
                       {"FR ratio %": frr[(s, b)]}, None,
                       size=Near("FR ratio %", lambda k: k["FR ratio %"], ratio,
                                 absolute(0.05)),
                       note="fast retransmits per 100 packets delivered, within 0.05 (of a "
                            "per cent)"))
    runs = {r["spec"].variant: r["series"] for r in v.traces.get("19") or []}
    resets = _after_timeouts(runs.get("dsack-inc"))
    out += [
        _st("bl_resets", "Fig. 19", "Each timeout resulting from a drop burst will cause "
            "DSACK-BL-INC to reset dupthresh to 3 ... Thereafter, it linearly increases "
            "dupthresh as it encounters reordering", "",
            {"BL-INC dupthresh after timeouts": resets or None},
            lambda k: all(d <= 4 for d in resets) and max(r[3] for r in runs["dsack-inc"]) > 4,
            test="at most 4 at the sample after every timeout, above 4 at some point"),
        _st("ta_steady", "Fig. 19", "DSACK-TA keeps dupthresh around the optimal value", "",
            {"TA": _cv(runs.get("rrtcp")), "BL-INC": _cv(runs.get("dsack-inc"))},
            lambda k: _cv(runs["rrtcp"]) < _cv(runs["dsack-inc"]),
            test="a smaller coefficient of variation of dupthresh over the run than BL-INC's"),
    ]
    return out


def _after_timeouts(series: list | None) -> list[int]:
    """dupthresh at each sample that follows a timeout (the series' timeout count grew)."""
    if not series:
        return []
    return [b[3] for a, b in zip(series, series[1:]) if b[6] > a[6]]


def _cv(series: list | None) -> float | None:
    if not series or len(series) < 2:
        return None
    values = [r[3] for r in series]
    mean = statistics.fmean(values)
    return statistics.pstdev(values) / mean if mean else None


def checks_of(view: View) -> list[Statement]:
    """Every statement of [RRTCP] §2.1 and §5 on its figures and tables, in [RRTCP]'s order (§5.7's
    sweep is ``sweep57.sweep_checks``)."""
    return (_fig1(view) + _fig4_5(view) + _fig6_7(view) + _fig8_9(view) + _fig10_13(view)
            + _table3(view) + _fig14_16(view) + _fig17_18(view) + _table4_fig19(view))
