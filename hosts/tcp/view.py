"""The read-only view a variant's hooks get of the sending half: ``PolicyView``, the engine's
``SenderView`` (variants/base.py). Every attribute reads through to the part that holds it,
loss recovery (recovery.py), the sender (sender.py), its scoreboard, the RTO's estimator and
the timers, as it stands when the hook runs; there is nothing to assign. A policy changes the
engine only by the decisions its hooks return.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hosts.tcp.recovery import LossRecovery
    from hosts.tcp.variants.base import RttView, ScoreboardView

__all__ = ["PolicyView"]


class PolicyView:
    """The ``SenderView`` of one connection's loss recovery (its attributes are documented
    there)."""

    __slots__ = ("_rec",)

    def __init__(self, recovery: LossRecovery) -> None:
        self._rec = recovery

    # the window and the recovery's state (recovery.py)
    @property
    def mss(self) -> int:
        return self._rec.mss

    @property
    def cwnd(self) -> int:
        return self._rec.cwnd

    @property
    def ssthresh(self) -> int:
        return self._rec.ssthresh

    @property
    def dupthresh(self) -> int:
        return self._rec.dupthresh

    @property
    def dupacks(self) -> int:
        return self._rec.dupacks

    @property
    def in_recovery(self) -> bool:
        return self._rec.in_recovery

    @property
    def in_loss(self) -> bool:
        return self._rec.in_loss

    @property
    def recovery_point(self) -> int:
        return self._rec.recovery_point

    @property
    def flight_size_before_limited_transmit(self) -> int:
        return self._rec.flight_size_before_limited_transmit

    @property
    def pipe(self) -> int:
        return self._rec.pipe

    @property
    def sack_ok(self) -> bool:
        return self._rec.sack_ok

    @property
    def ts_ok(self) -> bool:
        return self._rec.ts_ok

    @property
    def rdtcp_ok(self) -> bool:
        return self._rec.rdtcp_ok

    def initial_window(self) -> int:
        return self._rec.initial_window()

    # the sequence space (sender.py) and the scoreboard
    @property
    def snd_una(self) -> int:
        return self._rec.sender.snd_una

    @property
    def snd_max(self) -> int:
        return self._rec.sender.snd_max

    @property
    def snd_wnd(self) -> int:
        return self._rec.sender.snd_wnd

    @property
    def flight_size(self) -> int:
        return self._rec.sender.flight_size

    @property
    def unsent(self) -> int:
        return self._rec.sender.unsent

    @property
    def sacked_out(self) -> int:
        return self._rec.sb.sacked_out

    @property
    def scoreboard(self) -> ScoreboardView:
        return self._rec.sb

    def highest_sacked(self) -> int:
        return self._rec.highest_sacked()

    # the timer
    @property
    def rtt(self) -> RttView:
        return self._rec.rtt

    @property
    def rto_deadline(self) -> float | None:
        return self._rec.timers.rto_at
