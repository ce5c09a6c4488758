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
