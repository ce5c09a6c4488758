"""Live runs with Linux's TCP on both hosts (root, network namespaces): through the same P4
gateways, with the gateway stamping EPDN options into Linux's segments and the receiver's
kernel checking every checksum; the --sysctl settings reach the hosts; a missing kernel module
is named before anything is built; a gateway that dies ends the run at once, torn down."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.live import plausible_handshake_rtt
from tests.live.test_live_netns import leftovers, live_run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ethtool_ok():
    import shutil
    if shutil.which("ethtool") is None:
        pytest.skip("ethtool is not installed (apt-get install ethtool)")


def test_linux_tcp_through_the_gateways_keeps_every_checksum_right(netns_ok, ethtool_ok,
                                                                   tmp_path):
    doc = live_run(tmp_path, "--variant", "linux", "--duration", "4", "--backend", "netns",
                   "--drop", "0.02", "--injection", "recirc", "--level", "0.03",
                   "--sysctl", "net.ipv4.tcp_recovery=0",
                   "--sysctl", "net.ipv4.tcp_congestion_control=reno")
    assert doc["ok"] and doc["pattern_ok"] and doc["implementation"] == "linux"
    assert doc["delivered_bytes"] == doc["sender"]["bytes"] > 0
    # the gateway inserted EPDN options into Linux's segments (the MSS leaves room for them)
    # and updated the checksum incrementally: Linux's receiver refused none of them
    assert doc["r1_epdn_events_stamp"] > 0 and doc["mss"] <= 1448
    assert doc["in_csum_errors"] == 0 and doc["receiver"]["stats"]["in_errs"] == 0
    assert doc["retransmits"] >= doc["r1_drops_random"] > 0
    assert doc["r1_reorders_recirculate"] > 0 and doc["ooo_segments"] > 0
    assert doc["sysctl"]["net.ipv4.tcp_recovery"] == "0"
    assert doc["sender"]["sysctl"]["net.ipv4.tcp_congestion_control"] == "reno"
    # Linux sends straight onto its link: its links' delay is a stage's (no netem here)
    assert doc["link_delay"]["a-r1"] in ("relay", "netem")
    assert doc["link_delay"]["r1-r2"] == "senders"
    assert plausible_handshake_rtt(doc["handshake_rtt_s"])


def test_a_congestion_control_the_kernel_lacks_is_named_and_nothing_is_built(netns_ok, tmp_path,
                                                                             capsys):
    from experiments import live_run as lr
    status = lr.main(["--variant", "linux", "--sysctl", "tcp_congestion_control=nosuchcc",
                      "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2 and "no tcp_nosuchcc module" in err
    assert leftovers(os.getpid()) == [] and not (tmp_path / "out").exists()


def _descendants(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every process below ``pid`` (all started by this test)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            try:
                cmd = (Path("/proc") / str(child) / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            out.append((child, cmd.decode(errors="replace")))
            todo.append(child)
    return out


def test_a_gateway_that_dies_ends_the_run_torn_down_and_named(netns_ok, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "experiments.live_run", "--duration", "60",
                             "--backend", "netns", "--out", str(out)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:               # until the sender runs
            log = out / "logs" / "a.log"
            if log.exists() and "ready" in log.read_text():
                break
            time.sleep(0.1)
        else:
            pytest.fail("the live run did not start its sender within 30 s")
        r1 = [p for p, cmd in _descendants(proc.pid)
              if "toolchain.switch.process.main" in cmd and "--seed" in cmd]
        assert len(r1) == 2                              # both gateways; kill one
        os.kill(r1[0], signal.SIGKILL)
        started = time.monotonic()
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1 and time.monotonic() - started < 30
    assert "exited with status -9" in err and "torn down" in err
    assert leftovers(proc.pid) == [] and not (out / "run.json").exists()
