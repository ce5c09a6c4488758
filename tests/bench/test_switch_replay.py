"""bench/bench_switch_process.py --replay: frames through the switch process's loop in the
bench's own process, the CPU a frame, and its cProfile on CPU time."""

from __future__ import annotations

import os
import pstats
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.serial,
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root (veth pairs, AF_PACKET)")]


def test_replay_forwards_every_frame_and_writes_a_profile(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_switch_process.py"),
                           "--replay", "256", "--profile", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    m = re.search(r"replay, cpython \S+: ([\d,]+) of 256 frames forwarded; CPU a frame "
                  r"([\d.]+) us", proc.stdout)
    assert m and int(m.group(1).replace(",", "")) >= 256 and float(m.group(2)) > 0, proc.stdout
    prof = next(tmp_path.glob("replay-cpython-*.prof"))
    stats = pstats.Stats(str(prof)).stats
    # the loop's per-frame path is in it, once a frame at least
    calls = {func: nc for (_f, _l, func), (_cc, nc, *_rest) in stats.items()}
    assert calls.get("receive", 0) >= 256 and calls.get("_receive", 0) >= 1
