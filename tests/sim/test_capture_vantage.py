"""A link's pcap is a capture on one end's interface (tcpdump on r1-eth2): what that node sends
is stamped as it leaves, what it receives as it arrives, in time order, so Wireshark's timing
analysis measures the path's round trip."""

import shutil
import subprocess
from statistics import median

import pytest
from scapy.layers.inet import TCP
from scapy.layers.l2 import Ether

from experiments.runner.spec import RunSpec, tcp_config
from experiments.studies.rdtcp.scenario import build_network
from netbase.pcap import read_pcap
from sim.flows import add_bulk_flow

# the paper's dumbbell: 1 ms + 50 ms + 1 ms each way, so r1 sees an ACK >= 2 x 51 ms after the
# segment it acknowledges left r1 (and the old per-sender stamps showed about half of that)
R1_ROUND_TRIP = 2 * (0.050 + 0.001)


def _capture(program, tmp_path, *, node1="r1", node2="r2", at=None, duration=2.0, **spec_kw):
    spec = RunSpec(variant=spec_kw.pop("variant", "sack"), duration=duration, **spec_kw)
    net = build_network(spec, program)
    path = tmp_path / f"{node1}-{node2}.pcap"
    net.capture(node1, node2, str(path), port=2 if node1 == "r1" and node2 == "r2" else None,
                at=at)
    add_bulk_flow(net, "a", "b", config=tcp_config(spec))
    net.run(until=duration)
    net.close()
    return path, list(read_pcap(str(path)))


@pytest.fixture(scope="module")
def program():
    from sim.program import gateway_json
    from toolchain.switch import load_program
    return load_program(gateway_json())


def test_capture_at_r1_stamps_acks_when_they_reach_r1(program, tmp_path):
    _, records = _capture(program, tmp_path)
    times = [r.time for r in records]
    assert times == sorted(times), "records must be in time order"
    sent_at: dict[int, float] = {}       # data segment end sequence -> when it left r1
    rtts = []
    for r in records:
        tcp = Ether(r.data)[TCP]
        if tcp.dport == 5001:                               # data direction (a -> b)
            length = len(tcp.payload)
            if length and tcp.seq + length not in sent_at:
                sent_at[tcp.seq + length] = r.time
        elif tcp.ack in sent_at:
            rtts.append(r.time - sent_at.pop(tcp.ack))
    assert len(rtts) > 50
    assert min(rtts) >= R1_ROUND_TRIP
    assert median(rtts) < R1_ROUND_TRIP + 0.2          # delayed ACKs, b's serialisation


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_wireshark_ack_rtt_is_the_round_trip_seen_from_r1(program, tmp_path):
    path, _ = _capture(program, tmp_path)
    # b's ACKs (a's ACK of the SYN-ACK is r1's 2 ms round trip to a, correctly)
    shown = "tcp.analysis.ack_rtt && tcp.srcport == 5001"
    out = subprocess.run(["tshark", "-r", str(path), "-Y", shown, "-T", "fields",
                          "-e", "tcp.analysis.ack_rtt"], capture_output=True, text=True,
                         check=True).stdout.split()
    rtts = [float(x) for x in out]
    assert len(rtts) > 50 and min(rtts) >= R1_ROUND_TRIP


def _tshark_count(path, display_filter: str) -> int:
    out = subprocess.run(["tshark", "-r", str(path), "-Y", display_filter, "-T", "fields",
                          "-e", "frame.number"], capture_output=True, text=True,
                         check=True).stdout.split()
    return len(out)


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_wireshark_sees_the_duplicate_acks_and_fast_retransmits(program, tmp_path):
    """b never shrinks its window while it holds out-of-order data (RFC 9293 §3.8.6), so the
    ACKs a hole draws carry the same window and Wireshark's analysis (RFC 5681 §2's
    definition, condition (e)) calls them duplicate ACKs and the retransmission that follows
    them a fast retransmission, as run.json counts it. (A shrinking window made every one of
    them a "window update" and left Wireshark with no fast retransmission at all.)"""
    path, _ = _capture(program, tmp_path, duration=4.0, swaps=15, seed=2)
    assert _tshark_count(path, "tcp.analysis.duplicate_ack && tcp.srcport == 5001") > 10
    assert _tshark_count(path, "tcp.analysis.fast_retransmission") >= 1


def test_capture_at_a_host_is_in_time_order(program, tmp_path):
    """A host's frames are tapped ahead of their departure (its NIC queue): still in order."""
    _, records = _capture(program, tmp_path, node1="a", node2="r1", at="a", duration=1.0)
    times = [r.time for r in records]
    assert len(times) > 100 and times == sorted(times)


def test_capture_point_must_be_an_end_of_the_link(program, tmp_path):
    with pytest.raises(ValueError, match="not an end of the link"):
        _capture(program, tmp_path, at="b")
