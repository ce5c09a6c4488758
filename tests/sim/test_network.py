"""The simulator twin of a Topo, driven with frames through real p4c output (LPM forwarder):
timing through switches, pcap capture, queue swaps and determinism."""

import shutil
import subprocess

import pytest
from scapy.layers.inet import IP, TCP
from scapy.layers.l2 import Ether

from netbase.pcap import read_pcap
from sim.network import Network
from sim.reorder import QueueSwapper
from topologies import PaperTopo


def lpm_routes(net, name, sw):
    """Program the kit's forwarder (KitIngress.ipv4_lpm -> forward(port, next_hop)) from the
    network's shortest-path routes."""
    for r in net.routes(name):
        sw.cli(f"table_add KitIngress.ipv4_lpm KitIngress.forward {r.prefix} => "
               f"{r.port} {r.next_hop_mac}")


def _frame(net, ident: int, size: int = 1514) -> bytes:
    a, b = net.hosts["a"], net.hosts["b"]
    pkt = (Ether(src=a.mac, dst=a.gateway_mac) / IP(src=a.ip, dst=b.ip, id=ident) /
           TCP(sport=1000, dport=2000, seq=ident))
    return bytes(pkt / bytes(size - len(pkt)))


def _net(program, **kw):
    return Network.from_topo(PaperTopo(), program=program, configure=lpm_routes, **kw)


def _inject(net, frames, at=0.0):
    """Frames arrive at r1's port 1 (from a) at time ``at``."""
    r1 = net.switches["r1"]
    for f in frames:
        net.events.schedule(at, r1.on_frame, (1, f))


def test_routes_follow_the_dumbbell(lpm_program):
    net = _net(lpm_program)
    r1 = {r.host: (r.port, r.next_hop_mac) for r in net.routes("r1")}
    assert r1["b"] == (2, net.port_macs[("r2", 2)])
    assert r1["a"] == (1, net.hosts["a"].mac)


def test_frame_crosses_switches_with_serialisation_and_propagation(lpm_program, tmp_path):
    net = _net(lpm_program)
    path = tmp_path / "r2-b.pcap"
    net.capture("r2", "b", str(path))
    _inject(net, [_frame(net, 1)])
    net.run(until=1.0)
    net.close()
    (rec,) = list(read_pcap(str(path)))
    # r1 serialises 1514 B at 5 Mb/s, 50 ms to r2, r2 serialises at 10 Mb/s
    expected = 1514 * 8 / 5e6 + 0.050 + 1514 * 8 / 10e6
    assert rec.time == pytest.approx(expected, abs=1e-6)
    out = Ether(rec.data)
    assert out[IP].ttl == 62 and out.dst == net.hosts["b"].mac


def test_pcap_of_a_link_is_readable_by_tshark(lpm_program, tmp_path):
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed")
    net = _net(lpm_program)
    path = tmp_path / "r1-r2.pcap"
    net.capture("r1", "r2", str(path))
    _inject(net, [_frame(net, i) for i in range(5)])
    net.run(until=1.0)
    net.close()
    out = subprocess.run(["tshark", "-r", str(path), "-T", "fields", "-e", "ip.id"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert [int(x, 16) for x in out] == [0, 1, 2, 3, 4]


def _departure_order(program, *, seed, swaps, n=20, tmp_path=None):
    net = _net(program, seed=seed)
    path = tmp_path / f"swap-{seed}-{swaps}.pcap"
    net.capture("r1", "r2", str(path))
    swapper = QueueSwapper(net.switches["r1"], 2, swaps=swaps, interval=0.01, seed=seed)
    _inject(net, [_frame(net, i) for i in range(n)])
    net.run(until=2.0)
    net.close()
    return [Ether(r.data)[IP].id for r in read_pcap(str(path))], swapper


def test_queue_swaps_reorder_but_never_lose_packets(lpm_program, tmp_path):
    order, swapper = _departure_order(lpm_program, seed=3, swaps=2, tmp_path=tmp_path)
    assert sorted(order) == list(range(20))
    assert order != list(range(20)) and swapper.done > 0
    assert order[0] == 0          # the packet on the wire is never swapped


def test_queue_swaps_are_deterministic_for_a_seed(lpm_program, tmp_path):
    a, _ = _departure_order(lpm_program, seed=5, swaps=3, tmp_path=tmp_path)
    b, _ = _departure_order(lpm_program, seed=5, swaps=3, tmp_path=tmp_path)
    c, _ = _departure_order(lpm_program, seed=6, swaps=3, tmp_path=tmp_path)
    assert a == b and a != c


def test_queue_swaps_skip_when_fewer_than_two_packets_wait(lpm_program, tmp_path):
    order, swapper = _departure_order(lpm_program, seed=1, swaps=4, n=2, tmp_path=tmp_path)
    assert order == [0, 1] and swapper.done == 0 and swapper.skipped > 0


def test_host_without_address_is_refused(lpm_program):
    from topologies.base import Topo

    class NoIp(Topo):
        def build(self):
            self.addLink(self.addHost("h"), self.addSwitch("s1"))

    with pytest.raises(ValueError, match="needs ip= and mac="):
        Network.from_topo(NoIp(), program=lpm_program)
