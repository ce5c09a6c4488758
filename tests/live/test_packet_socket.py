"""netbase.packet_socket's interface index on interpreters without ``socket.if_nametoindex``
(PyPy 3.9), and rdtcp-switch running under Debian's pypy3 on a live network."""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket

import pytest

from netbase import packet_socket as ps


def test_interface_index_uses_the_socket_modules_lookup_where_there_is_one():
    assert ps.interface_index("lo") == socket.if_nametoindex("lo")


def test_interface_index_without_if_nametoindex_asks_the_kernel(monkeypatch):
    real = socket.if_nametoindex("lo")
    monkeypatch.delattr(socket, "if_nametoindex")           # as on PyPy 3.9
    assert ps.interface_index("lo") == real
    with pytest.raises(OSError) as e:
        ps.interface_index("rlnosuchif0")
    assert e.value.errno == errno.ENODEV
    for bad in ("", "x" * 16):                               # not an interface name at all
        with pytest.raises(OSError):
            ps.interface_index(bad)


def test_a_raw_port_opens_without_if_nametoindex(netns_ok, monkeypatch):
    monkeypatch.delattr(socket, "if_nametoindex")
    port = ps.RawPort(0, "lo")                               # promiscuous membership by index
    try:
        assert port.sock.getsockname()[0] == "lo"
    finally:
        port.close()


def test_rdtcp_switch_under_pypy_forwards_a_transfer(netns_ok, gateway, tmp_path):
    """Both gateways of a small network under Debian's pypy3: every byte arrives."""
    from live import network as ln
    from topologies.base import Topo

    pypy = shutil.which("pypy3")
    if pypy is None:
        pytest.skip("pypy3 is not installed (apt-get install pypy3)")

    class Line(Topo):
        def build(self):
            self.addHost("h1", ip="10.0.0.1/24", mac="00:00:00:00:01:01")
            self.addHost("h2", ip="10.0.0.2/24", mac="00:00:00:00:01:02")
            self.addSwitch("s1")
            self.addSwitch("s2")
            self.addLink("h1", "s1", delay="2ms")
            self.addLink("s1", "s2", delay="5ms")
            self.addLink("s2", "h2")

    plan = ln.LivePlan.from_topo(Line())
    with ln.LiveNetwork(plan, program_path=gateway[0], backend="netns",
                        log_dir=tmp_path / "logs",
                        layout=ln.Layout(switch=ln.SwitchSpec(python=pypy))) as net:
        for s in plan.switches:
            net.controller(s).apply(plan.gateway_config(s))
        rx = net.start_host("h2", "h1", ["--role", "receiver", "--out", str(tmp_path / "rx.json")])
        tx = net.start_host("h1", "h2", ["--role", "sender", "--bytes", "200000",
                                         "--time-wait", "0.2"])
        assert tx.wait(timeout=60) == 0 and rx.wait(timeout=30) == 0
        for s in plan.switches:                              # running, and on PyPy
            proc = net.switch_procs[s]
            assert proc.poll() is None
            assert "pypy" in os.path.basename(os.readlink(f"/proc/{proc.pid}/exe"))
    r = json.loads((tmp_path / "rx.json").read_text())
    assert r["pattern_ok"] and r["bytes"] == 200000
