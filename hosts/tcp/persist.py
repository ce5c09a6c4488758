"""The persist timer (RFC 9293 §3.8.6.1): what keeps a connection moving while the peer's
window lets nothing go and nothing is in flight, when no ACK would come unless asked for.

It runs while the sender's window blocks all sending (Sender.window_blocks: a shut window,
or one too small to fill, which SWS avoidance holds back, §3.8.6.2.1). Its expiry sends what
fits into a window too small to fill (the override of §3.8.6.2.1 (4), as Linux's
tcp_write_wakeup), after which the RTO covers it, or probes a shut window
(Sender.zero_window_probe). The first expiry comes one RTO after the window blocked (SHLD-29),
each later one twice the interval before (SHLD-30) up to ``max_rto`` (Linux's
tcp_probe0_when); the connection stays open as long as the peer answers (MUST-36), and is
given up after ``max_retries`` probes in a row unanswered, as after that many RTOs. The deadline is
``Timers.persist_at``, with the connection's other timers.
"""

from __future__ import annotations

from netbase.segment import Segment

__all__ = ["Persist"]


class Persist:
    __slots__ = ("conn", "backoff", "probes", "answers_seen")

    def __init__(self, conn) -> None:
        self.conn = conn                # sender, timers, estimator, counters
        self.backoff = 0                # expiries while the window stayed blocked
        self.probes = 0                 # probes in a row the peer left unanswered
        self.answers_seen = -1          # segments received from the peer at the last probe

    def update(self, now: float) -> None:
        """After sending nothing: the timer runs while the window blocks, else stops."""
        if self.conn.sender.window_blocks():
            self._arm(now)
        else:
            self.stop()

    def stop(self) -> None:
        """The window opened, or data is in flight (the RTO's turn): the next blocked window
        starts again at one RTO."""
        self.conn.timers.persist_at = None
        self.backoff = 0

    def _arm(self, now: float) -> None:
        timers = self.conn.timers
        if timers.persist_at is None:
            interval = self.conn.rtt.rto * (1 << self.backoff)
            timers.persist_at = now + min(interval, self.conn.cfg.max_rto)

    def on_expiry(self, now: float) -> list[Segment] | None:
        """The timer expired (the connection is synchronized): what fits, or a probe; None
        when the connection is to be given up."""
        conn = self.conn
        snd = conn.sender
        timers = conn.timers
        timers.persist_at = None
        if not snd.window_blocks():
            self.stop()
            return conn.transmit(now)
        if snd.sendable(force=True) > 0:
            self.stop()
            seg = snd.new_data(now, force=True)
            timers.arm_rto(now)
        else:
            received = conn.stats["segments_received"]     # any segment is an answer
            self.probes = 1 if received != self.answers_seen else self.probes + 1
            self.answers_seen = received
            if self.probes > conn.cfg.max_retries:
                return None
            if conn.rtt.rto * (1 << self.backoff) < conn.cfg.max_rto:
                self.backoff += 1
            self._arm(now)
            seg = snd.zero_window_probe()
        conn.stats["window_probes"] += 1
        conn.trace("window-probe", snd_una=snd.snd_una, data=len(seg.payload))
        return [seg]
