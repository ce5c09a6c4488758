"""Links: rate and propagation delay, one ``Channel`` per direction (links are full duplex).

A frame that leaves a node at ``departure`` (its last bit on the wire) arrives at the far end
``delay`` seconds later. Who serialises depends on the sender: a switch's traffic manager
already dequeues at link speed (``tm.set_port_rate_bps``), so its channels add only the
propagation delay; a host has no traffic manager, so its ``Nic`` serialises the frames it sends
back to back (a FIFO with no drop limit: the hosts' access links are never the bottleneck in
the scenarios here, and ``Nic.max_backlog_s`` records how deep the FIFO got).

Frames in flight on a channel wait in the channel's own FIFO, and only the first of them has
an entry in the event queue (put there when it becomes first). A link delivers in order, so
this changes nothing that runs: each frame keeps the sequence number it would have had in the
queue (``EventQueue.reserve`` at transmit time) and so runs at the same place among events of
the same time. What it changes is the heap's size: the 50 ms bottleneck link holds ~40 frames,
which made the heap ~50 entries deep; now it holds about one entry per channel and timer.

A link model (``sim.impair``: stalls, random and burst losses) sets ``Channel.gate``: it sees
each frame as its last bit leaves and says when the link delivers it, or that the link lost it
(counted in ``lost``). Without a gate a frame takes ``delay`` and nothing else changes.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Callable

from netbase.pcap import PcapWriter

if TYPE_CHECKING:  # pragma: no cover
    from sim.events import EventQueue

__all__ = ["Channel", "Nic", "queue_packets"]


def queue_packets(info: dict) -> int | None:
    """Packets a switch port may hold towards a link of these options (``addLink``'s): its
    drop-tail queue (``max_queue_size``) plus, where the link layer has a send buffer ahead of
    its serialiser (``link_buffer``, packets; [FRTO] §5.1's wireless link), that buffer. A drop-tail
    queue of Q feeding a FIFO of B that the serialiser drains holds exactly Q + B packets and
    drops the same arrivals as one drop-tail queue of Q + B: the queue only fills once the
    buffer is full, and both keep arrival order. None: the link sets no limit."""
    limit = info.get("max_queue_size")
    if not limit:
        return None
    return int(limit) + int(info.get("link_buffer") or 0)


class Channel:
    """One direction of a link: delivers frames to ``deliver((port, frame))`` after ``delay``."""

    __slots__ = ("events", "delay", "rate_bps", "deliver", "dst_port", "taps", "rx_taps", "frames",
                 "bytes", "name", "_in_flight", "extra_delay", "gate", "lost")

    def __init__(self, events: "EventQueue", *, delay: float, rate_bps: float | None,
                 deliver: Callable[[Any], None], dst_port: int, name: str = ""):
        if delay < 0:
            raise ValueError(f"link delay must be >= 0, got {delay}")
        self.events = events
        self.delay = delay
        self.rate_bps = rate_bps
        self.deliver = deliver
        self.dst_port = dst_port
        self.taps: list[PcapWriter] = []       # written at departure (the sender's side)
        self.rx_taps: list[PcapWriter] = []    # written at arrival (the receiver's side)
        self.frames = 0
        self.bytes = 0
        self.name = name
        self._in_flight: deque = deque()   # (arrival, sequence number, frame), arrival order
        # per-frame extra propagation delay (frame -> seconds), e.g. sim.reorder.PacketDelayer:
        # a frame given some arrives on its own, after later frames (it holds nobody back)
        self.extra_delay: Callable[[bytes], float] | None = None
        # a link model (sim.impair): gate(frame, departure) -> the time the link starts
        # propagating the frame (>= departure; the model keeps frames in order by holding the
        # sender's serialiser), or None when the link loses it
        self.gate: Callable[[bytes, float], float | None] | None = None
        self.lost = 0                           # frames the gate lost

    def transmit(self, frame: bytes, departure: float) -> None:
        """The frame's last bit left the sender at ``departure``; schedule its arrival."""
        self.frames += 1
        self.bytes += len(frame)
        if self.taps:
            for tap in self.taps:
                tap.write(departure, frame)
        if self.gate is not None:
            held = self.gate(frame, departure)
            if held is None:
                self.lost += 1
                return
            departure = held
        arrival = departure + self.delay
        events = self.events
        seq = events.reserve()
        if self.extra_delay is not None:
            extra = self.extra_delay(frame)
            if extra > 0:
                events.schedule_reserved(arrival + extra, seq, self._arrive_alone, frame)
                return
        in_flight = self._in_flight
        if not in_flight:
            in_flight.append((arrival, seq, frame))
            events.schedule_reserved(arrival, seq, self._arrive)
        elif arrival >= in_flight[-1][0]:
            in_flight.append((arrival, seq, frame))     # behind the others: no heap entry yet
        else:
            # would overtake a frame in flight (a sender whose departures go back in time):
            # scheduled on its own, so the order of events stays exactly (time, sequence)
            events.schedule_reserved(arrival, seq, self._arrive_alone, frame)

    def _arrive(self, _arg: Any = None) -> None:
        """The first frame in flight arrives; the next one (if any) gets its heap entry."""
        in_flight = self._in_flight
        _, _, frame = in_flight.popleft()
        if in_flight:
            arrival, seq, _ = in_flight[0]
            self.events.schedule_reserved(arrival, seq, self._arrive)
        if self.rx_taps:
            for tap in self.rx_taps:
                tap.write(self.events.now, frame)
        self.deliver((self.dst_port, frame))

    def _arrive_alone(self, frame: bytes) -> None:
        if self.rx_taps:
            for tap in self.rx_taps:
                tap.write(self.events.now, frame)
        self.deliver((self.dst_port, frame))


class Nic:
    """A host's transmit FIFO: serialises frames at the link rate onto a ``Channel``."""

    __slots__ = ("channel", "rate_bps", "free_at", "max_backlog_s")

    def __init__(self, channel: Channel):
        self.channel = channel
        self.rate_bps = channel.rate_bps
        self.free_at = 0.0          # when the last queued frame finishes serialising
        self.max_backlog_s = 0.0

    def send(self, frame: bytes, now: float) -> None:
        start = now if now > self.free_at else self.free_at
        if self.rate_bps is None:
            done = start
        else:
            done = start + len(frame) * 8.0 / self.rate_bps
        self.free_at = done
        if done - now > self.max_backlog_s:
            self.max_backlog_s = done - now
        self.channel.transmit(frame, done)
