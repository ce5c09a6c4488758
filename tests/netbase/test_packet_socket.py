"""netbase.packet_socket.RawPort on real veth pairs (root): a port reads the frames of its own
interface only, from the moment it is opened. A packet socket opened for ETH_P_ALL reads every
interface of its namespace until it is bound, so a port opened while another interface
carries traffic caught some of it (a switch then forwarded another run's frames)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

from netbase.packet_socket import RawPort

MARK = b"FRAME-OF-ANOTHER-LINK"


def _sh(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, timeout=30)


@pytest.fixture
def two_links():
    """Two veth pairs in this namespace, named uniquely (other tests may make their own at
    the same time): (a0, a1), (b0, b1)."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2 (veth pairs, AF_PACKET)")
    tag = f"{os.getpid() % 10000:04d}{int(time.monotonic() * 1000) % 100:02d}"
    names = [f"hps{tag}a0", f"hps{tag}a1", f"hps{tag}b0", f"hps{tag}b1"]
    try:
        for a, b in ((names[0], names[1]), (names[2], names[3])):
            _sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
        for n in names:
            subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{n}.disable_ipv6=1"],
                           capture_output=True, timeout=30)
            _sh("ip", "link", "set", n, "up")
        yield names
    finally:
        for n in (names[0], names[2]):
            subprocess.run(["ip", "link", "del", n], capture_output=True, timeout=30)


class Flood:
    """Frames marked MARK sent into ``ifname`` as fast as one thread can."""

    def __init__(self, ifname: str):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        self.sock.bind((ifname, 0))
        self.frame = bytes.fromhex("020000000001020000000002" "88b5") + MARK + bytes(40)
        self.sent = 0
        self.stopped = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped:
            try:
                self.sock.send(self.frame)
                self.sent += 1
            except OSError:
                time.sleep(0.001)

    def stop(self) -> None:
        self.stopped = True
        self.thread.join(timeout=10)
        self.sock.close()


def test_a_port_opened_beside_a_busy_link_reads_none_of_its_frames(two_links):
    a0, a1, b0, b1 = two_links
    flood = Flood(a0)                   # a0 -> a1: frames arrive on a1, not on b1
    crossed = 0
    try:
        time.sleep(0.3)
        for _ in range(200):
            port = RawPort(1, b1)
            time.sleep(0.001)
            crossed += sum(1 for f in port.recv_frames() if MARK in f)
            assert getattr(port, "foreign", 0) == 0
            port.close()
        assert flood.sent > 1000
    finally:
        flood.stop()
    assert crossed == 0
    # and its own link's frames it does read
    port = RawPort(1, b1)
    try:
        with socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0) as s:
            s.bind((b0, 0))
            s.send(bytes.fromhex("020000000001020000000002" "88b5") + b"own" + bytes(45))
        deadline = time.monotonic() + 5
        got = []
        while not got and time.monotonic() < deadline:
            got = port.recv_frames()
            time.sleep(0.01)
        assert got and b"own" in got[0]
    finally:
        port.close()
