"""Benchmarks of the trace analyzer (analyzer/, [TCPDEBUG] ch. 3), through its command line.

    python bench/bench_analyzer.py                       # both benchmarks below
    python bench/bench_analyzer.py --many 100000         # many short connections only
    python bench/bench_analyzer.py --long 120            # one long connection only
    python bench/bench_analyzer.py --trace run/sender.pcap [--vantage path]
    python bench/bench_analyzer.py --python /usr/bin/pypy3   # the same under another interpreter

*Many connections*: a header-only trace (snap length 54, as TCPdebug's traces were) of N
two-packet connections, a 1000-byte data segment and its ACK, one connection a millisecond,
from 100,000 client ports; 100,000 of them make a 14 MB trace. What grows with the number of
connections: the analyzer's per-connection state, the time per connection, the --json and the
text report. ``python -m analyzer TRACE --json F --csv F`` runs as a child process, so its peak
RSS is its own (``resource.getrusage(RUSAGE_CHILDREN)``); its CPU time is reported beside the
wall clock, which a loaded machine stretches.

*One long connection*: a simulated RD-TCP transfer with queue swaps captured at A
(``experiments.one_run --pcap a``), analysed in this process: frames per second, with and
without the per-segment CSV.

Figures, with their commands: bench/README.md, "bench_analyzer.py".
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from analyzer import AnalyzerConfig, CsvSink, analyze_file  # noqa: E402
from goals import at_most, not_judged  # noqa: E402  (bench/, this script's folder)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNAPLEN = 54                    # Ethernet + IPv4 + TCP headers without options
PAYLOAD = 1000
GOAL_CONNECTIONS = 100_000       # the goal's trace (bench/README.md)


def many_connections_trace(path: str, connections: int) -> int:
    """Write the header-only trace of ``connections`` two-packet connections (a data segment
    and its ACK 0.5 ms later, one connection a millisecond); returns its size in bytes."""
    from netbase.pcap import PcapWriter
    from netbase.segment import ACK, PSH, Segment
    from netbase.wire import FrameEncoder

    server = "10.0.0.1"
    macs = dict(src_mac="00:00:00:00:00:01", dst_mac="00:00:00:00:00:02")
    payload = bytes(PAYLOAD)
    with PcapWriter(path, snaplen=SNAPLEN) as w:
        encoders = {}
        for i in range(connections):
            client = f"11.0.{i // 50000}.1"
            if client not in encoders:
                encoders[client] = (FrameEncoder(src_ip=client, dst_ip=server, **macs),
                                    FrameEncoder(src_ip=server, dst_ip=client, **macs))
            up, down = encoders[client]
            port = 1024 + i % 50000
            seq = (i * 7919) & 0xFFFFFFFF
            t = i * 0.001
            w.write(t, up.encode(Segment(port, 80, seq, 1, ACK | PSH, 65535, (), payload)))
            w.write(t + 0.0005, down.encode(Segment(80, port, 1, (seq + PAYLOAD) & 0xFFFFFFFF,
                                                    ACK, 65535)))
    return os.path.getsize(path)


def bench_many(connections: int, python: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "many.pcap")
        size = many_connections_trace(trace, connections)
        out = {k: os.path.join(tmp, f"out.{k}") for k in ("json", "csv", "txt")}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        with open(out["txt"], "w") as text:
            proc = subprocess.run([python, "-m", "analyzer", trace, "--json", out["json"],
                                   "--csv", out["csv"]], cwd=REPO, stdout=text,
                                  stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode:
            raise SystemExit(f"error: the analyzer failed: {proc.stderr.strip()}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        sizes = {k: os.path.getsize(p) for k, p in out.items()}
        print(f"many connections: {size:,}-byte trace, {2 * connections:,} frames, "
              f"{connections:,} connections ({os.path.basename(python)})")
        print(f"  {wall:.2f} s wall, {cpu:.2f} s CPU; peak RSS {after.ru_maxrss / 1024:,.0f} MB")
        print(f"  --json {sizes['json']:,} bytes ({sizes['json'] / connections:,.0f} a flow), "
              f"--csv {sizes['csv']:,} bytes, text {sizes['txt']:,} bytes")
        goal = f"{GOAL_CONNECTIONS:,} connections in < 10 s and < 300 MB"
        if connections != GOAL_CONNECTIONS:
            not_judged(goal, f"this trace has {connections:,}")
            return
        rss = after.ru_maxrss / 1024
        who = os.path.basename(python)
        at_most(f"{goal}: time ({who})", wall, 10.0,
                f"{wall:.1f} s wall, {cpu:.1f} s CPU: load on the machine stretches the wall")
        at_most(f"{goal}: memory ({who})", rss, 300, f"peak RSS {rss:,.0f} MB")


def make_long_trace(out: str, duration: float, variant: str) -> str:
    from experiments.one_run import main as one_run
    with contextlib.redirect_stdout(io.StringIO()):
        code = one_run(["--variant", variant, "--swaps", "15", "--duration", str(duration),
                        "--pcap", "a", "--out", out])
    if code:
        raise SystemExit(f"error: experiments.one_run failed with status {code}")
    return os.path.join(out, "sender.pcap")


def best_rate(trace: str, config: AnalyzerConfig, repeat: int, csv: bool) -> tuple[int, float]:
    best = None
    frames = 0
    for _ in range(repeat):
        with tempfile.TemporaryFile("w+") as f:
            sink = CsvSink(f, config.profiles) if csv else None
            t0 = time.perf_counter()
            report = analyze_file(trace, config, on_record=sink)
            secs = time.perf_counter() - t0
        frames = report["frames"]
        best = secs if best is None else min(best, secs)
    return frames, best


def bench_long(trace: str | None, duration: float, variant: str, vantage: str, repeat: int,
               python: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        trace = trace or make_long_trace(tmp, duration, variant)
        config = AnalyzerConfig(vantage=vantage)
        report = analyze_file(trace, config)
        data = sum(f["data_segments"] for f in report["flows"])
        print(f"long connection: {report['frames']:,} frames, {data:,} data segments, "
              f"{len(report['flows'])} flow(s) that sent data")
        for csv in (False, True):
            frames, secs = best_rate(trace, config, repeat, csv)
            what = "analysis + CSV" if csv else "analysis     "
            print(f"  {sys.implementation.name:8s} {what}: {frames:,} frames in {secs:6.2f} s = "
                  f"{frames / secs:9,.0f} frames/s (best of {repeat})")
        if python:
            cmd = [python, os.path.abspath(__file__), "--trace", trace, "--vantage", vantage,
                   "--repeat", str(repeat)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            lines = [ln for ln in out.stdout.splitlines() if "frames/s" in ln]
            print("\n".join(lines) if out.returncode == 0 and lines
                  else f"  {python}: failed: {out.stderr.strip()[-500:]}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--many", type=int, metavar="N",
                   help="only the many-connections benchmark, with N connections")
    p.add_argument("--long", type=float, metavar="SECONDS",
                   help="only the long-connection benchmark, simulating SECONDS")
    p.add_argument("--trace", help="time this pcap instead of simulating the long connection")
    p.add_argument("--vantage", choices=("sender", "path"), default="sender")
    p.add_argument("--variant", default="rdtcp", help="sender of the simulated trace")
    p.add_argument("--repeat", type=int, default=3, help="passes; the best counts")
    p.add_argument("--python", help="also time under this interpreter (e.g. /usr/bin/pypy3)")
    args = p.parse_args(argv)
    given = list(argv if argv is not None else sys.argv[1:])
    print(f"command: python {' '.join([sys.argv[0]] + given)}")
    only_one = args.many is not None or args.long is not None or args.trace
    if args.many is not None or not only_one:
        n = args.many if args.many is not None else 100_000
        for python in [sys.executable] + ([args.python] if args.python else []):
            bench_many(n, python)
    if args.long is not None or args.trace or not only_one:
        bench_long(args.trace, args.long or 120.0, args.variant, args.vantage, args.repeat,
                   args.python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
