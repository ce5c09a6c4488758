"""F-RTO: TCP SACK that tells a spurious retransmission timeout from a real one by sending new
data instead of going back N ([FRTO]; its SACK-enhanced form, RFC 5682 §3).

After an RTO that did not interrupt a recovery, only the timed-out segment is retransmitted.
- The first ACK that acknowledges new data ("new cumulative ACK"; duplicate ACKs before it only
  feed the scoreboard) sets RecoveryPoint = SND.MAX. If it reaches RecoveryPoint, or no new
  data can be sent, recovery goes on conventionally (RFC 5682 step 2a). Otherwise two new
  segments go out beyond cwnd (step 2b).
- The next ACK decides (step 3). It is genuine when it covers data above RecoveryPoint (the
  cumulative ACK or a SACK block beyond it: the new segments arrived, so what was sent before
  them was lost) or when it is a duplicate ACK: recovery goes on conventionally with cwnd at
  most 3 segments (step 3a). RFC 5682 reads a duplicate ACK that SACKs new data below
  RecoveryPoint as spurious; this policy only takes an advancing cumulative ACK as proof
  (conservative: a duplicate ACK there can also mean a hole). Otherwise - SND.UNA advanced
  and nothing beyond RecoveryPoint is covered: an original sent before the timeout arrived
  after the retransmission was sent - the timeout was spurious (step 3b).
- The response to a spurious timeout (RFC 5682 §4 leaves it open) is the class attribute
  ``response``; every one leaves the go-back-N recovery (no more retransmissions, SND.NXT =
  SND.MAX):
  - ``HALVE``, the paper's own ([FRTO] §3 step 3a, FRTO-RESP-HALVE): cwnd = ssthresh = half the
    flight when the timer expired (the RTO's own reduction is kept), congestion avoidance, new
    data; cwnd at most FlightSize + 3 segments ([FRTO] §4.2's burst avoidance, Linux's
    tcp_moderate_cwnd: below ssthresh, slow start climbs back). ``frto`` and ``frto-newreno``,
    the senders of [FRTO]'s tables.
  - ``UNDO``: cwnd and ssthresh as before the timer, the full restore of [FRTO]'s Eifel (§2).
    ``frto-undo``, ``frto-newreno-undo``.
  - ``RFC4015``: the Eifel response (RFC 4015 §3, ``spurious.respond_to_spurious_timeout``):
    cwnd = FlightSize + min(acked, IW), ssthresh = pipe_prev, the flight before the timer (in a
    first slow start, the "infinite" initial ssthresh). ``frto-rfc4015``,
    ``frto-newreno-rfc4015``.

Unlike Eifel it needs no timestamps. An RTO during a recovery (fast recovery, or an RTO's not
yet finished) is handled conventionally (RFC 5682 §3 step 1), except a repeat of the timeout
still waiting for its first new ACK (a delay spike longer than the backed-off timer): that one
starts F-RTO again with the segment it retransmits (RFC 5682 §2.1 and §3 step 2: "If the
retransmission timer expires again, go to step 1").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hosts.tcp.variants.base import Decisions, GoBackN, SenderView, SpuriousTimeout, register
from hosts.tcp.variants.sack import Sack
from hosts.tcp.variants.spurious import respond_to_spurious_timeout

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from netbase.segment import Segment

NEW_SEGMENTS = 2         # RFC 5682 step 2b: "transmit up to two new (previously unsent) segments"
GENUINE_CWND = 3         # RFC 5682 step 3a: cwnd "no more than 3 * MSS"
BURST_MAX = 3            # [FRTO] §4.2: an ACK releases at most 3 segments (cwnd <= in flight + 3)

HALVE, UNDO, RFC4015 = "halve", "undo", "rfc4015"      # responses to a spurious timeout
RESPONSES = (HALVE, UNDO, RFC4015)

IDLE, FIRST_ACK, SECOND_ACK = "idle", "waiting for the first new ACK", "waiting for the next ACK"


@register
class Frto(Sack):
    name = "frto"
    response = HALVE        # [FRTO] §3 step 3a: the paper's F-RTO

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        if self.response not in RESPONSES:
            raise ValueError(f"{self.name}: unknown F-RTO response {self.response!r}; "
                             f"choose from {', '.join(RESPONSES)}")
        self.state = IDLE
        self.recovery_point = 0
        self.pipe_prev = 0
        self.prior = (0, 0)                 # (cwnd, ssthresh) before the timer (UNDO)
        self.allowance = 0
        self.dupacks_at = 0                 # duplicate ACKs counted when the probes went out

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        if self.state == FIRST_ACK and view.in_loss:
            pass                            # step 2: "if the retransmission timer expires
                                            # again, go to step 1" (RFC 5682 §2.1, §3): the
                                            # timeout's segment only, pipe_prev of the first
        elif view.in_recovery or view.in_loss:
            self.state = IDLE               # step 1: a recovery is running, recover as usual
        else:
            self.state = FIRST_ACK
            self.pipe_prev = max(view.flight_size, view.ssthresh)
            self.prior = (view.cwnd, view.ssthresh)     # called before the engine cuts them
        self.allowance = 0
        return None

    def timeout_retransmits_all(self, view: SenderView, *, now: float) -> bool:
        return self.state == IDLE

    def new_data_allowance(self, view: SenderView, *, now: float) -> int:
        n, self.allowance = self.allowance, 0
        return n

    def on_ack(self, view: SenderView, seg: Segment, prior_una: int, *, now: float) -> Decisions:
        if self.state == FIRST_ACK:
            if view.snd_una <= prior_una:
                return None                 # step 2: duplicate ACKs only update the scoreboard
            self.recovery_point = view.snd_max
            if not view.in_loss or view.snd_una >= self.recovery_point or not view.unsent:
                return self._conventional(view, cap=None)   # step 2a
            self.state = SECOND_ACK                         # step 2b
            self.allowance = NEW_SEGMENTS
            self.dupacks_at = view.dupacks
        elif self.state == SECOND_ACK:
            advanced = view.snd_una > prior_una
            if not advanced and view.dupacks <= self.dupacks_at:
                return None                 # neither a duplicate nor a new ACK: ignored
            beyond = max(view.snd_una, view.highest_sacked()) > self.recovery_point
            if advanced and not beyond:
                self.state = IDLE
                if view.in_loss:            # step 3b: spurious
                    return self._respond(view, prior_una)
            else:
                return self._conventional(view, cap=GENUINE_CWND * view.mss)    # step 3a
        return None

    def _respond(self, view, prior_una):
        if self.response == HALVE:
            return halve_response(view)
        if self.response == UNDO:
            cwnd, ssthresh = self.prior
            return SpuriousTimeout(cwnd, ssthresh)
        return respond_to_spurious_timeout(view, prior_una, self.pipe_prev)

    def _conventional(self, view, *, cap):
        self.state = IDLE
        return GoBackN(cap) if view.in_loss else None


def halve_response(view: SenderView) -> SpuriousTimeout:
    """[FRTO] §3 step 3a (FRTO-RESP-HALVE): the timeout was spurious, but the delay that caused it
    is taken as a congestion signal, as a fast recovery would: keep ssthresh, which the timeout
    set to half the flight (RFC 5681 eq. (4)), and go on from cwnd = ssthresh in congestion
    avoidance with new data. The paper's rationale: a loss followed by a delay also ends here,
    and halving then is what fast recovery does. cwnd is at most FlightSize + BURST_MAX
    segments ([FRTO] §4.2, Linux's tcp_moderate_cwnd), so an ACK that covers much does not
    release a burst; below ssthresh, slow start climbs back."""
    cwnd = min(view.ssthresh, view.flight_size + BURST_MAX * view.mss)
    return SpuriousTimeout(cwnd, view.ssthresh)


@register
class FrtoUndo(Frto):
    name = "frto-undo"
    response = UNDO


@register
class FrtoRfc4015(Frto):
    name = "frto-rfc4015"
    response = RFC4015
