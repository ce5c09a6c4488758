"""Topologies: Mininet's Topo API and the paper's dumbbell."""

import re

import pytest

from topologies import PaperTopo, topos
from topologies.base import Topo
from netbase.units import parse_bw, parse_delay


def test_paper_topo_has_the_papers_links():
    t = PaperTopo()
    assert t.hosts() == ["a", "b"] and t.switches() == ["r1", "r2"]
    assert t.linkInfo("a", "r1")["bw"] == 10 and t.linkInfo("a", "r1")["delay"] == "1ms"
    bottleneck = t.linkInfo("r1", "r2")
    assert (bottleneck["bw"], bottleneck["delay"], bottleneck["max_queue_size"]) == (5, "50ms", 65)
    assert t.port("r1", "r2") == (2, 2) and t.port("a", "r1") == (0, 1)


def test_paper_topo_alternate_path_adds_second_bottleneck_link():
    t = PaperTopo(alt_extra_delay="20ms")
    alt = [i for a, b, i in t.links(withInfo=True) if i["port1"] == 3]
    assert len(alt) == 1 and alt[0]["delay"] == "70ms"


def test_topos_dict_exposes_paper_topology_to_mn_custom():
    assert topos["rdtcp_paper"] is PaperTopo


def test_base_topo_numbers_switch_ports_from_1_and_host_ports_from_0():
    class Line(Topo):
        def build(self, n=2):
            s = self.addSwitch("s1")
            for i in range(n):
                self.addLink(self.addHost(f"h{i}"), s)

    t = Line(n=3)
    assert [t.port(f"h{i}", "s1") for i in range(3)] == [(0, 1), (0, 2), (0, 3)]


def test_base_topo_rejects_link_to_unknown_node_and_reused_port():
    class Bad(Topo):
        def build(self):
            self.addSwitch("s1")
            self.addLink("s1", "nowhere")

    with pytest.raises(ValueError, match="unknown node 'nowhere'"):
        Bad()

    class Reuse(Topo):
        def build(self):
            s = self.addSwitch("s1")
            self.addLink(self.addHost("h1"), s, port2=1)
            self.addLink(self.addHost("h2"), s, port2=1)

    with pytest.raises(ValueError, match="port 1 of 's1' is already linked"):
        Reuse()


@pytest.mark.parametrize("text,seconds", [("1ms", 1e-3), ("50ms", 0.05), ("200us", 2e-4),
                                           ("0.5s", 0.5), ("10", 1e-5)])
def test_parse_delay_accepts_netem_units(text, seconds):
    assert parse_delay(text) == pytest.approx(seconds)


@pytest.mark.parametrize("bad", ["fast", "1 hour", 5])
def test_parse_delay_rejects_bad_values_clearly(bad):
    with pytest.raises(ValueError, match="delay"):
        parse_delay(bad)


def test_parse_bw_is_megabits():
    assert parse_bw(5) == 5e6 and parse_bw(None) is None
    with pytest.raises(ValueError, match="positive number of Mb/s"):
        parse_bw(-1)


def test_the_address_plan_is_read_from_the_topo_alone():
    """Addresses, port MACs, routes and seeds with nothing built: what the simulator and the
    live runner both read (tests/live/test_plan.py compares them with a simulated network)."""
    from topologies.addressing import AddressPlan, derive_seed

    plan = AddressPlan(PaperTopo(alt_extra_delay="10ms"))
    a, b = plan.hosts["a"], plan.hosts["b"]
    assert (a.ip, a.mac, a.gateway_mac, a.switch, a.switch_port, a.port) == \
        ("10.0.1.1", "00:00:00:00:00:0a", "02:00:00:00:01:01", "r1", 1, 0)
    assert (b.gateway_mac, b.switch) == ("02:00:00:00:02:01", "r2")
    assert plan.neighbours[("r1", 3)] == ("r2", 3) and plan.neighbours[("a", 0)] == ("r1", 1)
    # the direct bottleneck (port 2) is the fewer-hops tie's lower port
    assert [(r.host, r.prefix, r.port, r.next_hop_mac) for r in plan.routes("r1")] == \
        [("a", "10.0.1.1/32", 1, a.mac), ("b", "10.0.2.1/32", 2, "02:00:00:00:02:02")]
    assert plan.link_info("r2", 3)["delay"] == "60ms"
    assert derive_seed(1, "r1") == derive_seed(1, "r1") != derive_seed(2, "r1")


@pytest.mark.parametrize("links, words", [
    ((), "exactly one link, to a switch (has 0)"),
    ((("h", "s1"), ("h", "s1")), "exactly one link, to a switch (has 2)"),
])
def test_the_address_plan_names_a_host_that_is_not_on_one_switch(links, words):
    from topologies.addressing import AddressPlan

    class Odd(Topo):
        def build(self):
            self.addHost("h", ip="10.0.0.1/24", mac="00:00:00:00:00:01")
            self.addSwitch("s1")
            for a, b in links:
                self.addLink(a, b)

    with pytest.raises(ValueError, match=re.escape(words)):
        AddressPlan(Odd())
