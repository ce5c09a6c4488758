"""The traffic manager's cached head departures give exactly the departures of a full rescan.

``TrafficManager`` keeps, per queue, when its head packet starts and finishes leaving, and
refreshes that cache only when the head, the queue's last departure or its bit rate changes.
These tests drive it with random operation sequences (enqueues at increasing times, swaps,
rate changes, partial drains) and compare every departure, bit for bit, with a reference
model that recomputes everything from scratch at each step, as the traffic manager did
before the cache (simple_switch semantics: FIFO per port, pps spacing, bps serialisation).
"""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolchain.switch.simple_switch.traffic_manager import TrafficManager


class Pkt:
    """The fields the traffic manager reads and writes on a packet."""

    def __init__(self, size: int):
        self.size = size
        self.seq = 0
        self.enq_time = 0.0
        self.wire_size = 0


def size_of(p: Pkt) -> int:
    return p.size


class Reference:
    """Rescan-everything model: the next departure of each queue from first principles."""

    def __init__(self, depth: int):
        self.q: dict[int, deque] = {}
        self.next_start: dict[int, float] = {}
        self.bps: dict[int, float | None] = {}
        self.pps: dict[int, float | None] = {}
        self.depth = depth
        self.seq = 0

    def enqueue(self, port, size, now):
        q = self.q.setdefault(port, deque())
        if len(q) >= self.depth:
            return None
        self.seq += 1
        q.append((self.seq, now, size))
        return len(q) - 1

    def _dep(self, port):
        seq, enq, size = self.q[port][0]
        ns = self.next_start.get(port, float("-inf"))
        start = enq if enq > ns else ns
        bps = self.bps.get(port)
        return start, (start + 8.0 * size / bps if bps else start), seq

    def next_event_time(self):
        deps = [self._dep(p)[1] for p, q in self.q.items() if q]
        return min(deps) if deps else None

    def pop_due(self, now):
        due = [(dep, seq, p, start) for p, q in self.q.items() if q
               for start, dep, seq in [self._dep(p)] if dep <= now]
        if not due:
            return None
        dep, seq, port, start = min(due)
        self.q[port].popleft()
        pps = self.pps.get(port)
        self.next_start[port] = dep if not pps else max(dep, start + 1.0 / pps)
        return port, seq, dep, len(self.q[port])


PORTS = st.integers(0, 1)
ENQ = st.tuples(st.just("enq"), PORTS, st.integers(60, 1514), st.floats(0, 2e-4))
OPS = st.lists(st.one_of(
    ENQ, ENQ, ENQ,
    st.tuples(st.just("swap"), PORTS, st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("bps"), PORTS, st.sampled_from([None, 1e6, 5e6, 1e7]), st.just(0)),
    st.tuples(st.just("pps"), PORTS, st.sampled_from([0, 500, 2000]), st.just(0)),
    st.tuples(st.just("adv"), st.just(0), st.just(0), st.floats(0, 3e-3)),
), max_size=60)
# bit rates to start with (None: unlimited), so that most sequences serialise
RATES = st.tuples(st.sampled_from([None, 1e6, 5e6]), st.sampled_from([1e6, 1e7]))


@settings(max_examples=150, deadline=None)
@given(RATES, OPS)
def test_departures_match_rescan_reference_for_random_operations(rates, ops):
    tm, ref = TrafficManager(size_of, depth=8), Reference(8)
    for port, bps in enumerate(rates):
        tm.set_port_rate_bps(port, bps)
        ref.bps[port] = bps
    now = 0.0
    for op, port, a, b in ops:
        if op == "enq":
            now += b
            p = Pkt(a)
            assert tm.enqueue(port, p, now) == ref.enqueue(port, a, now)
        elif op == "swap":
            n = tm.queue_length(port)
            if a < n and b < n:
                tm.swap(port, a, b)
                q = ref.q[port]
                q[a], q[b] = q[b], q[a]
        elif op == "bps":
            tm.set_port_rate_bps(port, a)
            ref.bps[port] = a
        elif op == "pps":
            tm.set_queue_rate(a, port)
            ref.pps[port] = a if a > 0 else None
        else:
            now += b
            while True:
                got, want = tm.pop_due(now), ref.pop_due(now)
                if want is None:
                    assert got is None
                    break
                port_, pkt, dep, left = got
                assert (port_, pkt.seq, dep, left) == want     # exact floats, not approx
        assert tm.next_event_time() == ref.next_event_time()
    # drain everything that is left, in departure order
    while (want := ref.pop_due(float("inf"))) is not None:
        port_, pkt, dep, left = tm.pop_due(float("inf"))
        assert (port_, pkt.seq, dep, left) == want
    assert tm.next_event_time() is None and not tm.busy


def test_swap_with_head_moves_next_departure_to_new_heads_size():
    tm = TrafficManager(size_of)
    tm.set_port_rate_bps(1, 8e6)                # one byte per microsecond
    small, big = Pkt(100), Pkt(1000)
    tm.enqueue(1, small, 0.0)
    tm.enqueue(1, big, 0.0)
    assert tm.next_event_time() == pytest.approx(100e-6)
    tm.swap(1, 0, 1)
    assert tm.next_event_time() == pytest.approx(1000e-6)
    assert tm.pop_due(1.0)[1] is big


def test_rate_set_while_packet_waits_applies_to_its_departure():
    tm = TrafficManager(size_of)
    tm.enqueue(1, Pkt(1000), 0.0)
    assert tm.next_event_time() == 0.0          # unlimited: leaves at once
    tm.set_port_rate_bps(1, 8e6)
    assert tm.next_event_time() == pytest.approx(1000e-6)
    tm.set_port_rate_bps(1, None)
    assert tm.next_event_time() == 0.0


def test_pop_oldest_refreshes_head_of_queue_it_pops_from():
    tm = TrafficManager(size_of)
    tm.set_port_rate_bps(1, 8e6)
    tm.enqueue(1, Pkt(100), 0.0)
    tm.enqueue(1, Pkt(300), 0.0)
    tm.pop_oldest()
    # next_start was not moved by the rate-ignoring drain: the new head starts at its enqueue
    assert tm.next_event_time() == pytest.approx(300e-6)
