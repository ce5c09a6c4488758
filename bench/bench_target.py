"""Packets per second through the embedded target in library mode, and JSON load time.

(a) IPv4 LPM forwarder (kit lpm_forward.json: LPM table, TTL, IPv4 checksum), 64-byte frames;
(b) register read-modify-write + hashes (kit flow_hash_register.json) and TCP checksum over a
    1500-byte frame with option insertion (kit epdn_option.json).
Each figure is receive(now)+advance(now) per packet (the simulator's calls) and process().
Real simple_switch is measured too when it is on PATH (not here: it is not installable).

Usage: python bench/bench_target.py [--packets N]

The figures last measured: bench/README.md.
"""

from __future__ import annotations

import argparse
import shutil
import struct
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from goals import at_least  # noqa: E402  (bench/, this script's folder)
from netbase.checksum import internet_checksum  # noqa: E402
from toolchain.switch import SimpleSwitch, load_program  # noqa: E402

KIT = ROOT / "tests" / "data" / "p4-kit"


def ipv4(src: int, dst: int, proto: int, payload: bytes) -> bytes:
    hdr = struct.pack("!BBHHHBBHII", 0x45, 0, 20 + len(payload), 1, 0, 64, proto, 0, src, dst)
    csum = internet_checksum(hdr)
    return hdr[:10] + struct.pack("!H", csum) + hdr[12:] + payload


def eth(payload: bytes, ethertype: int = 0x0800) -> bytes:
    return bytes.fromhex("000000000002000000000001") + struct.pack("!H", ethertype) + payload


def tcp_frame(total_len: int) -> bytes:
    data = bytes(total_len - 14 - 20 - 20)
    tcp = struct.pack("!HHIIBBHHH", 5000, 80, 1000, 1, 0x50, 0x10, 8192, 0, 0) + data
    return eth(ipv4(0x0A000001, 0x0A000102, 6, tcp))


def udp_frame(i: int) -> bytes:
    udp = struct.pack("!HHHH", 1000 + (i % 64), 2000, 8 + 3, 0) + b"abc"
    return eth(ipv4(0x0A000001 + (i % 256), 0x0A000102, 17, udp))


ROUNDS = 3   # the machine is shared: report the best of a few rounds


def measure(sw: SimpleSwitch, frames: list[bytes], n: int) -> tuple[float, float]:
    """(pps via receive+advance, pps via process), best of ROUNDS rounds of n packets each."""
    m = len(frames)
    best_a = best_p = 0.0
    now = 0.0
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for i in range(n):
            now += 1e-6
            sw.receive(0, frames[i % m], now=now)
            sw.advance(now=now)
        t1 = time.perf_counter()
        for i in range(n):
            sw.process(0, frames[i % m], now=now)
        t2 = time.perf_counter()
        best_a, best_p = max(best_a, n / (t1 - t0)), max(best_p, n / (t2 - t1))
    return best_a, best_p


def epdn_with_register() -> dict:
    """epdn_option.json with a per-port packet counter kept in a register by insert_option
    (register_read, add, register_write: what a stateful gateway does per packet)."""
    import json
    prog = json.loads((KIT / "epdn_option.json").read_text())
    prog["register_arrays"] = [{"name": "KitIngress.pkts", "id": 0, "size": 1024, "bitwidth": 32}]
    prog["header_types"][0]["fields"].append(["bench_cnt", 32, False])
    reg = {"type": "register_array", "value": "KitIngress.pkts"}
    idx = {"type": "expression", "value": {"op": "&", "left": {"type": "field", "value": ["tcp", "sport"]},
                                           "right": {"type": "hexstr", "value": "0x3ff"}}}
    cnt = {"type": "field", "value": ["scalars", "bench_cnt"]}
    inc = {"type": "expression", "value": {"op": "&", "left": {"type": "expression", "value": {
        "op": "+", "left": cnt, "right": {"type": "hexstr", "value": "0x1"}}}, "right": {"type": "hexstr", "value": "0xffffffff"}}}
    act = next(a for a in prog["actions"] if a["name"] == "KitIngress.insert_option")
    act["primitives"] += [{"op": "register_read", "parameters": [cnt, reg, idx]},
                          {"op": "assign", "parameters": [cnt, inc]},
                          {"op": "register_write", "parameters": [reg, idx, cnt]}]
    return prog


def load_time(path: Path, reps: int = 5) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        load_program(path)
    return (time.perf_counter() - t0) / reps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--packets", type=int, default=50_000)
    args = ap.parse_args()
    n = args.packets
    print(f"command: python bench/bench_target.py --packets {n}   (best of {ROUNDS} rounds)")
    print(f"python {sys.version.split()[0]}, kit {KIT.resolve()}")

    sw = SimpleSwitch.from_json(KIT / "lpm_forward.json")
    for i in range(256):
        sw.cli(f"table_add ipv4_lpm forward 10.{i}.0.0/16 => {1 + i % 8} 0x0000000000b1")
    sw.cli("table_add ipv4_lpm forward 10.0.1.0/24 => 1 0x0000000000b1")
    frames = [eth(ipv4(0x0A000001, 0x0A000105 + (i << 8), 17, bytes(30))) for i in range(16)]
    a = measure(sw, frames, n)
    print(f"(a) LPM forwarder, 64-byte frames, 257 routes: {a[0]:,.0f} pkt/s receive+advance, "
          f"{a[1]:,.0f} pkt/s process")

    sw = SimpleSwitch.from_json(KIT / "flow_hash_register.json")
    b1 = measure(sw, [udp_frame(i) for i in range(64)], n)
    print(f"(b1) registers + crc16/crc32/csum16/xor16/identity hashes (flow_hash_register): "
          f"{b1[0]:,.0f} pkt/s receive+advance, {b1[1]:,.0f} pkt/s process")

    sw = SimpleSwitch.from_json(KIT / "epdn_option.json")
    sw.cli("table_add stamp insert_option 80 0 => 1000 2448")
    b2 = measure(sw, [tcp_frame(1500)], n)
    print(f"(b2) TCP option insert + IPv4 and TCP checksum over a 1500-byte frame (epdn_option): "
          f"{b2[0]:,.0f} pkt/s receive+advance, {b2[1]:,.0f} pkt/s process")

    sw = SimpleSwitch(load_program(epdn_with_register()))
    sw.cli("table_add stamp insert_option 80 0 => 1000 2448")
    b3 = measure(sw, [tcp_frame(1500)], n)
    print(f"(b) (b2) plus a register read-modify-write per packet: "
          f"{b3[0]:,.0f} pkt/s receive+advance, {b3[1]:,.0f} pkt/s process")
    at_least("(a) the LPM forwarder >= 100,000 pkt/s through process()", a[1], 100_000,
             f"{a[1]:,.0f}")
    at_least("(b) option insert, checksums and a register >= 50,000 pkt/s through process()",
             b3[1], 50_000, f"{b3[1]:,.0f}")

    for name in ("lpm_forward", "epdn_option", "flow_hash_register", "parser_select_verify"):
        print(f"load {name}.json: {load_time(KIT / f'{name}.json') * 1e3:.1f} ms")

    if shutil.which("simple_switch"):
        print("simple_switch is on PATH: measure it with the same frames through veths (not automated here)")
    else:
        print("real simple_switch: not installed on this machine, no figures")


if __name__ == "__main__":
    main()
