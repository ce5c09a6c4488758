"""Benchmark of the switch process (rdtcp-switch) on veth pairs: start-up time to the readiness
line, one-frame round-trip latency through the switch, and forwarding rate of a burst; under
this interpreter and, beside it, under PyPy when ``pypy3`` is on PATH (Debian's package).

    sudo python bench/bench_switch_process.py [--frames 20000] [--json tests/data/p4-kit/lpm_forward.json]
        [--pypy EXE | --no-pypy]

Program: the kit's lpm_forward (LPM table, MAC rewrite, TTL, IPv4 checksum). Frames enter port 0
and leave port 1. Needs root and iproute2; creates and removes its own namespace and veths.
"""

from __future__ import annotations

import argparse
import os
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
READY = "Control server was started on "
FRAME = bytes.fromhex("0000000000AA00000000000108004500002D00070000400665BF0A0000010A00010504D20050"
                      "000003E800000000501020002DEE000068656C6C6F")
WINDOW = 32
GOAL_RATE = 8_300           # frames/s: 10 x the paper's 10 Mb/s access link in full-size frames
COMMANDS = "table_add KitIngress.ipv4_lpm KitIngress.forward 10.0.1.0/24 => 1 00:00:00:00:00:b1\n"


def sh(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, timeout=30)


def raw(ifname: str) -> socket.socket:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)    # nothing until bound
    s.bind((ifname, 3))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    return s


def wait_ready(proc: subprocess.Popen, timeout: float = 30.0) -> int:
    sel = selectors.DefaultSelector()
    fd = proc.stdout.fileno()
    sel.register(fd, selectors.EVENT_READ)
    buf = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and sel.select(deadline - time.monotonic()):
        data = os.read(fd, 4096)
        if not data:
            break
        buf += data
        for line in buf.decode().splitlines():
            if line.startswith(READY):
                return int(line.rsplit(":", 1)[1])
    raise SystemExit(f"switch not ready: {buf.decode()} {proc.stderr.read().decode()}")


def recv_forwarded(s: socket.socket, timeout: float) -> bytes | None:
    s.settimeout(timeout)
    while True:
        try:
            data, addr = s.recvfrom(65536)
        except socket.timeout:
            return None
        if addr[2] != 4:          # not our own outgoing copy
            return data


def interpreters(pypy: str | None) -> list[tuple[str, str]]:
    """(label, executable): this CPython, and PyPy when one is given or ``pypy3`` is on PATH."""
    out = [(f"CPython {sys.version.split()[0]}", sys.executable)]
    exe = pypy if pypy is not None else shutil.which("pypy3")
    if exe:
        version = subprocess.run([exe, "-c", "import sys; print(sys.version.split()[0])"],
                                 capture_output=True, text=True, timeout=60).stdout.strip()
        out.append((f"PyPy (Python {version or '?'})", exe))
    return out


def measure(python: str, args: argparse.Namespace) -> dict:
    """Start the switch under ``python`` in a namespace of its own, configure it (with
    simple_switch_CLI over Thrift), and measure; everything it made is removed again."""
    tag = f"{os.getpid() % 100000}"
    ns, h0, h1 = f"rdtcp-bench-{tag}", f"rb{tag}h0", f"rb{tag}h1"
    from toolchain.switch.thrift_server import module_dirs

    # PyPy has not the venv: the checkout, and the Thrift modules the switch serves with
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *module_dirs()]))
    proc = None
    try:
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        for i, h in enumerate((h0, h1)):
            sh("ip", "link", "add", h, "type", "veth", "peer", "name", f"sw{i}", "netns", ns)
            subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{h}.disable_ipv6=1"], capture_output=True)
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv6.conf.sw{i}.disable_ipv6=1"],
                           capture_output=True)
            sh("ip", "link", "set", h, "up")
            sh("ip", "-n", ns, "link", "set", f"sw{i}", "up")
        t0 = time.perf_counter()
        proc = subprocess.Popen(["ip", "netns", "exec", ns, python, "-m", "toolchain.switch.process.main",
                                 "-i", "0@sw0", "-i", "1@sw1", "--thrift-port", "0", args.json],
                                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                bufsize=0)
        port = wait_ready(proc)
        startup = time.perf_counter() - t0
        cli = subprocess.run(["ip", "netns", "exec", ns, str(Path(sys.executable).parent / "simple_switch_CLI"),
                              "--thrift-port", str(port)], cwd=ROOT, input=COMMANDS, capture_output=True, text=True)
        assert cli.returncode == 0, cli.stdout + cli.stderr
        tx, rx = raw(h0), raw(h1)
        rtts = []
        for _ in range(args.pings):
            t = time.perf_counter()
            tx.send(FRAME)
            if recv_forwarded(rx, 2.0) is None:
                raise SystemExit("a ping frame was not forwarded")
            rtts.append(time.perf_counter() - t)
        # sustained rate: at most WINDOW frames in flight, so no socket buffer overflows
        got = sent = lost = 0
        start = time.perf_counter()
        while got + lost < args.frames:
            while sent < args.frames and sent - got - lost < WINDOW:
                tx.send(FRAME)
                sent += 1
            if recv_forwarded(rx, 0.5) is None:
                lost = sent - got        # the switch is idle: whatever is missing was dropped
            else:
                got += 1
        elapsed = time.perf_counter() - start
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=15)
        subprocess.run(["ip", "link", "del", h0], capture_output=True)
        subprocess.run(["ip", "link", "del", h1], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    rtts.sort()
    return {"startup_ms": startup * 1000, "rtt_median_us": statistics.median(rtts) * 1e6,
            "rtt_p99_us": rtts[int(len(rtts) * 0.99) - 1] * 1e6, "forwarded": got, "lost": lost,
            "rate": got / elapsed}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20000)
    ap.add_argument("--pings", type=int, default=500)
    ap.add_argument("--json", default=str(ROOT / "tests" / "data" / "p4-kit" / "lpm_forward.json"))
    ap.add_argument("--pypy", metavar="EXE", default=None,
                    help="a PyPy to measure beside this interpreter (default: pypy3 on PATH)")
    ap.add_argument("--no-pypy", action="store_true", help="measure this interpreter only")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from goals import at_least, not_judged
    goal = (f"forwards >= {GOAL_RATE:,} frames/s with none lost (10 x the ~830 full-size frames/s "
            f"of the paper's 10 Mb/s access link)")
    if os.geteuid() != 0:
        print("bench_switch_process: needs root (AF_PACKET sockets, ip netns)")
        not_judged(goal, "not root")
        return 77
    runs = interpreters(None if args.no_pypy else args.pypy)
    if args.no_pypy:
        runs = runs[:1]
    results = [(label, measure(exe, args)) for label, exe in runs]
    print(f"command: sudo {sys.executable} bench/bench_switch_process.py --frames {args.frames} "
          f"--pings {args.pings} --json {args.json}" + (" --no-pypy" if args.no_pypy else ""))
    print(f"rdtcp-switch under each interpreter; {args.pings} single frames h0 -> switch -> h1, "
          f"then {args.frames} {len(FRAME)}-byte frames with {WINDOW} in flight")
    print(f"{'interpreter':<28} {'start-up':>9} {'RTT median':>11} {'RTT p99':>9} "
          f"{'forwarded':>10} {'lost':>5} {'frames/s':>9}")
    for label, r in results:
        print(f"{label:<28} {r['startup_ms']:>6.0f} ms {r['rtt_median_us']:>8.0f} us "
              f"{r['rtt_p99_us']:>6.0f} us {r['forwarded']:>10} {r['lost']:>5} {r['rate']:>9,.0f}")
    if len(results) == 1:
        print("(no pypy3 on PATH: apt-get install pypy3 to measure it beside CPython)")
    for label, r in results:
        at_least(f"{goal}, {label}", r["rate"] if not r["lost"] else 0, GOAL_RATE,
                 f"{r['rate']:,.0f} frames/s, {r['lost']} lost")
    return 0


if __name__ == "__main__":
    sys.exit(main())
