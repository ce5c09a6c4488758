"""Detecting a false fast retransmit with DSACK (RFC 2883 §4, RFC 3708 §3).

A fast-recovery episode was false when the peer reports, by DSACK, every retransmission the
episode made as a duplicate: the originals arrived too. Only the retransmissions of the episode
count: a late DSACK for an earlier episode covers data below the snd_una this episode began
with (Linux keeps the same boundary as ``undo_marker``, tcp_check_dsack).

Used by the DSACK schemes (variants/dsack.py: undo, BL-INC, BL-AVG) and by RD-TCP's adaptive and
measured k (variants/rdtcp.py). ``FalseRecoveryUndo``: the ``Undo`` of an episode proved false
(DSACK undo). ``respond_to_spurious_timeout``: what Eifel and F-RTO do once a timeout proved
spurious.
"""

from __future__ import annotations

from hosts.tcp.variants.base import SenderView, SpuriousTimeout, Undo

__all__ = ["FalseRetransmitDetector", "FalseRecoveryUndo", "respond_to_spurious_timeout"]


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


class FalseRecoveryUndo:
    """DSACK undo: the cwnd and ssthresh a fast-recovery episode began with are restored once
    DSACKs show every retransmission of the episode unnecessary (detection RFC 3708 §3; the
    response is Blanton and Allman's, [RRTCP] §2: "the sender restores its old window"; Linux's
    tcp_try_undo_dsack). The owner calls ``start`` as the episode begins, ``on_retransmit`` for
    each retransmission, ``on_dsack`` for each DSACK, and ``cancel`` on a retransmission timeout
    (a timeout's reduction is not undone here)."""

    __slots__ = ("prior", "episode")

    def __init__(self) -> None:
        self.prior: tuple[int, int] | None = None   # (cwnd, ssthresh) before the reduction
        self.episode = FalseRetransmitDetector()

    def start(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int) -> None:
        self.prior = (prior_cwnd, prior_ssthresh)
        self.episode.start(view.snd_una)

    def cancel(self) -> None:
        self.prior = None
        self.episode.cancel()

    def on_retransmit(self) -> None:
        self.episode.on_retransmit()

    def on_dsack(self, end: int, retransmitted: bool) -> Undo | None:
        """A DSACK for data ending at ``end``: the ``Undo`` of the episode's reduction when it
        proved the episode false, else None."""
        if not self.episode.on_dsack(end, retransmitted):
            return None
        assert self.prior is not None           # set with the episode (start)
        cwnd, ssthresh = self.prior
        self.prior = None
        return Undo(cwnd, ssthresh)


def respond_to_spurious_timeout(view: SenderView, prior_una: int,
                                pipe_prev: int) -> SpuriousTimeout:
    """The Eifel response to a spurious timeout (RFC 4015 §3), once the ACK that showed it has
    been processed (``prior_una``: SND.UNA before it): no go-back-N (SND.NXT <- SND.MAX),
    cwnd <- FlightSize + min(bytes_acked, IW), ssthresh <- pipe_prev, where pipe_prev =
    max(FlightSize, ssthresh) when the timer expired. RFC 4015 §4.2's adaptation of the timer
    is not done: the engine's RFC 6298 estimator stays as it is. Used by Eifel and F-RTO."""
    acked = view.snd_una - prior_una
    return SpuriousTimeout(view.flight_size + min(acked, view.initial_window()), pipe_prev)
