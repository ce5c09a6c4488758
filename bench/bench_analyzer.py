"""Benchmark of the trace analyzer (analyzer/, seed 004 ch. 3): frames per second through
``analyzer.analyze_file``, with and without the per-segment CSV.

    python bench/bench_analyzer.py                     # simulate a 120 s RD-TCP run (15 swaps/s)
                                                       # captured at A, then analyse it
    python bench/bench_analyzer.py --trace run/sender.pcap [--vantage path]
    python bench/bench_analyzer.py --duration 600      # a longer trace (~0.45 M frames)
    python bench/bench_analyzer.py --python /usr/bin/pypy3   # also time under another
                                                       # interpreter (a subprocess)

The trace is made once (experiments.one_run --pcap a into a temporary directory) unless
--trace names one; each figure is the best of --repeat passes (wall clock, this process).

Measured 2026-11-23 (helper; shared 2-core machine):
  python bench/bench_analyzer.py --duration 120 --repeat 2 --python /usr/bin/pypy3
      (load average ~1.7) 88,750 frames, 44,426 data segments, 1 flow:
      CPython 3.11: 61,152 frames/s, with CSV 46,161 frames/s
      PyPy 3.9:    275,096 frames/s, with CSV 174,326 frames/s
  python bench/bench_analyzer.py --duration 600 --python /usr/bin/pypy3
      (load average 2.5-4 from other jobs) 433,740 frames, 216,910 data segments, 1 flow:
      CPython 3.11: 34,623 frames/s, with CSV 28,976 frames/s
      PyPy 3.9:    223,738 frames/s, with CSV 135,910 frames/s
  So a 10^6-frame trace takes 15-30 s on CPython and 4-8 s on PyPy (``pypy3 -m analyzer``);
  memory stays flat (the window's records and recent resends only:
  tests/analyzer/test_analyzer_memory.py).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from analyzer import AnalyzerConfig, CsvSink, analyze_file  # noqa: E402


def make_trace(out: str, duration: float, variant: str) -> str:
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trace", help="analyse this pcap instead of simulating one")
    p.add_argument("--vantage", choices=("sender", "path"), default="sender")
    p.add_argument("--duration", type=float, default=120.0,
                   help="virtual seconds of the simulated trace (default: 120)")
    p.add_argument("--variant", default="rdtcp", help="sender of the simulated trace")
    p.add_argument("--repeat", type=int, default=3, help="passes; the best counts")
    p.add_argument("--python", help="also time under this interpreter (e.g. /usr/bin/pypy3)")
    args = p.parse_args(argv)
    given = list(argv if argv is not None else sys.argv[1:])
    print(f"command: python {' '.join([sys.argv[0]] + given)}")
    with tempfile.TemporaryDirectory() as tmp:
        trace = args.trace or make_trace(tmp, args.duration, args.variant)
        config = AnalyzerConfig(vantage=args.vantage)
        report = analyze_file(trace, config)
        data = sum(f["data_segments"] for f in report["flows"])
        print(f"trace: {report['frames']:,} frames, {data:,} data segments, "
              f"{len(report['flows'])} flow(s) that sent data")
        for csv in (False, True):
            frames, secs = best_rate(trace, config, args.repeat, csv)
            what = "analysis + CSV" if csv else "analysis     "
            print(f"{sys.implementation.name:8s} {what}: {frames:,} frames in {secs:6.2f} s = "
                  f"{frames / secs:9,.0f} frames/s (best of {args.repeat})")
        if args.python:
            cmd = [args.python, os.path.abspath(__file__), "--trace", trace, "--vantage",
                   args.vantage, "--repeat", str(args.repeat)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            lines = [ln for ln in out.stdout.splitlines() if "frames/s" in ln]
            print("\n".join(lines) if out.returncode == 0 and lines
                  else f"{args.python}: failed: {out.stderr.strip()[-500:]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
