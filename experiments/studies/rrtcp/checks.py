"""000's statements about each figure and table (digest 000 §4, "What to check"), each read
off our numbers: holds, does not hold, or not run (the sweep did not run the points it needs).

A statement is checked as 000 words it; where 000 gives a number ("over 71 %", "seven-fold",
"more than 0.4 %") that number is the test. Where it gives a shape ("falls sharply",
"comparable", "about 25") the test is stated beside it in ``claim``, with the tolerance it
allows, so a reader can disagree with the reading and not be misled by it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from experiments.studies.rrtcp.report import curve_values, point_value
from experiments.studies.rrtcp.evaluation import TABLE3_K, Panel, TableSpec

__all__ = ["Check", "checks_of", "View"]


@dataclass
class Check:
    item: str                   # "Fig. 4", "Table 3"
    claim: str                  # 000's statement, and how it is tested
    ours: str                   # our numbers
    ok: bool | None             # None: not run

    def row(self) -> dict:
        return {"item": self.item, "claim": self.claim, "ours": self.ours,
                "ok": {True: "ok", False: "not ok", None: "not run"}[self.ok]}


class View:
    """What the checks read: the points, the figures' curves, the tables and the traces."""

    def __init__(self, points: dict, panels: Sequence[Panel], tables: Sequence[TableSpec],
                 traces: dict[str, list[dict]]):
        self.points, self.panels, self.traces = points, panels, traces
        self.tables = {t.number: t for t in tables}

    def curve(self, number: str, variant: str, metric: str | None = None, *, style: str = "",
              label: str | None = None) -> dict[float, float]:
        return curve_values(self.points, self.panels, number, variant, metric, style=style,
                            label=label)

    def ref(self, number: str, variant: str, metric: str | None = None) -> float | None:
        """A horizontal reference line's value (a sender at one point, e.g. Fig. 8's TA)."""
        values = self.curve(number, variant, metric)
        return values.get(0.0)

    def table(self, number: str, variant: str, metric: str, **match) -> float | None:
        table = self.tables.get(number)
        for _, key in table.rows if table else ():
            if key.variant == variant and all(getattr(key, k) == v for k, v in match.items()):
                return point_value(self.points, key, metric)
        return None


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_fmt(k)}: {_fmt(x)}" for k, x in v.items()) + "}"
    return str(v)


def _check(item: str, claim: str, values: dict, test: Callable[..., bool]) -> Check:
    """``test(**values)`` when every value is there (a number, or a non-empty curve)."""
    missing = [k for k, v in values.items() if v is None or v == {}]
    if missing:
        return Check(item, claim, "not run: " + ", ".join(missing), None)
    ours = "; ".join(f"{k} {_fmt(v)}" for k, v in values.items())
    return Check(item, claim, ours, bool(test(**values)))


def _common(*curves: dict) -> list[float]:
    """The x values every curve has, sorted."""
    xs = set(curves[0]) if curves else set()
    for c in curves[1:]:
        xs &= set(c)
    return sorted(xs)


def _pct(d: dict) -> dict:
    return {f"{x:g}%": v for x, v in d.items()}     # x in per cent already


# ------------------------------------------------------------------------------- Fig. 1
def _fig1(v: View) -> list[Check]:
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
        _check("Fig. 1", "A cluster of duplicate ACKs triggers a fast retransmit of the delayed "
               "packet and halves the window (test: cwnd after it at most 0.55 of before)",
               {"fast retransmit at (s)": fr, "cwnd before (pkts)": before,
                "cwnd after (pkts)": halved}, lambda **k: halved <= 0.55 * before),
        _check("Fig. 1", "The DSACK arrives about 0.45 s after the fast retransmit (test: "
               "0.35-0.55 s)", {"DSACK at (s)": dsack, "fast retransmit at (s)": fr},
               lambda **k: 0.35 <= dsack - fr <= 0.55),
        _check("Fig. 1", "The sender restores its old window of sixteen packets (test: cwnd "
               "before the fast retransmit 16 packets, at least that just after the DSACK)",
               {"cwnd before (pkts)": before, "cwnd after the DSACK (pkts)": restored},
               lambda **k: round(before) == 16 and restored >= before),
    ]


# ------------------------------------------------------------------------------- Figs. 4-5
def _fig4_5(v: View) -> list[Check]:
    sack, fa, ta = (v.curve("4", s) for s in ("sack", "rrtcp-fa", "rrtcp"))
    rel_ta = v.curve("4", "rrtcp", "relative")
    ideal = v.curve("4", "sack", label="SACK-NODELAY").get(0.0)
    others = {s: v.curve("4", s) for s in ("sack", "dsack", "rrtcp-fa", "rrtcp-fa-rtx")}
    xs = _common(sack, fa, ta)
    top = max(rel_ta) if rel_ta else None
    out = [
        _check("Fig. 4", "SACK's throughput drops rapidly as more packets are delayed (test: "
               "falls at every step, below half of SACK-NODELAY at the highest level)",
               {"SACK": _pct(sack), "SACK-NODELAY": ideal},
               lambda **k: all(a >= b for a, b in zip(list(sack.values()),
                                                      list(sack.values())[1:]))
               and sack[max(sack)] < 0.5 * ideal),
        _check("Fig. 4", "DSACK-FA and DSACK-TA do better than SACK at every level (top "
               "priority: SACK << FA < TA)", {"SACK": _pct(sack), "FA": _pct(fa), "TA": _pct(ta)},
               lambda **k: all(fa[x] > sack[x] and ta[x] > fa[x] for x in xs)),
        _check("Fig. 4", "DSACK-TA performs best (test: at least every other sender of the "
               "figure but TA-RTX, which 000 plots on top of it, at every level)",
               {"TA": _pct(ta), **{s: _pct(c) for s, c in others.items() if c}},
               lambda **k: all(ta[x] >= c[x] for c in others.values() for x in c if x in ta)),
        _check("Fig. 4", "DSACK-TA keeps over 71% of SACK-NODELAY's throughput at 30% delayed "
               "(at the highest level run)", {"TA relative": rel_ta.get(top) if top else None,
                                               "at": top},
               lambda **k: top >= 30 and rel_ta[top] > 0.71),
    ]
    ta_rtx, fa_rtx = v.curve("4", "rrtcp-rtx"), v.curve("4", "rrtcp-fa-rtx")
    out.append(_check("Fig. 4", "DSACK-TA-MEAN and DSACK-TA-RTX plot atop one another (test: "
                      "within 2% at every level)", {"TA-MEAN": _pct(ta), "TA-RTX": _pct(ta_rtx)},
                      lambda **k: all(abs(ta[x] - ta_rtx[x]) <= 0.02 * ta[x]
                                      for x in _common(ta, ta_rtx))))
    out.append(_check("Fig. 4", "DSACK-FA-MEAN performs a bit better than DSACK-FA-RTX (test: "
                      "higher on average over the levels)", {"FA-MEAN": _pct(fa),
                                                             "FA-RTX": _pct(fa_rtx)},
                      lambda **k: statistics.fmean(fa[x] for x in _common(fa, fa_rtx))
                      > statistics.fmean(fa_rtx[x] for x in _common(fa, fa_rtx))))
    ffr_fa, ffr_ta = v.curve("5", "rrtcp-fa"), v.curve("5", "rrtcp")
    fa_end = v.curve("4", "rrtcp", "fa_ratio_end")
    timeouts = v.curve("4", "rrtcp", "timeouts")
    out += [
        _check("Fig. 5", "DSACK-FA's false fast retransmit ratio is less than 10%",
               {"FA": _pct(ffr_fa)}, lambda **k: all(r < 0.10 for r in ffr_fa.values())),
        _check("Fig. 5", "DSACK-TA prevents still more false fast retransmits (test: ratio at "
               "most FA's at every level)", {"FA": _pct(ffr_fa), "TA": _pct(ffr_ta)},
               lambda **k: all(ffr_ta[x] <= ffr_fa[x] for x in _common(ffr_fa, ffr_ta))),
        _check("Fig. 5", "With virtually no RTOs, DSACK-TA adjusts the FA ratio to 99% (test: "
               "its FA ratio at the end of the run at least 0.97, under one timeout per run, "
               "at the highest level)", {"TA final FA ratio": _pct(fa_end),
                                         "TA timeouts per run": _pct(timeouts)},
               lambda **k: fa_end[max(fa_end)] >= 0.97 and timeouts[max(timeouts)] < 1),
    ]
    return out


# ------------------------------------------------------------------------------- Figs. 6-9
def _fig6_7(v: View) -> list[Check]:
    sack, fa, ta = (v.curve("6", s) for s in ("sack", "rrtcp-fa", "rrtcp"))
    xs = _common(sack, fa, ta)
    lo, hi = (xs[0], xs[-1]) if len(xs) > 1 else (None, None)
    out = [
        _check("Fig. 6", "The throughput of DSACK-TA and DSACK-FA decreases sharply as the loss "
               "rate increases (test: at the highest drop rate below half of no drops)",
               {"FA": _pct(fa), "TA": _pct(ta)},
               lambda **k: hi is not None and fa[hi] < 0.5 * fa[lo] and ta[hi] < 0.5 * ta[lo]),
        _check("Fig. 6", "The difference between DSACK and SACK diminishes as drops grow (test: "
               "TA/SACK lower at the highest drop rate than without drops)",
               {"SACK": _pct(sack), "TA": _pct(ta)},
               lambda **k: hi is not None and ta[hi] / sack[hi] < ta[lo] / sack[lo]),
    ]
    sack, dsack, fa, ta = (v.curve("7", s) for s in ("sack", "dsack", "rrtcp-fa", "rrtcp"))
    xs = _common(sack, dsack, fa, ta)
    fr_fa, fr_ta = v.curve("7", "rrtcp-fa", "fr_fraction"), v.curve("7", "rrtcp", "fr_fraction")
    out += [
        _check("Fig. 7", "DSACK-TA performs best at every link delay",
               {"TA": ta, "FA": fa, "DSACK-R": dsack, "SACK": sack},
               lambda **k: all(ta[x] >= max(fa[x], dsack[x], sack[x]) for x in xs)),
        _check("Fig. 7", "DSACK-FA causes an even smaller percentage of fast retransmits than "
               "DSACK-TA (test: at every link delay)", {"FA": fr_fa, "TA": fr_ta},
               lambda **k: all(fr_fa[x] <= fr_ta[x] for x in _common(fr_fa, fr_ta))),
        _check("Fig. 7", "The performance of DSACK-FA approaches DSACK-TA's as the link delay "
               "increases (test: (TA - FA)/TA smaller at the longest delay than the shortest)",
               {"TA": ta, "FA": fa},
               lambda **k: len(xs) > 1 and (ta[xs[-1]] - fa[xs[-1]]) / ta[xs[-1]]
               < (ta[xs[0]] - fa[xs[0]]) / ta[xs[0]]),
    ]
    return out


def _fig8_9(v: View) -> list[Check]:
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
        _check("Fig. 8a", "Timeouts decrease rapidly as the FA ratio falls from 95% to 60%, then "
               "only slightly (top priority: a knee near 60%; test: the fall from 95% to 60% "
               "more than twice the fall below 60%)", {"FA timeouts per packet": to,
                                                       "knee at 60% run": knee},
               lambda **k: to[95] - to[60] > 2 * max(0.0, to[60] - to[low])),
        _check("Fig. 8b", "As the FA ratio decreases, the fraction of fast retransmits increases "
               "(test: higher at the lowest ratio than at 95%)", {"FA fast retransmits": fr},
               lambda **k: fr[min(fr)] > fr[max(fr)]),
        _check("Fig. 8c", "DSACK-TA achieves a higher throughput than DSACK-R and than DSACK-FA "
               "at 90%", {"TA": ta, "DSACK-R": dsack, "FA 90%": fa90},
               lambda **k: ta > dsack and ta > fa90),
        _check("Fig. 8c", "DSACK-TA achieves approximately the maximum throughput among all "
               "fixed FA ratios (top priority; test: at least 95% of the best)",
               {"TA": ta, "FA fixed": tput}, lambda **k: ta >= 0.95 * max(tput.values())),
        _check("Fig. 9", "DSACK-TA's FA ratio oscillates about 70% (60% in §5.2's text; test: "
               "its mean over the runs within 0.1 of 60-70%: [0.5, 0.8])",
               {"TA mean FA ratio": fa_mean}, lambda **k: 0.5 <= fa_mean <= 0.8),
        _check("Fig. 9", "dupthresh oscillates around 25 (test: its mean over the runs within "
               "30% of 25)", {"TA mean dupthresh": dup_mean},
               lambda **k: 17.5 <= dup_mean <= 32.5),
    ]


# ------------------------------------------------------------------------------- Figs. 10-13
def _fig10_13(v: View) -> list[Check]:
    fa, ta, taes, hg = (v.curve("10", s) for s in ("rrtcp-fa", "rrtcp", "rrtcp-taes",
                                                   "rrtcp-hg"))
    to_fa, to_ta, to_taes = (v.curve("11", s) for s in ("rrtcp-fa", "rrtcp", "rrtcp-taes"))
    xs = _common(fa, ta)
    beyond = [x for x in xs if x > 1.1 + 1e-9]
    before = [x for x in xs if x <= 1.1 + 1e-9]
    out = [
        _check("Fig. 10", "Beyond a mean delay of 1.1 s (k = 5.5) DSACK-TA's throughput drops "
               "below DSACK-FA's, at or above it before (top priority)",
               {"TA": ta, "FA": fa, "means beyond 1.1 s run": beyond or None},
               lambda **k: all(ta[x] < fa[x] for x in beyond)
               and all(ta[x] >= fa[x] for x in before)),
        _check("Fig. 11", "DSACK-TA's timeouts exceed DSACK-FA's beyond a mean delay of 1.1 s",
               {"TA": to_ta, "FA": to_fa, "means beyond 1.1 s run": beyond or None},
               lambda **k: all(to_ta[x] > to_fa[x] for x in beyond)),
        _check("Figs. 10-11", "DSACK-TAES maintains a low incidence of timeouts and high "
               "throughput (top priority: TAES fixes TA; test: beyond 1.1 s fewer timeouts and "
               "more throughput than TA)", {"TAES": taes, "TA": ta, "TAES timeouts": to_taes,
                                            "means beyond 1.1 s run": beyond or None},
               lambda **k: all(to_taes[x] < to_ta[x] and taes[x] > ta[x] for x in beyond)),
        _check("Figs. 10-11", "DSACK-TAES is comparable to DSACK-HG (test: within 10% at every "
               "mean delay)", {"TAES": taes, "HG": hg},
               lambda **k: all(abs(taes[x] - hg[x]) <= 0.1 * hg[x] for x in _common(taes, hg))),
    ]
    to12_fa, to12_faes = v.curve("12", "rrtcp-fa"), v.curve("12", "rrtcp-faes")
    ta12 = v.ref("12", "rrtcp")
    t13_faes, taes13, hg13 = v.curve("13", "rrtcp-faes"), v.ref("13", "rrtcp-taes"), \
        v.ref("13", "rrtcp-hg")
    out += [
        _check("Fig. 12", "DSACK-TA causes more than 0.4% of packets to encounter timeouts "
               f"(k = {TABLE3_K:g})", {"TA": ta12}, lambda **k: ta12 > 0.004),
        _check("Fig. 12", "DSACK-FA at 95% has far fewer timeouts than DSACK-TA (test: under "
               "half)", {"FA 95%": to12_fa.get(95), "TA": ta12},
               lambda **k: to12_fa[95] < 0.5 * ta12),
        _check("Fig. 12", "Under DSACK-FA many more packets time out as the FA ratio falls below "
               "95% (test: more at the lowest ratio)", {"FA": to12_fa},
               lambda **k: to12_fa[min(to12_fa)] > to12_fa[max(to12_fa)]),
        _check("Fig. 12", "DSACK-FAES's timeouts always remain low (test: below TA's at every "
               "ratio)", {"FAES": to12_faes, "TA": ta12},
               lambda **k: all(x < ta12 for x in to12_faes.values())),
        _check("Fig. 13", "DSACK-TAES matches the best throughput of DSACK-FAES over the FA "
               "ratios, and DSACK-HG (test: at least 95% of each)",
               {"TAES": taes13, "FAES": t13_faes, "HG": hg13},
               lambda **k: taes13 >= 0.95 * max(t13_faes.values()) and taes13 >= 0.95 * hg13),
    ]
    return out


def _table3(v: View) -> list[Check]:
    rto = {s: v.table("3", s, "rto_mean_s") for s in ("sack", "dsack", "rrtcp", "rrtcp-taes",
                                                      "rrtcp-hg")}
    rto["rrtcp-fa"] = v.table("3", "rrtcp-fa", "rto_mean_s", fa_ratio=0.95)
    names = {"sack": "SACK", "dsack": "DSACK-R", "rrtcp-fa": "FA 95%", "rrtcp": "TA",
             "rrtcp-taes": "TAES", "rrtcp-hg": "HG"}
    named = {names[s]: x for s, x in rto.items()}
    return [
        _check("Table 3", "Mean RTOs ordered TA < HG < FA ~ TAES (top priority; test: FA and "
               "TAES within 20% of each other, both above HG, HG above TA)", named,
               lambda **k: rto["rrtcp"] < rto["rrtcp-hg"] < min(rto["rrtcp-fa"],
                                                                 rto["rrtcp-taes"])
               and abs(rto["rrtcp-fa"] - rto["rrtcp-taes"]) <= 0.2 * rto["rrtcp-fa"]),
        _check("Table 3", "SACK and DSACK-R keep the 1 s minimum RTO (test: at most 1.05 s)",
               {"SACK": rto["sack"], "DSACK-R": rto["dsack"]},
               lambda **k: rto["sack"] <= 1.05 and rto["dsack"] <= 1.05),
    ]


# ------------------------------------------------------------------------------- Figs. 14-19
def _fig14_16(v: View) -> list[Check]:
    fig14 = {s: v.curve("14", s) for s in ("dsack", "rrtcp-fa", "rrtcp", "rrtcp-taes")}
    fig14 = {s: c for s, c in fig14.items() if c}
    out = [_check("Fig. 14", "Reordered ACKs have no significant effect on throughput (test: "
                  "every sender within 10% of its throughput without delayed ACKs at the most "
                  "ACKs delayed)", {s: _pct(c) for s, c in fig14.items()} or {"senders": None},
                  lambda **k: all(abs(c[max(c)] - c[0.0]) <= 0.1 * c[0.0]
                                  for c in fig14.values()))]
    gains: dict[str, dict] = {}
    for panel in v.panels:
        if panel.number == "15":
            for style in dict.fromkeys(c.style for c in panel.curves):
                sack = v.curve("15", "sack", style=style)
                ta = v.curve("15", "rrtcp", style=style)
                gains[style] = {x: ta[x] / sack[x] for x in _common(sack, ta)}
    out.append(_check("Fig. 15", "DSACK-TA achieves similar throughput gains over SACK for "
                      "every delay distribution (test: TA above SACK everywhere, the smallest "
                      "gain at each level at least half the largest)",
                      {f"TA/SACK {d}": _pct(g) for d, g in gains.items()} or {"gains": None},
                      lambda **k: all(g > 1 for gs in gains.values() for g in gs.values())
                      and all(min(gs[x] for gs in gains.values())
                              >= 0.5 * max(gs[x] for gs in gains.values())
                              for x in _common(*gains.values()))))
    sack, ta = v.curve("16", "sack"), v.curve("16", "rrtcp")
    gaps = [x for x in _common(sack, ta) if x > 0]
    out += [
        _check("Fig. 16", "DSACK-TA-MEAN offers significantly increased throughput over SACK "
               "(test: at least twice SACK's at every delay)", {"TA": ta, "SACK": sack},
               lambda **k: gaps and all(ta[x] >= 2 * sack[x] for x in gaps)),
        _check("Fig. 16", "The advantage begins to diminish at delays longer than 100 ms (more "
               "than one window; test: TA lower at the longest delay than at 100 ms)",
               {"TA": ta}, lambda **k: 100.0 in ta and max(ta) > 100.0
               and ta[max(ta)] < ta[100.0]),
        _check("Fig. 16", "At 200 ms DSACK-TA-MEAN offers a seven-fold throughput improvement "
               "over SACK (test: at least 7 times)",
               {"TA/SACK at 200 ms": ta[200.0] / sack[200.0] if 200.0 in gaps else None},
               lambda **k: ta[200.0] / sack[200.0] >= 7),
    ]
    return out


BL = ("dsack", "dsack-inc", "dsack-avg", "dsack-ewma", "dsack-timedel", "dsack-timeinc")


def _fig17_18(v: View) -> list[Check]:
    tput = {s: v.curve("17", s) for s in ("sack", "rrtcp") + BL}
    fr = {s: v.curve("18", s) for s in ("rrtcp",) + BL}
    tput = {s: c for s, c in tput.items() if c}
    fr = {s: c for s, c in fr.items() if c}
    xs = _common(*tput.values()) if tput else []
    lo, hi = (xs[0], xs[-1]) if len(xs) > 1 else (None, None)
    dsacks = [s for s in tput if s != "sack"]
    return [
        _check("Fig. 17", "When kP is small all schemes perform similarly better than SACK "
               "(test: every DSACK sender above SACK and within 10% of the best at the "
               "smallest mean delay)", {s: c.get(lo) for s, c in tput.items()} if lo else
               {"points": None},
               lambda **k: "sack" in tput and all(tput[s][lo] > tput["sack"][lo] for s in dsacks)
               and min(tput[s][lo] for s in dsacks) >= 0.9 * max(tput[s][lo] for s in dsacks)),
        _check("Fig. 17", "As kP increases DSACK-TA achieves increasingly higher throughput than "
               "all other schemes (test: best at the longest mean delay, by more than at the "
               "shortest)", {s: {lo: c.get(lo), hi: c.get(hi)} for s, c in tput.items()}
               if hi else {"points": None},
               lambda **k: "rrtcp" in tput and all(tput["rrtcp"][hi] >= c[hi] for c in
                                                   tput.values())
               and tput["rrtcp"][hi] - max(c[hi] for s, c in tput.items() if s != "rrtcp")
               > tput["rrtcp"][lo] - max(c[lo] for s, c in tput.items() if s != "rrtcp")),
        _check("Fig. 18", "DSACK-TA's fraction of fast retransmits hovers around 0% (test: at "
               "most 0.05% of packets at every mean delay)", {"TA": fr.get("rrtcp")},
               lambda **k: all(x <= 0.0005 for x in fr["rrtcp"].values())),
        _check("Fig. 18", "The Blanton-Allman schemes suffer increasingly from fast retransmits "
               "as the mean delay grows (test: each more at the longest than at the shortest)",
               {s: c for s, c in fr.items() if s != "rrtcp"} or {"BL": None},
               lambda **k: all(c[max(c)] > c[min(c)] for s, c in fr.items() if s != "rrtcp")),
    ]


def _table4_fig19(v: View) -> list[Check]:
    pk = {(s, b): v.table("4", s, "delivered_packets", bursts=b)
          for s in ("dsack-inc", "rrtcp") for b in (0.0, 0.0002)}
    frr = {(s, b): v.table("4", s, "fr_ratio_pct", bursts=b)
           for s in ("dsack-inc", "rrtcp") for b in (0.0, 0.0002)}
    named = {f"{'TA' if s == 'rrtcp' else 'BL-INC'} {'drops' if b else 'no drops'}": x
             for (s, b), x in pk.items()}
    out = [
        _check("Table 4", "Without drops BL-INC's throughput is comparable to DSACK-TA's (000: "
               "97,184 and 103,770 packets; test: within 10%)", named,
               lambda **k: abs(pk[("dsack-inc", 0.0)] - pk[("rrtcp", 0.0)])
               <= 0.1 * pk[("rrtcp", 0.0)]),
        _check("Table 4", "TA above BL-INC with and without bursty loss, and bursts cost BL-INC "
               "more (000: 103,770 > 97,184 and 81,916 > 60,708 packets; test: TA more packets "
               "in both, and a larger share kept with drops)", named,
               lambda **k: pk[("rrtcp", 0.0)] > pk[("dsack-inc", 0.0)]
               and pk[("rrtcp", 0.0002)] > pk[("dsack-inc", 0.0002)]
               and pk[("rrtcp", 0.0002)] / pk[("rrtcp", 0.0)]
               > pk[("dsack-inc", 0.0002)] / pk[("dsack-inc", 0.0)]),
        _check("Table 4", "BL-INC suffers more fast retransmits than DSACK-TA, with and without "
               "drops (000: 0.13 > 0.03 and 0.48 > 0.19 %)",
               {k.replace("TA", "TA FR %").replace("BL-INC", "BL-INC FR %"): x for k, x in
                zip(named, frr.values())},
               lambda **k: frr[("dsack-inc", 0.0)] > frr[("rrtcp", 0.0)]
               and frr[("dsack-inc", 0.0002)] > frr[("rrtcp", 0.0002)]),
    ]
    runs = {r["spec"].variant: r["series"] for r in v.traces.get("19") or []}
    resets = _after_timeouts(runs.get("dsack-inc"))
    out += [
        _check("Fig. 19", "Each timeout resets BL-INC's dupthresh to 3, from which it increases "
               "linearly (test: at most 4 at the sample after every timeout, above 4 at some "
               "point)", {"BL-INC dupthresh after timeouts": resets or None},
               lambda **k: all(d <= 4 for d in resets)
               and max(r[3] for r in runs["dsack-inc"]) > 4),
        _check("Fig. 19", "DSACK-TA keeps dupthresh around its value (test: a smaller "
               "coefficient of variation over the run than BL-INC's)",
               {"TA": _cv(runs.get("rrtcp")), "BL-INC": _cv(runs.get("dsack-inc"))},
               lambda **k: _cv(runs["rrtcp"]) < _cv(runs["dsack-inc"])),
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


def checks_of(view: View) -> list[Check]:
    """Every statement of digest 000 §4, in 000's order."""
    return (_fig1(view) + _fig4_5(view) + _fig6_7(view) + _fig8_9(view) + _fig10_13(view)
            + _table3(view) + _fig14_16(view) + _fig17_18(view) + _table4_fig19(view))
