"""A tiny in-memory network for testing engines: one path each way, fixed delay, and rules
that drop, hold back (reorder), duplicate or EPDN-stamp the sender's data segments.

Data segments from A to B are numbered 1, 2, 3, ... in the order A sends them (first
transmissions and retransmissions alike), so a test says "drop segment 5" or "hold segment 2
back by 4 positions" exactly. Every segment goes through ``netbase.wire`` (encode + decode),
so tests exercise the real wire format. Time is virtual; nothing sleeps.

    net = TestNetwork(TcpConfig(variant="rdtcp", rdtcp=True), data=bytes(20000))
    net.drop(3); net.hold(5, positions=4); net.stamp(6, drop_lo_of=3, drop_hi_of=3)
    net.run()
    assert net.delivered == net.data

``ChaosNetwork`` is the other kind of path: seeded random drops, duplicates and reordering
of every segment both ways, for a whole connection from SYN to both ends CLOSED, the stream
checked byte for byte (hosts.apps).
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field, replace

from hosts.apps import BulkSender, PatternSink
from hosts.tcp import TcpConfig, TcpConnection
from netbase.segment import Segment
from netbase.wire import decode_frame, encode_frame

__all__ = ["TestNetwork", "Sent", "ChaosNetwork"]

A_IP, B_IP = "10.0.0.1", "10.0.0.2"


@dataclass
class Sent:
    """One data segment A sent: its number, time, sequence range (wire) and fate."""
    number: int
    time: float
    seq: int
    end: int
    fate: str = "delivered"


@dataclass
class TestNetwork:
    config: TcpConfig
    data: bytes
    receiver_config: TcpConfig | None = None
    delay: float = 0.01                   # one-way delay, seconds
    serialization: float = 0.0            # seconds each data segment occupies A's link (0: none)
    # (start, length, extra): B's segments sent in [start, start + length) reach A ``extra``
    # seconds late, and the return path stays first in, first out (a delay spike)
    ack_spike: tuple[float, float, float] | None = None
    iss_a: int = 1000
    iss_b: int = 900_000
    close_after: bool = True
    sent: list[Sent] = field(default_factory=list)
    acks: list[Segment] = field(default_factory=list)   # every segment B sent, in order
    events: list[tuple] = field(default_factory=list)    # (time, event, fields) from A's tracer

    def __post_init__(self):
        self.__test__ = False
        self.a = TcpConnection(self.config, local_port=40000, remote_port=80, iss=self.iss_a,
                               tracer=self._trace)
        self.b = TcpConnection(self.receiver_config or self.config, local_port=80,
                               remote_port=40000, iss=self.iss_b)
        self.b.listen()
        self._drops: set[int] = set()
        self._holds: dict[int, int] = {}
        self._dups: set[int] = set()
        self._stamps: dict[int, tuple] = {}
        self._held: list[list] = []       # [remaining positions, segment]
        self._queue: list[tuple] = []
        self._order = 0
        self._link_free = 0.0             # when A's link ends sending its last data segment
        self._last_to_a = 0.0             # latest arrival scheduled at A (FIFO under a spike)
        self._offset = 0
        self.delivered = b""
        self.now = 0.0

    __test__ = False     # not a pytest test class

    # ------------------------------------------------------------------ rules
    def drop(self, *numbers: int) -> None:
        self._drops.update(numbers)

    def hold(self, number: int, *, positions: int) -> None:
        """Deliver segment ``number`` after the next ``positions`` data segments."""
        self._holds[number] = positions

    def duplicate(self, *numbers: int) -> None:
        self._dups.update(numbers)

    def stamp(self, number: int, *, drop_lo_of: int, drop_hi_of: int) -> None:
        """Insert an EPDN option into segment ``number`` reporting that the segments from
        ``drop_lo_of`` to ``drop_hi_of`` were dropped (first byte of one to end of the other)."""
        self._stamps[number] = (drop_lo_of, drop_hi_of)

    # ------------------------------------------------------------------ running
    def _trace(self, event, conn, fields) -> None:
        self.events.append((self.now, event, fields))

    def _push(self, t: float, dst: str, seg: Segment) -> None:
        self._order += 1
        heapq.heappush(self._queue, (t, self._order, dst, seg))

    def _wire(self, seg: Segment, src: str, dst: str) -> Segment:
        return decode_frame(encode_frame(seg, src_ip=src, dst_ip=dst))[2]

    def _from_a(self, segs: list[Segment]) -> None:
        for seg in segs:
            seg = self._wire(seg, A_IP, B_IP)
            if not seg.payload:
                self._push(self.now + self.delay, "b", seg)
                continue
            n = len(self.sent) + 1
            self.sent.append(Sent(n, self.now, seg.seq, (seg.seq + len(seg.payload)) % (1 << 32)))
            if n in self._stamps:
                lo_n, hi_n = self._stamps[n]
                stamp = (self.sent[lo_n - 1].seq, self.sent[hi_n - 1].end)
                seg = replace(seg, options=(("EPDN", stamp),) + seg.options)
                seg = self._wire(seg, A_IP, B_IP)
            if n in self._drops:
                self.sent[-1].fate = "dropped"
                continue
            if n in self._holds:
                self.sent[-1].fate = "held"
                self._held.append([self._holds[n], seg])
                continue
            self._deliver_data(seg)
            if n in self._dups:
                self._deliver_data(seg)

    def _deliver_data(self, seg: Segment) -> None:
        # data segments leave one after another when serialization is set (distinct arrival
        # times, and distinct millisecond timestamps on the segments sent in reply)
        self._link_free = max(self.now, self._link_free) + self.serialization
        arrival = self._link_free + self.delay
        self._push(arrival, "b", seg)
        still = []
        for entry in self._held:
            entry[0] -= 1
            if entry[0] <= 0:
                self._push(arrival, "b", entry[1])
            else:
                still.append(entry)
        self._held = still

    def _pump_app(self) -> None:
        a = self.a
        while self._offset < len(self.data):
            n = min(a.send_buffer_space(), len(self.data) - self._offset)
            if n <= 0:
                break
            a.send(self.data[self._offset:self._offset + n])
            self._offset += n
        if self._offset >= len(self.data) and self.close_after:
            a.close()
        self._from_a(a.poll(now=self.now))

    def run(self, *, until: float = 600.0, max_events: int = 1_000_000) -> "TestNetwork":
        self._from_a(self.a.connect(now=0.0))
        for _ in range(max_events):
            nxt = self._queue[0][0] if self._queue else None
            timers = [(t, c) for c, t in (("a", self.a.next_timer()), ("b", self.b.next_timer()))
                      if t is not None]
            t_timer, who = min(timers) if timers else (None, None)
            if nxt is None and t_timer is None:
                if self._held:          # nothing else moves: release what is held
                    for _, seg in self._held:
                        self._push(self.now + self.delay, "b", seg)
                    self._held = []
                    continue
                break
            if t_timer is not None and (nxt is None or t_timer < nxt):
                self.now = t_timer
                if self.now > until:
                    break
                if who == "a":
                    self._from_a(self.a.on_timer(now=self.now))
                else:
                    for s in self.b.on_timer(now=self.now):
                        self._to_a(s)
                continue
            t, _, dst, seg = heapq.heappop(self._queue)
            self.now = t
            if self.now > until:
                break
            if dst == "b":
                for s in self.b.on_segment(seg, now=self.now):
                    self._to_a(s)
                self.delivered += self.b.receive()
                if self.b.state == "CLOSE-WAIT" and self.close_after:
                    self.b.close()                  # B's application closes after A's FIN
                    for s in self.b.poll(now=self.now):
                        self._to_a(s)
            else:
                self._from_a(self.a.on_segment(seg, now=self.now))
                self._pump_app()
        return self

    def _to_a(self, seg: Segment) -> None:
        seg = self._wire(seg, B_IP, A_IP)
        self.acks.append(seg)
        arrival = self.now + self.delay
        if self.ack_spike is not None:
            start, length, extra = self.ack_spike
            if start <= self.now < start + length:
                arrival += extra
            arrival = self._last_to_a = max(arrival, self._last_to_a)
        self._push(arrival, "a", seg)

    # ------------------------------------------------------------------ what happened
    def retransmissions(self) -> list[Sent]:
        """Data segments A sent again (a sequence range seen before)."""
        seen, out = set(), []
        for s in self.sent:
            if s.seq in seen:
                out.append(s)
            seen.add(s.seq)
        return out

    def events_named(self, name: str) -> list[tuple]:
        return [e for e in self.events if e[1] == name]


@dataclass
class ChaosNetwork:
    """A transfer of ``total`` pattern bytes from A to B over a path that, in both directions
    and for every segment (SYNs, data, ACKs, FINs, resets), drops it with probability ``drop``,
    sends it twice with probability ``duplicate`` and delays it with probability ``reorder`` by
    up to three times ``delay`` more (so later segments overtake it), all drawn from
    ``random.Random(seed)``. A closes once it has written everything, B once it has read A's
    FIN (as TestNetwork's applications do). ``run`` goes on until neither end has a timer
    armed and nothing is in flight: with the default TIME-WAIT of 2*MSL that is when both ends
    are CLOSED, or ``until`` seconds. Then ``sink.ok`` and ``sink.bytes == total`` say the
    stream arrived exactly, and each end's ``state`` and ``error`` how it ended."""

    config: TcpConfig
    total: int
    seed: int = 0
    drop: float = 0.25
    duplicate: float = 0.25
    reorder: float = 0.25
    delay: float = 0.01                   # one-way delay, seconds
    receiver_config: TcpConfig | None = None
    iss_a: int = 2**32 - 3000             # both directions cross 2^32 early
    iss_b: int = 2**32 - 1
    until: float = 3600.0
    max_events: int = 200_000

    def __post_init__(self):
        self.__test__ = False
        self.a = TcpConnection(self.config, local_port=40000, remote_port=80, iss=self.iss_a)
        self.b = TcpConnection(self.receiver_config or self.config, local_port=80,
                               remote_port=40000, iss=self.iss_b)
        self.b.listen()
        self.source = BulkSender(self.total, seed=self.seed)
        self.sink = PatternSink(seed=self.seed)
        self.now = 0.0
        self.segments = 0                 # segments the two ends sent
        self.dropped = self.duplicated = self.delayed = 0     # what the path did to them
        self._rng = random.Random(self.seed)
        self._queue: list[tuple] = []
        self._order = 0

    __test__ = False     # not a pytest test class

    def _send(self, segs: list[Segment], src: str) -> None:
        dst, src_ip, dst_ip = ("b", A_IP, B_IP) if src == "a" else ("a", B_IP, A_IP)
        rng = self._rng
        for seg in segs:
            self.segments += 1
            frame = encode_frame(seg, src_ip=src_ip, dst_ip=dst_ip)
            if rng.random() < self.drop:
                self.dropped += 1
                continue
            copies = 2 if rng.random() < self.duplicate else 1
            self.duplicated += copies - 1
            for _ in range(copies):
                late = 0.0
                if rng.random() < self.reorder:
                    late = rng.uniform(0, 3 * self.delay)
                    self.delayed += 1
                self._order += 1
                heapq.heappush(self._queue, (self.now + self.delay + late, self._order, dst,
                                             frame))

    def _pump(self) -> None:
        self._send(self.source.pump(self.a, self.now), "a")

    def _deliver(self, dst: str, frame: bytes) -> None:
        seg = decode_frame(frame)[2]
        if dst == "a":
            self._send(self.a.on_segment(seg, now=self.now), "a")
            self._pump()
            return
        b = self.b
        self._send(b.on_segment(seg, now=self.now), "b")
        self.sink.pump(b, self.now)
        if b.state == "CLOSE-WAIT":
            b.close()                           # B's application closes after A's FIN
            self._send(b.poll(now=self.now), "b")

    def run(self) -> "ChaosNetwork":
        self._send(self.a.connect(now=0.0), "a")
        for _ in range(self.max_events):
            due = [(t, end) for end, t in (("a", self.a.next_timer()), ("b", self.b.next_timer()))
                   if t is not None]
            if self._queue and (not due or self._queue[0][0] <= min(due)[0]):
                t, _, dst, frame = heapq.heappop(self._queue)
                if t > self.until:
                    break
                self.now = t
                self._deliver(dst, frame)
            elif due:
                t, end = min(due)
                if t > self.until:
                    break
                self.now = t
                if end == "a":
                    self._send(self.a.on_timer(now=t), "a")
                    self._pump()
                else:
                    self._send(self.b.on_timer(now=t), "b")
            else:
                break
        return self
