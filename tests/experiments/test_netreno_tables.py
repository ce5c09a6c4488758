"""Net Reno's evaluation ([NETRENO] §4.1, §7.1-7.2; experiments.netreno_tables): [NETRENO]'s networks,
one run of each scenario with its ground truth, the driver's outputs and bad options, and [NETRENO]'s
statements judged by direction and size on quick runs with RED in the P4 gateway (the
controller's ``ports.N.red``). A verdict that does not hold is a strict xfail with its reason
and numbers (experiments/README.md, "Net Reno")."""

import json

import pytest

from experiments import netreno_tables as nt
from experiments.runner import pool
from experiments.runner.journal import code_files
from experiments.runner.program import gateway_program
from experiments.runner.spec import SCENARIOS, SENDERS, RunSpec
from experiments.studies.netreno import scenario as ns
from experiments.studies.netreno.report import fig1_data, table12_rows, table3_rows
from experiments.studies.netreno.statements import statements_of
from netbase.units import parse_bw, parse_delay
from sim.program import REPO_ROOT
from topologies import NetRenoLabTopo, NetRenoTopo, topos
from topologies.netreno import ATM_SCALE


@pytest.fixture(scope="module")
def program():
    return gateway_program()[1]


# ----------------------------------------------------------------------------- networks
def test_fig6_network_has_002s_links_scaled_to_atm_cells():
    t = NetRenoTopo()
    assert t.hosts() == ["c1", "c2", "c3", "c4", "c5", "d"] and t.switches() == ["r1"]
    for i in range(1, 5):
        link = t.linkInfo(f"c{i}", "r1")
        assert parse_delay(link["delay"]) == 0.001
        assert parse_bw(link["bw"]) == pytest.approx(103.3e6 * ATM_SCALE)
        assert t.port(f"c{i}", "r1") == (0, i)
    c5 = t.linkInfo("c5", "r1")
    assert parse_delay(c5["delay"]) == 0.016 and parse_bw(c5["bw"]) == pytest.approx(31e6 * ATM_SCALE)
    shared = t.linkInfo("r1", "d")
    assert (parse_delay(shared["delay"]), shared["max_queue_size"]) == (0.002, 16)
    assert parse_bw(shared["bw"]) == pytest.approx(51.7e6 * ATM_SCALE)
    # a full-size packet takes as long on our Ethernet link as its 12 cells on [NETRENO]'s
    assert ATM_SCALE == pytest.approx((512 + 54) / (12 * 53))
    assert parse_bw(NetRenoTopo(atm_cells=False).linkInfo("r1", "d")["bw"]) == 51.7e6


def test_fig7_lab_and_the_topos_mn_custom_sees():
    t = NetRenoLabTopo()
    assert t.linkInfo("s", "r1")["bw"] == 100 and t.linkInfo("r1", "d")["bw"] == 10
    assert t.linkInfo("r1", "d")["max_queue_size"] == 20 and t.port("r1", "d") == (2, 0)
    assert topos["netreno_sim"] is NetRenoTopo and topos["netreno_lab"] is NetRenoLabTopo
    with pytest.raises(ValueError, match="senders must be 1..5"):
        NetRenoTopo(senders=6)


def test_the_scenarios_are_registered_with_512_byte_segments():
    for name in ns.NETRENO_SCENARIOS:
        assert SCENARIOS[name].mss == 512
        assert pool.runner_for(RunSpec("netreno", scenario=name)).__module__ == \
            "experiments.studies.netreno.scenario"
    assert REPO_ROOT / "experiments/studies/netreno/scenario.py" in code_files(REPO_ROOT)
    cfg = ns.netbsd_config(RunSpec("netreno", scenario="netreno-sim"))
    assert (cfg.mss, cfg.sack, cfg.delayed_ack, cfg.initial_window_segments,
            cfg.max_cwnd_segments, cfg.clock_granularity, cfg.min_rto, cfg.rtt_sampling) == \
        (512, False, True, 1, 128, 0.5, 1.0, "per-flight")
    assert ns.netbsd_config(RunSpec("netreno-sack", scenario="netreno-sim")).sack


def test_red_is_one_entry_of_the_port_in_the_controller_config(program, monkeypatch):
    seen = []
    monkeypatch.setattr(ns.Controller, "apply", lambda self, cfg: seen.append(cfg) or [])
    ns._sim_network(RunSpec("netreno", scenario="netreno-sim", duration=1.0), program)
    port = seen[0]["ports"][str(ns.SINK_PORT)]
    assert port["red"] == {"min_th": 4, "max_th": 8, "w_q": 0.002, "max_p": 0.02}
    assert port["buffer_limit"] == 16
    seen.clear()
    ns._sim_network(RunSpec("netreno", scenario="netreno-sim-droptail", duration=1.0), program)
    assert "red" not in seen[0]["ports"][str(ns.SINK_PORT)]


# ----------------------------------------------------------------------------- one run each
def test_sim_run_counts_each_connections_drops_exactly(program):
    spec = RunSpec("lsnr", scenario="netreno-sim-droptail", duration=3.0, seed=2)
    row = ns.run_netreno_sim(spec, program).row()
    drops = [row[f"c{i}_drops"] for i in range(1, 6)]
    assert all(d >= 0 for d in drops) and sum(drops) == row["total_drops"] > 0
    # every data frame the gateway dropped is one of some connection's: the program's counts
    assert row["total_drops"] == sum(v for k, v in row.items() if k.startswith("r1_drops_"))
    assert all(row[f"c{i}_goodput_Bps"] > 0 for i in range(1, 6))


def test_sim_run_with_red_counts_reds_drops_and_the_handshakes_timeouts_apart(program):
    row = ns.run_netreno_sim(RunSpec("netreno", scenario="netreno-sim", duration=4.0, seed=4),
                             program).row()
    # RED drops early (its own cause in the program) and the buffer of 16 still overflows
    # between RED's slow average (w_q 0.002) and the bursts
    assert row["r1_drops_red"] > 0 and row["r1_drops_buffer"] > 0
    assert row["total_drops"] == sum(v for k, v in row.items() if k.startswith("r1_drops_"))
    # C5 opens last, into a full queue, and loses its SYN: a timeout, not an RTO of data
    assert (row["c5_syn_rtos"], row["c5_rtos"]) == (1, 0)
    assert row["total_syn_rtos"] == 1


def test_lab_run_with_red_drops_early(program):
    row = ns.run_netreno_lab(RunSpec("lsnr", scenario="netreno-lab", duration=10.0),
                             program).row()
    assert row["r1_drops_red"] > 0 and row["drops"] == sum(
        v for k, v in row.items() if k.startswith("r1_drops_"))
    assert 0 < row["goodput_kbps"] <= 10_000


def test_lab_run_reports_goodput_and_the_loss_rate(program):
    row = ns.run_netreno_lab(RunSpec("reno", scenario="netreno-lab-droptail", duration=10.0,
                                     level=0.01), program).row()
    assert 0 < row["goodput_kbps"] <= 10_000
    assert 0.005 < row["loss_rate"] < 0.03 and row["drops"] > 0


def test_trace_runs_classify_every_timeout_the_engines_had(program):
    # the analyzer (its NetBSD profile) finds exactly the RTOs the senders' engines counted
    row = ns.run_netreno_trace(RunSpec("reno", scenario="netreno-trace", duration=1800.0,
                                       seed=2, level=0.05), program).row()
    assert row["transfers"] == row["completed"] == ns.TRACE_TRANSFERS
    assert row["delivered_bytes"] == ns.TRACE_TRANSFERS * ns.TRANSFER_BYTES
    assert row["analyzed_rtos"] == row["engine_timeouts"] > 10
    assert row["non_trigger"] + row["multiple_loss"] + row["lost_retransmission"] == \
        row["analyzed_rtos"]
    assert all(w >= 1 for _, w in row["rtos"])


# ----------------------------------------------------------------------------- selectable
def test_netreno_netreno_sack_and_newreno_are_selectable_everywhere(tmp_path):
    from experiments import live_run, one_run, rdtcp_figures
    assert {"netreno", "netreno-sack", "newreno"} <= set(SENDERS)
    for v in ("netreno", "netreno-sack", "newreno"):
        assert one_run.parse_args(["--variant", v]).spec.variant == v
        assert live_run.parse_args(["--variant", v]).spec.variant == v
    args = rdtcp_figures.parse_args(["--variants", "netreno,netreno-sack,newreno",
                                     "--out", str(tmp_path)])
    assert args.variants == ("netreno", "netreno-sack", "newreno")
    assert one_run.main(["--variant", "netreno", "--swaps", "0", "--duration", "2",
                         "--out", str(tmp_path / "one")]) == 0
    row = json.loads((tmp_path / "one" / "run.json").read_text())
    assert row["variant"] == "netreno" and row["throughput_Bps"] > 0


# ----------------------------------------------------------------------------- the driver
def test_driver_writes_the_tables_and_figure(tmp_path):
    out = tmp_path / "nr"
    code = nt.main(["--mode", "quick", "--queue", "droptail", "--runs", "1", "--duration", "2",
                    "--variants", "lsnr,netreno", "--lab-duration", "5", "--trace-runs", "1",
                    "--trace-levels", "0.05", "--jobs", "1", "--worker-python", "self",
                    "--no-progress", "--no-traces", "--out", str(out)])
    assert code == 0
    assert not (out / "fig2_small_window.png").exists()
    for name in ("table1_rtos.md", "table2_drops.md", "table3_goodput.md", "table1_rtos.csv",
                 "table2_drops.csv", "table3_goodput.csv", "fig1_rto_causes.csv",
                 "fig1_rto_causes.png", "runs.csv", "summary.json", "paper_table.md"):
        assert (out / name).exists(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs"] == 2 + len(nt.LAB_VARIANTS) + 1 and summary["failed_runs"] == 0
    table1 = (out / "table1_rtos.md").read_text()
    assert "19 / 33 / 36 / 28 / 13 = 129" in table1 and "`netreno`" in table1
    assert "4006" in (out / "table3_goodput.md").read_text()
    assert {c["key"] for c in summary["statements"]} >= {"table1_netreno_no_rto",
                                                         "fig1_non_trigger"}
    assert "**Not run**" in (out / "paper_table.md").read_text()


def _points(path):
    """The figure's CSV: [(time, segment, what)]."""
    import csv
    with open(path) as f:
        return [(float(r["time_s"]), float(r["segment"]), r["what"]) for r in csv.DictReader(f)]


def _event(points, start):
    return next((t, s) for t, s, what in points if what.startswith(f"event: {start}"))


def _resent(points, segment):
    return [t for t, s, what in points if what == "retransmitted" and s == segment]


@pytest.mark.slow             # four to a dozen traced runs: about a minute (make test-slow)
def test_figs_2_to_5_each_show_their_mechanism_in_one_traced_connection(tmp_path):
    out = tmp_path / "nr"
    assert nt.main(["--parts", "sim", "--runs", "1", "--duration", "1", "--variants", "lsnr",
                    "--jobs", "1", "--worker-python", "self", "--no-progress",
                    "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    names = ("fig2_small_window", "fig3_lost_retransmission", "fig4_ack_clock",
             "fig5_back_to_back")
    assert summary["trace_notes"] == []
    assert [t["figure"] for t in summary["traces"]] == [f"{n}.png" for n in names]
    for n in names:
        assert f"{n}.png" in summary["figures"] and (out / f"{n}.png").stat().st_size > 20_000
    traces = {t["figure"][:-4]: t for t in summary["traces"]}
    assert [traces[n]["variant"] for n in names] == ["lsnr-sw", "lssack", "lssack-lrx",
                                                     "lsnr-b2b"]
    # Fig. 2: a window of three (the lost segment and at most two above it when the first
    # duplicate ACK came), the early sends on duplicate ACKs 1 and 2, then the fast
    # retransmission, well before any timer (NetBSD's at least 1 s)
    fig2 = _points(out / "fig2_small_window.csv")
    t_lost, lost = _event(fig2, "segment")
    t_dup1, early1 = _event(fig2, f"{early_name(fig2, 1)}")
    t_dup2, early2 = _event(fig2, f"{early_name(fig2, 2)}")
    window = {s for t, s, what in fig2 if what == "sent" and t_lost <= t < t_dup1 and s >= lost}
    assert len(window) <= 3 and lost < early1 < early2
    t_fr = _event(fig2, "fast retransmission")[0]
    assert t_dup2 < t_fr < t_lost + 0.5 and _resent(fig2, lost) == [t_fr]
    # Fig. 3: the fast retransmission is lost: no ACK covers it until the timer sends the
    # segment a third time, about a second later (NetBSD's timer ticks every 500 ms; the
    # lab's round trip is milliseconds)
    fig3 = _points(out / "fig3_lost_retransmission.csv")
    t_fr, seg = _event(fig3, "its fast retransmission")
    t_to = _event(fig3, "timeout")[0]
    assert _resent(fig3, seg) == [t_fr, t_to] and t_to - t_fr > 0.5
    assert not [a for t, a, what in fig3 if what == "cumulative ACK" and t_fr < t < t_to
                and a > seg]
    # Fig. 4: the same connection (Fig. 3's seed) with the ACK clock: the segment goes out a
    # third time within the recovery, milliseconds later, before any timer could
    assert traces["fig4_ack_clock"]["seed"] == traces["fig3_lost_retransmission"]["seed"]
    fig4 = _points(out / "fig4_ack_clock.csv")
    t_fr, seg = _event(fig4, "its fast retransmission")
    t_again = _event(fig4, "ACK clock")[0]
    assert _resent(fig4, seg)[-2:] == [t_fr, t_again] and 0 < t_again - t_fr < 0.1
    # Fig. 5: the first recovery's full ACK, then the second fast retransmission of a later
    # segment on the first or second duplicate ACK, not the third
    fig5 = _points(out / "fig5_back_to_back.csv")
    t1, first = _event(fig5, "first recovery")
    t_full, full = _event(fig5, "full ACK")
    t2, second = _event(fig5, "second recovery")
    assert t1 < t_full < t2 and first < full <= second and _resent(fig5, second)
    assert "duplicate ACK 1" in traces["fig5_back_to_back"]["event"] \
        or "duplicate ACK 2" in traces["fig5_back_to_back"]["event"]


def early_name(points, n):
    """The label of the segment sent on duplicate ACK ``n``."""
    return next(what[len("event: "):] for _, _, what in points
                if what.endswith(f"sent on duplicate ACK {n}"))


@pytest.mark.parametrize("argv,message", [
    (["--parts", "lab", "--runs", "2"], "--runs sets the sim part"),
    (["--parts", "trace", "--queue", "red"], "--queue sets the gateway of sim and lab"),
    (["--runs", "0"], "--runs must be >= 1"),
    (["--lab-loss", "1.5"], "--lab-loss must be a probability"),
    (["--trace-levels", "0.1,2"], "--trace-levels are probabilities"),
    (["--parts", "sim,tcp"], "unknown tcp"),
    (["--variants", "vegas"], "unknown vegas"),
])
def test_driver_refuses_options_that_would_not_act_or_make_no_sense(argv, message, capsys):
    with pytest.raises(SystemExit):
        nt.main(argv)
    assert message in capsys.readouterr().err


# ----------------------------------------------------------------------------- [NETRENO]'s targets
def sweep(cfg, jobs=2) -> list[dict]:
    path, _ = gateway_program()
    return pool.run_specs(nt.build_specs(cfg), jobs=jobs, program_path=path, progress=False,
                          python=pool.worker_python("auto")[0])


def test_every_statement_is_listed_as_not_run_when_nothing_ran():
    stated = statements_of([], [], [], {})
    assert len(stated) == 39 and all(s.not_run for s in stated)
    assert all("not run: " in s.note for s in stated)


@pytest.fixture(scope="module")
def trace_checks():
    cfg = nt.NetRenoSweepConfig(**{**nt.MODES["quick"].__dict__, "parts": ("trace",)})
    fig1 = fig1_data(sweep(cfg))
    return {c.key: c for c in statements_of([], [], [], fig1)}, fig1


@pytest.mark.slow             # [NETRENO]'s runs: minutes (make test-slow)
def test_fig1_every_rto_is_classified(trace_checks):
    _, fig1 = trace_checks
    d = fig1["reno"]
    assert d["transfers"] == 3 * 2 * ns.TRACE_TRANSFERS
    # the analyzer finds the timeouts the engines counted, to 1 %: a resend whose timer the
    # machine's estimate of the RTO has not yet seen expire is left unexplained
    assert d["engine_timeouts"] > 100
    assert abs(len(d["rtos"]) - d["engine_timeouts"]) <= 0.01 * d["engine_timeouts"]


@pytest.mark.slow             # [NETRENO]'s runs: minutes (make test-slow)
def test_fig1_non_trigger_is_the_largest_cause(trace_checks):
    assert trace_checks[0]["fig1_non_trigger"].direction == "ok", trace_checks[0]


@pytest.mark.xfail(strict=True, reason="[NETRENO] §4.1: > 85 % of RTOs non-trigger; ours 79.6 % "
                   "(219 of 275): random drops take a second segment of a window more often")
@pytest.mark.slow             # [NETRENO]'s runs: minutes (make test-slow)
def test_fig1_non_trigger_over_85_percent(trace_checks):
    assert trace_checks[0]["fig1_non_trigger"].size == "ok", trace_checks[0]["fig1_non_trigger"]


@pytest.mark.slow             # [NETRENO]'s runs: minutes (make test-slow)
def test_fig1_multiple_losses_near_11_percent(trace_checks):
    assert trace_checks[0]["fig1_multiple_loss"].size == "ok", \
        trace_checks[0]["fig1_multiple_loss"]


@pytest.mark.slow             # [NETRENO]'s runs: minutes (make test-slow)
def test_fig1_lost_retransmissions_near_4_percent_and_fewer_than_multiple_losses(trace_checks):
    s = trace_checks[0]["fig1_lost_retransmission"]
    assert (s.direction, s.size) == ("ok", "ok"), s


@pytest.mark.slow             # [NETRENO]'s runs: minutes (make test-slow)
def test_fig1_rtos_at_small_windows(trace_checks):
    # [NETRENO]: "less than 10% of timeouts have congestion window larger than 10 packets"
    assert trace_checks[0]["fig1_small_windows"].size == "ok", \
        trace_checks[0]["fig1_small_windows"]


@pytest.mark.xfail(strict=True, reason="[NETRENO]: the multiple-loss curve never above 10 %, which its "
                   "own 11 % at X = 1 contradicts; ours is 12.7 % at X = 1")
@pytest.mark.slow             # [NETRENO]'s runs: minutes (make test-slow)
def test_fig1_multiple_loss_curve_never_above_10_percent(trace_checks):
    assert trace_checks[0]["fig1_multiple_never_10"].size == "ok"


@pytest.fixture(scope="module")
def red_checks():
    """The quick mode's sim and lab parts with RED: [NETRENO]'s statements on Tables 1-3, by (key,
    verdict), those the run judges."""
    cfg = nt.NetRenoSweepConfig(**{**nt.MODES["quick"].__dict__, "parts": ("sim", "lab")})
    rows = sweep(cfg)
    t12 = table12_rows(rows, cfg.sim_variants)
    out = {}
    for st in statements_of(rows, t12, table3_rows(rows), {}):
        for verdict in ("direction", "size"):
            if getattr(st, verdict) in ("ok", "not ok"):
                out[(st.key, verdict)] = st
    return out


# the verdicts that hold in the quick run
RED_HOLD = (
    ("table1_netreno_no_rto", "direction"), ("table1_netreno-sack_no_rto", "direction"),
    ("table1_netreno-sack_no_rto", "size"), ("table1_lsnr_rtos", "direction"),
    ("table1_lssack_rtos", "direction"), ("table1_lsnr_c5_fewest", "direction"),
    ("table1_lsnr_c5_fewest", "size"), ("table2_netreno_more_drops", "direction"),
    ("table2_netreno-sack_more_drops", "direction"), ("table2_netreno-sack_more_drops", "size"),
    ("table2_lssack_drops", "size"), ("table2_netreno_drops", "size"),
    ("table2_netreno-sack_drops", "size"), ("table3_loss_rate", "size"),
    ("table3_reno", "direction"), ("table3_reno", "size"),
    ("table3_new-reno_improves", "direction"), ("table3_sack_improves", "direction"),
    ("table3_new-reno_lrxt_gain", "direction"), ("table3_new-reno_lrxt_gain", "size"),
    ("table3_new-reno_smallwnd_gain", "direction"),
    ("table3_new-reno_smallwnd+lrxt_gain", "direction"),
    ("table3_new-reno_smallwnd+lrxt+back_gain", "direction"),
    ("table3_sack_smallwnd_gain", "direction"), ("table3_sack_smallwnd_gain", "size"),
    ("table3_sack_lrxt_gain", "direction"), ("table3_sack_lrxt_gain", "size"),
    ("table3_sack_back-to-back_gain", "size"), ("table3_sack_smallwnd+lrxt_gain", "direction"),
    ("table3_sack_smallwnd+lrxt+back_gain", "direction")) + tuple(
    (f"table2_{v}_c5_ratio", "direction") for v in ("lsnr", "lssack", "netreno", "netreno-sack"))
# those that do not, with [NETRENO]'s number, ours (quick run) and why (experiments/README.md, Net Reno)
RED_FAIL = {
    ("table1_netreno_no_rto", "size"):
        "[NETRENO]: no RTO; ours 2 in 10 connection-runs of 10 s (C2: a window update is no dup ACK; "
        "C5: RED drops all 4 in flight)",
    ("table1_lsnr_rtos", "size"):
        "[NETRENO]: 129 RTOs in 10 x 30 s; ours 15 in 2 x 10 s, 225 scaled to 10 x 30 s",
    ("table1_lssack_rtos", "size"):
        "[NETRENO]: 123 RTOs in 10 x 30 s; ours 6 in 2 x 10 s, 90 scaled",
    ("table1_lssack_c5_fewest", "direction"):
        "[NETRENO]: C5 has the fewest RTOs of sack (8 against 26-35); ours 1 against 0 for C2-C4",
    ("table1_lssack_c5_fewest", "size"):
        "[NETRENO]: C5 6.5 % of sack's RTOs; ours 1 of 6",
    ("table2_netreno_more_drops", "size"):
        "[NETRENO]: net-reno +3.3 % drops over new-reno; ours +19 % (762 against 640): new-reno's 15 "
        "timeouts leave it silent",
    ("table2_lsnr_drops", "size"):
        "[NETRENO]: 10,796 drops in 10 x 30 s; ours 9,600 scaled (-11 %)",
    ("table3_new-reno_smallwnd_gain", "size"):
        "[NETRENO]: smallwnd +14 % over none; ours +45 % (7875 against 5438 kb/s): NR-SW turns most of "
        "lsnr's 24 RTOs into FRs",
    ("table3_new-reno_back-to-back_gain", "direction"):
        "[NETRENO]: back-to-back +5.9 % over none; ours 5438 = 5438: NR-B2B never fires in the lab "
        "(RED spreads its drops)",
    ("table3_new-reno_back-to-back_gain", "size"): "[NETRENO]: +5.9 %; ours 0 (above)",
    ("table3_new-reno_smallwnd+lrxt_gain", "size"):
        "[NETRENO]: smallwnd+lrxt +27 % over none; ours +51 % (8223 against 5438), as smallwnd's",
    ("table3_new-reno_smallwnd+lrxt+back_gain", "size"):
        "[NETRENO]: all three +28 % over none; ours +43 % (7802)",
    ("table3_sack_back-to-back_gain", "direction"):
        "[NETRENO]: back-to-back 0.5 % below none for sack; ours 2.1 % above (7267 against 7116): "
        "NR-B2B never fires",
    ("table3_sack_smallwnd+lrxt_gain", "size"):
        "[NETRENO]: +18 % over none; ours +24 % (8831 against 7116)",
    ("table3_sack_smallwnd+lrxt+back_gain", "size"):
        "[NETRENO]: +17 % over none; ours +24 % (8830)",
    ("table3_sack_behind", "direction"):
        "[NETRENO]: SACK behind New-Reno in every row (SACK's CPU cost, says [NETRENO]; virtual time has "
        "none): ours 0.99-1.34",
    ("table3_sack_behind", "size"): "[NETRENO]: sack / new-reno 0.90 on average; ours 1.19",
    ("sim_goodput_order", "direction"):
        "[NETRENO]: new-reno < sack < net-reno in total goodput; ours 31.4 < 33.0 > 32.7 Mb/s: RED "
        "holds the load, totals within 7 %",
    **{(f"table2_{v}_c5_ratio", "size"):
       f"[NETRENO]: C5 drops 0.26-0.28 of a local connection's; ours {ours}" for v, ours in
       (("lsnr", "0.40"), ("lssack", "0.37"), ("netreno", "0.32"), ("netreno-sack", "0.32"))},
}


@pytest.mark.slow             # [NETRENO]'s runs: minutes (make test-slow)
def test_every_judged_red_verdict_is_held_or_failed_with_its_reason(red_checks):
    assert set(red_checks) == set(RED_HOLD) | set(RED_FAIL)


@pytest.mark.parametrize("check", RED_HOLD + tuple(
    pytest.param(check, marks=pytest.mark.xfail(strict=True, reason=why))
    for check, why in RED_FAIL.items()))
@pytest.mark.slow             # [NETRENO]'s runs: minutes (make test-slow)
def test_red_verdicts(red_checks, check):
    key, verdict = check
    assert getattr(red_checks[check], verdict) == "ok", red_checks[check]
