"""Replay a pcap through the embedded target offline, one output pcap per egress port.

    python -m toolchain.switch.replay prog.json in.pcap [--port 0] [-c commands.txt] [-o outdir]

Packets enter at their capture timestamps (virtual time), so queue rates set in the commands
file (set_queue_rate) and timestamps in standard metadata behave as they would live; each
departure is written with its departure time. Useful to debug a program without Mininet.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from netbase.pcap import PcapFormatError, PcapWriter, read_pcap

from .bm_sim.json_loader import load_program
from .errors import CliError, LoadError
from .simple_switch.switch import SimpleSwitch

__all__ = ["replay", "main"]


def replay(sw: SimpleSwitch, pcap_in: str, port: int, outdir: Path) -> dict[int, int]:
    """Send every packet of ``pcap_in`` into ``port``; returns packets written per egress port.

    Each port's capture is written under a temporary name and renamed to ``port<N>.pcap`` only
    once the whole input has been read: an input that turns out truncated or corrupt leaves no
    partial output (and an earlier run's files as they were)."""
    writers: dict[int, PcapWriter] = {}
    counts: dict[int, int] = {}

    def emit(out):
        for eport, frame, t in out:
            if eport not in writers:
                writers[eport] = PcapWriter(_partial(outdir, eport))
            writers[eport].write(t, frame)
            counts[eport] = counts.get(eport, 0) + 1

    try:
        for rec in read_pcap(pcap_in):
            emit(sw.advance(now=rec.time))
            sw.receive(port, rec.data, now=rec.time)
            emit(sw.advance(now=rec.time))
        while (t := sw.next_event_time()) is not None:
            emit(sw.advance(now=t))
    except BaseException:
        for eport, w in writers.items():
            w.close()
            _partial(outdir, eport).unlink(missing_ok=True)
        raise
    for eport, w in writers.items():
        w.close()
        os.replace(_partial(outdir, eport), outdir / f"port{eport}.pcap")
    return counts


def _partial(outdir: Path, eport: int) -> Path:
    """Where port ``eport``'s capture is written until the replay has finished."""
    return outdir / f".port{eport}.pcap.{os.getpid()}.partial"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m toolchain.switch.replay", description=__doc__.splitlines()[0])
    ap.add_argument("program", help="BMv2 JSON")
    ap.add_argument("pcap", help="input capture (Ethernet)")
    ap.add_argument("--port", type=int, default=0, help="ingress port of every packet (default 0)")
    ap.add_argument("-c", "--commands", help="simple_switch_CLI commands file to run first")
    ap.add_argument("-o", "--outdir", default=".", help="where port<N>.pcap files are written")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        sw = SimpleSwitch(load_program(args.program), seed=args.seed)
        if args.commands:
            sw.run_commands(Path(args.commands))
        outdir = Path(args.outdir)
        outdir.mkdir(parents=True, exist_ok=True)
        counts = replay(sw, args.pcap, args.port, outdir)
    except (LoadError, CliError, PcapFormatError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except ValueError as e:             # a departure the output pcap cannot hold (its time)
        print(f"error: {args.pcap}: {e}", file=sys.stderr)
        return 1
    for port in sorted(counts):
        print(f"port {port}: {counts[port]} packets -> {Path(args.outdir) / f'port{port}.pcap'}")
    if sw.errors:
        print(f"{len(sw.errors)} packets stopped by runtime faults (first: {sw.errors[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
