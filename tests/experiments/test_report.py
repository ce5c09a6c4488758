"""Sweep aggregation, shape checks, the paper table and figure files, from given run rows."""

import csv
import json

import pytest

from experiments.rdtcp_figures import MODES, build_specs, parse_args, sweep_config, write_outputs
from experiments.studies.rdtcp.report import (aggregate, aggregate_all, k_study, paper_sender,
                                              paper_table, shape_checks, table_markdown)
from experiments.studies.rdtcp.scenario import PAPER, PAPER_VARIANTS, VARIANTS


def _row(variant, swaps, interval, seed, tput, **extra):
    return {"variant": variant, "swaps": swaps, "interval": interval, "seed": seed,
            "injection": "swap", "level": 0.0, "throughput_Bps": tput, **extra}


def _rows(sack_curve, rdtcp_curve, dsack_curve=None):
    rows = []
    curves = {"sack": sack_curve, "rdtcp": rdtcp_curve, "dsack": dsack_curve or rdtcp_curve}
    for variant, curve in curves.items():
        for swaps, tput in curve.items():
            for interval in ((1.0,) if swaps == 0 else (1.0, 8.0)):
                for seed, jitter in ((1, -100.0), (2, 100.0)):
                    rows.append(_row(variant, swaps, interval, seed, tput + jitter))
    return rows


GOOD_SACK = {0: 600_000, 5: 580_000, 15: 540_000, 30: 500_000}
FLAT_RDTCP = {0: 600_000, 5: 599_000, 15: 598_500, 30: 598_000}


def test_aggregate_gives_mean_sample_sd_and_count_per_point():
    points = aggregate(_rows(GOOD_SACK, FLAT_RDTCP))
    p = points[("sack", "swap", 1.0, 15, 0.0)]
    # 539,900 and 540,100: the sample sd (n - 1) is 100·√2; the population sd (100) would
    # understate the spread of two seeds
    assert (p["mean"], p["n"]) == (540_000, 2)
    assert p["std"] == pytest.approx(100 * 2 ** 0.5)
    assert ("sack", "swap", None, 0, 0.0) in points     # zero swaps shared by both intervals


def test_aggregate_keeps_the_starting_k_of_the_k_adapting_rdtcps_apart():
    rows = [_row(v, 15, 1.0, 1, 590_000.0 + k, k=k)
            for v in ("rdtcp-measured", "sack") for k in (3, 6)]
    points = aggregate_all(rows)
    assert {key[5] for key in points if key[0] == "rdtcp-measured"} == {3, 6}
    (sack,) = [p for key, p in points.items() if key[0] == "sack"]   # k does not act on SACK
    assert sack["n"] == 2


def test_aggregate_leaves_out_failed_runs():
    rows = _rows(GOOD_SACK, FLAT_RDTCP) + [{**_row("sack", 15, 1.0, 3, 0.0), "error": "boom"}]
    assert aggregate(rows)[("sack", "swap", 1.0, 15, 0.0)]["n"] == 2


def test_shape_checks_pass_when_sack_falls_and_rdtcp_flat():
    checks = shape_checks(aggregate(_rows(GOOD_SACK, FLAT_RDTCP)))
    assert checks["sack_falls_interval_1s"] and checks["sack_falls_interval_8s"]
    assert checks["rdtcp_within_1pct"]
    assert checks["rdtcp_max_relative_change"] == pytest.approx(2000 / 600_000)


def test_shape_checks_fail_when_rdtcp_drops_more_than_1pct():
    checks = shape_checks(aggregate(_rows(GOOD_SACK, {**FLAT_RDTCP, 30: 580_000})))
    assert not checks["rdtcp_within_1pct"]


def test_shape_checks_fail_when_sack_rises_with_swaps():
    checks = shape_checks(aggregate(_rows({**GOOD_SACK, 30: 620_000}, FLAT_RDTCP)))
    assert not checks["sack_falls_interval_1s"]


def test_paper_table_puts_papers_numbers_beside_ours():
    table = paper_table(aggregate(_rows(GOOD_SACK, FLAT_RDTCP)))
    by = {(r["scenario"], r["variant"]): r for r in table}
    sack15 = by[("15 swaps every 1 s", "sack")]
    assert sack15["paper_Bps"] == 526_000 and sack15["ours_Bps"] == 540_000
    assert sack15["ours_vs_no_reordering"] == pytest.approx(0.9)
    assert by[("no reordering", "rdtcp")]["paper_Bps"] == 607_500
    assert by[("15 swaps every 1 s", "rdtcp")]["paper_Bps"] == 607_440
    assert by[("15 swaps every 1 s", "dsack")]["paper_Bps"] == 600_600


def test_write_outputs_writes_every_file(tmp_path):
    rows = _rows(GOOD_SACK, FLAT_RDTCP)
    summary = write_outputs(rows, MODES["quick"], tmp_path, mode="quick")
    for name in ("runs.csv", "points.csv", "paper_table.md", "paper_table.csv", "summary.json",
                 "fig1_sack.png", "fig2_rdtcp.png", "fig3_sack_vs_rdtcp.png",
                 "fig4_dsack_vs_rdtcp.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert (tmp_path / "fig1_sack.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["checks"] == summary["checks"] and saved["runs"] == len(rows)
    assert "| 15 swaps every 1 s | sack | 526,000 |" in (tmp_path / "paper_table.md").read_text()


def test_build_specs_shares_zero_swaps_between_intervals():
    cfg = sweep_config(parse_args(["--mode", "quick", "--seeds", "1", "--variants", "sack"]))
    specs = build_specs(cfg)
    zero = [s for s in specs if s.swaps == 0]
    assert len(zero) == 1
    assert len(specs) == 1 + (len(cfg.swaps) - 1) * len(cfg.intervals)


def test_delay_series_runs_for_every_sender_and_p4_series_for_the_papers_only():
    cfg = sweep_config(parse_args(["--mode", "full", "--seeds", "1", "--variants", "sack,rack",
                                   "--no-k-study"]))
    series = {(s.variant, s.injection) for s in build_specs(cfg) if s.injection != "swap"}
    assert series == {("sack", "altpath"), ("sack", "recirc"), ("sack", "delay"),
                      ("rack", "delay")}


def test_cli_overrides_replace_mode_defaults():
    cfg = sweep_config(parse_args(["--mode", "full", "--duration", "30", "--swaps", "0,15",
                                   "--interval", "1", "--no-injections"]))
    assert (cfg.duration, cfg.swaps, cfg.intervals, cfg.injections) == (30.0, (0, 15), (1.0,), ())


@pytest.mark.parametrize("argv,message", [
    (["--jobs", "0"], "--jobs must be >= 1"),
    (["--swaps", "a,b"], "comma-separated list"),
    (["--variants", "vegas"], "unknown vegas"),
    (["--duration", "-5"], "--duration must be > 0"),
    (["--swap-span", "-1"], "--swap-span must be >= 0"),
    (["--k-values", "0,-2"], "--k-values must be >= 0"),
])
def test_cli_rejects_bad_arguments_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit):
        parse_args(argv)
    assert message in capsys.readouterr().err


def _k_rows():
    """RD-TCP at 15 swaps/s for k in 0, 3, 6 under two swap spans, plus the figures' runs."""
    rows = _rows(GOOD_SACK, FLAT_RDTCP)
    for r in rows:
        r.update(k=3, swap_span=0)
    rel = {(0, 0): 0.80, (3, 0): 0.85, (6, 0): 0.90, (0, 5): 0.82, (3, 5): 0.995, (6, 5): 0.999}
    for (k, span), f in rel.items():
        if (k, span) != (3, 0):
            rows.append(_row("rdtcp", 15, 1.0, 1, 600_000 * f, k=k, swap_span=span))
    return rows


def test_k_study_rows_stay_out_of_the_figures():
    rows = _k_rows()
    assert aggregate(rows) == aggregate(_rows(GOOD_SACK, FLAT_RDTCP))
    assert len(aggregate_all(rows)) == len(aggregate(rows)) + 5


def test_k_study_gives_throughput_against_k_per_span_relative_to_no_reordering():
    study = k_study(aggregate_all(_k_rows()), swaps=15, interval=1.0)
    assert sorted(study) == [0, 5]
    assert [p["k"] for p in study[5]] == [0, 3, 6]
    rel = {(span, p["k"]): p["vs_no_reordering"] for span, ps in study.items() for p in ps}
    assert rel[(5, 3)] == pytest.approx(0.995, abs=1e-4)
    assert rel[(0, 3)] == pytest.approx(598_500 / 600_000, abs=1e-4)   # the figures' run


def test_write_outputs_plots_the_k_study_when_configured(tmp_path):
    summary = write_outputs(_k_rows(), MODES["quick"], tmp_path, mode="quick")
    assert "fig6_k_study.png" in summary["figures"]
    assert (tmp_path / "fig6_k_study.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p["k"] for p in summary["k_study"]["5"]] == [0, 3, 6]


def test_build_specs_k_study_reuses_the_figures_run_and_repeats_none():
    cfg = sweep_config(parse_args(["--mode", "quick", "--seeds", "1", "--variants", "rdtcp",
                                   "--k-values", "0,3", "--k-spans", "0,5"]))
    specs = build_specs(cfg)
    assert len(specs) == len(set(specs))
    study = [s for s in specs if s.swaps == 15 and s.interval == 1.0]
    assert sorted((s.k, s.swap_span) for s in study) == [(0, 0), (0, 5), (3, 0), (3, 5)]
    plain = build_specs(sweep_config(parse_args(["--mode", "quick", "--no-k-study"])))
    assert all(s.k == 3 and s.swap_span == 0 for s in plain)


def test_paper_table_adds_the_dsack_schemes_that_ran_beside_the_papers_dsack():
    rows = _rows(GOOD_SACK, FLAT_RDTCP) + [
        _row("dsack-inc", 0, 1.0, 1, 600_000.0), _row("dsack-inc", 15, 1.0, 1, 597_000.0)]
    by = {(r["scenario"], r["variant"]): r for r in paper_table(aggregate(rows))}
    inc = by[("15 swaps every 1 s", "dsack-inc")]
    assert inc["paper_Bps"] == 600_600 and inc["ours_vs_no_reordering"] == pytest.approx(0.995)
    assert ("15 swaps every 1 s", "dsack-avg") not in by          # not run: not listed


def _one_seed_at_zero_swaps(rows):
    """The sweep as run when zero swaps (deterministic) gets one seed: seed 2 dropped there."""
    return [r for r in rows if r["swaps"] or r["seed"] == 1]


def test_a_point_from_one_seed_has_no_sd_and_others_keep_theirs():
    points = aggregate(_one_seed_at_zero_swaps(_rows(GOOD_SACK, FLAT_RDTCP)))
    zero = points[("sack", "swap", None, 0, 0.0)]
    assert (zero["mean"], zero["n"], zero["std"]) == (599_900, 1, None)
    assert points[("sack", "swap", 1.0, 15, 0.0)]["n"] == 2
    checks = shape_checks(points)          # mixed n: the checks still run on the means
    assert checks["sack_falls_interval_1s"] and checks["rdtcp_within_1pct"]


def test_outputs_leave_the_sd_of_a_one_seed_point_blank(tmp_path):
    rows = _one_seed_at_zero_swaps(_rows(GOOD_SACK, FLAT_RDTCP))
    summary = write_outputs(rows, MODES["quick"], tmp_path, mode="quick")
    with open(tmp_path / "points.csv") as f:
        csv_points = {(r["variant"], r["swaps"], r["interval"]): r for r in csv.DictReader(f)}
    assert csv_points[("sack", "0", "")]["throughput_std_Bps"] == ""          # not 0.0
    assert csv_points[("sack", "0", "")]["n"] == "1"
    assert float(csv_points[("sack", "15", "1.0")]["throughput_std_Bps"]) > 0
    saved = json.loads((tmp_path / "summary.json").read_text())
    zero = [p for p in saved["points"] if p["variant"] == "sack" and p["swaps"] == 0]
    assert zero[0]["throughput_std_Bps"] is None and "sample standard deviation" in \
        saved["statistics"]
    table = (tmp_path / "paper_table.md").read_text()
    assert "| no reordering | sack | 607,500 | 1.0000 | 599,900 (n = 1) |" in table
    assert "± 0 " not in table and summary["paper_table"][0]["ours_std_Bps"] is None


def _with_swap_counts(rows):
    """Swap counts as run_paper records them: SACK keeps R1's queue short, so most of its
    swaps find fewer than two packets waiting and are skipped."""
    for r in rows:
        asked = r["swaps"] * 60 // int(r["interval"])
        done = asked // 5 if r["variant"] == "sack" else asked - asked // 50
        r.update(swaps_done=done + r["seed"] - 1, swaps_skipped=asked - done - r["seed"] + 1)
    return rows


def test_points_and_table_give_the_swaps_done_against_those_asked(tmp_path):
    rows = _with_swap_counts(_rows(GOOD_SACK, FLAT_RDTCP))
    summary = write_outputs(rows, MODES["quick"], tmp_path, mode="quick")
    with open(tmp_path / "points.csv") as f:
        sack15 = [r for r in csv.DictReader(f) if (r["variant"], r["swaps"], r["interval"])
                  == ("sack", "15", "1.0")][0]
    assert (float(sack15["swaps_done_mean"]), float(sack15["swaps_asked_mean"])) == (180.5, 900)
    by = {(r["scenario"], r["variant"]): r for r in summary["paper_table"]}
    assert (by[("15 swaps every 1 s", "rdtcp")]["ours_swaps_done"],
            by[("15 swaps every 1 s", "rdtcp")]["ours_swaps_asked"]) == (882.5, 900)
    table = (tmp_path / "paper_table.md").read_text()
    assert "swaps done / asked" in table
    assert "| 180 / 900 (20%) |" in table and "| 882 / 900 (98%) |" in table
    summary_points = {(p["variant"], p["swaps"], p["interval"]): p for p in summary["points"]}
    assert summary_points[("sack", 15, 1.0)]["swaps_done_mean"] == 180.5


def test_every_extension_takes_the_paper_number_of_the_sender_it_derives_from():
    assert [paper_sender(v) for v in PAPER_VARIANTS] == list(PAPER_VARIANTS)
    for variant in VARIANTS:
        assert paper_sender(variant) in PAPER_VARIANTS
        assert PAPER[(variant, 15)] == PAPER[(paper_sender(variant), 15)], variant
    assert paper_sender("dsack-avg") == "dsack" and paper_sender("rdtcp-measured") == "rdtcp"


def test_paper_table_says_an_extensions_paper_value_is_its_base_senders(tmp_path):
    rows = _rows(GOOD_SACK, FLAT_RDTCP) + [
        _row("rdtcp-measured", 0, 1.0, 1, 600_000.0), _row("rdtcp-measured", 15, 1.0, 1, 599_000.0)]
    summary = write_outputs(rows, MODES["quick"], tmp_path, mode="quick")
    with open(tmp_path / "paper_table.csv") as f:
        by = {(r["scenario"], r["variant"]): r for r in csv.DictReader(f)}
    assert by[("15 swaps every 1 s", "rdtcp-measured")]["paper_value_for"] == "rdtcp"
    assert by[("15 swaps every 1 s", "rdtcp")]["paper_value_for"] == "rdtcp"
    table = (tmp_path / "paper_table.md").read_text()
    assert "| 15 swaps every 1 s | rdtcp-measured | 607,440 † (rdtcp) |" in table
    assert "| 15 swaps every 1 s | rdtcp | 607,440 |" in table       # the paper's own: no mark
    # the paper's no-reordering number is the network's, whatever the sender: never borrowed
    assert by[("no reordering", "rdtcp-measured")]["paper_value_for"] == "any sender"
    assert "| no reordering | rdtcp-measured | 607,500 |" in table
    footnote = [line for line in table.splitlines() if line.startswith("†")]
    assert footnote and "base sender" in footnote[0]
    assert "60 s transfers" in table and summary["paper_table"][0]["ours_duration_s"] == 60.0


def test_paper_table_without_extensions_has_no_base_sender_footnote():
    table = table_markdown(paper_table(aggregate(_rows(GOOD_SACK, FLAT_RDTCP))))
    assert "†" not in table
