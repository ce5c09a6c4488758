"""Mininet as its users expect: a P4 switch class that runs simple_switch or rdtcp-switch.

By hand, as with the p4lang tutorials' and p4-utils' ``P4Switch`` (as root, from the checkout,
after ``make build``)::

    sudo mn --custom live/mininet.py --topo rdtcp_paper --switch p4 --controller none
    sudo mn --custom live/mininet.py --topo rdtcp_paper --controller none \\
        --switch p4,sw_path=simple_switch,json_path=build/rdtcp.json,thrift_port=9090

``--switch p4`` starts, for each switch, ``sw_path`` (default ``rdtcp-switch``, the project's
embedded target; or ``simple_switch``, or any binary with its command line) on the switch's
interfaces with the JSON (default ``build/rdtcp.json``) and a Thrift port (9090, 9091, ... or
``thrift_port``), waits until it answers Thrift calls there, and configures it over that
connection (``controller.drivers.ThriftDriver``): with ``commands=FILE`` a
simple_switch_CLI command file (``{name}`` in the path becomes the switch's name), else, when
the topology is one of the project's (``topos`` below), the gateway configuration the
simulator gives that switch (routes, edge ports, the P4 buffer limits, queue rates:
``live.plan.LivePlan.gateway_config``), rdtcp-switch also holding each port's frames for
its link's delay. The hosts attached to a configured gateway get what the P4 gateway needs of
them: a permanent neighbour entry with the gateway port's MAC for every other host (the gateway
answers no ARP), segmentation offloads off, IPv6 off. Then ``a iperf -s &``, ``b iperf -c
10.0.1.1`` or ``pingall`` run through the P4 gateways. Through the live runner
(``experiments.live_run --backend mininet``) the same class runs the command line the runner
gives it.

Options of ``--switch p4,...`` (all optional): ``sw_path``, ``json_path``, ``thrift_port``,
``pcap_dump`` (a directory, or 1 for the current one), ``log_console`` (1), ``device_id``,
``commands``, ``gateway`` (``auto``, or ``none`` to leave the switch unconfigured).

When ``mn`` executes this file it is not imported as part of the project: the project's root
(two levels above this file) is put on ``sys.path`` first.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any


def _repo_root() -> Path:
    """The checkout this file is in (``mn --custom`` executes it without ``__file__``)."""
    here = globals().get("__file__") or sys._getframe(0).f_code.co_filename
    return Path(here).resolve().parents[1]


_REPO = _repo_root()
if importlib.util.find_spec("live") is None:      # run by mn: make the project importable
    sys.path.insert(0, str(_REPO))
if importlib.util.find_spec("bm_cli") is None:
    # run by mn's interpreter, which lacks simple_switch_CLI's modules (the controller's
    # Thrift driver runs them): the checkout's venv has them for the same Python version;
    # appended, so every package the interpreter has of its own still comes first
    for _site in sorted(_REPO.glob(".venv/lib/python%d.%d/site-packages" % sys.version_info[:2])):
        sys.path.append(str(_site))

from live.plan import OFFLOADS_OFF, Layout, LiveError, LivePlan, host_commands  # noqa: E402
from live.processes import (child_env, die_with_parent, find_mininet,  # noqa: E402
                            free_tcp_port, stop_process, thrift_when_ready)

if find_mininet() is None:
    raise ImportError("Mininet is not installed here (apt-get install mininet)")

from mininet.log import info, warn  # noqa: E402
from mininet.node import Host, Switch  # noqa: E402

__all__ = ["P4Switch", "RawHost", "StageNode", "topos", "switches", "hosts", "built_topology",
           "embedded_switch_command"]

_THRIFT_PORTS = itertools.count(9090)        # p4-utils' convention: 9090, 9091, ...
_BUILT: list[Any] = []                       # the topology mn built through ``topos``


def built_topology() -> Any | None:
    """The project topology ``mn --topo`` built through this file's ``topos``, or None."""
    return _BUILT[-1] if _BUILT else None


def _remembering(cls):
    """``cls`` as mn builds it, the instance kept: the switches configure themselves from it."""
    def build(*args, **kwargs):
        topo = cls(*args, **kwargs)
        _BUILT.append(topo)
        return topo
    build.__doc__ = cls.__doc__
    return build


def embedded_switch_command() -> list[str]:
    """``rdtcp-switch``: the entry point on PATH or in the checkout's venv, else this
    interpreter running the module (the project on PYTHONPATH)."""
    for candidate in (shutil.which("rdtcp-switch"), _REPO / ".venv" / "bin" / "rdtcp-switch"):
        if candidate and os.access(candidate, os.X_OK):
            return [str(candidate)]
    return [sys.executable, "-m", "toolchain.switch.process.main"]


class P4Switch(Switch):
    """A BMv2-style P4 switch (simple_switch's command line and Thrift port) as a Mininet switch.

    ``sw_path``: ``rdtcp-switch`` (the embedded target, the default), ``simple_switch``, or a
    path. The process runs in the root namespace, like Mininet's other software switches; its
    output goes to ``/tmp/p4s.<name>.log`` (the tutorials' name) or ``log_file``.
    """

    def __init__(self, name: str, sw_path: str = "rdtcp-switch", json_path: str | None = None,
                 thrift_port: int | None = None, pcap_dump: Any = False,
                 log_console: Any = False, device_id: int | None = None,
                 commands: str | None = None, gateway: str = "auto",
                 log_file: str | None = None, managed: bool = False, **kwargs):
        if os.path.basename(str(sw_path)) != "rdtcp-switch" and shutil.which(str(sw_path)) is None:
            raise LiveError(f"switch binary {sw_path!r} not found or not executable (install "
                            "BMv2's simple_switch, or give its path: sw_path=...)")
        Switch.__init__(self, name, **kwargs)
        self.sw_path = sw_path
        self.json_path = str(json_path or _REPO / "build" / "rdtcp.json")
        self.thrift_port = int(thrift_port) if thrift_port else None
        self.pcap_dump = pcap_dump
        self.log_console = bool(log_console)
        self.device_id = int(self.dpid, 16) if device_id is None else int(device_id)
        self.commands = commands
        self.gateway = gateway
        self.log_file = log_file or f"/tmp/p4s.{name}.log"
        self.managed = managed              # the live runner starts and configures it
        self.proc: subprocess.Popen | None = None
        self.driver = None                  # the controller's Thrift connection
        self._log = None

    @property
    def embedded(self) -> bool:
        return os.path.basename(str(self.sw_path)) in ("rdtcp-switch",)

    # -- the command line -------------------------------------------------------------------------
    def command_line(self, plan: LivePlan | None = None) -> list[str]:
        """simple_switch's options (behavioral-model ``options_parse.cpp``); rdtcp-switch also
        gets ``--port-delay`` for each link with a delay when the topology is known."""
        base = embedded_switch_command() if self.embedded else [str(self.sw_path)]
        argv = list(base)
        for port, ifname in sorted(self._data_ports().items()):
            argv += ["-i", f"{port}@{ifname}"]
        argv += ["--thrift-port", str(self.thrift_port), "--device-id", str(self.device_id)]
        if self.pcap_dump:
            argv += ["--pcap", "." if self.pcap_dump in (True, 1, "1") else str(self.pcap_dump)]
        if self.log_console:
            argv.append("--log-console")
        if self.embedded and plan is not None and self.name in plan.ports:
            for port, p in sorted(plan.ports[self.name].items()):
                if p.delay_s > 0:
                    argv += ["--port-delay", f"{port}:{p.delay_s * 1000:g}"]
        return argv + [self.json_path]

    def _data_ports(self) -> dict[int, str]:
        """{port number: interface} of every data interface (Mininet's ``ports``: intf -> port)."""
        return {port: intf.name for intf, port in self.ports.items() if intf.name != "lo"}

    # -- start, configure, stop -------------------------------------------------------------------
    def launch(self, argv: list[str], log) -> subprocess.Popen:
        """Start ``argv`` for this switch (root namespace, the project importable)."""
        self.proc = subprocess.Popen(argv, cwd=str(_REPO), env=child_env(),
                                     stdin=subprocess.DEVNULL, stdout=log,
                                     stderr=subprocess.STDOUT, preexec_fn=die_with_parent())
        return self.proc

    def start(self, controllers) -> None:
        if self.managed or self.proc is not None:
            return
        plan = self._plan()
        if self.thrift_port is None:
            self.thrift_port = _next_free_thrift_port()
        argv = self.command_line(plan)
        info(f"*** {self.name}: {' '.join(shlex.quote(a) for a in argv)}\n")
        self._log = open(self.log_file, "wb")
        self.launch(argv, self._log)
        self.driver = thrift_when_ready(self.proc, self.thrift_port, Path(self.log_file),
                                        f"switch {self.name} ({self.sw_path})")
        self.configure(plan)

    def _plan(self) -> LivePlan | None:
        """The plan of the project topology mn built, when this switch is one of its."""
        topo = built_topology()
        if self.gateway != "auto" or topo is None or self.name not in topo.switches():
            return None
        return LivePlan.from_topo(topo)

    def configure(self, plan: LivePlan | None) -> None:
        """The command file, or the project's gateway configuration and its hosts' needs."""
        from controller import Controller

        if self.commands:
            path = str(self.commands).replace("{name}", self.name)
            text = Path(path).read_text()
            lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
            self.driver.run(lines)
        elif plan is not None:
            Controller(self.driver).apply(plan.gateway_config(self.name))
            self._configure_hosts(plan)

    def _configure_hosts(self, plan: LivePlan) -> None:
        """What a host of the P4 gateway needs: see the module docstring."""
        layout = Layout(hosts="kernel")
        for intf in list(self.ports):
            link = getattr(intf, "link", None)
            if link is None:
                continue
            other = link.intf2 if link.intf1 is intf else link.intf1
            node = other.node
            if not isinstance(node, Host) or node.name not in plan.hosts:
                continue
            node.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
            # Mininet gave the host its address and MAC; the routes to the other hosts go on
            # the link, their neighbour entries name the gateway's port
            for argv in host_commands(plan, layout, node.name, other.name):
                if argv[:3] == ["ip", "neigh", "replace"] or argv[0] == "ethtool":
                    node.cmd(" ".join(shlex.quote(a) for a in argv))
                elif argv[:3] == ["ip", "route", "add"]:
                    node.cmd(" ".join(shlex.quote(a) for a in ["ip", "route", "replace",
                                                               *argv[3:]]))
            if shutil.which("ethtool"):
                subprocess.run(["ethtool", "-K", intf.name, *OFFLOADS_OFF], capture_output=True)
            else:
                warn("*** ethtool is not installed: offloads stay on (apt-get install ethtool)\n")

    def stop(self, deleteIntfs=True):       # noqa: N803 (Mininet's signature)
        if self.driver is not None:
            self.driver.close()
            self.driver = None
        if self.proc is not None:
            stop_process(self.proc)
            self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None
        super().stop(deleteIntfs)


def _next_free_thrift_port() -> int:
    import socket
    for port in _THRIFT_PORTS:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    return free_tcp_port()


class RawHost(Host):
    """A host the live runner configures itself: no IP address from Mininet (``live.host``
    owns it, or the runner gives Linux's TCP a /32), no IPv6."""

    def config(self, **_params):
        self.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                 "net.ipv6.conf.default.disable_ipv6=1")
        return Host.config(self, mac=None, ip=None, defaultRoute=None, lo="up")


class StageNode(Switch):
    """The two interfaces of a link's delay stage (``live.delay_stage``, which the live runner
    starts on them); nothing runs in the node itself."""

    def start(self, controllers):
        return None


def _topos() -> dict:
    from topologies import topos as project_topos
    return {name: _remembering(cls) for name, cls in project_topos.items()}


topos = _topos()
switches = {"p4": P4Switch}
hosts = {"rawhost": RawHost}
