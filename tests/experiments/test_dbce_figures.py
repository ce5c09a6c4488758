"""[TCPDEBUG] ch. 4's figures (Figs. 4.2-4.11) and §5.5's cluster study (Table 5.4, Figs.
5.12-5.29) of python -m experiments.dbce_tables, drawn from a small fixture of connections as
the driver's rows carry them: each figure written with its CSV, readable
(``experiments.runner.plots.readability_problems``), carrying the thesis' marks and the right
numbers; a figure without its data listed as not drawn with why; the clusters found where
the connections fall apart; the statements on them judged."""

import csv
import random

import pytest
from matplotlib.figure import Figure

from experiments.dbce_tables import cluster_study, plotted_estimators
from experiments.runner.plots import readability_problems
from experiments.studies.dbce.chapter4 import (BIN_FLOOR, binned, chapter4_figures, changes,
                                               population)
from experiments.studies.dbce.clusters import K, cluster_figures, table_5_4_markdown
from experiments.studies.dbce.statements import cluster_statements
from experiments.studies.dbce.statements import chapter4_statements

STACKS = {"linux-2.4": "Linux 2.4 (Table 4.5)", "windows-xp": "Windows XP (Table 4.5)",
          "solaris": "Solaris (Table 4.5)", "freebsd-4.10": "FreeBSD 4.10 (Table 4.5)"}
SETTINGS = ("Linux, k = 2", "Linux, k = 3", "Linux, k = 6", "Linux, minRTO = 400 ms",
            "Linux, a = 1/2", "Linux, D = 2", "Solaris, minRTO = 100 ms",
            "Smart-Config (Linux, k = 2, minRTO = 100 ms, D = max(1, min(3, F-2)))")


def _connection(i, os_name, *, base=10.0, best=4.0, saved=2.0, flight=8, fast=(1.5,),
                timer=(4.0,), retx=1):
    """A connection of ``os_name`` whose own timer costs ``base`` RTTs, the best case
    ``best`` less, every setting ``saved`` less, in a duration of 100 RTTs."""
    outcome = [base - saved] + [0] * 10
    return {"connection": i, "os": os_name, "network": "dbce-a", "seed": 1,
            "median_flight": flight, "retransmissions": {"needed": {"timer": retx}},
            "detect": {"fast": list(fast), "timer": list(timer)},
            "rto": {"rtts": 100.0, "baseline": STACKS[os_name], "best": base - best,
                    "base": [base, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0],
                    "settings": {name: list(outcome) for name in SETTINGS}}}


@pytest.fixture
def saved_figures(monkeypatch):
    """{file name: (figure, readability problems)} of every figure saved meanwhile."""
    found = {}
    real = Figure.savefig

    def savefig(fig, fname, *args, **kwargs):
        real(fig, fname, *args, **kwargs)
        found[str(fname).rsplit("/", 1)[-1]] = (fig, readability_problems(fig))

    monkeypatch.setattr(Figure, "savefig", savefig)
    return found


def _texts(fig) -> str:
    return " | ".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_chapter_4s_figures_are_drawn_readable_with_the_thesis_marks(tmp_path, saved_figures):
    conns = [_connection(i, os_name, best=0.5 * (i + 1), flight=2 + i % 8)
             for i, os_name in enumerate(list(STACKS) * 6)]
    conns.append({**_connection(99, "linux-2.4"), "retransmissions": {}})    # no loss: out
    assert len(population(conns)) == 24
    written, missing = chapter4_figures(conns, tmp_path)
    assert written == ["fig4_2_detection.png", "fig4_3_best_case.png", "fig4_4_linux_k2.png",
                       "fig4_5_linux_k3.png", "fig4_6_linux_k6.png", "fig4_7_minrto.png",
                       "fig4_8_linux_a.png", "fig4_9_linux_d2.png",
                       "fig4_11_smart_vs_best.png", "fig4_10_smart.png"]
    assert missing == []
    for name in written:
        fig, problems = saved_figures[name]
        assert problems == [], name
        for ax in fig.axes:
            assert ax.get_xlabel() or ax.get_ylabel(), name
    for name in ("fig4_2_detection.csv", "fig4_3_best_case.csv", "fig4_10_smart.csv",
                 "fig4_binned.csv"):
        assert (tmp_path / name).stat().st_size > 0, name
    # the thesis' numbers marked where it states them
    assert "[TCPDEBUG]: Windows, Linux median ~4 RTTs" in _texts(saved_figures["fig4_2_detection.png"][0])
    assert "[TCPDEBUG]: 45-75 %\nunder 1 %" in _texts(saved_figures["fig4_3_best_case.png"][0])
    assert "[TCPDEBUG]: Linux 40% > 10 % shorter" in _texts(saved_figures["fig4_10_smart.png"][0])
    # Fig. 4.7: Solaris' and Linux's panels; Fig. 4.9: small and large connections
    assert len(saved_figures["fig4_7_minrto.png"][0].axes) == 2
    rows = list(csv.DictReader(open(tmp_path / "fig4_binned.csv")))
    panels = {r["panel"] for r in rows if r["figure"] == "fig4"}
    assert {"Solaris, minRTO = 100 ms", "Linux, minRTO = 400 ms", "small (median flight <= 4 "
            "segments)", "large (median flight > 4)"} <= panels
    # each Linux connection saves 2 RTTs under k = 2: the mean of every bin
    k2 = [r for r in rows if r["setting"] == "Linux, k = 2"]
    assert sum(int(r["connections"]) for r in k2) == 6
    assert all(float(r["mean"]) == pytest.approx(2.0) for r in k2)
    # Fig. 4.3: the Linux connections' best cases, 0.5-10.5 RTTs of 100, in percent after the
    # curve's start at the axis' left edge
    fig43 = list(csv.DictReader(open(tmp_path / "fig4_3_best_case.csv")))
    assert sorted(float(r["percent"]) for r in fig43 if r["os"] == "linux-2.4") \
        == pytest.approx([0.01, 0.5, 2.5, 4.5, 6.5, 8.5, 10.5])


def test_a_figure_without_its_data_is_listed_as_not_drawn(tmp_path, saved_figures):
    conns = [{**_connection(i, "linux-2.4"), "detect": None} for i in range(3)]
    written, missing = chapter4_figures(conns, tmp_path)
    assert "fig4_2_detection.png" not in written
    assert missing[0][0] == "Fig. 4.2" and "detection time" in missing[0][1]
    assert any(fig == "Fig. 4.7" and "Solaris" in why for fig, why in missing)
    assert chapter4_figures([], tmp_path)[0] == []


def test_the_bins_take_the_mean_and_95th_percentile_and_keep_zeros_at_the_floor():
    pairs = [(0.0, 1.0), (0.005, 3.0)] + [(2.0, float(y)) for y in range(1, 21)]
    rows = binned(pairs)
    assert rows[0]["best_mean"] == BIN_FLOOR and rows[0]["mean"] == 2.0
    assert rows[1]["connections"] == 20 and rows[1]["mean"] == 10.5 and rows[1]["p95"] == 19.0
    assert changes([_connection(1, "linux-2.4", flight=3)], "Linux, D = 2",
                   stack=STACKS["linux-2.4"], part="large") == []


def test_chapter_4s_figure_statements_are_judged_from_the_same_connections():
    conns = [_connection(i, os_name, fast=(1.5,) * 5, timer=(4.0,) * 5 if os_name in
                         ("linux-2.4", "windows-xp") else (25.0,) * 5)
             for i, os_name in enumerate(list(STACKS) * 5)]
    study = {"rto_settings": [], "rto_by_stack": {}, "rto_baseline": None}
    got = {s.key: s for s in chapter4_statements(study, [], conns)}
    assert (got["fig4_2_fr"].size, got["fig4_2_rto_median"].direction,
            got["fig4_2_rto_median"].size, got["fig4_2_rto_20"].size) == ("ok",) * 4
    assert got["fig4_2_tail"].direction == "not ok"         # no RTO over 10 RTTs here
    # every setting saves 2 RTTs of a best case of 4: half of it, not "close"
    assert got["s444_smart_close"].size in ("not ok", "not run")
    assert "mean change 2" in got["s444_smart_close"].values["ours"]


def _clustered_connections(n_per=14):
    """Five groups of connections far apart in every characteristic; the fifth has the
    largest flights and throughput, and Vegas saves it the most."""
    rng = random.Random(3)
    out = []
    for g in range(K):
        for i in range(n_per):
            jit = 1 + 0.05 * rng.random()
            add = 20.0 if g == 4 else (0.1 if i % 2 else 0.0)
            out.append({
                "connection": 100 * g + i, "network": "dbce-a", "seed": 1, "segments": 50,
                "samples": 40, "episodes": 2, "loss_rate": 10 ** -(g % 3 + 1) * jit,
                "rtt_p90": 0.1 * (1 + g) * jit, "min_rtt": 0.05,
                "median_flight": 2 ** g * jit, "throughput": 10_000 * 4 ** g * jit,
                "flight_rtt_corr": -0.5 + 0.25 * g, "loss_distance": 10.0 * (5 - g) * jit,
                "best": [30.0, 20.0],
                "dbce": {e: {"all": [0.5, 0.9, add, add / 2]} for e in plotted_estimators()}})
    rng.shuffle(out)
    return out


def test_the_cluster_study_finds_the_groups_draws_them_and_judges_004s_statements(
        tmp_path, saved_figures):
    usable, numbers, rows = cluster_study(_clustered_connections())
    assert len(usable) == 5 * 14 and sorted(set(numbers)) == [1, 2, 3, 4, 5]
    # each group one cluster, numbered by throughput: the group's index + 1
    for c, n in zip(usable, numbers):
        assert n == c["connection"] // 100 + 1
    assert [r["connections"] for r in rows] == [14] * 5
    assert "very high throughput" in rows[-1]["summary"] and "very high flight size" \
        in rows[-1]["summary"]
    table = table_5_4_markdown(rows)
    assert "| 5 | 14 | " in table and "Table 5.4" in table
    names = cluster_figures(usable, numbers, tmp_path)
    assert names == ["fig5_12_17_clusters.png", "fig5_18_vegas_clusters.png",
                     "fig5_22_cim_clusters.png", "fig5_26_tris_clusters.png"]
    for name in names:
        fig, problems = saved_figures[name]
        assert problems == [], name
    assert len(saved_figures["fig5_12_17_clusters.png"][0].axes) == 6
    assert (tmp_path / "fig5_clusters.csv").stat().st_size > 0
    got = {s.key: s for s in cluster_statements(rows)}
    assert got["s55_table5_4"].direction == "ok"
    assert got["s55_cluster2"].direction == "ok"
    assert (got["s55_vegas_clusters"].direction, got["s55_vegas_clusters"].size) == ("ok", "ok")


def test_too_few_connections_are_not_clustered_and_say_why():
    usable, numbers, why = cluster_study(_clustered_connections(n_per=3))
    assert usable == [] and "too few for 5 clusters" in why
    st = {s.key: s for s in cluster_statements(why)}
    assert st["s55_cluster2"].direction == "not run" and "too few" in st["s55_cluster2"].note


def test_each_connection_carries_its_detection_times_and_cluster_characteristics():
    """analyzer.study's per-connection fields the figures read: Fig. 4.2's detection times
    (first transmission to retransmission, in RTTs of the moving average of weight 1/4 of the
    samples acknowledged by then) and §5.5.1's characteristics."""
    from types import SimpleNamespace as NS

    from analyzer.dbce import episodes
    from analyzer.series import Loss
    from analyzer.study import cluster_features, detection_times
    samples = [NS(acked=1.0, rtt=0.1, flight=2), NS(acked=2.0, rtt=0.2, flight=4),
               NS(acked=3.0, rtt=0.3, flight=6)]
    losses = [Loss(0.5, 1.5, True, 2, 0, "rto"), Loss(2.2, 2.5, False, 4, 1460, "fast")]
    series = NS(per_ack=lambda: samples, losses=losses)
    got = detection_times(series)
    # at 1.5 s the average is 0.1 s (one sample); at 2.5 s 0.1 + (0.2 - 0.1) / 4 = 0.125 s
    assert got == {"timer": [10.0], "fast": [pytest.approx(2.4)]}
    eps = episodes(losses)
    feats = cluster_features(samples, eps, 10.0)
    assert feats["rtt_mean"] == pytest.approx(0.2)
    assert feats["flight_rtt_corr"] == pytest.approx(1.0)
    # two episodes 1.7 s apart, in mean RTTs
    assert feats["loss_distance"] == pytest.approx(1.7 / 0.2)
    # one episode: the duration in mean RTTs; none: no distance
    assert cluster_features(samples, eps[:1], 10.0)["loss_distance"] == pytest.approx(50.0)
    assert cluster_features(samples, [], 10.0)["loss_distance"] is None


def _oos(os_name, verdict, classes, rfc):
    return {"network": "dbce-a", "reordering": "none", "os": os_name, "segments": 20,
            "data_bytes": 20_000,
            "ch3": {"oos": sum(classes.values()), "verdict": verdict, "explains": ["linux24"],
                    "reported": "linux24", "classes": classes, "need": {}, "reorder": 0,
                    "duplicate": 0, "resequencing": None, "rfc_classes": rfc}}


def test_table_3_6_reads_the_accepted_connections_as_the_rfc_only_profile_does():
    """Table 3.6: the OOS segments of the accepted connections in tcpflows' categories, from
    the RFC-only profile's classes (partial-ACK and SACK gathered as FR/R recovery); a
    connection TCPdebug does not accept is left out, as in Table 3.5; rows of an older
    analysis (without the RFC-only classes) give no table."""
    from experiments.studies.dbce.chapter3 import chapter3_markdown, chapter3_tables
    conns = [_oos("linux-2.4", "unique", {"rto": 2, "fast_retransmit": 2},
                  {"rto": 1, "implicit": 1, "sack": 1, "partial_ack": 1}),
             _oos("windows-xp", "none", {"rto": 4}, {"rto": 4})]
    t = chapter3_tables(conns)
    row = t["table_3_6"][-1]
    assert row["trace"] == "all" and row["oos_segments"] == 4
    assert (row["RTO"], row["Dupack"], row["RTO recovery"], row["FR/R recovery"]) \
        == (0.25, 0.0, 0.25, 0.5)
    assert "**Table 3.6: the same OOS segments as an RFC-based tool" in chapter3_markdown(t)
    conns[0]["ch3"]["rfc_classes"] = None
    assert chapter3_tables(conns)["table_3_6"] == []
