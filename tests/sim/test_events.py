"""Event queue: time order, FIFO among equal times, no scheduling into the past."""

import pytest

from sim.events import EventQueue


def test_events_run_in_time_order_regardless_of_insertion():
    q, seen = EventQueue(), []
    for t in (3.0, 1.0, 2.0):
        q.schedule(t, seen.append, t)
    q.run(until=10.0)
    assert seen == [1.0, 2.0, 3.0]
    assert q.now == 10.0


def test_events_at_equal_time_run_in_scheduling_order():
    q, seen = EventQueue(), []
    for tag in "abcde":
        q.schedule(1.0, seen.append, tag)
    q.run(until=1.0)
    assert seen == list("abcde")


def test_events_scheduled_during_run_at_now_run_after_current():
    q, seen = EventQueue(), []

    def first(_):
        seen.append("first")
        q.schedule(q.now, seen.append, "nested")

    q.schedule(0.5, first)
    q.schedule(0.5, seen.append, "second")
    q.run(until=1.0)
    assert seen == ["first", "second", "nested"]


def test_run_stops_at_until_and_keeps_later_events():
    q, seen = EventQueue(), []
    q.schedule(1.0, seen.append, 1)
    q.schedule(2.0, seen.append, 2)
    q.run(until=1.5)
    assert seen == [1] and q.now == 1.5 and q.peek_time() == 2.0
    q.run(until=3.0)
    assert seen == [1, 2]


def test_schedule_in_the_past_is_refused():
    q = EventQueue()
    q.run(until=2.0)
    with pytest.raises(ValueError, match="already at 2.0"):
        q.schedule(1.0, print)


def test_schedule_at_nan_is_refused():
    q = EventQueue()
    with pytest.raises(ValueError, match="cannot schedule at nan"):
        q.schedule(float("nan"), print)


def test_order_is_time_then_scheduling_order_with_many_interleaved_events():
    # the heap's entries compare by (time, sequence) only: callbacks are never compared
    q, seen = EventQueue(), []
    times = [0.3, 0.1, 0.2, 0.1, 0.3, 0.2, 0.1]
    for i, t in enumerate(times):
        q.schedule(t, seen.append, (t, i))
    q.run(until=1.0)
    assert seen == sorted(((t, i) for i, t in enumerate(times)))
