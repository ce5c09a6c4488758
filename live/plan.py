"""The plan of a live network, derived from a Topo with no root needed, and how it is run.

``LivePlan.from_topo`` reads everything the live network needs from the Topo and its address plan
(``topologies.addressing``, the simulator's too: addresses, MACs, routes, switch seeds), each
port's delay and rate, the gateways' controller configs;
``Layout`` says what runs where (the hosts' TCP, the switches, which links get a delay stage);
the ``*_commands`` functions are what configures a host namespace, a host's interface and a
root-namespace interface for a layout, the same whichever backend builds the network
(``live.network``: plain namespaces, or Mininet through ``live.mininet``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from netbase.units import parse_bw, parse_delay
from topologies.addressing import AddressPlan, derive_seed

__all__ = ["LiveError", "LivePlan", "HostPlan", "PortPlan", "Layout", "SwitchSpec",
           "queue_rate_pps", "namespace_commands", "host_commands", "root_if_commands",
           "netem_args", "OFFLOADS_OFF", "HOST_KINDS", "SWITCH_KINDS", "LINK_DELAYS",
           "REPO_ROOT", "MTU", "ETH_HEADER"]

REPO_ROOT = Path(__file__).resolve().parents[1]
MTU = 1500                    # the paper's packets ([RDTCP] §4); gateway_config's port MTU
ETH_HEADER = 14               # a frame of an MTU-sized packet is 1514 bytes on the wire


class LiveError(Exception):
    """The live network cannot be built or run here; the message says why (printed as error:)."""


def queue_rate_pps(bw_bps: float, mtu: int = MTU) -> int:
    """``set_queue_rate`` for a link of ``bw_bps``: packets/s of MTU-sized frames (1514 bytes at
    MTU 1500, the size the simulator serialises at ``bw``), rounded, at least 1. Smaller frames
    (ACKs) take a whole slot each: the traffic manager paces packets, not bits."""
    return max(1, round(bw_bps / (8.0 * (mtu + ETH_HEADER))))


# -- the plan: everything derived from the Topo, no root needed -----------------------------------
@dataclass(frozen=True)
class HostPlan:
    name: str
    ip: str
    mac: str
    gateway_mac: str          # the MAC of the switch port the host is attached to
    switch: str
    switch_port: int
    port: int                 # the host's own port number in the Topo (its interface ethN)
    delay_s: float            # the link's propagation delay, applied by the host as it sends
    rate_bps: float | None    # the link's rate, at which the host serialises what it sends


@dataclass(frozen=True)
class PortPlan:
    switch: str
    port: int
    peer: str
    peer_port: int
    delay_s: float            # applied as the switch sends (--port-delay)
    rate_bps: float | None
    queue_rate_pps: int | None


@dataclass
class LivePlan:
    """Hosts, switch ports and links of a Topo, and the command lines that run them."""

    topo: Any
    addresses: AddressPlan                      # the simulator builds from the same plan
    hosts: dict[str, HostPlan] = field(default_factory=dict)
    ports: dict[str, dict[int, PortPlan]] = field(default_factory=dict)
    links: list[tuple[str, int, str, int]] = field(default_factory=list)
    switch_seeds: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_topo(cls, topo: Any, *, seed: int = 1) -> "LivePlan":
        """``seed``: the run's, from which each switch's random stream is derived as the
        simulator derives it (``topologies.addressing.derive_seed``)."""
        addresses = AddressPlan(topo)
        plan = cls(topo=topo, addresses=addresses)
        plan.switch_seeds = {name: derive_seed(seed, name) for name in addresses.switches}
        for _, _, info in topo.links(withInfo=True):
            ends = ((info["node1"], info["port1"]), (info["node2"], info["port2"]))
            plan.links.append((*ends[0], *ends[1]))
            delay, rate = parse_delay(info.get("delay")), parse_bw(info.get("bw"))
            for (node, port), (peer, peer_port) in (ends, ends[::-1]):
                if node in addresses.switches:
                    plan.ports.setdefault(node, {})[port] = PortPlan(
                        node, port, peer, peer_port, delay, rate,
                        None if rate is None else queue_rate_pps(rate))
                else:
                    h = addresses.hosts[node]
                    plan.hosts[node] = HostPlan(node, h.ip, h.mac, h.gateway_mac, peer,
                                                peer_port, port, delay, rate)
        for name in addresses.switches:
            plan.ports.setdefault(name, {})
        return plan

    @property
    def switches(self) -> list[str]:
        return list(self.ports)

    def switch_argv(self, name: str, ifnames: dict[int, str], program_path: str, *,
                    pcap_dir: str | None = None, python: str = sys.executable,
                    delayed_ports: set[int] | None = None) -> list[str]:
        """``rdtcp-switch`` for switch ``name`` with its ports on ``ifnames`` ({port: interface}),
        each link's delay on the port that sends into it (only ``delayed_ports`` when given: the
        others' links have a delay stage), a control port the system picks."""
        argv = [python, "-m", "toolchain.switch.process.main"]
        for port in sorted(self.ports[name]):
            argv.append(f"-i{port}@{ifnames[port]}")
        for port, p in sorted(self.ports[name].items()):
            if p.delay_s > 0 and (delayed_ports is None or port in delayed_ports):
                argv += ["--port-delay", f"{port}:{p.delay_s * 1000:g}"]
        argv += ["--thrift-port", "0", "--seed", str(self.switch_seeds.get(name, 0))]
        if pcap_dir is not None:
            argv += ["--pcap", str(pcap_dir)]
        return argv + [str(program_path)]

    def simple_switch_argv(self, name: str, ifnames: dict[int, str], program_path: str, *,
                           binary: str, thrift_port: int,
                           pcap_dir: str | None = None) -> list[str]:
        """simple_switch's command line (behavioral-model ``options_parse.cpp``) for switch
        ``name``: its ports, its Thrift port, a device id of its own, the JSON. No delay and no
        seed: simple_switch has neither option (a delay stage serves its links)."""
        argv = [binary]
        for port in sorted(self.ports[name]):
            argv += ["-i", f"{port}@{ifnames[port]}"]
        argv += ["--thrift-port", str(thrift_port),
                 "--device-id", str(self.switches.index(name))]
        if pcap_dir is not None:
            argv += ["--pcap", str(pcap_dir)]
        return argv + [str(program_path)]

    def host_argv(self, name: str, ifname: str, peer: str, extra: list[str], *,
                  python: str = sys.executable, own_link: bool = True) -> list[str]:
        """``live.host`` on host ``name`` talking to host ``peer``, with its link's delay and
        rate on what it sends (unless a delay stage serves its link: ``own_link`` False);
        ``extra`` adds the role and engine options."""
        h, p = self.hosts[name], self.hosts[peer]
        argv = [python, "-m", "live.host", "--interface", ifname, "--ip", h.ip, "--mac", h.mac,
                "--gateway-mac", h.gateway_mac, "--peer-ip", p.ip]
        if own_link and h.delay_s > 0:
            argv += ["--delay", f"{h.delay_s * 1000:g}"]
        if own_link and h.rate_bps is not None:
            argv += ["--rate", f"{h.rate_bps / 1e6:g}"]
        return argv + list(extra)

    def kernel_host_argv(self, name: str, peer: str, extra: list[str], *,
                         python: str = sys.executable) -> list[str]:
        """``live.kernel_host`` (Linux's TCP) on host ``name`` talking to host ``peer``; the
        kernel owns the address and its link is served by a delay stage."""
        return [python, "-m", "live.kernel_host", "--ip", self.hosts[name].ip,
                "--peer-ip", self.hosts[peer].ip, *extra]

    def link_index(self, node: str, port: int) -> int:
        """The index in ``links`` of the link at ``node``'s ``port``."""
        for i, (n1, p1, n2, p2) in enumerate(self.links):
            if (n1, p1) == (node, port) or (n2, p2) == (node, port):
                return i
        raise KeyError(f"{node} has no link on port {port}")

    def link_delay(self, i: int) -> float:
        n1, p1, n2, p2 = self.links[i]
        if n1 in self.ports:
            return self.ports[n1][p1].delay_s
        return self.hosts[n1].delay_s

    def gateway_config(self, name: str, *, tm_depth: int | None = None,
                       impair: dict[int, dict] | None = None) -> dict:
        """The controller config of switch ``name``: the simulator's (routes, edge ports, buffer
        limits, impairments; ``sim.gateway.gateway_config``) plus each rate-limited port's
        ``queue_rate_pps``, which the simulator sets in bits/s in the library instead."""
        from sim.gateway import DEFAULT_TM_DEPTH, gateway_config

        cfg = gateway_config(self.addresses, name, tm_depth=tm_depth or DEFAULT_TM_DEPTH,
                             impair=impair)
        for port, p in self.ports[name].items():
            if p.queue_rate_pps is not None:
                cfg["ports"].setdefault(str(port), {})["queue_rate_pps"] = p.queue_rate_pps
        return cfg

    def describe(self) -> dict:
        """The plan as JSON-able data (written into run.json)."""
        return {"hosts": {n: {**h.__dict__} for n, h in self.hosts.items()},
                "ports": {s: {str(p): {**pp.__dict__} for p, pp in sorted(ports.items())}
                          for s, ports in self.ports.items()},
                "links": [list(link) for link in self.links]}


# -- how a plan is run: hosts' and switches' kinds, where link delays are applied ------------------
HOST_KINDS = ("engine", "kernel")
SWITCH_KINDS = ("embedded", "simple_switch")
LINK_DELAYS = ("auto", "senders", "relay", "netem")


@dataclass(frozen=True)
class SwitchSpec:
    """What runs each gateway: ``embedded``, the project's ``rdtcp-switch`` on ``python``, or
    ``simple_switch``: ``binary``, anything with simple_switch's command line and Thrift API
    (real BMv2, or rdtcp-switch standing in)."""

    kind: str = "embedded"
    binary: str | None = None
    python: str = sys.executable

    def __post_init__(self):
        if self.kind not in SWITCH_KINDS:
            raise LiveError(f"unknown switch {self.kind!r}; choose from {', '.join(SWITCH_KINDS)}")
        if self.kind == "simple_switch" and not self.binary:
            raise LiveError("a simple_switch gateway needs its binary (--switch-binary)")

    @property
    def delays_its_ports(self) -> bool:
        """rdtcp-switch holds a port's frames for its link's delay (--port-delay); real
        simple_switch has no such option."""
        return self.kind == "embedded"


@dataclass(frozen=True)
class Layout:
    """How a ``LivePlan`` is run.

    ``hosts``: ``engine`` (the project's TCP on a raw socket, ``live.host``) or ``kernel``
    (Linux's TCP, ``live.kernel_host``, the kernel owning the host's address). ``switch``: a
    ``SwitchSpec``. ``stages``: link index -> ``relay`` (a ``live.delay_stage`` process between
    two veth pairs) or ``netem`` (qdiscs on the link's two sending interfaces), for the links
    whose delay a sender cannot apply itself. ``sysctls``: settings for the hosts' namespaces.
    """

    hosts: str = "engine"
    switch: SwitchSpec = field(default_factory=SwitchSpec)
    stages: dict = field(default_factory=dict)
    sysctls: tuple = ()

    @classmethod
    def choose(cls, plan: "LivePlan", *, hosts: str = "engine", switch: SwitchSpec | None = None,
               link_delay: str = "auto", sysctls: dict | None = None,
               netem: bool | None = None) -> "Layout":
        """Stages where they are needed (``auto``: a link whose delay, or whose host's rate,
        one of its senders cannot apply: Linux's TCP, simple_switch) or everywhere
        (``relay``/``netem``); ``senders`` refuses a layout that would need one. ``netem``:
        whether the kernel has it (probed when None and needed)."""
        from live.environment import netem_available

        if hosts not in HOST_KINDS:
            raise LiveError(f"unknown host kind {hosts!r}; choose from {', '.join(HOST_KINDS)}")
        if link_delay not in LINK_DELAYS:
            raise LiveError(f"unknown link delay {link_delay!r}; choose from "
                            f"{', '.join(LINK_DELAYS)}")
        switch = switch or SwitchSpec()
        stages: dict[int, str] = {}
        for i, link in enumerate(plan.links):
            if not _link_has_timing(plan, link):
                continue
            needed = not all(_sender_times_itself(plan, node, hosts, switch)
                             for node in (link[0], link[2]))
            if link_delay == "senders" and needed:
                raise LiveError(f"link {link[0]}-{link[2]}: {_why_not_itself(plan, link, hosts)} "
                                "cannot delay what it sends; use --link-delay auto, relay or "
                                "netem")
            if link_delay in ("relay", "netem") or (link_delay == "auto" and needed):
                stages[i] = link_delay
        if "auto" in stages.values():
            kind = "netem" if (netem if netem is not None else netem_available()) else "relay"
            stages = {i: kind for i in stages}
        return cls(hosts=hosts, switch=switch, stages=stages,
                   sysctls=tuple(sorted((sysctls or {}).items())))

    def staged(self, plan: "LivePlan", node: str, port: int) -> bool:
        return plan.link_index(node, port) in self.stages


def _link_has_timing(plan: "LivePlan", link: tuple) -> bool:
    n1, p1, n2, p2 = link
    ends = [plan.hosts[n] for n in (n1, n2) if n in plan.hosts]
    return plan.link_delay(plan.links.index(link)) > 0 or any(h.rate_bps for h in ends)


def _sender_times_itself(plan: "LivePlan", node: str, hosts: str, switch: SwitchSpec) -> bool:
    if node in plan.hosts:
        return hosts == "engine"            # live.host --delay/--rate; Linux sends at once
    return switch.delays_its_ports


def _why_not_itself(plan: "LivePlan", link: tuple, hosts: str) -> str:
    if hosts == "kernel" and (link[0] in plan.hosts or link[2] in plan.hosts):
        return "Linux's TCP"
    return "simple_switch"


OFFLOADS_OFF = ("tx", "off", "tso", "off", "gso", "off", "gro", "off")


def namespace_commands(layout: Layout) -> list[list[str]]:
    """Run in a new host namespace before any interface exists there: IPv6 off (no router
    solicitations, no DAD), loopback up, the run's TCP settings."""
    cmds = [["sysctl", "-qw", f"net.ipv6.conf.{key}.disable_ipv6=1"] for key in ("all", "default")]
    cmds.append(["ip", "link", "set", "lo", "up"])
    return cmds + [["sysctl", "-qw", f"{key}={value}"] for key, value in layout.sysctls]


def host_commands(plan: LivePlan, layout: Layout, host: str, ifname: str) -> list[list[str]]:
    """Run in the host's namespace once its interface exists: up, and for Linux's TCP the
    host's MAC, its address (/32), and for every other host a route on the link and a permanent
    neighbour entry with the gateway port's MAC (the P4 gateway answers no ARP; every frame
    goes to the gateway, as from the engine's hosts); offloads off; netem on what it sends."""
    h = plan.hosts[host]
    cmds = []
    if layout.hosts == "kernel":     # Linux's TCP receives what is addressed to the host
        cmds.append(["ip", "link", "set", ifname, "address", h.mac])
    cmds.append(["ip", "link", "set", ifname, "up"])
    if layout.hosts == "kernel":
        cmds.append(["ip", "addr", "add", f"{h.ip}/32", "dev", ifname])
        for other, o in plan.hosts.items():
            if other != host:
                cmds.append(["ip", "route", "add", f"{o.ip}/32", "dev", ifname])
                cmds.append(["ip", "neigh", "replace", o.ip, "lladdr", h.gateway_mac,
                             "dev", ifname, "nud", "permanent"])
        # frames MTU-sized and checksums complete, as the gateway must see them (kernel_host)
        cmds.append(["ethtool", "-K", ifname, *OFFLOADS_OFF])
    i = plan.link_index(host, h.port)
    if layout.stages.get(i) == "netem":
        cmds.append(["tc", "qdisc", "replace", "dev", ifname, "root",
                     *netem_args(plan, i, host)])
    return cmds


def root_if_commands(layout: Layout, ifname: str,
                     netem: list[str] | None = None) -> list[list[str]]:
    """A root-namespace interface: IPv6 off (the root namespace's defaults are not ours to
    change: per interface, before it is up), up, offloads off with Linux's TCP, netem."""
    cmds = [["sysctl", "-qw", f"net.ipv6.conf.{ifname}.disable_ipv6=1"],
            ["ip", "link", "set", ifname, "up"]]
    if layout.hosts == "kernel":
        cmds.append(["ethtool", "-K", ifname, *OFFLOADS_OFF])
    if netem is not None:
        cmds.append(["tc", "qdisc", "replace", "dev", ifname, "root", *netem])
    return cmds


def netem_args(plan: LivePlan, link: int, sender: str) -> list[str]:
    """netem's arguments for what ``sender`` puts on ``link``: the link's delay, and a host's
    rate (its NIC serialises; a switch's traffic manager paces its own port)."""
    args = ["netem", "delay", f"{plan.link_delay(link) * 1000:g}ms"]
    rate = plan.hosts[sender].rate_bps if sender in plan.hosts else None
    if rate:
        args += ["rate", f"{rate / 1e6:g}mbit"]
    return args
