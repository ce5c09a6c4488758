"""sim.bursts.DropBursts: [RRTCP] §5.7's drop events (Table 4) on a link: started by data packets,
U[300, 400] ms long, losing every frame that leaves during one."""

import pytest

from netbase.segment import Segment
from netbase.wire import encode_frame
from sim.bursts import BURST_HIGH, BURST_LOW, DropBursts
from sim.events import EventQueue
from sim.links import Channel


def _frame(payload: bytes) -> bytes:
    return encode_frame(Segment(40000, 5001, seq=1, ack=1, payload=payload),
                        src_ip="10.0.1.1", dst_ip="10.0.2.1")


def _channel():
    q, arrivals = EventQueue(), []
    ch = Channel(q, delay=0.01, rate_bps=None, dst_port=2,
                 deliver=lambda pf: arrivals.append((q.now, pf[1])))
    return q, ch, arrivals


def test_each_event_drops_every_frame_that_leaves_during_it_and_only_those():
    q, ch, arrivals = _channel()
    bursts = DropBursts(ch, probability=0.01, seed=3)
    data, ack = _frame(b"d" * 1000), _frame(b"")
    sent = []
    for i in range(20_000):                     # 500 packets/s for 40 s, an ACK-sized frame too
        t = i * 0.002
        ch.transmit(data, t)
        ch.transmit(ack, t + 0.001)
        sent += [t, t + 0.001]
    q.run(until=100.0)
    # a start per 100 data packets outside an event: ~0.2 s to a start, 0.35 s an event
    assert 50 < len(bursts.events) < 110
    for start, end in bursts.events:
        assert BURST_LOW <= end - start <= BURST_HIGH
    in_event = [t for t in sent if any(s <= t < e for s, e in bursts.events)]
    assert bursts.lost == ch.lost == len(in_event)       # ACK-sized frames in an event too
    assert len(arrivals) == len(sent) - len(in_event)
    delivered = {round(t - 0.01, 9) for t, _ in arrivals}
    assert not delivered & {round(t, 9) for t in in_event}


def test_only_a_data_frame_starts_an_event():
    q, ch, arrivals = _channel()
    bursts = DropBursts(ch, probability=1.0, seed=1)
    for i in range(10):
        ch.transmit(_frame(b""), i * 0.1)       # pure ACKs: never a start
    ch.transmit(_frame(b"x"), 1.0)              # starts one at once, and is its first loss
    ch.transmit(_frame(b""), 1.2)
    q.run(until=5.0)
    assert len(bursts.events) == 1 and bursts.events[0][0] == 1.0
    assert len(arrivals) == 10 and bursts.lost == 2


def test_a_seed_fixes_every_event():
    def events(seed):
        q, ch, _ = _channel()
        b = DropBursts(ch, probability=0.05, seed=seed)
        for i in range(2000):
            ch.transmit(_frame(b"d"), i * 0.01)
        q.run(until=30.0)
        return b.events
    assert events(4) == events(4) != events(5)


@pytest.mark.parametrize("kw, message", [
    (dict(probability=1.5), "burst start probability must be in"),
    (dict(probability=0.1, low=0.4, high=0.3), "0 <= low <= high"),
    (dict(probability=0.1, low=-1.0), "0 <= low <= high"),
])
def test_bad_parameters_are_refused_by_name(kw, message):
    _, ch, _ = _channel()
    with pytest.raises(ValueError, match=message):
        DropBursts(ch, seed=1, **kw)


def test_a_link_with_a_model_already_is_refused():
    _, ch, _ = _channel()
    DropBursts(ch, probability=0.1, seed=1)
    with pytest.raises(ValueError, match="already has a link model"):
        DropBursts(ch, probability=0.1, seed=2)
