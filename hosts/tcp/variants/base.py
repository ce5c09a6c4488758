"""The contract between the engine and a TCP variant: what a policy is given, the hooks the
engine calls, and the decisions a hook returns for the engine to apply.

A variant is a subclass of ``LossRecoveryPolicy`` that overrides only the hooks it changes
(the engine does not call a hook a policy leaves as the base class has it, and never asks
which variant runs), registered by name with ``@register``. Every hook is given the time of
the event, ``now``, and the sending half of the engine as a read-only ``SenderView``; a policy
never assigns engine state, and the view has nothing to assign. What it wants done it returns:

- an *event hook* returns ``Decisions``: a ``Decision`` (below), a tuple of them (applied in
  order; ``chain`` builds one) or None. The engine applies them as soon as the hook returns,
  so the next hook sees their effect: a policy that must act on the window an ``Undo``
  restored does so in ``on_undo``;
- a *query hook* returns a value the engine uses at once: a threshold, a yes/no
  (``should_fast_retransmit``, ``ssthresh_after_loss``, ``limited_transmit``, ...), or its own
  timer's deadline (``deadline``);
- a *notification hook* returns nothing: it tells the policy what the engine did
  (``on_enter_recovery``, ``on_delivered``, ``on_probe_sent``, the receiver's ``on_data``).

The engine's side (hosts/tcp/recovery.py) holds the state these decisions change, DupThresh
among it (``SetDupthresh``: RD-TCP's 3+k is ``on_dupack`` returning ``SetDupthresh(3 + k)``),
and applies each decision in one place, ``LossRecovery``'s table of appliers.

Positions are unwrapped offsets from the ISS (hosts/tcp/connection.py), so plain integer
comparison is sequence order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol, Sequence, Tuple, TypeVar, Union

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from hosts.tcp.ranges import RangeSet
    from netbase.segment import Segment

__all__ = ["LossRecoveryPolicy", "SenderView", "ScoreboardView", "RecordView", "RttView",
           "ReceiverView", "VARIANTS", "register", "get_variant", "overrides", "chain",
           "DUPTHRESH", "Decision", "Decisions", "Undo", "SpuriousTimeout", "GoBackN", "MarkLost", "EnterRecovery",
           "ReduceWindow", "SendProbe", "RetransmitHead", "SetCwnd", "SetDupthresh",
           "CarryDupacks", "RttSample", "LeaveRecovery", "SendNew", "ENTER_RECOVERY",
           "REDUCE_WINDOW", "SEND_PROBE", "RETRANSMIT_HEAD", "LEAVE_RECOVERY",
           "RESET_DUPTHRESH"]

DUPTHRESH = 3   # RFC 5681 §3.2, RFC 6675 §2: DupThresh

# a scoreboard record as a policy reads it: [start, end, sacked, lost, retrans, sent_at,
# transmissions], indexed by hosts.tcp.scoreboard's START ... TX
RecordView = Sequence[Any]


# ------------------------------------------------------------------------------- what a hook reads
class RttView(Protocol):
    """The RTO's estimator (hosts/tcp/rtt.py) as a policy reads it."""

    @property
    def srtt(self) -> float | None:
        """The smoothed RTT (seconds), None before the first sample."""

    @property
    def rttvar(self) -> float:
        """The RTT variation (seconds)."""

    @property
    def rto(self) -> float:
        """The retransmission timeout in force (seconds, backed off)."""


class ScoreboardView(Protocol):
    """The send scoreboard (hosts/tcp/scoreboard.py) as a policy reads it: one record per
    segment sent, in sequence order, ``records[head:]`` not yet cumulatively acknowledged. A
    policy that finds losses itself reads records and returns ``MarkLost`` with those it found
    lost; only the engine changes them."""

    @property
    def records(self) -> Sequence[RecordView]:
        """The records (read with hosts.tcp.scoreboard's START, END, SACKED, LOST, RETRANS,
        SENT_AT, TX)."""

    @property
    def head(self) -> int:
        """The index of the first record not cumulatively acknowledged."""

    def next_lost(self) -> RecordView | None:
        """RFC 6675 NextSeg (1): the first record marked lost and not yet sent again."""


class SenderView(Protocol):
    """What a policy may read of the sending half (hosts/tcp/recovery.py's ``PolicyView``
    provides it; a test may hand in any object with these attributes)."""

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
    def dupthresh(self) -> int:
        """DupThresh in force (RFC 6675 §2): fast retransmit's count of duplicate ACKs (the
        default ``should_fast_retransmit``) and IsLost's of SACKed segments (§4). The
        configuration's (``TcpConfig.dupthresh``, 3) until a ``SetDupthresh`` changes it."""

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
        """Both ends agreed on RD-TCP (RD-TCP-permitted, docs/architecture.md §4)."""

    @property
    def rtt(self) -> RttView:
        """The RTO's estimator: ``srtt`` (None before a sample), ``rttvar``, ``rto``."""

    @property
    def rto_deadline(self) -> float | None:
        """When the retransmission timer expires, or None."""

    @property
    def scoreboard(self) -> ScoreboardView:
        """The send scoreboard, for a policy that finds losses itself."""

    def highest_sacked(self) -> int:
        """The end of the highest data ever SACKed, or SND.UNA when that is beyond it."""

    def initial_window(self) -> int:
        """IW in bytes (RFC 5681 §3.1)."""


class ReceiverView(Protocol):
    """The receive buffer (hosts/tcp/receiver.py) as the receiver hooks read it."""

    @property
    def rcv_nxt(self) -> int:
        """RCV.NXT: the next in-order byte expected."""

    @property
    def highest(self) -> int:
        """The end of the highest byte received ([RDTCP] §3.1's PNO_k)."""

    @property
    def ooo(self) -> RangeSet:
        """The out-of-order bytes held (read only)."""


# ------------------------------------------------------------------------------- decisions
class Decision:
    """What a hook asks the engine to do: data only (the engine applies it, hosts/tcp/
    recovery.py). Equal when of the same class with the same fields."""

    __slots__: Tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, f) == getattr(other, f) for f in self.__slots__)

    def __hash__(self) -> int:
        return hash((type(self),) + tuple(getattr(self, f) for f in self.__slots__))

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__)
        return f"{type(self).__name__}({fields})"


# what an event hook returns: a decision, a tuple of them (applied in order), or None
Decisions = Optional[Union[Decision, Tuple[Decision, ...]]]


class Undo(Decision):
    """Restore the window a reduction took, ``cwnd`` and ``ssthresh`` as before it (DSACK undo,
    [RRTCP] §2 and RFC 3708; Eifel, RFC 3522). Neither goes down; ``detector`` names what showed the
    reduction false (counted in ``stats["<detector>_undos"]``). During fast recovery the episode
    is marked undone: leaving it keeps the restored window. The engine then calls ``on_undo``."""

    __slots__ = ("cwnd", "ssthresh", "detector")

    def __init__(self, cwnd: int, ssthresh: int, detector: str = "dsack"):
        self.cwnd, self.ssthresh, self.detector = cwnd, ssthresh, detector


class SpuriousTimeout(Decision):
    """The last retransmission timeout was spurious (Eifel's response, RFC 4015; F-RTO, RFC
    5682): leave its recovery without the go-back-N retransmissions still to come ("SND.NXT <-
    SND.MAX") and set ``cwnd`` and ``ssthresh``. ``recover``, when given, becomes RFC 6582's
    ``recover`` (a NewReno sender forgets the timeout's send_high, RFC 5682 §2 step 3b). The
    engine then calls ``on_undo``."""

    __slots__ = ("cwnd", "ssthresh", "recover")

    def __init__(self, cwnd: int, ssthresh: int, recover: int | None = None):
        self.cwnd, self.ssthresh, self.recover = cwnd, ssthresh, recover


class GoBackN(Decision):
    """Go on with the conventional recovery of a timeout that retransmitted its first segment
    only (F-RTO, RFC 5682 steps 2a and 3a): every unSACKed segment is lost; cwnd at most
    ``cwnd_cap`` when given."""

    __slots__ = ("cwnd_cap",)

    def __init__(self, cwnd_cap: int | None = None):
        self.cwnd_cap = cwnd_cap


class MarkLost(Decision):
    """These scoreboard records are lost (a variant's own loss detection, RACK's RFC 8985 §6.2
    step 5): each is to be sent again, a retransmission of it in flight being lost with it.
    ``rule`` names the rule in the ``marked-lost`` trace event."""

    __slots__ = ("records", "rule")

    def __init__(self, records: Sequence[RecordView], rule: str):
        self.records, self.rule = records, rule


class EnterRecovery(Decision):
    """Losses the variant found start fast recovery now (RFC 6675 §5 (4); RACK, RFC 8985 §6.2
    step 5; Net Reno's second recovery, [NETRENO] §6.4), unless a recovery already runs."""

    __slots__ = ()


class ReduceWindow(Decision):
    """A loss was repaired without a recovery (TLP, RFC 8985 §7.4.2): the congestion response
    of a fast recovery entered and left at once (ssthresh by ``ssthresh_after_loss``, cwnd no
    larger)."""

    __slots__ = ()


class SendProbe(Decision):
    """A tail loss probe (RFC 8985 §7.3), first of this event's segments: one new segment if
    the application and the peer's window allow, whatever cwnd says, else the highest-sequence
    segment again; the RTO restarts. The engine then calls ``on_probe_sent``."""

    __slots__ = ()


class RetransmitHead(Decision):
    """The first unacknowledged segment goes out (again, if its retransmission is still counted
    in flight) on this event, whatever pipe says, as a NewReno partial ACK's retransmission
    does (RFC 6582 §3.2 step 5); nothing when it is SACKed. ``cwnd``, when given, is the window
    from then on."""

    __slots__ = ("cwnd",)

    def __init__(self, cwnd: int | None = None):
        self.cwnd = cwnd


class SetCwnd(Decision):
    """cwnd becomes ``cwnd`` (bytes): a variant's own window rule (Net Reno, [NETRENO] §5.1, §6.4)."""

    __slots__ = ("cwnd",)

    def __init__(self, cwnd: int):
        self.cwnd = cwnd


class SetDupthresh(Decision):
    """DupThresh becomes ``n`` (RFC 6675 §2): the duplicate ACKs the default
    ``should_fast_retransmit`` waits for, and the SACKed segments above a hole that make IsLost
    (§4) mark it lost. RD-TCP's 3+k ([RDTCP] §3.1), Blanton and Allman's raised thresholds ([RRTCP]
    §5.1), RR-TCP's percentile ([RRTCP] §4.2)."""

    __slots__ = ("n",)

    def __init__(self, n: int):
        self.n = n


class RttSample(Decision):
    """``rtt`` seconds is a round-trip time the variant measured where the engine takes none
    (Karn's rule skips retransmitted segments): the RTO's estimator gets it as it gets the
    engine's own (DSACK-ES, [RRTCP] §4.4: the mean RTT of a retransmission and its original once a
    DSACK shows both arrived)."""

    __slots__ = ("rtt",)

    def __init__(self, rtt: float):
        self.rtt = rtt


class CarryDupacks(Decision):
    """Outside any recovery, after a cumulative ACK: the next unacknowledged segment counts as
    having drawn ``n`` duplicate ACKs already (the next one is the (n+1)th); without SACK each
    also stands for a segment gone from pipe, as a duplicate ACK does (Net Reno, [NETRENO] §4.2)."""

    __slots__ = ("n",)

    def __init__(self, n: int):
        self.n = n


class LeaveRecovery(Decision):
    """Leave fast recovery now, as Reno's first new ACK does (RFC 5681 §3.2 step 6: cwnd =
    ssthresh), and forget ``recover``, so that three more duplicate ACKs for a hole still open
    start the next fast retransmit (Reno has no RFC 6582 §3.2 step 2). Returned from
    ``on_partial_ack`` ([NETRENO]'s plain Reno, the baseline of Table 3)."""

    __slots__ = ()


class SendNew(Decision):
    """``count`` segments of new data go out on this event beyond what cwnd allows, after
    what it allows (Net Reno's marked packets on the 5th and 7th duplicate ACK, [NETRENO] §6.3); as
    many as the application and the peer's window have."""

    __slots__ = ("count",)

    def __init__(self, count: int = 1):
        self.count = count


ENTER_RECOVERY = EnterRecovery()
LEAVE_RECOVERY = LeaveRecovery()
REDUCE_WINDOW = ReduceWindow()
SEND_PROBE = SendProbe()
RETRANSMIT_HEAD = RetransmitHead()
RESET_DUPTHRESH = SetDupthresh(DUPTHRESH)


def chain(*decisions: Decisions) -> Decisions:
    """Decisions in order as a hook returns them: None, one, or a flat tuple (a policy that
    extends another puts its own before or after what the parent's hook returned)."""
    flat: list[Decision] = []
    for d in decisions:
        if isinstance(d, tuple):
            flat.extend(d)
        elif d is not None:
            flat.append(d)
    return None if not flat else flat[0] if len(flat) == 1 else tuple(flat)


# ------------------------------------------------------------------------------- the hooks
class LossRecoveryPolicy:
    """The engine's defaults, which are TCP SACK (RFC 2018, 5681, 6675) and NewReno (RFC 6582)
    without a SACK peer. Subclasses override the hooks their paper or RFC changes."""

    name = "base"
    needs_timestamps = False        # works only with the timestamp option (RFC 7323; Eifel)
    offers_sack = True              # experiments offer SACK-permitted (False: a NewReno sender)
    observes_deliveries = False     # the engine calls on_delivered (a call per segment acked)
    # with SACK, the engine's IsLost (RFC 6675 §4: DupThresh SACKed segments above a hole) marks
    # losses; False for a variant that finds them itself (RACK; without SACK it cannot, and the
    # engine marks as for any sender)
    dupthresh_loss_marking = True
    rto_estimator: str | None = None    # the RTO estimator the variant is built on, a key of
                                        # hosts.tcp.rtt.ESTIMATORS (None: the config's)
    marks_retransmissions = False   # set the RTX bit on retransmissions (Ludwig's, [RRTCP] §3)
    # the fast retransmit answered as a timeout without backoff, with no fast recovery (Tahoe:
    # cwnd one segment, go-back-N in slow start; variants/tahoe.py)
    restarts_on_fast_retransmit = False

    def __init__(self, config: TcpConfig):
        self.config = config

    # ------------------------------------------------------------ duplicate ACKs
    def on_dupack(self, view: SenderView, seg: Segment, dupacks: int, *, now: float) -> Decisions:
        """A duplicate ACK arrived (``dupacks``: the count so far; ``seg`` carries the reorder
        bit and options), before ``should_fast_retransmit``; a ``SetDupthresh`` returned here
        is the threshold that call compares with."""
        return None

    def limited_transmit(self, view: SenderView, *, now: float) -> bool:
        """At the first duplicate ACK outside any recovery: whether the duplicate ACKs below
        DupThresh of this episode may release new segments (RFC 3042 Limited Transmit, which
        the engine's pipe does: each counts as a segment gone), or release nothing until fast
        retransmit (BSD Reno; [NETRENO] §4.2 allows them only below 10 segments of cwnd)."""
        return True

    def should_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> bool:
        """Enter fast retransmit now (called after ``on_dupack``, outside any recovery)."""
        return dupacks >= view.dupthresh            # RFC 5681 §3.2 step 2, RFC 6675 §5 (4)

    def ssthresh_after_loss(self, view: SenderView, *, now: float) -> int:
        """ssthresh on a fast retransmit, an RTO or a repaired tail loss: RFC 5681 §3.1
        equation (4), with FlightSize not counting limited transmit's data (§3.2 step 2)."""
        return max(view.flight_size_before_limited_transmit // 2, 2 * view.mss)

    # ------------------------------------------------------------ the cumulative ACK
    def on_new_ack(self, view: SenderView, *, now: float) -> Decisions:
        """The cumulative ACK advanced (a duplicate-ACK episode ended), before recovery is left
        or cwnd grows."""
        return None

    def on_partial_ack(self, view: SenderView, *, now: float) -> Decisions:
        """A partial ACK in fast recovery (SND.UNA advanced, not to RecoveryPoint), after
        ``on_new_ack``. Without SACK (RFC 6582 §3.2 step 5) the default retransmits the first
        unacknowledged segment at once; with ``config.partial_ack`` "wait" the hook is not
        called and the next hole waits for the RTO. With SACK the default does nothing (IsLost
        decides what is resent, RFC 6675 §5)."""
        return None if view.sack_ok else RETRANSMIT_HEAD

    def on_ack(self, view: SenderView, seg: Segment, prior_una: int, *, now: float) -> Decisions:
        """Any acceptable ACK, once the engine has processed it (``view.snd_una > prior_una``:
        it acknowledged new data); ``seg`` carries its options (the peer's TSecr)."""
        return None

    def on_delivered(self, view: SenderView, start: int, end: int, sent_at: float,
                     transmissions: int, *, now: float) -> None:
        """Notification: [start, end) was acknowledged for the first time, by a SACK block or
        by the cumulative ACK (a segment SACKed earlier is not reported again); ``sent_at`` is
        its latest transmission's time, ``transmissions`` how often it was sent. Called while
        the ACK is processed, SACK blocks first, then the cumulative ACK, each in sequence
        order, before ``on_ack`` (which decides on what it gathered); only when the class sets
        ``observes_deliveries``."""

    def on_dsack(self, view: SenderView, start: int, end: int, retransmitted: bool, *,
                 now: float) -> Decisions:
        """The peer reported [start, end) received twice (RFC 2883 §4); ``retransmitted``:
        we sent it more than once."""
        return None

    def on_undo(self, view: SenderView, *, now: float) -> Decisions:
        """The engine has applied an ``Undo`` or ``SpuriousTimeout`` this policy returned: what
        depends on the restored window goes here (BL-INC's dupthresh bound, [RRTCP] §5.1)."""
        return None

    # ------------------------------------------------------------ fast recovery
    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        """Notification: fast retransmit is about to happen (cwnd and ssthresh are still
        ``prior_*``)."""

    def on_retransmit(self, view: SenderView, start: int, end: int, last_sent_at: float, *,
                      now: float) -> Decisions:
        """[start, end) is being sent again; ``last_sent_at``: when it was sent before (a
        first retransmission's: the original's)."""
        return None

    # ------------------------------------------------------------ the retransmission timer
    def timeout_enters_recovery(self, view: SenderView, *, now: float) -> bool:
        """The retransmission timer expired outside any recovery: True makes the engine enter
        fast recovery (halve the window, retransmit the head) instead of the RTO's loss window
        and go-back-N (RFC 6298, RFC 5681 §3.1: False). Called before ``on_timeout``."""
        return False

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        """The retransmission timer expired with data outstanding (cwnd and ssthresh are not
        yet cut)."""
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

    def on_deadline(self, view: SenderView, *, now: float) -> Decisions:
        """The variant's timer expired (RACK's reordering timer, TLP's PTO); the engine then
        sends what cwnd and the scoreboard allow."""
        return None

    def on_probe_sent(self, view: SenderView, retransmission: bool, *, now: float) -> None:
        """Notification: the engine sent the loss probe ``SEND_PROBE`` asked for
        (``view.snd_max`` is past it); ``retransmission``: it sent old data again."""

    # ------------------------------------------------------------ receiver
    def on_data(self, rcv: ReceiverView, start: int, end: int, stamp: tuple[int, int] | None,
                *, now: float) -> None:
        """Notification: a data segment [start, end) arrived, before reassembly, with the EPDN
        stamp (lo, hi) it carried or None (stamps reach here only on RD-TCP flows)."""

    def ack_reorder_bit(self, rcv: ReceiverView, *, now: float) -> bool:
        """Whether the ACK about to be sent carries RD-TCP's reorder bit."""
        return False


VARIANTS: dict[str, type[LossRecoveryPolicy]] = {}

P = TypeVar("P", bound=type[LossRecoveryPolicy])


def register(cls: P) -> P:
    VARIANTS[cls.name] = cls
    return cls


def get_variant(name: str) -> type[LossRecoveryPolicy]:
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"unknown TCP variant {name!r}; choose from "
                         f"{', '.join(sorted(VARIANTS))}") from None


def overrides(policy: LossRecoveryPolicy, hook: str) -> Callable[..., Any] | None:
    """The policy's bound ``hook`` when its class overrides the base class's, else None (the
    engine then skips the call: the base class's hook does nothing)."""
    if getattr(type(policy), hook) is getattr(LossRecoveryPolicy, hook):
        return None
    bound: Callable[..., Any] = getattr(policy, hook)
    return bound
