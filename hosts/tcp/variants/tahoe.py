"""Tahoe: fast retransmit without fast recovery (Jacobson's 1988 sender as 4.3BSD-Tahoe had it;
the ns Manual's "TCP Agents", ``Agent/TCP``; RFC 5681 §3.2 describes the fast recovery Tahoe
lacks).

DupThresh duplicate ACKs are a loss, answered as a timeout answers one but without backing the
timer off: ssthresh is half the window, cwnd one segment, and every segment not yet
acknowledged goes out again in slow start (go-back-N), the timer restarted
(``restarts_on_fast_retransmit``). Duplicate ACKs never inflate the window: the first DupThresh
- 1 send nothing of their own (no Limited Transmit: ``TcpConfig.limited_transmit_always`` turns
it on, ns-2's ``singledup_``), and only the DupThresh-th is a fast retransmit, not every one
after it, until a new ACK starts a new count. ``recover`` guards the next one as for NewReno
(``TcpConfig.recover_guard``). ``TcpConfig.no_fast_retransmit`` leaves every loss to the timer
(ns-2's ``noFastRetrans_``).
"""

from __future__ import annotations

from hosts.tcp.variants.base import LossRecoveryPolicy, SenderView, register

__all__ = ["Tahoe"]


@register
class Tahoe(LossRecoveryPolicy):
    name = "tahoe"
    offers_sack = False
    restarts_on_fast_retransmit = True

    def limited_transmit(self, view: SenderView, *, now: float) -> bool:
        return False

    def should_fast_retransmit(self, view: SenderView, dupacks: int, *, now: float) -> bool:
        return dupacks == view.dupthresh and not self.config.no_fast_retransmit
