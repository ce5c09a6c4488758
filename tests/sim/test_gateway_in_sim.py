"""The RD-TCP gateway program (p4src/rdtcp.p4) inside the simulator, configured by the controller
exactly as the paper runs configure it, driven with TCP data frames at the access-link rate."""

import pytest
from scapy.layers.inet import IP, TCP
from scapy.layers.l2 import Ether

from experiments.runner.gateways import gateway_counters
from experiments.runner.spec import RunSpec
from experiments.studies.rdtcp.scenario import BUFFER_PACKETS, build_network


@pytest.fixture(scope="module")
def program():
    from sim.program import gateway_json
    from toolchain.switch import load_program
    return load_program(gateway_json())


def _overload(net, n, *, every=0.0012):
    """n data segments from a to b at 10 Mb/s (twice the bottleneck) into r1's port 1."""
    a, b = net.hosts["a"], net.hosts["b"]
    r1 = net.switches["r1"]
    for i in range(n):
        pkt = (Ether(src=a.mac, dst=a.gateway_mac) / IP(src=a.ip, dst=b.ip) /
               TCP(sport=40000, dport=5001, seq=1000 + 1448 * i, flags="A"))
        net.events.schedule(i * every, r1.on_frame, (1, bytes(pkt / bytes(1448))))


def test_gateway_enforces_the_65_packet_buffer_and_records_every_drop(program):
    net = build_network(RunSpec(variant="rdtcp"), program)
    _overload(net, 600)
    tm = net.switches["r1"].switch.tm
    deepest = []
    for step in range(1, 80):
        net.run(until=step * 0.01)
        deepest.append(tm.queue_length(2))
    net.run(until=3.0)
    c = gateway_counters(net.switches["r1"].switch)
    assert max(deepest) == BUFFER_PACKETS
    assert c["drops_buffer"] > 0 and c["epdn_events_record"] == c["drops_buffer"]
    assert net.channel("r2", "b").frames == 600 - c["drops_buffer"]


def test_altpath_injection_sends_packets_over_the_longer_link(program):
    net = build_network(RunSpec(variant="sack", injection="altpath", level=0.2), program)
    _overload(net, 200, every=0.003)           # below the bottleneck rate: no buffer drops
    net.run(until=3.0)
    c = gateway_counters(net.switches["r1"].switch)
    alt = net.channel("r1", "r2", port=3).frames
    assert alt == c["reorders_alternate_port"] > 0
    assert net.channel("r1", "r2", port=2).frames + alt == 200


def test_recirculation_injection_is_counted_and_loses_nothing(program):
    net = build_network(RunSpec(variant="sack", injection="recirc", level=0.2), program)
    _overload(net, 200, every=0.003)
    net.run(until=3.0)
    c = gateway_counters(net.switches["r1"].switch)
    assert c["reorders_recirculate"] > 0 and c["drops_buffer"] == 0
    assert net.channel("r2", "b").frames == 200


def test_from_topo_defaults_to_the_gateway_configured_by_the_controller():
    from sim.network import Network
    from topologies import PaperTopo
    net = Network.from_topo(PaperTopo())
    _overload(net, 3, every=0.01)
    net.run(until=1.0)
    assert net.channel("r2", "b").frames == 3
    assert net.switches["r1"].switch.runtime.register_read("buffer_limit", 2) == BUFFER_PACKETS


def _altpath_capture(program, seed, path):
    net = build_network(RunSpec(variant="sack", injection="altpath", level=0.3, seed=seed),
                        program)
    net.capture("r2", "b", str(path))
    _overload(net, 100, every=0.003)
    net.run(until=2.0)
    net.close()
    return path.read_bytes()


def test_gateway_randomness_is_fixed_by_the_run_seed(program, tmp_path):
    # The P4 program's random extern decides which packets take the alternate path.
    first = _altpath_capture(program, 11, tmp_path / "a.pcap")
    again = _altpath_capture(program, 11, tmp_path / "b.pcap")
    other = _altpath_capture(program, 12, tmp_path / "c.pcap")
    assert first == again and first != other
