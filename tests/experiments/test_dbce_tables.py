"""[TCPDEBUG] ch. 3-5 on the simulator (python -m experiments.dbce_tables): a quick run's outputs,
[TCPDEBUG]'s statements each judged by direction and size (a strict xfail, with its numbers, where a
verdict does not hold here: experiments/README.md, "[TCPDEBUG]'s chapters 4 and 5"), the analyzer
against the gateway's drops, the runs' code version, and the options it refuses."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from experiments.dbce_tables import main

pytest.importorskip("toolchain.switch")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("dbce")
    status = main(["--mode", "quick", "--jobs", "2", "--out", str(out), "--no-progress"])
    summary = json.loads((out / "summary.json").read_text())
    assert status == 0 and summary["failed_runs"] == 0
    return out, summary


@pytest.mark.slow             # [TCPDEBUG]'s quick run: minutes (make test-slow)
def test_a_quick_run_writes_the_tables_figures_and_data(quick):
    out, summary = quick
    for name in ("paper_table.md", "estimators.csv", "connections.csv", "breakdowns.csv",
                 "rto_settings.csv", "table_4_4.csv", "runs.csv", "summary.json",
                 "fig_lpa.png", "fig_fpa.png", "fig_duration.png", "fig_breakdown.png",
                 "fig_rto.png", "fig5_1_loss_rate.png", "fig5_3_lead.png",
                 "fig5_5_best_case.png", "table_4_6.csv", "table_3_2.csv", "table_3_4.csv",
                 "table_3_5.csv", "table_3_7.csv", "table_3_8.csv", "fig3_5_unexplained.png",
                 "fig4_2_detection.png", "fig4_2_detection.csv", "fig4_3_best_case.png",
                 "fig4_3_best_case.csv", "fig4_4_linux_k2.png", "fig4_5_linux_k3.png",
                 "fig4_6_linux_k6.png", "fig4_7_minrto.png", "fig4_8_linux_a.png",
                 "fig4_9_linux_d2.png", "fig4_10_smart.png", "fig4_10_smart.csv",
                 "fig4_11_smart_vs_best.png", "fig4_binned.csv", "table_5_4.csv",
                 "fig5_12_17_clusters.png", "fig5_clusters.csv", "fig5_18_vegas_clusters.png",
                 "fig5_22_cim_clusters.png", "fig5_26_tris_clusters.png",
                 "fig5_18_29_clusters.csv"):
        assert (out / name).stat().st_size > 0, name
    # ch. 3: every connection in Table 3.2's last row, the accepted among the OOS ones
    every = summary["table_3_2"][-1]
    assert every["trace"] == "all" and every["connections"] == summary["connections"]
    assert 0 < every["accepted"] <= every["oos_connections"] <= every["connections"]
    assert sum(r["oos_connections"] for r in summary["table_3_4"]) == every["oos_connections"]
    assert {"fig5_1_loss_rate.png", "fig5_3_lead.png", "fig5_5_best_case.png"} \
        <= set(summary["figures"])
    # every ch. 4 figure and the cluster study drawn; Table 5.4's five clusters hold the lossy
    # scored connections with every characteristic
    assert summary["figures_not_drawn"] == []
    assert len(summary["table_5_4"]) == 5
    assert 0 < sum(r["connections"] for r in summary["table_5_4"]) <= summary["lossy"]
    # Table 4.6's Linux row: the FR/Rs and RTOs are those of the Linux connections' own timer
    # (spurious ones included), its D = 2 and D = 4 columns the replay's rows
    linux = {r["setting"]: r for r in summary["study"]["rto_by_stack"]["Linux 2.4 (Table 4.5)"]}
    own = linux["Linux 2.4 (Table 4.5)"]
    row = next(r for r in summary["table_4_6"] if r["os"] == "Linux")
    assert (row["fr"], row["rto"]) == (own["by_fast"] + own["spurious_fast"],
                                       own["by_timer"] + own["spurious_timeouts"])
    assert (row["rto_to_fr"], row["fr_to_rto"]) == (linux["Linux, D = 2"]["rto_to_fast"],
                                                    linux["Linux, D = 4"]["fast_to_rto"])
    # 6 networks x 3 reorderings x 2 senders, ~41 connections each, all of 10 segments or more
    assert summary["runs"] == 36 and summary["connections"] >= 1300
    assert summary["scored"] == summary["connections"] and summary["lossy"] >= 300
    table = (out / "paper_table.md").read_text()
    # [TCPDEBUG]'s statements beside ours, every estimator of Table 5.1 with its row
    for text in ("Vegas and DAIMD: the median change is about 0",
                 "Tri-S and DUAL: they lengthen most connections", "CIM (best)",
                 "Random(0.8) is about as good as CARD, BFA and DECA",
                 "CARD (Table 5.1 row 1 [Jai89])", "DAIMD (Table 5.1 row 9 [LSM+07])",
                 "Random(0.8) (§5.4.1)", "[TCPDEBUG] Table 4.4", "The timer replayed ([TCPDEBUG] ch. 4)",
                 "The Linux estimator is considerably more efficient", "**Not run**",
                 "**Table 4.6 ([TCPDEBUG] §4.4.3): impact of the dupACK threshold.**",
                 "[TCPDEBUG]: 19,115 (6.2%)", "**Table 5.4 ([TCPDEBUG] §5.5.2): key characteristics"):
        assert text in table, text


def _connection(network, loss_rate, leads, best, stack="Linux 2.4 (Table 4.5)",
                base=(0, 2, 1, 0, 1)):
    from experiments.dbce_tables import plotted_estimators
    return {"network": network, "loss_rate": loss_rate, "best": list(best),
            "dbce": {e: {"all": [None, 1.0, 0.0, 0.0, len(leads), 1, 0,
                                 sum(x >= 1 for x in leads), len(leads), list(leads)]}
                     for e in plotted_estimators()},
            "rto": {"rtts": 10.0, "baseline": stack, "base": list(base)}}


def test_figs_5_1_5_3_5_5_draw_zeros_at_the_left_edge_and_are_readable(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    from experiments.dbce_tables import _styles, plotted_estimators
    from experiments.runner.plots import readability_problems
    from experiments.studies.dbce.figures import chapter5_figures, leads
    conns = [_connection("dbce-a", 0.0, [], (0.0, 0.0)),
             _connection("dbce-a", 0.05, [0.5, 2.0], (3.0, 2.5)),
             _connection("dbce-b", 0.0, [], (0.0, 0.0)),
             _connection("dbce-b", 0.2, [1.5], (0.05, 0.05))]
    assert leads(conns, ["CIM"]) == {"CIM": [0.5, 2.0, 1.5]}
    # a connection analysed before the leads were kept (its row has nine items) gives none
    old = _connection("dbce-a", 0.1, [0.3], (1.0, 1.0))
    old["dbce"]["CIM"]["all"] = old["dbce"]["CIM"]["all"][:9]
    assert leads([old], ["CIM"]) == {"CIM": []}
    curves, real = {}, Figure.savefig

    def savefig(fig, fname, *args, **kwargs):
        real(fig, fname, *args, **kwargs)
        name = str(fname).rsplit("/", 1)[-1]
        assert readability_problems(fig) == [], name
        curves[name] = {line.get_label(): list(line.get_ydata())
                        for line in fig.axes[0].get_lines() if not line.get_label().startswith("_")}

    monkeypatch.setattr(Figure, "savefig", savefig)
    names = chapter5_figures(conns, plotted_estimators(), _styles(), tmp_path)
    assert names == ["fig5_1_loss_rate.png", "fig5_3_lead.png", "fig5_5_best_case.png"]
    # Fig. 5.1: half of each network's connections lossless: each curve starts at 0.5
    assert curves["fig5_1_loss_rate.png"]["dbce-a (2)"][0] == 0.5
    # Fig. 5.5: two connections of four save nothing, one 0.05 RTT, one 3 (additive)
    assert curves["fig5_5_best_case.png"]["additive decrease (4)"] == [0.5, 0.75, 1.0]
    assert curves["fig5_3_lead.png"]["CIM (3)"] == pytest.approx([0, 1 / 3, 2 / 3, 1.0])


def _ch3(network, os_name, verdict, reported, classes, need=None, explains=()):
    return {"network": network, "reordering": "none", "os": os_name, "segments": 20,
            "data_bytes": 20_000, "ch3": {"oos": sum(classes.values()), "verdict": verdict,
                                          "explains": list(explains) or [reported],
                                          "reported": reported, "classes": classes,
                                          "need": need or {}, "reorder": 0, "duplicate": 0,
                                          "resequencing": None}}


def test_chapter_3_tables_count_the_accepted_connections_classes_and_needs(tmp_path):
    from experiments.studies.dbce.chapter3 import (chapter3_figures, chapter3_markdown,
                                                   chapter3_tables)
    conns = [
        _ch3("dbce-a", "linux-2.4", "unique", "linux24", {"rto": 1, "fast_retransmit": 2},
             {"rto": {"needed": 1}, "fast_retransmit": {"needed": 1, "unneeded": 1}}),
        _ch3("dbce-a", "solaris", "consistent", "freebsd410", {"implicit": 1},
             {"implicit": {"unknown": 1}}, explains=("freebsd410", "solaris")),
        _ch3("dbce-a", "windows-xp", "none", "winxp", {"rto": 1, "unexplained": 3}),
        _ch3("dbce-a", "windows-xp", "unique", "linux24", {}),        # no OOS segment
    ]
    t = chapter3_tables(conns)
    row = t["table_3_2"][0]
    assert (row["trace"], row["connections"], row["oos_connections"], row["accepted"]) \
        == ("dbce-a, none", 4, 3, 2)
    # Table 3.5 over the two accepted connections' 4 OOS segments; 3.7 over all 8
    t35, t37 = t["table_3_5"][0], t["table_3_7"][0]
    assert (t35["oos_segments"], t35["RTO"], t35["Dupack"], t35["Implicit"]) == (4, 0.25, 0.5,
                                                                               0.25)
    assert (t37["oos_segments"], t37["Unexplained"]) == (8, 3 / 8)
    t38 = t["table_3_8"][0]
    assert (t38["retransmissions"], t38["needed"], t38["unneeded_explicit"],
            t38["no_inference"]) == (4, 0.5, 0.25, 0.25)
    t34 = {r["os"]: r for r in t["table_3_4"]}
    assert (t34["linux-2.4"]["correct"], t34["solaris"]["alike_with_truth"],
            t34["windows-xp"]["unexplained"]) == (1.0, 1.0, 1.0)
    text = chapter3_markdown(t)
    assert "| dbce-a, none | 4 | 80,000 | 80 | 3 | 60,000 | 2 | 66.7 | 40,000 |" in text
    assert chapter3_figures(conns, tmp_path) == ["fig3_5_unexplained.png"]


def test_table_4_6_in_the_thesis_form_windows_raises_d_to_3():
    from experiments.studies.dbce.table46 import table_4_6, table_4_6_markdown

    def setting(name, **counts):
        return {"setting": name, "connections": 1, "rto_to_fast": 0, "fast_to_rto": 0,
                "spurious_caused": 0, "spurious_avoided": 0, **counts}

    study = {"rto_by_stack": {
        "Linux 2.4 (Table 4.5)": [setting("Linux, D = 2", rto_to_fast=1, spurious_caused=2),
                                  setting("Linux, D = 4", fast_to_rto=3, spurious_avoided=1)],
        "Windows XP (Table 4.5)": [setting("RFC 2988", fast_to_rto=2, spurious_avoided=1),
                                   setting("RFC 2988, D = 4", fast_to_rto=1)]}}
    conns = [_connection("n", 0.1, [], (0, 0), base=(0, 5, 4, 1, 0)),
             _connection("n", 0.1, [], (0, 0), stack="Windows XP (Table 4.5)",
                         base=(0, 6, 3, 0, 1))]
    rows = {r["os"]: r for r in table_4_6(study, conns)}
    assert (rows["Linux"]["fr"], rows["Linux"]["rto"]) == (5, 5)
    assert (rows["Linux"]["rto_to_fr"], rows["Linux"]["spurious_caused"],
            rows["Linux"]["fr_to_rto"], rows["Linux"]["spurious_avoided"]) == (1, 2, 3, 1)
    # Windows' own D is 2: D = 3 turns FR/Rs into RTOs and avoids spurious ones, negative
    assert (rows["Windows"]["rto_to_fr"], rows["Windows"]["spurious_caused"]) == (-2, -1)
    assert rows["Solaris"]["rto_to_fr"] is None and rows["Solaris"]["fr"] == 0
    text = table_4_6_markdown(list(rows.values()))
    assert "| Linux | 1 | 5<br>[TCPDEBUG]: 123,735 | 5<br>[TCPDEBUG]: 186,680 | 1 (10.0%)<br>[TCPDEBUG]: 19,115 " \
           "(6.2%) |" in text
    assert "-2 (-20.0%)<br>[TCPDEBUG]: -35,417 (-3.3%)" in text


@pytest.mark.slow             # [TCPDEBUG]'s quick run: minutes (make test-slow)
def test_every_connection_planned_is_analysed_and_its_losses_are_the_gateways_drops(quick):
    """Ground truth the dissertation never had: the needed retransmissions
    the analyzer finds in the capture at A are the packets R1 dropped, within a quarter
    (networks without cross traffic, whose own drops are not the connections')."""
    out, _ = quick
    rows = [json.loads(line) for line in open(out / "runs.jsonl")]
    rows = [r for r in rows if "connections" in r]
    assert rows and all(r["planned"] == r["analysed"] for r in rows)
    for r in rows:
        if r["scenario"] == "dbce-cross" or r["variant"] != "sack":
            continue
        drops = sum(v for k, v in r.items() if k.startswith("r1_drops_"))
        needed = sum(sum(c["retransmissions"].get("needed", {}).values())
                     for c in r["connections"])
        assert 0.75 * drops - 2 <= needed <= 1.25 * drops + 2, (r["scenario"], drops, needed)


@pytest.mark.xfail(strict=True, reason="NewReno runs: the analyzer finds 25-41 % more needed "
                   "retransmissions than R1 dropped in 6 of 15 (SACK: within 25 %): unexplained")
@pytest.mark.slow             # [TCPDEBUG]'s quick run: minutes (make test-slow)
def test_the_newreno_runs_needed_retransmissions_are_the_gateways_drops(quick):
    out, _ = quick
    rows = [json.loads(line) for line in open(out / "runs.jsonl")]
    for r in rows:
        if "connections" not in r or r["scenario"] == "dbce-cross" or r["variant"] != "newreno":
            continue
        drops = sum(v for k, v in r.items() if k.startswith("r1_drops_"))
        needed = sum(sum(c["retransmissions"].get("needed", {}).values())
                     for c in r["connections"])
        assert 0.75 * drops - 2 <= needed <= 1.25 * drops + 2, (r["scenario"], drops, needed)


# [TCPDEBUG]'s verdicts that hold on quick mode's traces (ch. 4 and 5; ch. 3 is listed, not run)
HOLD = (("fig4_2_fr", "size"), ("fig4_2_rto_slower", "direction"), ("fig4_3_linux", "size"),
        ("s443_small", "direction"), ("s442_solaris_minrto", "direction"),
        ("s444_smart_windows-xp", "size"), ("s444_smart_solaris", "direction"),
        ("s444_smart_freebsd-4.10", "size"), ("s55_cluster2", "direction"),
        ("s55_vegas_clusters", "direction"), ("s442_minrto_hurts", "direction"),
        ("s442_minrto_100", "size"), ("s442_b", "size"), ("s442_linux_vs_rfc", "direction"),
        ("s442_k6_longer", "direction"), ("s444_smart_freebsd-4.10", "direction"),
        ("t46_linux_d4", "direction"), ("t46_linux_d2", "size"),
        ("s444_smart_linux-2.4", "direction"), ("t44_windows-xp_spurious", "direction"),
        ("t44_linux-2.4_spurious", "direction"), ("t44_freebsd-4.10_spurious", "direction"),
        ("t44_freebsd-4.10_spurious", "size"), ("fig5_1_lossless", "size"),
        ("fig5_2_card_best", "size"), ("fig5_2_vegas_no_loss", "direction"),
        ("fig5_2_tris_no_loss", "direction"), ("fig5_2_tris_no_loss", "size"),
        ("fig5_2_daimd_no_loss", "direction"), ("fig5_4_marginal", "direction"),
        ("fig5_6_daimd_zero", "size"),
        ("fig5_6_cim_improves", "size"), ("fig5_6_card_improves", "size"),
        ("fig5_6_deca_improves", "size"), ("fig5_6_random08_improves", "size"),
        ("s544_fpa", "direction"), ("s55_flight", "direction"))
# and those that do not: [TCPDEBUG]'s number, ours (quick run; full mode's in experiments/README.md)
NOT_HERE = {
    ("t44_windows-xp_spurious", "size"): "[TCPDEBUG]: 29.6 % of Windows' retransmissions spurious; 21 %",
    ("t44_linux-2.4_spurious", "size"): "[TCPDEBUG]: 6.2 % of Linux's retransmissions spurious; ours "
                                        "32 %, 55 % of them timeouts",
    ("t44_solaris_spurious", "direction"): "Solaris' spurious retransmissions 45 % by the timer",
    ("t44_solaris_spurious", "size"): "[TCPDEBUG]: 9.4 % of Solaris' spurious; ours 39 %",
    ("t44_windows_vs_linux", "direction"): "Windows' timeouts 24 % spurious, Linux's 54 % "
                                           "([TCPDEBUG]: 30 % and 6 %)",
    ("t44_windows_vs_linux", "size"): "Windows' timeouts 24 % spurious ([TCPDEBUG]: 30 %)",
    ("t44_linux_6pct", "size"): "Linux's timeouts 54 % spurious ([TCPDEBUG]: 6 %)",
    ("t44_spurious_fr", "size"): "spurious fast retransmits 2-22 % of a stack's retransmissions "
                                 "([TCPDEBUG]: 3-5 %): the reordering injections",
    ("t44_rto_dominates", "direction"): "only Windows' (78 %) retransmissions mostly by the timer; "
                                        "Linux 33 %, Solaris 34 %, FreeBSD 24 %",
    ("t44_rto_dominates", "size"): "24-78 % by the timer ([TCPDEBUG]: 60-88 %)",
    ("fig4_2_rto_median", "direction"): "median RTO detection: Solaris 5.0 RTTs, FreeBSD 9.9, "
                                        "Windows 6.0, Linux 5.7 ([TCPDEBUG]: 4 and > 20)",
    ("fig4_2_rto_median", "size"): "Windows' median RTO detection 6.0 RTTs ([TCPDEBUG]: about 4)",
    ("fig4_2_rto_20", "size"): "Solaris' median RTO detection 5.0 RTTs ([TCPDEBUG]: over 20): the "
                               "simulated paths' RTTs are long against Solaris' 400 ms minRTO",
    ("fig4_2_tail", "direction"): "RTOs over 10 RTTs: Windows 2.5 %, Linux 4.8 % ([TCPDEBUG]: 25 % "
                                  "and 10 %)",
    ("fig4_2_tail", "size"): "Windows' RTOs over 10 RTTs 2.5 % ([TCPDEBUG]: 25 %)",
    ("fig4_2_tail_linux", "size"): "Linux's RTOs over 10 RTTs 4.8 % ([TCPDEBUG]: about 10 %)",
    ("fig4_3_little", "size"): "the best case gains under 1 % for 29 % of the connections with "
                               "a retransmission ([TCPDEBUG]: 45-75 %)",
    ("fig4_3_much", "size"): "the best case gains over 10 % for 53 % ([TCPDEBUG]: 15-40 %)",
    ("fig4_3_linux", "direction"): "Linux's best case shortens 48 % of its connections by "
                                   "over 10 %, Windows' 62 %",
    ("s442_k_most", "direction"): "minRTO moves Linux's connections most (1000 ms: -0.21 RTTs), "
                                  "k at most 0.048",
    ("s442_k2_close", "size"): "k = 2 saves 0.12 RTTs a Linux connection with a "
                               "retransmission, the best case 1.9",
    ("s442_a", "direction"): "a = 1/2 and a = 1/32 both lengthen, by 0.0006 and 0.011 RTTs",
    ("s443_d4_hurts", "direction"): "D = 4 shortens Linux's connections by 0.049 RTTs: it avoids "
                                    "the reordering's spurious fast retransmits",
    ("t46_linux_d4", "size"): "D = 4 turns 0.7 % of Linux's retransmissions into timeouts "
                              "([TCPDEBUG]: 7.2 %)",
    ("t46_linux_d2", "direction"): "D = 2 causes no spurious retransmission and turns 1.5 % of "
                                   "timeouts into fast retransmits ([TCPDEBUG]: 12.1 % and 6.2 %)",
    ("s444_smart_linux-2.4", "size"): "Smart-Config shortens 7.2 % of Linux connections with "
                                      "a retransmission by over 10 % ([TCPDEBUG]: about 40 %)",
    ("s444_smart_windows-xp", "direction"): "Windows: 2.4 % shorter, 7.9 % longer by > 10 %",
    ("s444_smart_solaris", "size"): "Solaris: 4.8 % shorter by > 10 % ([TCPDEBUG]: 20 %)",
    ("s444_smart_longer", "size"): "Windows' connections 7.9 % longer by > 10 % ([TCPDEBUG]: < 3 %)",
    ("s444_smart_close", "size"): "Smart-Config's mean change -0.03 RTTs, the best case's 4.0 "
                                  "([TCPDEBUG]: the average close to the bound)",
    ("s55_table5_4", "direction"): "the largest flights (cluster 3, median 41.5 segments) are "
                                   "not the highest throughput (cluster 5, 181 kB/s)",
    ("s55_vegas_clusters", "size"): "Vegas leaves 7 % of a cluster's connections within 0.5 "
                                    "RTT ([TCPDEBUG]: almost all, outside Cluster 2)",
    ("fig5_2_card_best", "direction"): "DECA's mean LPA 0.811, CARD's 0.806",
    ("fig5_2_card_half", "size"): "CARD's LPA under 0.5 in 14 % of lossy connections ([TCPDEBUG]: 45 %)",
    ("fig5_2_vegas_no_loss", "size"): "Vegas: LPA = 0 in 33 % ([TCPDEBUG]: 70-90 %): the drop-tail "
                                      "queues fill before they drop",
    ("fig5_2_daimd_no_loss", "size"): "DAIMD: LPA = 0 in 52 % ([TCPDEBUG]: 70-90 %)",
    ("fig5_2_random_highest", "direction"): "Random(0.8)'s LPA 0.75 below DECA's 0.81: the RTT "
                                            "rises before these losses",
    ("fig5_3_timely", "size"): "33 % of the congestion phases before a loss began an RTT or "
                               "more before it ([TCPDEBUG]: 50-70 %)",
    ("fig5_4_vegas_fp", "size"): "Vegas: no false positive in 66 % ([TCPDEBUG]: > 90 %)",
    ("fig5_4_daimd_fp", "size"): "DAIMD: no false positive in 64 % ([TCPDEBUG]: about 80 %)",
    **{(f"fig5_4_{k}_wrong", "size"): f"{n} wrong in {v} of the connections ([TCPDEBUG]: 65-75 %)"
       for k, n, v in (("card", "CARD", "88 %"), ("cim", "CIM", "55 %"), ("dual", "DUAL", "97 %"),
                       ("tris", "Tri-S", "24 %"), ("deca", "DECA", "97 %"))},
    ("fig5_5_small_gain", "size"): "the best case gains under 0.1 RTT for 73 % ([TCPDEBUG]: 60 %)",
    ("fig5_5_large_gain", "size"): "the best case saves over 10 RTTs for 14 % ([TCPDEBUG]: 25 %)",
    ("fig5_6_vegas_zero", "size"): "Vegas' median change 6.7 RTTs ([TCPDEBUG]: about 0)",
    ("fig5_6_tris_harmful", "direction"): "Tri-S lengthens 1.6 % of the lossy connections: it "
                                          "rarely signals",
    ("fig5_6_dual_harmful", "direction"): "DUAL lengthens 5 %: a predicted loss saves F(x) or "
                                          "R(x), 3-25 RTTs, a false flight costs A(x) < 1 RTT",
    ("fig5_6_bfa_improves", "size"): "BFA shortens 41 % (its +-10 ms hysteresis rarely fires)",
    ("fig5_6_cim_best", "direction"): "CIM's median saving 6.71 RTTs, another's 6.84",
    ("fig5_6_random_like", "size"): "Random(0.8) shortens 84 %, BFA 41 %",
    ("s544_lpa", "size"): "one sample a flight changes an LPA by up to 0.59 (CIM never has its "
                          "22 samples)",
    ("s544_duration", "size"): "one sample a flight changes a median saving by up to 6.7 RTTs",
}


@pytest.fixture(scope="module")
def judged(quick):
    _, summary = quick
    return {(c["key"], verdict): c for c in summary["statements"]
            for verdict in ("direction", "size") if c[verdict] in ("ok", "not ok")}


@pytest.mark.slow             # [TCPDEBUG]'s quick run: minutes (make test-slow)
def test_every_judged_verdict_is_held_or_failed_with_its_reason(judged):
    assert set(judged) == set(HOLD) | set(NOT_HERE)


@pytest.mark.parametrize("check", HOLD + tuple(
    pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=why))
    for k, why in NOT_HERE.items()))
@pytest.mark.slow             # [TCPDEBUG]'s quick run: minutes (make test-slow)
def test_a_verdict_of_004(judged, check):
    assert judged[check][check[1]] == "ok", judged[check]


@pytest.mark.slow             # [TCPDEBUG]'s quick run: minutes (make test-slow)
def test_quick_mode_has_the_timer_events_to_decide_every_timer_statement(quick):
    """A chapter-4 statement on fewer than 20 timer events in the connections it is about is
    listed as not run with its count; quick mode (36 runs of 90 s, every timeout the replay can
    judge, those inside a fast recovery too) has enough for each: none is left undecided for
    want of timer events, and the not-run list keeps only statements the replay cannot make."""
    out, summary = quick
    short = [c["key"] for c in summary["statements"]
             if "timer events in the connections it is about" in (c.get("note") or "")]
    assert short == []
    assert "- #" in (out / "paper_table.md").read_text().split("**Not run**")[1]


def test_a_dbce_run_loads_no_module_outside_its_code_version():
    """--resume reuses rows of the same code version: a run (simulation, capture, analysis,
    scoring, replay) in a fresh interpreter loads no repository module that version misses."""
    script = textwrap.dedent("""
        import os, sys
        from experiments.runner.program import gateway_program
        from experiments.runner.spec import RunSpec
        from experiments.studies.dbce.scenario import run_dbce
        from sim.program import REPO_ROOT
        _, program = gateway_program()
        run_dbce(RunSpec("sack", scenario="dbce-cross", injection="recirc", level=0.01,
                         duration=4.0), program)
        root = str(REPO_ROOT) + os.sep
        env = os.path.abspath(sys.prefix) + os.sep
        for module in list(sys.modules.values()):
            path = os.path.abspath(getattr(module, "__file__", None) or "")
            if path.startswith(root) and not path.startswith(env):
                print(os.path.relpath(path, REPO_ROOT))
    """)
    from experiments.runner.journal import code_files
    from sim.program import REPO_ROOT
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, check=True)
    loaded = set(done.stdout.split())
    hashed = {p.relative_to(REPO_ROOT).as_posix() for p in code_files(REPO_ROOT)}
    assert {"analyzer/dbce.py", "experiments/studies/dbce/scenario.py"} <= loaded
    assert loaded - hashed == set()


@pytest.mark.parametrize("argv,message", [
    (["--networks", "dbce-moon"], "unknown dbce-moon"),
    (["--reorderings", "swap"], "unknown swap"),
    (["--variants", "rdtcp"], "unknown rdtcp"),
    (["--duration", "0"], "--duration must be > 0"),
    (["--seeds", "0"], "--seeds must be >= 1"),
    (["--series", "0.1"], "these runs record no per-flow time series"),
])
def test_bad_options_are_one_usage_error(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err
    assert not (tmp_path / "x").exists()


def test_a_dbce_scenario_refuses_the_queue_swaps():
    from experiments.runner.spec import RunSpec
    from experiments.studies.dbce.scenario import run_dbce
    with pytest.raises(ValueError, match="reorders in the P4 gateway only"):
        run_dbce(RunSpec("sack", scenario="dbce-dumbbell", swaps=5, duration=1.0), None)


def test_a_timer_statement_on_too_few_timer_events_is_not_run(tmp_path):
    """A chapter-4 statement on fewer than 20 timer events in the connections it is about is
    listed as not run with its count, never judged on a handful: one Linux connection whose
    two losses the timer detects once (analyzer.study on a hand-built trace)."""
    import sys
    sys.path.insert(0, os.path.join(REPO, "tests", "analyzer"))
    from test_series import recovery_timeout_trace

    from analyzer import AnalyzerConfig, analyze_file
    from analyzer.study import evaluate, summarize
    from experiments.dbce_tables import statements, table_4_4
    got = []
    analyze_file(recovery_timeout_trace().write(tmp_path / "t.pcap"), AnalyzerConfig(),
                 on_series=got.append)
    [s] = [x for x in got if x.sender.startswith("10.0.1.1")]
    conn = {**evaluate(s, baseline="linux24"), "os": "linux-2.4", "network": "dbce-a",
            "reordering": "none", "variant": "sack", "seed": 1, "ch3": None}
    assert conn["rto"]["base"][2] == 1                      # the timeout in the recovery
    study = summarize([conn])
    by = {c.key: c for c in statements(study, table_4_4([conn]), [conn])}
    k2 = by["s442_k2_close"]
    assert k2.size == "not run"
    assert "1 timer events in the connections it is about (< 20)" in k2.note
