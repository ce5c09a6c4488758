#!/usr/bin/env python3
"""Benchmark of the RD-TCP gateway program on the embedded target in library mode.

Figures:
  1. packets/s through p4src/rdtcp.p4 with no EPDN entry active (plain forwarding of TCP data),
     and with active entries (every forwarded segment finds its flow's entry and is stamped);
     goal >= 50,000 per core;
  2. register bytes per EPDN entry, read from the compiled JSON (goal <= 12; paper §3.2: 16);
  3. the fraction of drop reports lost when N concurrent flows (default 10,000) each have a
     dropped segment pending: every flow drops one segment, then sends one more; a report is
     lost when that segment leaves without its flow's range (slot evicted by a collision).
     Printed beside the expectation for n flows hashed uniformly into m slots with newest-wins
     eviction: the surviving reports are the occupied slots, m(1 - (1 - 1/m)^n), so the lost
     fraction is 1 - m(1 - (1 - 1/m)^n)/n (7.2 % for 10,000 flows in 65,536 slots).

    python bench/bench_gateway.py [--packets 20000] [--repeat 5] [--flows 10000] [--payload 1448]
                                  [--entries 65536 | --json build/rdtcp.json] [--python pypy3]
    python bench/bench_gateway.py --instructions     # CPU instructions/packet (valgrind), both figures

The embedded target is pure Python: the rates depend on the interpreter. ``--python pypy3``
runs the same figures again under PyPy (the interpreter the experiments' workers use), on the
JSON compiled here; the script itself needs no Scapy, so it runs there unchanged.

Packet rates are measured ``--repeat`` times on fresh switches; the median and the best are
printed (the best is the usual figure of merit on a shared machine: other load only slows a
run down, as timeit's documentation argues). ``--instructions`` counts CPU instructions per
packet with cachegrind instead: deterministic, so two versions of the target compare exactly
whatever else runs on the machine.

Goals and the figures last measured: bench/README.md.
"""

from __future__ import annotations

import argparse
import platform
import random
import struct
import sys
import time
from statistics import median
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from goals import at_least, at_most  # noqa: E402  (bench/, this script's folder)
from controller import Controller, EmbeddedDriver  # noqa: E402
from controller import names as n  # noqa: E402

# port 1: the hosts' edge port, whose senders 10.1.0.x the source check allows
HOSTS_PORT = {"edge": True, "sources": ["10.0.0.0/8"]}
CONFIG = {
    "routes": [{"prefix": "10.0.0.0/8", "port": 2, "next_hop_mac": "02:00:00:00:02:02"}],
    "ports": {"1": HOSTS_PORT, "2": {"mtu": 1500}},
}
EPDN_OPTION_PREFIX = b"\xfd\x0c\x52\x44"


def load(args) -> tuple[dict, object]:
    import json
    from toolchain.switch import load_program
    if args.json:
        program_json = json.loads(Path(args.json).read_text())
    else:
        from toolchain.compiler import compile_file
        defines = {"EPDN_ENTRIES": str(args.entries)} if args.entries else {}
        program_json = compile_file(str(ROOT / "p4src" / "rdtcp.p4"), defines=defines)
    return program_json, load_program(program_json)


def segment_factory(payload_len: int):
    """frame(src_ip, sport, seq) -> bytes: a TCP data segment 10.x -> 10.2.0.1:80 into port 1,
    both checksums valid (the gateway verifies the IPv4 header's, RFC 1812 §5.2.2: a workload of
    bad frames would measure the drop path). Plain struct, no Scapy, so the script also runs
    under PyPy."""
    from netbase.checksum import internet_checksum
    eth = bytes.fromhex("020000000101" "00000000000a" "0800")
    payload = bytes(payload_len)

    def frame(src_ip: int, sport: int, seq: int) -> bytes:
        ip = bytearray(struct.pack("!BBHHHBBHII", 0x45, 0, 40 + payload_len, 1, 0, 64, 6, 0,
                                   src_ip, 0x0A020001))
        struct.pack_into("!H", ip, 10, internet_checksum(bytes(ip)))
        tcp = bytearray(struct.pack("!HHIIBBHHH", sport, 80, seq, 1, 5 << 4, 0x10, 65535, 0, 0))
        pseudo = bytes(ip[12:20]) + struct.pack("!BBH", 0, 6, 20 + payload_len)
        struct.pack_into("!H", tcp, 16, internet_checksum(pseudo + bytes(tcp) + payload))
        return eth + bytes(ip) + bytes(tcp) + payload
    return frame


def new_switch(program, cfg: dict):
    from toolchain.switch import SimpleSwitch
    sw = SimpleSwitch(program, seed=1)
    ctl = Controller(EmbeddedDriver(sw))
    ctl.apply(cfg)
    return sw, ctl


def pps_plain(program, frame, packets: int) -> float:
    sw, _, frames = workload(program, frame, "plain", packets)
    t0 = time.perf_counter()
    forwarded = sum(len(sw.process(1, f)) for f in frames)
    rate = packets / (time.perf_counter() - t0)
    if forwarded != packets:
        raise SystemExit(f"bench: {packets - forwarded} of {packets} frames were not forwarded "
                         "(the workload, not the gateway, is wrong)")
    return rate


def pps_stamping(program, frame, packets: int) -> tuple[float, int]:
    """Every other data segment dropped (pattern "D."), so every forwarded one is stamped."""
    sw, ctl, frames = workload(program, frame, "stamping", packets)
    t0 = time.perf_counter()
    for f in frames:
        sw.process(1, f)
    elapsed = time.perf_counter() - t0
    report = ctl.report(ports=[])
    stamps = report["epdn_events"]["stamp"]["packets"]
    check_workload(report, expect_stamps=packets // 2)
    return packets / elapsed, stamps


def check_workload(report: dict, *, expect_stamps: int) -> None:
    """The figure measures what it says: no frame refused, every forwarded one stamped."""
    refused = {cause: v["packets"] for cause, v in report["drops"].items()
               if cause != "pattern" and v["packets"]}
    stamps = report["epdn_events"]["stamp"]["packets"]
    if refused or stamps != expect_stamps:
        raise SystemExit(f"bench: workload broken: drops {refused}, {stamps} stamps "
                         f"(expected {expect_stamps})")


def bytes_per_entry(program_json: dict) -> float:
    widths = {r["name"]: r["bitwidth"] for r in program_json["register_arrays"]}
    return sum(widths[name] for name in (n.REG_EPDN_FP, n.REG_EPDN_LO, n.REG_EPDN_HI)) / 8


def expected_lost_fraction(flows: int, slots: int) -> float:
    """Newest wins: one report survives per occupied slot (balls into bins)."""
    occupied = slots * (1 - (1 - 1 / slots) ** flows)
    return 1 - occupied / flows


def lost_reports(program, frame, flows: int, seed: int) -> tuple[float, dict]:
    """Each of ``flows`` flows drops one segment, then sends one; count those left unstamped."""
    rng = random.Random(seed)
    keys = set()
    while len(keys) < flows:
        keys.add((0x0A000000 | rng.getrandbits(24), rng.randrange(1024, 65536)))
    keys = sorted(keys)
    sw, ctl = new_switch(program, dict(CONFIG, ports={"2": {"impair": {"drop_prob": 1.0}}}))
    for src, sport in keys:
        sw.process(1, frame(src, sport, 1000))
    ctl.apply(CONFIG)                        # stop dropping; the EPDN table is state, kept
    stamped = 0
    for src, sport in keys:
        for _, out in sw.process(1, frame(src, sport, 1000 + 1460)):
            stamped += out[54:58] == EPDN_OPTION_PREFIX
    return 1 - stamped / flows, ctl.report(ports=[])["epdn_events"]


def workload(program, frame, mode: str, packets: int):
    """(switch, controller, frames) of the plain or the stamping figure."""
    if mode == "plain":
        sw, ctl = new_switch(program, CONFIG)
        return sw, ctl, [frame(0x0A010000 + (i % 256), 1000 + i % 1000, 1 + 1460 * i) for i in range(packets)]
    cfg = dict(CONFIG, ports={"1": HOSTS_PORT, "2": {"mtu": 1500, "impair": {"pattern": "D."}}})
    sw, ctl = new_switch(program, cfg)
    return sw, ctl, [frame(0x0A010000 + (i // 2) % 256, 1000 + (i // 2) % 1000, 1 + 1460 * i)
                for i in range(packets)]


INSTR_SMALL, INSTR_LARGE = 1000, 3000


def count_only(program, frame, mode: str, n: int) -> None:
    """The body that --instructions runs under cachegrind: build INSTR_LARGE frames (so the
    set-up costs the same in both runs), then process() the first n."""
    sw, _, frames = workload(program, frame, mode, INSTR_LARGE)
    for f in frames[:n]:
        sw.process(1, f)


def instructions_per_packet(args, program_json: dict) -> int:
    """CPU instructions per packet, counted by valgrind's cachegrind: the difference between
    runs of INSTR_LARGE and INSTR_SMALL packets over their difference, so start-up, compilation
    and frame building cancel out. Unlike a rate, the count does not depend on other load on
    the machine (hash seed fixed: dict layouts vary the count by ~0.5% otherwise)."""
    import json
    import os
    import re
    import shutil
    import subprocess
    import tempfile
    if not shutil.which("valgrind"):
        raise SystemExit("bench: --instructions needs valgrind (apt-get install valgrind)")
    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rdtcp.json"
        path.write_text(json.dumps(program_json))
        for mode in ("plain", "stamping"):
            for n in (INSTR_SMALL, INSTR_LARGE):
                cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                       sys.executable, str(Path(__file__).resolve()), "--json", str(path),
                       "--payload", str(args.payload), "--count-only", mode, str(n)]
                r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800,
                                   env=dict(os.environ, PYTHONHASHSEED="0"))
                m = re.search(r"I\s+refs:\s+([\d,]+)", r.stderr)
                if r.returncode or not m:
                    raise SystemExit(f"bench: cachegrind run failed: {r.stderr[-500:]}")
                counts[mode, n] = int(m.group(1).replace(",", ""))
    for mode in ("plain", "stamping"):
        per = (counts[mode, INSTR_LARGE] - counts[mode, INSTR_SMALL]) // (INSTR_LARGE - INSTR_SMALL)
        print(f"instructions/packet, {mode:8s} (cachegrind, process()): {per:10,d}")
    return 0


def run_under(args, program_json: dict) -> int:
    """The same figures under ``args.python``, on the JSON compiled by this interpreter."""
    import json
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rdtcp.json"
        path.write_text(json.dumps(program_json))
        cmd = [args.python, str(Path(__file__).resolve()), "--json", str(path),
               "--packets", str(args.packets), "--repeat", str(args.repeat),
               "--flows", str(args.flows), "--payload", str(args.payload),
               "--seed", str(args.seed)]
        print()
        try:
            return subprocess.run(cmd, cwd=ROOT, timeout=1800).returncode
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"bench: cannot run under {args.python}: {e}", file=sys.stderr)
            return 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--packets", type=int, default=20000)
    ap.add_argument("--flows", type=int, default=10000)
    # 1448 = the MSS of RD-TCP endpoints (1460 - 12, docs/architecture.md §4): a 1460-byte segment fills the
    # 1500-byte MTU, so the MTU rule defers every stamp and the figures would measure nothing
    ap.add_argument("--payload", type=int, default=1448,
                    help="TCP payload bytes per segment (default 1448, RD-TCP's MSS)")
    ap.add_argument("--json", help="BMv2 JSON to run (default: compile p4src/rdtcp.p4)")
    ap.add_argument("--entries", type=int, default=None,
                    help="compile with -D EPDN_ENTRIES=N (default: the program's 65536)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5, help="runs per packet-rate figure (default 5)")
    ap.add_argument("--python", metavar="PATH",
                    help="also run the figures under this interpreter (e.g. pypy3)")
    ap.add_argument("--instructions", action="store_true",
                    help="print CPU instructions per packet counted by valgrind (independent of "
                         "machine load) instead of the figures")
    ap.add_argument("--count-only", nargs=2, metavar=("MODE", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.entries is not None and (args.json or args.entries < 1):
        ap.error("--entries needs a positive count and no --json (it recompiles the program)")
    if args.count_only:
        mode, count = args.count_only
        if mode not in ("plain", "stamping") or not count.isdigit():
            ap.error("--count-only MODE N: MODE plain or stamping, N a packet count")
        program_json, program = load(args)
        count_only(program, segment_factory(args.payload), mode, int(count))
        return 0
    print("command: " + " ".join([Path(sys.executable).name] + sys.argv))
    print(f"interpreter: {platform.python_implementation()} {platform.python_version()}")

    program_json, program = load(args)
    if args.instructions:
        return instructions_per_packet(args, program_json)
    entries = next(r["size"] for r in program_json["register_arrays"] if r["name"] == n.REG_EPDN_FP)
    frame = segment_factory(args.payload)
    repeat = max(1, args.repeat)
    plain = sorted(pps_plain(program, frame, args.packets) for _ in range(repeat))
    stamped_runs = [pps_stamping(program, frame, args.packets) for _ in range(repeat)]
    stamping = sorted(pps for pps, _ in stamped_runs)
    stamps = stamped_runs[0][1]
    per_entry = bytes_per_entry(program_json)
    lost, events = lost_reports(program, frame, args.flows, args.seed)

    expected = expected_lost_fraction(args.flows, entries)
    print(f"gateway pkt/s, no active EPDN entry    : {median(plain):10,.0f} median, "
          f"{plain[-1]:,.0f} best of {repeat}")
    print(f"gateway pkt/s, drop + stamp alternating: {median(stamping):10,.0f} median, "
          f"{stamping[-1]:,.0f} best of {repeat}  ({stamps} stamps per run: every forwarded "
          f"segment finds its flow's entry)")
    print(f"register bytes per EPDN entry          : {per_entry:10.1f}  (paper 16)")
    print(f"EPDN table                             : {entries} entries = "
          f"{entries * per_entry / 1024:,.0f} KiB")
    print(f"lost drop reports, {args.flows:,} flows   : {lost:10.2%}  (expected {expected:.2%} for "
          f"{entries} slots; collisions {events['collision']['packets']}, "
          f"stamps {events['stamp']['packets']})")
    at_least(f"the gateway forwards >= 50,000 pkt/s per core ({platform.python_implementation()})",
             plain[-1], 50_000, f"best {plain[-1]:,.0f}, stamping {stamping[-1]:,.0f}")
    at_most("<= 12 register bytes per EPDN entry ([RDTCP] §3.2: 16)", per_entry, 12,
            f"{per_entry:.1f}")
    if args.python:
        return run_under(args, program_json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
