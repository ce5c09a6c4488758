"""A simulated gateway: an embedded-target ``SimpleSwitch`` in library mode, woken by events.

The switch's traffic manager is the queue: ``receive`` runs parser + ingress at arrival time and
enqueues; the node sleeps until ``next_event_time()`` (the head packet's dequeue time at link
speed), then ``advance(now)`` runs egress + deparser and hands each departing frame to the
channel of its egress port. Only one wake-up is valid at a time; a stale one (an earlier
wake-up was armed after it) is ignored when it fires.

Stale wake-ups are common: at R1 every ACK arriving for the idle access port departs long
before the bottleneck's head packet, so the bottleneck's wake-up is superseded and re-armed for
the same instant once the ACK has left. An entry that is still in the event queue for exactly
the instant wanted is therefore made valid again instead of scheduling a second one (~1 event
per packet fewer at each gateway). The order of events stays a function of the inputs alone; the
one difference from scheduling anew is that the re-validated entry keeps its older sequence
number, i.e. it runs before rather than after other events at exactly the same instant
(``tests/sim/test_determinism_pinned.py`` shows that no result changes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from sim.events import EventQueue
    from sim.links import Channel

__all__ = ["SwitchNode"]


class SwitchNode:
    """Binds one ``SimpleSwitch`` to the event queue and to its ports' channels."""

    def __init__(self, name: str, switch: Any, events: "EventQueue"):
        self.name = name
        self.switch = switch
        self.events = events
        self.channels: dict[int, "Channel"] = {}
        self.unconnected_drops = 0      # frames sent out of a port with no link
        self._wake: float | None = None          # the valid wake-up
        self._queued: set[float] = set()         # instants with a wake-up entry in the queue
        # bound once: these run for every frame (a switch object's methods do not change)
        self._receive = switch.receive
        self._next_event_time = switch.next_event_time
        self._advance = switch.advance

    def attach(self, port: int, channel: "Channel", rate_bps: float | None) -> None:
        """Port ``port`` sends over ``channel``; its TM queue serialises at ``rate_bps``."""
        self.channels[port] = channel
        if rate_bps is not None:
            self.switch.tm.set_port_rate_bps(port, rate_bps)

    def on_frame(self, port_frame: tuple[int, bytes]) -> None:
        port, frame = port_frame
        self._receive(port, frame, now=self.events.now)
        self.rearm()

    def rearm(self) -> None:
        """Arm a wake-up at the traffic manager's next dequeue if none earlier is pending."""
        t = self._next_event_time()
        if t is None:
            return
        now = self.events.now
        if t < now:
            t = now
        if self._wake is None or t < self._wake:
            self._wake = t
            if t not in self._queued:
                self._queued.add(t)
                self.events.schedule(t, self._on_wake, t)

    def _on_wake(self, armed_for: float) -> None:
        self._queued.discard(armed_for)
        if armed_for != self._wake:
            return                      # superseded by an earlier wake-up
        self._wake = None
        channels = self.channels
        for port, frame, departure in self._advance(now=self.events.now):
            channel = channels.get(port)
            if channel is None:
                self.unconnected_drops += 1
            else:
                channel.transmit(frame, departure)
        self.rearm()
