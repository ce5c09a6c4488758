"""SwitchNode's wake-ups: one valid wake-up at a time, superseded ones reused, not duplicated."""

from sim.events import EventQueue
from sim.switch import SwitchNode


class _FakeSwitch:
    """The three calls SwitchNode makes of a switch, over a list of (departure, port, frame)."""

    def __init__(self):
        self.queued: list[tuple[float, int, bytes]] = []
        self.advanced_at: list[float] = []

    def receive(self, port, frame, *, now):
        # a frame for port 1 leaves 0.1 s after arrival, one for port 2 1.0 s after
        self.queued.append((now + (0.1 if port == 1 else 1.0), port, frame))
        self.queued.sort()

    def next_event_time(self):
        return self.queued[0][0] if self.queued else None

    def advance(self, *, now):
        self.advanced_at.append(now)
        out = []
        while self.queued and self.queued[0][0] <= now:
            dep, port, frame = self.queued.pop(0)
            out.append((port, frame, dep))
        return out


class _Sink:
    def __init__(self):
        self.got = []

    def transmit(self, frame, departure):
        self.got.append((frame, departure))


def _node():
    q = EventQueue()
    sw = _FakeSwitch()
    node = SwitchNode("r1", sw, q)
    sinks = {1: _Sink(), 2: _Sink()}
    node.channels.update(sinks)
    return q, sw, node, sinks


def test_superseded_wake_up_is_reused_for_the_same_instant():
    q, sw, node, sinks = _node()
    node.on_frame((2, b"data"))          # departs at 1.0: a wake-up is queued for 1.0
    node.on_frame((1, b"ack"))           # departs at 0.1: an earlier wake-up supersedes it
    assert len(q) == 2
    q.run(until=0.5)
    # after the ACK left, the node wants 1.0 again: the entry already queued is made valid
    # instead of a second one being scheduled
    assert len(q) == 1
    q.run(until=2.0)
    assert sinks[1].got == [(b"ack", 0.1)] and sinks[2].got == [(b"data", 1.0)]
    assert sw.advanced_at == [0.1, 1.0] and q.executed == 2


def test_superseded_wake_up_is_ignored_when_a_later_one_is_wanted():
    q, sw, node, sinks = _node()
    node.on_frame((2, b"data"))          # wake-up queued for 1.0
    node.on_frame((1, b"ack"))           # and for 0.1
    q.run(until=0.5)
    sw.queued.clear()                    # the data packet went away (e.g. a test drained it)
    sw.queued.append((1.5, 2, b"late"))
    node.rearm()                         # 1.5 is not earlier than the valid wake-up (1.0)
    q.run(until=2.0)
    # the entry at 1.0 is valid and finds nothing due, the node re-arms for 1.5
    assert sw.advanced_at == [0.1, 1.0, 1.5] and sinks[2].got == [(b"late", 1.5)]


def test_frame_for_an_unconnected_port_is_counted():
    q, sw, node, sinks = _node()
    del node.channels[2]
    node.on_frame((2, b"data"))
    q.run(until=2.0)
    assert node.unconnected_drops == 1 and sinks[1].got == []
