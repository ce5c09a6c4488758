"""Detecting a false fast retransmit with DSACK (RFC 2883 §4, RFC 3708 §3).

A fast-recovery episode was false when the peer reports, by DSACK, every retransmission the
episode made as a duplicate: the originals arrived too. Only the retransmissions of the episode
count: a late DSACK for an earlier episode covers data below the snd_una this episode began
with (Linux keeps the same boundary as ``undo_marker``, tcp_check_dsack).

Used by the DSACK schemes (variants/dsack.py: undo, BL-INC, BL-AVG) and by RD-TCP's adaptive k
(variants/rdtcp.py). ``respond_to_spurious_timeout``: what Eifel and F-RTO do once a timeout
proved spurious.
"""

from __future__ import annotations

__all__ = ["FalseRetransmitDetector", "respond_to_spurious_timeout"]


class FalseRetransmitDetector:
    """Counts one episode's retransmissions down as DSACKs report them."""

    __slots__ = ("active", "marker", "pending")

    def __init__(self) -> None:
        self.active = False     # an episode is being watched
        self.marker = 0         # snd_una when it began
        self.pending = 0        # its retransmissions not yet reported as duplicates

    def start(self, snd_una: int) -> None:
        """A fast-recovery episode begins (before its first retransmission)."""
        self.active = True
        self.marker = snd_una
        self.pending = 0

    def cancel(self) -> None:
        """Stop watching (a timeout: its retransmissions are not judged)."""
        self.active = False

    def on_retransmit(self) -> None:
        if self.active:
            self.pending += 1

    def on_dsack(self, end: int, retransmitted: bool) -> bool:
        """A DSACK for data ending at ``end`` arrived; True when it shows that every
        retransmission of the episode was unnecessary (the episode is then closed)."""
        if not self.active or not retransmitted or end <= self.marker:
            return False
        self.pending -= 1
        if self.pending <= 0:
            self.active = False
            return True
        return False


def respond_to_spurious_timeout(conn, prior_una: int, pipe_prev: int) -> None:
    """The Eifel response to a spurious timeout (RFC 4015 §3), once the ACK that showed it has
    been processed (``prior_una``: SND.UNA before it): no go-back-N (SND.NXT <- SND.MAX),
    cwnd <- FlightSize + min(bytes_acked, IW), ssthresh <- pipe_prev, where pipe_prev =
    max(FlightSize, ssthresh) when the timer expired. RFC 4015 §4.2's adaptation of the timer
    is not done: the engine's RFC 6298 estimator stays as it is. Used by Eifel and F-RTO."""
    acked = conn.snd_una - prior_una
    conn.resume_after_spurious_timeout(cwnd=conn.flight_size + min(acked, conn.initial_window()),
                                       ssthresh=pipe_prev)
