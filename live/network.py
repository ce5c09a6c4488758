"""A ``topologies`` Topo built for real: hosts in network namespaces, switches as processes.

The simulator's twin of a Topo (``sim.Network.from_topo``) and this live network come from the
same class and the same derivation: host IPs and MACs, switch-port MACs, routes and switch
seeds are the Topo's address plan (``topologies.addressing``), which both read, so the
controller configures a live gateway exactly as it configures a simulated one
(``sim.gateway.gateway_config``).

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

from live.plan import (ETH_HEADER, HOST_KINDS, LINK_DELAYS, MTU, OFFLOADS_OFF, REPO_ROOT,
                       SWITCH_KINDS, HostPlan, Layout, LiveError, LivePlan, PortPlan, SwitchSpec,
                       host_commands, namespace_commands, netem_args, queue_rate_pps,
                       root_if_commands)
from live.processes import (MININET_DIRS, START_TIMEOUT, STOP_TIMEOUT, _system_python_version,
                            child_env, die_with_parent, find_mininet, free_tcp_port, stop_process,
                            tail, thrift_when_ready, wait_for_line)

__all__ = ["LivePlan", "HostPlan", "PortPlan", "LiveNetwork", "LiveError", "LiveInterrupted",
           "NetnsBackend",
           "MininetBackend", "queue_rate_pps", "find_mininet", "check_environment",
           "cleanup_stale", "tag_prefix", "new_tag", "Names", "REPO_ROOT", "MTU", "ETH_HEADER"]

PREFIX = "rl"                 # every name a live network creates starts with this
SWITCH_READY = "Control server was started on "      # toolchain.switch.process.main
P4RUNTIME_READY = "P4Runtime server was started on "  # toolchain.switch.p4runtime_server
CONTROLS = ("thrift", "p4runtime")


def p4info_path(program_path: str) -> Path:
    """The P4Info beside a BMv2 JSON (``build/rdtcp.json`` -> ``build/rdtcp.p4info.txt``).
    The gateway's own (the build/rdtcp.json the runs compile when stale) is written again from
    p4src/rdtcp.p4 when missing or older than the JSON; for another program LiveError names
    the command that writes it."""
    json_path = Path(program_path)
    info = json_path.with_name(json_path.stem + ".p4info.txt")
    if info.exists() and info.stat().st_mtime >= json_path.stat().st_mtime:
        return info
    gateway = REPO_ROOT / "build" / "rdtcp.json"
    if json_path.resolve() == gateway.resolve() and not os.environ.get("RDTCP_PROGRAM"):
        from toolchain.compiler.frontend import parse_and_check
        from toolchain.compiler.p4info import build_p4info, write_p4info_file
        program, _ = parse_and_check(str(REPO_ROOT / "p4src" / "rdtcp.p4"))
        write_p4info_file(build_p4info(program), str(info), "text")
        return info
    raise LiveError(f"--control p4runtime needs the program's P4Info {info} (as new as "
                    f"{json_path}): rdtcp-p4c ... -o {json_path} --p4runtime-files {info}")
HOST_READY = "live.host: ready"                    # live.host.READY_LINE
KERNEL_HOST_READY = "live.kernel_host: ready"       # live.kernel_host.READY_LINE
STAGE_READY = "live.delay_stage: ready"             # live.delay_stage.READY_LINE


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
        return subprocess.Popen(argv, cwd=REPO_ROOT, env=child_env(), stdin=subprocess.DEVNULL,
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
        return self.net.get(host).popen(argv, cwd=str(REPO_ROOT), env=child_env(),
                                        stdin=subprocess.DEVNULL, stdout=log,
                                        stderr=subprocess.STDOUT,
                                        preexec_fn=die_with_parent())

    def start_stage(self, link: int, argv: list[str], log) -> subprocess.Popen:
        return subprocess.Popen(argv, cwd=REPO_ROOT, env=child_env(), stdin=subprocess.DEVNULL,
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
                 cli: str | None = None, layout: Layout | None = None,
                 control: str = "thrift"):
        if control not in CONTROLS:
            raise LiveError(f"unknown control {control!r}; choose from {', '.join(CONTROLS)}")
        if control == "p4runtime" and cli is not None:
            raise LiveError("--cli pipes commands into a Thrift CLI: not with --control p4runtime")
        if control == "p4runtime":
            p4info_path(program_path)          # missing: said before any namespace exists
        self.control = control
        self.grpc_addrs: dict[str, str] = {}
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
        self._p4rt_drivers: dict[str, Any] = {}
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
            if self.control == "p4runtime":      # the JSON stays last
                argv[-1:-1] = ["--grpc-server-addr", "127.0.0.1:0"]
            proc = self.switch_procs[switch] = self.backend.start_switch(switch, argv,
                                                                         self._log(switch))
            line = wait_for_line(proc, log_path, SWITCH_READY, f"switch {switch} (rdtcp-switch)")
            port = int(line.rsplit(":", 1)[1])
            what = f"switch {switch} (rdtcp-switch)"
            if self.control == "p4runtime":      # printed before the ready line
                self.grpc_addrs[switch] = wait_for_line(proc, log_path, P4RUNTIME_READY,
                                                        what).split()[-1]
        else:
            port = free_tcp_port()
            argv = self.plan.simple_switch_argv(switch, ifnames, self.program_path,
                                                binary=spec.binary, thrift_port=port,
                                                pcap_dir=pcap)
            if self.control == "p4runtime":      # simple_switch_grpc's target option
                self.grpc_addrs[switch] = f"127.0.0.1:{free_tcp_port()}"
                argv += ["--", "--grpc-server-addr", self.grpc_addrs[switch]]
            proc = self.switch_procs[switch] = self.backend.start_switch(switch, argv,
                                                                         self._log(switch))
            what = f"switch {switch} ({spec.binary})"
        self.control_ports[switch] = port
        self._drivers[switch] = thrift_when_ready(proc, port, log_path, what)

    def stop(self) -> None:
        """End every process, remove interfaces and namespaces, rename the pcaps. Idempotent."""
        for driver in self._p4rt_drivers.values():
            driver.client.close()
        self._p4rt_drivers.clear()
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

        if self.control == "p4runtime":
            return Controller(self._p4runtime_driver(switch), program=self.program_path)
        if self.cli is not None:
            return Controller(Bmv2Driver(self.control_ports[switch], cli=self.cli))
        return Controller(self._drivers[switch])

    def _p4runtime_driver(self, switch: str) -> Any:
        """``controller.p4runtime_driver.P4RuntimeDriver`` on the switch's P4Runtime server,
        the gateway's P4Info (beside its JSON, ``<name>.p4info.txt``, as ``make build`` writes
        it) and JSON installed with SetForwardingPipelineConfig, queue settings over the
        Thrift connection; made once per switch and kept for the run."""
        from controller.p4runtime_driver import P4RuntimeDriver

        drv = self._p4rt_drivers.get(switch)
        if drv is None:
            info = p4info_path(self.program_path)
            device = 0 if self.layout.switch.kind == "embedded" else \
                self.plan.switches.index(switch)
            drv = P4RuntimeDriver(self.grpc_addrs[switch], p4info=info,
                                  bmv2_json=self.program_path, device_id=device,
                                  timeout=START_TIMEOUT)
            drv.thrift = self._drivers[switch]
            self._p4rt_drivers[switch] = drv
        return drv

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
                           f"{tail(self.log_text(name))}")
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
