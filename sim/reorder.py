"""The paper's reordering: "N random queue swaps" per interval in the bottleneck queue.

[RDTCP] §4–5 vary "the number of random queue swaps performed every 1 or 8
seconds" at R1's drop-tail queue in ns-2. Here, exactly:

* Interval k covers [k·T, (k+1)·T). At its start, N swap times are drawn independently and
  uniformly in the interval (``rng.uniform``), sorted, and scheduled.
* At a swap time the queue of the port is inspected. Position 0 is the packet on the wire (the
  traffic manager's head finishes serialisation at its dequeue time, as ns-2's link holds the
  packet being transmitted outside its queue), so only the waiting packets 1..L-1 take part:
  two distinct positions i < j are drawn uniformly (``rng.sample``) and swapped with
  ``tm.swap(port, i, j)``. With fewer than two waiting packets the swap is skipped and counted.
* ``span`` (optional, the paper does not say how far apart its pairs were) bounds the distance:
  the pair is drawn uniformly among the pairs with ``j - i <= span``. A packet moved back by
  ``d = j - i`` places is overtaken by ``d`` packets, so the receiver sends ``d`` duplicate ACKs
  for it: with ``span <= 2 + k`` RD-TCP's 3+k threshold is never reached by one swap alone.
  ``span = 0`` (the default) is unbounded: the exact draw above.
* The RNG is ``random.Random`` seeded from the run seed, so a seed fixes every swap.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Iterable

from sim.delays import Distribution, normal

if TYPE_CHECKING:  # pragma: no cover
    from sim.links import Channel
    from sim.switch import SwitchNode

__all__ = ["QueueSwapper", "PacketDelayer", "carries_tcp_data", "carries_pure_ack",
           "FRAME_KINDS"]


class QueueSwapper:
    """Performs ``swaps`` random pair swaps per ``interval`` seconds on one egress queue."""

    def __init__(self, node: "SwitchNode", port: int, *, swaps: int, interval: float,
                 seed: int, start: float = 0.0, span: int = 0):
        if swaps < 0:
            raise ValueError(f"swaps must be >= 0, got {swaps}")
        if interval <= 0:
            raise ValueError(f"interval must be > 0 seconds, got {interval}")
        if span < 0:
            raise ValueError(f"span must be >= 0 places (0: unbounded), got {span}")
        self.node = node
        self.port = port
        self.swaps = swaps
        self.interval = interval
        self.span = span
        self.displacements: dict[int, int] = {}   # j - i of every swap done -> how many
        self.rng = random.Random(seed)
        self.done = 0
        self.skipped = 0
        if swaps:
            node.events.schedule(start, self._plan_interval, start)

    def _plan_interval(self, start: float) -> None:
        events = self.node.events
        times = sorted(self.rng.uniform(start, start + self.interval) for _ in range(self.swaps))
        for t in times:
            events.schedule(t, self._swap_once)
        events.schedule(start + self.interval, self._plan_interval, start + self.interval)

    def _swap_once(self, _arg: object = None) -> None:
        tm = self.node.switch.tm
        waiting = tm.queue_length(self.port) - 1      # position 0 is being serialised
        if waiting < 2:
            self.skipped += 1
            return
        if self.span and self.span < waiting - 1:
            i, j = self._bounded_pair(waiting)
        else:
            i, j = sorted(self.rng.sample(range(1, waiting + 1), 2))
        tm.swap(self.port, i, j)
        self.done += 1
        self.displacements[j - i] = self.displacements.get(j - i, 0) + 1
        self.node.rearm()

    def _bounded_pair(self, waiting: int) -> tuple[int, int]:
        """A pair 1 <= i < j <= waiting with j - i <= span, uniform over such pairs: there are
        ``waiting - d`` pairs at distance d, so one index into their concatenation picks one."""
        r = self.rng.randrange(sum(waiting - d for d in range(1, self.span + 1)))
        for d in range(1, self.span + 1):
            if r < waiting - d:
                return 1 + r, 1 + r + d
            r -= waiting - d
        raise AssertionError("unreachable: r is below the number of pairs")


def carries_tcp_data(frame: bytes) -> bool:
    """Whether an Ethernet/IPv4 frame holds a TCP segment with payload (a data segment, not a
    pure ACK); False for anything else or anything too short to tell."""
    payload = _tcp_payload_length(frame)
    return payload is not None and payload > 0


def carries_pure_ack(frame: bytes) -> bool:
    """Whether an Ethernet/IPv4 frame holds a TCP segment without payload, SYN or RST: an
    acknowledgment (a FIN's too); False for anything else or anything too short to tell."""
    payload = _tcp_payload_length(frame)
    if payload != 0:
        return False
    ihl = (frame[14] & 0x0F) * 4
    return not frame[14 + ihl + 13] & 0x06          # neither SYN (0x02) nor RST (0x04)


def _tcp_payload_length(frame: bytes) -> int | None:
    """The TCP payload length of an Ethernet/IPv4/TCP frame, None if it is not one."""
    if len(frame) < 54 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
        return None
    ihl = (frame[14] & 0x0F) * 4
    total = int.from_bytes(frame[16:18], "big")
    if len(frame) < 14 + ihl + 14:
        return None
    doff = (frame[14 + ihl + 12] >> 4) * 4
    return total - ihl - doff


class PacketDelayer:
    """Reordering by delay, the model of [RRTCP] §2.4 and §5 (RR-TCP's evaluation) that [RDTCP] §7 asks
    RD-TCP to be tested with ("a realistic model of reordering based on delays rather than
    swapping segments"): each data segment crossing ``channel`` is, with ``probability``,
    delayed by a further draw of ``distribution`` (``sim.delays``; by default normal(``mean``,
    ``sd``) seconds, negative draws clipped to 0), "without holding others
    back": later segments overtake it. It keeps its place in the sender's queue and on the
    link's capacity; only its propagation is longer. ``delays`` records every extra delay given,
    for ground truth.

    ``frames`` chooses what may be delayed: "data" (the default; pure ACKs are never delayed) or
    "acks" (pure ACKs only: [RRTCP] §5.4's reordered ACKs, delayed "as data" by the same model).
    ``nth``, when given, replaces the draw of who is delayed: exactly the frames of that kind
    whose number (1, 2, ... in the order they cross the channel) is in it ([RRTCP] §2.1's Figure 1
    delays one packet of one window)."""

    def __init__(self, channel: "Channel", *, probability: float, seed: int,
                 mean: float | None = None, sd: float | None = None,
                 distribution: Distribution | None = None, frames: str = "data",
                 nth: Iterable[int] | None = None):
        if not 0.0 <= probability <= 1.0:
            raise ValueError(f"probability must be in [0, 1], got {probability}")
        if distribution is None:
            if mean is None or sd is None:
                raise ValueError("give a delay distribution, or mean and sd of a normal one")
            if mean < 0 or sd < 0:
                raise ValueError(f"mean and sd must be >= 0 seconds, got {mean}, {sd}")
            distribution = normal(mean, sd)
        elif mean is not None or sd is not None:
            raise ValueError("give either a distribution or mean and sd, not both")
        if frames not in FRAME_KINDS:
            raise ValueError(f"frames must be one of {', '.join(FRAME_KINDS)}, got {frames!r}")
        self.probability = probability
        self.distribution = distribution
        self.frames = frames
        self.nth = frozenset(nth) if nth is not None else None
        self._selects = FRAME_KINDS[frames]
        self.rng = random.Random(seed)
        self.delays: list[float] = []
        self.data_frames = 0        # frames of the kind chosen that crossed (data or ACKs)
        channel.extra_delay = self._extra

    def _extra(self, frame: bytes) -> float:
        if not self._selects(frame):
            return 0.0
        self.data_frames += 1
        if self.nth is not None:
            if self.data_frames not in self.nth:
                return 0.0
        elif self.rng.random() >= self.probability:
            return 0.0
        extra = self.distribution.draw(self.rng)
        self.delays.append(extra)
        return extra


FRAME_KINDS = {"data": carries_tcp_data, "acks": carries_pure_ack}
