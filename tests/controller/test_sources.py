"""The edge ports' source check (ingress filtering, BCP 38; p4src/include/trust.p4): the
config's ``ports.N.sources``, the prefixes routed out of an edge port by default, and the
commands that fill MyIngress.edge_source. Its effect on frames: the spoofed_source_dropped
scenario (ptf-tests/rdtcp_scenarios.py, run by the PTF and the library-mode suites)."""

from __future__ import annotations

import pytest

from controller import ConfigError, Controller, load_config
from controller import names as n
from controller.commands import config_commands

ROUTES = [{"prefix": "10.0.1.0/24", "port": 1, "next_hop_mac": "00:00:00:00:00:0a"},
          {"prefix": "10.0.9.9/32", "port": 1, "next_hop_mac": "00:00:00:00:00:0a"},
          {"prefix": "10.0.2.0/24", "port": 2, "next_hop_mac": "02:00:00:00:02:02"}]


def _source_commands(cfg: dict) -> list[str]:
    return [c for c in config_commands(load_config(cfg)) if n.EDGE_SOURCE in c]


def test_an_edge_port_allows_the_prefixes_routed_out_of_it_and_nothing_else():
    cfg = {"routes": ROUTES, "ports": {"1": {"edge": True}, "2": {}}}
    assert _source_commands(cfg) == [
        "table_clear MyIngress.edge_source",
        "table_add MyIngress.edge_source MyIngress.source_ok 1 10.0.1.0/24 => ",
        "table_add MyIngress.edge_source MyIngress.source_ok 1 10.0.9.9/32 => "]


def test_sources_replace_the_routed_prefixes():
    cfg = {"routes": ROUTES, "ports": {"1": {"edge": True, "sources": ["10.0.1.0/25", "192.0.2.7"]}}}
    assert _source_commands(cfg)[1:] == [
        "table_add MyIngress.edge_source MyIngress.source_ok 1 10.0.1.0/25 => ",
        "table_add MyIngress.edge_source MyIngress.source_ok 1 192.0.2.7/32 => "]


def test_an_edge_port_without_a_route_accepts_no_ipv4_and_a_default_route_any():
    assert _source_commands({"ports": {"3": {"edge": True}}})[1:] == []     # a miss: dropped
    cfg = {"routes": [{"prefix": "0.0.0.0/0", "port": 3, "next_hop_mac": "00:00:00:00:00:03"}],
           "ports": {"3": {"edge": True}}}
    assert _source_commands(cfg)[1:] == [
        "table_add MyIngress.edge_source MyIngress.source_ok 3 0.0.0.0/0 => "]


def test_core_ports_and_legacy_routers_check_no_source():
    assert _source_commands({"routes": ROUTES, "ports": {"2": {"mtu": 1500}}}) == [
        "table_clear MyIngress.edge_source"]
    assert _source_commands({"routes": ROUTES, "legacy": True}) == [
        "table_clear MyIngress.edge_source"]


def test_source_prefixes_are_rewritten_while_nothing_is_routed():
    cmds = config_commands(load_config({"routes": ROUTES, "ports": {"1": {"edge": True}}}))
    at = [i for i, c in enumerate(cmds) if n.EDGE_SOURCE in c]
    clears = [cmds.index(f"table_clear {t}") for t in (n.IPV4_LPM, n.L2_FORWARD)]
    first_route = min(i for i, c in enumerate(cmds) if c.startswith(f"table_add {n.IPV4_LPM}"))
    assert max(clears) < min(at) and max(at) < first_route
    assert cmds[0] == "register_write MyIngress.edge_port 1 1"


@pytest.mark.parametrize("ports,message", [
    ({"2": {"sources": ["10.0.2.0/24"]}},
     "ports.2.sources: only an edge port checks source addresses: set edge = true"),
    ({"1": {"edge": True, "sources": []}},
     "ports.1.sources: an empty list would drop everything the port's hosts send; leave sources "
     "out to allow the prefixes routed out of the port"),
    ({"1": {"edge": True, "sources": "10.0.1.0/24"}}, "ports.1.sources: expected a list, got str"),
    ({"1": {"edge": True, "sources": ["10.0.1.1/24"]}},
     "ports.1.sources[0]: invalid IPv4 prefix '10.0.1.1/24': 10.0.1.1/24 has host bits set"),
    ({"1": {"edge": True, "sources": ["10.0.1.0/24", "10.0.1.0/24"]}},
     "ports.1.sources[1]: 10.0.1.0/24 is listed twice"),
    ({"1": {"edge": True, "sources": [f"10.{i // 256}.{i % 256}.0/24" for i in range(257)]}},
     "ports.1.sources: 257 prefixes, at most 256"),
])
def test_bad_sources_are_one_line_errors(ports, message):
    with pytest.raises(ConfigError) as e:
        load_config({"ports": ports})
    assert str(e.value) == message


def test_more_source_prefixes_than_the_table_holds_are_refused_before_any_write():
    ports = {str(p): {"edge": True, "sources": [f"10.{p}.{i}.0/24" for i in range(200)]}
             for p in range(1, 7)}
    with pytest.raises(ConfigError) as e:
        Controller(_Refusing()).apply({"ports": ports})
    # five ports take 5 * 200 = 1000 entries: the sixth port's 25th prefix is the 1025th
    assert str(e.value) == ("ports.6.sources[24]: MyIngress.edge_source holds at most 1024 "
                            "entries")


class _Refusing:
    def run(self, commands):
        raise AssertionError("a command ran although the config was refused")
