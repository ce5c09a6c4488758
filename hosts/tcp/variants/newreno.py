"""The NewReno forms of the senders seed 001 compares (seeds/001-f-rto.txt §5.1: "a NewReno
TCP with both conventional and F-RTO recovery", and Eifel "both with the SACK TCP and with
the NewReno TCP").

Each is its SACK form's policy with ``offers_sack = False``: experiments offer no
SACK-permitted for it, so the engine runs its NewReno path (RFC 6582 recovery, each duplicate
ACK counting as a segment gone from pipe, a retransmission per partial ACK), as ``netreno``
does. F-RTO's steps and Eifel's timestamp test read only the cumulative ACK, duplicate ACKs and
SND.UNA/SND.MAX there (F-RTO's "beyond RecoveryPoint" test sees no SACK block, so only the
cumulative ACK can show it: the paper's basic algorithm, 001 §3).

One rule is the NewReno path's own: once a timeout is declared spurious, "send_high" is
forgotten (001 §3 step 3a: "later duplicate ACKs may trigger fast retransmit"; RFC 5682 §2
step 3b: ``recover`` = SND.UNA). The engine's ``recovery_point`` is RFC 6582's ``recover``,
which it keeps at SND.MAX of the timeout; left there, three duplicate ACKs for a loss of the
data sent after the spurious timeout would not be a fast retransmit (RFC 6582 §3.2 step 2) and
only the timer could repair it. With SACK the engine does not apply that rule.

- ``newreno``: conventional RTO recovery (go-back-N in slow start), the paper's "Regular
  NewReno".
- ``frto-newreno``: F-RTO (``frto``) on the NewReno path.
- ``eifel-newreno``: Eifel (``eifel``) on the NewReno path; it needs timestamps.
"""

from __future__ import annotations

from hosts.tcp.variants import register
from hosts.tcp.variants.eifel import Eifel
from hosts.tcp.variants.frto import Frto
from hosts.tcp.variants.sack import Sack


@register
class NewReno(Sack):
    name = "newreno"
    offers_sack = False


def _forget_send_high(conn, undone_before: int) -> None:
    """001 §3 step 3a / RFC 5682 §2 step 3b: after a spurious timeout, recover = SND.UNA."""
    if conn.stats["spurious_timeouts_undone"] > undone_before:
        conn.recovery_point = conn.snd_una


@register
class FrtoNewReno(Frto):
    name = "frto-newreno"
    offers_sack = False

    def on_ack(self, conn, seg, prior_una):
        undone = conn.stats["spurious_timeouts_undone"]
        super().on_ack(conn, seg, prior_una)
        _forget_send_high(conn, undone)


@register
class EifelNewReno(Eifel):
    name = "eifel-newreno"
    offers_sack = False

    def on_ack(self, conn, seg, prior_una):
        undone = conn.stats["spurious_timeouts_undone"]
        super().on_ack(conn, seg, prior_una)
        _forget_send_high(conn, undone)
