"""Incremental deployment ([RDTCP] §7): legacy routers in short simulated runs, the series' report,
and the sweep's --legacy option end to end."""

import json

import pytest
from sweep_kit import journal_rows, summary

from experiments.rdtcp_figures import MODES, build_specs, main, parse_args, sweep_config
from experiments.runner.journal import _journal_row, row_key, run_key
from experiments.runner.program import gateway_program
from experiments.runner.spec import RunSpec
from experiments.studies import rrtcp  # noqa: F401  (registers scenario "rrtcp")
from experiments.studies.rdtcp.legacy import legacy_markdown, legacy_points, legacy_rows
from experiments.studies.rdtcp.report import aggregate_all
from experiments.studies.rdtcp.scenario import run_paper

SHORT = dict(variant="rdtcp", swaps=0, duration=6.0, r2_drop=0.005, seed=1)


@pytest.fixture(scope="module")
def program():
    return gateway_program()[1]


@pytest.fixture(scope="module")
def deployments(program):
    """One short RD-TCP run per legacy setting, losing segments at both routers: R1's queue
    overflows in slow start, R2 drops 0.5 % of the data segments."""
    return {legacy: run_paper(RunSpec(legacy=legacy, **SHORT), program).row()
            for legacy in ("none", "r1", "r2", "both")}


def drops(row: dict, router: str) -> int:
    return sum(row[f"{router}_drops_{cause}"] for cause in ("buffer", "random", "pattern"))


def test_every_deployment_loses_segments_at_both_routers(deployments):
    for legacy, row in deployments.items():
        assert drops(row, "r1") > 0 and row["r2_drops_random"] > 0, legacy
        assert row["legacy"] == legacy and row["r2_drop"] == 0.005


def test_upgraded_routers_record_every_drop_and_the_receiver_sees_stamps(deployments):
    row = deployments["none"]
    for router in ("r1", "r2"):
        assert row[f"{router}_epdn_events_record"] == drops(row, router)
    # R2's stamps reach B (nothing drops after R2); R1's too unless R2 drops the segment
    assert row["r2_epdn_events_stamp"] <= row["rcv_epdn_stamps"] <= \
        row["r1_epdn_events_stamp"] + row["r2_epdn_events_stamp"]


def test_legacy_r1_drops_reach_the_receiver_without_a_stamp(deployments):
    row = deployments["r1"]
    assert row["r1_epdn_events_record"] == row["r1_epdn_events_stamp"] == 0
    assert row["r2_epdn_events_record"] == drops(row, "r2")
    # every stamp B saw is R2's: R1's drops left none
    assert row["rcv_epdn_stamps"] + row["rcv_epdn_ignored"] == row["r2_epdn_events_stamp"] > 0
    assert row["rcv_epdn_stamps"] < drops(row, "r1") + drops(row, "r2")


def test_legacy_r2_passes_r1s_stamps_and_reports_none_of_its_own(deployments):
    row = deployments["r2"]
    assert row["r2_epdn_events_record"] == row["r2_epdn_events_stamp"] == 0
    assert row["r2_epdn_events_merge"] == row["r2_epdn_events_strip"] == 0
    assert row["r1_epdn_events_record"] == drops(row, "r1")
    # B's stamps are R1's, carried through the legacy router unchanged (or lost with a segment
    # R2 dropped)
    assert 0 < row["rcv_epdn_stamps"] + row["rcv_epdn_ignored"] <= row["r1_epdn_events_stamp"]


def test_two_legacy_routers_leave_the_receiver_no_stamp(deployments):
    row = deployments["both"]
    assert all(row[f"{r}_epdn_events_{e}"] == 0 for r in ("r1", "r2")
               for e in ("record", "stamp", "merge", "strip"))
    assert row["rcv_epdn_stamps"] == row["rcv_epdn_ignored"] == 0
    # the gaps drops left were taken for reordering: ACKs with the reorder bit, more than
    # with both routers upgraded
    assert row["rcv_reorder_acks"] > deployments["none"]["rcv_reorder_acks"]


def test_a_sack_run_is_the_same_whichever_router_is_legacy(program):
    """SACK reads no EPDN option: the series runs it with both routers upgraded only."""
    spec = dict(variant="sack", swaps=15, duration=4.0, r2_drop=0.005, seed=2)
    upgraded, legacy = (run_paper(RunSpec(legacy=setting, **spec), program).row()
                        for setting in ("none", "both"))
    same = ("throughput_Bps", "delivered_bytes", "retransmits", "fast_retransmits", "timeouts",
            "spurious_retransmits", "r1_drops_buffer", "r2_drops_random", "swaps_done")
    assert {k: upgraded[k] for k in same} == {k: legacy[k] for k in same}

    def records(row):
        return row["r1_epdn_events_record"] + row["r2_epdn_events_record"]
    assert records(legacy) == 0 < records(upgraded)        # the gateways did differ


# --------------------------------------------------------------------------- RunSpec and journal
@pytest.mark.parametrize("kwargs, message", [
    (dict(legacy="r3"), "unknown legacy setting 'r3'; choose from none, r1, r2, both"),
    (dict(r2_drop=1.5), "r2_drop must be a probability in [0, 1]"),
    (dict(legacy="r1", scenario="rrtcp"),
     "legacy: the incremental deployment's settings ([RDTCP] §7) apply to scenario 'rdtcp' only, "
     "not to 'rrtcp'"),
])
def test_runspec_refuses_a_deployment_it_cannot_run(kwargs, message):
    with pytest.raises(ValueError) as e:
        RunSpec(variant="rdtcp", **kwargs)
    assert str(e.value) == message


def test_journal_rows_written_before_the_deployment_fields_read_as_upgraded():
    row = {**json.loads(json.dumps(RunSpec(variant="sack").__dict__)), "throughput_Bps": 1.0}
    for name in ("legacy", "r2_drop"):
        del row[name]
    read = _journal_row(json.dumps(row).encode())
    assert (read["legacy"], read["r2_drop"]) == ("none", 0.0)
    legacy = {**read, "legacy": "r1"}
    assert run_key(legacy) != run_key(read) and row_key(legacy) != row_key(read)


# --------------------------------------------------------------------------- the series' report
def _row(variant, legacy, r2_drop, throughput, seed=1, swaps=15, **counts):
    base = dict(variant=variant, legacy=legacy, r2_drop=r2_drop, swaps=swaps, interval=1.0,
                injection="swap", level=0.0, k=3, swap_span=0, seed=seed, scenario="rdtcp",
                throughput_Bps=throughput, r1_drops_buffer=10, r1_drops_random=0,
                r1_drops_pattern=0, r2_drops_buffer=0, r2_drops_random=0, r2_drops_pattern=0,
                rcv_epdn_stamps=5, rcv_reorder_acks=7, fast_retransmits=3, timeouts=0,
                spurious_retransmits=1)
    return {**base, **counts}


def test_series_points_relative_to_both_upgraded_and_kept_out_of_the_figures():
    rows = [_row("rdtcp", "none", 0.0, 600_000), _row("rdtcp", "r1", 0.0, 450_000),
            _row("rdtcp", "r1", 0.0, 510_000, seed=2, rcv_epdn_stamps=0),
            _row("rdtcp", "none", 0.01, 300_000, r2_drops_random=40),
            _row("sack", "none", 0.0, 500_000),
            _row("dsack", "none", 0.0, 550_000)]           # not a sender of the series
    points = legacy_points(rows, swaps=(15,))
    assert set(points) == {("rdtcp", "none", "r1", 0.0, 15), ("rdtcp", "r1", "r1", 0.0, 15),
                           ("rdtcp", "none", "r2", 0.01, 15), ("sack", "none", "r1", 0.0, 15)}
    legacy_r1 = points[("rdtcp", "r1", "r1", 0.0, 15)]
    assert legacy_r1["mean"] == 480_000 and legacy_r1["n"] == 2
    assert legacy_r1["vs_upgraded"] == pytest.approx(0.8)
    assert legacy_r1["rcv_epdn_stamps"] == 2.5
    assert points[("rdtcp", "none", "r2", 0.0 + 0.01, 15)]["r2_drops"] == 40
    # the figures' points hold only the runs with both routers upgraded and no drops at R2
    assert {k[0] for k in aggregate_all(rows)} == {"rdtcp", "sack", "dsack"}
    assert len(aggregate_all(rows)) == 3
    table = legacy_markdown(legacy_rows(points), duration=60)
    assert "| rdtcp | R1 | R1 (queue) | 15 | 480,000 ± 42,426 (n=2) | 0.800 | 10 / 0 |" in table
    assert "| rdtcp | none (both RD-TCP) | R2 (p = 0.01) | 15 |" in table


def test_a_legacy_points_bar_is_its_spread_paired_by_seed():
    # seed 2 is faster in both deployments by 100,000 B/s: the seeds' spread, not the
    # deployment's effect, which is -50,000 and -60,000 B/s (sd 7,071 B/s)
    rows = [_row("rdtcp", "none", 0.0, 600_000), _row("rdtcp", "none", 0.0, 700_000, seed=2),
            _row("rdtcp", "r1", 0.0, 550_000), _row("rdtcp", "r1", 0.0, 640_000, seed=2)]
    points = legacy_points(rows, swaps=(15,))
    legacy_r1 = points[("rdtcp", "r1", "r1", 0.0, 15)]
    assert legacy_r1["std"] == pytest.approx(63_640, abs=1)
    assert legacy_r1["paired_std"] == pytest.approx(7_071, abs=1)
    assert points[("rdtcp", "none", "r1", 0.0, 15)]["paired_std"] is None


# --------------------------------------------------------------------------- the sweep, end to end
TINY = ["--mode", "quick", "--jobs", "1", "--seeds", "1", "--variants", "rdtcp,sack",
        "--swaps", "0", "--interval", "1", "--duration", "2", "--no-k-study", "--no-progress",
        "--worker-python", "self", "--legacy", "r1", "--legacy-swaps", "0", "--r2-drop", "0.01"]


def test_sweep_legacy_series_journaled_reported_and_drawn(tmp_path, capsys):
    assert main(TINY + ["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = journal_rows(tmp_path)
    # rdtcp: both upgraded and R1 legacy, each with loss at R1 and at R2; sack: upgraded only
    assert sorted((r["variant"], r["legacy"], r["r2_drop"]) for r in rows) == [
        ("rdtcp", "none", 0.0), ("rdtcp", "none", 0.01), ("rdtcp", "r1", 0.0),
        ("rdtcp", "r1", 0.01), ("sack", "none", 0.0), ("sack", "none", 0.01)]
    table = (tmp_path / "legacy.csv").read_text().splitlines()
    assert table[0].startswith("variant,legacy,drop_site,r2_drop,swaps_per_s,n,")
    assert len(table) == 1 + 6
    legacy = json.loads((tmp_path / "legacy.json").read_text())
    assert legacy["legacy_routers"] == ["r1"] and legacy["r2_drop"] == 0.01
    assert (tmp_path / "fig10_legacy.png").stat().st_size > 10_000
    assert summary(tmp_path)["legacy"]["points"] == legacy["points"]
    assert "fig10_legacy.png" in summary(tmp_path)["figures"]
    assert "Incremental deployment ([RDTCP] §7)" in out and "| rdtcp | R1 | R2 (p = 0.01) |" in out
    # the paper's table and figures hold only the sweep's own runs
    assert "legacy" not in (tmp_path / "paper_table.md").read_text()
    # journaled as the sweep's other points: --resume runs none of them again
    assert main(TINY + ["--out", str(tmp_path), "--resume"]) == 0
    assert "6 kept from" in capsys.readouterr().err


def test_sweep_legacy_specs_share_the_figures_runs():
    args = parse_args(["--mode", "quick", "--variants", "rdtcp,sack,dsack", "--legacy",
                       "r1,r2,both,r1", "--no-k-study", "--no-injections"])
    cfg = sweep_config(args)
    assert cfg.legacy == ("r1", "r2", "both") and cfg.legacy_swaps == MODES["quick"].legacy_swaps
    specs = build_specs(cfg)
    assert len(specs) == len(set(specs))
    series = [s for s in specs if s.legacy != "none" or s.r2_drop]
    assert {s.variant for s in series} == {"rdtcp", "sack"}         # dsack is not in the series
    assert {s.legacy for s in series if s.variant == "sack"} == {"none"}
    assert {s.legacy for s in series if s.variant == "rdtcp"} == {"none", "r1", "r2", "both"}
    # with both routers upgraded and loss at R1 the series' runs are the figures' own
    figures = build_specs(sweep_config(parse_args(["--mode", "quick", "--variants",
                                                   "rdtcp,sack,dsack", "--no-k-study",
                                                   "--no-injections"])))
    assert set(figures) <= set(specs)
    assert len(specs) == len(figures) + len(series)


@pytest.mark.parametrize("argv, message", [
    (["--legacy", "r1", "--variants", "sack,rack"],
     "--legacy studies the RD-TCP senders"),
    (["--legacy-swaps", "0,15"], "--legacy-swaps shape(s) the --legacy series"),
    (["--r2-drop", "0.01"], "--r2-drop shape(s) the --legacy series"),
    (["--legacy", "r1", "--r2-drop", "0"], "--r2-drop must be a probability in (0, 1]"),
    (["--legacy", "r1", "--legacy-swaps", "-1"], "--legacy-swaps must be >= 0"),
    (["--legacy", "r3"], "unknown r3; choose from r1, r2, both"),
])
def test_sweep_refuses_legacy_options_that_would_not_act(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("error:") == 1
