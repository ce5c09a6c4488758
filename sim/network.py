"""``Network``: the virtual-time twin of a ``topologies`` Topo.

``Network.from_topo(topo, program=...)`` makes one ``SimpleSwitch`` per ``addSwitch`` (all
sharing one loaded BMv2 program), one ``HostNode`` per ``addHost`` and two ``Channel``s per
``addLink`` (full duplex) with the link's ``bw`` and ``delay``. Switch ports get the numbers the
Topo assigned, so the controller configuration, Mininet and the simulator agree on them.
Addresses, port MACs and routes are the Topo's address plan (``topologies.addressing``, which a
live network reads too): ``routes(switch)`` lists, for each host, the egress port and next-hop
MAC on a shortest path, which configuration callbacks turn into table entries.
"""

from __future__ import annotations

import os
import random
from typing import Any, Callable

from netbase.pcap import PcapWriter, TimeOrderedCapture
from netbase.units import parse_bw, parse_delay
from sim import program as gateway_source  # its gateway_json is looked up at each call
from sim.events import EventQueue
from sim.gateway import configure_gateway
from sim.hostnode import HostNode
from sim.links import Channel, Nic, queue_packets
from sim.switch import SwitchNode
from toolchain.switch import SimpleSwitch, load_program
from topologies.addressing import AddressPlan, Route, derive_seed, port_mac

__all__ = ["Network", "Route", "port_mac"]

Configure = Callable[["Network", str, Any], None]


class Network:
    """Nodes, channels and the event queue of one simulation run."""

    def __init__(self, *, seed: int = 1):
        self.events = EventQueue()
        self.seed = seed
        self.rng = random.Random(seed)
        self.topo: Any = None
        self.addresses: AddressPlan | None = None
        self.switches: dict[str, SwitchNode] = {}
        self.hosts: dict[str, HostNode] = {}
        self.channels: dict[tuple[str, int], Channel] = {}   # (sending node, its port) -> channel
        self.port_macs: dict[tuple[str, int], str] = {}       # the address plan's
        self.neighbours: dict[tuple[str, int], tuple[str, int]] = {}
        self._pcaps: list[TimeOrderedCapture] = []

    @property
    def now(self) -> float:
        return self.events.now

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_topo(cls, topo: Any, *, program: Any = None, seed: int = 1,
                  configure: Configure | None = None,
                  tm_depth: int | Callable[[dict], int] | None = None) -> "Network":
        """Build the twin of ``topo``; ``program`` is a loaded BMv2 program or a JSON path/dict
        (default: the RD-TCP gateway, ``sim.program.gateway_json()``).

        ``configure(net, switch_name, simple_switch)`` programs each switch (tables, registers,
        impairment knobs) once every port is attached; the default, with the default program,
        is ``sim.gateway.configure_gateway`` (the controller: routes, edge ports, the P4 buffer
        limit of every link with ``max_queue_size``). ``tm_depth`` sets each switch egress
        queue's depth in packets: an int, a function of the link's options, or None for the
        link's ``max_queue_size`` (plain drop-tail in the traffic manager).
        """
        net = cls(seed=seed)
        net.topo = topo
        net.addresses = addresses = AddressPlan(topo)
        net.port_macs, net.neighbours = addresses.port_macs, addresses.neighbours
        if program is None:
            program = gateway_source.gateway_json()
            configure = configure if configure is not None else configure_gateway
        if isinstance(program, (str, dict, os.PathLike)):
            program = load_program(str(program) if isinstance(program, os.PathLike) else program)
        for name in addresses.switches:
            sw = SimpleSwitch(program, seed=net.derive_seed(name))
            net.switches[name] = SwitchNode(name, sw, net.events)
        for name, h in addresses.hosts.items():
            net.hosts[name] = HostNode(name, ip=h.ip, mac=h.mac, gateway_mac=h.gateway_mac,
                                       events=net.events)
        for (a, b, info) in topo.links(withInfo=True):
            net._add_link(info, tm_depth)
        if configure is not None:
            for name, node in net.switches.items():
                configure(net, name, node.switch)
        return net

    def derive_seed(self, name: str) -> int:
        """The seed of component ``name``'s random stream (a switch, the queue swapper, ...):
        a function of (run seed, name) only (``topologies.addressing.derive_seed``), so adding
        a component does not shift the others' streams, and a live run seeds its switch
        processes the same way."""
        return derive_seed(self.seed, name)

    def _add_link(self, info: dict, tm_depth: Any) -> None:
        rate = parse_bw(info.get("bw"))
        delay = parse_delay(info.get("delay"))
        ends = [(info["node1"], info["port1"]), (info["node2"], info["port2"])]
        for (src, sport), (dst, dport) in (ends, ends[::-1]):
            receiver = self.switches.get(dst) or self.hosts[dst]
            ch = Channel(self.events, delay=delay, rate_bps=rate, deliver=receiver.on_frame,
                         dst_port=dport, name=f"{src}-{dst}")
            self.channels[(src, sport)] = ch
            if src in self.switches:
                node = self.switches[src]
                node.attach(sport, ch, rate)
                depth = tm_depth(info) if callable(tm_depth) else tm_depth
                if depth is None:
                    depth = queue_packets(info)
                if depth is not None:
                    node.switch.cli(f"set_queue_depth {int(depth)} {sport}")
            else:
                self.hosts[src].nic = Nic(ch)

    # ------------------------------------------------------------------ queries
    def routes(self, switch: str) -> list[Route]:
        """For every host: the egress port of ``switch`` on a fewest-hops path, and the MAC of
        the next node's ingress port (``topologies.addressing.AddressPlan.routes``)."""
        return self._addresses().routes(switch)

    def link_info(self, node: str, port: int) -> dict:
        """The Topo's options of the link on ``node``'s ``port``."""
        return self._addresses().link_info(node, port)

    def _addresses(self) -> AddressPlan:
        if self.addresses is None:
            raise ValueError("this network was not built from a Topo (Network.from_topo)")
        return self.addresses

    def channel(self, src: str, dst: str, *, port: int | None = None) -> Channel:
        """The channel carrying frames from node ``src`` to node ``dst``."""
        for (s, p), (d, _) in self.neighbours.items():
            if s == src and d == dst and (port is None or p == port):
                return self.channels[(s, p)]
        raise KeyError(f"no link from {src!r} to {dst!r}")

    # ------------------------------------------------------------------ capture and running
    def capture(self, node1: str, node2: str, path: str, *, port: int | None = None,
                at: str | None = None) -> "TimeOrderedCapture":
        """Write every frame crossing the link node1–node2 (both directions) to a pcap file as
        a capture on one end's interface would see it (``at``: node1 by default, like tcpdump
        on r1-eth2): frames that node sends are stamped when their last bit leaves it, frames it
        receives when their last bit arrives. One vantage point is what makes the file's timing
        mean what Wireshark assumes (an ACK's ``ack_rtt`` is then the path's round-trip time,
        not half of it). ``port`` picks node1's port when two links join the same nodes."""
        at = node1 if at is None else at
        if at not in (node1, node2):
            raise ValueError(f"capture point {at!r} is not an end of the link {node1}–{node2}")
        forward = self.channel(node1, node2, port=port)
        sport = next(p for (s, p), ch in self.channels.items() if ch is forward)
        reverse = self.channels[self.neighbours[(node1, sport)]]
        outgoing, incoming = (forward, reverse) if at == node1 else (reverse, forward)
        writer = TimeOrderedCapture(PcapWriter(path), self.events)
        outgoing.taps.append(writer)
        incoming.rx_taps.append(writer)
        self._pcaps.append(writer)
        return writer

    def run(self, until: float) -> None:
        self.events.run(until)

    def close(self) -> None:
        for w in self._pcaps:
            w.close()
        self._pcaps.clear()
