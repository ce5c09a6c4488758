"""A link's propagation delay (and a host's serialisation) as a process between two interfaces.

    python -m live.delay_stage --a rlXXXXXXl0a --b rlXXXXXXl0b --delay 50 [--rate-ab 10]

Live runs put a link's delay on its sending side where the sender can hold its frames: the
project's switch (``rdtcp-switch --port-delay``) and the engine's hosts (``live.host
--delay``). Real simple_switch has no such option and Linux's TCP sends straight onto its
interface; where the kernel has netem, a qdisc delays them (``live.network``), and where it
has not (sch_netem is a module these machines lack), this stage does: the link is cut in two
veth pairs and the stage forwards every frame from one half to the other after the link's
delay, in both directions, first in first out (``netbase.packet_socket.DelayLine``, the switch's
own delay line). ``--rate-ab`` / ``--rate-ba`` also serialise one direction at the link's rate
(what a host's NIC does, ``sim.links.Nic``; a switch's traffic manager paces its own port).

Frames are forwarded as they are (no parsing, no checksum touched), on promiscuous AF_PACKET
sockets that ignore the stage's own transmissions (``RawPort``). The clock is read here only;
SIGINT/SIGTERM stop the stage, which then prints its counts. Prints ``READY_LINE`` when both
interfaces are open.
"""

from __future__ import annotations

import argparse
import math
import selectors
import signal
import sys
import time
from typing import Callable

from netbase.cli import CommandLineParser
from netbase.packet_socket import DelayLine, PortError, RawPort
from netbase.wakeup import Wakeup

__all__ = ["DelayStage", "READY_LINE", "main", "build_parser"]

READY_LINE = "live.delay_stage: ready"


class DelayStage:
    """Two ports and a delay line per direction; ``turn()`` is one step of the loop.

    ``ports`` is a pair of RawPort-like objects (``sock``, ``recv_frames``, ``send``): frames
    read on ``ports[0]`` leave on ``ports[1]`` ``delay`` seconds after they were read (after
    their serialisation at ``rates[0]`` when it is set), and the other way round.
    """

    def __init__(self, ports, *, delay: float, rates=(None, None),
                 clock: Callable[[], float] = time.monotonic):
        self.ports = tuple(ports)
        self.lines = (DelayLine(delay, rates[0]), DelayLine(delay, rates[1]))
        self.forwarded = [0, 0]
        self._clock = clock
        self.t0 = clock()
        self._stop = False
        self._wakeup = Wakeup()
        self.sel = selectors.DefaultSelector()
        for i, port in enumerate(self.ports):
            self.sel.register(port.sock, selectors.EVENT_READ, i)
        self.sel.register(self._wakeup.reader, selectors.EVENT_READ, None)

    def now(self) -> float:
        return self._clock() - self.t0

    def stop(self) -> None:
        self._stop = True
        self._wakeup.wake()

    def install_signal_handlers(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: self.stop())

    def next_due(self) -> float | None:
        dues = [d for d in (line.next_due() for line in self.lines) if d is not None]
        return min(dues) if dues else None

    def turn(self, max_wait: float | None = None) -> None:
        """Wait for frames (at most until the next one is due), take them in, send what is due."""
        due = self.next_due()
        timeout = None if due is None else max(0.0, due - self.now())
        if max_wait is not None:
            timeout = max_wait if timeout is None else min(timeout, max_wait)
        for key, _ in self.sel.select(timeout):
            if key.data is None:
                self._wakeup.drain()
                continue
            now = self.now()
            for frame in self.ports[key.data].recv_frames():
                self.lines[key.data].push(frame, now)
        self.release(self.now())

    def release(self, now: float) -> None:
        """Send every frame due by ``now``: direction i leaves on the other port."""
        for i, line in enumerate(self.lines):
            if line.next_due() is not None and line.next_due() <= now:
                out = self.ports[1 - i]
                for frame in line.pop_due(now):
                    out.send(frame)
                    self.forwarded[i] += 1

    def run(self) -> None:
        while not self._stop:
            self.turn()

    def close(self) -> None:
        self.sel.close()
        self._wakeup.close()
        for port in self.ports:
            port.close()


def build_parser() -> argparse.ArgumentParser:
    ap = CommandLineParser(
        prog="python -m live.delay_stage",
        description="Forward frames between two interfaces after a link's propagation "
                    "delay, both ways (a netem substitute; AF_PACKET, needs root).",
        epilog=f"Prints '{READY_LINE}' once both interfaces are open.")
    ap.add_argument("--a", required=True, metavar="IF", help="one half of the link")
    ap.add_argument("--b", required=True, metavar="IF", help="the other half")
    ap.add_argument("--delay", type=float, required=True, metavar="MS",
                    help="one-way propagation delay, each direction")
    ap.add_argument("--rate-ab", type=float, default=None, metavar="MBPS",
                    help="serialise frames from a to b at this rate (a host's NIC)")
    ap.add_argument("--rate-ba", type=float, default=None, metavar="MBPS",
                    help="serialise frames from b to a at this rate")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if not 0 <= args.delay <= 3_600_000:
        ap.error(f"--delay {args.delay}: out of range (0..3600000 ms)")
    for name in ("rate_ab", "rate_ba"):
        v = getattr(args, name)
        if v is not None and not 0 < v < math.inf:
            ap.error(f"--{name.replace('_', '-')} {v}: out of range")
    if args.a == args.b:
        ap.error("--a and --b name the same interface")
    ports = []
    try:
        for i, ifname in enumerate((args.a, args.b)):
            ports.append(RawPort(i, ifname))
    except PortError as e:
        for p in ports:
            p.close()
        print(f"error: {e}", file=sys.stderr, flush=True)
        return 2
    rates = tuple(None if r is None else r * 1e6 for r in (args.rate_ab, args.rate_ba))
    stage = DelayStage(ports, delay=args.delay / 1000.0, rates=rates)
    stage.install_signal_handlers()
    print(f"{READY_LINE} {args.a} <-> {args.b}, {args.delay:g} ms", flush=True)
    try:
        stage.run()
    finally:
        stage.close()
    held = len(stage.lines[0]) + len(stage.lines[1])
    print(f"forwarded {stage.forwarded[0]} a->b, {stage.forwarded[1]} b->a; "
          f"{held} in flight when stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
