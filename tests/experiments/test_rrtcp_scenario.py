"""One run of [RRTCP]'s scenario (experiments.studies.rrtcp.scenario): [RRTCP]'s path and timers, each
impairment made by the element the run says (the P4 gateway where it can, the simulator where
it cannot), with the ground truth of each in the row."""

import re
from dataclasses import replace

import pytest

from experiments.runner import pool
from experiments.runner.program import gateway_program
from experiments.runner.spec import SCENARIOS, RunSpec
from experiments.studies.rdtcp.scenario import run_paper
from experiments.studies.rrtcp.scenario import (INITIAL_WINDOW, MAX_RTO, MIN_RTO, mechanisms,
                                                rrtcp_config, run_rrtcp)
from topologies.paper import RrTcpTopo, rrtcp_capacity_mbps

MAXWND = 50


@pytest.fixture(scope="module")
def program():
    return gateway_program()[1]


def spec(variant="sack", **kw):
    kw.setdefault("duration", 20.0)
    return RunSpec(variant, scenario="rrtcp", max_cwnd_segments=MAXWND, **kw)


def test_000s_path_fills_maxwnd_over_rtt_without_a_queue_or_a_drop(program):
    # [RRTCP] §5: capacity = maxwnd / RTT, so SACK without impairments runs at nearly the link's rate
    # (slow start takes a few RTTs of the run: 2.4 s at P = 200 ms)
    for p, pps, duration in ((0.0, 500, 20.0), (0.2, 125, 60.0)):
        result = run_rrtcp(spec(path_delay=p, duration=duration), program)
        assert result.mss == SCENARIOS["rrtcp"].mss == 960
        assert 0.9 * pps < result.throughput_Bps / result.mss <= pps, p
        assert result.stats["r1_drops_buffer"] == 0 and result.stats["retransmits"] == 0


def test_capacity_follows_the_path_delay():
    assert rrtcp_capacity_mbps(0.05) == 4.0 and rrtcp_capacity_mbps(0.2) == 1.0
    links = [i for _, _, i in RrTcpTopo(bottleneck_delay="100ms").links(withInfo=True)]
    assert links[1]["bw"] == 2.0
    assert [i for _, _, i in RrTcpTopo(bottleneck_bw=3).links(withInfo=True)][1]["bw"] == 3
    with pytest.raises(ValueError, match="delay must be > 0"):
        rrtcp_capacity_mbps(0.0)


def test_senders_run_000s_timers():
    cfg = rrtcp_config(spec("rrtcp"))
    assert (cfg.min_rto, cfg.max_rto, cfg.initial_window_segments) == (MIN_RTO, MAX_RTO,
                                                                       INITIAL_WINDOW)
    assert (cfg.min_rto, cfg.max_rto, cfg.clock_granularity) == (1.0, 64.0, 0.01)
    assert cfg.delayed_ack is False and cfg.sack is True and cfg.max_cwnd_segments == MAXWND


def test_each_impairment_is_made_where_the_run_says(program):
    delayed = spec("rrtcp", injection="delay", level=0.1, delay="exponential:0.025")
    assert mechanisms(delayed) == {"reordering": "simulator: delay element on R1->R2 "
                                   "(sim.reorder.PacketDelayer), exponential:0.025 s"}
    row = run_rrtcp(delayed, program).row()
    assert 0.07 < row["delayed_segments"] / row["segments_sent"] < 0.13
    assert 15 < row["delay_extra_mean_ms"] < 35
    # two paths: the gateway's alternate path, half the data packets
    alt = spec("sack", injection="altpath", level=0.5, alt_extra_delay="100ms")
    assert mechanisms(alt)["reordering"].startswith("P4 gateway: R1's alternate path")
    row = run_rrtcp(alt, program).row()
    assert 0.4 < row["r1_reorders_alternate_port"] / row["segments_sent"] < 0.6
    # random drops: the gateway's; ACKs delayed and drop bursts: the simulator's
    lossy = spec("rrtcp", drop=0.01, ack_level=0.2, bursts=0.002, injection="delay",
                 level=0.02)
    assert mechanisms(lossy)["drops"] == "P4 gateway: R1's drop_prob"
    assert mechanisms(lossy)["ack reordering"].startswith("simulator: delay element on R2->R1")
    assert mechanisms(lossy)["drop bursts"].startswith("simulator: drop events")
    row = run_rrtcp(lossy, program).row()
    assert row["r1_drops_random"] > 0 and row["burst_events"] > 0 and row["burst_lost"] > 0
    assert 0.15 < row["delayed_acks"] / row["acks_seen"] < 0.25
    assert row["timeouts"] > 0 and row["rto_at_timeouts_mean_s"] >= MIN_RTO


def test_one_delayed_packet_draws_a_false_fast_retransmit_that_its_dsack_undoes(program):
    # [RRTCP] Fig. 1: the first packet of the window of 16 delayed by 0.45 s (DSACK-R)
    one = spec("dsack", injection="delay", delay="constant:0.45", duration=1.6)
    result = run_rrtcp(one, program, delay_nth=frozenset({15}), trace_step=0.01,
                       sender_trace=True)
    trace = result.stats["sender_trace"]
    fr = [(t, n) for t, n, what in trace if what == "retransmitted"]
    dsacks = [t for t, _, what in trace if what == "dsack"]
    assert [n for _, n in fr] == [15] and result.stats["dsack_undos"] == 1
    assert 0.40 <= dsacks[0] - fr[0][0] <= 0.50
    cwnd = {round(row[0], 2): row[1] / result.mss for row in result.stats["trace"]}
    before = max(c for t, c in cwnd.items() if t < fr[0][0])
    assert before == 16 and cwnd[round(dsacks[0] + 0.01, 2)] >= 16


def test_a_series_step_records_the_runs_time_series(program):
    result = run_rrtcp(spec(duration=2.0, sample_step=0.5), program)
    assert [row[0] for row in result.series] == [0.0, 0.5, 1.0, 1.5, 2.0]


def test_the_pool_runs_000s_scenario_with_its_own_run():
    assert pool.runner_for(spec()) is run_rrtcp
    assert pool.runner_for(RunSpec("sack")) is run_paper


@pytest.mark.parametrize("kw, message", [
    (dict(drop=0.01), "[RRTCP]'s impairments apply to scenario 'rrtcp' only"),
    (dict(delay="exponential:0.1"), "[RRTCP]'s impairments apply to scenario 'rrtcp' only"),
])
def test_000s_impairments_are_refused_on_another_scenario(kw, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        RunSpec("sack", **kw)


@pytest.mark.parametrize("kw, message", [
    (dict(drop=1.5), "drop must be in"),
    (dict(path_delay=-0.1), "path_delay must be >= 0"),
    (dict(delay="weibull:1"), "unknown delay distribution 'weibull'"),
    (dict(fa_ratio=2.0), "fa_ratio must be in"),
])
def test_bad_000_impairments_are_refused_by_name(kw, message):
    with pytest.raises(ValueError, match=message):
        spec(**kw)


def test_a_delay_distribution_has_one_spelling_per_run():
    assert spec(delay="pareto:0.025").delay == "pareto:0.025,1.5"
    assert spec(delay="pareto:0.025") == spec(delay="pareto:0.025,1.5")


def test_run_rrtcp_refuses_runs_it_cannot_make(program):
    with pytest.raises(ValueError, match="runs scenario 'rrtcp'"):
        run_rrtcp(RunSpec("sack"), program)
    with pytest.raises(ValueError, match="not 'swap' with 5 swaps"):
        run_rrtcp(spec(swaps=5), program)
    with pytest.raises(ValueError, match="run by experiments.studies.rrtcp.scenario"):
        run_paper(replace(spec(), drop=0.01), program)


NEW_SENDERS = ("rrtcp-faes", "rrtcp-taes", "rrtcp-hg", "rrtcp-fa-rtx", "rrtcp-rtx",
               "dsack-ewma", "dsack-timedel", "dsack-timeinc")


def test_000s_senders_are_selectable_in_one_run_the_sweeps_and_live_run(tmp_path):
    import json

    from experiments import live_run, one_run, rdtcp_figures, rrtcp_figures
    from experiments.runner.spec import SENDERS

    assert set(NEW_SENDERS) <= set(SENDERS)
    assert one_run.main(["--variant", "rrtcp-taes", "--injection", "delay", "--level", "0.1",
                         "--duration", "3", "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "run.json").read_text())["variant"] == "rrtcp-taes"
    from hosts.tcp.connection import TcpConnection
    from hosts.tcp.variants import get_variant
    from live import host

    addresses = ["--role", "sender", "--interface", "a-eth0", "--ip", "10.0.1.1", "--mac",
                 "02:00:00:00:00:01", "--gateway-mac", "02:00:00:00:00:02", "--peer-ip",
                 "10.0.2.1"]
    for variant in NEW_SENDERS:
        args = live_run.parse_args(["--variant", variant])
        assert args.variant == variant
        # what live_run hands each live host, which runs the engine with that sender's policy
        opts = host.build_parser().parse_args(
            addresses + live_run.host_options(live_run.live_spec(args)))
        conn = TcpConnection(host.tcp_config(opts.variant), local_port=5000, remote_port=80,
                             iss=1)
        assert type(conn.policy) is get_variant(variant)
        assert rdtcp_figures.parse_args(["--variants", variant]).variants == (variant,)
        assert rrtcp_figures.parse_args(["--variants", variant]).variants == (variant,)
