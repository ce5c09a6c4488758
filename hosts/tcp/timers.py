"""A connection's timers, as absolute deadlines (seconds of the caller's clock) or None, and
the timestamp option's clock.

Nothing here fires anything: whoever drives the engine asks ``TcpConnection.next_timer()``
(the earliest of these) and calls ``on_timer(now=...)`` once it has passed, which is how a
sans-IO engine has timers (aioquic's get_timer / handle_timer).
"""

from __future__ import annotations

from netbase.seq import SEQ_MOD

__all__ = ["Timers", "ts_val", "TS_HZ"]

TS_HZ = 1000        # the timestamp clock's ticks per second (RFC 7323 §5.4: 1 ms to 1 s a tick)


def ts_val(now: float) -> int:
    """The TSval a segment sent at ``now`` carries: the timestamp clock ticks every
    millisecond."""
    return int(now * TS_HZ) % SEQ_MOD


class Timers:
    __slots__ = ("rtt", "rto_at", "retries", "ack_due", "time_wait_until", "policy_deadline",
                 "persist_at")

    def __init__(self, rtt) -> None:
        self.rtt = rtt                              # the RTO's estimator (rtt.py)
        self.rto_at: float | None = None            # retransmission timer (RFC 6298)
        self.retries = 0                            # expiries for the same data (RFC 9293 R2)
        self.ack_due: float | None = None           # delayed ACK (RFC 5681 §4.2), window update
        self.time_wait_until: float | None = None   # TIME-WAIT's end (RFC 9293 §3.10.7.4)
        self.policy_deadline: float | None = None   # the variant's own timer (RACK, TLP)
        self.persist_at: float | None = None        # persist timer (RFC 9293 §3.8.6.1, persist.py)

    def next(self) -> float | None:
        """The earliest armed deadline, or None. Asked after every event by whoever drives
        the engine, hence comparisons and no temporary list."""
        t = self.rto_at
        if self.ack_due is not None:        # (an unarmed timer costs one attribute read)
            due = self.ack_due
            if t is None or due < t:
                t = due
        if self.time_wait_until is not None:
            tw = self.time_wait_until
            if t is None or tw < t:
                t = tw
        if self.policy_deadline is not None:
            pd = self.policy_deadline
            if t is None or pd < t:
                t = pd
        if self.persist_at is not None:
            pa = self.persist_at
            if t is None or pa < t:
                t = pa
        return t

    def arm_rto(self, now: float) -> None:
        """RFC 6298 (5.1): start the timer unless it runs."""
        if self.rto_at is None:
            self.rto_at = now + self.rtt.rto

    def restart_rto(self, now: float, outstanding: bool) -> None:
        """RFC 6298 (5.2)/(5.3): stop the timer, and start it afresh while data is outstanding."""
        self.rto_at = None
        if outstanding:
            self.rto_at = now + self.rtt.rto

    def stop_all(self) -> None:
        self.rto_at = self.ack_due = self.time_wait_until = self.persist_at = None
