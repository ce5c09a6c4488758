"""Benchmark of what one Thrift call costs the switch process, by the call's size: the time
to find where the call ends as its bytes arrive in 64 KB reads (framing.MessageScanner, as the
server's loop reads a client) plus the time to serve it (the processor: parse, handler,
answer), and the peak memory the Python allocator held meanwhile (tracemalloc, a second pass).

    python bench/bench_thrift_frames.py [--sizes-mb 1,4,16,64] [--items 1024,4096,16384]

Two kinds of call: a table name of N MB (bm_mt_get_num_entries: one string, the largest kind
of call, as bm_load_new_config's JSON) up to the 64 MiB limit, and a key of N empty match
parameters (bm_mt_add_entry: one object each to build) up to the 16,384 items of one call
(its own fields among them).
Time and memory per MB, and per item, stay flat when both grow linearly.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

READ = 1 << 16


def serve_once(server, call: bytes) -> tuple[float, float, int]:
    """(seconds finding the end, seconds serving, answer bytes) for ``call`` arriving in
    READ-byte pieces, as ThriftServer._serve handles one client's buffer."""
    from toolchain.switch.thrift_server.framing import MessageScanner
    scanner, inbuf = MessageScanner(server.limits), bytearray()
    t0 = time.perf_counter()
    end = None
    for i in range(0, len(call), READ):
        inbuf += call[i:i + READ]
        end = scanner.feed(inbuf)
    assert end == len(call), (end, len(call))
    message = bytes(inbuf)
    inbuf.clear()
    t1 = time.perf_counter()
    answer = server.call(message)
    return t1 - t0, time.perf_counter() - t1, len(answer)


def measure(server, call: bytes) -> tuple[float, float, float]:
    """(scan s, serve s, peak MB): the best of three timed passes, then one traced pass."""
    times = []
    for _ in range(3):
        gc.collect()
        scan, serve, _ = serve_once(server, call)
        times.append((scan + serve, scan, serve))
    _, scan, serve = min(times)
    gc.collect()
    tracemalloc.start()
    serve_once(server, call)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return scan, serve, peak


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes-mb", default="1,4,16,64",
                    help="table-name sizes, MB (64 is the limit: 64 MiB minus the call's head)")
    ap.add_argument("--items", default="1024,4096,16368",
                    help="numbers of empty match parameters (16384 items is the limit, the "
                         "call's own fields included)")
    args = ap.parse_args(argv)
    from bm_runtime.standard.ttypes import BmMatchParam

    from tests.toolchain.switch.tables_kit import table_prog
    from tests.toolchain.thrift_api.calls_kit import std_call
    from toolchain.switch import SimpleSwitch
    from toolchain.switch.thrift_server import make_processor
    from toolchain.switch.thrift_server.host import ControlHost
    from toolchain.switch.thrift_server.server import ThriftServer

    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    sw = SimpleSwitch(table_prog([("exact", "a")]))
    server = ThriftServer(0, make_processor(ControlHost(sw, "{}")))
    try:
        print(f"{'call':>34} {'bytes':>11} {'find end':>9} {'serve':>8} {'peak MB':>8}  "
              f"{'ms/MB':>6} {'peak/size':>9}")
        for mb in (float(x) for x in args.sizes_mb.split(",")):
            size = min(int(mb * (1 << 20)), server.limits.string - 100)
            call = std_call("bm_mt_get_num_entries", 0, "x" * size)
            scan, serve, peak = measure(server, call)
            print(f"{f'table name of {mb:g} MB':>34} {len(call):>11,} {scan:>8.3f}s "
                  f"{serve:>7.3f}s {peak:>8.1f}  {1e3 * (scan + serve) / (len(call) / 2**20):>6.2f} "
                  f"{peak * 1e6 / len(call):>9.2f}")
        for n in (int(x) for x in args.items.split(",")):
            call = std_call("bm_mt_add_entry", 0, "MyIngress.t", [BmMatchParam()] * n,
                           "MyIngress.setr", [b"\x01"], None)
            scan, serve, peak = measure(server, call)
            print(f"{f'key of {n:,} empty params':>34} {len(call):>11,} {scan:>8.3f}s "
                  f"{serve:>7.3f}s {peak:>8.1f}  {'':>6} "
                  f"{1e6 * (scan + serve) / n:>6.1f} us/item")
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
