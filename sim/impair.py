"""Link models of F-RTO's evaluation ([FRTO] §5.1): delay spikes, random loss and
loss bursts on the emulated wireless link, as ``Channel.gate``s (``sim.links``).

* ``LinkStalls`` (the paper's DELAY scenario): every frame that crosses the link starts a stall
  with ``probability``; the stall lasts Exp(``mean``) seconds, during which the link delivers
  nothing and loses nothing (a link layer with persistent ARQ, §1). The frame that starts it
  is delivered when the stall ends, and the link's serialiser is held for the stall: the next
  frame starts to leave only then, so what arrives meanwhile waits in the sender's queue (the
  router's, where the only losses of the scenario happen) and arrives in order behind it.
* ``LinkLoss`` (LOSS): each frame is lost with ``probability``, independently.
* ``LinkOutages`` (BURST): one two-state timeline per link, shared by its channels (both
  directions): a good period lasts U(``good_min``, ``good_max``) seconds and loses nothing, a
  bad period lasts Exp(``bad_mean``) seconds and loses every frame whose last bit leaves in it.

Each model draws from its own ``random.Random(seed)``, the seed derived from the run seed and
the model's name (``Network.derive_seed``), so a seed fixes every stall and every loss. Time is
the frame's departure, passed in by the channel; nothing reads a clock. Each records what it
did as ground truth: ``stalls`` ((start, length) per stall), ``lost`` (frames lost) and
``outages`` ((start, end) of every bad period the run reached).
"""

from __future__ import annotations

import bisect
import math
import random
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # pragma: no cover
    from sim.links import Channel
    from sim.network import Network

__all__ = ["LinkStalls", "LinkLoss", "LinkOutages", "sender_pause", "pause_switch_port"]


def _check_probability(name: str, value: float) -> None:
    if not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")


def _check_seconds(name: str, value: float, *, positive: bool = True) -> None:
    ok = isinstance(value, (int, float)) and math.isfinite(value) and \
        (value > 0 if positive else value >= 0)
    if not ok:
        raise ValueError(f"{name} must be a finite number of seconds "
                         f"{'> 0' if positive else '>= 0'}, got {value!r}")


def pause_switch_port(node, port: int, until: float) -> None:
    """Hold the serialiser of a switch's egress ``port`` until ``until``: the traffic manager
    starts its next packet no earlier (packets keep queueing, and the P4 program's buffer limit
    drops beyond it)."""
    node.switch.tm.hold_port(port, until)
    node.rearm()


def sender_pause(net: "Network", src: str, dst: str, *,
                 port: int | None = None) -> Callable[[float], None]:
    """``pause(until)`` for the serialiser that feeds the channel ``src`` -> ``dst``: a
    switch's egress queue or a host's NIC."""
    channel = net.channel(src, dst, port=port)
    if src in net.switches:
        node = net.switches[src]
        sport = next(p for (s, p), ch in net.channels.items() if ch is channel)
        return lambda until: pause_switch_port(node, sport, until)
    nic = net.hosts[src].nic

    def pause_nic(until: float) -> None:
        if nic.free_at < until:
            nic.free_at = until
    return pause_nic


class LinkStalls:
    """DELAY ([FRTO] §5.1): with ``probability`` a frame starts a stall of Exp(``mean``) seconds;
    nothing is delivered or lost meanwhile. ``pause(until)`` holds the sender's serialiser
    (``sender_pause``)."""

    def __init__(self, channel: "Channel", *, probability: float, mean: float, seed: int,
                 pause: Callable[[float], None]):
        _check_probability("stall probability", probability)
        _check_seconds("mean stall length", mean)
        self.probability, self.mean = probability, mean
        self.rng = random.Random(seed)
        self.pause = pause
        self.stalls: list[tuple[float, float]] = []     # (start, length)
        self.held = 0               # frames that left the serialiser during a stall
        self.until = float("-inf")  # the end of the current stall
        channel.gate = self._gate

    def _gate(self, frame: bytes, departure: float) -> float:
        if departure < self.until:
            # the serialiser was busy with this frame when the stall began: it waits too
            self.held += 1
            return self.until
        if self.rng.random() < self.probability:
            length = self.rng.expovariate(1.0 / self.mean)
            self.stalls.append((departure, length))
            self.until = departure + length
            self.pause(self.until)
            return self.until
        return departure

    @property
    def stalled_seconds(self) -> float:
        return sum(length for _, length in self.stalls)


class LinkLoss:
    """LOSS ([FRTO] §5.1): every frame crossing ``channel`` is lost with ``probability``."""

    def __init__(self, channel: "Channel", *, probability: float, seed: int):
        _check_probability("loss probability", probability)
        self.probability = probability
        self.rng = random.Random(seed)
        self.channel = channel
        channel.gate = self._gate

    @property
    def lost(self) -> int:
        """Frames lost (the channel counts what its gate refused)."""
        return self.channel.lost

    def _gate(self, frame: bytes, departure: float) -> float | None:
        return None if self.rng.random() < self.probability else departure


class LinkOutages:
    """BURST ([FRTO] §5.1): good periods U(``good_min``, ``good_max``) s without loss alternate with
    bad periods Exp(``bad_mean``) s that lose every frame, on every channel given (the link's
    two directions share one timeline). The run starts in a good period. Periods are drawn as
    the frames reach them, so a run draws only what it uses."""

    def __init__(self, channels: list["Channel"], *, good_min: float, good_max: float,
                 bad_mean: float, seed: int):
        _check_seconds("good_min", good_min, positive=False)
        _check_seconds("good_max", good_max)
        _check_seconds("bad_mean", bad_mean)
        if good_min > good_max:
            raise ValueError(f"good_min must be <= good_max, got {good_min} > {good_max}")
        if not channels:
            raise ValueError("LinkOutages needs at least one channel")
        self.good_min, self.good_max, self.bad_mean = good_min, good_max, bad_mean
        self.rng = random.Random(seed)
        self.outages: list[tuple[float, float]] = []    # (start, end) of each bad period
        self._starts: list[float] = []                  # their starts, for bisect
        self._bad_until = 0.0
        self._draw_period()
        self.channels = channels
        for ch in channels:
            ch.gate = self._gate

    @property
    def lost(self) -> int:
        """Frames lost on all the channels (each counts what its gate refused)."""
        return sum(ch.lost for ch in self.channels)

    @property
    def lost_by_channel(self) -> dict[str, int]:
        return {ch.name: ch.lost for ch in self.channels}

    def _draw_period(self) -> None:
        """The next good period, then the bad one after it."""
        good_until = self._bad_until + self.rng.uniform(self.good_min, self.good_max)
        self._bad_until = good_until + self.rng.expovariate(1.0 / self.bad_mean)
        self.outages.append((good_until, self._bad_until))
        self._starts.append(good_until)

    def in_outage(self, t: float) -> bool:
        """Whether time ``t`` falls in a bad period (draws the periods up to ``t``; times may
        come in any order, the answer depends on ``t`` and the seed alone)."""
        while t >= self._bad_until:
            self._draw_period()
        i = bisect.bisect_right(self._starts, t) - 1
        return i >= 0 and t < self.outages[i][1]

    def _gate(self, frame: bytes, departure: float) -> float | None:
        return None if self.in_outage(departure) else departure

    def outages_before(self, t: float) -> list[tuple[float, float]]:
        """The bad periods that began before ``t`` (the ones a run ending at ``t`` met)."""
        return [(s, e) for s, e in self.outages if s < t]
