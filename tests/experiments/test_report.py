"""Sweep aggregation, shape checks, the paper table and figure files, from given run rows."""

import json

import pytest

from experiments.rdtcp_figures import MODES, build_specs, parse_args, sweep_config
from experiments.report import aggregate, paper_table, shape_checks, write_outputs


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


def test_aggregate_gives_mean_std_and_count_per_point():
    points = aggregate(_rows(GOOD_SACK, FLAT_RDTCP))
    p = points[("sack", "swap", 1.0, 15, 0.0)]
    assert p == {"mean": 540_000, "std": 100.0, "n": 2}
    assert ("sack", "swap", None, 0, 0.0) in points     # zero swaps shared by both intervals


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
    summary = write_outputs(rows, MODES["quick"], tmp_path, mode="quick", wall_s=1.0, jobs=1)
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


def test_cli_overrides_replace_mode_defaults():
    cfg = sweep_config(parse_args(["--mode", "full", "--duration", "30", "--swaps", "0,15",
                                   "--interval", "1", "--no-injections"]))
    assert (cfg.duration, cfg.swaps, cfg.intervals, cfg.injections) == (30.0, (0, 15), (1.0,), ())


@pytest.mark.parametrize("argv,message", [
    (["--jobs", "0"], "--jobs must be >= 1"),
    (["--swaps", "a,b"], "comma-separated list"),
    (["--variants", "reno"], "unknown reno"),
    (["--duration", "-5"], "--duration must be > 0"),
])
def test_cli_rejects_bad_arguments_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit):
        parse_args(argv)
    assert message in capsys.readouterr().err
