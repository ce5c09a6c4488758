"""Shape checks of [RDTCP]'s figures on a quick run: SACK falls as swaps rise; RD-TCP stays within 1 % of
its own no-reordering throughput across the paper's reordering levels ([RDTCP] §6)."""

import json

import pytest

from experiments.rdtcp_figures import main

# every test here runs or reads a quick sweep of [RDTCP]'s figures: minutes (make test-all)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def quick_summary(tmp_path_factory):
    out = tmp_path_factory.mktemp("quick")
    status = main(["--mode", "quick", "--jobs", "2", "--out", str(out), "--seeds", "1",
                   "--variants", "sack,rdtcp", "--swaps", "0,15,30", "--interval", "1",
                   "--duration", "30", "--no-k-study", "--no-progress"])
    summary = json.loads((out / "summary.json").read_text())
    assert status == 0 and summary["failed_runs"] == 0
    assert (out / "fig3_sack_vs_rdtcp.png").exists()
    return summary


def test_quick_run_sack_throughput_falls_as_swaps_rise(quick_summary):
    assert quick_summary["checks"]["sack_falls_interval_1s"], quick_summary["points"]


def test_quick_run_reports_the_swaps_each_sender_was_given_and_no_sd_from_one_seed(
        quick_summary):
    # one seed: no spread measured, so no sd (null, not 0.0); swaps: SACK keeps R1's queue
    # short, so fewer of the 15 swaps asked each second find two packets to swap
    points = {(p["variant"], p["swaps"], p["interval"]): p for p in quick_summary["points"]}
    assert all(p["n"] == 1 and p["throughput_std_Bps"] is None for p in points.values())
    for variant in ("sack", "rdtcp"):
        p = points[(variant, 15, 1.0)]
        assert p["swaps_asked_mean"] == pytest.approx(15 * 30, abs=15), p
        assert 0 < p["swaps_done_mean"] < p["swaps_asked_mean"], p
    assert points[("sack", 0, None)]["swaps_asked_mean"] == 0
    assert "swaps done / asked" in quick_summary["table_markdown"]


@pytest.mark.xfail(strict=True, reason=(
    "RD-TCP k = 3 loses more than 1 % to the swaps ([RDTCP] §6: within 1 %); experiments/README.md, "
    "RD-TCP"))
def test_quick_run_rdtcp_stays_within_1pct_of_no_reordering(quick_summary):
    assert quick_summary["checks"]["rdtcp_within_1pct"], quick_summary["points"]


@pytest.fixture(scope="module")
def k_study_summary(tmp_path_factory):
    out = tmp_path_factory.mktemp("kstudy")
    status = main(["--mode", "quick", "--jobs", "2", "--out", str(out), "--seeds", "1",
                   "--variants", "rdtcp", "--swaps", "0", "--interval", "1", "--duration", "30",
                   "--k-values", "0,6", "--k-spans", "5", "--no-progress"])
    summary = json.loads((out / "summary.json").read_text())
    assert status == 0 and summary["failed_runs"] == 0
    assert (out / "fig6_k_study.png").exists()
    return summary


def test_k_study_rdtcp_with_threshold_above_the_swap_span_keeps_its_throughput(k_study_summary):
    # swapped packets at most 5 places apart draw at most 5 duplicate ACKs: with k = 6
    # (dupthresh 9) RD-TCP never fast-retransmits for a single swap and stays within 1% of its
    # no-reordering throughput, while k = 0 (dupthresh 3, SACK's) loses to spurious retransmits
    by_k = {p["k"]: p["vs_no_reordering"] for p in k_study_summary["k_study"]["5"]}
    assert set(by_k) == {0, 6}
    assert by_k[6] >= 0.99, by_k
    assert by_k[0] < by_k[6] - 0.05, by_k


def test_dsack_scheme_raising_dupthresh_beats_undo_alone_under_swaps(tmp_path):
    # [RDTCP] Fig. 4's "TCP using DSACK" (600,600 B/s at 15 swaps/s) is far above what undo alone
    # achieves here; Blanton and Allman's dupthresh increase ([RRTCP] §5.1) closes the gap
    status = main(["--mode", "quick", "--jobs", "2", "--out", str(tmp_path), "--seeds", "1",
                   "--variants", "dsack,dsack-inc", "--swaps", "15", "--interval", "1",
                   "--duration", "30", "--no-k-study", "--no-progress"])
    assert status == 0
    runs = {r["variant"]: r for r in json.loads((tmp_path / "summary.json").read_text())["points"]}
    assert runs["dsack-inc"]["throughput_mean_Bps"] > 1.05 * runs["dsack"]["throughput_mean_Bps"]


def test_rdtcp_with_adaptive_k_closes_most_of_the_gap_under_swaps(tmp_path):
    # [RDTCP] §3's proposal (raise k when spurious retransmits continue) against RD-TCP's fixed
    # k = 3 under the figures' swap model; shape check only, 30 s runs
    status = main(["--mode", "quick", "--jobs", "2", "--out", str(tmp_path), "--seeds", "1",
                   "--variants", "rdtcp,rdtcp-adaptive", "--swaps", "0,15", "--interval", "1",
                   "--duration", "30", "--no-k-study", "--no-progress"])
    assert status == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    checks = summary["checks"]
    # (30 s, seed 1: 0.048 against 0.112 when written)
    assert checks["rdtcp_adaptive_max_relative_change"] < 0.75 * checks["rdtcp_max_relative_change"]
    assert (tmp_path / "fig2_rdtcp.png").exists()


def test_rdtcp_with_measured_k_stays_within_1pct_at_the_papers_quoted_level(tmp_path):
    # [RDTCP] §3's other proposal (k set from the amount of reordering measured) under the figures'
    # swap model, at the level the paper quotes (15 swaps every second), 60 s runs: the few
    # false fast retransmits while k is learnt cost less than 1 % (0.993 when written; 30
    # swaps/s needs the full mode's 10-minute runs to amortise them, experiments/README.md)
    status = main(["--mode", "quick", "--jobs", "2", "--out", str(tmp_path), "--seeds", "1",
                   "--variants", "rdtcp,rdtcp-measured", "--swaps", "0,15", "--interval", "1",
                   "--duration", "60", "--no-k-study", "--no-progress"])
    assert status == 0
    checks = json.loads((tmp_path / "summary.json").read_text())["checks"]
    assert checks["rdtcp_measured_within_1pct"], checks
    assert not checks["rdtcp_within_1pct"], checks


def test_rdtcp_with_measured_k_and_undo_stays_within_1pct_on_a_quick_run(tmp_path):
    # the within-1 % check, run as quick mode runs it (60 s, 2 seeds, 5/15/30 swaps, every 1 s and
    # 8 s), on RD-TCP whose k is measured and whose false fast retransmits (those that teach it
    # k) are undone by DSACK: 0.37 % at worst when written, where rdtcp-measured alone loses
    # 2.8 % at 30 swaps/s to the cuts of those retransmissions (experiments/README.md)
    status = main(["--mode", "quick", "--jobs", "2", "--out", str(tmp_path),
                   "--variants", "rdtcp-measured,rdtcp-measured-undo", "--no-k-study",
                   "--no-progress"])
    assert status == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    checks = summary["checks"]
    assert summary["failed_runs"] == 0
    assert {p["swaps"] for p in summary["points"]} == {0, 5, 15, 30}
    assert {p["interval"] for p in summary["points"]} == {None, 1.0, 8.0}
    assert checks["rdtcp_measured_undo_within_1pct"], checks
    assert (checks["rdtcp_measured_undo_max_relative_change"]
            < checks["rdtcp_measured_max_relative_change"]), checks
