"""The NewReno forms of the senders [FRTO] compares ([FRTO] §5.1: "a NewReno
TCP with both conventional and F-RTO recovery", and Eifel "both with the SACK TCP and with
the NewReno TCP").

Each is its SACK form's policy with ``offers_sack = False``: experiments offer no
SACK-permitted for it, so the engine runs its NewReno path (RFC 6582 recovery, each duplicate
ACK counting as a segment gone from pipe, a retransmission per partial ACK), as ``netreno``
does. F-RTO's steps and Eifel's timestamp test read only the cumulative ACK, duplicate ACKs and
SND.UNA/SND.MAX there (F-RTO's "beyond RecoveryPoint" test sees no SACK block, so only the
cumulative ACK can show it: the paper's basic algorithm, [FRTO] §3).

One rule is the NewReno path's own: once a timeout is declared spurious, "send_high" is
forgotten ([FRTO] §3 step 3a: "later duplicate ACKs may trigger fast retransmit"; RFC 5682 §2
step 3b: ``recover`` = SND.UNA). The engine's ``recovery_point`` is RFC 6582's ``recover``,
which it keeps at SND.MAX of the timeout; left there, three duplicate ACKs for a loss of the
data sent after the spurious timeout would not be a fast retransmit (RFC 6582 §3.2 step 2) and
only the timer could repair it. With SACK the engine does not apply that rule.

The engine refuses a fast retransmit while SND.UNA <= ``recovery_point`` (the duplicate ACKs'
cumulative ACK must cover more than ``recover``), so "forgotten" is SND.UNA - 1, not SND.UNA:
the duplicate ACKs that matter most here are those for the segment at SND.UNA itself. After
an outage that took both data and ACKs, Eifel's first ACK ([FRTO] §5.2's false detection) acks
what arrived before the outage and stops at the first segment the outage took; every duplicate
ACK that follows carries that same SND.UNA. With ``recover`` = SND.UNA none of them was a
fast retransmit: each released a new segment (as a duplicate ACK does on this path) until the
backed-off timer expired, tens of segments beyond the hole (``eifel-newreno`` under BURST:
421 s median in the quick run, experiments/README.md).

- ``newreno``: conventional RTO recovery (go-back-N in slow start), the paper's "Regular
  NewReno".
- ``frto-newreno``: F-RTO (``frto``, the paper's halving response) on the NewReno path;
  ``frto-newreno-undo`` and ``frto-newreno-rfc4015`` with the other responses (frto.py).
- ``eifel-newreno``: Eifel (``eifel``) on the NewReno path; it needs timestamps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hosts.tcp.variants.base import Decisions, SenderView, SpuriousTimeout, register
from hosts.tcp.variants.eifel import Eifel
from hosts.tcp.variants.frto import RFC4015, UNDO, Frto
from hosts.tcp.variants.sack import Sack

if TYPE_CHECKING:
    from netbase.segment import Segment


@register
class NewReno(Sack):
    name = "newreno"
    offers_sack = False


class _ForgetsSendHigh(Sack):
    """The NewReno form of a spurious-timeout detector (put before the SACK form's policy):
    no SACK offered, and once a timeout is declared spurious, recover = SND.UNA ([FRTO] §3 step
    3a / RFC 5682 §2 step 3b), in the engine's terms one below it, so that duplicate ACKs for
    SND.UNA may be a fast retransmit."""

    offers_sack = False

    def on_ack(self, view: SenderView, seg: Segment, prior_una: int, *, now: float) -> Decisions:
        decision = super().on_ack(view, seg, prior_una, now=now)
        if isinstance(decision, SpuriousTimeout):
            decision = SpuriousTimeout(decision.cwnd, decision.ssthresh,
                                       recover=view.snd_una - 1)
        return decision


@register
class FrtoNewReno(_ForgetsSendHigh, Frto):
    name = "frto-newreno"


@register
class FrtoUndoNewReno(FrtoNewReno):
    name = "frto-newreno-undo"
    response = UNDO


@register
class FrtoRfc4015NewReno(FrtoNewReno):
    name = "frto-newreno-rfc4015"
    response = RFC4015


@register
class EifelNewReno(_ForgetsSendHigh, Eifel):
    name = "eifel-newreno"
