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
