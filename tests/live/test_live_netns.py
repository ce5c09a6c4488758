"""Live runs for real (root, network namespaces): the paper's dumbbell with the project's TCP
engine on both hosts and both gateways as rdtcp-switch processes configured by the controller.

Skipped, with the reason, without root or a working ``ip netns``. About 40 s in all.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from live import network as tl
from tests.live import HANDSHAKE_RTT_MIN, plausible_handshake_rtt

ROOT = Path(__file__).resolve().parents[2]
BOTTLENECK_GOODPUT = 413 * 1448        # B/s: 413 frames/s of 1448-byte RD-TCP segments


def leftovers(pid: int) -> list[str]:
    """Namespaces and interfaces of live networks made by process ``pid``."""
    prefix = tl.tag_prefix(pid)
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    names = [line.split()[0] for line in ns.splitlines() if line.strip()]
    names += [line.split(":")[1].strip().split("@")[0] for line in links.splitlines()
              if line.count(":") >= 2]
    return [n for n in names if n.startswith(prefix)]


def live_run(tmp_path: Path, *argv: str) -> dict:
    from experiments import live_run as lr
    out = tmp_path / "out"
    status = lr.main([*argv, "--out", str(out)])
    doc = json.loads((out / "run.json").read_text())
    assert status == (0 if doc["ok"] else 1)
    assert leftovers(os.getpid()) == []           # torn down
    return doc


def test_paper_transfer_through_both_gateways_is_intact_at_the_bottleneck_rate(netns_ok,
                                                                                tmp_path):
    doc = live_run(tmp_path, "--variant", "rdtcp", "--duration", "4", "--backend", "netns")
    assert doc["ok"] and doc["pattern_ok"], doc.get("receiver", {}).get("error")
    assert doc["delivered_bytes"] == doc["sender"]["bytes"] > 0       # every byte, in order
    # 5 Mb/s = 413 frames/s at the bottleneck; 4 s include slow start and its overshoot
    assert 0.5 * BOTTLENECK_GOODPUT <= doc["throughput_Bps"] <= 1.02 * BOTTLENECK_GOODPUT
    # the propagation put in by the switches' --port-delay and the hosts (tests/live/__init__.py)
    assert plausible_handshake_rtt(doc["handshake_rtt_s"])
    assert doc["sender"]["rdtcp"] and doc["mss"] == 1448
    assert doc["receiver"]["handshake_rtt_s"] >= HANDSHAKE_RTT_MIN
    # the gateways ran the controller's configuration: r1's program-enforced 65-packet buffer
    # is the only place that drops, and every drop of a data segment is stamped (EPDN)
    assert doc["r2_drops_buffer"] == 0 and doc["r1_drops_random"] == 0
    assert doc["retransmits"] >= doc["r1_drops_buffer"] > 0
    assert doc["gateway_configs"]["r1"]["ports"]["2"]["queue_rate_pps"] == 413
    assert set(os.listdir(tmp_path / "out" / "logs")) == {"a.log", "b.log", "r1.log", "r2.log"}


def test_injected_drops_on_r1_give_epdn_stamps_and_retransmissions(netns_ok, tmp_path):
    """Also: recirculation on R1 and the pcaps, over Mininet when it is installed (the other
    tests build with plain namespaces), so that one run covers the second backend."""
    from netbase.pcap import read_pcap
    from netbase.wire import decode_frame

    backend = "mininet" if tl.find_mininet() is not None else "netns"
    doc = live_run(tmp_path, "--variant", "rdtcp", "--duration", "3", "--drop", "0.02",
                   "--injection", "recirc", "--level", "0.05", "--backend", backend, "--pcap")
    assert doc["backend"] == backend and doc["ok"] and doc["pattern_ok"]
    assert doc["r1_drops_random"] > 0
    assert doc["r1_epdn_events_stamp"] > 0 and doc["epdn_stamps"] > 0   # counted by B
    assert doc["retransmits"] >= doc["r1_drops_random"]
    assert doc["receiver"]["stats"]["epdn_ignored"] == 0
    assert doc["r1_reorders_recirculate"] > 0
    assert plausible_handshake_rtt(doc["handshake_rtt_s"])            # as above
    pcaps = tmp_path / "out" / "pcap"
    names = set(os.listdir(pcaps))
    assert {"a.pcap", "b.pcap", "r1-eth2_out.pcap", "r2-eth1_in.pcap"} <= names
    sent = [decode_frame(r.data)[2] for r in read_pcap(pcaps / "r1-eth2_out.pcap")]
    data = [s for s in sent if s.payload]
    assert data and len(data) >= doc["delivered_bytes"] // 1448
    # recirculated packets leave R1 behind later ones: sequence numbers go back sometimes
    assert any(b.seq < a.seq for a, b in zip(data, data[1:]))
    # the EPDN option R1 inserted is on the wire between the gateways (first option, [RDTCP] §3)
    assert any(s.options and s.options[0][0] == "EPDN" for s in data)


def test_any_topology_runs_live_with_teardown_on_error(netns_ok, gateway, tmp_path):
    from topologies.base import Topo

    class Star(Topo):
        def build(self):
            self.addHost("h1", ip="10.0.0.1/24", mac="00:00:00:00:01:01")
            self.addHost("h2", ip="10.0.0.2/24", mac="00:00:00:00:01:02")
            self.addSwitch("s1")
            self.addLink("h1", "s1", delay="10ms")
            self.addLink("h2", "s1")

    plan = tl.LivePlan.from_topo(Star())
    with tl.LiveNetwork(plan, program_path=gateway[0], backend="netns",
                        log_dir=tmp_path / "logs") as net:
        net.controller("s1").apply(plan.gateway_config("s1"))
        rx = net.start_host("h2", "h1", ["--role", "receiver", "--out", str(tmp_path / "rx.json")])
        tx = net.start_host("h1", "h2", ["--role", "sender", "--bytes", "300000",
                                         "--out", str(tmp_path / "tx.json"), "--time-wait", "0.2"])
        assert tx.wait(timeout=30) == 0 and rx.wait(timeout=30) == 0
        assert leftovers(os.getpid())                       # it is up while we are inside
    assert leftovers(os.getpid()) == []
    r = json.loads((tmp_path / "rx.json").read_text())
    assert r["pattern_ok"] and r["bytes"] == 300000
    assert 0.01 <= json.loads((tmp_path / "tx.json").read_text())["handshake_rtt_s"] < 0.1
    # an error inside the network (a host that cannot start): still torn down
    with pytest.raises(tl.LiveError, match="host h1 exited"):
        with tl.LiveNetwork(plan, program_path=gateway[0], backend="netns") as net:
            net.start_host("h1", "h2", ["--role", "sender", "--variant", "nosuch"])
    assert leftovers(os.getpid()) == []


def test_sigterm_tears_the_network_down(netns_ok, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "experiments.live_run", "--duration", "60",
                             "--backend", "netns", "--out", str(out)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:              # until the sender is running
            log = out / "logs" / "a.log"
            if log.exists() and "ready" in log.read_text():
                break
            time.sleep(0.1)
        else:
            pytest.fail("the live run did not start its sender within 30 s")
        assert leftovers(proc.pid)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143 and "torn down" in err
    assert leftovers(proc.pid) == []
    assert not (out / "run.json").exists()


def test_cleanup_removes_what_a_killed_run_left_and_only_that(netns_ok):
    dead = 999_999
    while True:                                 # a process id nobody has
        try:
            os.kill(dead, 0)
            dead += 1
        except ProcessLookupError:
            break
        except PermissionError:
            dead += 1
    stale = f"{tl.tag_prefix(dead)}z"
    mine = tl.new_tag()
    made = [(["ip", "netns", "add", f"{stale}-a"], ["ip", "netns", "del", f"{stale}-a"]),
            (["ip", "link", "add", f"{stale}s0p1", "type", "veth", "peer", "name",
              f"{stale}s1p1"], ["ip", "link", "del", f"{stale}s0p1"]),
            (["ip", "link", "add", f"rl{mine}s0p1", "type", "veth", "peer", "name",
              f"rl{mine}s1p1"], ["ip", "link", "del", f"rl{mine}s0p1"])]
    try:
        for up, _ in made:
            subprocess.run(up, check=True, capture_output=True)
        removed = {" ".join(c) for c in tl.cleanup_stale()}
        assert f"ip netns del {stale}-a" in removed
        assert f"ip link del {stale}s0p1" in removed
        assert not any(mine in c for c in removed)
        assert [n for n in leftovers(dead) if n.startswith(stale)] == []
        assert f"rl{mine}s0p1" in leftovers(os.getpid())
    finally:
        for _, down in made:
            subprocess.run(down, capture_output=True)
