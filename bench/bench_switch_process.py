"""Benchmark of the switch process (rdtcp-switch) on veth pairs: start-up time to the readiness
line, one-frame round-trip latency through the switch, the rate with a window of frames in
flight, and the forwarding rate under overload; under CPython and under PyPy (``pypy3`` on
PATH), beside simple_switch when it is on PATH.

    sudo python bench/bench_switch_process.py [--frames 20000] [--seconds 10]
        [--json tests/data/p4-kit/lpm_forward.json] [--pypy EXE | --no-pypy] [--simple-switch EXE]
        [--profile DIR]                 # each rdtcp-switch under cProfile
    sudo python bench/bench_switch_process.py --replay 20000 [--profile DIR]
                                        # the loop's per-frame path in this process: CPU a frame

Program: the kit's lpm_forward (LPM table, MAC rewrite, TTL, IPv4 checksum), configured with
simple_switch_CLI over Thrift. Frames enter port 0 and leave port 1. Overload: 1,500-byte TCP
frames sent into port 0 as fast as the sender goes (``tcpreplay --topspeed`` when it is on PATH,
else a sending process of this interpreter) for ``--seconds``; the rate is what leaves port 1
(the receiving veth's counter), and per switch CPU-second (the process's user + system time
over the same window, from /proc; "kernel": the system time's share): on a machine shared
with other work the second figure is what the switch itself costs. Needs root and iproute2; creates and removes its own namespace
and veths.
"""

from __future__ import annotations

import argparse
import os
import selectors
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
READY = "Control server was started on "
FRAME = bytes.fromhex("0000000000AA00000000000108004500002D00070000400665BF0A0000010A00010504D20050"
                      "000003E800000000501020002DEE000068656C6C6F")
WINDOW = 32
GOAL_RATE = 8_300           # frames/s: 10 x the paper's 10 Mb/s access link in full-size frames
# simple_switch 1.15.5 built -O3 without logging, overloaded the same way on this project's
# 2-core machine: 33,465-36,325 frames/s; the goals compare with it when no simple_switch runs
SIMPLE_SWITCH_REFERENCE = 33_465
GOAL_PYPY, GOAL_CPYTHON = 5.0, 2.5      # x simple_switch under overload
COMMANDS = "table_add KitIngress.ipv4_lpm KitIngress.forward 10.0.1.0/24 => 1 00:00:00:00:00:b1\n"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def sh(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, timeout=30)


def raw(ifname: str) -> socket.socket:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)    # nothing until bound
    s.bind((ifname, 3))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    return s


def full_frame(size: int = 1500) -> bytes:
    """An Ethernet + IPv4 + TCP frame of ``size`` bytes to 10.0.1.5 (the table's /24), its IPv4
    checksum right (the program verifies and updates it)."""
    from netbase.checksum import internet_checksum
    ip = bytearray(FRAME[14:34])
    struct.pack_into("!H", ip, 2, size - 14)
    struct.pack_into("!H", ip, 10, 0)
    struct.pack_into("!H", ip, 10, internet_checksum(bytes(ip)))
    tcp = FRAME[34:54]
    return FRAME[:14] + bytes(ip) + tcp + bytes(size - 54)


def wait_ready(proc: subprocess.Popen, timeout: float = 120.0) -> tuple[int, str]:
    """The Thrift port from the readiness line, and the interpreter line that follows it
    (empty when none comes within a few seconds)."""
    sel = selectors.DefaultSelector()
    fd = proc.stdout.fileno()
    sel.register(fd, selectors.EVENT_READ)
    buf = b""
    port = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and sel.select(deadline - time.monotonic()):
        data = os.read(fd, 4096)
        if not data:
            break
        buf += data
        lines = buf.decode().splitlines(keepends=True)
        for i, line in enumerate(lines):
            if line.startswith(READY) and line.endswith("\n"):
                port = int(line.rsplit(":", 1)[1])
                if i + 1 < len(lines) and lines[i + 1].endswith("\n"):
                    return port, lines[i + 1].strip()
                deadline = min(deadline, time.monotonic() + 5.0)
    if port is not None:
        return port, ""
    raise SystemExit(f"switch not ready: {buf.decode()} {proc.stderr.read().decode()}")


def wait_port(ns: str, port: int, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    """simple_switch prints no readiness line: its Thrift port accepting says it."""
    deadline = time.monotonic() + timeout
    probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), 1).close()"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"simple_switch exited: {proc.stderr.read().decode()}")
        if subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", probe],
                          capture_output=True).returncode == 0:
            return
        time.sleep(0.2)
    raise SystemExit("simple_switch's Thrift port did not open")


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
    out = [(f"rdtcp-switch, CPython {sys.version.split()[0]}", sys.executable)]
    exe = pypy if pypy is not None else shutil.which("pypy3")
    if exe:
        version = subprocess.run([exe, "-c", "import sys; print(sys.version.split()[0])"],
                                 capture_output=True, text=True, timeout=120).stdout.strip()
        out.append((f"rdtcp-switch, PyPy {version or '?'}", exe))
    return out


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system time of process ``pid`` so far (/proc/<pid>/stat, fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def rx_packets(ifname: str) -> int:
    with open(f"/sys/class/net/{ifname}/statistics/rx_packets") as f:
        return int(f.read())


def overload(args, h0: str, h1: str, pid: int, pcap: str) -> dict:
    """Frames into h0 as fast as the sender goes; what leaves the switch into h1 over
    ``args.seconds`` after one second of warm-up, and the switch's CPU time meanwhile."""
    tcpreplay = shutil.which("tcpreplay")
    if tcpreplay:
        sender = subprocess.Popen([tcpreplay, "-q", "-i", h0, "--topspeed", "-K", "--loop=0",
                                   f"--duration={int(args.seconds) + 2}", pcap],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        code = ("import socket, sys, time\n"
                "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0); s.bind((sys.argv[1], 0))\n"
                "f = bytes.fromhex(sys.argv[2]); end = time.monotonic() + float(sys.argv[3])\n"
                "while time.monotonic() < end:\n"
                "    for _ in range(256):\n"
                "        try: s.send(f)\n"
                "        except OSError: pass\n")
        sender = subprocess.Popen([sys.executable, "-c", code, h0, full_frame().hex(),
                                   str(args.seconds + 2)])
    try:
        time.sleep(1.0)
        n0, c0, t0 = rx_packets(h1), cpu_seconds(pid), time.monotonic()
        time.sleep(args.seconds)
        n1, c1, t1 = rx_packets(h1), cpu_seconds(pid), time.monotonic()
    finally:
        sender.kill()
        sender.wait()
    n, user, system = n1 - n0, c1[0] - c0[0], c1[1] - c0[1]
    cpu = user + system
    return {"over_rate": n / (t1 - t0), "over_cpu_rate": n / cpu if cpu else 0.0,
            "over_cpu_share": cpu / (t1 - t0), "over_sys_share": system / cpu if cpu else 0.0,
            "sender": "tcpreplay" if tcpreplay else "python"}


def measure(label: str, argv: list[str], args: argparse.Namespace, pcap: str,
            thrift_port: int | None = None) -> dict:
    """Start the switch (``argv`` without interfaces and JSON) in a namespace of its own,
    configure it with simple_switch_CLI over Thrift, measure; everything made is removed."""
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
        proc = subprocess.Popen(["ip", "netns", "exec", ns, *argv, "-i", "0@sw0", "-i", "1@sw1",
                                 *(["--thrift-port", str(thrift_port)] if thrift_port else
                                   ["--thrift-port", "0"]), args.json],
                                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                bufsize=0)
        interpreter = ""
        if thrift_port:
            wait_port(ns, thrift_port, proc)
            port = thrift_port
        else:
            port, interpreter = wait_ready(proc)
        startup = time.perf_counter() - t0
        cli = subprocess.run(["ip", "netns", "exec", ns, str(Path(sys.executable).parent / "simple_switch_CLI"),
                              "--thrift-port", str(port)], cwd=ROOT, input=COMMANDS, capture_output=True, text=True)
        assert cli.returncode == 0, cli.stdout + cli.stderr
        tx, rx = raw(h0), raw(h1)
        rtts = []
        for _ in range(args.pings):
            t = time.perf_counter()
            tx.send(FRAME)
            if recv_forwarded(rx, 5.0) is None:
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
        tx.close()
        rx.close()
        over = overload(args, h0, h1, proc.pid, pcap) if args.seconds > 0 else {}
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
        subprocess.run(["ip", "link", "del", h0], capture_output=True)
        subprocess.run(["ip", "link", "del", h1], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    rtts.sort()
    return {"label": label, "interpreter": interpreter, "startup_ms": startup * 1000,
            "rtt_median_us": statistics.median(rtts) * 1e6,
            "rtt_p99_us": rtts[int(len(rtts) * 0.99) - 1] * 1e6, "forwarded": got, "lost": lost,
            "rate": got / elapsed, **over}


def replay(args) -> int:
    """``--replay N``: N full-size frames through ``SwitchProcess`` on ``RawPort``s over two
    veth pairs in this process and this interpreter (no Thrift server: the per-frame path
    alone), in bursts of 64 sent into port 0 and read back from port 1 by this thread, after
    2,000 frames of warm-up (PyPy's JIT); prints the CPU time a frame, user and system, the
    harness's own send and receive included. With ``--profile DIR``: a cProfile of the N
    frames on CPU time, DIR/replay-<interpreter>.prof."""
    import cProfile
    from netbase.packet_socket import RawPort
    from toolchain.switch.bm_sim.json_loader import load_program
    from toolchain.switch.process.main import SwitchProcess
    from toolchain.switch.runtime import Runtime
    from toolchain.switch.runtime_cli import RuntimeCLI
    from toolchain.switch.simple_switch.switch import SimpleSwitch
    tag = f"{os.getpid() % 100000}"
    pairs = [(f"rr{tag}h{i}", f"rr{tag}s{i}") for i in (0, 1)]
    try:
        for h, s in pairs:
            sh("ip", "link", "add", h, "type", "veth", "peer", "name", s)
            for x in (h, s):
                subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{x}.disable_ipv6=1"],
                               capture_output=True)
                sh("ip", "link", "set", x, "up")
        sw = SimpleSwitch(load_program(args.json))
        RuntimeCLI(Runtime(sw)).run_commands(COMMANDS)
        proc = SwitchProcess(sw, {0: RawPort(0, pairs[0][1]), 1: RawPort(1, pairs[1][1])}, None)
        tx, rx = raw(pairs[0][0]), raw(pairs[1][0])
        rx.setblocking(False)
        frame = full_frame()

        def drain() -> int:
            n = 0
            while True:
                try:
                    _data, addr = rx.recvfrom(65536)
                except BlockingIOError:
                    return n
                n += addr[2] != 4            # not our own outgoing copy

        def run(n: int) -> int:
            got = 0
            for _ in range(0, n, 64):
                for _ in range(64):
                    tx.send(frame)
                want, deadline = got + 64, time.monotonic() + 2.0
                while got < want and time.monotonic() < deadline:
                    proc.turn(max_wait=0.01)
                    got += drain()
            return got

        run(2000)
        prof = None
        if args.profile:
            os.makedirs(args.profile, exist_ok=True)
            # CPU time, not wall: on a shared machine the wall clock counts other processes
            prof = (cProfile.Profile(time.process_time_ns, 1e-9)
                    if sys.implementation.name == "pypy" else cProfile.Profile(time.process_time))
        t0 = os.times()
        if prof:
            prof.enable()
        got = run(args.replay)
        if prof:
            prof.disable()
        t1 = os.times()
    finally:
        for h, _s in pairs:
            subprocess.run(["ip", "link", "del", h], capture_output=True)
    user, system = (t1.user - t0.user) / args.replay, (t1.system - t0.system) / args.replay
    name = f"{sys.implementation.name} {sys.version.split()[0]}"
    print(f"command: sudo {sys.executable} bench/bench_switch_process.py --replay {args.replay}"
          + (f" --profile {args.profile}" if args.profile else ""))
    print(f"replay, {name}: {got:,} of {args.replay:,} frames forwarded; CPU a frame "
          f"{(user + system) * 1e6:.1f} us (user {user * 1e6:.1f}, system {system * 1e6:.1f}), "
          f"the harness's send and receive included; load average {os.getloadavg()[0]:.1f}")
    if prof:
        out = os.path.join(args.profile, f"replay-{name.replace(' ', '-')}.prof")
        prof.dump_stats(out)
        print(f"profile: {out} (python -m pstats {out})")
    return 0


def profiled(directory: str | None, label: str) -> list[str]:
    """The interpreter's arguments that run the switch under cProfile into ``directory``."""
    if directory is None:
        return []
    os.makedirs(directory, exist_ok=True)
    name = label.split(", ")[-1].replace(" ", "-")
    return ["-m", "cProfile", "-o", os.path.join(os.path.abspath(directory), f"{name}.prof")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20000, help="frames of the windowed run")
    ap.add_argument("--pings", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=10.0,
                    help="length of the overload run (0: none; default 10)")
    ap.add_argument("--json", default=str(ROOT / "tests" / "data" / "p4-kit" / "lpm_forward.json"))
    ap.add_argument("--pypy", metavar="EXE", default=None,
                    help="a PyPy to measure beside this interpreter (default: pypy3 on PATH)")
    ap.add_argument("--no-pypy", action="store_true", help="measure this interpreter only")
    ap.add_argument("--profile", metavar="DIR", default=None,
                    help="run each rdtcp-switch under cProfile and write its statistics to "
                         "DIR/<interpreter>.prof at its exit (python -m pstats to read them); "
                         "the rates then include the profiler's cost")
    ap.add_argument("--replay", type=int, metavar="N", default=0,
                    help="instead: N frames through the switch process's loop in this "
                         "process and interpreter, the CPU time a frame (with --profile: its "
                         "cProfile on CPU time)")
    ap.add_argument("--simple-switch", metavar="EXE", default=shutil.which("simple_switch"),
                    help="simple_switch to measure beside rdtcp-switch (default: on PATH)")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from goals import at_least, not_judged
    goal = (f"forwards >= {GOAL_RATE:,} frames/s with none lost (10 x the ~830 full-size frames/s "
            f"of the paper's 10 Mb/s access link)")
    if os.geteuid() != 0:
        print("bench_switch_process: needs root (AF_PACKET sockets, ip netns)")
        not_judged(goal, "not root")
        return 77
    if args.replay:
        return replay(args)
    runs = interpreters(None if args.no_pypy else args.pypy)
    if args.no_pypy:
        runs = runs[:1]
    with tempfile.TemporaryDirectory() as tmp:
        from netbase.pcap import PcapWriter
        pcap = os.path.join(tmp, "frames.pcap")
        w = PcapWriter(pcap)
        for i in range(1000):
            w.write(i * 1e-6, full_frame())
        w.close()
        results = [measure(label, [exe, *profiled(args.profile, label), "-m",
                                   "toolchain.switch.process.main", "--python", "self"],
                           args, pcap) for label, exe in runs]
        if args.simple_switch:
            results.append(measure("simple_switch", [args.simple_switch], args, pcap,
                                   thrift_port=9090))
    print(f"command: sudo {sys.executable} bench/bench_switch_process.py --frames {args.frames} "
          f"--pings {args.pings} --seconds {args.seconds:g} --json {args.json}"
          + (" --no-pypy" if args.no_pypy else "")
          + (f" --simple-switch {args.simple_switch}" if args.simple_switch else ""))
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{args.pings} single frames h0 -> switch -> h1, then {args.frames} {len(FRAME)}-byte "
          f"frames with {WINDOW} in flight, then {args.seconds:g} s of 1,500-byte frames as fast "
          f"as the sender goes (overload: out of port 1 per second, and per switch CPU-second)")
    print(f"{'switch':<30} {'start-up':>9} {'RTT median':>11} {'RTT p99':>9} {'lost':>5} "
          f"{'windowed/s':>10} {'overload/s':>10} {'/CPU-s':>9} {'CPU':>5} {'kernel':>6}")
    for r in results:
        print(f"{r['label']:<30} {r['startup_ms']:>6.0f} ms {r['rtt_median_us']:>8.0f} us "
              f"{r['rtt_p99_us']:>6.0f} us {r['lost']:>5} {r['rate']:>10,.0f} "
              f"{r.get('over_rate', 0):>10,.0f} {r.get('over_cpu_rate', 0):>9,.0f} "
              f"{r.get('over_cpu_share', 0):>5.0%} {r.get('over_sys_share', 0):>6.0%}")
    for r in results:
        if r["interpreter"]:
            print(f"{r['label']}: {r['interpreter']}")
    if results and "sender" in results[0]:
        print(f"overload sender: {results[0]['sender']}")
    if len(runs) == 1 and not args.no_pypy:
        print("(no pypy3 on PATH: apt-get install pypy3 to measure it beside CPython)")
    for r in results:
        if r["label"] != "simple_switch":
            at_least(f"{goal}, {r['label']}", r["rate"] if not r["lost"] else 0, GOAL_RATE,
                     f"{r['rate']:,.0f} frames/s, {r['lost']} lost")
    ss = next((r for r in results if r["label"] == "simple_switch"), None)
    base = ss.get("over_rate") if ss else None
    basis = "simple_switch measured here" if base else \
        f"simple_switch -O3's {SIMPLE_SWITCH_REFERENCE:,} frames/s recorded in bench/README.md"
    base = base or SIMPLE_SWITCH_REFERENCE
    for r in results:
        if r["label"] == "simple_switch":
            continue
        times = GOAL_PYPY if "PyPy" in r["label"] else GOAL_CPYTHON
        text = f"overload >= {times:g} x simple_switch's ({basis}), {r['label']}"
        if "over_rate" not in r:
            not_judged(text, "no overload run (--seconds 0)")
        else:
            at_least(text, r["over_rate"], times * base,
                     f"{r['over_rate']:,.0f} frames/s = {r['over_rate'] / base:.2f} x; "
                     f"{r['over_cpu_rate']:,.0f} per switch CPU-second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
