"""The send scoreboard (RFC 6675 §3-4): one record per segment sent, what became of it, and the
byte counts SetPipe is made of.

A record is a list, for speed: ``[start, end, sacked, lost, retrans, sent_at, transmissions]``
(``START`` ... ``TX`` below), positions being unwrapped offsets from the ISS (connection.py).
``sent_at`` is the time of its latest transmission, ``transmissions`` how often it was sent,
``lost`` that it is to be sent (again), ``retrans`` that a retransmission of it is in flight.
Records are in sequence order; ``records[head:]`` are the ones not yet cumulatively
acknowledged. A variant that detects losses itself reads records through these indices and
returns the ones it finds lost (variants/rack.py); only the scoreboard changes them.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, List, Optional

__all__ = ["Scoreboard", "Record", "START", "END", "SACKED", "LOST", "RETRANS", "SENT_AT", "TX"]

START, END, SACKED, LOST, RETRANS, SENT_AT, TX = range(7)
Record = List[Any]          # [start, end, sacked, lost, retrans, sent_at, transmissions]
# the policy's on_delivered, bound (variants/base.py): (view, start, end, sent_at, tx, *, now)
OnDelivered = Optional[Callable[..., None]]

RETX_HISTORY = 4096         # retransmitted ranges remembered for DSACK (then halved)


class Scoreboard:
    """The records and the counts of SACKed, lost and retransmitted bytes above SND.UNA.

    ``on_delivered`` (optional, with the ``view`` it is given: a policy's hook, variants/base.py)
    is called for every segment acknowledged for the first time, by a SACK block or by the
    cumulative ACK (a segment SACKed earlier is not reported again when the cumulative ACK
    passes it)."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self.head = 0                   # first record not cumulatively acknowledged
        self.sacked_out = 0             # bytes SACKed above SND.UNA
        self.lost_out = 0               # bytes marked lost and not yet sent again
        self.retrans_out = 0            # bytes of retransmissions in flight
        self.lost_hint = 0              # no lost record below this index (NextSeg's start)
        self.high_sacked = 0            # end of the highest data ever SACKed or ACKed
        self.retransmitted: list[tuple[int, int]] = []  # recent retransmissions (DSACK)
        self.on_delivered: OnDelivered = None
        self.view: object = None        # what on_delivered is given as its SenderView

    # ------------------------------------------------------------------ new segments
    def add(self, start: int, end: int, now: float) -> Record:
        """A segment [start, end) sent for the first time at ``now``; its record."""
        r = [start, end, False, False, False, now, 1]
        self.records.append(r)
        return r

    def on_retransmit(self, r: Record, now: float) -> None:
        """Record ``r`` is being sent again at ``now``: in flight as a retransmission. Its
        bytes count once in retrans_out however often they are resent (RFC 6675 §4 SetPipe
        counts an octet retransmitted once): TLP's probe may resend a segment whose
        retransmission is still in flight (RFC 8985 §7.3), and counting it twice left
        retrans_out, hence pipe, too high once the segment was acknowledged."""
        if not r[RETRANS]:
            r[RETRANS] = True
            self.retrans_out += r[END] - r[START]
        r[TX] += 1
        r[SENT_AT] = now
        history = self.retransmitted
        history.append((r[START], r[END]))
        if len(history) > RETX_HISTORY:
            del history[:RETX_HISTORY // 2]

    def was_retransmitted(self, start: int, end: int) -> bool:
        """Whether [start, end) overlaps a range we sent more than once (recent history)."""
        return any(s < end and e > start for s, e in reversed(self.retransmitted))

    # ------------------------------------------------------------------ acknowledgments
    def trim(self, ack: int, now: float) -> None:
        """The cumulative ACK reached ``ack``: its records leave the scoreboard's counts."""
        segs, i = self.records, self.head
        delivered = self.on_delivered
        while i < len(segs) and segs[i][END] <= ack:
            r = segs[i]
            self._uncount(r)
            if delivered is not None and not r[SACKED]:
                delivered(self.view, r[START], r[END], r[SENT_AT], r[TX], now=now)
            i += 1
        if i < len(segs) and segs[i][START] < ack:      # partly acked (peer's window edge)
            r = segs[i]
            self._uncount(r)
            r[START] = ack
            r[SACKED] = r[LOST] = r[RETRANS] = False
        self.head = i
        if i > 1024 and i * 2 > len(segs):
            del segs[:i]
            self.head = 0
            self.lost_hint = 0
        if ack > self.high_sacked:
            self.high_sacked = ack

    def _uncount(self, r: Record) -> None:
        n = r[END] - r[START]
        if r[SACKED]:
            self.sacked_out -= n
        else:
            if r[LOST]:
                self.lost_out -= n
            if r[RETRANS]:
                self.retrans_out -= n

    def mark_sacked(self, left: int, right: int, now: float) -> bool:
        """A SACK block [left, right): its whole segments are SACKed; True if any was not yet."""
        segs = self.records
        lo, hi = self.head, len(segs)
        while lo < hi:                              # first segment ending after `left`
            mid = (lo + hi) // 2
            if segs[mid][END] <= left:
                lo = mid + 1
            else:
                hi = mid
        news = False
        delivered = self.on_delivered
        for i in range(lo, len(segs)):
            r = segs[i]
            if r[START] >= right:
                break
            if r[SACKED] or r[START] < left or r[END] > right:
                continue
            n = r[END] - r[START]
            if r[LOST]:
                self.lost_out -= n
            if r[RETRANS]:
                self.retrans_out -= n
            r[SACKED] = True
            self.sacked_out += n
            news = True
            if r[END] > self.high_sacked:
                self.high_sacked = r[END]
            if delivered is not None:
                delivered(self.view, r[START], r[END], r[SENT_AT], r[TX], now=now)
        return news

    def karn_timed(self, ack: int) -> Record | None:
        """The record whose send time the cumulative ACK ``ack`` is timed by, or None: the
        newest it covers that was sent once and not SACKed before, and only when no segment it
        covers was ever retransmitted (Karn's algorithm, RFC 6298 §3). Such an ACK gives no
        sample at all, not even from a segment in it that was sent once (Linux's
        tcp_clean_rtx_queue takes none from an ACK with FLAG_RETRANS_DATA_ACKED): the segments
        above a hole that a retransmission repaired waited at the receiver until it arrived,
        and the cumulative ACK reports them only then, so their send times measure the repair,
        not the path (without SACK, every partial ACK of a NewReno recovery is such an ACK).
        After a retransmission the next sample comes from data sent and acknowledged without
        one (RFC 6298 §5)."""
        segs = self.records
        i = self.head
        n = len(segs)
        newest = None
        while i < n:
            r = segs[i]
            if r[START] >= ack:
                break
            if r[TX] != 1:
                return None
            if r[END] <= ack and not r[SACKED]:
                newest = r
            i += 1
        return newest

    # ------------------------------------------------------------------ loss marking
    def set_lost(self, r: Record) -> None:
        """Record ``r`` (not SACKed) is to be sent again: lost, and a retransmission of it
        still counted in flight is lost with it."""
        n = r[END] - r[START]
        if r[RETRANS]:
            r[RETRANS] = False
            self.retrans_out -= n
        if not r[LOST]:
            r[LOST] = True
            self.lost_out += n

    def mark_head_lost(self) -> None:
        """The first unacknowledged segment is to be sent (again): an RTO, a fast retransmit, a
        NewReno partial ACK. A retransmission of it still counted in flight is lost too (it was
        due before the timer fired), so it goes out once more."""
        if self.head < len(self.records):
            r = self.records[self.head]
            if r[SACKED]:
                return
            self.set_lost(r)
            self.lost_hint = self.head

    def mark_all_lost(self) -> None:
        """After an RTO every unSACKed segment is retransmitted in slow start (RFC 6675 §5.1)."""
        for r in self.records[self.head:]:
            if not r[SACKED]:
                self.set_lost(r)
        self.lost_hint = self.head

    def mark_lost_below_sacked(self, dupthresh: int) -> None:
        """RFC 6675 §4 IsLost: an unSACKed segment with DupThresh SACKed segments above it."""
        above = 0
        segs = self.records
        for i in range(len(segs) - 1, self.head - 1, -1):
            r = segs[i]
            if r[SACKED]:
                above += 1
            elif above >= dupthresh and not r[LOST] and not r[RETRANS]:
                r[LOST] = True
                self.lost_out += r[END] - r[START]
        self.lost_hint = self.head

    def mark_lost(self, records: Iterable[Record]) -> None:
        """Records a variant found lost (RACK's send-time rule): each is to be sent again, a
        retransmission of it in flight being lost too."""
        for r in records:
            self.set_lost(r)
        self.lost_hint = self.head

    def unmark_unsent_lost(self) -> None:
        """Segments marked lost and not yet sent again are in flight after all (an RTO found
        spurious, RFC 4015's "SND.NXT <- SND.MAX")."""
        for r in self.records[self.head:]:
            # (a SACKed segment keeps its LOST flag but left lost_out when SACKed)
            if r[LOST] and not r[RETRANS] and not r[SACKED]:
                r[LOST] = False
                self.lost_out -= r[END] - r[START]
        self.lost_hint = self.head

    def next_lost(self) -> Record | None:
        """RFC 6675 NextSeg (1): the first segment marked lost and not yet sent again."""
        segs = self.records
        for i in range(max(self.head, self.lost_hint), len(segs)):
            r = segs[i]
            if r[LOST] and not r[RETRANS] and not r[SACKED]:
                self.lost_hint = i
                return r
        self.lost_hint = len(segs)
        return None
