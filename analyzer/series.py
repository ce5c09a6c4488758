"""A flow's RTT series, losses and timer waits, as [TCPDEBUG] ch. 4-5 extract them from a trace.

``Analyzer(on_series=...)`` (analyzer/trace.py) gives every flow a ``SeriesRecorder`` and hands
its ``FlowSeries`` over when the connection ends, from any capture the analyzer reads. What it
holds:

- ``samples`` (``RttSample``): [TCPDEBUG] §5.3.1's RTT samples, TCPdebug's extension of Karn's rule:
  an ACK that advances gives a sample for the segment whose arrival made it, the newest it
  covers, ending where it points, sent once and never SACKed (``per_ack``); and the segment a
  sender timing one segment a flight had timed (``per_flight``, §5.4.4: "exactly in the same
  manner as most of the current implementations of TCP-NewReno"), when it was sent once. Each
  sample carries the segments in flight when its segment was sent ([TCPDEBUG]'s "window"). At a path
  vantage the RTT includes the handshake's sub-RTT, as the analyzer's own.
- ``losses`` (``Loss``): the needed retransmissions the analyzer judged (TCPdebug's losses,
  §5.3.1): the lost segment's first transmission, its first retransmission, whether the
  identified sender's timer detected it (RTO, implicit) or duplicate ACKs did, the flight.
- ``waits`` (``Wait``): the retransmission timer's runs (RFC 6298 (5.1), (5.3): from an ACK
  that advances with data outstanding, or from a send with nothing outstanding, to the next
  advance), with the duplicate ACKs during each, its first retransmission and that one's need:
  what [TCPDEBUG] ch. 4 replays under other parameters (analyzer/rto_replay.py). Only waits that
  could change under a setting are kept: those with a duplicate ACK or a retransmission, or
  lasting at least ``MIN_WAIT`` (the shortest minRTO [TCPDEBUG] considers; an RTO is never shorter).

Flights are in segments of the largest segment the flow sent (its MSS as the trace shows it).
"""

from __future__ import annotations

import math

from analyzer.flow import NEEDED
from analyzer.report import endpoint_text, verdict

__all__ = ["SeriesRecorder", "FlowSeries", "RttSample", "Loss", "Wait", "MIN_WAIT",
           "MAX_DUPACKS", "TIMER_CLASSES"]

MIN_WAIT = 0.1                  # s: [TCPDEBUG] §4.4.2's smallest minRTO (100 ms)
MAX_DUPACKS = 16                # duplicate ACK times kept per wait (D up to 16)
TIMER_CLASSES = ("rto", "implicit")   # retransmissions the timer caused (analyzer/machine.py)


class RttSample:
    """One RTT sample: the segment sent at ``sent``, its ACK at ``acked``; ``flight``: segments
    in flight once it was sent; ``una``/``nxt``: the cumulative ACK and the highest sequence
    sent at the ACK (Linux's estimator works per window)."""

    __slots__ = ("sent", "acked", "rtt", "flight", "per_ack", "per_flight", "una", "nxt")

    def __init__(self, sent, acked, rtt, flight, per_ack, per_flight, una, nxt):
        self.sent, self.acked, self.rtt, self.flight = sent, acked, rtt, flight
        self.per_ack, self.per_flight, self.una, self.nxt = per_ack, per_flight, una, nxt

    def __repr__(self) -> str:
        return (f"RttSample(sent={self.sent:.6f}, rtt={self.rtt * 1000:.3f} ms, "
                f"flight={self.flight})")


class Loss:
    """A needed retransmission: the segment first sent at ``sent``, first resent at
    ``detected``; ``by_timer``: the timer resent it (else duplicate ACKs); ``flight``: segments
    in flight once it was first sent; ``seq``: its offset."""

    __slots__ = ("sent", "detected", "by_timer", "flight", "seq", "cls")

    def __init__(self, sent, detected, by_timer, flight, seq, cls):
        self.sent, self.detected, self.by_timer = sent, detected, by_timer
        self.flight, self.seq, self.cls = flight, seq, cls

    def __repr__(self) -> str:
        return (f"Loss(sent={self.sent:.6f}, detected={self.detected:.6f}, "
                f"{'timer' if self.by_timer else 'dupacks'}, flight={self.flight})")


class Wait:
    """One run of the retransmission timer: from ``start`` to ``end`` (the next ACK that
    advanced; None when the trace ended first); ``dupacks``: the times of the duplicate ACKs
    meanwhile; ``retx``: its first retransmission (None: none), ``cls`` that one's class for the
    identified sender, ``need`` its need ("needed", "unneeded", "unknown"; None without a
    retransmission), ``covered``: when the resent segment's data was first acknowledged (the ACK
    the original earned, for an unneeded one); ``flight``: segments outstanding at the start;
    ``recovering``: it began inside a loss recovery (before the highest segment sent when a
    retransmission happened was acknowledged); ``backed_off``: it began inside a recovery in
    which the timer had already fired, so its RTO is the backed-off one (RFC 6298 (5.5)-(5.7):
    doubled until a fresh sample), not the estimator's. A wait that began in a fast recovery
    the timer has not interrupted runs the estimator's RTO: when it fires, that is a detection
    by the timer like any other ([TCPDEBUG] Table 4.4 counts it)."""

    __slots__ = ("start", "end", "dupacks", "retx", "cls", "need", "covered", "flight",
                 "recovering", "backed_off", "_ev", "_rec")

    def __init__(self, start, flight, recovering):
        self.start, self.flight, self.recovering = start, flight, recovering
        self.backed_off = False
        self.end = None
        self.dupacks: list = []
        self.retx = self.cls = self.need = self.covered = None
        self._ev = self._rec = None

    def __repr__(self) -> str:
        return (f"Wait({self.start:.6f}-{self.end}, dupacks={len(self.dupacks)}, "
                f"retx={self.retx}, need={self.need})")


class FlowSeries:
    """What ``SeriesRecorder.result`` hands over for one flow (see the module docstring)."""

    __slots__ = ("connection", "sender", "receiver", "profile", "mss", "first_time",
                 "last_time", "data_bytes", "data_segments", "samples", "losses", "waits",
                 "retransmissions")

    def per_ack(self) -> list:
        """The samples of every ACK ([TCPDEBUG] §5.3.1's all samples), in transmission order."""
        return [s for s in self.samples if s.per_ack]

    def per_flight(self) -> list:
        """One sample a flight (§5.4.4), in transmission order."""
        return [s for s in self.samples if s.per_flight]


class SeriesRecorder:
    """Fed by ``analyzer.flow.Flow`` as it reads the trace (only when a series is asked for:
    the lists grow with the flow)."""

    __slots__ = ("flow", "samples", "losses", "waits", "current", "recover_until", "mss",
                 "retx")

    def __init__(self, flow):
        self.flow = flow
        self.samples: list = []
        self.losses: list = []          # (Loss, classes) until the profile is known
        self.waits: list = []
        self.current: Wait | None = None
        self.recover_until = 0
        self.mss = 1
        self.retx: list = []            # (classes, need) of every retransmission

    # ------------------------------------------------------------------ the flow's calls
    def on_timer_start(self, now: float, flight: int) -> None:
        """Data sent with nothing outstanding: the timer starts (RFC 6298 (5.1))."""
        if self.current is None:
            self.current = Wait(now, flight, self.flow.snd_una < self.recover_until)

    def on_advance(self, now: float, una: int, snd_max: int, trigger, timed) -> None:
        """The cumulative ACK advanced to ``una``: the RTT samples it gives, the end of the
        current wait, and a new one while data is outstanding (RFC 6298 (5.3))."""
        sub = self.flow.subrtt
        for rec, per_ack in ((trigger, True), (timed, False)):
            if rec is None or rec.start == 0:       # none, or the SYN
                continue
            if not per_ack and timed is trigger:
                continue
            self._size(rec.end - rec.start)
            sent = rec.tx[0]
            self.samples.append(RttSample(sent, now, now - sent + sub, rec.flight, per_ack,
                                          timed is rec, una, snd_max))
        self._close(now)
        if snd_max > una:
            self.current = Wait(now, snd_max - una, una < self.recover_until)

    def on_dupack(self, now: float) -> None:
        w = self.current
        if w is not None and len(w.dupacks) < MAX_DUPACKS:
            w.dupacks.append(now)

    def on_retransmission(self, now: float, rec, ev, snd_max: int) -> None:
        self._size(rec.end - rec.start)
        w = self.current
        if w is not None and w.retx is None:
            w.retx, w._ev, w._rec = now, ev, rec
        if snd_max > self.recover_until:
            self.recover_until = snd_max

    def on_final(self, rec) -> None:
        """A record's history is final: its first retransmission, when needed, is a loss."""
        first = True
        for ev in rec.events:
            if ev.kind is not None:
                continue                    # a network reorder or duplicate
            self.retx.append((ev.classes, ev.need))
            if first and ev.need == NEEDED and rec.start > 0:
                sent = ev.time if rec.first_oos else rec.tx[0]
                self.losses.append((Loss(sent, ev.time, None, rec.flight, rec.start, None),
                                    ev.classes, ev.dupacks))
            first = False

    # ------------------------------------------------------------------ the end
    def _size(self, n: int) -> None:
        if n > self.mss:
            self.mss = n

    def _close(self, now: float) -> None:
        w = self.current
        if w is None:
            return
        w.end = now
        if w.retx is not None or w.dupacks or now - w.start >= MIN_WAIT:
            self.waits.append(w)
        self.current = None

    def result(self) -> FlowSeries:
        """The flow's series, once the flow is finished (analyzer/trace.py calls it)."""
        flow = self.flow
        w = self.current
        if w is not None and (w.retx is not None or w.dupacks):
            self.waits.append(w)            # cut by the end of the trace (end None)
        self.current = None
        v = verdict(flow)
        names = [p.name for p in flow.profiles]
        index = names.index(v["reported"])
        mss = self.mss

        def segments(nbytes: int) -> int:
            return max(1, math.ceil(nbytes / mss))

        out = FlowSeries()
        out.connection = flow.conn_id
        out.sender, out.receiver = endpoint_text(flow.sender), endpoint_text(flow.receiver)
        out.profile = v["reported"]
        out.mss = mss
        out.first_time, out.last_time = flow.first_time, flow.last_time
        out.data_bytes, out.data_segments = flow.data_bytes, flow.data_packets
        for s in self.samples:
            s.flight = segments(s.flight)
        out.samples = self.samples
        losses = []
        for loss, classes, dupacks in self.losses:
            cls = classes[index] if classes else None
            loss.cls = cls
            loss.by_timer = cls in TIMER_CLASSES or (cls == "unexplained" and not dupacks)
            loss.flight = segments(loss.flight)
            losses.append(loss)
        out.losses = losses
        fired = False                       # the timer fired in the recovery under way
        for w in self.waits:
            w.flight = segments(w.flight)
            if w._ev is not None:
                w.need = w._ev.need
                w.cls = w._ev.classes[index] if w._ev.classes else None
                w.covered = w._rec.acked_at
                w._ev = w._rec = None
            # every recovery begins with a retransmission in a wait outside one (kept: it has
            # a retransmission), so a wait outside a recovery ends the previous one's backoff
            fired = fired and w.recovering
            w.backed_off = fired
            fired = fired or (w.retx is not None and w.cls in TIMER_CLASSES)
        out.waits = self.waits
        # [TCPDEBUG] Table 4.4's counts: retransmissions by need and by what detected them
        counts: dict = {}
        for classes, need in self.retx:
            cls = classes[index] if classes else "unexplained"
            key = "timer" if cls in TIMER_CLASSES else ("unexplained" if cls == "unexplained"
                                                        else "dupacks")
            counts.setdefault(need, {}).setdefault(key, 0)
            counts[need][key] += 1
        out.retransmissions = counts
        self.samples = self.losses = self.waits = self.retx = None
        return out
