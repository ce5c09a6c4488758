"""One direction of a TCP connection as a passive model of its sender ([TCPDEBUG] §3.1).

The flow keeps the history of every segment still outstanding (and, for a while after it is
acknowledged, of every retransmitted one, so that a late DSACK finds it): its transmissions,
when it was first acknowledged (cumulatively or by SACK), the DSACKs received for it. Memory
is proportional to the window, not to the trace. The ACK stream drives the profiles' machines
(analyzer/machine.py); each out-of-sequence segment is classified by every machine, and the
*need* of each retransmission is judged once, from the ACK stream alone:

- unneeded: a DSACK reports it (RFC 2883; RFC 3708), or an ACK covering the segment arrives
  sooner after it than the minimum RTT (too soon to answer it; [TCPDEBUG] §3.1.2 uses 0.75 of it
  at a monitor away from the sender), or the segment was already acknowledged when it was
  sent;
- needed: the segment was acknowledged later than that, and no DSACK came for it;
- unknown: the trace ends before the segment is acknowledged.

Positions are unwrapped offsets from the initial sequence number (the SYN is 0, data starts at
1, as Wireshark's relative sequence numbers), converted with netbase.seq's mod-2^32 helpers.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import deque

from netbase.seq import SEQ_MOD, seq_sub
from analyzer.machine import OPEN, Machine

__all__ = ["Flow", "Nic", "Record", "Retransmission", "NEEDED", "UNNEEDED", "UNKNOWN",
           "REORDER", "DUPLICATE"]

_MASK = SEQ_MOD - 1
SYN, FIN, RST, ACK = 0x02, 0x01, 0x04, 0x10

NEEDED, UNNEEDED, UNKNOWN = "needed", "unneeded", "unknown"
_PENDING, _COVERED = None, "covered"    # no ACK yet; ACKed late enough (needed unless DSACK)
_NEVER = float("-inf")                  # Record.last_retx of a segment never retransmitted
REORDER = "network_reorder"             # kinds of an OOS segment that is no retransmission
DUPLICATE = "network_duplicate"


# deferred machine calls (Flow._defer): opcodes and their argument counts; the log holds this
# many numbers before the machines are built anyway
_START, _ADVANCE, _RTT, _NEW_DATA = 0, 1, 2, 3
_ARITY = (1, 3, 4, 2)
_DEFERRED_MAX = 64
_SLOWEST_PER_BYTE = 8 / 1e6     # a gap longer than a 1 Mb/s interface takes is idle time


class Nic:
    """What a capture at a host's interface shows of its transmit queue.

    A capture taken where the frames leave (a tap, or the simulator's, which stamps a frame
    when its last bit leaves) shows a frame the sender queued behind others only when those
    are out: meanwhile ACKs keep arriving, so the trace shows ACKs the sender had not yet seen
    when it decided. Frames that leave back to back (spaced by their own serialisation time
    at the fastest rate seen) were queued; a larger gap means the interface was idle. So a
    frame was decided no earlier than the start of its back-to-back train (``busy_start``),
    and a frame not yet seen was not queued at any moment the interface is known to have
    been idle (``idle_after``). A capture stamped before the queue (tcpdump on the host)
    shows no trains, and the bounds become the stamps themselves.
    """

    __slots__ = ("per_byte", "last", "busy_start", "idle_seen", "max_len")

    def __init__(self):
        self.per_byte: float | None = None  # fastest spacing seen, seconds per byte
        self.last: float | None = None      # stamp of the latest frame sent
        self.busy_start = 0.0               # start of the train the latest frame was in
        self.idle_seen = float("-inf")      # latest moment known idle (before a train)
        self.max_len = 0

    def on_frame(self, t: float, length: int) -> None:
        if length > self.max_len:
            self.max_len = length
        last = self.last
        if last is not None and t > last:
            pb = (t - last) / length
            if pb <= _SLOWEST_PER_BYTE and (self.per_byte is None or pb < self.per_byte):
                self.per_byte = pb
        ser = (self.per_byte or 0.0) * length
        # back to back: one serialisation time after the previous frame, within the
        # microsecond rounding of pcap stamps
        if last is None or t - last > ser * 1.01 + 3e-6:
            self.busy_start = t - ser
            if self.busy_start > self.idle_seen:
                self.idle_seen = self.busy_start
        self.last = t

    def idle_after(self, now: float, slack: float) -> float:
        """The latest moment up to ``now`` at which the interface is known to have been idle:
        a frame in transmission then would have been stamped (and seen) by ``now``."""
        m = now - (self.per_byte or 0.0) * self.max_len - slack
        if self.last is None or m > self.last:
            return m if m > self.idle_seen else self.idle_seen
        return self.idle_seen


class Retransmission:
    """One out-of-sequence transmission of a segment: its class under each profile (None for
    a network reorder or duplicate, whose ``kind`` says so), the duplicate ACKs seen when it
    left and its need."""

    __slots__ = ("time", "index", "kind", "classes", "dupacks", "need", "why")

    def __init__(self, time, index, kind, classes, dupacks):
        self.time, self.index, self.kind = time, index, kind
        self.classes, self.dupacks = classes, dupacks
        self.need = _PENDING
        self.why = ""


class Record:
    """A segment [start, end): its transmission times and what the ACK stream said of it."""

    __slots__ = ("start", "end", "tx", "ip_id", "sacked", "acked_at", "acked_by", "dsacks",
                 "events", "last_retx", "first_oos", "flight")

    def __init__(self, start, end, time, ip_id, flight=0):
        self.start, self.end = start, end
        self.tx = [time] if time is not None else []
        self.ip_id = ip_id
        self.sacked = False
        self.acked_at = None            # first time a cumulative ACK or a SACK block covered it
        self.acked_by = ""
        self.dsacks = 0
        self.events: list | None = None  # Retransmission per OOS transmission
        self.last_retx = _NEVER
        self.first_oos = False          # first seen out of sequence (lost before the vantage)
        self.flight = flight            # bytes outstanding once it was first sent (RTT series)


class Flow:
    """The data one endpoint sends and the ACKs it gets back, seen at one vantage point.

    Per-direction state is kept small, because a trace may hold millions of connections: the
    profiles' machines are built only when the flow first gives them something to judge (a
    duplicate ACK, an out-of-sequence segment, a resent SYN) or after ``_DEFERRED_MAX`` timer
    and RTT events, which are replayed into them then (each machine is a deterministic function
    of those calls, so the result is the same as building them at once); counters and tables
    that most flows never fill are created on first use."""

    __slots__ = ("conn_id", "sender", "receiver", "cfg", "sink", "labels", "path", "slack",
                 "profiles", "machines", "_deferred", "nic", "started", "base", "handshake",
                 "sack", "timestamps", "rdtcp", "syn_options", "snd_una", "snd_max", "fin_end",
                 "recs", "starts", "head", "settling", "una_time", "dupacks", "last_window",
                 "sacked_hi", "sack_seen", "_sack_memo", "timed", "subrtt", "min_rtt",
                 "rtt_by_len", "unneeded_fraction", "max_rtt", "ipid_max", "ipid_sequential",
                 "pending_machines", "first_time", "last_time", "data_packets", "data_bytes",
                 "acks", "dupack_total", "oos", "retransmissions", "reorders", "duplicates",
                 "syn_retransmissions", "dsack_retransmitted", "dsack_other", "acks_beyond",
                 "gaps", "need", "unneeded_by", "need_by_class", "disagree", "reorder_delays",
                 "series")

    def __init__(self, conn_id: int, sender: tuple, receiver: tuple, profiles, config, sink):
        self.conn_id = conn_id
        self.sender, self.receiver = sender, receiver
        self.cfg = config
        self.sink = sink                    # called with (flow, record) when a record is final
        self.labels = None                  # the sink's text for the two endpoints
        self.path = config.vantage == "path"
        self.slack = config.response_slack
        self.profiles = profiles
        self.machines: list | None = None   # built on demand (see the class docstring)
        self._deferred = array("d")         # machine calls made before they were built
        self.nic: Nic | None = None         # the sender's interface (sender vantage)
        self.started = False
        self.base = 0                       # wire sequence number of offset 0
        self.handshake = False              # our SYN was seen
        self.sack: bool | None = None       # negotiated (None: handshake not seen)
        self.timestamps: bool | None = None
        self.rdtcp: bool | None = None
        self.syn_options = ()
        self.snd_una = self.snd_max = 0
        self.fin_end: int | None = None     # offset just past our FIN, once sent
        self.recs: list[Record] = []
        self.starts: list[int] = []
        self.head = 0
        self.settling: deque | None = None  # acknowledged records with retransmissions
        self.una_time = None                # when the cumulative ACK last advanced
        self.dupacks = 0
        self.last_window = None
        self.sacked_hi = 0
        self.sack_seen = False
        self._sack_memo: dict | None = None
        self.timed: Record | None = None    # the segment timed for per-flight RTT samples
        self.subrtt = 0.0                   # monitor -> sender -> monitor (path vantage)
        self.min_rtt: float | None = None   # vantage -> receiver -> vantage
        self.rtt_by_len = None              # the smallest such RTT per data segment size
        # an ACK sooner than this fraction of the minimum RTT after a retransmission cannot
        # answer it: 1 at the sender, where the minimum is measured from the same place as
        # the retransmission leaves; TCPdebug's 0.75 away from it ([TCPDEBUG] §3.1.2)
        self.unneeded_fraction = (config.unneeded_fraction if config.unneeded_fraction
                                  is not None else (0.75 if self.path else 1.0))
        self.max_rtt = 0.0
        self.ipid_max: int | None = None
        self.ipid_sequential = True
        self.pending_machines = False
        # counts
        self.first_time = self.last_time = None
        self.data_packets = 0
        self.data_bytes = 0
        self.acks = 0
        self.dupack_total = 0
        self.oos = 0
        self.retransmissions = 0
        self.reorders = 0
        self.duplicates = 0
        self.syn_retransmissions = 0
        self.dsack_retransmitted = 0        # DSACKs for data we sent more than once
        self.dsack_other = 0
        self.acks_beyond = 0                # ACKs for data the vantage never saw
        self.gaps = 0                       # new data above a hole (path vantage)
        # need of the retransmissions, created with the first one
        self.need: dict | None = None
        self.unneeded_by: dict | None = None
        self.need_by_class: list | None = None  # per profile: class -> need -> count
        self.disagree: set | None = None    # pairs of profiles that classified a segment apart
        self.reorder_delays: list | None = None  # kept bounded: a sample for the summary
        self.series = None                  # analyzer.series.SeriesRecorder, when asked for

    # ------------------------------------------------------------------ the machines
    def _materialize(self) -> list:
        """Build the profiles' machines now and replay into them what they were told so far."""
        machines = self.machines
        if machines is not None:
            return machines
        strict = not self.path
        machines = self.machines = [Machine(p, strict=strict, slack=self.slack)
                                    for p in self.profiles]
        log = self._deferred
        self._deferred = None
        i = 0
        while i < len(log):
            op = log[i]
            if op == _START:
                t = log[i + 1]
                for m in machines:
                    m.start_timer_if_idle(t)
            elif op == _ADVANCE:
                now, a, outstanding = log[i + 1], int(log[i + 2]), bool(log[i + 3])
                for m in machines:
                    m.on_advance(now, a, outstanding)
            elif op == _RTT:
                sample, per_flight = log[i + 1], bool(log[i + 2])
                una, nxt = int(log[i + 3]), int(log[i + 4])
                for m in machines:
                    if m.p.per_flight_rtt == per_flight:
                        m.rtt_sample(sample, snd_una=una, snd_nxt=nxt)
            else:                           # _NEW_DATA (path vantage)
                s, hole = int(log[i + 1]), bool(log[i + 2])
                for m in machines:
                    m.on_new_data(s, hole)
            i += 1 + _ARITY[int(op)]
        return machines

    def _defer(self, *call) -> None:
        """Note a machine call for later (``_materialize``): an opcode and its arguments as
        doubles (offsets below 2^53 and times are exact), a few bytes a call."""
        log = self._deferred
        log.extend(call)
        if len(log) >= _DEFERRED_MAX:
            self._materialize()

    # ------------------------------------------------------------------ helpers
    def offset(self, wire: int, near: int) -> int:
        """The unwrapped offset of wire sequence number ``wire``, taken nearest ``near``."""
        return near + seq_sub(wire, (self.base + near) & _MASK)

    def _response(self) -> float:
        """Away from the sender: how long after an ACK passes the vantage the sender's answer
        to it can still pass (the vantage -> sender -> vantage loop and the queues on it)."""
        if self.min_rtt is None:
            return 1.0
        return max(2 * self.max_rtt, 0.01)

    def _sent_after(self, now: float) -> float:
        """The earliest time the sender can have decided to send the frame seen at now: away
        from the sender, up to a response window earlier (the frame may have waited in the
        queues between them); at the sender, the start of its train (``Nic``)."""
        if self.path:
            return now - self._response()
        nic = self.nic
        return nic.busy_start if nic is not None and nic.last == now else now

    def _find(self, pos: int):
        """Index of the outstanding record holding ``pos``, or -1."""
        i = bisect_right(self.starts, pos, self.head) - 1
        if i >= self.head and self.recs[i].end > pos:
            return i
        return -1

    def _tick(self, now: float) -> None:
        if self.pending_machines:
            if self.path:
                idle, response = None, self._response()
            else:
                nic = self.nic
                idle = nic.idle_after(now, self.slack) if nic is not None else now - self.slack
                response = 0.0
            any_left = False
            for m in self.machines:
                if m.expecting:
                    m.tick(now, idle, response)
                    any_left = any_left or m.expecting
            self.pending_machines = any_left
        settling = self.settling
        if settling:
            horizon = max(self.cfg.dsack_horizon, 8 * self.max_rtt)
            while settling and now - settling[0].last_retx > horizon:
                self._final(settling.popleft())

    # ------------------------------------------------------------------ data
    def on_syn(self, now: float, pkt) -> None:
        self.last_time = now
        if not self.started:
            self.started = self.handshake = True
            self.base = pkt.seq
            self.syn_options = pkt.options
            self.first_time = now
            rec = Record(0, 1, now, pkt.ip_id)
            self.recs.append(rec)
            self.starts.append(0)
            self.timed = rec
            self.snd_una, self.snd_max = 0, 1
            sent = self._sent_after(now)
            if self.machines is None:
                self._defer(_START, sent)
            else:
                for m in self.machines:
                    m.start_timer_if_idle(sent)
            if self.series is not None:
                self.series.on_timer_start(sent, 1)
            return
        if not self.handshake or pkt.seq != self.base or self.snd_una > 0:
            return                          # a stray SYN; the caller starts new connections
        rec = self.recs[self.head]
        gap = now - rec.tx[-1]
        rec.tx.append(now)
        self.syn_retransmissions += 1
        for m in self._materialize():
            m.syn_retransmitted(gap, len(rec.tx) - 1)

    def on_data(self, now: float, pkt) -> None:
        n = pkt.length + (1 if pkt.flags & FIN else 0)
        if not n:
            return
        self.last_time = now
        if not self.started:                # a capture that begins mid-connection
            self.started = True
            self.base = (pkt.seq - 1) & _MASK
            self.snd_una = self.snd_max = 1
            self.first_time = now
        if self.pending_machines or self.settling:
            self._tick(now)
        s = self.offset(pkt.seq, self.snd_max)
        e = s + n
        self.data_packets += 1
        if pkt.flags & FIN:
            self.fin_end = e
        fin = 1 if pkt.flags & FIN else 0
        if s >= self.snd_max:
            self._new_data(now, s, e, pkt.ip_id, fin)
            return
        if e > self.snd_max:                # a resend that also carries new data
            self._new_data(now, self.snd_max, e, pkt.ip_id, fin)
            e = self.snd_max
        self._out_of_sequence(now, s, e, pkt.ip_id)

    def _new_data(self, now, s, e, ip_id, fin) -> None:
        hole = s > self.snd_max
        if hole:
            self.gaps += 1                  # lost before the vantage (path)
        if self.path:
            if self.machines is None:
                self._defer(_NEW_DATA, s, hole)
            else:
                for m in self.machines:
                    m.on_new_data(s, hole)
        idle = self.snd_una >= self.snd_max     # nothing outstanding: the timer starts
        rec = Record(s, e, now, ip_id, e - self.snd_una)
        self.recs.append(rec)
        self.starts.append(s)
        self.snd_max = e
        self.data_bytes += e - s - fin      # payload: the FIN takes a sequence number only
        if self.timed is None:
            self.timed = rec
        self._note_ip_id(ip_id)
        sent = self._sent_after(now)
        if self.machines is not None:
            for m in self.machines:
                m.start_timer_if_idle(sent)
        elif idle:
            # every machine's timer is stopped exactly when nothing is outstanding (they all
            # get the same calls), so only this send can start it (RFC 6298 (5.1))
            self._defer(_START, sent)
        if idle and self.series is not None:
            self.series.on_timer_start(sent, e - self.snd_una)

    def _note_ip_id(self, ip_id: int) -> None:
        # IP-IDs help only when the sender numbers its packets (RFC 6864 lets an atomic
        # datagram carry 0, as the lab's hosts do)
        if self.ipid_max is None:
            self.ipid_max = ip_id
        elif ((ip_id - self.ipid_max) & 0xFFFF) < 0x8000:
            if ip_id == self.ipid_max:
                self.ipid_sequential = False
            self.ipid_max = ip_id

    def _out_of_sequence(self, now, s, e, ip_id) -> None:
        self.oos += 1
        self._materialize()
        i = self._find(s)
        acked = False                       # all of it acknowledged before
        if i >= 0:
            rec = self.recs[i]
        elif s >= self.snd_una:             # never seen here: lost before the vantage
            rec = Record(s, e, None, ip_id, self.snd_max - self.snd_una)
            rec.first_oos = True
            i = bisect_left(self.starts, s, self.head)
            self.recs.insert(i, rec)
            self.starts.insert(i, s)
        else:                               # already acknowledged
            rec = self._settled(s)
            if rec is None:                 # kept a while for the DSACK that may follow
                rec = Record(s, e, None, ip_id)
                rec.acked_at, rec.acked_by = self.una_time, "cum"
                self._settle(rec)
            acked = True
        if rec.tx and ip_id and ip_id == rec.ip_id:
            self._record_other(now, rec, DUPLICATE)        # [TCPDEBUG] §3.1 rule: same IP-ID
            self.duplicates += 1
        elif self.path and not acked and self._reordered(now, i, rec, s, e, ip_id):
            self._record_other(now, rec, REORDER)
            self.reorders += 1
        else:
            self._retransmission(now, rec, s, e)
        rec.ip_id = ip_id

    def _reordered(self, now, i, rec, s, e, ip_id) -> bool:
        """Whether an OOS segment seen away from the sender is network reordering ([TCPDEBUG]
        §3.1): it arrives within 0.75 x the minimum RTT after the next higher segment (the
        first time that one passed), or it carries an IP-ID below one already seen from the
        sender (a retransmission carries a higher one). And, our addition for the deep queue
        swaps of the lab, whose resequencing delays reach the RTT: a segment first seen here
        that nothing could have made the sender resend yet (no duplicate ACK for it, no
        recovery under way, no timer run out) is reordering too."""
        delay = self._resequencing_delay(now, i)
        if ip_id and self.ipid_sequential and self.ipid_max is not None \
                and ((ip_id - self.ipid_max) & 0xFFFF) >= 0x8000:
            pass
        elif not rec.tx and not self._could_be_resent(now, s, e):
            pass
        elif not (delay is not None and self.min_rtt is not None
                  and delay <= self.cfg.reorder_fraction * self.min_rtt):
            return False
        if delay is not None:
            if self.reorder_delays is None:
                self.reorder_delays = []
            if len(self.reorder_delays) < 10000:
                self.reorder_delays.append(delay)   # a sample for Fig 3.6's distribution
        return True

    def _resequencing_delay(self, now, i):
        """Time since the next higher segment first passed ([TCPDEBUG] §3.1.2, Fig 3.6), or None."""
        recs = self.recs
        j = i + 1
        while j < len(recs) and recs[j].first_oos:
            j += 1              # a segment first seen out of sequence dates nothing
        if j >= len(recs) or not recs[j].tx:
            return None
        delay = now - recs[j].tx[0]
        return delay if delay >= 0 else None

    def _could_be_resent(self, now, s, e) -> bool:
        """A cause the sender could have had to resend [s, e) by now, as the ACKs that passed
        the vantage show it: duplicate ACKs at it, a recovery in progress, a timer that ran
        out (under the most eager profile)."""
        if s <= self.snd_una < e and self.dupacks:
            return True
        for m in self.machines:
            if m.state != OPEN or m.timer_fired(now):
                return True
        return False

    def _record_other(self, now, rec, kind) -> None:
        ev = Retransmission(now, len(rec.tx), kind, None, self.dupacks)
        ev.need = UNKNOWN
        if rec.events is None:
            rec.events = []
        rec.events.append(ev)
        rec.tx.append(now)

    def _retransmission(self, now, rec, s, e) -> None:
        self.retransmissions += 1
        una = self.snd_una
        sacked_above = self.sacked_hi > s
        sack_mode = self.sack if self.sack is not None else (True if self.sack_seen else None)
        sent = self._sent_after(now)
        window = self._response() if self.path else self.slack
        # SACKed before the sender can have decided to resend it (a SACK that arrived while
        # the segment waited in the sender's queue came too late to stop it)
        sacked = rec.sacked and rec.acked_at is not None and rec.acked_at <= sent
        classes = tuple(m.classify(now, s, e, una, self.dupacks, self.snd_max, rec.last_retx,
                                   sacked, sacked_above, sack_mode, sent, window)
                        for m in self.machines)
        if len(set(classes)) > 1:
            if self.disagree is None:
                self.disagree = set()
            for a in range(len(classes)):
                for b in range(a + 1, len(classes)):
                    if classes[a] != classes[b]:
                        self.disagree.add((a, b))
        ev = Retransmission(now, len(rec.tx), None, classes, self.dupacks)
        if rec.acked_at is not None and rec.acked_at <= now:
            self._unneeded(ev, "acked-before-sent")
        if rec.events is None:
            rec.events = []
        rec.events.append(ev)
        rec.tx.append(now)
        rec.last_retx = now
        # Karn as BSD's t_rtt and ns-2's agents run it: any retransmission stops the per-flight
        # timing, and the next new segment is the one timed
        self.timed = None
        for m in self.machines:
            m.start_timer_if_idle(sent)
        self.pending_machines = any(m.expecting for m in self.machines)
        if self.series is not None:
            self.series.on_retransmission(now, rec, ev, self.snd_max)

    def _settle(self, rec: Record) -> None:
        """Keep an acknowledged record with retransmissions for the DSACK horizon."""
        if self.settling is None:
            self.settling = deque()
        self.settling.append(rec)

    def _settled(self, s):
        """The acknowledged record still kept (for a DSACK) that holds ``s``, or None."""
        for rec in self.settling or ():
            if rec.start <= s < rec.end:
                return rec
        return None

    # ------------------------------------------------------------------ ACKs
    def on_ack(self, now: float, pkt) -> None:
        """An ACK from the receiver (any segment of it with the ACK flag)."""
        if not self.started:
            return
        self.last_time = now
        if self.pending_machines or self.settling:
            self._tick(now)
        a = self.offset(pkt.ack, self.snd_una)
        if a > self.snd_max:
            self.acks_beyond += 1
            return
        if a < self.snd_una:
            return                          # an old ACK (RFC 9293 §3.10.7.4)
        self.acks += 1
        new_sack = False
        blocks = pkt.option("SAck") if pkt.options else None
        if blocks:
            self.sack_seen = True
            new_sack = self._sack_blocks(now, blocks, a)
        if a > self.snd_una:
            self._advance(now, a)
        elif self._is_dupack(pkt, new_sack):
            self.dupacks += 1
            self.dupack_total += 1
            i = self._find(a)
            head = (a, self.recs[i].end) if i >= 0 else (a, a + 1)
            reorder = bool(pkt.reserved & 0x02)     # RD-TCP's reorder bit (docs/architecture.md §4)
            rdtcp_ok = self.rdtcp is not False
            if self.series is not None:
                self.series.on_dupack(now)
            for m in self._materialize():
                m.on_dupack(now, self.dupacks, reorder, rdtcp_ok, head)
                if m.pending is not None:
                    self.pending_machines = True
        self.last_window = pkt.window

    def _is_dupack(self, pkt, new_sack: bool) -> bool:
        """RFC 6675 §2 with SACK (an ACK that SACKs new data), else RFC 5681 §2 (no data, no
        SYN/FIN, same window, data outstanding): the engine's own definition."""
        if self.snd_max <= self.snd_una:
            return False
        if self.sack or (self.sack is None and self.sack_seen):
            return new_sack
        return (not pkt.length and not pkt.flags & (SYN | FIN)
                and pkt.window == self.last_window)

    def _advance(self, now: float, a: int) -> None:
        recs = self.recs
        i = self.head
        newest_once = last = None
        clean = True                # no segment it covers was resent or SACKed before
        resent = False              # a segment it covers was resent (Karn: no sample at all)
        while i < len(recs) and recs[i].end <= a:
            rec = last = recs[i]
            if rec.acked_at is None:
                self._cover(rec, now, "cum")
            if len(rec.tx) == 1 and not rec.sacked and not rec.events:
                newest_once = rec
            else:
                clean = False
                if rec.last_retx > _NEVER:
                    resent = True
            if rec.events:
                self._settle(rec)
            else:
                self._final(rec)
            i += 1
        self.head = i
        if i == len(recs):                  # all acknowledged: nothing to keep
            recs.clear()
            self.starts.clear()
            self.head = 0
        elif i > 64 and i * 2 > len(recs):  # drop the acknowledged prefix (amortised)
            del recs[:i]
            del self.starts[:i]
            self.head = 0
        memo = self._sack_memo
        if memo is not None and len(memo) > 64:
            self._sack_memo = {l: r for l, r in memo.items() if l >= a}
        self.snd_una = a
        self.una_time = now
        self.dupacks = 0
        if i < len(recs) and recs[i].start < a and recs[i].last_retx > _NEVER:
            resent = True                   # (a resent segment the ACK covers in part)
        # RTT samples as the engine takes them (Karn, RFC 6298 §3): the newest segment the ACK
        # covers that was sent once, none when it also covers a resent one; and the per-flight
        # sample of the timed segment, whose timing a retransmission stops (``_retransmission``)
        if newest_once is not None and not resent:
            self._rtt_sample(now - newest_once.tx[0], newest_once, per_flight=False, ack=a)
        timed = self.timed
        if timed is not None and timed.end <= a:
            if len(timed.tx) == 1:
                self._rtt_sample(now - timed.tx[0], timed, per_flight=True, ack=a)
            else:
                timed = None
            self.timed = None
        else:
            timed = None
        outstanding = self.snd_max > a
        if self.machines is None:
            self._defer(_ADVANCE, now, a, outstanding)
        else:
            for m in self.machines:
                m.on_advance(now, a, outstanding)
                if m.expecting:
                    self.pending_machines = True
        if self.series is not None:
            # TCPdebug's RTT samples ([TCPDEBUG] §5.3.1): the segment whose arrival made this ACK
            # (the newest it covers, ending where it points), when every segment it covers
            # was sent once and none was SACKed (else a resend or a late segment filling a
            # hole made the ACK: no unambiguous pair); and the segment a sender timing one
            # per flight would have timed
            trigger = (last if clean and last is not None and last.end == a
                       and not last.first_oos else None)
            self.series.on_advance(now, a, self.snd_max, trigger, timed)

    def _rtt_sample(self, rtt: float, rec: Record, *, per_flight: bool, ack: int) -> None:
        if not per_flight:
            if self.min_rtt is None or rtt < self.min_rtt:
                self.min_rtt = rtt
            if rtt > self.max_rtt:
                self.max_rtt = rtt
            n = rec.end - rec.start
            if rec.start > 0:           # data, not the SYN
                by_len = self.rtt_by_len
                if by_len is None:
                    self.rtt_by_len = array("d", (n, rtt))
                else:                   # (size, smallest RTT) pairs, at most 64 sizes
                    for i in range(0, len(by_len), 2):
                        if by_len[i] == n:
                            if rtt < by_len[i + 1]:
                                by_len[i + 1] = rtt
                            break
                    else:
                        if len(by_len) < 128:
                            by_len.extend((n, rtt))
        sample = rtt + self.subrtt
        if self.machines is None:
            self._defer(_RTT, sample, per_flight, ack, self.snd_max)
            return
        for m in self.machines:
            if m.p.per_flight_rtt == per_flight:
                m.rtt_sample(sample, snd_una=ack, snd_nxt=self.snd_max)

    def _cover(self, rec: Record, now: float, how: str) -> None:
        rec.acked_at = now
        rec.acked_by = how
        if not rec.events:
            return
        soon = self.unneeded_fraction * self._min_rtt_for(rec.end - rec.start)
        for ev in rec.events:
            if ev.kind is None and ev.need is _PENDING:
                if now - ev.time < soon:
                    self._unneeded(ev, "ack-too-soon")
                else:
                    ev.need = _COVERED

    def _min_rtt_for(self, n: int) -> float:
        """The smallest RTT measured for a segment no longer than ``n`` bytes: a bound no
        answer to a segment of that size can beat (a longer segment takes longer to send,
        the SYN least of all, so it is used only when no data sample is small enough)."""
        best = None
        by_len = self.rtt_by_len or ()
        for i in range(0, len(by_len), 2):
            if by_len[i] <= n and (best is None or by_len[i + 1] < best):
                best = by_len[i + 1]
        if best is None:
            best = self.min_rtt
        return 0.0 if best is None else best

    def _unneeded(self, ev: Retransmission, why: str) -> None:
        ev.need = UNNEEDED
        ev.why = why

    def _sack_blocks(self, now: float, blocks, a: int) -> bool:
        una = self.snd_una
        parsed = [(self.offset(l, una), self.offset(r, una)) for l, r in blocks]
        first = parsed[0]
        # RFC 2883 §4: a DSACK is the first block, below the cumulative ACK or inside the
        # second block (the engine's test, hosts/tcp/connection.py _on_sack_blocks)
        if first[0] < a or (len(parsed) > 1 and parsed[1][0] <= first[0]
                            and first[1] <= parsed[1][1]):
            self._dsack(now, *first)
            parsed = parsed[1:]
        news = False
        for left, right in parsed:
            if left >= right or left < una or right > self.snd_max:
                continue                    # RFC 2018 §8: a block we cannot use
            news |= self._mark_sacked(now, left, right)
        return news

    def _mark_sacked(self, now: float, left: int, right: int) -> bool:
        if self._sack_memo is None:
            self._sack_memo = {}
        done = self._sack_memo.get(left)
        if done is not None and done >= right:
            return False                    # the receiver repeats blocks: skip what we did
        recs, starts = self.recs, self.starts
        if done is not None:
            i = self._find(done - 1)
            i = bisect_left(starts, left, self.head) if i < 0 else i
        else:
            i = bisect_left(starts, left, self.head)
        news = False
        n = len(recs)
        while i < n:
            rec = recs[i]
            if rec.start >= right:
                break
            i += 1
            if rec.sacked or rec.start < left or rec.end > right:
                continue
            rec.sacked = True
            news = True
            if rec.end > self.sacked_hi:
                self.sacked_hi = rec.end
            if rec.acked_at is None:
                self._cover(rec, now, "sack")
        self._sack_memo[left] = right
        return news

    def _dsack(self, now: float, left: int, right: int) -> None:
        found = []
        i = bisect_right(self.starts, left, self.head) - 1
        i = max(i, self.head)
        recs = self.recs
        while i < len(recs) and recs[i].start < right:
            if recs[i].end > left:
                found.append(recs[i])
            i += 1
        for rec in self.settling or ():
            if rec.start < right and rec.end > left:
                found.append(rec)
        retransmitted = False
        for rec in found:
            rec.dsacks += 1
            latest = None
            for ev in rec.events or ():
                if ev.kind is None:
                    retransmitted = True
                    if ev.time < now and not (ev.need == UNNEEDED and ev.why == "dsack"):
                        latest = ev
            if latest is not None:
                self._unneeded(latest, "dsack")
        if retransmitted:
            self.dsack_retransmitted += 1   # what the engine counts as spurious_retransmits
        else:
            self.dsack_other += 1

    # ------------------------------------------------------------------ the end
    def _final(self, rec: Record) -> None:
        for ev in rec.events or ():
            if ev.kind is not None:
                continue
            if ev.need is _PENDING:
                ev.need = UNKNOWN
            elif ev.need == _COVERED:
                ev.need = NEEDED
            if self.need is None:
                self.need = {NEEDED: 0, UNNEEDED: 0, UNKNOWN: 0}
                self.unneeded_by = {}
                self.need_by_class = [{} for _ in self.machines]
            self.need[ev.need] += 1
            if ev.need == UNNEEDED:
                self.unneeded_by[ev.why] = self.unneeded_by.get(ev.why, 0) + 1
            for table, cls in zip(self.need_by_class, ev.classes):
                row = table.get(cls)
                if row is None:
                    row = table[cls] = {NEEDED: 0, UNNEEDED: 0, UNKNOWN: 0}
                row[ev.need] += 1
        if self.series is not None and rec.events:
            self.series.on_final(rec)
        if self.sink is not None:
            self.sink(self, rec)

    @property
    def done(self) -> bool:
        """Our FIN was sent and acknowledged: nothing more to learn about this direction."""
        return self.fin_end is not None and self.snd_una >= self.fin_end

    def finish(self) -> None:
        """The trace ended (or the connection did): every record still held becomes final."""
        for rec in self.settling or ():
            self._final(rec)
        self.settling = None
        for rec in self.recs[self.head:]:
            self._final(rec)
        self.recs, self.starts, self.head = [], [], 0
        for m in self.machines or ():
            m.finish()
