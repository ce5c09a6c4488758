"""sim.reorder.QueueSwapper: the paper's random queue swaps, with and without a bounded span.

A fake switch node stands in for the simulator: the swapper only needs an event queue, the
traffic manager's queue_length/swap and rearm, so every pair it draws can be recorded."""

import collections
import random

import pytest

from sim.reorder import QueueSwapper


class FakeTM:
    def __init__(self, length):
        self.length = length
        self.swaps = []

    def queue_length(self, port):
        return self.length

    def swap(self, port, i, j):
        self.swaps.append((i, j))


class FakeNode:
    def __init__(self, length):
        self.switch = type("S", (), {"tm": FakeTM(length)})()
        self.events = type("E", (), {"schedule": lambda *a: None})()

    def rearm(self):
        pass


def _swapper(length, span=0, seed=1):
    node = FakeNode(length)
    return QueueSwapper(node, 2, swaps=1, interval=1.0, seed=seed, span=span), node.switch.tm


def test_bounded_span_never_swaps_further_apart_than_span():
    for length in range(3, 70, 7):
        swapper, tm = _swapper(length, span=4, seed=length)
        for _ in range(300):
            swapper._swap_once()
        assert tm.swaps and all(1 <= i < j <= length - 1 and j - i <= 4 for i, j in tm.swaps)
        assert sum(swapper.displacements.values()) == swapper.done == 300


def test_bounded_span_draws_every_allowed_pair_equally_often():
    # 7 waiting packets (queue length 8, position 0 on the wire), span 2: 6 + 5 = 11 pairs
    swapper, tm = _swapper(8, span=2, seed=7)
    for _ in range(11_000):
        swapper._swap_once()
    counts = collections.Counter(tm.swaps)
    assert len(counts) == 11
    assert all(850 <= c <= 1150 for c in counts.values()), counts


def test_unbounded_span_is_the_uniform_pair_draw():
    swapper, tm = _swapper(20, span=0, seed=3)
    rng = random.Random(3)
    for _ in range(50):
        swapper._swap_once()
    assert tm.swaps == [tuple(sorted(rng.sample(range(1, 20), 2))) for _ in range(50)]


def test_span_at_least_the_queue_is_the_unbounded_draw():
    a, tm_a = _swapper(10, span=0, seed=9)
    b, tm_b = _swapper(10, span=8, seed=9)   # 9 waiting: every pair is at most 8 apart
    for _ in range(40):
        a._swap_once()
        b._swap_once()
    assert tm_a.swaps == tm_b.swaps


def test_swap_with_fewer_than_two_waiting_packets_is_skipped_and_counted():
    swapper, tm = _swapper(2, span=3)
    swapper._swap_once()
    assert tm.swaps == [] and swapper.skipped == 1 and swapper.done == 0


def test_negative_span_is_refused_with_its_value():
    with pytest.raises(ValueError, match="span must be >= 0.*-1"):
        _swapper(5, span=-1)


# ------------------------------------------------------------------ reordering by delay
def _frame(payload: bytes, options=()) -> bytes:
    from netbase.segment import Segment
    from netbase.wire import encode_frame
    return encode_frame(Segment(40000, 5001, seq=1, ack=1, options=options, payload=payload),
                        src_ip="10.0.1.1", dst_ip="10.0.2.1")


def test_carries_tcp_data_tells_data_segments_from_pure_acks_and_other_frames():
    from sim.reorder import carries_tcp_data
    assert carries_tcp_data(_frame(b"x" * 1000))
    assert carries_tcp_data(_frame(b"x", options=(("NOP", None), ("NOP", None),
                                                  ("Timestamp", (1, 2)))))
    assert not carries_tcp_data(_frame(b""))
    assert not carries_tcp_data(_frame(b"", options=(("SAck", ((5, 9),)),)))
    assert not carries_tcp_data(b"\xff" * 60)                  # not IPv4
    assert not carries_tcp_data(_frame(b"x")[:40])              # too short to tell


def test_packet_delayer_delays_data_only_and_later_frames_overtake_the_delayed_ones():
    from sim.events import EventQueue
    from sim.links import Channel
    from sim.reorder import PacketDelayer
    q, arrivals = EventQueue(), []
    ch = Channel(q, delay=0.05, rate_bps=None, dst_port=2,
                 deliver=lambda pf: arrivals.append((q.now, pf[1])))
    delayer = PacketDelayer(ch, probability=0.3, mean=0.025, sd=0.008, seed=7)
    frames = [_frame(i.to_bytes(2, "big") * 500) for i in range(400)]     # all distinct
    ack = _frame(b"")
    for i, f in enumerate(frames):
        ch.transmit(f, departure=i * 0.0024)             # 5 Mb/s, back to back
        ch.transmit(ack, departure=i * 0.0024)           # pure ACKs are never delayed
    q.run(until=10.0)
    assert len(arrivals) == 800 and delayer.data_frames == 400
    # about 30 % delayed, by about N(25 ms, 8 ms), clipped at 0
    assert 90 <= len(delayer.delays) <= 150
    assert all(d >= 0 for d in delayer.delays)
    assert 0.022 < sum(delayer.delays) / len(delayer.delays) < 0.028
    ack_times = [t for t, f in arrivals if f == ack]
    assert ack_times == pytest.approx([i * 0.0024 + 0.05 for i in range(400)])
    order = [f for _, f in arrivals if f != ack]
    assert sorted(order, key=frames.index) == frames         # nothing lost or duplicated
    overtaken = sum(1 for a, b in zip(order, order[1:]) if frames.index(a) > frames.index(b))
    assert overtaken >= len(delayer.delays) // 2            # delayed frames arrive later


def test_packet_delayer_refuses_bad_parameters_by_name():
    from sim.events import EventQueue
    from sim.links import Channel
    from sim.reorder import PacketDelayer
    ch = Channel(EventQueue(), delay=0.0, rate_bps=None, dst_port=0, deliver=lambda pf: None)
    with pytest.raises(ValueError, match="probability must be in"):
        PacketDelayer(ch, probability=1.5, mean=0.01, sd=0.0, seed=1)
    with pytest.raises(ValueError, match="mean and sd must be >= 0"):
        PacketDelayer(ch, probability=0.1, mean=-0.01, sd=0.0, seed=1)


def test_carries_pure_ack_tells_acks_from_data_syns_and_other_frames():
    from netbase.segment import ACK, SYN, Segment
    from netbase.wire import encode_frame
    from sim.reorder import carries_pure_ack
    assert carries_pure_ack(_frame(b""))
    assert carries_pure_ack(_frame(b"", options=(("SAck", ((5, 9),)),)))
    assert not carries_pure_ack(_frame(b"x"))
    syn = encode_frame(Segment(40000, 5001, seq=1, flags=SYN | ACK), src_ip="10.0.1.1",
                       dst_ip="10.0.2.1")
    assert not carries_pure_ack(syn)
    assert not carries_pure_ack(b"\xff" * 60)


def _delaying_channel(**kw):
    from sim.events import EventQueue
    from sim.links import Channel
    from sim.reorder import PacketDelayer
    q, arrivals = EventQueue(), []
    ch = Channel(q, delay=0.05, rate_bps=None, dst_port=2,
                 deliver=lambda pf: arrivals.append((q.now, pf[1])))
    return q, arrivals, ch, PacketDelayer(ch, seed=3, **kw)


def test_packet_delayer_on_acks_delays_pure_acks_only_by_its_distribution():
    # [RRTCP] §5.4: ACKs delayed "as data" by the same model, on the reverse link
    from sim.delays import parse
    q, arrivals, ch, delayer = _delaying_channel(probability=0.5, frames="acks",
                                                 distribution=parse("constant:0.1"))
    data, ack = _frame(b"x" * 100), _frame(b"")
    for i in range(200):
        ch.transmit(data, i * 0.01)
        ch.transmit(ack, i * 0.01)
    q.run(until=10.0)
    assert delayer.data_frames == 200 and 70 <= len(delayer.delays) <= 130
    assert set(delayer.delays) == {0.1}
    assert all(t == pytest.approx(i * 0.01 + 0.05) for i, (t, f) in
               enumerate((t, f) for t, f in arrivals if f == data))
    ack_times = sorted(t for t, f in arrivals if f == ack)
    on_time = [t for t in ack_times if any(t == pytest.approx(i * 0.01 + 0.05)
                                           for i in range(200))]
    assert len(ack_times) == 200 and len(on_time) >= 200 - len(delayer.delays)


def test_packet_delayer_nth_delays_exactly_those_frames():
    # [RRTCP] Fig. 1: one packet of one window delayed by 0.45 s
    from sim.delays import parse
    q, arrivals, ch, delayer = _delaying_channel(probability=0.0, nth={3},
                                                 distribution=parse("constant:0.45"))
    frames = [_frame(bytes([i]) * 100) for i in range(6)]
    for i, f in enumerate(frames):
        ch.transmit(f, i * 0.001)
    q.run(until=5.0)
    assert delayer.delays == [0.45]
    assert [f for _, f in arrivals] == frames[:2] + frames[3:] + [frames[2]]
    assert arrivals[-1][0] == pytest.approx(0.002 + 0.05 + 0.45)


def test_packet_delayer_takes_a_distribution_or_mean_and_sd_not_both():
    from sim.delays import parse
    with pytest.raises(ValueError, match="either a distribution or mean and sd"):
        _delaying_channel(probability=0.1, mean=0.01, sd=0.0, distribution=parse("constant:1"))
    with pytest.raises(ValueError, match="give a delay distribution"):
        _delaying_channel(probability=0.1)
    with pytest.raises(ValueError, match="frames must be one of"):
        _delaying_channel(probability=0.1, mean=0.01, sd=0.0, frames="syns")
