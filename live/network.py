"""A ``topologies`` Topo built for real: hosts in network namespaces, switches as ``rdtcp-switch``.

The simulator's twin of a Topo (``sim.Network.from_topo``) and this live network come from the
same class and the same derivation: host IPs and MACs, switch-port MACs and routes are those of
the twin (``LivePlan.from_topo`` builds it and reads them there), so the controller configures a
live gateway exactly as it configures a simulated one (``sim.gateway.gateway_config``).

Each host runs ``python -m live.host`` (the project's TCP engine on a raw socket) in its own
namespace; each switch is an ``rdtcp-switch`` process in the root namespace (its control port on
127.0.0.1, where ``rdtcp-switch-cli`` and the controller reach it). Links are veth pairs. Two
ways to build it, the same plan either way:

* ``mininet``: when Mininet is importable (Debian's ``mininet`` package installs it for
  /usr/bin/python3 only; ``find_mininet`` loads that copy, the package alone, into another
  3.11 interpreter): a ``mininet.node.Switch`` subclass starts ``rdtcp-switch``, a ``Host``
  subclass leaves its interface without an IP address.
* ``netns``: plain ``ip netns`` and ``ip link`` commands (``NetnsBackend.setup_commands``).

Link properties, with no netem (tc qdiscs are not used at all):

* ``bw`` becomes the sending switch port's ``set_queue_rate`` in packets/s of MTU-sized frames
  (``queue_rate_pps``), set through the controller with the rest of the configuration (a host
  serialises its own frames at its link's rate, ``live.host --rate``);
* ``delay`` is applied once per direction, on the sending side: ``rdtcp-switch --port-delay``
  for a switch port, ``live.host --delay`` for a host's transmissions.

Nothing on the path carries the topology's addresses: every veth keeps its kernel-made MAC and
has no IPv4 address and IPv6 disabled, so each kernel sees the frames as another host's
(``PACKET_OTHERHOST``) and drops them before IP; the switches' and hosts' raw sockets are
promiscuous. Teardown (``LiveNetwork.stop``, also on errors, Ctrl-C and SIGTERM) ends the
processes, deletes the veths and the namespaces; ``python -m live.network --cleanup``
removes what a killed run left behind. Needs root and iproute2.

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
import json
import os
import re
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
                    pcap_dir: str | None = None, python: str = sys.executable) -> list[str]:
        """``rdtcp-switch`` for switch ``name`` with its ports on ``ifnames`` ({port: interface}),
        each link's delay on the port that sends into it, a control port the system picks."""
        argv = [python, "-m", "toolchain.switch.process.main"]
        for port in sorted(self.ports[name]):
            argv.append(f"-i{port}@{ifnames[port]}")
        for port, p in sorted(self.ports[name].items()):
            if p.delay_s > 0:
                argv += ["--port-delay", f"{port}:{p.delay_s * 1000:g}"]
        argv += ["--thrift-port", "0", "--seed", str(self.switch_seeds.get(name, 0))]
        if pcap_dir is not None:
            argv += ["--pcap", str(pcap_dir)]
        return argv + [str(program_path)]

    def host_argv(self, name: str, ifname: str, peer: str, extra: list[str], *,
                  python: str = sys.executable) -> list[str]:
        """``live.host`` on host ``name`` talking to host ``peer``, with its link's delay and
        rate on what it sends; ``extra`` adds the role and engine options."""
        h, p = self.hosts[name], self.hosts[peer]
        argv = [python, "-m", "live.host", "--interface", ifname, "--ip", h.ip, "--mac", h.mac,
                "--gateway-mac", h.gateway_mac, "--peer-ip", p.ip]
        if h.delay_s > 0:
            argv += ["--delay", f"{h.delay_s * 1000:g}"]
        if h.rate_bps is not None:
            argv += ["--rate", f"{h.rate_bps / 1e6:g}"]
        return argv + list(extra)

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


# -- environment ----------------------------------------------------------------------------------
def check_environment() -> None:
    """LiveError unless this process can build a live network: root and iproute2's ``ip``."""
    if os.geteuid() != 0:
        raise LiveError("live runs need root (network namespaces, veth pairs, AF_PACKET "
                        "sockets): run it with sudo")
    if shutil.which("ip") is None:
        raise LiveError("the `ip` command (iproute2) is not installed: apt-get install iproute2")


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
def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT)] + ([env["PYTHONPATH"]]
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
    """Hosts in ``ip netns`` namespaces, switch ports in the root namespace, veth links."""

    name = "netns"

    def __init__(self, plan: LivePlan, names: Names):
        self.plan = plan
        self.names = names
        self._created_ns: list[str] = []
        self._created_if: list[str] = []

    def interfaces(self, switch: str) -> dict[int, str]:
        return {p: self.names.switch_if(switch, p) for p in self.plan.ports[switch]}

    def host_interface(self, host: str) -> str:
        return self.names.host_if(host, self.plan.hosts[host].port)

    def setup_commands(self) -> list[list[str]]:
        """The ``ip`` and ``sysctl`` commands that build the network, in order."""
        plan, names = self.plan, self.names
        cmds: list[list[str]] = []
        for host in plan.hosts:
            ns = names.host_ns(host)
            cmds.append(["ip", "netns", "add", ns])
            # IPv6 off before any interface exists there (no router solicitations, no DAD)
            for key in ("all", "default"):
                cmds.append(["ip", "netns", "exec", ns, "sysctl", "-qw",
                             f"net.ipv6.conf.{key}.disable_ipv6=1"])
            cmds.append(["ip", "-n", ns, "link", "set", "lo", "up"])
        up_root: list[str] = []
        for n1, p1, n2, p2 in plan.links:
            if n1 in plan.hosts and n2 in plan.hosts:
                raise LiveError(f"link {n1}-{n2}: hosts must attach to switches")
            if n1 in plan.hosts:
                n1, p1, n2, p2 = n2, p2, n1, p1          # the switch end first
            sw_if = names.switch_if(n1, p1)
            if n2 in plan.hosts:
                ns, h_if = names.host_ns(n2), names.host_if(n2, p2)
                cmds.append(["ip", "link", "add", sw_if, "type", "veth", "peer", "name", h_if,
                             "netns", ns])
                cmds.append(["ip", "-n", ns, "link", "set", h_if, "up"])
                up_root.append(sw_if)
            else:
                other = names.switch_if(n2, p2)
                cmds.append(["ip", "link", "add", sw_if, "type", "veth", "peer", "name", other])
                up_root += [sw_if, other]
        for ifname in up_root:
            # the root namespace's defaults are not ours to change: per interface, before up
            cmds.append(["sysctl", "-qw", f"net.ipv6.conf.{ifname}.disable_ipv6=1"])
            cmds.append(["ip", "link", "set", ifname, "up"])
        return cmds

    def teardown_commands(self) -> list[list[str]]:
        """Deleting one end of a veth deletes the pair; deleting a namespace deletes its ends."""
        cmds = [["ip", "link", "del", i] for i in self._root_ifs()]
        return cmds + [["ip", "netns", "del", self.names.host_ns(h)] for h in self.plan.hosts]

    def _root_ifs(self) -> list[str]:
        return [self.names.switch_if(s, p) for s, ports in self.plan.ports.items() for p in ports]

    def build(self) -> None:
        for argv in self.setup_commands():
            _run(argv)
            if argv[:3] == ["ip", "netns", "add"]:
                self._created_ns.append(argv[3])
            elif argv[:3] == ["ip", "link", "add"]:
                self._created_if.append(argv[3])

    def start_switch(self, switch: str, argv: list[str], log) -> subprocess.Popen:
        return subprocess.Popen(argv, cwd=REPO_ROOT, env=_child_env(), stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT)

    def start_host(self, host: str, argv: list[str], log) -> subprocess.Popen:
        # `ip netns exec` enters the namespace and execs the command: the Popen is the host
        return subprocess.Popen(["ip", "netns", "exec", self.names.host_ns(host), *argv],
                                cwd=REPO_ROOT, env=_child_env(), stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT)

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


class MininetBackend:
    """The same network through Mininet: ``Mininet(controller=None)`` with a Switch subclass
    that runs ``rdtcp-switch`` and a Host subclass whose interface keeps no IP address."""

    name = "mininet"

    def __init__(self, plan: LivePlan, names: Names):
        self.mn = find_mininet()
        if self.mn is None:
            raise LiveError("Mininet is not importable here (apt-get install mininet installs it "
                            "for /usr/bin/python3; set RDTCP_MININET_DIR to its dist-packages "
                            "for another Python 3.11); use --backend netns")
        self.plan = plan
        self.names = names
        self.net = None
        self._switch_argv: dict[str, list[str]] = {}

    def interfaces(self, switch: str) -> dict[int, str]:
        return {p: self.names.switch_if(switch, p) for p in self.plan.ports[switch]}

    def host_interface(self, host: str) -> str:
        return self.names.host_if(host, self.plan.hosts[host].port)

    def build(self) -> None:
        from mininet.link import Link
        from mininet.log import setLogLevel
        from mininet.net import Mininet
        from mininet.node import Host

        setLogLevel("warning")
        plan, names = self.plan, self.names

        class RawHost(Host):
            """A host whose interface has no IP address (live.host owns the address) and no
            IPv6, so the kernel never answers the project's TCP segments."""

            def config(self, **_params):
                self.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                         "net.ipv6.conf.default.disable_ipv6=1")
                return Host.config(self, mac=None, ip=None, defaultRoute=None, lo="up")

        net = Mininet(topo=None, build=False, controller=None, host=RawHost, link=Link,
                      autoSetMacs=False)
        self.net = net
        for host in plan.hosts:
            h = net.addHost(host)
            h.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                  "net.ipv6.conf.default.disable_ipv6=1")
        for i, switch in enumerate(plan.switches):
            net.addSwitch(switch, cls=_rdtcp_switch_class(), dpid=f"{i + 1:x}")
        for n1, p1, n2, p2 in plan.links:
            ifs = [names.host_if(n, p) if n in plan.hosts else names.switch_if(n, p)
                   for n, p in ((n1, p1), (n2, p2))]
            net.addLink(n1, n2, port1=p1, port2=p2, intfName1=ifs[0], intfName2=ifs[1])
        for switch in plan.switches:
            for ifname in self.interfaces(switch).values():
                _run(["sysctl", "-qw", f"net.ipv6.conf.{ifname}.disable_ipv6=1"], check=False)
        net.build()

    def start_switch(self, switch: str, argv: list[str], log) -> subprocess.Popen:
        node = self.net.get(switch)
        node.rdtcp_argv, node.rdtcp_log = argv, log
        node.start([])
        return node.rdtcp_proc

    def start_host(self, host: str, argv: list[str], log) -> subprocess.Popen:
        return self.net.get(host).popen(argv, cwd=str(REPO_ROOT), env=_child_env(),
                                        stdin=subprocess.DEVNULL, stdout=log,
                                        stderr=subprocess.STDOUT)

    def destroy(self) -> list[str]:
        errors = []
        if self.net is not None:
            try:
                self.net.stop()
            except Exception as e:  # noqa: BLE001 -- keep tearing down, report it
                errors.append(f"mininet stop: {e}")
            self.net = None
        # whatever Mininet left (a link of a half-built network)
        for switch in self.plan.switches:
            for ifname in self.interfaces(switch).values():
                _run(["ip", "link", "del", ifname], check=False)
        return errors


_SWITCH_CLASS: list[Any] = []


def _rdtcp_switch_class() -> type:
    """``mininet.node.Switch`` running ``rdtcp-switch`` (defined once Mininet is loaded)."""
    if _SWITCH_CLASS:
        return _SWITCH_CLASS[0]
    from mininet.node import Switch

    class RdtcpSwitch(Switch):
        """The embedded target as a Mininet switch. ``LiveNetwork`` sets ``rdtcp_argv`` (the
        plan's ``switch_argv``) and ``rdtcp_log`` before ``start``; the process runs in the root
        namespace, like Mininet's other switches."""

        rdtcp_argv: list[str] | None = None
        rdtcp_log: Any = None
        rdtcp_proc: subprocess.Popen | None = None

        def start(self, controllers):
            if self.rdtcp_argv is None or self.rdtcp_proc is not None:
                return                      # Mininet.start(): LiveNetwork starts it itself
            self.rdtcp_proc = self.popen(self.rdtcp_argv, cwd=str(REPO_ROOT), env=_child_env(),
                                         stdin=subprocess.DEVNULL, stdout=self.rdtcp_log,
                                         stderr=subprocess.STDOUT)

        def stop(self, deleteIntfs=True):   # noqa: N803 (Mininet's signature)
            if self.rdtcp_proc is not None:
                stop_process(self.rdtcp_proc)
            super().stop(deleteIntfs)

    _SWITCH_CLASS.append(RdtcpSwitch)
    return RdtcpSwitch


BACKENDS = {"netns": NetnsBackend, "mininet": MininetBackend}


def choose_backend(name: str) -> type:
    """``auto``: Mininet when it can be loaded, else plain namespaces."""
    if name == "auto":
        return MininetBackend if find_mininet() is not None else NetnsBackend
    if name not in BACKENDS:
        raise LiveError(f"unknown backend {name!r}; choose from auto, {', '.join(BACKENDS)}")
    return BACKENDS[name]


# -- the running network --------------------------------------------------------------------------
class LiveInterrupted(BaseException):
    """SIGTERM during a live run: unwinds like Ctrl-C (KeyboardInterrupt) so that teardown runs."""


class LiveNetwork:
    """A ``LivePlan`` built and running: switch processes ready, hosts started on demand.

    Use as a context manager (teardown always runs, SIGTERM included), or call ``start`` and
    ``stop``. ``log_dir`` receives each process's output (``<node>.log``); ``pcap_dir`` makes
    the switches write pcaps, renamed ``<switch>-eth<port>_{in,out}.pcap`` at the end.
    """

    def __init__(self, plan: LivePlan, *, program_path: str | os.PathLike, backend: str = "auto",
                 log_dir: str | os.PathLike | None = None,
                 pcap_dir: str | os.PathLike | None = None,
                 cli: str | None = None, switch_python: str = sys.executable):
        self.plan = plan
        self.program_path = str(program_path)
        self.names = Names(new_tag(), {s: i for i, s in enumerate(plan.switches)})
        self.backend_name = backend
        self.backend: Any = None
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.pcap_dir = Path(pcap_dir) if pcap_dir is not None else None
        self.cli = cli
        self.switch_python = switch_python      # the interpreter rdtcp-switch runs on (PyPy too)
        self._drivers: dict[str, Any] = {}      # one control connection per switch (no CLI)
        self.switch_procs: dict[str, subprocess.Popen] = {}
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
        check_environment()
        if self.log_dir is None:
            import tempfile
            self._tmp_logs = Path(tempfile.mkdtemp(prefix="rdtcp-live-"))
            self.log_dir = self._tmp_logs
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.backend = choose_backend(self.backend_name)(self.plan, self.names)
        self.backend.build()
        for switch in self.plan.switches:
            self._start_switch(switch)
        return self

    def _log(self, node: str):
        f = open(self.log_dir / f"{node}.log", "wb")
        self._logs.append(f)
        return f

    def _start_switch(self, switch: str) -> None:
        argv = self.plan.switch_argv(switch, self.backend.interfaces(switch), self.program_path,
                                     pcap_dir=None if self.pcap_dir is None else str(self.pcap_dir),
                                     python=self.switch_python)
        log = self._log(switch)
        proc = self.backend.start_switch(switch, argv, log)
        self.switch_procs[switch] = proc
        line = wait_for_line(proc, self.log_dir / f"{switch}.log", SWITCH_READY,
                             f"switch {switch} (rdtcp-switch)")
        self.control_ports[switch] = int(line.rsplit(":", 1)[1])

    def stop(self) -> None:
        """End every process, remove interfaces and namespaces, rename the pcaps. Idempotent."""
        for driver in self._drivers.values():
            driver.close()
        self._drivers.clear()
        for _, proc in self.host_procs:
            stop_process(proc)
        for proc in self.switch_procs.values():
            stop_process(proc)
        errors = self.backend.destroy() if self.backend is not None else []
        self._rename_pcaps()
        for f in self._logs:
            f.close()
        self._logs.clear()
        self.host_procs.clear()
        self.switch_procs.clear()
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
        """``controller.Controller`` on the switch's control port: over one connection kept for
        the run (``SwitchProcessDriver``), or piped through ``cli`` when one was given (e.g.
        ``rdtcp-switch-cli``, as for real simple_switch)."""
        from controller import Controller
        from controller.drivers import Bmv2Driver, SwitchProcessDriver

        if self.cli is not None:
            return Controller(Bmv2Driver(self.control_ports[switch], cli=self.cli))
        driver = self._drivers.get(switch)
        if driver is None:
            driver = self._drivers[switch] = SwitchProcessDriver(self.control_ports[switch])
        return Controller(driver)

    def host_interface(self, host: str) -> str:
        return self.backend.host_interface(host)

    def start_host(self, host: str, peer: str, extra: list[str], *,
                   wait_ready: bool = True) -> subprocess.Popen:
        """Start ``live.host`` on ``host`` (log ``<host>.log``); waits for its ready line."""
        argv = self.plan.host_argv(host, self.host_interface(host), peer, extra)
        proc = self.backend.start_host(host, argv, self._log(host))
        self.host_procs.append((host, proc))
        if wait_ready:
            wait_for_line(proc, self.log_dir / f"{host}.log", HOST_READY, f"host {host}")
        return proc

    def log_text(self, node: str) -> str:
        try:
            return (self.log_dir / f"{node}.log").read_text(errors="replace")
        except (OSError, TypeError):
            return ""



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
_STALE_IF = re.compile(rf"^{PREFIX}([0-9a-z]{{6}})s\d+p\d+$")


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
