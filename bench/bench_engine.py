"""Benchmark: segments per second through a sender+receiver pair of host TCP engines.

Two figures: (1) engines only: a bulk transfer where segments pass between the two
TcpConnection objects in memory (no wire format), with one drop every --loss-every segments so
recovery code runs too; (2) netbase.wire encode+decode of a 1500-byte frame. Goal (bench/README.md):
>= 50,000 segments/s for (1) on one core.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import deque

from goals import at_least  # bench/, this script's folder
from hosts.tcp import TcpConfig, TcpConnection
from netbase.segment import ACK, Segment
from netbase.wire import decode_frame, encode_frame


def engine_transfer(variant: str, nbytes: int, loss_every: int) -> tuple[int, float]:
    cfg = TcpConfig(variant=variant, rdtcp=variant.startswith("rdtcp"), max_cwnd_segments=500)
    a = TcpConnection(cfg, local_port=1, remote_port=2, iss=1)
    b = TcpConnection(cfg, local_port=2, remote_port=1, iss=2)
    b.listen()
    chunk = bytes(65536)
    queued = 0
    now = 0.0
    to_b = deque(a.connect(now=now))
    to_a: deque = deque()
    count = data_segs = 0
    t0 = time.perf_counter()
    while (to_a or to_b) and now < 10_000:
        now += 0.0001
        while to_b:
            seg = to_b.popleft()
            count += 1
            if seg.payload:
                data_segs += 1
                if loss_every and data_segs % loss_every == 0:
                    continue
            to_a.extend(b.on_segment(seg, now=now))
            b.receive()
        while to_a:
            count += 1
            to_b.extend(a.on_segment(to_a.popleft(), now=now))
        while queued < nbytes and a.send_buffer_space() > 0:
            n = min(a.send_buffer_space(), len(chunk), nbytes - queued)
            a.send(chunk[:n])
            queued += n
        to_b.extend(a.poll(now=now))
        if not to_a and not to_b:
            t = a.next_timer()
            if t is not None and a.snd_una < a.snd_max:
                now = t
                to_b.extend(a.on_timer(now=now))
    return count, time.perf_counter() - t0


def wire_rate(n: int) -> float:
    seg = Segment(1, 2, 3, 4, ACK, 1000, (), bytes(1448))
    t0 = time.perf_counter()
    for _ in range(n):
        decode_frame(encode_frame(seg, src_ip="10.0.0.1", dst_ip="10.0.0.2"))
    return n / (time.perf_counter() - t0)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bytes", type=int, default=30_000_000, help="bytes to transfer (default 30 MB)")
    p.add_argument("--loss-every", type=int, default=200, help="drop one data segment in N (0: none)")
    p.add_argument("--frames", type=int, default=50_000, help="frames for the wire benchmark")
    p.add_argument("--profile", action="store_true",
                   help="also print the 15 costliest functions (cProfile) of an rdtcp transfer")
    args = p.parse_args(argv)
    print(f"command: python {' '.join([sys.argv[0]] + (argv or sys.argv[1:]))}")
    if args.profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.runcall(engine_transfer, "rdtcp", args.bytes, args.loss_every)
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
    print(f"interpreter: {sys.implementation.name} {sys.version.split()[0]}")
    rates = {}
    for variant in ("sack", "dsack", "rdtcp"):
        count, secs = engine_transfer(variant, args.bytes, args.loss_every)
        rates[variant] = count / secs
        print(f"engine {variant:6s}: {count:8d} segments in {secs:6.2f} s = {count / secs:9.0f} segments/s")
    wire = wire_rate(args.frames)
    print(f"wire encode+decode, 1500-byte frames: {wire:9.0f} frames/s "
          f"(two RFC 1071 checksums of 1.5 kB cost ~6 us of the ~14 us)")
    slowest = min(rates, key=rates.get)
    at_least("engines >= 50,000 segments/s on one core, every variant", rates[slowest], 50_000,
             f"slowest {slowest}: {rates[slowest]:,.0f}")
    at_least("wire encode+decode >= 200,000 frames/s", wire, 200_000, f"{wire:,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
