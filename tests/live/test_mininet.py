"""live.mininet: the P4 switch class for Mininet, by hand (``mn --custom live/mininet.py
--topo rdtcp_paper --switch p4``) and through the live runner (--backend mininet), with Linux's
TCP on the hosts. Root and Debian's mininet package; skipped with the reason otherwise."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from live import network as ln
from tests.live import plausible_handshake_rtt
from tests.live.test_live_netns import live_run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mininet_ok(netns_ok, gateway):
    if ln.find_mininet() is None or shutil.which("mn") is None:
        pytest.skip("Mininet is not installed (apt-get install mininet)")
    if shutil.which("ethtool") is None:
        pytest.skip("ethtool is not installed (apt-get install ethtool)")
    return True


def _mn(*args: str, cli: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    """``mn`` as a user runs it, its CLI fed ``cli`` on stdin."""
    return subprocess.run(["mn", "--custom", "live/mininet.py", "--topo", "rdtcp_paper",
                           "--controller", "none", *args], cwd=ROOT, input=cli,
                          capture_output=True, text=True, timeout=timeout)


def _leftover_switch_interfaces() -> list[str]:
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    return re.findall(r"\d+: (r[12]-eth\d+)[@:]", links)


def test_mn_by_hand_runs_iperf_through_the_configured_p4_gateways(mininet_ok, tmp_path):
    """iperf (Linux's TCP on both hosts) typed into mn's CLI, through two rdtcp-switch gateways
    that the switch class configured as the simulator configures them: the bottleneck's rate.
    (Not ``mn --test iperf``: Mininet waits there for a report iperf 2.1 no longer prints.)"""
    p = _mn("--switch", "p4", cli=f"b iperf -s > {tmp_path}/server.log 2>&1 &\n"
                                  "a iperf -c 10.0.2.1 -t 3\nexit\n")
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    rates = re.findall(r"sec\s+[\d.]+ [KM]Bytes\s+([\d.]+) ([KMG])bits/sec", out)
    assert len(rates) == 1, out
    mbps = float(rates[0][0]) * {"K": 1e-3, "M": 1, "G": 1e3}[rates[0][1]]
    assert 2.0 <= mbps <= 5.2, out                 # r1's port paces 413 frames/s (5 Mb/s)
    assert "--port-delay 2:50" in out and "--thrift-port 9090" in out
    assert _leftover_switch_interfaces() == []


def test_the_switch_class_refuses_an_unknown_binary_by_name_before_anything_runs(mininet_ok):
    """(Not through mn: mn answers any failure with its machine-wide cleanup.)"""
    from live.mininet import P4Switch

    with pytest.raises(ln.LiveError, match="'/nonexistent/simple_switch' not found"):
        P4Switch("r1", sw_path="/nonexistent/simple_switch")


def test_the_live_runner_builds_linux_hosts_and_delay_stages_through_mininet(mininet_ok,
                                                                           tmp_path):
    doc = live_run(tmp_path, "--variant", "linux", "--duration", "3", "--backend", "mininet",
                   "--drop", "0.01")
    assert doc["backend"] == "mininet" and doc["ok"] and doc["pattern_ok"]
    assert doc["in_csum_errors"] == 0 and doc["r1_epdn_events_stamp"] > 0
    assert doc["link_delay"]["a-r1"] in ("relay", "netem")
    assert plausible_handshake_rtt(doc["handshake_rtt_s"])


def test_mn_by_hand_with_a_simple_switch_binary(mininet_ok, tmp_path):
    """``sw_path`` naming a simple_switch (rdtcp-switch standing in under that name): started
    with simple_switch's command line, ready and configured over Thrift."""
    from tests.live.test_simple_switch import stand_in

    binary = tmp_path / "simple_switch"
    binary.symlink_to(stand_in())
    p = _mn("--switch", f"p4,sw_path={binary}",
            cli=f"b iperf -s > {tmp_path}/server.log 2>&1 &\na iperf -c 10.0.2.1 -t 3\nexit\n")
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert f"{binary} -i 1@r1-eth1" in out and "--port-delay" not in out
    assert re.search(r"sec\s+[\d.]+ [KM]Bytes\s+[\d.]+ [KM]bits/sec", out), out
    assert _leftover_switch_interfaces() == []


def test_the_live_runner_runs_simple_switch_gateways_through_mininet(mininet_ok, tmp_path):
    from tests.live.test_simple_switch import stand_in

    doc = live_run(tmp_path, "--switch", "simple_switch", "--switch-binary", stand_in(),
                   "--variant", "sack", "--duration", "3", "--backend", "mininet")
    assert doc["backend"] == "mininet" and doc["switch"] == "simple_switch" and doc["ok"]
    assert set(doc["link_delay"].values()) <= {"relay", "netem"}
    assert plausible_handshake_rtt(doc["handshake_rtt_s"])
