"""One sender profile's state machine, replayed over one direction of a connection.

The machine never sees packets: the flow (analyzer/flow.py) keeps the per-segment history and
the ACK stream, and tells every machine what happened (a duplicate ACK, an advance of the
cumulative ACK, an RTT sample, a segment sent) and asks each to classify an out-of-sequence
segment. As in TCPdebug a loss indication in the ACK stream makes only
a *tentative* transition: reaching the profile's dupthresh arms a pending fast retransmit,
which becomes fast recovery only when the sender's retransmission of that segment follows.
"""

from __future__ import annotations

from analyzer.rto_classes import rto_class

__all__ = ["Machine", "OPEN", "RECOVERY", "LOSS", "FAST", "SACK", "PARTIAL", "RTO",
           "IMPLICIT", "UNEXPLAINED", "RETRANSMISSION_CLASSES", "EXPLICIT_CLASSES"]

OPEN, RECOVERY, LOSS = "open", "fast-recovery", "rto-recovery"

# classes of a retransmission ([TCPDEBUG] §3.1)
FAST = "fast_retransmit"        # dupack-triggered (FR/R)
SACK = "sack"                   # SACK-based retransmission during fast recovery
PARTIAL = "partial_ack"         # NewReno: the hole a partial ACK points at
RTO = "rto"                     # the retransmission timer
IMPLICIT = "implicit"           # go-back-N in RTO recovery, no detection of its own
UNEXPLAINED = "unexplained"     # the profile cannot explain it
RETRANSMISSION_CLASSES = (FAST, SACK, PARTIAL, RTO, IMPLICIT, UNEXPLAINED)
EXPLICIT_CLASSES = (FAST, SACK, PARTIAL, RTO)   # Table 3.8: explicit = RTO, Dupack, PA, SACK


class _Pending:
    """A tentative fast retransmit: the profile's dupthresh was reached at ``time``."""

    __slots__ = ("time", "start", "end", "dupacks", "extra", "expired")

    def __init__(self, time, start, end, dupacks):
        self.time, self.start, self.end, self.dupacks = time, start, end, dupacks
        self.extra = 0          # duplicate ACKs after the trigger
        self.expired = False    # the sender did not follow (sender vantage only)


class Machine:
    """``profile``'s sender state for one flow. ``strict``: the capture is at the sender, so
    every ACK seen reached it, and a profile whose predicted fast retransmit was not queued
    by the time the sender is seen idle after the trigger is contradicted (the flow works out
    when the sender's interface was idle, analyzer/flow.py ``Nic``); ``slack`` is the time the
    sender may take to react."""

    def __init__(self, profile, *, strict: bool, slack: float):
        self.p = profile
        self.strict = strict
        self.slack = slack
        self.state = OPEN
        self.recovery_point = 0
        self.episode_start = float("-inf")
        self.partial: int | None = None     # cum ACK of the last partial ACK (NewReno)
        self.partial_at = 0.0               # ... and when it came
        # RTO estimator: the engine's own, with the profile's parameters (hosts/tcp/rtt.py)
        self.estimator = profile.estimator()
        self.base_rto = profile.initial_rto
        self.backoff = 0
        self._rto = profile.initial_rto
        self.deadline: float | None = None  # earliest time the timer can fire
        # duplicate ACKs
        self.dup_base = 0                   # the flow's count when this machine last reset it
        self.dupthresh = profile.dupthresh
        self.waiting = False                # RD-TCP: waiting for 3+k on a reordered hole
        self.pending: _Pending | None = None
        # pending ones whose episode the cumulative ACK ended: their resend may still be on
        # its way (a capture stamps frames as they leave, after ACKs that arrived meanwhile)
        self.passed: list = []
        self.exited: tuple | None = None    # (time, state, recovery_point, episode_start)
        self.new_data_seen = False          # new data seen since the recovery began
        # results
        self.classes: dict[str, int] = {}
        self.reasons: dict[str, int] = {}
        self.tentative = 0                  # dupthresh reached in the open state
        self.missed = 0                     # ... and no retransmission followed
        self.rto_to_recovery = 0            # RD-TCP timer expiries that entered fast recovery
        self.rtos: list | None = None       # ([NETRENO] §4.1 class, bytes outstanding) per RTO
        self.dupthresh_seen: dict[int, int] = {}
        self.syn_retx = 0
        self.syn_unexplained = 0

    # ------------------------------------------------------------------ the timer
    @property
    def rto(self) -> float:
        return self._rto

    def _set_rto(self) -> None:
        self._rto = min(self.p.max_rto, self.base_rto * (2 ** self.backoff))

    @property
    def srtt(self) -> float | None:
        return self.estimator.srtt

    def rtt_sample(self, rtt: float, *, snd_una: int = 0, snd_nxt: int = 0) -> None:
        """A measurement through the profile's estimator (``snd_una``/``snd_nxt`` for Linux's
        per-window variance); a valid sample clears the backoff (Karn's rule: only segments
        sent once are sampled, the flow sees to that)."""
        self.estimator.sample(rtt, snd_una=snd_una, snd_nxt=snd_nxt)
        self.base_rto = self.estimator.rto
        self.backoff = 0
        self._rto = self.base_rto

    def restart_timer(self, now: float) -> None:
        self.deadline = now + self._rto         # RFC 6298 (5.3)

    def start_timer_if_idle(self, now: float) -> None:
        if self.deadline is None:               # RFC 6298 (5.1)
            self.deadline = now + self._rto

    def timer_fired(self, now: float) -> bool:
        # the monitor's RTO is a lower bound only ([TCPDEBUG] §3.1): a too-small estimate still
        # classifies a real timeout, so the test is one-sided
        return self.deadline is not None and now >= self.deadline - self.p.rto_tolerance

    # ------------------------------------------------------------------ the ACK stream
    def on_dupack(self, now: float, flow_dupacks: int, reorder_bit: bool, rdtcp_ok: bool,
                  head: tuple) -> None:
        n = flow_dupacks - self.dup_base
        k = self.p.reorder_wait_k
        if k is not None and rdtcp_ok:
            # [RDTCP] §3.1, "TCP Sender: Processing the acknowledgements"
            if n == 3 and reorder_bit:
                self.dupthresh, self.waiting = 3 + k, True
            elif self.waiting and not reorder_bit:
                self.dupthresh, self.waiting = 3, False
        if self.state != OPEN:
            return
        pend = self.pending
        if pend is None:
            if n >= self.dupthresh:
                self.pending = _Pending(now, head[0], head[1], n)
                self.tentative += 1
        else:
            pend.extra += 1

    def on_advance(self, now: float, una: int, outstanding: bool) -> None:
        """The cumulative ACK advanced to ``una``; the timer restarts if data is still
        ``outstanding``, else stops (RFC 6298 (5.2), (5.3))."""
        self.deadline = now + self._rto if outstanding else None
        if self.pending is None and self.state == OPEN and not self.waiting and not self.passed:
            self.dup_base = 0
            if self.p.reorder_wait_k is not None:
                self.dupthresh = 3
            return
        if self.p.reorder_wait_k is not None:
            self.dupthresh, self.waiting = 3, False
        self.dup_base = 0
        pend = self.pending
        if pend is not None:
            self.pending = None
            if pend.expired:
                self.missed += 1
            else:
                self.passed.append(pend)
        if self.state != OPEN:
            if una >= self.recovery_point:      # RFC 6582 §3.2 step 4, RFC 6675 §5
                self.exited = (now, self.state, self.recovery_point, self.episode_start)
                self.state = OPEN
                self.partial = None
            elif self.state == RECOVERY:
                self.partial, self.partial_at = una, now

    @property
    def expecting(self) -> bool:
        """Whether a fast retransmit the profile predicted has not shown yet."""
        return self.pending is not None or bool(self.passed)

    def tick(self, now: float, idle_after, response: float) -> None:
        """Time passes. ``idle_after`` (sender vantage): the latest moment the sender is
        known to have had nothing queued, so a fast retransmit not seen by then never left;
        away from the sender, ``response``: how long its answer to an ACK may take."""
        if self.strict:
            if idle_after is None:
                return
            pend = self.pending
            if pend is not None and idle_after > pend.time + self.slack:
                pend.expired = True
            late = [p for p in self.passed if idle_after > p.time + self.slack]
        else:
            late = [p for p in self.passed if now - p.time > response]
        if late:
            self.missed += len(late)
            self.passed = [p for p in self.passed if p not in late]

    def _miss(self) -> None:
        self.missed += 1
        self.pending = None

    # ------------------------------------------------------------------ classification
    def classify(self, now: float, start: int, end: int, una: int, flow_dupacks: int,
                 snd_max: int, last_retx: float, sacked: bool, sacked_above: bool,
                 sack_mode, sent_after: float, window: float) -> str:
        """The class of a retransmission of [start, end) seen at ``now``; updates the state.
        ``last_retx``: when the segment was last retransmitted before (-inf: never);
        ``sack_mode``: True/False as negotiated, None when the handshake was not seen;
        ``sent_after``: the earliest time the sender can have decided to send it;
        ``window``: how long before that an ACK may have arrived and still not have been
        processed when it was."""
        exited = self.exited
        restored = False
        if (self.state == OPEN and exited is not None and end <= una
                and sent_after - exited[0] <= window and self._awaited(start) is None):
            # acknowledged data: it left the sender before the ACK that ended the recovery
            # reached it (captures stamp frames as they leave), so judge it in that recovery
            self.state, self.recovery_point, self.episode_start = exited[1:]
            restored = True
        before = self.state
        if self.state == OPEN:
            cls = self._classify_open(now, start, end, una, flow_dupacks, snd_max)
        elif self.state == RECOVERY:
            cls = self._classify_recovery(now, start, end, una, snd_max, last_retx, sacked,
                                          sacked_above, sack_mode,
                                          sent_after - self.partial_at > window)
        else:
            cls = self._classify_loss(now, start, snd_max, last_retx)
        if restored and self.state != OPEN and una >= self.recovery_point:
            self.state = OPEN
        self.classes[cls] = self.classes.get(cls, 0) + 1
        if cls == RTO:
            # [NETRENO] §4.1: why the timer fired, and the window it fired at (rto_classes.py)
            if self.rtos is None:
                self.rtos = []
            self.rtos.append((rto_class(before != OPEN, last_retx > float("-inf")),
                              snd_max - una))
        return cls

    def _awaited(self, start: int):
        """The predicted fast retransmit that a resend of ``start`` confirms, or None."""
        pend = self.pending
        if pend is not None and pend.start <= start < pend.end and not pend.expired:
            return pend
        for p in self.passed:
            if p.start <= start < p.end:
                return p
        return None

    def _classify_open(self, now, start, end, una, flow_dupacks, snd_max) -> str:
        match = self._awaited(start)
        if match is not None:
            # the tentative transition is confirmed (RFC 5681 §3.2 step 2); the duplicate
            # ACKs that had arrived when the sender acted: those up to the trigger (later
            # ones, seen before the resend, came while it waited in a queue)
            n = match.dupacks
            self.dupthresh_seen[n] = self.dupthresh_seen.get(n, 0) + 1
            if match is self.pending:
                self.pending = None
            else:
                self.passed.remove(match)
            self._enter(RECOVERY, now, snd_max)
            return FAST
        pend = self.pending
        if self.timer_fired(now):
            if pend is not None:
                self._miss()        # the profile's fast retransmit never came
            if self.waiting:
                # [RDTCP] §3.1: "If the timer runs out while waiting for '3+k' dupacks ... the
                # sender ... retransmits the packet and enters fast recovery"
                self.dupthresh, self.waiting = 3, False
                self.rto_to_recovery += 1
                self._timeout(now)
                self._enter(RECOVERY, now, snd_max)
            else:
                self._timeout(now)
                self._enter(LOSS, now, snd_max)
                self.dup_base = flow_dupacks            # an RTO restarts the count
            return RTO
        if pend is not None and pend.start <= start < pend.end:
            self.pending = None
            return self._unexplained("late fast retransmit: not sent when the profile's "
                                     "dupthresh was reached")
        if start <= una < end and flow_dupacks - self.dup_base:
            return self._unexplained("early fast retransmit: fewer duplicate ACKs than the "
                                     "profile's dupthresh")
        return self._unexplained("retransmission before the profile's timer and without "
                                 "enough duplicate ACKs")

    def _classify_recovery(self, now, start, end, una, snd_max, last_retx, sacked,
                           sacked_above, sack_mode, late: bool) -> str:
        """``late``: the sender decided on this segment later than it answers an ACK after the
        last partial ACK. At the sender, where every ACK seen reached it, such a resend when
        the timer can have fired is the timer's (Reno, which leaves recovery on a partial ACK,
        resends the next hole only by a new fast retransmit or the timer: [NETRENO] §4.1's multiple
        losses); away from it the partial ACK may have reached the sender late."""
        fresh = last_retx < self.episode_start      # not yet resent in this recovery
        if fresh and not sacked:
            if sack_mode and self.p.sack_recovery and sacked_above:
                return SACK                 # a hole below SACKed data (RFC 6675 §4 IsLost)
            if (not sack_mode and self.p.partial_ack and self.partial is not None
                    and start <= self.partial < end
                    and not (late and self.strict and self.timer_fired(now))):
                self.partial = None
                return PARTIAL              # RFC 6582 §3.2 step 5
            if sack_mode is None and self.p.sack_recovery and start < self.recovery_point:
                # options not captured: TCPdebug's heuristic ([TCPDEBUG] §3.1.2): in FR/R, not RTO
                # or PA, below the highest sequence in flight when FR/R began
                return SACK
        if self.timer_fired(now):
            self._timeout(now)
            self._enter(LOSS, now, snd_max)
            return RTO
        if not self.p.partial_ack and self.partial is not None and start <= self.partial < end:
            return self._unexplained("partial-ACK retransmission from a profile that waits "
                                     "for the timer instead")
        return self._unexplained("retransmission in fast recovery that neither the SACK "
                                 "scoreboard, a partial ACK nor the timer explains")

    def _classify_loss(self, now, start, snd_max, last_retx) -> str:
        if last_retx < self.episode_start and start < self.recovery_point:
            return IMPLICIT                 # go-back-N after the timeout ([TCPDEBUG] §3.1, Fig 3.1)
        if self.timer_fired(now):
            self._timeout(now)
            self._enter(LOSS, now, snd_max)
            return RTO
        return self._unexplained("resent twice in one RTO recovery before the timer")

    def _enter(self, state: str, now: float, snd_max: int) -> None:
        self.state = state
        self.recovery_point = snd_max
        self.episode_start = now
        self.partial = None
        self.exited = None
        self.new_data_seen = False

    def on_new_data(self, start: int, hole: bool) -> None:
        """New data [start, ...) passed the vantage; ``hole``: data below it never did. Away
        from the sender, the recovery point (what the sender had sent when it began) can be
        above what the vantage saw: segments lost before it. The first new segment after the
        recovery began bounds them: the hole below it counts as sent before (a lower bound
        on what the sender had sent; segments sent later start above it)."""
        if self.state != OPEN and not self.new_data_seen:
            self.new_data_seen = True
            if hole and start > self.recovery_point:
                self.recovery_point = start

    def _timeout(self, now: float) -> None:
        self.backoff += 1                   # RFC 6298 (5.5), (5.6)
        self._set_rto()
        self.restart_timer(now)
        if self.p.reorder_wait_k is not None:
            self.dupthresh, self.waiting = 3, False

    def _unexplained(self, why: str) -> str:
        self.reasons[why] = self.reasons.get(why, 0) + 1
        return UNEXPLAINED

    # ------------------------------------------------------------------ handshake
    def syn_retransmitted(self, gap: float, n: int) -> bool:
        """A SYN sent again ``gap`` s after its previous copy, the ``n``-th time: explained
        when the profile's initial RTO, doubled per retry, had run out (RFC 6298 (5.5))."""
        self.syn_retx += 1
        rto = min(self.p.max_rto, self.p.initial_rto * 2 ** (n - 1))
        if gap >= rto - self.p.rto_tolerance:
            return True
        self.syn_unexplained += 1
        self.reasons["SYN resent before the profile's initial RTO"] = \
            self.reasons.get("SYN resent before the profile's initial RTO", 0) + 1
        return False

    # ------------------------------------------------------------------ end
    def finish(self) -> None:
        if self.pending is not None and self.pending.expired:
            self._miss()
        if self.strict:
            self.missed += len(self.passed)     # the trace ended and they never came
        self.passed = []

    def explains(self) -> bool:
        """TCPdebug's rule ([TCPDEBUG] §3.1.3): every OOS segment explained; at the sender, also no
        predicted fast retransmit that never came, and every SYN timer explained."""
        return (not self.classes.get(UNEXPLAINED) and not self.syn_unexplained
                and not (self.strict and self.missed))
