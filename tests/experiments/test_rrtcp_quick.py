"""[RRTCP]'s top priorities checked on quick-mode runs of its figures: Figs. 4/5
(SACK << FA < TA, TA over 71 % of the ideal at 30 % delayed), Figs. 8/9 (the timeout knee near an
FA ratio of 60 %, TA at the best fixed FA ratio's throughput, its FA ratio about 60-70 % and
dupthresh about 25), Figs. 10/11 with Table 3 (TA collapses beyond a 1.1 s mean delay, TAES
fixes it, mean RTOs ordered TA < HG < FA ~ TAES), and Table 4's ordering (TA above BL-INC with
and without bursty loss). Each test reads one statement of paper_table as the sweep wrote it;
where ours does not reproduce [RRTCP]'s, a strict xfail says why (experiments/README.md, RR-TCP)."""

import json

import pytest

from experiments.rrtcp_figures import main

# where an xfail's reason is explained, with its numbers
WHY = "experiments/README.md, RR-TCP"
# every test here reads one quick sweep of [RRTCP]'s figures: minutes (make test-all)
pytestmark = pytest.mark.slow

FIGURES = "4,5,8,9,10,11,12,13,t3,t4"


@pytest.fixture(scope="module")
def checks(tmp_path_factory):
    out = tmp_path_factory.mktemp("rrtcp-quick")
    status = main(["--mode", "quick", "--figures", FIGURES, "--jobs", "2", "--no-progress",
                   "--out", str(out)])
    summary = json.loads((out / "summary.json").read_text())
    assert status == 0 and summary["failed_runs"] == 0
    return {c["key"]: c for c in summary["statements"]}


def _holds(checks: dict, key: str, *verdicts: str) -> None:
    """The statement's verdicts (direction, size or both) are ok."""
    for verdict in verdicts or ("direction", "size"):
        assert checks[key][verdict] == "ok", checks[key]


# ------------------------------------------------------------------ Figs. 4/5
def test_fig4_sack_far_below_fa_below_ta(checks):
    _holds(checks, "fig4_dsack_better", "direction")


def test_fig4_ta_keeps_over_71pct_of_sack_nodelay_at_30pct_delayed(checks):
    _holds(checks, "fig4_ta_71", "size")


def test_fig5_fa_false_fast_retransmits_below_10pct_and_ta_fewer(checks):
    _holds(checks, "fig5_fa_under_10", "size")
    _holds(checks, "fig5_ta_fewer", "direction")


# ------------------------------------------------------------------ Figs. 8/9
def test_fig8a_timeouts_have_a_knee_near_an_fa_ratio_of_60pct(checks):
    _holds(checks, "fig8a_knee", "direction")


def test_fig8c_ta_reaches_the_best_fixed_fa_ratios_throughput(checks):
    _holds(checks, "fig8c_ta_max", "size")


def test_fig9_ta_settles_its_fa_ratio_about_60_70pct_and_dupthresh_about_25(checks):
    _holds(checks, "fig9_fa_70", "size")
    _holds(checks, "fig9_dupthresh_25", "size")


# ------------------------------------------------------------------ Figs. 10/11, Table 3
@pytest.mark.xfail(strict=True, reason=(
    "Figs. 10/11: DSACK-TA collapses at a 1.6 s mean delay, not at 1.2 s; " + WHY))
def test_fig10_11_ta_collapses_beyond_a_1_1s_mean_delay(checks):
    _holds(checks, "fig10_ta_collapses", "direction")
    _holds(checks, "fig11_ta_timeouts", "direction")


def test_fig10_11_taes_has_fewer_timeouts_and_more_throughput_than_ta(checks):
    # holds: TA collapses at 1.6 s (above), where TAES keeps 29.2 kB/s and no timeout
    _holds(checks, "figs10-11_taes_fixes", "direction")


@pytest.mark.xfail(strict=True, reason=(
    "Table 3: TA's mean RTO is FA's (3.05 s; [RRTCP]: 1.6 s), not below HG's; " + WHY))
def test_table3_mean_rtos_ordered_ta_hg_fa_taes(checks):
    _holds(checks, "table3_order", "direction")


# ------------------------------------------------------------------ Table 4
def test_table4_ta_above_bl_inc_with_and_without_bursty_loss(checks):
    _holds(checks, "table4_bursts_cost_bl", "direction")
    _holds(checks, "table4_bl_more_fr", "direction")
