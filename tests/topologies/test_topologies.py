"""Topologies: Mininet's Topo API and the paper's dumbbell."""

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
