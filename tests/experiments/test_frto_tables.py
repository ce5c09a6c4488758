"""F-RTO's Tables 1-3 (seed 001 §5.1-5.2): the scenario's path and senders, one run of each
scenario with its ground truth, the tables' medians and checks, and a small sweep that shows
F-RTO's point (fewer retransmissions than conventional recovery under delay spikes) and
resumes."""

import json
from dataclasses import asdict, replace

import pytest

from experiments.frto_tables import (MODES, PAPER, RESPONSE_NAMES, VARIANTS, build_specs, checks_of,
                                     main, points_of)
from experiments.runner import pool
from experiments.runner.frto_scenario import frto_config, run_frto
from experiments.runner.journal import scan_journal
from experiments.runner.scenario import SCENARIOS, RunSpec, gateway_program, run_paper

DELAY = RunSpec("frto", scenario="frto-delay", level=0.02, seed=2, duration=900.0)


@pytest.fixture(scope="module")
def program():
    return gateway_program()[1]


def test_the_path_is_001s_link_behind_a_7_packet_buffer(program):
    from experiments.runner.frto_scenario import _build_network
    from netbase.units import parse_delay
    from topologies import FrtoTopo, topos

    assert topos["frto_paper"] is FrtoTopo
    net = _build_network(DELAY, program)
    link = net.link_info("r1", 2)
    assert (link["bw"], parse_delay(link["delay"]), link["max_queue_size"]) == \
        (0.0288, 0.2, 7)
    net.close()
    assert {SCENARIOS[s].mss for s in ("frto-delay", "frto-loss", "frto-burst")} == {256}


def test_senders_take_sack_and_timestamps_as_their_policy_says():
    got = {v: (frto_config(replace(DELAY, variant=v)).sack,
               frto_config(replace(DELAY, variant=v)).timestamps) for v in VARIANTS}
    assert got == {"sack": (True, False), "frto": (True, False), "eifel": (True, True),
                   "newreno": (False, False), "frto-newreno": (False, False),
                   "eifel-newreno": (False, True)}
    cfg = frto_config(DELAY)
    assert (cfg.min_rto, cfg.initial_rto, cfg.rto_estimator, cfg.delayed_ack) == \
        (0.2, 3.0, "linux-2.4", True)


def test_a_delay_run_stalls_the_link_loses_only_at_the_router_and_finishes(program):
    row = run_frto(DELAY, program).row()
    assert row["completed"] and row["delivered_bytes"] == 102_400
    assert row["stalls"] > 0 and row["stalled_s"] > 0
    assert row["link_lost_data"] == row["link_lost_acks"] == 0
    assert row["lost_data"] == row["r1_drops_buffer"]
    assert row["throughput_Bps"] == pytest.approx(102_400 / row["transfer_s"], rel=1e-6)
    again = run_frto(DELAY, program).row()
    assert {k: v for k, v in again.items() if k != "wall_s"} == \
        {k: v for k, v in row.items() if k != "wall_s"}


def test_loss_drops_data_at_the_gateway_and_acks_on_the_link(program):
    row = run_frto(RunSpec("sack", scenario="frto-loss", level=0.10, seed=1,
                           duration=900.0), program).row()
    assert row["completed"] and row["r1_drops_random"] > 0 and row["link_lost_acks"] > 0
    assert row["link_lost_data"] == 0 and row["stalls"] == 0


def test_burst_outages_lose_both_ways(program):
    row = run_frto(RunSpec("sack", scenario="frto-burst", seed=1, duration=900.0),
                   program).row()
    assert row["completed"] and row["outages"] >= 1
    assert row["link_lost_data"] > 0 and row["link_lost_acks"] > 0


def test_eifel_newreno_after_an_outage_repairs_by_fast_retransmit_not_by_a_backed_off_timer(
        program):
    # seed 2: an outage takes data and ACKs, Eifel declares the timeout spurious (001 §5.2),
    # and the duplicate ACKs for the first segment the outage took must start a fast
    # retransmit; they did not (recover = SND.UNA), and this run took 421 s against
    # newreno's 64 s
    def run(variant):
        return run_frto(RunSpec(variant, scenario="frto-burst", seed=2, duration=900.0),
                        program).row()
    eifel, newreno = run("eifel-newreno"), run("newreno")
    assert eifel["completed"] and eifel["spurious_detections"] >= 1
    assert eifel["fast_retransmits"] > eifel["spurious_detections"]
    assert eifel["transfer_s"] < 2 * newreno["transfer_s"]


@pytest.mark.parametrize("spec, message", [
    (RunSpec("sack", duration=1.0), "run_frto runs the scenarios"),
    (replace(DELAY, swaps=5), "no reordering injection"),
    (RunSpec("sack", scenario="frto-burst", level=0.1), "frto-burst has no level"),
])
def test_run_frto_refuses_specs_it_cannot_run(spec, message, program):
    with pytest.raises(ValueError, match=message):
        run_frto(spec, program)


def test_the_sweep_runs_frto_scenarios_with_run_frto_and_others_with_run_paper():
    assert pool.runner_for(DELAY) is run_frto
    assert pool.runner_for(RunSpec("sack")) is run_paper


def test_the_tables_f_rto_is_the_papers_and_the_other_responses_run_on_request():
    from experiments.frto_tables import parse_args, sweep_config
    from hosts.tcp.variants import get_variant

    assert get_variant("frto").response == get_variant("frto-newreno").response == "halve"
    cfg = sweep_config(parse_args(["--variants", "frto,frto-rfc4015,frto-newreno-undo"]))
    assert cfg.variants == ("frto", "frto-rfc4015", "frto-newreno-undo")
    assert not set(RESPONSE_NAMES) & set(MODES["quick"].variants)


def test_quick_mode_runs_every_sender_in_every_scenario():
    specs = build_specs(MODES["quick"])
    assert len(specs) == len(VARIANTS) * 3 * MODES["quick"].seeds
    assert {(s.scenario, s.level) for s in specs} == {
        ("frto-delay", 0.02), ("frto-loss", 0.05), ("frto-burst", 0.0)}


def _row(scenario, variant, time_s, retx, *, seed=1, level=None):
    level = {"delay": 0.02, "loss": 0.05, "burst": 0.0}[scenario] if level is None else level
    spec = RunSpec(variant, scenario=f"frto-{scenario}", level=level, seed=seed)
    return {**asdict(spec), "throughput_Bps": 102_400 / time_s, "completed": True,
            "transfer_s": time_s, "retransmits": retx, "lost_data": 5,
            "unneeded_retransmits": 0, "spurious_detections": 0, "timeouts": 1,
            "fast_retransmits": 0, "lost_acks": 0, "stalls": 0, "outages": 0}


def test_points_are_medians_and_checks_read_001s_statements_off_them():
    rows = [_row("delay", "sack", t, r, seed=i) for i, (t, r) in
            enumerate([(90, 60), (95, 55), (200, 70)], 1)]
    rows += [_row("delay", "frto", t, r, seed=i) for i, (t, r) in
             enumerate([(75, 12), (77, 13), (80, 90)], 1)]
    points = points_of(rows)
    assert points[("delay", 0.02, "sack")]["transfer_s_median"] == 95
    assert points[("delay", 0.02, "frto")]["retransmits_median"] == 13
    checks = {c["claim"]: c["ok"] for c in checks_of(points)}
    assert checks == {
        "DELAY: F-RTO w/ SACK retransmits less than Regular SACK (001: ~1/5)": True,
        "DELAY: F-RTO w/ SACK transfers faster than Regular SACK (001: 17-19 %)": True}
    slow = points_of([_row("delay", "sack", 70, 10), _row("delay", "frto", 80, 20)])
    assert not any(c["ok"] for c in checks_of(slow))


def test_paper_numbers_are_001s_tables():
    assert PAPER["delay"]["sack"] == (94.13, 9, 57)
    assert PAPER["loss"]["frto-newreno"] == (81.67, 36, 26)
    assert PAPER["burst"]["eifel"] == (123.89, 50, 45)


def test_quick_sweep_frto_retransmits_less_than_conventional_under_delay_and_resumes(
        tmp_path, capsys):
    argv = ["--mode", "quick", "--seeds", "3", "--scenarios", "delay", "--variants",
            "sack,frto", "--jobs", "1", "--no-progress", "--worker-python", "self",
            "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| F-RTO w/ SACK (`frto`) |" in out and "Table 1 / Fig. 6 (DELAY)" in out
    for name in ("runs.csv", "points.csv", "paper_table.md", "paper_table.csv",
                 "summary.json", "fig6_delay.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["runs"] == 6 and summary["failed_runs"] == 0
    medians = {p["variant"]: p["retransmits_median"] for p in summary["points"]}
    assert medians["frto"] < medians["sack"]
    rows = [r for _, r in scan_journal(tmp_path / "runs.jsonl").lines]
    assert {r["scenario"] for r in rows} == {"frto-delay"}
    assert main(argv + ["--resume"]) == 0
    err = capsys.readouterr().err
    assert "6 kept from" in err and "nothing to run" in err


@pytest.mark.parametrize("argv, message", [
    (["--levels", "0"], "--levels: each loss probability must be in (0, 1)"),
    (["--levels", "0.05", "--scenarios", "delay"], "--scenarios leaves it out"),
    (["--scenarios", "jitter"], "jitter"),
    (["--variants", "tahoe"], "tahoe"),
    (["--seeds", "0"], "--seeds must be >= 1"),
    (["--duration", "-5"], "--duration must be > 0 seconds"),
])
def test_bad_options_are_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_help_names_the_tables_and_the_modes(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert "Tables 1-3" in text and "--resume" in text and "--scenarios" in text
