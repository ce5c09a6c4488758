"""The analyzer against the engine's own counters: simulated runs of the paper's scenario
(experiments.one_run, 15 s with 15 queue swaps a second) captured at the sender (--pcap a)
and at R1's bottleneck port (--pcap), analysed, and compared with run.json.

At the sender the capture holds every frame A sent and every ACK A received, so the counts
the trace determines must agree exactly:
- retransmissions: every out-of-sequence segment is a retransmission there (nothing can be
  reordered before the capture), and the engine counts each one (``retransmits``);
- fast retransmits: one per fast-recovery episode; the engine also counts RD-TCP's timer
  expiry that enters fast recovery ([RDTCP] §3.1) as one (and as a timeout), the analyzer as an
  RTO entering fast recovery: fast_retransmits = fast_retransmit + rto_entering_fast_recovery;
- timeouts: the engine counts every expiry, the SYN's too: timeouts = rto + SYN resends;
- spurious retransmissions: the engine counts DSACKs that cover data it sent more than once,
  which is what the analyzer counts as DSACKs for retransmitted data. Its *unneeded*
  retransmissions are at least as many: an ACK arriving sooner after a resend than any RTT
  is evidence too ([TCPDEBUG] §3.1.2), DSACK or not.
"""

import json

import pytest

from analyzer import AnalyzerConfig, analyze_file
from experiments.one_run import main as one_run

PROFILE = {"sack": "rfc5681", "dsack": "rfc5681", "rdtcp": "rdtcp"}


def simulate(tmp_path, variant, at):
    args = ["--variant", variant, "--swaps", "15", "--duration", "15", "--seed", "1",
            "--out", str(tmp_path)]
    assert one_run(args + (["--pcap", "a"] if at == "a" else ["--pcap"])) == 0
    row = json.loads((tmp_path / "run.json").read_text())
    pcap = tmp_path / ("sender.pcap" if at == "a" else "bottleneck.pcap")
    report = analyze_file(str(pcap), AnalyzerConfig(vantage="sender" if at == "a" else "path"))
    [flow] = [f for f in report["flows"] if f["data_segments"] > 100]
    return row, flow


@pytest.mark.parametrize("variant", ["sack", "dsack", "rdtcp"])
def test_sender_capture_counts_agree_with_the_engine(tmp_path, variant):
    row, flow = simulate(tmp_path, variant, "a")
    p = flow["profiles"][PROFILE[variant]]
    assert p["explains"], p["unexplained_reasons"]
    c = p["classes"]
    assert row["retransmits"] > 10 and row["fast_retransmits"] > 3     # something to check
    assert flow["network_reorder"] == flow["network_duplicate"] == 0
    assert flow["retransmissions"] == flow["oos_segments"] == row["retransmits"]
    assert c["fast_retransmit"] + p["rto_entering_fast_recovery"] == row["fast_retransmits"]
    assert c["rto"] + flow["syn_retransmissions"] == row["timeouts"]
    assert flow["dsacks"]["for_retransmitted_data"] == row["spurious_retransmits"]
    assert flow["need"]["unneeded"] >= row["spurious_retransmits"]
    assert sum(flow["need"].values()) == row["retransmits"]


def test_rdtcp_waits_show_in_the_observed_dupthresh_and_single_it_out(tmp_path):
    row, flow = simulate(tmp_path, "rdtcp", "a")
    assert row["swaps_reaching_3k_dupacks"] > 0
    seen = {int(n): c for n, c in flow["profiles"]["rdtcp"]["observed_dupthresh"].items()}
    assert seen.get(6, 0) > 0                       # 3 + k with k = 3
    assert sum(seen.values()) == flow["profiles"]["rdtcp"]["classes"]["fast_retransmit"]
    # a dupthresh-3 sender would have resent at the third duplicate ACK: not this one
    assert flow["verdict"]["kind"] == "unique" and flow["verdict"]["profiles"] == ["rdtcp"]
    assert flow["profiles"]["rfc5681"]["missed_fast_retransmits"] > 0


def test_sack_trace_fits_the_rfc_profile_but_not_windows_xp(tmp_path):
    _, flow = simulate(tmp_path, "sack", "a")
    assert "rfc5681" in flow["verdict"]["profiles"]
    assert flow["verdict"]["kind"] == "consistent"
    # dupthresh 2: duplicate-ACK episodes of two that ended without a resend
    assert flow["profiles"]["winxp"]["missed_fast_retransmits"] > 0


@pytest.mark.parametrize("variant", ["sack", "rdtcp"])
def test_a_capture_at_r1_sees_the_queue_swaps(tmp_path, variant):
    """R1's egress sees the segments after its drops and swaps. The relations, for these
    runs: the swapped segments are network reordering (as many as the swaps displaced,
    minus overlaps); a retransmission R1 dropped never shows, so at most the engine's count
    shows and at least that count less R1's drops; every DSACK passes R1 on its way to A,
    and every one in these runs covers data A resent (nothing duplicates packets)."""
    row, flow = simulate(tmp_path, variant, "r1")
    assert flow["network_reorder"] > 0
    displaced = row["swaps_done"] * row["swap_displacement_mean"]
    assert 0.5 * displaced <= flow["network_reorder"] <= 1.2 * displaced
    assert row["retransmits"] - row["r1_drops_buffer"] <= flow["retransmissions"] \
        <= row["retransmits"]
    assert sum(flow["dsacks"].values()) == row["spurious_retransmits"]
    assert flow["profiles"][PROFILE[variant]]["explains"]


def test_a_simulated_windows_xp_sender_is_identified_from_its_trace(tmp_path):
    """Closing the loop over one table (hosts/tcp/profiles.py): the engine runs with the
    windows-xp profile (D = 2, 100 ms ticks, ...) in the paper's scenario with swaps, and the
    analyzer, replaying the sender capture with the same profile parameters, finds that
    Windows XP explains every out-of-sequence segment while the RFC sender (D = 3) does not."""
    from experiments.runner.program import gateway_program
    from experiments.runner.spec import RunSpec, tcp_config
    from experiments.studies.rdtcp.scenario import build_network
    from hosts.tcp.profiles import profile_config
    from sim.flows import add_bulk_flow
    from sim.reorder import QueueSwapper

    spec = RunSpec(variant="sack", swaps=15, interval=1.0, seed=1, duration=15.0)
    _, program = gateway_program()
    net = build_network(spec, program)
    pcap = tmp_path / "sender.pcap"
    net.capture("a", "r1", str(pcap), at="a")
    flow = add_bulk_flow(net, "a", "b", config=profile_config("windows-xp", tcp_config(spec)))
    QueueSwapper(net.switches["r1"], 2, swaps=15, interval=1.0,
                 seed=net.derive_seed("swapper"))
    net.run(until=spec.duration)
    net.close()
    assert flow.sender.stats["fast_retransmits"] > 3 and flow.sender.dupthresh == 2

    report = analyze_file(str(pcap), AnalyzerConfig(vantage="sender"))
    [analysed] = [f for f in report["flows"] if f["data_segments"] > 100]
    profiles = analysed["profiles"]
    assert profiles["winxp"]["explains"], profiles["winxp"]["unexplained_reasons"]
    assert not profiles["rfc5681"]["explains"]
    seen = {int(n): c for n, c in profiles["winxp"]["observed_dupthresh"].items()}
    assert seen.get(2, 0) > 0
