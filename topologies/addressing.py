"""The address plan of a Topo: what the simulator and a live network both derive from the graph.

A Topo says which nodes exist and how their ports are linked; running it needs more, and the
simulator (``sim.Network.from_topo``) and the live runner (``live.plan.LivePlan.from_topo``)
must agree on all of it or the controller would configure a live gateway for a network that is
not there. ``AddressPlan`` derives it once, from the Topo alone (nothing is built or loaded):

- each host's address (``ip=``/``mac=`` host options) and the MAC of the switch port it is
  attached to, which it sends every frame to (the P4 gateway answers no ARP);
- each switch port's MAC (``port_mac``: locally administered, one per switch and port);
- who is at the other end of every port (``neighbours``), and from that each switch's route to
  every host on a fewest-hops path (``routes``), which the controller turns into table entries;

and ``derive_seed``, how a run's seed becomes the seed of each named component's random stream
(a switch, a delay model), so a live switch process draws what its simulated twin draws.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Any

__all__ = ["AddressPlan", "HostAddress", "Route", "port_mac", "derive_seed"]


def port_mac(switch_index: int, port: int) -> str:
    """The MAC of a switch port: locally administered, 02:00:00:00:<switch>:<port>."""
    return "02:00:00:00:%02x:%02x" % (switch_index + 1, port)


def derive_seed(seed: int, name: str) -> int:
    """The seed of component ``name``'s random stream in a run seeded ``seed``: a function of
    (run seed, name) only, so adding a component does not shift the others' streams."""
    return random.Random(f"{seed}/{name}").getrandbits(32)


@dataclass(frozen=True)
class Route:
    host: str
    prefix: str        # "10.0.2.1/32"
    port: int          # egress port on the switch
    next_hop_mac: str  # the host's MAC, or the next switch's ingress-port MAC


@dataclass(frozen=True)
class HostAddress:
    name: str
    ip: str                   # without the prefix length
    mac: str
    gateway_mac: str          # the MAC of the switch port the host is attached to
    switch: str
    switch_port: int
    port: int                 # the host's own port number in the Topo (its interface ethN)


class AddressPlan:
    """Addresses, port MACs, adjacency and routes of ``topo``'s hosts and switches.

    ``switches`` maps each switch to its index (the order of ``addSwitch``), ``port_macs``
    (switch, port) to that port's MAC, ``neighbours`` (node, port) to the (node, port) at the
    other end of its link, ``hosts`` each host to its ``HostAddress``. ValueError names a host
    without ``ip=``/``mac=`` or not linked to exactly one switch."""

    def __init__(self, topo: Any):
        self.topo = topo
        self.switches: dict[str, int] = {name: i
                                         for i, name in enumerate(topo.switches(sort=False))}
        self.port_macs: dict[tuple[str, int], str] = {}
        self.neighbours: dict[tuple[str, int], tuple[str, int]] = {}
        links = [info for _, _, info in topo.links(withInfo=True)]
        for info in links:
            ends = ((info["node1"], info["port1"]), (info["node2"], info["port2"]))
            for (node, port), peer in (ends, ends[::-1]):
                if node in self.switches:
                    self.port_macs[(node, port)] = port_mac(self.switches[node], port)
                self.neighbours[(node, port)] = peer
        self.hosts: dict[str, HostAddress] = {}
        for name in topo.hosts(sort=False):
            self.hosts[name] = self._host(name, links)

    def _host(self, name: str, links: list[dict]) -> HostAddress:
        opts = self.topo.nodeInfo(name)
        ip, mac = opts.get("ip"), opts.get("mac")
        if not ip or not mac:
            raise ValueError(f"host {name!r} needs ip= and mac= options in the topology "
                             f"(got ip={ip!r}, mac={mac!r})")
        attached = [((i["node2"], i["port2"]), i["port1"]) if i["node1"] == name
                    else ((i["node1"], i["port1"]), i["port2"])
                    for i in links if name in (i["node1"], i["node2"])]
        if len(attached) != 1 or attached[0][0] not in self.port_macs:
            raise ValueError(f"host {name!r} must have exactly one link, to a switch "
                             f"(has {len(attached)})")
        (switch, switch_port), own_port = attached[0]
        return HostAddress(name, ip.split("/")[0], mac, self.port_macs[(switch, switch_port)],
                           switch, switch_port, own_port)

    def routes(self, switch: str) -> list[Route]:
        """For every host: the egress port of ``switch`` on a fewest-hops path, and the MAC of
        the next node's ingress port (ties broken by the lower port number)."""
        out = []
        for host in sorted(self.hosts):
            dist = self._hops_to(host)
            if switch not in dist:
                continue
            best = min(((dist[n], p, n, np) for (s, p), (n, np) in self.neighbours.items()
                        if s == switch and n in dist), default=None)
            if best is None:
                continue
            _, port, nxt, nport = best
            mac = self.hosts[nxt].mac if nxt in self.hosts else self.port_macs[(nxt, nport)]
            out.append(Route(host, self.hosts[host].ip + "/32", port, mac))
        return out

    def _hops_to(self, host: str) -> dict[str, int]:
        dist = {host: 0}
        todo = deque([host])
        while todo:
            n = todo.popleft()
            for (s, _), (d, _) in self.neighbours.items():
                if d == n and s not in dist:
                    dist[s] = dist[n] + 1
                    todo.append(s)
        return dist

    def link_info(self, node: str, port: int) -> dict:
        """The Topo's options of the link on ``node``'s ``port``."""
        for _, _, info in self.topo.links(withInfo=True):
            if (info["node1"], info["port1"]) == (node, port) or \
               (info["node2"], info["port2"]) == (node, port):
                return info
        raise KeyError(f"no link on {node!r} port {port}")
