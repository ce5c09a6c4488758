"""The contract between the engine and a TCP variant: what a policy is given, the hooks the
engine calls, and the decisions a hook returns for the engine to apply.

A variant is a subclass of ``LossRecoveryPolicy`` that overrides only the hooks it changes
(the engine does not call a hook a policy leaves as the base class has it, and never asks
which variant runs), registered by name with ``@register``. Every hook is given the time of
the event, ``now``, and the sending half of the engine as a read-only ``SenderView``; a policy
never assigns engine state. What it wants done it returns: a ``Decision`` (or a tuple of them,
applied in order, or None), a threshold, a yes/no. The engine applies a decision as soon as the
hook returns, so the next hook sees its effect; a policy that must act on the window a decision
restored does so in ``on_undo``. Its own timer it reports through ``deadline``.

Positions are unwrapped offsets from the ISS (hosts/tcp/connection.py), so plain integer
comparison is sequence order.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["LossRecoveryPolicy", "SenderView", "VARIANTS", "register", "get_variant",
           "DUPTHRESH", "Decision", "Undo", "SpuriousTimeout", "GoBackN", "MarkLost",
           "EnterRecovery", "ReduceWindow", "SendProbe", "RetransmitHead", "SetCwnd",
           "CarryDupacks", "RttSample", "LeaveRecovery", "SendNew", "ENTER_RECOVERY",
           "REDUCE_WINDOW", "SEND_PROBE", "RETRANSMIT_HEAD", "LEAVE_RECOVERY"]

DUPTHRESH = 3   # RFC 5681 §3.2, RFC 6675 §2: DupThresh


class SenderView(Protocol):
    """What a policy may read of the sending half (hosts/tcp/recovery.py provides it)."""

    @property
    def mss(self) -> int:
        """SMSS: data bytes per segment, as negotiated (hosts/tcp/handshake.py)."""

    @property
    def cwnd(self) -> int:
        """The congestion window (bytes)."""

    @property
    def ssthresh(self) -> int:
        """The slow-start threshold (bytes)."""

    @property
    def dupacks(self) -> int:
        """Duplicate ACKs since the cumulative ACK last advanced."""

    @property
    def in_recovery(self) -> bool:
        """Fast recovery runs (RFC 6675 §5, RFC 6582)."""

    @property
    def in_loss(self) -> bool:
        """An RTO's recovery runs, until RecoveryPoint is acknowledged."""

    @property
    def recovery_point(self) -> int:
        """RFC 6675 RecoveryPoint, RFC 6582 ``recover``: SND.MAX when the recovery began."""

    @property
    def snd_una(self) -> int:
        """SND.UNA."""

    @property
    def snd_max(self) -> int:
        """The highest offset sent so far (RFC 6675 HighData)."""

    @property
    def snd_wnd(self) -> int:
        """The peer's advertised window (bytes, scaled)."""

    @property
    def flight_size(self) -> int:
        """FlightSize: SND.MAX - SND.UNA (RFC 5681 §2)."""

    @property
    def flight_size_before_limited_transmit(self) -> int:
        """FlightSize without the data limited transmit sent since this episode's first
        duplicate ACK (RFC 5681 §3.2 step 2)."""

    @property
    def pipe(self) -> int:
        """RFC 6675 §4 SetPipe (bytes); without SACK each duplicate ACK counts as a segment
        gone."""

    @property
    def unsent(self) -> int:
        """Bytes the application wrote that were never sent."""

    @property
    def sacked_out(self) -> int:
        """Bytes above SND.UNA the peer has SACKed."""

    @property
    def sack_ok(self) -> bool:
        """Both ends agreed on SACK (RFC 2018); without it the engine is NewReno (RFC 6582)."""

    @property
    def ts_ok(self) -> bool:
        """Both ends agreed on timestamps (RFC 7323)."""

    @property
    def rdtcp_ok(self) -> bool:
        """Both ends agreed on RD-TCP (design.md)."""

    @property
    def rtt(self):
        """The RTO's estimator (hosts/tcp/rtt.py): ``srtt`` (None before a sample),
        ``rttvar``, ``rto``."""

    @property
    def rto_deadline(self) -> float | None:
        """When the retransmission timer expires, or None."""

    @property
    def scoreboard(self):
        """The send scoreboard (hosts/tcp/scoreboard.py), for a policy that finds losses
        itself: it reads records and returns ``MarkLost`` with those it found lost."""

    def highest_sacked(self) -> int:
        """The end of the highest data ever SACKed, or SND.UNA when that is beyond it."""

    def initial_window(self) -> int:
        """IW in bytes (RFC 5681 §3.1)."""


# ------------------------------------------------------------------------------- decisions
class Decision:
    """What a hook asks the engine to do. ``apply`` is the engine's side of it, which the
    engine (hosts/tcp/recovery.py) calls when the hook returns."""

    __slots__ = ()

    def apply(self, engine, now: float) -> None:
        raise NotImplementedError


class Undo(Decision):
    """Restore the window a reduction took, ``cwnd`` and ``ssthresh`` as before it (DSACK undo,
    000 §2 and RFC 3708; Eifel, RFC 3522). Neither goes down; ``detector`` names what showed the
    reduction false (counted in ``stats["<detector>_undos"]``). During fast recovery the episode
    is marked undone: leaving it keeps the restored window."""

    __slots__ = ("cwnd", "ssthresh", "detector")

    def __init__(self, cwnd: int, ssthresh: int, detector: str = "dsack"):
        self.cwnd, self.ssthresh, self.detector = cwnd, ssthresh, detector

    def apply(self, engine, now):
        engine.undo_reduction(self.cwnd, self.ssthresh, self.detector, now)


class SpuriousTimeout(Decision):
    """The last retransmission timeout was spurious (Eifel's response, RFC 4015; F-RTO, RFC
    5682): leave its recovery without the go-back-N retransmissions still to come ("SND.NXT <-
    SND.MAX") and set ``cwnd`` and ``ssthresh``. ``recover``, when given, becomes RFC 6582's
    ``recover`` (a NewReno sender forgets the timeout's send_high, RFC 5682 §2 step 3b)."""

    __slots__ = ("cwnd", "ssthresh", "recover")

    def __init__(self, cwnd: int, ssthresh: int, recover: int | None = None):
        self.cwnd, self.ssthresh, self.recover = cwnd, ssthresh, recover

    def apply(self, engine, now):
        engine.resume_after_spurious_timeout(self.cwnd, self.ssthresh, self.recover, now)


class GoBackN(Decision):
    """Go on with the conventional recovery of a timeout that retransmitted its first segment
    only (F-RTO, RFC 5682 steps 2a and 3a): every unSACKed segment is lost; cwnd at most
    ``cwnd_cap`` when given."""

    __slots__ = ("cwnd_cap",)

    def __init__(self, cwnd_cap: int | None = None):
        self.cwnd_cap = cwnd_cap

    def apply(self, engine, now):
        engine.mark_all_lost(self.cwnd_cap)


class MarkLost(Decision):
    """These scoreboard records are lost (a variant's own loss detection, RACK's RFC 8985 §6.2
    step 5): each is to be sent again, a retransmission of it in flight being lost with it."""

    __slots__ = ("records", "rule")

    def __init__(self, records: list, rule: str):
        self.records, self.rule = records, rule

    def apply(self, engine, now):
        engine.mark_lost(self.records, self.rule)


class EnterRecovery(Decision):
    """Losses the variant found start fast recovery now (RFC 6675 §5 (4); RACK, RFC 8985 §6.2
    step 5; Net Reno's second recovery, 002 §6.4), unless a recovery already runs."""

    __slots__ = ()

    def apply(self, engine, now):
        engine.enter_recovery_if_idle(now)


class ReduceWindow(Decision):
    """A loss was repaired without a recovery (TLP, RFC 8985 §7.4.2): the congestion response
    of a fast recovery entered and left at once (ssthresh by ``ssthresh_after_loss``, cwnd no
    larger)."""

    __slots__ = ()

    def apply(self, engine, now):
        engine.reduce_window(now)


class SendProbe(Decision):
    """A tail loss probe (RFC 8985 §7.3), first of this event's segments: one new segment if
    the application and the peer's window allow, whatever cwnd says, else the highest-sequence
    segment again; the RTO restarts. The engine then calls ``on_probe_sent``."""

    __slots__ = ()

    def apply(self, engine, now):
        engine.probe_due = True


class RetransmitHead(Decision):
    """The first unacknowledged segment goes out (again, if its retransmission is still counted
    in flight) on this event, whatever pipe says, as a NewReno partial ACK's retransmission
    does (RFC 6582 §3.2 step 5); nothing when it is SACKed. ``cwnd``, when given, is the window
    from then on."""

    __slots__ = ("cwnd",)

    def __init__(self, cwnd: int | None = None):
        self.cwnd = cwnd

    def apply(self, engine, now):
        engine.retransmit_head(self.cwnd)


class SetCwnd(Decision):
    """cwnd becomes ``cwnd`` (bytes): a variant's own window rule (Net Reno, 002 §5.1, §6.4)."""

    __slots__ = ("cwnd",)

    def __init__(self, cwnd: int):
        self.cwnd = cwnd

    def apply(self, engine, now):
        engine.cwnd = self.cwnd


class RttSample(Decision):
    """``rtt`` seconds is a round-trip time the variant measured where the engine takes none
    (Karn's rule skips retransmitted segments): the RTO's estimator gets it as it gets the
    engine's own (DSACK-ES, 000 §4.4: the mean RTT of a retransmission and its original once a
    DSACK shows both arrived)."""

    __slots__ = ("rtt",)

    def __init__(self, rtt: float):
        self.rtt = rtt

    def apply(self, engine, now):
        engine.sample_rtt(self.rtt)


class CarryDupacks(Decision):
    """Outside any recovery, after a cumulative ACK: the next unacknowledged segment counts as
    having drawn ``n`` duplicate ACKs already (the next one is the (n+1)th); without SACK each
    also stands for a segment gone from pipe, as a duplicate ACK does (Net Reno, 002 §4.2)."""

    __slots__ = ("n",)

    def __init__(self, n: int):
        self.n = n

    def apply(self, engine, now):
        engine.carry_dupacks(self.n)


class LeaveRecovery(Decision):
    """Leave fast recovery now, as Reno's first new ACK does (RFC 5681 §3.2 step 6: cwnd =
    ssthresh), and forget ``recover``, so that three more duplicate ACKs for a hole still open
    start the next fast retransmit (Reno has no RFC 6582 §3.2 step 2). Applied from
    ``on_partial_ack`` (002's plain Reno, the baseline of Table 3)."""

    __slots__ = ()

    def apply(self, engine, now):
        engine.leave_recovery()


class SendNew(Decision):
    """``count`` segments of new data go out on this event beyond what cwnd allows, after
    what it allows (Net Reno's marked packets on the 5th and 7th duplicate ACK, 002 §6.3); as
    many as the application and the peer's window have."""

    __slots__ = ("count",)

    def __init__(self, count: int = 1):
        self.count = count

    def apply(self, engine, now):
        engine.new_allowance += self.count


ENTER_RECOVERY = EnterRecovery()
LEAVE_RECOVERY = LeaveRecovery()
REDUCE_WINDOW = ReduceWindow()
SEND_PROBE = SendProbe()
RETRANSMIT_HEAD = RetransmitHead()


# ------------------------------------------------------------------------------- the hooks
class LossRecoveryPolicy:
    """The engine's defaults, which are TCP SACK (RFC 2018, 5681, 6675) and NewReno (RFC 6582)
    without a SACK peer. Subclasses override the hooks their paper or RFC changes."""

    name = "base"
    needs_timestamps = False        # works only with the timestamp option (RFC 7323; Eifel)
    offers_sack = True              # experiments offer SACK-permitted (False: a NewReno sender)
    observes_deliveries = False     # the engine calls on_delivered (a call per segment acked)
    dupthresh_loss_marking = True   # the engine's IsLost (RFC 6675 §4) marks losses; False for
                                    # a variant that finds them itself (RACK)
    rto_estimator: str | None = None    # the RTO estimator the variant is built on, a key of
                                        # hosts.tcp.rtt.ESTIMATORS (None: the config's)
    marks_retransmissions = False   # set the RTX bit on retransmissions (Ludwig's, 000 §3)

    def __init__(self, config):
        self.config = config
        # DupThresh in force (RFC 6675 §2): fast retransmit's threshold and IsLost's count of
        # SACKed segments; 3 (RFC 5681) unless an OS profile says (004, hosts/tcp/profiles.py)
        self.dupthresh = config.dupthresh

    # ------------------------------------------------------------ duplicate ACKs
    def on_dupack(self, view: SenderView, seg, dupacks: int, *, now: float):
        """A duplicate ACK arrived (``dupacks``: the count so far; ``seg`` carries the reorder
        bit and options); may change ``dupthresh``. Returns a decision or None."""
        return None

    def limited_transmit(self, view: SenderView, *, now: float) -> bool:
        """At the first duplicate ACK outside any recovery: whether the duplicate ACKs below
        DupThresh of this episode may release new segments (RFC 3042 Limited Transmit, which
        the engine's pipe does: each counts as a segment gone), or release nothing until fast
        retransmit (BSD Reno; 002 §4.2 allows them only below 10 segments of cwnd)."""
        return True

    def should_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> bool:
        """Enter fast retransmit now (called after ``on_dupack``, outside any recovery)."""
        return dupacks >= self.dupthresh            # RFC 5681 §3.2 step 2, RFC 6675 §5 (4)

    def ssthresh_after_loss(self, view: SenderView, *, now: float) -> int:
        """ssthresh on a fast retransmit, an RTO or a repaired tail loss: RFC 5681 §3.1
        equation (4), with FlightSize not counting limited transmit's data (§3.2 step 2)."""
        return max(view.flight_size_before_limited_transmit // 2, 2 * view.mss)

    # ------------------------------------------------------------ the cumulative ACK
    def on_new_ack(self, view: SenderView, *, now: float):
        """The cumulative ACK advanced (a duplicate-ACK episode ended), before recovery is left
        or cwnd grows. Returns a decision or None."""
        return None

    def on_partial_ack(self, view: SenderView, *, now: float):
        """A partial ACK in fast recovery (SND.UNA advanced, not to RecoveryPoint), after
        ``on_new_ack``. Without SACK (RFC 6582 §3.2 step 5) the default retransmits the first
        unacknowledged segment at once; with ``config.partial_ack`` "wait" the hook is not
        called and the next hole waits for the RTO. With SACK the default does nothing (IsLost
        decides what is resent, RFC 6675 §5)."""
        return None if view.sack_ok else RETRANSMIT_HEAD

    def on_ack(self, view: SenderView, seg, prior_una: int, *, now: float):
        """Any acceptable ACK, once the engine has processed it (``view.snd_una > prior_una``:
        it acknowledged new data); ``seg`` carries its options (the peer's TSecr). Returns a
        decision or None."""
        return None

    def on_delivered(self, view: SenderView, start: int, end: int, sent_at: float,
                     transmissions: int, *, now: float) -> None:
        """[start, end) was acknowledged for the first time, by a SACK block or by the
        cumulative ACK (a segment SACKed earlier is not reported again); ``sent_at`` is its
        latest transmission's time, ``transmissions`` how often it was sent. Called while the
        ACK is processed, SACK blocks first, then the cumulative ACK, each in sequence order,
        before ``on_ack``; only when the class sets ``observes_deliveries``."""

    def on_dsack(self, view: SenderView, start: int, end: int, retransmitted: bool, *,
                 now: float):
        """The peer reported [start, end) received twice (RFC 2883 §4); ``retransmitted``:
        we sent it more than once. Returns a decision (an undo) or None."""
        return None

    def on_undo(self, view: SenderView, *, now: float) -> None:
        """The engine has applied an ``Undo`` or ``SpuriousTimeout`` this policy returned: what
        depends on the restored window goes here (BL-INC's dupthresh bound, 000 §5.1)."""

    # ------------------------------------------------------------ fast recovery
    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        """Fast retransmit is about to happen (cwnd and ssthresh are still ``prior_*``)."""

    def on_retransmit(self, view: SenderView, start: int, end: int, last_sent_at: float, *,
                      now: float):
        """[start, end) is being sent again; ``last_sent_at``: when it was sent before (a
        first retransmission's: the original's). Returns a decision or None."""
        return None

    # ------------------------------------------------------------ the retransmission timer
    def timeout_enters_recovery(self, view: SenderView, *, now: float) -> bool:
        """The retransmission timer expired outside any recovery: True makes the engine enter
        fast recovery (halve the window, retransmit the head) instead of the RTO's loss window
        and go-back-N (RFC 6298, RFC 5681 §3.1: False). Called before ``on_timeout``."""
        return False

    def on_timeout(self, view: SenderView, *, now: float):
        """The retransmission timer expired with data outstanding (cwnd and ssthresh are not
        yet cut). Returns a decision or None."""
        return None

    def timeout_retransmits_all(self, view: SenderView, *, now: float) -> bool:
        """After ``on_timeout``: whether the RTO marks every unSACKed segment lost (RFC 6675
        §5.1) or only the first, which it retransmits (F-RTO, RFC 5682 §3 step 1)."""
        return True

    def new_data_allowance(self, view: SenderView, *, now: float) -> int:
        """While an RTO's recovery runs: how many new segments to send now beyond cwnd (F-RTO's
        two, RFC 5682 step 2b)."""
        return 0

    # ------------------------------------------------------------ the variant's own timer
    def deadline(self) -> float | None:
        """When ``on_deadline`` is due (an absolute time), or None. The engine reads it after
        ``on_ack``, ``on_deadline`` and ``on_timeout``; the RTO, when due at the same time,
        goes first."""
        return None

    def on_deadline(self, view: SenderView, *, now: float):
        """The variant's timer expired (RACK's reordering timer, TLP's PTO). Returns a decision
        or None; the engine then sends what cwnd and the scoreboard allow."""
        return None

    def on_probe_sent(self, view: SenderView, retransmission: bool, *, now: float) -> None:
        """The engine sent the loss probe ``SEND_PROBE`` asked for (``view.snd_max`` is past
        it); ``retransmission``: it sent old data again."""

    # ------------------------------------------------------------ receiver
    def on_data(self, rcv, start: int, end: int, stamp, *, now: float) -> None:
        """A data segment [start, end) arrived, before reassembly (``rcv``: the receive buffer,
        hosts/tcp/receiver.py), with the EPDN stamp (lo, hi) it carried or None (stamps reach
        here only on RD-TCP flows)."""

    def ack_reorder_bit(self, rcv, *, now: float) -> bool:
        """Whether the ACK about to be sent carries RD-TCP's reorder bit."""
        return False


VARIANTS: dict[str, type[LossRecoveryPolicy]] = {}


def register(cls: type[LossRecoveryPolicy]) -> type[LossRecoveryPolicy]:
    VARIANTS[cls.name] = cls
    return cls


def get_variant(name: str) -> type[LossRecoveryPolicy]:
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"unknown TCP variant {name!r}; choose from "
                         f"{', '.join(sorted(VARIANTS))}") from None


def overrides(policy: LossRecoveryPolicy, hook: str):
    """The policy's bound ``hook`` when its class overrides the base class's, else None (the
    engine then skips the call: the base class's hook does nothing)."""
    if getattr(type(policy), hook) is getattr(LossRecoveryPolicy, hook):
        return None
    return getattr(policy, hook)
