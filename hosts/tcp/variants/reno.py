"""Reno: the NetBSD 1.2 sender that Net Reno modifies ([NETRENO] §1.1,
§3; [NETRENO] Table 3's "standard Reno sender", 4006 kb/s), the baseline of Net Reno's evaluation.

On the engine's NewReno path (no SACK offered), with Reno's three differences from RFC 6582:

- duplicate ACKs below the third send nothing (no Limited Transmit: BSD Reno drops them);
- the first new ACK after fast retransmit ends fast recovery with cwnd = ssthresh (RFC 5681
  §3.2 step 6), a partial one too (``LeaveRecovery``), so each further hole of the window
  needs three new duplicate ACKs and halves the window again, or waits for the timer: "the
  congestion window is W/2^L after L recoveries" ([NETRENO] §5), at most six back-to-back losses
  recovered from a window of 128 ([NETRENO] §1.1);
- ssthresh is half of min(cwnd, the peer's window), at least two segments, as NetBSD's
  tcp_input computes it, not of FlightSize: after a recovery
  left on a partial ACK the flight still holds everything that recovery sent.
"""

from __future__ import annotations

from hosts.tcp.variants.base import (LEAVE_RECOVERY, Decisions, LossRecoveryPolicy, SenderView,
                                     register)

__all__ = ["Reno"]


@register
class Reno(LossRecoveryPolicy):
    name = "reno"
    offers_sack = False

    def limited_transmit(self, view: SenderView, *, now: float) -> bool:
        return False

    def ssthresh_after_loss(self, view: SenderView, *, now: float) -> int:
        return max(min(view.cwnd, view.snd_wnd) // 2, 2 * view.mss)

    def on_partial_ack(self, view: SenderView, *, now: float) -> Decisions:
        return LEAVE_RECOVERY
