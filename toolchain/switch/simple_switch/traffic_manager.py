"""The traffic manager between ingress and egress: one FIFO per egress port.

As simple_switch: each queue holds at most ``depth`` packets (default 64; a packet that
finds its queue full is dropped) and may be rate-limited in packets per second
(``set_queue_rate``). The library adds ``set_port_rate_bps``: a packet of L bytes then
takes 8L/bps seconds to leave (link serialisation), so the departure time is the end of
its transmission. Time is virtual: the caller passes ``now`` and asks for departures.
"""

from __future__ import annotations

from collections import deque

__all__ = ["PortQueue", "TrafficManager", "DEFAULT_QUEUE_DEPTH"]

DEFAULT_QUEUE_DEPTH = 64   # simple_switch's default egress queue capacity, in packets


class PortQueue:
    """One egress FIFO. ``head_start``/``head_dep`` cache when its head packet starts and
    finishes leaving: they depend only on the head (its enqueue time and size), on
    ``next_start`` (moved only by a dequeue) and on ``rate_bps``, so they are recomputed
    exactly when one of those changes, instead of at every scan for the next departure."""

    __slots__ = ("packets", "depth", "rate_pps", "rate_bps", "next_start", "head_start",
                 "head_dep")

    def __init__(self, depth: int, rate_pps: float | None):
        self.packets: deque = deque()
        self.depth = depth
        self.rate_pps = rate_pps
        self.rate_bps: float | None = None
        self.next_start = float("-inf")
        self.head_start = 0.0
        self.head_dep = 0.0


class TrafficManager:
    def __init__(self, size_of, *, depth: int = DEFAULT_QUEUE_DEPTH):
        self._size_of = size_of          # packet -> bytes on the wire (for bps serialisation)
        self.queues: dict[int, PortQueue] = {}
        self.busy: dict[int, PortQueue] = {}    # the non-empty queues (scanned at dequeue; read-only)
        self.default_depth = depth
        self.default_rate_pps: float | None = None
        self._seq = 0
        self.dropped = 0

    def _queue(self, port: int) -> PortQueue:
        q = self.queues.get(port)
        if q is None:
            q = self.queues[port] = PortQueue(self.default_depth, self.default_rate_pps)
        return q

    # -- configuration (CLI: set_queue_depth / set_queue_rate) ----------------------------------
    def set_queue_depth(self, depth: int, port: int | None = None) -> None:
        if depth < 0:
            raise ValueError("queue depth must be >= 0")
        if port is None:
            self.default_depth = depth
            for q in self.queues.values():
                q.depth = depth
        else:
            self._queue(port).depth = depth

    def set_queue_rate(self, rate_pps: float, port: int | None = None) -> None:
        """Rate in packets per second; 0 or less means unlimited (as simple_switch's default)."""
        rate = rate_pps if rate_pps > 0 else None
        if port is None:
            self.default_rate_pps = rate
            for q in self.queues.values():
                q.rate_pps = rate
        else:
            self._queue(port).rate_pps = rate

    def set_port_rate_bps(self, port: int, bits_per_second: float | None) -> None:
        if bits_per_second is not None and bits_per_second <= 0:
            raise ValueError("bits_per_second must be positive (or None for unlimited)")
        q = self._queue(port)
        q.rate_bps = bits_per_second
        if q.packets:
            self._set_head(q)

    def hold_port(self, port: int, until: float) -> None:
        """No packet of ``port`` starts leaving before ``until`` (a stalled link, library mode:
        the time is the caller's), the queue's head included: its departure is recomputed from
        ``until``. Packets keep queueing meanwhile, and the queue's depth limit drops beyond
        it. An earlier ``until`` than a hold already in force changes nothing."""
        q = self._queue(port)
        if q.next_start < until:
            q.next_start = until
            if q.packets:
                self._set_head(q)

    # -- queue inspection and the paper's "queue swaps" -----------------------------------------
    def queue_length(self, port: int) -> int:
        q = self.queues.get(port)
        return len(q.packets) if q else 0

    def swap(self, port: int, i: int, j: int) -> None:
        """Swap the i-th and j-th queued packets of ``port`` (0 is the head)."""
        q = self.queues.get(port)
        n = len(q.packets) if q else 0
        if not (0 <= i < n and 0 <= j < n):
            raise IndexError(f"queue of port {port} holds {n} packets; cannot swap {i} and {j}")
        q.packets[i], q.packets[j] = q.packets[j], q.packets[i]
        if i == 0 or j == 0:
            self._set_head(q)                   # a new head: its own size and enqueue time

    # -- enqueue / dequeue ----------------------------------------------------------------------
    def enqueue(self, port: int, pkt, now: float) -> int | None:
        """Queue ``pkt``; returns the queue depth it found, or None if dropped (queue full)."""
        q = self.queues.get(port) or self._queue(port)
        depth = len(q.packets)
        if depth >= q.depth:
            self.dropped += 1
            return None
        self._seq += 1
        pkt.seq = self._seq
        pkt.enq_time = now
        if q.rate_bps:
            # the PHV does not change while the packet waits (egress runs after dequeue), so its
            # size is computed once here instead of at every departure computation
            pkt.wire_size = self._size_of(pkt)
        q.packets.append(pkt)
        if not depth:
            self._set_head(q)
            self.busy[port] = q
        return depth

    def _set_head(self, q: PortQueue) -> None:
        """Cache when the head packet of (non-empty) ``q`` starts and ends leaving: it starts
        when it was enqueued or when the previous packet's slot ends, whichever is later, and
        with a bit rate it takes 8L/bps seconds."""
        pkt = q.packets[0]
        start = pkt.enq_time if pkt.enq_time > q.next_start else q.next_start
        q.head_start = start
        if q.rate_bps:
            if not pkt.wire_size:               # the rate was set while the packet waited
                pkt.wire_size = self._size_of(pkt)
            q.head_dep = start + 8.0 * pkt.wire_size / q.rate_bps
        else:
            q.head_dep = start

    def next_event_time(self) -> float | None:
        best = None
        for q in self.busy.values():
            dep = q.head_dep
            if best is None or dep < best:
                best = dep
        return best

    def pop_due(self, now: float):
        """The next packet to leave by ``now``: (port, packet, departure, depth after) or None.
        Among queues whose heads are due, the earliest departure leaves first, ties going to
        the packet enqueued first."""
        best = None
        for port, q in self.busy.items():
            dep = q.head_dep
            if dep <= now and (best is None or dep < best.head_dep or
                               (dep == best.head_dep and q.packets[0].seq < best.packets[0].seq)):
                best, best_port = q, port
        if best is None:
            return None
        q, dep = best, best.head_dep
        pkt = q.packets.popleft()
        q.next_start = dep if not q.rate_pps else max(dep, q.head_start + 1.0 / q.rate_pps)
        if q.packets:
            self._set_head(q)
        else:
            del self.busy[best_port]
        return best_port, pkt, dep, len(q.packets)

    def pop_oldest(self):
        """The packet enqueued first, regardless of rates (STF/PTF drain): (port, pkt, depth after)."""
        busy = self.busy
        if len(busy) == 1:          # one queue holds packets: its head is the oldest
            for port, q in busy.items():
                pkt = q.packets[0]
        else:
            best = None
            for port, q in busy.items():
                if best is None or q.packets[0].seq < best[1].seq:
                    best = (port, q.packets[0], q)
            if best is None:
                return None
            port, pkt, q = best
        q.packets.popleft()
        if q.packets:
            self._set_head(q)
        else:
            del self.busy[port]
        return port, pkt, len(q.packets)

    def total_queued(self) -> int:
        return sum(len(q.packets) for q in self.busy.values())
