"""sim.impair: F-RTO's link models ([FRTO] §5.1) on a channel fed by a NIC: stalls that hold the
link and its serialiser and lose nothing, random losses, and outages shared by both directions.
Each is a function of its seed and records what it did."""

import math

import pytest

from sim.events import EventQueue
from sim.impair import LinkLoss, LinkOutages, LinkStalls
from sim.links import Channel, Nic

RATE = 1e6          # 125-byte frames take 1 ms
DELAY = 0.01


def _link(q, arrivals, name="a-b"):
    ch = Channel(q, delay=DELAY, rate_bps=RATE, dst_port=0, name=name,
                 deliver=lambda pf: arrivals.append((q.now, pf[1])))
    return ch, Nic(ch)


def _nic_pause(nic):
    def pause(until):
        nic.free_at = max(nic.free_at, until)
    return pause


def _stalled_run(seed, *, frames=40, probability=0.3, mean=0.5):
    q, arrivals = EventQueue(), []
    ch, nic = _link(q, arrivals)
    stalls = LinkStalls(ch, probability=probability, mean=mean, seed=seed,
                        pause=_nic_pause(nic))
    for i in range(frames):
        nic.send(bytes([i]) * 125, now=0.0)
    q.run(until=1e6)
    return stalls, ch, arrivals


def test_stalls_lose_nothing_and_deliver_in_order():
    stalls, ch, arrivals = _stalled_run(seed=3)
    assert stalls.stalls and ch.lost == 0
    assert [f[0] for _, f in arrivals] == list(range(40))
    times = [t for t, _ in arrivals]
    assert times == sorted(times)


def test_a_stall_delays_its_frame_and_holds_the_serialiser_for_its_length():
    stalls, _, arrivals = _stalled_run(seed=1, frames=3, probability=1.0)
    (s1, x1), (s2, x2), (s3, x3) = stalls.stalls
    # each frame leaves 1 ms after the previous stall ended, then waits out its own stall
    assert s1 == pytest.approx(0.001)
    assert s2 == pytest.approx(s1 + x1 + 0.001)
    assert s3 == pytest.approx(s2 + x2 + 0.001)
    assert [t for t, _ in arrivals] == pytest.approx([s1 + x1 + DELAY, s2 + x2 + DELAY,
                                                      s3 + x3 + DELAY])
    assert stalls.stalled_seconds == pytest.approx(x1 + x2 + x3)


def test_a_frame_leaving_during_a_stall_waits_for_its_end():
    q, arrivals = EventQueue(), []
    ch, _ = _link(q, arrivals)
    stalls = LinkStalls(ch, probability=1.0, mean=1.0, seed=5, pause=lambda until: None)
    ch.transmit(b"x" * 60, 0.0)
    stalls.probability = 0.0
    start, length = stalls.stalls[0]
    ch.transmit(b"y" * 60, start + length / 2)      # the serialiser was not held (no pause)
    q.run(until=100.0)
    assert [t for t, _ in arrivals] == pytest.approx([start + length + DELAY] * 2)
    assert [f[:1] for _, f in arrivals] == [b"x", b"y"] and stalls.held == 1


def test_stalls_are_a_function_of_the_seed():
    assert _stalled_run(seed=7)[0].stalls == _stalled_run(seed=7)[0].stalls
    assert _stalled_run(seed=7)[0].stalls != _stalled_run(seed=8)[0].stalls


def _lossy_run(seed, probability, frames=200):
    q, arrivals = EventQueue(), []
    ch, nic = _link(q, arrivals)
    loss = LinkLoss(ch, probability=probability, seed=seed)
    for i in range(frames):
        nic.send(i.to_bytes(2, "big") * 60, now=0.0)
    q.run(until=10.0)
    return loss, ch, [f[:2] for _, f in arrivals]


def test_link_loss_loses_each_frame_with_its_probability_and_counts_them():
    loss, ch, got = _lossy_run(seed=1, probability=0.3)
    assert loss.lost == ch.lost == 200 - len(got) and 0 < loss.lost < 200
    assert _lossy_run(seed=1, probability=0.3)[2] == got
    assert _lossy_run(seed=2, probability=0.3)[2] != got
    assert _lossy_run(seed=1, probability=0.0)[1].lost == 0
    assert len(_lossy_run(seed=1, probability=1.0)[2]) == 0


def test_outages_lose_every_frame_in_a_bad_period_in_both_directions():
    q, fwd, rev = EventQueue(), [], []
    ch1, _ = _link(q, fwd, "r1-r2")
    ch2, _ = _link(q, rev, "r2-r1")
    outages = LinkOutages([ch1, ch2], good_min=0.1, good_max=2.0, bad_mean=0.5, seed=4)
    sent = [i * 0.05 for i in range(400)]            # 20 s of frames each way
    for t in sent:
        ch1.transmit(b"d" * 60, t)
        ch2.transmit(b"a" * 60, t)
    q.run(until=100.0)
    periods = outages.outages_before(20.0)
    assert len(periods) >= 2

    def bad(t):
        return any(s <= t < e for s, e in periods)
    expected = [t + DELAY for t in sent if not bad(t)]
    assert [t for t, _ in fwd] == pytest.approx(expected)
    assert [t for t, _ in rev] == pytest.approx(expected)
    assert outages.lost == 2 * (len(sent) - len(expected)) == ch1.lost + ch2.lost
    assert outages.lost_by_channel == {"r1-r2": ch1.lost, "r2-r1": ch2.lost}
    goods = [s - e for (_, e), (s, _) in zip(periods, periods[1:])]
    assert all(0.1 <= g <= 2.0 for g in goods) and 0.1 <= periods[0][0] <= 2.0


def test_outage_timeline_answers_the_same_whatever_order_times_are_asked_in():
    def timeline(times):
        ch, _ = _link(EventQueue(), [])
        o = LinkOutages([ch], good_min=0.1, good_max=1.0, bad_mean=0.5, seed=9)
        return {t: o.in_outage(t) for t in times}
    times = [i * 0.037 for i in range(300)]
    assert timeline(times) == timeline(list(reversed(times)))


@pytest.mark.parametrize("make, message", [
    (lambda ch: LinkStalls(ch, probability=1.5, mean=3.5, seed=1, pause=print),
     "stall probability must be a probability"),
    (lambda ch: LinkStalls(ch, probability=0.02, mean=0.0, seed=1, pause=print),
     "mean stall length must be a finite number of seconds > 0"),
    (lambda ch: LinkStalls(ch, probability=0.02, mean=math.inf, seed=1, pause=print),
     "mean stall length"),
    (lambda ch: LinkLoss(ch, probability=-0.1, seed=1), "loss probability"),
    (lambda ch: LinkOutages([ch], good_min=5, good_max=1, bad_mean=3.5, seed=1),
     "good_min must be <= good_max"),
    (lambda ch: LinkOutages([ch], good_min=0.1, good_max=20, bad_mean=math.nan, seed=1),
     "bad_mean"),
    (lambda ch: LinkOutages([], good_min=0.1, good_max=20, bad_mean=3.5, seed=1),
     "at least one channel"),
])
def test_bad_parameters_are_refused_by_name(make, message):
    ch, _ = _link(EventQueue(), [])
    with pytest.raises(ValueError, match=message):
        make(ch)
