"""A ``topologies`` Topo built for real: hosts in network namespaces, switches as processes.

The simulator's twin of a Topo (``sim.Network.from_topo``) and this live network come from the
same class and the same derivation: host IPs and MACs, switch-port MACs and routes are those of
the twin (``LivePlan.from_topo`` builds it and reads them there), so the controller configures a
live gateway exactly as it configures a simulated one (``sim.gateway.gateway_config``).

What runs where is a ``Layout``:

* hosts, each in its own namespace: ``engine``, the project's TCP engine on a raw socket
  (``python -m live.host``, struct or Scapy frames), the kernel never seeing the host's
  address; or ``kernel``, Linux's own TCP (``python -m live.kernel_host``), the kernel owning a
  /32 on the host's interface, with the host's MAC, a route and a permanent neighbour entry
  (the gateway port's MAC) for every other host, offloads off and the run's ``sysctls``;
* switches, in the root namespace: ``embedded``, ``rdtcp-switch`` (its Thrift port on
  127.0.0.1, chosen by the system and read from its ready line), or ``simple_switch``: any
  binary with simple_switch's command line and Thrift API, given a free Thrift port; either
  is ready when it answers Thrift calls, and the controller keeps that connection
  (``controller.drivers.ThriftDriver``);
* links: veth pairs. ``bw`` becomes the sending switch port's ``set_queue_rate`` in packets/s
  of MTU-sized frames (``queue_rate_pps``, set by the controller) and a host's serialisation of
  what it sends. ``delay`` is applied once per direction, by the sender where it can (the
  switch's ``--port-delay``, ``live.host --delay``, and ``--rate`` for a host); a link with a
  sender that cannot (Linux's TCP, simple_switch) gets a stage: netem qdiscs on both sending
  interfaces where the kernel has netem, else a ``live.delay_stage`` process between two veth
  pairs (``Layout.choose``, ``--link-delay``).

Two ways to build it, the same plan either way:

* ``mininet``: when Mininet is importable (Debian's ``mininet`` package installs it for
  /usr/bin/python3 only; ``find_mininet`` loads that copy, the package alone, into another
  3.11 interpreter): ``live.mininet``'s ``P4Switch`` runs the switches, its ``RawHost`` leaves
  the hosts' configuration to the layout's commands;
* ``netns``: plain ``ip netns`` and ``ip link`` commands (``NetnsBackend.setup_commands``).

With the engine's hosts nothing on the path carries the topology's addresses: every veth keeps
its kernel-made MAC and has no IPv4 address and IPv6 disabled, so each kernel sees the frames
as another host's (``PACKET_OTHERHOST``) and drops them before IP; the switches' and hosts'
raw sockets are promiscuous. Teardown (``LiveNetwork.stop``, also on errors, Ctrl-C and
SIGTERM) ends the processes, deletes the veths and the namespaces; ``python -m live.network
--cleanup`` removes what a killed run left behind. Needs root and iproute2 (and ethtool for
Linux's TCP).

    from topologies import PaperTopo
    from live.network import LivePlan, LiveNetwork
    plan = LivePlan.from_topo(PaperTopo())
    with LiveNetwork(plan, program_path="build/rdtcp.json", log_dir=out) as net:
        net.controller("r1").apply(plan.gateway_config("r1"))
        receiver = net.start_host("b", "a", ["--role", "receiver", "--out", "b.json"])
        sender = net.start_host("a", "b", ["--role", "sender", "--bytes", "1000000"])
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.util
import itertools
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from netbase.units import parse_bw, parse_delay

__all__ = ["LivePlan", "HostPlan", "PortPlan", "LiveNetwork", "LiveError", "LiveInterrupted",
           "NetnsBackend",
           "MininetBackend", "queue_rate_pps", "find_mininet", "check_environment",
           "cleanup_stale", "tag_prefix", "new_tag", "Names", "REPO_ROOT", "MTU", "ETH_HEADER"]

REPO_ROOT = Path(__file__).resolve().parents[1]
MTU = 1500                    # the paper's packets (003 §4); gateway_config's port MTU
ETH_HEADER = 14               # a frame of an MTU-sized packet is 1514 bytes on the wire
PREFIX = "rl"                 # every name a live network creates starts with this
START_TIMEOUT = 30.0          # seconds for a switch or host process to print its ready line
STOP_TIMEOUT = 5.0            # seconds a process gets to exit after SIGTERM before SIGKILL
MININET_DIRS = ("/usr/lib/python3/dist-packages",)   # Debian's mininet, for /usr/bin/python3
SWITCH_READY = "Control server was started on "      # toolchain.switch.process.main
HOST_READY = "live.host: ready"                    # live.host.READY_LINE
KERNEL_HOST_READY = "live.kernel_host: ready"       # live.kernel_host.READY_LINE
STAGE_READY = "live.delay_stage: ready"             # live.delay_stage.READY_LINE


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
    twin: Any                                   # sim.network.Network built from the same Topo
    hosts: dict[str, HostPlan] = field(default_factory=dict)
    ports: dict[str, dict[int, PortPlan]] = field(default_factory=dict)
    links: list[tuple[str, int, str, int]] = field(default_factory=list)
    switch_seeds: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_topo(cls, topo: Any, program: Any = None, *, seed: int = 1) -> "LivePlan":
        """``program``: the loaded gateway (default: ``sim.program.gateway_json()``); the twin
        needs one to exist, its switches are never run. ``seed``: the run's, from which each
        switch's random stream is derived as the simulator derives it."""
        from sim.network import Network
        from toolchain.switch import load_program

        if program is None:
            from sim.program import gateway_json
            program = load_program(gateway_json())
        twin = Network.from_topo(topo, program=program, seed=seed, configure=None)
        plan = cls(topo=topo, twin=twin)
        # the simulator's per-switch seed (sim.network.Network.derive_seed)
        plan.switch_seeds = {name: twin.derive_seed(name) for name in twin.switches}
        for _, _, info in topo.links(withInfo=True):
            ends = ((info["node1"], info["port1"]), (info["node2"], info["port2"]))
            plan.links.append((*ends[0], *ends[1]))
            delay, rate = parse_delay(info.get("delay")), parse_bw(info.get("bw"))
            for (node, port), (peer, peer_port) in (ends, ends[::-1]):
                if node in twin.switches:
                    plan.ports.setdefault(node, {})[port] = PortPlan(
                        node, port, peer, peer_port, delay, rate,
                        None if rate is None else queue_rate_pps(rate))
                else:
                    h = twin.hosts[node]
                    plan.hosts[node] = HostPlan(node, h.ip, h.mac, h.gateway_mac, peer,
                                                peer_port, port, delay, rate)
        for name in twin.switches:
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

        cfg = gateway_config(self.twin, name, tm_depth=tm_depth or DEFAULT_TM_DEPTH,
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


# -- names ----------------------------------------------------------------------------------------
_COUNTER = [0]


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def new_tag() -> str:
    """This process's id in base 36 (5 digits) and a counter: unique among live networks on
    the machine, and ``cleanup_stale`` can tell whether the process that made it is alive."""
    _COUNTER[0] += 1
    return f"{_base36(os.getpid()):0>5}{_base36(_COUNTER[0] % 36)}"


def tag_prefix(pid: int) -> str:
    """The prefix of every namespace and interface name the live networks of ``pid`` create."""
    return f"{PREFIX}{_base36(pid):0>5}"


def _tag_pid(tag: str) -> int | None:
    try:
        return int(tag[:5], 36)
    except ValueError:
        return None


@dataclass(frozen=True)
class Names:
    """Interface and namespace names of one live network (``tag`` from ``new_tag``)."""

    tag: str
    switch_index: dict[str, int]

    def switch_if(self, switch: str, port: int) -> str:
        """A switch port's interface, in the root namespace: ``rl<tag>s<i>p<port>``."""
        name = f"{PREFIX}{self.tag}s{self.switch_index[switch]}p{port}"
        if len(name) > 15:                      # IFNAMSIZ - 1
            raise LiveError(f"interface name {name!r} of {switch} port {port} is longer than "
                            "15 characters (too many switches or a port number above 999)")
        return name

    @staticmethod
    def host_if(host: str, port: int) -> str:
        """A host's interface, inside its own namespace (Mininet's naming)."""
        name = f"{host}-eth{port}"
        if len(name) > 15:
            raise LiveError(f"host name {host!r} is too long for an interface name ({name!r})")
        return name

    def host_ns(self, host: str) -> str:
        return f"{PREFIX}{self.tag}-{host}"

    def stage_if(self, link: int, side: str) -> str:
        """A delay stage's interface on link ``link``, side ``a`` (towards the link's first
        node) or ``b``, in the root namespace: ``rl<tag>l<link><side>``."""
        name = f"{PREFIX}{self.tag}l{link}{side}"
        if len(name) > 15:
            raise LiveError(f"interface name {name!r} is longer than 15 characters (a topology "
                            "of more than 999 links)")
        return name


# -- environment ----------------------------------------------------------------------------------
def check_environment(layout: Layout | None = None, *, cli: str | None = None) -> None:
    """LiveError unless this process can build ``layout`` here: root and iproute2's ``ip``;
    the Thrift client the controller drives the switches with; ``ethtool`` for Linux's TCP on
    the hosts; netem for netem stages; the switch binary; the CLI program, when one is used."""
    from live.environment import (EnvironmentProblem, require_binary, require_netem,
                                  require_root_and_ip, require_thrift_client, require_tool)

    layout = layout or Layout()
    try:
        require_root_and_ip()
        require_thrift_client()
        if layout.hosts == "kernel":
            require_tool("ethtool")
        if "netem" in layout.stages.values():
            require_netem()
        if layout.switch.kind == "simple_switch":
            require_binary(layout.switch.binary, "switch binary")
        if cli is not None:
            require_binary(cli, "switch CLI")
    except EnvironmentProblem as e:
        raise LiveError(str(e)) from None


def find_mininet(dirs: tuple[str, ...] | None = None) -> Any | None:
    """The ``mininet`` package, or None. Importable as is, or Debian's copy (installed for
    /usr/bin/python3) loaded from ``dirs`` (``RDTCP_MININET_DIR`` or MININET_DIRS) when this
    interpreter is the same major.minor: only the package is loaded from there, never the rest
    of that directory, so nothing else of the system Python shadows this environment's packages.
    Mininet is pure Python over the standard library (and the ``mnexec`` binary)."""
    try:
        importlib.import_module("mininet.net")
        return sys.modules["mininet"]
    except ImportError:
        pass
    if dirs is None:
        env = os.environ.get("RDTCP_MININET_DIR")
        dirs = (env,) if env else MININET_DIRS
    if sys.version_info[:2] != _system_python_version():
        return None
    spec = importlib.machinery.PathFinder.find_spec("mininet", list(dirs))
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mininet"] = module
    try:
        spec.loader.exec_module(module)
        importlib.import_module("mininet.net")      # submodules resolve through the package
    except Exception:       # noqa: BLE001 -- a broken copy: as if there were none
        for name in [n for n in sys.modules if n == "mininet" or n.startswith("mininet.")]:
            del sys.modules[name]
        return None
    return module


def _system_python_version() -> tuple[int, int]:
    """The major.minor Debian's dist-packages are for: /usr/bin/python3's (3.11 on Debian 12)."""
    exe = Path("/usr/bin/python3")
    try:
        target = os.path.basename(os.path.realpath(exe))     # python3.11
        major, minor = target.replace("python", "").split(".")[:2]
        return int(major), int(minor)
    except (OSError, ValueError):
        return sys.version_info[:2]


# -- processes ------------------------------------------------------------------------------------
def die_with_parent() -> Any:
    """A ``preexec_fn`` that makes the child get SIGTERM when the process that started it
    dies (prctl(2) PR_SET_PDEATHSIG, kept across exec): a run killed outright, or a ``mn``
    stopped before it could stop its switches, leaves no process of ours running."""
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl        # resolved here, not in the child
    return lambda: prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


PR_SET_PDEATHSIG = 1          # linux/prctl.h


def _child_env() -> dict[str, str]:
    """The environment of the processes a run starts: the checkout first on PYTHONPATH, and
    the folders of the Thrift modules the switch serves with, for a switch under another
    interpreter (PyPy has none of its own; they are pure Python)."""
    from toolchain.switch.thrift_server import ThriftUnavailable, module_dirs

    env = dict(os.environ)
    try:
        paths = [str(REPO_ROOT), *module_dirs()]
    except ThriftUnavailable:           # check_environment names what is missing
        paths = [str(REPO_ROOT)]
    env["PYTHONPATH"] = os.pathsep.join(paths + ([env["PYTHONPATH"]]
                                                 if env.get("PYTHONPATH") else []))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def wait_for_line(proc: subprocess.Popen, log: Path, prefix: str, what: str,
                  timeout: float = START_TIMEOUT) -> str:
    """The first line of ``log`` (the process's stdout) starting with ``prefix``; LiveError if
    the process exits first or ``timeout`` passes (the log's last lines tell why)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            text = log.read_text(errors="replace")
        except FileNotFoundError:
            text = ""
        for line in text.splitlines():
            if line.startswith(prefix):
                return line
        if proc.poll() is not None:
            tail = " | ".join(text.strip().splitlines()[-3:]) or "no output"
            raise LiveError(f"{what} exited with status {proc.returncode} before it was ready: "
                            f"{tail}")
        if time.monotonic() > deadline:
            raise LiveError(f"{what} not ready within {timeout:g} s (see {log})")
        time.sleep(0.02)


def free_tcp_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (simple_switch needs one given:
    it cannot pick its own Thrift port as rdtcp-switch does with 0)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def thrift_when_ready(proc: subprocess.Popen, port: int, log: Path, what: str,
                      timeout: float = START_TIMEOUT) -> Any:
    """The controller's driver on the switch's Thrift port, once the switch answers Thrift
    calls there (readiness checked over Thrift, as simple_switch prints no readiness line):
    first the port accepting connections, then one ``controller.drivers.ThriftDriver``
    (whose first call reads the program back, bm_get_config) given the rest of ``timeout``
    to answer, so a loaded machine that is slow to send a large JSON is not taken for a dead
    switch. LiveError, with the end of the switch's log, if it exits first or does not answer
    in time."""
    import socket

    from controller.drivers import DriverError, ThriftDriver
    from live.environment import EnvironmentProblem, require_thrift_client

    try:
        require_thrift_client()
    except EnvironmentProblem as e:
        raise LiveError(str(e)) from None
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            text = log.read_text(errors="replace") if log.exists() else ""
            raise LiveError(f"{what} exited with status {proc.returncode} before it was ready: "
                            f"{_tail(text)}")
        left = deadline - time.monotonic()
        if left <= 0:
            raise LiveError(f"{what} not ready within {timeout:g} s: no answer to Thrift calls "
                            f"on port {port} (see {log})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=min(1.0, left)):
                pass
            return ThriftDriver(port, connect_timeout=max(1.0, left))
        except (OSError, DriverError):
            time.sleep(0.05)


def stop_process(proc: subprocess.Popen, timeout: float = STOP_TIMEOUT) -> int | None:
    """SIGTERM, then SIGKILL after ``timeout``; the exit status."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
        except ProcessLookupError:
            pass
    return proc.returncode


def _run(argv: list[str], *, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if check and proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise LiveError(f"`{' '.join(argv)}` failed: {msg[-1] if msg else proc.returncode}")
    return proc


# -- backends -------------------------------------------------------------------------------------
class NetnsBackend:
    """Hosts in ``ip netns`` namespaces, switch ports in the root namespace, veth links (a
    link with a relay delay stage is two veth pairs, the stage's ends in the root namespace)."""

    name = "netns"

    def __init__(self, plan: LivePlan, names: Names, layout: Layout | None = None):
        self.plan = plan
        self.names = names
        self.layout = layout or Layout()
        self._created_ns: list[str] = []
        self._created_if: list[str] = []

    def interfaces(self, switch: str) -> dict[int, str]:
        return {p: self.names.switch_if(switch, p) for p in self.plan.ports[switch]}

    def host_interface(self, host: str) -> str:
        return self.names.host_if(host, self.plan.hosts[host].port)

    def stage_interfaces(self, link: int) -> tuple[str, str]:
        return self.names.stage_if(link, "a"), self.names.stage_if(link, "b")

    def _end(self, node: str, port: int) -> tuple[str, str | None]:
        """(interface, namespace or None for the root) of a node's end of a link."""
        if node in self.plan.hosts:
            return self.names.host_if(node, port), self.names.host_ns(node)
        return self.names.switch_if(node, port), None

    def setup_commands(self) -> list[list[str]]:
        """The ``ip``, ``sysctl``, ``ethtool`` and ``tc`` commands that build the network."""
        plan, layout = self.plan, self.layout
        cmds: list[list[str]] = []
        for host in plan.hosts:
            ns = self.names.host_ns(host)
            cmds.append(["ip", "netns", "add", ns])
            cmds += [_in_ns(ns, c) for c in namespace_commands(layout)]
        for i, (n1, p1, n2, p2) in enumerate(plan.links):
            if n1 in plan.hosts and n2 in plan.hosts:
                raise LiveError(f"link {n1}-{n2}: hosts must attach to switches")
            e1, e2 = self._end(n1, p1), self._end(n2, p2)
            if layout.stages.get(i) == "relay":
                sa, sb = self.stage_interfaces(i)
                cmds += [_veth_add(e1, (sa, None)), _veth_add((sb, None), e2)]
            else:
                cmds.append(_veth_add(e1, e2))
        for host in plan.hosts:
            ns = self.names.host_ns(host)
            cmds += [_in_ns(ns, c) for c in host_commands(plan, layout, host,
                                                          self.host_interface(host))]
        for ifname, netem in self._root_ends():
            cmds += root_if_commands(layout, ifname, netem)
        return cmds

    def _root_ends(self) -> list[tuple[str, list[str] | None]]:
        """Every root-namespace interface, with the netem arguments of what it sends."""
        out = []
        for i, (n1, p1, n2, p2) in enumerate(self.plan.links):
            kind = self.layout.stages.get(i)
            for node, port in ((n1, p1), (n2, p2)):
                if node in self.plan.ports:
                    out.append((self.names.switch_if(node, port),
                                netem_args(self.plan, i, node) if kind == "netem" else None))
            if kind == "relay":
                out += [(name, None) for name in self.stage_interfaces(i)]
        return out

    def teardown_commands(self) -> list[list[str]]:
        """Deleting one end of a veth deletes the pair; deleting a namespace deletes its ends."""
        cmds = [["ip", "link", "del", i] for i in self._root_ifs()]
        return cmds + [["ip", "netns", "del", self.names.host_ns(h)] for h in self.plan.hosts]

    def _root_ifs(self) -> list[str]:
        ifs = [self.names.switch_if(s, p) for s, ports in self.plan.ports.items() for p in ports]
        for i, kind in sorted(self.layout.stages.items()):
            if kind == "relay":
                ifs += list(self.stage_interfaces(i))
        return ifs

    def build(self) -> None:
        for argv in self.setup_commands():
            _run(argv)
            if argv[:3] == ["ip", "netns", "add"]:
                self._created_ns.append(argv[3])
            elif argv[:3] == ["ip", "link", "add"]:
                self._created_if.append(argv[3])

    def start_process(self, node: str | None, argv: list[str], log) -> subprocess.Popen:
        """A process in ``node``'s namespace (a host's), or in the root namespace (None)."""
        if node is not None and node in self.plan.hosts:
            # `ip netns exec` enters the namespace and execs the command: the Popen is the host
            argv = ["ip", "netns", "exec", self.names.host_ns(node), *argv]
        return subprocess.Popen(argv, cwd=REPO_ROOT, env=_child_env(), stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT,
                                preexec_fn=die_with_parent())

    def start_switch(self, switch: str, argv: list[str], log) -> subprocess.Popen:
        return self.start_process(None, argv, log)

    def start_host(self, host: str, argv: list[str], log) -> subprocess.Popen:
        return self.start_process(host, argv, log)

    def start_stage(self, link: int, argv: list[str], log) -> subprocess.Popen:
        return self.start_process(None, argv, log)

    def destroy(self) -> list[str]:
        """Remove what ``build`` created (also after a partial build); the errors, if any."""
        errors = []
        for ifname in self._created_if:
            p = _run(["ip", "link", "del", ifname], check=False)
            if p.returncode and "Cannot find device" not in p.stderr:
                errors.append(p.stderr.strip())
        for ns in self._created_ns:
            p = _run(["ip", "netns", "del", ns], check=False)
            if p.returncode:
                errors.append(p.stderr.strip())
        self._created_if.clear()
        self._created_ns.clear()
        return errors


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


def _in_ns(ns: str | None, argv: list[str]) -> list[str]:
    """``argv`` run in namespace ``ns`` (None: the root namespace)."""
    if ns is None:
        return argv
    if argv[0] == "ip":
        return ["ip", "-n", ns, *argv[1:]]
    return ["ip", "netns", "exec", ns, *argv]


def _veth_add(x: tuple[str, str | None], y: tuple[str, str | None]) -> list[str]:
    """``ip link add`` of a veth pair between two ends, each in its namespace (None: root)."""
    (xi, xns), (yi, yns) = x, y
    if xns is not None and yns is None:
        (xi, xns), (yi, yns) = (yi, yns), (xi, xns)     # made from the root namespace's end
    argv = ["ip", "link", "add", xi, "type", "veth", "peer", "name", yi]
    if yns is not None:
        argv += ["netns", yns]
    if xns is not None:
        raise LiveError(f"veth {xi}-{yi}: one end must be in the root namespace")
    return argv


class MininetBackend:
    """The same network through Mininet: ``Mininet(controller=None)`` with the P4 switch class
    of ``live.mininet`` (``P4Switch``, which the runner gives its command line), hosts whose
    interface Mininet leaves without an address (``RawHost``: the layout's commands configure
    it), and a node holding the two interfaces of each relay delay stage (``StageNode``)."""

    name = "mininet"

    def __init__(self, plan: LivePlan, names: Names, layout: Layout | None = None):
        self.mn = find_mininet()
        if self.mn is None:
            raise LiveError("Mininet is not importable here (apt-get install mininet installs it "
                            "for /usr/bin/python3; set RDTCP_MININET_DIR to its dist-packages "
                            "for another Python 3.11); use --backend netns")
        self.plan = plan
        self.names = names
        self.layout = layout or Layout()
        self.net = None

    def interfaces(self, switch: str) -> dict[int, str]:
        return {p: self.names.switch_if(switch, p) for p in self.plan.ports[switch]}

    def host_interface(self, host: str) -> str:
        return self.names.host_if(host, self.plan.hosts[host].port)

    def stage_interfaces(self, link: int) -> tuple[str, str]:
        return self.names.stage_if(link, "a"), self.names.stage_if(link, "b")

    def _ifname(self, node: str, port: int) -> str:
        return (self.names.host_if(node, port) if node in self.plan.hosts
                else self.names.switch_if(node, port))

    def build(self) -> None:
        from mininet.link import Link
        from mininet.log import setLogLevel
        from mininet.net import Mininet

        from live.mininet import P4Switch, RawHost, StageNode

        setLogLevel("warning")
        plan, layout = self.plan, self.layout
        net = Mininet(topo=None, build=False, controller=None, host=RawHost, link=Link,
                      autoSetMacs=False)
        self.net = net
        for host in plan.hosts:
            net.addHost(host)
        dpids = itertools.count(1)
        for switch in plan.switches:
            net.addSwitch(switch, cls=P4Switch, dpid=f"{next(dpids):x}", managed=True)
        for i, (n1, p1, n2, p2) in enumerate(plan.links):
            if1, if2 = self._ifname(n1, p1), self._ifname(n2, p2)
            if layout.stages.get(i) == "relay":
                sa, sb = self.stage_interfaces(i)
                stage = net.addSwitch(f"stage{i}", cls=StageNode, dpid=f"{next(dpids):x}")
                net.addLink(n1, stage, port1=p1, port2=1, intfName1=if1, intfName2=sa)
                net.addLink(stage, n2, port1=2, port2=p2, intfName1=sb, intfName2=if2)
            else:
                net.addLink(n1, n2, port1=p1, port2=p2, intfName1=if1, intfName2=if2)
        net.build()
        for host in plan.hosts:
            node = net.get(host)
            for argv in (namespace_commands(layout)
                         + host_commands(plan, layout, host, self.host_interface(host))):
                out = node.cmd(" ".join(shlex.quote(a) for a in argv) + " ; echo rc=$?")
                if not out.strip().endswith("rc=0"):
                    raise LiveError(f"`{' '.join(argv)}` failed on host {host}: "
                                    f"{out.strip().splitlines()[0] if out.strip() else '?'}")
        for ifname, netem in self._root_ends():
            for argv in root_if_commands(layout, ifname, netem):
                _run(argv)

    def _root_ends(self) -> list[tuple[str, list[str] | None]]:
        return NetnsBackend._root_ends(self)        # the same interfaces, the same names

    def start_switch(self, switch: str, argv: list[str], log) -> subprocess.Popen:
        return self.net.get(switch).launch(argv, log)

    def start_host(self, host: str, argv: list[str], log) -> subprocess.Popen:
        return self.net.get(host).popen(argv, cwd=str(REPO_ROOT), env=_child_env(),
                                        stdin=subprocess.DEVNULL, stdout=log,
                                        stderr=subprocess.STDOUT,
                                        preexec_fn=die_with_parent())

    def start_stage(self, link: int, argv: list[str], log) -> subprocess.Popen:
        return subprocess.Popen(argv, cwd=REPO_ROOT, env=_child_env(), stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT,
                                preexec_fn=die_with_parent())

    def destroy(self) -> list[str]:
        errors = []
        if self.net is not None:
            try:
                self.net.stop()
            except Exception as e:  # noqa: BLE001 -- keep tearing down, report it
                errors.append(f"mininet stop: {e}")
            self.net = None
        # whatever Mininet left (a link of a half-built network)
        for ifname, _ in self._root_ends():
            _run(["ip", "link", "del", ifname], check=False)
        return errors


BACKENDS = {"netns": NetnsBackend, "mininet": MininetBackend}


def choose_backend(name: str, layout: Layout | None = None) -> type:
    """``auto``: Mininet when it can be loaded (and builds ``layout``), else plain namespaces."""
    if name == "auto":
        return MininetBackend if find_mininet() is not None else NetnsBackend
    if name not in BACKENDS:
        raise LiveError(f"unknown backend {name!r}; choose from auto, {', '.join(BACKENDS)}")
    return BACKENDS[name]


# -- the running network --------------------------------------------------------------------------
class LiveInterrupted(BaseException):
    """SIGTERM during a live run: unwinds like Ctrl-C (KeyboardInterrupt) so that teardown runs."""


class LiveNetwork:
    """A ``LivePlan`` built and running: delay stages and switch processes ready, hosts started
    on demand.

    Use as a context manager (teardown always runs, SIGTERM included), or call ``start`` and
    ``stop``. ``layout`` says what runs where (``Layout``: the hosts' and switches' kinds, the
    links' delay stages; default: the project's engine and rdtcp-switch, delays applied by the
    senders). ``log_dir`` receives each process's output (``<node>.log``, ``link<i>.log`` for
    a stage); ``pcap_dir`` makes the switches write pcaps, renamed
    ``<switch>-eth<port>_{in,out}.pcap`` at the end.
    """

    def __init__(self, plan: LivePlan, *, program_path: str | os.PathLike, backend: str = "auto",
                 log_dir: str | os.PathLike | None = None,
                 pcap_dir: str | os.PathLike | None = None,
                 cli: str | None = None, layout: Layout | None = None):
        self.plan = plan
        self.program_path = str(program_path)
        self.names = Names(new_tag(), {s: i for i, s in enumerate(plan.switches)})
        self.backend_name = backend
        self.backend: Any = None
        self.layout = layout or Layout()
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.pcap_dir = Path(pcap_dir) if pcap_dir is not None else None
        self.cli = cli
        self._drivers: dict[str, Any] = {}      # one control connection per switch (no CLI)
        self.switch_procs: dict[str, subprocess.Popen] = {}
        self.stage_procs: dict[int, subprocess.Popen] = {}
        self.control_ports: dict[str, int] = {}
        self.host_procs: list[tuple[str, subprocess.Popen]] = []
        self._logs: list[Any] = []
        self._tmp_logs: Path | None = None
        self._old_sigterm: Any = None

    # -- lifecycle --------------------------------------------------------------------------------
    def __enter__(self) -> "LiveNetwork":
        self._old_sigterm = signal.getsignal(signal.SIGTERM)
        signal.signal(signal.SIGTERM, self._on_sigterm)
        try:
            self.start()
        except BaseException:
            self._teardown()
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        held = self._teardown()
        if held and exc_type is None:       # interrupted while tearing down a finished run
            raise KeyboardInterrupt if held[0] == signal.SIGINT else LiveInterrupted("SIGTERM")

    def _teardown(self) -> list[int]:
        """``stop`` with Ctrl-C and SIGTERM held until it is done (a second signal must not cut
        the teardown short); restores the SIGTERM handler; returns the signals held."""
        held: list[int] = []
        old_int = signal.signal(signal.SIGINT, lambda signum, _f: held.append(signum))
        signal.signal(signal.SIGTERM, lambda signum, _f: held.append(signum))
        try:
            self.stop()
        finally:
            signal.signal(signal.SIGINT, old_int)
            signal.signal(signal.SIGTERM, self._old_sigterm)
        return held

    @staticmethod
    def _on_sigterm(signum, frame):
        raise LiveInterrupted("SIGTERM")

    def start(self) -> "LiveNetwork":
        check_environment(self.layout, cli=self.cli)
        if self.log_dir is None:
            import tempfile
            self._tmp_logs = Path(tempfile.mkdtemp(prefix="rdtcp-live-"))
            self.log_dir = self._tmp_logs
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.backend = choose_backend(self.backend_name, self.layout)(self.plan, self.names,
                                                                      self.layout)
        self.backend.build()
        for i, kind in sorted(self.layout.stages.items()):
            if kind == "relay":
                self._start_stage(i)
        for switch in self.plan.switches:
            self._start_switch(switch)
        return self

    def _log(self, node: str):
        f = open(self.log_dir / f"{node}.log", "wb")
        self._logs.append(f)
        return f

    def _start_stage(self, i: int) -> None:
        n1, _, n2, _ = self.plan.links[i]
        a, b = self.backend.stage_interfaces(i)
        argv = [sys.executable, "-m", "live.delay_stage", "--a", a, "--b", b,
                "--delay", f"{self.plan.link_delay(i) * 1000:g}"]
        # a host's NIC serialises what it sends (sim.links.Nic); switches pace their own ports
        for node, flag in ((n1, "--rate-ab"), (n2, "--rate-ba")):
            rate = self.plan.hosts[node].rate_bps if node in self.plan.hosts else None
            if rate:
                argv += [flag, f"{rate / 1e6:g}"]
        name = f"link{i}-{n1}-{n2}"
        proc = self.backend.start_stage(i, argv, self._log(name))
        self.stage_procs[i] = proc
        wait_for_line(proc, self.log_dir / f"{name}.log", STAGE_READY, f"delay stage {n1}-{n2}")

    def _start_switch(self, switch: str) -> None:
        """Start a gateway, wait until it answers Thrift calls, keep that connection for the
        controller. rdtcp-switch picks its own port and prints it; simple_switch is given a
        free one (it cannot pick its own)."""
        spec, ifnames = self.layout.switch, self.backend.interfaces(switch)
        pcap = None if self.pcap_dir is None else str(self.pcap_dir)
        log_path = self.log_dir / f"{switch}.log"
        if spec.kind == "embedded":
            delayed = {p for p in self.plan.ports[switch]
                       if not self.layout.staged(self.plan, switch, p)}
            argv = self.plan.switch_argv(switch, ifnames, self.program_path, pcap_dir=pcap,
                                         python=spec.python, delayed_ports=delayed)
            proc = self.switch_procs[switch] = self.backend.start_switch(switch, argv,
                                                                         self._log(switch))
            line = wait_for_line(proc, log_path, SWITCH_READY, f"switch {switch} (rdtcp-switch)")
            port = int(line.rsplit(":", 1)[1])
            what = f"switch {switch} (rdtcp-switch)"
        else:
            port = free_tcp_port()
            argv = self.plan.simple_switch_argv(switch, ifnames, self.program_path,
                                                binary=spec.binary, thrift_port=port,
                                                pcap_dir=pcap)
            proc = self.switch_procs[switch] = self.backend.start_switch(switch, argv,
                                                                         self._log(switch))
            what = f"switch {switch} ({spec.binary})"
        self.control_ports[switch] = port
        self._drivers[switch] = thrift_when_ready(proc, port, log_path, what)

    def stop(self) -> None:
        """End every process, remove interfaces and namespaces, rename the pcaps. Idempotent."""
        for driver in self._drivers.values():
            driver.close()
        self._drivers.clear()
        for _, proc in self.host_procs:
            stop_process(proc)
        for proc in self.switch_procs.values():
            stop_process(proc)
        for proc in self.stage_procs.values():
            stop_process(proc)
        errors = self.backend.destroy() if self.backend is not None else []
        self._rename_pcaps()
        for f in self._logs:
            f.close()
        self._logs.clear()
        self.host_procs.clear()
        self.switch_procs.clear()
        self.stage_procs.clear()
        if self._tmp_logs is not None:
            shutil.rmtree(self._tmp_logs, ignore_errors=True)
            self._tmp_logs = None
        if errors:
            print("warning: teardown: " + "; ".join(errors), file=sys.stderr)

    def _rename_pcaps(self) -> None:
        if self.pcap_dir is None or self.backend is None:
            return
        for switch in self.plan.switches:
            for port, ifname in self.backend.interfaces(switch).items():
                for d in ("in", "out"):
                    src = self.pcap_dir / f"{ifname}_{d}.pcap"
                    if src.exists():
                        src.replace(self.pcap_dir / f"{switch}-eth{port}_{d}.pcap")

    # -- use --------------------------------------------------------------------------------------
    def controller(self, switch: str) -> Any:
        """``controller.Controller`` on the switch's Thrift port: over the connection kept for
        the run (``ThriftDriver``, the same for rdtcp-switch and simple_switch), or piped
        through ``cli`` when one was given (e.g. ``simple_switch_CLI``, one session per call)."""
        from controller import Controller
        from controller.drivers import Bmv2Driver

        if self.cli is not None:
            return Controller(Bmv2Driver(self.control_ports[switch], cli=self.cli))
        return Controller(self._drivers[switch])

    def host_interface(self, host: str) -> str:
        return self.backend.host_interface(host)

    def start_host(self, host: str, peer: str, extra: list[str], *,
                   wait_ready: bool = True) -> subprocess.Popen:
        """Start the host's TCP (``live.host``, or ``live.kernel_host`` on a kernel layout) on
        ``host`` towards ``peer`` (log ``<host>.log``); waits for its ready line."""
        if self.layout.hosts == "kernel":
            argv, ready = self.plan.kernel_host_argv(host, peer, extra), KERNEL_HOST_READY
        else:
            h = self.plan.hosts[host]
            own = not self.layout.staged(self.plan, host, h.port)
            argv = self.plan.host_argv(host, self.host_interface(host), peer, extra,
                                       own_link=own)
            ready = HOST_READY
        proc = self.backend.start_host(host, argv, self._log(host))
        self.host_procs.append((host, proc))
        if wait_ready:
            wait_for_line(proc, self.log_dir / f"{host}.log", ready, f"host {host}")
        return proc

    def failures(self) -> list[str]:
        """The switch and stage processes that are no longer running, with their exit status:
        a live run whose gateway died says so instead of waiting for its hosts' timeouts."""
        out = []
        for name, proc in self.switch_procs.items():
            if proc.poll() is not None:
                out.append(f"switch {name} exited with status {proc.returncode}: "
                           f"{_tail(self.log_text(name))}")
        for i, proc in self.stage_procs.items():
            if proc.poll() is not None:
                n1, _, n2, _ = self.plan.links[i]
                out.append(f"delay stage {n1}-{n2} exited with status {proc.returncode}")
        return out

    def log_text(self, node: str) -> str:
        try:
            return (self.log_dir / f"{node}.log").read_text(errors="replace")
        except (OSError, TypeError):
            return ""


def _tail(text: str, n: int = 3) -> str:
    return " | ".join(text.strip().splitlines()[-n:]) or "no output"


# -- stale networks -------------------------------------------------------------------------------
def cleanup_stale(*, dry_run: bool = False) -> list[list[str]]:
    """Remove namespaces and interfaces of live networks whose process is gone (a run killed
    with SIGKILL cannot tear down); returns the commands (run unless ``dry_run``). Only names
    of the exact shapes ``Names`` makes are considered."""
    cmds: list[list[str]] = []
    ns_out = _run(["ip", "netns", "list"], check=False).stdout
    for line in ns_out.splitlines():
        m = _STALE_NS.match(line.split()[0]) if line.split() else None
        if m and _stale(m.group(1)):
            cmds.append(["ip", "netns", "del", m.group(0)])
    link_out = _run(["ip", "-o", "link", "show"], check=False).stdout
    for line in link_out.splitlines():
        parts = line.split(":")
        m = _STALE_IF.match(parts[1].strip().split("@")[0]) if len(parts) > 2 else None
        if m and _stale(m.group(1)):
            cmds.append(["ip", "link", "del", m.group(0)])
    if not dry_run:
        for argv in cmds:
            _run(argv, check=False)
    return cmds


_STALE_NS = re.compile(rf"^{PREFIX}([0-9a-z]{{6}})-[A-Za-z0-9_.]+$")
_STALE_IF = re.compile(rf"^{PREFIX}([0-9a-z]{{6}})(?:s\d+p\d+|l\d+[ab])$")


def _stale(tag: str) -> bool:
    """The process that made ``tag`` is gone."""
    pid = _tag_pid(tag)
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


# -- command line ---------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m live.network",
        description="Show how a topology is built live (--print), or remove what killed live "
                    "runs left behind (--cleanup). Runs: python -m experiments.live_run.")
    ap.add_argument("--topo", default="rdtcp_paper", help="a topologies.topos name")
    ap.add_argument("--print", action="store_true", dest="show",
                    help="print the plan: ip commands, switch command lines, gateway configs")
    ap.add_argument("--cleanup", action="store_true",
                    help="delete namespaces and interfaces of live runs whose process is gone")
    args = ap.parse_args(argv)
    if not (args.show or args.cleanup):
        ap.error("nothing to do: give --print or --cleanup")
    if args.cleanup:
        try:
            check_environment()
        except LiveError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        for cmd in cleanup_stale():
            print(" ".join(cmd))
    if args.show:
        from topologies import topos
        if args.topo not in topos:
            ap.error(f"unknown topology {args.topo!r}; choose from {', '.join(topos)}")
        plan = LivePlan.from_topo(topos[args.topo]())
        backend = NetnsBackend(plan, Names("TAG000", {s: i for i, s in enumerate(plan.switches)}))
        for cmd in backend.setup_commands():
            print(" ".join(cmd))
        for s in plan.switches:
            print(" ".join(plan.switch_argv(s, backend.interfaces(s), "build/rdtcp.json")))
        for h in plan.hosts:
            peer = next(p for p in plan.hosts if p != h)
            print(" ".join(plan.host_argv(h, backend.host_interface(h), peer, ["..."])))
        for s in plan.switches:
            print(f"# {s}: " + json.dumps(plan.gateway_config(s), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
