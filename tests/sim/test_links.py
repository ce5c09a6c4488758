"""Links: serialisation at the link rate and propagation delay, exactly; full duplex."""

import pytest

from sim.events import EventQueue
from sim.links import Channel, Nic


def _channel(q, arrivals, *, delay, rate):
    return Channel(q, delay=delay, rate_bps=rate,
                   deliver=lambda pf: arrivals.append((q.now, pf[0], len(pf[1]))), dst_port=7)


def test_nic_frame_arrives_after_serialisation_plus_propagation():
    q, arrivals = EventQueue(), []
    nic = Nic(_channel(q, arrivals, delay=0.001, rate=10e6))
    nic.send(bytes(1500), now=0.0)
    q.run(until=1.0)
    # 1500 B at 10 Mb/s = 1.2 ms, then 1 ms of propagation
    assert arrivals == [(pytest.approx(0.0022, abs=1e-12), 7, 1500)]


def test_nic_back_to_back_frames_queue_behind_each_other():
    q, arrivals = EventQueue(), []
    nic = Nic(_channel(q, arrivals, delay=0.05, rate=5e6))
    for _ in range(3):
        nic.send(bytes(1000), now=0.0)       # 1.6 ms each at 5 Mb/s
    q.run(until=1.0)
    times = [t for t, _, _ in arrivals]
    assert times == pytest.approx([0.0516, 0.0532, 0.0548], abs=1e-12)
    assert nic.max_backlog_s == pytest.approx(0.0048)


def test_nic_idle_link_starts_at_send_time_not_at_last_free_time():
    q, arrivals = EventQueue(), []
    nic = Nic(_channel(q, arrivals, delay=0.0, rate=8e6))
    nic.send(bytes(100), now=0.0)            # 100 us
    q.run(until=0.5)
    nic.send(bytes(100), now=0.5)
    q.run(until=1.0)
    assert [t for t, _, _ in arrivals] == pytest.approx([1e-4, 0.5001], abs=1e-12)


def test_channels_of_one_link_are_independent_full_duplex():
    q, fwd, rev = EventQueue(), [], []
    a = Nic(_channel(q, fwd, delay=0.01, rate=1e6))
    b = Nic(_channel(q, rev, delay=0.01, rate=1e6))
    a.send(bytes(125), now=0.0)              # 1 ms each way, at the same time
    b.send(bytes(125), now=0.0)
    q.run(until=1.0)
    assert [t for t, _, _ in fwd] == [t for t, _, _ in rev] == pytest.approx([0.011])


def test_negative_delay_is_refused():
    with pytest.raises(ValueError, match="delay must be >= 0"):
        Channel(EventQueue(), delay=-1.0, rate_bps=None, deliver=print, dst_port=0)


def _log_event(q, log, name):
    return lambda arg=None: log.append((q.now, name))


def test_channel_frames_keep_their_place_among_events_of_the_same_time():
    """A frame in flight waits in the channel's FIFO, yet runs exactly where a heap entry made
    at transmit time would have: after events of its arrival time scheduled before the
    transmit, before those scheduled after it."""
    q, log = EventQueue(), []
    ch = Channel(q, delay=0.5, rate_bps=None, dst_port=1,
                 deliver=lambda pf: log.append((q.now, pf[1])))
    q.schedule(1.0, _log_event(q, log, "before"))
    ch.transmit(b"f1", departure=0.5)          # arrives at 1.0
    ch.transmit(b"f2", departure=0.5)          # arrives at 1.0, behind f1 in the FIFO
    q.schedule(1.0, _log_event(q, log, "after"))
    q.run(until=2.0)
    assert log == [(1.0, "before"), (1.0, b"f1"), (1.0, b"f2"), (1.0, "after")]


def test_channel_frame_departing_earlier_than_one_in_flight_arrives_first():
    """A sender whose departures go back in time (no node here does) still gets arrival order
    by time: such a frame is scheduled on its own instead of queueing behind the FIFO."""
    q, arrivals = EventQueue(), []
    ch = _channel(q, arrivals, delay=0.1, rate=None)
    ch.transmit(bytes(10), departure=0.5)
    ch.transmit(bytes(20), departure=0.2)
    ch.transmit(bytes(30), departure=0.6)
    q.run(until=1.0)
    assert [(round(t, 9), n) for t, _, n in arrivals] == [(0.3, 20), (0.6, 10), (0.7, 30)]


def test_channel_holds_one_heap_entry_however_many_frames_are_in_flight():
    q, arrivals = EventQueue(), []
    nic = Nic(_channel(q, arrivals, delay=0.05, rate=5e6))
    for _ in range(40):
        nic.send(bytes(1500), now=0.0)
    assert len(q) == 1
    q.run(until=1.0)
    assert len(arrivals) == 40 and len(q) == 0
    assert [t for t, _, _ in arrivals] == sorted(t for t, _, _ in arrivals)


def test_schedule_reserved_refuses_the_past():
    q = EventQueue()
    seq = q.reserve()
    q.run(until=1.0)
    with pytest.raises(ValueError, match="clock is already at 1.0"):
        q.schedule_reserved(0.5, seq, lambda _: None)
