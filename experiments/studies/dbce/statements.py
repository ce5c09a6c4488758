"""[TCPDEBUG]'s statements about its chapters 3-5 ([TCPDEBUG]: §3.3, §4.4,
§5.4-5.5), in its words, each judged by direction and size (``experiments.runner.verdicts``) on
the study of the simulated traces (``analyzer.study.summarize``, ``dbce_tables``).

[TCPDEBUG]'s numbers are shares of connections or retransmissions over 1.85 M (ch. 5) or 52 M (ch. 3,
4) Internet connections; a share is held to 0.05 (a range "50-70 %" to 0.45-0.75). A change of
duration is in RTTs; "about 0" and "negligible" are read as within 0.5 and 0.05 RTTs, and "close
to the best case" as within a fifth of it, a detection time in RTTs (Fig. 4.2) to 25 %
(relative), "almost all" as at least 90 %: each beside its statement. Ch. 4's figures and their
statements take the thesis' population (§4.3.1): connections with a retransmission
(``chapter4.population``). A statement about ch. 4's
timer on fewer than MIN_EVENTS timer events (losses the timer detects and spurious timeouts, in
the connections it is about) is not run: so few events decide nothing.
"""

from __future__ import annotations

import statistics
from typing import Sequence

from experiments.runner.verdicts import (NONE, NOT_RUN, Alike, Near, Statement, absolute, bound,
                                         judge, not_run, relative)
from experiments.studies.dbce.chapter4 import (SMART, SMALL_FLIGHT, changes, detection_times,
                                               population)

__all__ = ["chapter5_statements", "cluster_statements", "chapter4_statements", "chapter3_statements", "MIN_EVENTS",
           "LINUX_STACK", "REAL", "PAPER_TABLE_4_4"]

MIN_EVENTS = 20         # timer events a ch. 4 statement needs
LINUX_STACK = "Linux 2.4 (Table 4.5)"
REAL = ("CARD", "Tri-S", "DUAL", "Vegas", "BFA", "CIM", "FAST", "DECA", "DAIMD")
ABOUT_ZERO = 0.5        # RTTs: "the median change is about 0"
NEGLIGIBLE = 0.05       # RTTs: "a negligible difference"
CLOSE = 0.2             # "close to the best case": within a fifth of it
# [TCPDEBUG] Table 4.4: % of retransmissions: needed RTO, needed FR/R, spurious RTO, spurious FR/R
PAPER_TABLE_4_4 = {"windows-xp": (59.5, 10.9, 26.0, 3.6), "linux-2.4": (56.7, 37.1, 3.5, 2.7),
                   "solaris": (70.7, 19.9, 4.9, 4.5), "freebsd-4.10": (56.6, 7.2, 31.7, 4.5)}
OS_NAMES = {"windows-xp": "Windows", "linux-2.4": "Linux", "solaris": "Solaris",
            "freebsd-4.10": "FreeBSD"}
STACK_OF = {"windows-xp": "Windows XP (Table 4.5)", "linux-2.4": LINUX_STACK,
            "solaris": "Solaris (Table 4.5)", "freebsd-4.10": "FreeBSD 4.10 (Table 4.5)"}
# [TCPDEBUG] §4.4.4: Smart-Config shortens by > 10 % this share of each OS's connections
SMART_SHORTER = {"linux-2.4": 0.40, "windows-xp": 0.07, "solaris": 0.20, "freebsd-4.10": 0.10}


def _median(values) -> float | None:
    values = list(values)
    return statistics.median(values) if values else None


def _conn_key(c: dict) -> str:
    return "/".join(str(c.get(k)) for k in ("network", "reordering", "variant", "seed",
                                            "connection"))


def _farthest(values: dict, lo: float, hi: float) -> float | None:
    """The value of ``values`` farthest outside [lo, hi] (one inside when all are)."""
    vals = [v for v in values.values() if v is not None]
    if not vals:
        return None
    return max(vals, key=lambda v: max(lo - v, v - hi, 0.0) + (v - lo) * 1e-9)


# ----------------------------------------------------------------------------- ch. 5
def chapter5_statements(study: dict, connections: list,
                        clusters: list | str = "not clustered") -> list[Statement]:
    """[TCPDEBUG] ch. 5's statements (§5.4.1-5.4.4, §5.5; Figs. 5.1-5.11, 5.12-5.29, Table 5.4);
    ``clusters``: the cluster study's rows (``clusters.cluster_rows``) or why there are none."""
    rows = {r["estimator"]: r for r in study["estimators"]}
    flight = {r["estimator"]: r for r in study["estimators_per_flight"]}
    best = study["best_case"]
    scored = [c for c in connections if c["segments"] >= 10 and c["samples"]]
    lossless = sum(1 for c in scored if not c["episodes"]) / len(scored) if scored else None
    why = "" if scored else "no connection was scored"

    def col(name, key):
        return rows[name][key] if name in rows else None

    lossy = [c for c in scored if c["episodes"] and c["best"][0] > 0 and c["best"][1] > 0]
    # paired by connection: its run's network, reordering, sender and seed with its number
    # (the numbers start again in every run)
    best_add = {_conn_key(c): c["best"][0] for c in lossy}
    best_mult = {_conn_key(c): c["best"][1] for c in lossy}

    out = [
        judge("fig5_1_lossless", "Fig. 5.1", "60-85% of connections have no loss",
              paper="60-85 %", values={"share without loss": lossless}, direction=None,
              size=Near("share of scored connections without loss",
                        lambda v: v["share without loss"], (0.60, 0.85), absolute()),
              why_missing=why),
        judge("fig5_2_card_best", "Fig. 5.2", "CARD is best, followed closely by DECA, CIM and "
              "DUAL. These predict an impending loss well in more than 45% of connections",
              paper="LPA >= 0.5 in > 45 % (CARD)",
              values={n: col(n, "lpa_mean") for n in REAL},
              direction=lambda v: v["CARD"] >= max(x for x in v.values() if x is not None),
              test="CARD's mean LPA the highest of the nine",
              size=Near("CARD's share of lossy connections with LPA >= 0.5",
                        lambda v: col("CARD", "lpa_half"), 0.45, bound()), why_missing=why,
              show=["CARD", "DECA", "CIM", "DUAL"]),
        judge("fig5_2_card_half", "Fig. 5.2", "Even CARD has LPA < 0.5 in about 45% of "
              "connections", paper="about 45 %",
              values={"CARD LPA >= 0.5": col("CARD", "lpa_half")}, direction=None,
              size=Near("CARD's share with LPA < 0.5", lambda v: 1 - v["CARD LPA >= 0.5"], 0.45,
                        absolute()), why_missing=why),
    ]
    for name in ("Vegas", "Tri-S", "DAIMD"):
        out.append(judge(
            f"fig5_2_{name.lower().replace('-', '')}_no_loss", "Fig. 5.2",
            f"Vegas, Tri-S and DAIMD predict no losses at all in 70-90% of connections ({name})",
            paper="LPA = 0 in 70-90 %",
            values={f"{name} LPA = 0": col(name, "lpa_zero"), "CARD LPA = 0": col("CARD",
                                                                               "lpa_zero")},
            direction=lambda v, n=name: v[f"{n} LPA = 0"] > v["CARD LPA = 0"],
            test="more lossy connections with LPA = 0 than CARD's",
            size=Near(f"{name}'s share of lossy connections with LPA = 0",
                      lambda v, n=name: v[f"{n} LPA = 0"], (0.70, 0.90), absolute()),
            why_missing=why))
    out.append(judge(
        "fig5_2_random_highest", "Fig. 5.2", "Random(0.8) has a higher LPA than every existing "
        "estimator", paper="-",
        values={"Random(0.8)": col("Random(0.8)", "lpa_mean"),
                "best estimator": max((col(n, "lpa_mean") or 0) for n in REAL) if rows else None},
        direction=lambda v: v["Random(0.8)"] > v["best estimator"], test="mean LPA",
        why_missing=why))
    leads = [col(n, "lead_1rtt") for n in REAL if col(n, "lead_1rtt") is not None]
    out.append(judge(
        "fig5_3_timely", "Fig. 5.3", "50-70% of the congestion phases that precede a loss begin "
        "at least 1 RTT before the first loss", paper="50-70 %",
        values={"median over the estimators": statistics.median(leads) if leads else None},
        direction=None, size=Near("median share over the nine", lambda v:
                                  v["median over the estimators"], (0.50, 0.70), absolute()),
        why_missing=why))
    out += [
        judge("fig5_4_vegas_fp", "Fig. 5.4", "Vegas has no false positives in more than 90% of "
              "connections", paper="> 90 %", values={"Vegas": col("Vegas", "fp_none")},
              direction=None, size=Near("Vegas' share with no false positive",
                                        lambda v: v["Vegas"], 0.90, bound()), why_missing=why),
        judge("fig5_4_daimd_fp", "Fig. 5.4", "and DAIMD in about 80%", paper="about 80 %",
              values={"DAIMD": col("DAIMD", "fp_none")}, direction=None,
              size=Near("DAIMD's share with no false positive", lambda v: v["DAIMD"], 0.80,
                        absolute()), why_missing=why),
    ]
    aggressive = ("CARD", "CIM", "DUAL", "Tri-S", "DECA")
    for name in aggressive:
        out.append(judge(
            f"fig5_4_{name.lower().replace('-', '')}_wrong", "Fig. 5.4",
            f"CARD, CIM, DUAL, Tri-S and DECA make wrong predictions in 65-75% of connections "
            f"({name})", paper="65-75 %", values={name: col(name, "fp_some")}, direction=None,
            size=Near(f"{name}'s share with a false positive", lambda v, n=name: v[n],
                      (0.65, 0.75), absolute()), why_missing=why))
    out.append(judge(
        "fig5_4_marginal", "Fig. 5.4", "They are only marginally better than Random(0.8)",
        paper="-", values={**{n: col(n, "fpa_mean") for n in aggressive},
                           "Random(0.8)": col("Random(0.8)", "fpa_mean")},
        direction=lambda v: all(v[n] > v["Random(0.8)"] for n in aggressive),
        test="each one's mean FPA above Random(0.8)'s", why_missing=why))
    out += [
        judge("fig5_5_small_gain", "Fig. 5.5", "60% of connections gain less than 0.1 RTT",
              paper="60 %", values={"share under 0.1 RTT": best.get("below_0.1")},
              direction=None, size=Near("best case: share gaining < 0.1 RTT",
                                        lambda v: v["share under 0.1 RTT"], 0.60, absolute()),
              why_missing=why),
        judge("fig5_5_large_gain", "Fig. 5.5", "25% of connections could save more than 10 RTTs "
              "(ch. 6)", paper="25 %", values={"share over 10 RTTs": best.get("above_10")},
              direction=None, size=Near("best case: share saving > 10 RTTs",
                                        lambda v: v["share over 10 RTTs"], 0.25, absolute()),
              why_missing=why),
        judge("fig5_5_add_like_mult", "Fig. 5.5", "The additive and multiplicative policies give "
              "the same result", paper="-",
              values={"additive median (lossy)": _median(best_add.values()),
                      "multiplicative median (lossy)": _median(best_mult.values()),
                      "additive": best_add, "multiplicative": best_mult},
              direction=None, size=Alike("best-case saving", "multiplicative", "additive"),
              show=["additive median (lossy)", "multiplicative median (lossy)"],
              why_missing=why, note="the best case of each lossy connection under both "
                                    "policies, paired by connection"),
    ]
    for name in ("Vegas", "DAIMD"):
        out.append(judge(
            f"fig5_6_{name.lower()}_zero", "Figs. 5.6-5.11", f"Vegas and DAIMD: the median change "
            f"is about 0 ({name})", paper="about 0 RTTs",
            values={f"{name} median (RTTs)": col(name, "add_median")}, direction=None,
            size=Near("median change, additive (RTTs)", lambda v, n=name: v[f"{n} median (RTTs)"],
                      0.0, absolute(ABOUT_ZERO)), why_missing=why,
            note="'about 0': within 0.5 RTT"))
    for name in ("Tri-S", "DUAL"):
        out.append(judge(
            f"fig5_6_{name.lower().replace('-', '')}_harmful", "Figs. 5.6-5.11",
            f"Tri-S and DUAL: they lengthen most connections ({name})", paper="most",
            values={"lengthened": col(name, "add_worsened"), "median": col(name, "add_median")},
            direction=lambda v: v["lengthened"] > 0.5, test="over half of the lossy connections "
            "longer (additive)", why_missing=why))
    for name in ("CIM", "CARD", "BFA", "DECA", "Random(0.8)"):
        out.append(judge(
            f"fig5_6_{name.lower().replace('(', '').replace(')', '').replace('.', '')}_improves",
            "Figs. 5.6-5.11", f"CIM (best), CARD, BFA, DECA and Random(0.8): they improve more "
            f"than 50% of connections ({name})", paper="> 50 %",
            values={"shortened": col(name, "add_improved")}, direction=None,
            size=Near("share of lossy connections shorter (additive)",
                      lambda v: v["shortened"], 0.50, bound()), why_missing=why))
    medians = {n: col(n, "add_median") for n in REAL}
    out.append(judge(
        "fig5_6_cim_best", "Figs. 5.6-5.11", "CIM (best)", paper="-",
        values={"CIM": medians["CIM"], "best other": max(
            (v for n, v in medians.items() if n != "CIM" and v is not None), default=None)},
        direction=lambda v: v["CIM"] > v["best other"],
        test="the largest median saving (additive); a tie is not best", why_missing=why))
    out.append(judge(
        "fig5_6_random_like", "Figs. 5.6-5.11", "Random(0.8) is about as good as CARD, BFA and "
        "DECA", paper="-",
        values={n: col(n, "add_improved") for n in ("Random(0.8)", "CARD", "BFA", "DECA")},
        direction=None,
        size=Near("largest difference in the share made shorter",
                  lambda v: max(abs(v["Random(0.8)"] - v[n]) for n in ("CARD", "BFA", "DECA")),
                  0.0, absolute(0.10)),
        why_missing=why, note="'about as good': shares of lossy connections made shorter "
                              "within 10 points"))
    diffs_lpa = [abs(col(n, "lpa_mean") - flight[n]["lpa_mean"]) for n in REAL
                 if col(n, "lpa_mean") is not None and flight.get(n, {}).get("lpa_mean")
                 is not None]
    fpa_gain = [flight[n]["fpa_mean"] - col(n, "fpa_mean") for n in REAL
                if col(n, "fpa_mean") is not None and flight.get(n, {}).get("fpa_mean")
                is not None]
    diffs_add = [abs(col(n, "add_median") - flight[n]["add_median"]) for n in REAL
                 if col(n, "add_median") is not None and flight.get(n, {}).get("add_median")
                 is not None]
    out += [
        judge("s544_lpa", "§5.4.4", "LPA is nearly identical (one sample a flight against every "
              "sample)", paper="nearly identical",
              values={"largest LPA difference": max(diffs_lpa) if diffs_lpa else None},
              direction=None, size=Near("largest |LPA difference| over the nine",
                                        lambda v: v["largest LPA difference"], 0.0, absolute()),
              why_missing=why),
        judge("s544_fpa", "§5.4.4", "FPA is marginally better per flight", paper="-",
              values={"mean FPA gain per flight": statistics.fmean(fpa_gain) if fpa_gain
                      else None},
              direction=lambda v: v["mean FPA gain per flight"] > 0,
              test="FPA once a flight above every sample's, on average over the nine",
              why_missing=why),
        judge("s544_duration", "§5.4.4", "The duration impact is practically identical",
              paper="practically identical",
              values={"largest median change difference (RTTs)": max(diffs_add) if diffs_add
                      else None}, direction=None,
              size=Near("largest |median change difference| (RTTs)",
                        lambda v: v["largest median change difference (RTTs)"], 0.0,
                        absolute(ABOUT_ZERO)), why_missing=why,
              note="'practically identical': within 0.5 RTT"),
    ]
    brk = study["breakdowns"]
    fl = brk.get("flight") or []
    out += [
        judge("s55_flight", "§5.5", "High throughput and large flights give the most benefit "
              "(large flights)", paper="-",
              values={"best small": fl[0]["best_median"] if len(fl) > 1 else None,
                      "best large": fl[-1]["best_median"] if len(fl) > 1 else None,
                      "CIM small": fl[0]["CIM median"] if len(fl) > 1 else None,
                      "CIM large": fl[-1]["CIM median"] if len(fl) > 1 else None},
              direction=lambda v: v["best large"] > v["best small"]
              and v["CIM large"] > v["CIM small"],
              test="the largest median-flight group's median saving above the smallest's, "
                   "best case and CIM", why_missing=why),
    ]
    out += cluster_statements(clusters)
    return out


def cluster_statements(clusters: list | str) -> list[Statement]:
    """§5.5.2's statements on the clusters (Table 5.4, Figs. 5.18-5.29). [TCPDEBUG]'s Cluster 2 is
    ours with the largest median flight (``clusters``' docstring); "zero" is within 0.5 RTT
    of no change, "almost all" at least 90 % (a bound)."""
    why = clusters if isinstance(clusters, str) else ""
    rows = clusters if isinstance(clusters, list) else []
    big = max(rows, key=lambda r: r["flight"]) if rows else None
    others = [r for r in rows if r is not big]
    ests = [e for e in REAL if big is not None and f"{e} shorter" in big]
    wins = {e: all(big[f"{e} shorter"] >= r[f"{e} shorter"] for r in others) for e in ests}
    return [
        judge("s55_table5_4", "Table 5.4", "Cluster 2: very high throughput, high loss rate, "
              "large flight size", paper="Table 5.4",
              values={"largest-flight cluster": big["cluster"] if big else None,
                      "highest-throughput cluster": max(rows, key=lambda r: r["throughput"])
                      ["cluster"] if rows else None},
              direction=lambda v: v["largest-flight cluster"] == v["highest-throughput cluster"],
              test="the cluster of the largest median flight also of the highest median "
                   "throughput", why_missing=why),
        judge("s55_cluster2", "§5.5.2 / Figs. 5.18-5.29", "Across all DBCEs, Cluster 2 has the "
              "best performance in terms of the number of connections that witness a reduction "
              "in connection duration", paper="-",
              values={"estimators where it leads": sum(wins.values()) if big else None,
                      "of": len(ests) if big else None,
                      "not for": ", ".join(e for e, w in wins.items() if not w) or "none"},
              direction=lambda v: v["estimators where it leads"] == v["of"],
              test="the largest-flight cluster's share of shortened connections the highest "
                   "for every estimator", why_missing=why),
        judge("s55_vegas_clusters", "§5.5.2 / Figs. 5.18-5.21", "The impact on connection "
              "duration with Vegas is zero for almost all connections in Clusters 1, 3, 4, and "
              "5. Only in Cluster 2, do a significant fraction of connections see a reduction "
              "by more than 10 RTTs", paper="almost all",
              values={"Cluster 2's share > 10 RTTs": big["Vegas over 10"] if big else None,
                      "the others' largest": max((r["Vegas over 10"] for r in others),
                                                 default=None),
                      "the others' smallest share about zero":
                          min((r["Vegas zero"] for r in others), default=None)},
              direction=lambda v: v["Cluster 2's share > 10 RTTs"] > v["the others' largest"],
              test="the largest-flight cluster's share of Vegas savings over 10 RTTs above "
                   "every other cluster's",
              size=Near("the smallest share within 0.5 RTT of no change, other clusters",
                        lambda v: v["the others' smallest share about zero"], 0.90, bound()),
              why_missing=why),
    ]


# ----------------------------------------------------------------------------- ch. 4
def _table44_shares(row: dict) -> dict | None:
    if not row or not row.get("retransmissions"):
        return None
    return {k: row[f"{k}_pct"] / 100 for k in ("needed_timer", "needed_dupacks",
                                               "unneeded_timer", "unneeded_dupacks")}


def chapter4_statements(study: dict, table44: list, connections: list) -> list[Statement]:
    """[TCPDEBUG] ch. 4's statements (§4.4.1-4.4.4, Tables 4.4 and 4.6, Figs. 4.2-4.11) on the
    replay's rows: each stack's own timer (Table 4.4), every setting against the Linux
    connections' own Linux timer ([TCPDEBUG] shows Linux's figures), and every connection under the
    estimators."""
    by_os = {r["os"]: r for r in table44}
    shares = {os: _table44_shares(by_os.get(os)) for os in PAPER_TABLE_4_4}
    everyone = {r["setting"]: r for r in study["rto_settings"]}
    linux = {r["setting"]: r for r in study["rto_by_stack"].get(LINUX_STACK, [])}
    base = study["rto_baseline"]
    out: list[Statement] = []

    def events(row):
        return (row["by_timer"] + row["spurious_timeouts"]) if row else 0

    def decided(n, why=""):
        return None if n >= MIN_EVENTS else \
            f"{n} timer events in the connections it is about (< {MIN_EVENTS}){why}"

    per_stack: dict = {}
    for c in connections:
        rto = c.get("rto") or {}
        if rto.get("rtts"):
            per_stack[rto["baseline"]] = per_stack.get(rto["baseline"], 0) + rto["base"][2] \
                + rto["base"][3]
    ev_linux = per_stack.get(LINUX_STACK, 0)
    ev_all = base["by_timer"] + base["spurious_timeouts"] if base else 0

    def j(key, item, says, paper, values, direction, test="", size=None, note="", n=None):
        """A statement about the timer, not run when its connections have too few timer
        events to decide it (their numbers still shown)."""
        st = judge(key, item, says, paper=paper, values=values, direction=direction,
                   test=test, size=size, note=note)
        lack = decided(n) if n is not None else None
        if lack and not st.not_run:
            st.direction = NOT_RUN if st.direction != NONE else NONE
            st.size = NOT_RUN if st.size != NONE else NONE
            st.note = "; ".join(x for x in (st.note, f"not run: {lack}") if x)
        return st

    spurious = {os: (s["unneeded_timer"] + s["unneeded_dupacks"]) if s else None
                for os, s in shares.items()}
    rto = {os: (s["needed_timer"] + s["unneeded_timer"]) if s else None
           for os, s in shares.items()}
    for os_name, paper in PAPER_TABLE_4_4.items():
        p_sp = (paper[2] + paper[3]) / 100
        out.append(j(f"t44_{os_name}_spurious", "Table 4.4",
                     f"7-35% of all retransmissions are spurious, mostly RTO-triggered "
                     f"({OS_NAMES[os_name]}: {p_sp:.1%})", f"{p_sp:.1%}",
                     {"spurious share": spurious[os_name],
                      "of which by the timer": (shares[os_name]["unneeded_timer"]
                                                / spurious[os_name]) if spurious[os_name]
                      else None},
                     lambda v: v["of which by the timer"] > 0.5,
                     test="most spurious retransmissions by the timer",
                     size=Near("spurious share of retransmissions",
                               lambda v: v["spurious share"], p_sp, absolute())))
    win, lin = by_os.get("windows-xp"), by_os.get("linux-2.4")
    n_timer = min(r["needed_timer"] + r["unneeded_timer"] for r in (win, lin)) \
        if win and lin else 0
    out.append(j("t44_windows_vs_linux", "Table 4.4", "About 30% of Windows RTO retransmissions "
                 "are spurious, against about 6% for Linux", "30 % against 6 %",
                 {"Windows": win["spurious_share_of_timer"] if win else None,
                  "Linux": lin["spurious_share_of_timer"] if lin else None},
                 lambda v: v["Windows"] > v["Linux"], test="Windows' share above Linux's",
                 size=Near("Windows' spurious share of timeouts", lambda v: v["Windows"], 0.30,
                           absolute()), n=n_timer))
    out.append(j("t44_linux_6pct", "Table 4.4", "against about 6% for Linux", "about 6 %",
                 {"Linux": lin["spurious_share_of_timer"] if lin else None}, None,
                 size=Near("Linux's spurious share of timeouts", lambda v: v["Linux"], 0.06,
                           absolute()),
                 n=(lin["needed_timer"] + lin["unneeded_timer"]) if lin else 0))
    sfr = {OS_NAMES[os]: s["unneeded_dupacks"] if s else None for os, s in shares.items()}
    out.append(j("t44_spurious_fr", "Table 4.4", "Spurious FR/R is 3-5% of retransmissions for "
                 "every OS", "3-5 %", sfr, None,
                 size=Near("the stack farthest from 3-5 %",
                           lambda v: _farthest(v, 0.03, 0.05), (0.03, 0.05), absolute())))
    rto_named = {OS_NAMES[os]: v for os, v in rto.items()}
    out.append(j("t44_rto_dominates", "Table 4.4", "60-88% of retransmissions are "
                 "RTO-triggered", "60-88 %", rto_named,
                 lambda v: all(x > 0.5 for x in v.values()),
                 test="over half of each stack's retransmissions by the timer",
                 size=Near("the stack farthest from 60-88 %",
                           lambda v: _farthest(v, 0.60, 0.88), (0.60, 0.88), absolute()),
                 note="[TCPDEBUG] explains it by flights too small for D duplicate ACKs"))
    ch4 = population(connections)
    out += _figure_4_2_statements(ch4)
    gains = _best_shares(ch4)
    out += [
        judge("fig4_3_little", "Fig. 4.3", "45-75% of connections could gain less than 1%",
              paper="45-75 %", values={"share under 1 %": gains.get("all", {}).get("under_1")},
              direction=None, size=Near("best case: share gaining < 1 %",
                                        lambda v: v["share under 1 %"], (0.45, 0.75),
                                        absolute())),
        judge("fig4_3_much", "Fig. 4.3", "15-40% could gain more than 10%", paper="15-40 %",
              values={"share over 10 %": gains.get("all", {}).get("over_10")}, direction=None,
              size=Near("best case: share gaining > 10 %", lambda v: v["share over 10 %"],
                        (0.15, 0.40), absolute())),
        judge("fig4_3_linux", "Fig. 4.3", "more than 40% of Linux connections could gain more "
              "than 10%, against fewer than 15% for Windows, FreeBSD and Solaris",
              paper="> 40 % against < 15 %",
              values={OS_NAMES[os]: gains.get(os, {}).get("over_10") for os in OS_NAMES},
              direction=lambda v: v["Linux"] > max(v["Windows"], v["FreeBSD"], v["Solaris"]),
              test="Linux's share above each other stack's",
              size=Near("Linux's share gaining > 10 %", lambda v: v["Linux"], 0.40, bound())),
    ]

    def delta(name, table=linux):
        return table[name]["delta_mean"] if name in table else None
    out += [
        j("s442_k_most", "§4.4.2", "k is the most influential parameter", "-",
          {f"largest |change|, {p}": _family_spread(linux, f"Linux, {p} = ")
           for p in ("k", "minRTO", "a", "b")},
          lambda v: v["largest |change|, k"] >= max(v.values()),
          test="the k family's largest mean change (in size) above minRTO's, a's and b's (Linux)",
          n=ev_linux),
        j("s442_k2_close", "§4.4.2 / Fig. 4.4", "With k = 2 the average improvement comes close "
          "to the best case", "close to the best case",
          _mean_change(ch4, "Linux, k = 2", LINUX_STACK), None,
          size=Near("k = 2's mean change / the best case's",
                    lambda v: v["mean change"] / v["mean best case"], 1.0, absolute(CLOSE)),
          note="'close to': within a fifth", n=ev_linux),
        j("s442_k6_longer", "§4.4.2", "k = 6 consistently makes connections longer", "-",
          {"k = 6": delta("Linux, k = 6")}, lambda v: v["k = 6"] < 0,
          test="a negative mean change (RTTs)", n=ev_linux),
        j("s442_minrto_hurts", "§4.4.2", "A larger minRTO hurts almost all connections: Linux "
          "with 400 ms gets worse", "-",
          {"400 ms": delta("Linux, minRTO = 400 ms"), "1000 ms": delta("Linux, minRTO = 1000 ms")},
          lambda v: v["400 ms"] < 0 and v["1000 ms"] < 0, test="negative mean changes",
          n=ev_linux),
        j("s442_minrto_100", "§4.4.2", "Linux 200 -> 100 ms makes a negligible difference",
          "negligible", {"100 ms": delta("Linux, minRTO = 100 ms")}, None,
          size=Near("mean change (RTTs)", lambda v: v["100 ms"], 0.0, absolute(NEGLIGIBLE)),
          note="'negligible': within 0.05 RTT", n=ev_linux),
        j("s442_a", "§4.4.2", "For Linux, a = 1/2 helps ... a = 1/32 (anything below 1/4) "
          "hurts", "-", {"a = 1/2": delta("Linux, a = 1/2"), "a = 1/32": delta("Linux, a = 1/32")},
          lambda v: v["a = 1/2"] > 0 > v["a = 1/32"], test="a positive and a negative mean change",
          n=ev_linux),
        j("s442_b", "§4.4.2", "Changing b changes durations by less than 1 RTT", "< 1 RTT",
          {f"b = {b}": delta(f"Linux, b = {b}") for b in ("1", "1/2", "1/32")}, None,
          size=Near("largest |mean change| (RTTs)", lambda v: max(abs(x) for x in v.values()),
                    1.0, bound(over=False)), n=ev_linux),
        j("s442_linux_vs_rfc", "§4.4.2 / ch. 4", "The Linux estimator is considerably more "
          "efficient than the RFC 2988 estimator that FreeBSD, Solaris and Windows use",
          "-", {"Linux": delta(LINUX_STACK, everyone), "RFC 2988": delta("RFC 2988", everyone)},
          lambda v: v["Linux"] > v["RFC 2988"],
          test="every connection replayed under both: Linux's mean change the larger",
          n=ev_all),
        j("s443_d4_hurts", "§4.4.3", "D = 4 consistently hurts nearly all connections", "-",
          {"D = 4": delta("Linux, D = 4")}, lambda v: v["D = 4"] < 0,
          test="a negative mean change (Linux)", n=ev_linux),
    ]
    lrow = linux.get("Linux, D = 4")
    l2 = linux.get("Linux, D = 2")
    total = _retransmissions(linux.get(LINUX_STACK))
    out += [
        j("t46_linux_d4", "Table 4.6", "For Linux, D = 4 avoids spurious FR/Rs worth 1.2% of "
          "retransmissions but turns 7.2% into RTOs", "7.2 % and 1.2 %",
          {"FR -> RTO": lrow["fast_to_rto"] / total if lrow and total else None,
           "spurious avoided": lrow["spurious_avoided"] / total if lrow and total else None},
          lambda v: v["FR -> RTO"] > v["spurious avoided"],
          test="more fast retransmits turned into timeouts than spurious ones avoided",
          size=Near("FR -> RTO share of retransmissions", lambda v: v["FR -> RTO"], 0.072,
                    absolute()), n=ev_linux),
        j("t46_linux_d2", "Table 4.6", "Linux, D = 2: RTO to FR/R 6.2%, spurious caused 12.1%",
          "6.2 % and 12.1 %",
          {"RTO -> FR": l2["rto_to_fast"] / total if l2 and total else None,
           "spurious caused": l2["spurious_caused"] / total if l2 and total else None},
          lambda v: v["spurious caused"] > v["RTO -> FR"],
          test="more spurious retransmissions caused than timeouts turned into fast "
               "retransmits", size=Near("RTO -> FR share of retransmissions",
                                        lambda v: v["RTO -> FR"], 0.062, absolute()),
          n=ev_linux),
        not_run("t46_others", "Table 4.6", "The same columns for Windows (D = 2 -> 3), Solaris "
                "and FreeBSD", paper="Table 4.6", why="the replay varies D of Linux's timer and "
                "of RFC 2988's, not of each stack's own (Windows' D = 3 from its D = 2)"),
        _small_d2(ch4, j, ev_linux),
        j("s442_solaris_minrto", "§4.4.2 / Fig. 4.7", "Reducing the Solaris minRTO from 400ms to "
          "100ms improves the connection durations of the Solaris connections", "-",
          _mean_change(ch4, "Solaris, minRTO = 100 ms", STACK_OF["solaris"]),
          lambda v: v["mean change"] > 0, test="a positive mean change (RTTs) of the Solaris "
          "connections with a retransmission", n=per_stack.get(STACK_OF["solaris"], 0)),
        j("s444_smart_close", "§4.4.4 / Fig. 4.11", "The average observed reduction in "
          "connection duration closely matches the theoretical upper bound", "close to it",
          _mean_change(ch4, SMART, None), None,
          size=Near("Smart-Config's mean change / the best case's",
                    lambda v: v["mean change"] / v["mean best case"], 1.0, absolute(CLOSE)),
          note="'closely': within a fifth", n=ev_all),
    ]
    for os_name, paper in SMART_SHORTER.items():
        smart = _smart_shares(ch4, STACK_OF[os_name])
        out.append(j(f"s444_smart_{os_name}", "§4.4.4 / Fig. 4.10",
                     f"The duration drops by more than 10% for about 40% of Linux, 7% of "
                     f"Windows, 20% of Solaris and 10% of BSD connections "
                     f"({OS_NAMES[os_name]})", f"{paper:.0%}",
                     {"shorter by > 10 %": smart["shorter_10pct"] if smart else None,
                      "longer by > 10 %": smart["longer_10pct"] if smart else None},
                     lambda v: v["shorter by > 10 %"] > v["longer by > 10 %"],
                     test="more connections > 10 % shorter than longer",
                     size=Near("share > 10 % shorter", lambda v: v["shorter by > 10 %"], paper,
                               absolute()),
                     n=per_stack.get(STACK_OF[os_name], 0)))
    longer = {}
    for os_name in SMART_SHORTER:
        smart = _smart_shares(ch4, STACK_OF[os_name])
        longer[OS_NAMES[os_name]] = smart["longer_10pct"] if smart else None
    out.append(j("s444_smart_longer", "§4.4.4 / Fig. 4.10", "Fewer than 3% of connections in each OS get "
                 "more than 10% longer", "< 3 %", longer, None,
                 size=Near("the largest share > 10 % longer", lambda v: max(v.values()), 0.03,
                           bound(over=False)), n=ev_all))
    return out


def _median_of(values: list):
    return statistics.median(values) if len(values) >= MIN_EVENTS else None


def _figure_4_2_statements(ch4: list) -> list[Statement]:
    """Fig. 4.2's statements on the detection times of the needed retransmissions (those of a
    stack with fewer than MIN_EVENTS detections of a kind count as not measured)."""
    times = detection_times(ch4)
    fast = {OS_NAMES[os]: _median_of(times[(os, "fast")]) for os in OS_NAMES}
    timer = {OS_NAMES[os]: _median_of(times[(os, "timer")]) for os in OS_NAMES}

    def over_10(os):
        got = times[(os, "timer")]
        return sum(x > 10 for x in got) / len(got) if len(got) >= MIN_EVENTS else None

    few = (f"a stack's median needs {MIN_EVENTS} detections of its kind; counts: "
           + ", ".join(f"{OS_NAMES[os]} {len(times[(os, 'fast')])} FR/R, "
                       f"{len(times[(os, 'timer')])} RTO" for os in OS_NAMES))
    fast_known = {k: v for k, v in fast.items() if v is not None}
    return [
        judge("fig4_2_fr", "Fig. 4.2", "Most FR/R-based loss detection takes about 1-2 RTTs for "
              "all OSes", paper="1-2 RTTs", values={f"{k} median": v for k, v in
                                                    fast_known.items()} or {"medians": None},
              direction=None, size=Near("the median farthest from 1-2 RTTs",
                                        lambda v: _farthest(v, 1.0, 2.0), (1.0, 2.0),
                                        relative(0.25)),
              note="[TCPDEBUG] leaves FreeBSD out (271 FR/Rs); so do we under "
                   f"{MIN_EVENTS} detections", why_missing=few),
        judge("fig4_2_rto_slower", "Fig. 4.2", "RTOs take much longer than FR/Rs to detect "
              "losses", paper="-",
              values={"FR/R medians": fast_known or None,
                      "RTO medians": {k: v for k, v in timer.items() if v is not None} or None},
              direction=lambda v: all(v["RTO medians"][k] > x
                                      for k, x in v["FR/R medians"].items()
                                      if k in v["RTO medians"]),
              test="each stack's median RTO detection above its median FR/R detection",
              why_missing=few),
        judge("fig4_2_rto_median", "Fig. 4.2", "The median RTO for Windows and Linux is around 4 "
              "RTTs, more than 20 RTTs for Solaris and FreeBSD", paper="4 and > 20 RTTs",
              values=timer, direction=lambda v: min(v["Solaris"], v["FreeBSD"])
              > max(v["Windows"], v["Linux"]),
              test="Solaris' and FreeBSD's medians above Windows' and Linux's",
              size=Near("the Windows or Linux median farthest from 4 RTTs",
                        lambda v: max((v["Windows"], v["Linux"]), key=lambda x: abs(x - 4)),
                        4.0, relative(0.25)), why_missing=few),
        judge("fig4_2_rto_20", "Fig. 4.2", "more than 20 RTTs for Solaris and FreeBSD",
              paper="> 20 RTTs", values={"Solaris": timer["Solaris"],
                                         "FreeBSD": timer["FreeBSD"]}, direction=None,
              size=Near("the smaller of the two medians", lambda v: min(v.values()), 20.0,
                        bound()), why_missing=few),
        judge("fig4_2_tail", "Fig. 4.2", "While only around 10% of RTOs are larger than 10 RTTs "
              "for Linux, nearly 25% of Windows RTOs are", paper="10 % and 25 %",
              values={"Linux": over_10("linux-2.4"), "Windows": over_10("windows-xp")},
              direction=lambda v: v["Windows"] > v["Linux"],
              test="Windows' share of RTOs over 10 RTTs above Linux's",
              size=Near("Windows' share over 10 RTTs", lambda v: v["Windows"], 0.25, absolute()),
              why_missing=few),
        judge("fig4_2_tail_linux", "Fig. 4.2", "only around 10% of RTOs are larger than 10 RTTs "
              "for Linux", paper="about 10 %", values={"Linux": over_10("linux-2.4")},
              direction=None, size=Near("Linux's share over 10 RTTs", lambda v: v["Linux"],
                                        0.10, absolute()), why_missing=few),
    ]


def _mean_change(ch4: list, setting: str, stack: str | None) -> dict:
    """The mean change under ``setting`` and the mean best case (RTTs) of the connections of
    ``stack`` (all: None) in ch. 4's population (Figs. 4.4-4.11)."""
    got = changes(ch4, setting, stack=stack)
    if not got:
        return {"mean change": None, "mean best case": None}
    return {"mean change": statistics.fmean(d for _, d, _ in got),
            "mean best case": statistics.fmean(b for b, _, _ in got)}


def _smart_shares(ch4: list, stack: str) -> dict | None:
    """Fig. 4.10's shares of ``stack``'s connections more than 10 % shorter and longer under
    Smart-Config."""
    got = changes(ch4, SMART, stack=stack)
    if not got:
        return None
    return {"shorter_10pct": sum(p > 10 for _, _, p in got) / len(got),
            "longer_10pct": sum(p < -10 for _, _, p in got) / len(got)}


def _small_d2(ch4: list, j, n: int) -> Statement:
    """Fig. 4.9's small connections (median flight at most SMALL_FLIGHT segments: [TCPDEBUG]'s small
    connections never pass a flight of 4, and the workload has none of its sizes)."""
    got = sorted(d for _, d, _ in changes(ch4, "Linux, D = 2", stack=LINUX_STACK, part="small"))
    values = {"small connections": len(got),
              "mean change": statistics.fmean(got) if got else None,
              "95th percentile": got[min(len(got) - 1, int(0.95 * len(got)))] if got else None}
    return j("s443_small", "§4.4.3 / Fig. 4.9", "Reducing D from 3 to 2 reduces the "
             "connection duration of most (including 95-percentile) of the small connections",
             "-", values, lambda v: v["mean change"] > 0 and v["95th percentile"] > 0,
             test="the small Linux connections' mean change and 95th percentile positive",
             note=f"small: a median flight of {SMALL_FLIGHT} segments or fewer ([TCPDEBUG]'s small "
                  f"sizes are not in the workload)", n=n)


def _retransmissions(row: dict | None) -> int:
    if not row:
        return 0
    return row["by_fast"] + row["by_timer"] + row["spurious_timeouts"] + row["spurious_fast"]


def _family_spread(rows: dict, prefix: str) -> float | None:
    vals = [abs(r["delta_mean"]) for name, r in rows.items() if name.startswith(prefix)
            and r["delta_mean"] is not None]
    return max(vals) if vals else None


def _best_shares(connections: list) -> dict:
    """Fig. 4.3's best case per stack and over all: the share of connections (with an RTT
    sample) whose best case shortens them by under 1 % and by over 10 %, and the mean best
    change (RTTs)."""
    out: dict = {}
    groups: dict = {"all": []}
    for c in connections:
        rto = c.get("rto") or {}
        if not rto.get("rtts"):
            continue
        gain = (rto["base"][0] - rto["best"]) / rto["rtts"]
        groups["all"].append((gain, rto["base"][0] - rto["best"]))
        groups.setdefault(c.get("os"), []).append((gain, rto["base"][0] - rto["best"]))
    for key, items in groups.items():
        if items:
            out[key] = {"under_1": sum(g < 0.01 for g, _ in items) / len(items),
                        "over_10": sum(g > 0.10 for g, _ in items) / len(items),
                        "mean": statistics.fmean(d for _, d in items)}
    return out


# ----------------------------------------------------------------------------- ch. 3
CH3 = (
    ("t3_2_explained", "Table 3.2 / Fig. 3.5", "62-95% of OOS connections are fully "
     "classified", "62-95 %"),
    ("t3_4_os", "Table 3.4", "the OS match is above 99%", "> 99 %"),
    ("t3_5_reorder", "Table 3.5", "Reordering between sender and monitor is 0.2-14.1% of OOS "
     "segments", "0.2-14.1 %"),
    ("t3_5_implicit", "Table 3.5", "Implicit retransmissions are 16-40% of OOS segments",
     "16-40 %"),
    ("t3_8_unneeded", "Table 3.8", "3.7-18.9% of retransmissions are unneeded", "3.7-18.9 %"),
    ("t3_8_least", "Table 3.8", "LEAST always reports fewer unneeded retransmissions", "-"),
)


def chapter3_statements() -> list[Statement]:
    """[TCPDEBUG] ch. 3's statements on TCPdebug over its Internet traces (§3.2-3.3): listed, not run.
    The driver tabulates ch. 3's classification of the simulated traces (experiments.studies.
    dbce.chapter3), but these are statements about [TCPDEBUG]'s traces: their stacks' mix, paths and
    a monitor inside the network, where the simulated traces are captured at the sender."""
    return [not_run(key, item, says, paper=paper,
                    why="a statement about [TCPDEBUG]'s Internet traces, captured by a monitor "
                        "inside the network; ours are captured at the sender (no reordering "
                        "before the vantage point): tabulated in '[TCPDEBUG] ch. 3 on these traces', "
                        "not judged",
                    has_direction=key == "t3_8_least", has_size=paper != "-")
            for key, item, says, paper in CH3]
