"""RR-TCP's Figures 4-5 (seed 000 §5.1.1) on 000's own topology: the scenario is the one 000
describes (capacity maxwnd / RTT, no drops), the sweep writes its table, figures and checks, and
the checks read the paper's statements off our numbers."""

import json
from dataclasses import asdict

import pytest

from experiments.rrtcp_figures import (MAXWND, MODES, RrSweepConfig, build_specs, checks_of, main,
                                       points_of)
from experiments.runner.journal import scan_journal
from experiments.runner.scenario import SCENARIOS, RunSpec, gateway_program, run_paper


@pytest.fixture(scope="module")
def program():
    return gateway_program()[1]


def test_000s_scenario_fills_maxwnd_over_rtt_without_a_queue_or_a_drop(program):
    # 000 §5: capacity = maxwnd / RTT (50 packets of 1000 bytes per 100 ms = 4 Mb/s), so SACK
    # without delays runs at nearly the link's rate and drops nothing
    spec = RunSpec("sack", scenario="rrtcp", duration=20.0, max_cwnd_segments=MAXWND)
    result = run_paper(spec, program)
    assert result.mss == SCENARIOS["rrtcp"].mss == 960
    packets_per_s = result.throughput_Bps / result.mss
    assert 0.93 * 500 < packets_per_s <= 500
    assert result.stats["r1_drops_buffer"] == 0 and result.stats["retransmits"] == 0


def test_delays_make_sack_retransmit_falsely_and_rrtcp_far_less(program):
    # 5 % of data packets delayed by N(25 ms, 8 ms): every fast retransmit is false (no drops)
    rows = [run_paper(RunSpec(v, scenario="rrtcp", duration=30.0, max_cwnd_segments=MAXWND,
                              injection="delay", level=0.05), program).row()
            for v in ("sack", "rrtcp")]
    sack, rrtcp = rows
    assert sack["r1_drops_buffer"] == rrtcp["r1_drops_buffer"] == 0
    ratio = {r["variant"]: r["fast_retransmits"] / r["delayed_segments"] for r in rows}
    assert ratio["sack"] > 5 * ratio["rrtcp"]       # per packet delayed, 000 Fig. 5's measure
    assert rrtcp["throughput_Bps"] > 3 * sack["throughput_Bps"]


def test_build_specs_runs_sack_nodelay_once_and_every_sender_at_every_level():
    cfg = RrSweepConfig(duration=10.0, seeds=2, levels=(0.05, 0.3), variants=("sack", "rrtcp"))
    specs = build_specs(cfg)
    assert len(specs) == 1 + 2 * 2 * 2
    assert specs[0] == RunSpec("sack", scenario="rrtcp", duration=10.0, max_cwnd_segments=50)
    assert all(s.scenario == "rrtcp" and s.max_cwnd_segments == MAXWND for s in specs)
    assert {(s.variant, s.level, s.seed) for s in specs[1:]} == {
        (v, lv, seed) for v in ("sack", "rrtcp") for lv in (0.05, 0.3) for seed in (1, 2)}
    assert MODES["full"].duration == 1000.0 and MODES["full"].seeds == 5   # 000 §5


def _row(variant, level, tput, *, fr=0, delayed=100, drops=0, seed=1):
    return {**asdict(RunSpec(variant, scenario="rrtcp", level=level, seed=seed,
                             injection="delay" if level else "swap")),
            "throughput_Bps": tput, "fast_retransmits": fr, "timeouts": 0,
            "delayed_segments": delayed if level else 0, "r1_drops_buffer": drops,
            "r2_drops_buffer": 0}


def test_checks_read_000s_statements_off_the_points():
    cfg = RrSweepConfig(duration=10.0, seeds=1, levels=(0.3,), variants=("sack", "rrtcp-fa",
                                                                          "rrtcp"))
    rows = [_row("sack", 0.0, 1000.0), _row("sack", 0.3, 100.0, fr=50),
            _row("rrtcp-fa", 0.3, 700.0, fr=5), _row("rrtcp", 0.3, 720.0, fr=2)]
    points = points_of(rows)
    assert points[("rrtcp", 0.3)]["relative"] == pytest.approx(0.72)
    assert points[("rrtcp-fa", 0.3)]["ffr_ratio"] == pytest.approx(0.05)
    checks = {c["claim"]: c["ok"] for c in checks_of(points, cfg)}
    assert checks["DSACK-TA keeps over 71% of SACK-NODELAY's throughput at 30% delayed"]
    assert all(checks.values())
    # TA below 71 %, and FA retransmitting falsely for 12 % of the delayed packets: both fail
    rows[2:] = [_row("rrtcp-fa", 0.3, 700.0, fr=12), _row("rrtcp", 0.3, 650.0, fr=2)]
    checks = {c["claim"]: c["ok"] for c in checks_of(points_of(rows), cfg)}
    assert not checks["DSACK-TA keeps over 71% of SACK-NODELAY's throughput at 30% delayed"]
    assert not checks["DSACK-FA's false fast retransmit ratio below 10% at 30% delayed"]
    assert not checks["DSACK-TA performs best (at least DSACK-FA's throughput) at 30% delayed"]
    # a run that dropped a packet gives no false-retransmit ratio (a retransmit may be true)
    assert points_of([_row("rrtcp", 0.3, 1.0, fr=3, drops=1)])[("rrtcp", 0.3)]["ffr_ratio"] is None


def test_sweep_writes_table_figures_and_checks_and_resumes(tmp_path, capsys):
    argv = ["--duration", "8", "--seeds", "1", "--levels", "0.3", "--variants", "sack,rrtcp",
            "--jobs", "1", "--no-progress", "--worker-python", "self", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| DSACK-TA (`rrtcp`) |" in out and "SACK-NODELAY:" in out
    for name in ("runs.csv", "points.csv", "paper_table.md", "paper_table.csv", "summary.json",
                 "fig4_rrtcp_throughput.png", "fig5_rrtcp_ffr.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["runs"] == 3 and summary["failed_runs"] == 0
    assert [c["claim"] for c in summary["checks"]][:1] == [
        "SACK's throughput falls as more packets are delayed"]
    rows = [r for _, r in scan_journal(tmp_path / "runs.jsonl").lines]
    assert {r["scenario"] for r in rows} == {"rrtcp"}
    assert main(argv + ["--resume"]) == 0
    assert "3 kept from" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--levels", "0"], "--levels: each fraction delayed must be in (0, 1]"),
    (["--levels", "1.5"], "--levels are probabilities in [0, 1]"),
    (["--variants", "tahoe"], "tahoe"),
    (["--seeds", "0"], "--seeds must be >= 1"),
])
def test_bad_options_are_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_runspec_refuses_an_unknown_scenario():
    with pytest.raises(ValueError, match="unknown scenario 'ns2'"):
        RunSpec("sack", scenario="ns2")


def test_a_journal_row_from_before_scenarios_is_read_as_003s_dumbbell(tmp_path):
    row = {**asdict(RunSpec("sack", swaps=15)), "throughput_Bps": 1.0, "code_version": "x"}
    del row["scenario"]
    (tmp_path / "runs.jsonl").write_text(json.dumps(row) + "\n")
    journal = scan_journal(tmp_path / "runs.jsonl")
    assert journal.bad == [] and journal.lines[0][1]["scenario"] == "rdtcp"


def test_each_scenario_builds_its_papers_dumbbell(program):
    from experiments.runner.scenario import BUFFER_PACKETS, build_network
    from netbase.units import parse_delay

    expected = {"rdtcp": (5, "50ms", BUFFER_PACKETS, 10), "rrtcp": (4, "50ms", 200, 100)}
    for name, (bw, delay, queue, access) in expected.items():
        net = build_network(RunSpec("sack", scenario=name), program)
        link = net.link_info("r1", 2)
        assert (link["bw"], parse_delay(link["delay"]), link["max_queue_size"]) == \
            (bw, parse_delay(delay), queue), name
        assert net.link_info("r1", 1)["bw"] == access, name
        net.close()


def test_net_reno_runs_as_the_newreno_sender_it_is_built_on(program):
    from experiments.runner.scenario import tcp_config

    assert tcp_config(RunSpec("netreno")).sack is False
    assert tcp_config(RunSpec("sack")).sack is True
    row = run_paper(RunSpec("netreno", scenario="rrtcp", duration=20.0, max_cwnd_segments=MAXWND,
                            injection="delay", level=0.05), program).row()
    assert row["throughput_Bps"] > 0 and row["delivered_bytes"] > 0
