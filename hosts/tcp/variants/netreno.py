"""Net Reno: Lin and Kung's fast recovery for the NetBSD 1.2 Reno sender
([NETRENO]), on
both of the engine's paths: NewReno without a SACK peer (RFC 6582, each duplicate ACK counting
as a segment gone from pipe) and SACK (RFC 6675's scoreboard and pipe). The rules' state and
tests are the pieces of netreno_parts.py; this module calls them from the hooks.

Always ([NETRENO] §5, the loss-sensitive window reduction "based on the packet conservation rule"):

- NR-LSNR (§5.1), without SACK: a partial ACK retransmits the next hole and releases nothing
  else (cwnd deflated to pipe); the full ACK leaves recovery with at most one segment released
  (``exit_window``), then slow start. Once the flight is down to about W/2 each ACK sends one
  segment, so the flight ends near W/2 - c, c the number of losses.
- NR-LSSACK (§5.2), with SACK: each retransmission after the fast retransmission takes one
  segment off cwnd ("retransmit a lost packet and reduce the window by one packet"), where
  RFC 6675 sends one more segment per loss to hold the flight at W/2 (Fall and Floyd's
  choice); a partial ACK releases one segment, a lost one or new data; the full ACK as above.

And, each a class attribute so that [NETRENO] Table 3's combinations are variants:

- ``small_window``: NR-SW (§4.2, ``SmallWindow``). Without it duplicate ACKs below the third
  release nothing, as NetBSD Reno's (the engine's RFC 3042 Limited Transmit is off).
- ``reorder_guard``: NR-OOO (§5.3, ``ReorderGuard``), without SACK; with SACK, RFC 6675's
  IsLost is the guard (a hole is resent only with DupThresh SACKed segments above it).
- ``lost_retransmission``: NR-LRX (§6.2, ``AckClock``).
- ``back_to_back``: NR-B2B (§6.4, ``BackToBack``).
- ``limited_data``: NR-LD option (a) (§6.5, ``LimitedData``), without SACK ("New-Reno
  requires data to generate new packets"; SACK recovers the losses of a window in one RTT).
- ``marking``: NR-MARK (§6.3, ``Markers``), with SACK only (see Markers).

Variants ([NETRENO] §7: "New-Reno and SACK ... represent, respectively, Loss-Sensitive New-Reno and
SACK"): ``lsnr`` and ``lssack`` the loss-sensitive senders alone (Table 1's new-reno and sack,
Table 3's "none"); ``lsnr-sw``, ``-lrx``, ``-b2b``, ``-sw-lrx`` and the same for ``lssack``
(Table 3's rows); the bundles ``netreno`` = LSNR + SW + OOO + LRX +
B2B + LD and ``netreno-sack`` = LSSACK + SW + LRX + B2B + MARK ([NETRENO] §7.1's net-reno and
net-reno-sack; the lab of §7.2 ran them "except packet marking"). ``netreno`` offers no SACK
and ``netreno-sack`` does; either one meeting the other kind of peer runs that path's rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hosts.tcp.scoreboard import RETRANS
from hosts.tcp.variants.base import (DUPTHRESH, ENTER_RECOVERY, CarryDupacks, Decisions,
                                     LossRecoveryPolicy, RetransmitHead, SenderView, SetCwnd,
                                     chain, register)
from hosts.tcp.variants.netreno_parts import (AckClock, BackToBack, LimitedData, Markers,
                                              ReorderGuard, SmallWindow, exit_window)

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from netbase.segment import Segment
__all__ = ["NetReno", "NetRenoSack", "Lsnr", "Lssack", "TABLE3_RULES"]


def _head_resent(view: SenderView) -> bool:
    """The first unacknowledged segment has a retransmission in flight."""
    sb = view.scoreboard
    return sb.head < len(sb.records) and sb.records[sb.head][RETRANS]


@register
class NetReno(LossRecoveryPolicy):
    name = "netreno"
    offers_sack = False     # [NETRENO]'s Net Reno: NetBSD's Reno sender (the SACK form: netreno-sack)
    small_window = True
    reorder_guard = True
    lost_retransmission = True
    back_to_back = True
    limited_data = False
    marking = False

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.sw = SmallWindow()
        self.clock = AckClock()
        self.guard = ReorderGuard()
        self.b2b = BackToBack()
        self.markers = Markers()
        self.ld = LimitedData()
        self.exiting = False            # this ACK is the full ACK
        self.retransmissions = 0        # this recovery's (NR-LSSACK rule 1)

    @property
    def lrx_resends(self) -> int:
        """NR-LRX's re-sends so far ([NETRENO] §6.2)."""
        return self.clock.resends

    @property
    def lrx_last_ticks(self) -> int:
        """T at the last NR-LRX re-send."""
        return self.clock.last_resend

    # ------------------------------------------------------------------ before recovery
    def limited_transmit(self, view: SenderView, *, now: float) -> bool:
        # NR-SW ([NETRENO] §4.2): early sends below ten segments only; none without the rule
        return self.small_window and self.sw.early_sends(view)

    def ssthresh_after_loss(self, view: SenderView, *, now: float) -> int:
        if self.b2b.starting:
            return self.b2b.ssthresh(view)      # NR-B2B ([NETRENO] §6.4)
        # RFC 5681 eq. (4) on the flight before the early sends ([NETRENO] §4.2)
        return max(self.sw.flight_before_early_sends(view) // 2, 2 * view.mss)

    def on_dupack(self, view: SenderView, seg: Segment, dupacks: int, *, now: float) -> Decisions:
        if view.in_loss:
            return None
        if view.in_recovery:
            return self._recovery_dupack(view, dupacks)
        if self.b2b.wait:
            # NR-B2B ([NETRENO] §6.4): the duplicate ACK after a suspicious full ACK
            return ENTER_RECOVERY if self.b2b.dupack() else None
        if self.small_window:
            self.sw.on_dupack(view, dupacks)
        if dupacks >= DUPTHRESH and not view.sack_ok and view.snd_una <= view.recovery_point:
            # NetBSD 1.2's Reno, which [NETRENO] §5.1 changes, has no RFC 6582 §3.2 step 2: the third
            # duplicate ACK is a fast retransmit even at the last recovery's end, as when the
            # segment after a full ACK is lost ("another three duplicate ACKs for the second
            # recovery", [NETRENO] §6.4)
            return ENTER_RECOVERY
        return None

    def on_new_ack(self, view: SenderView, *, now: float) -> Decisions:
        if view.in_recovery:
            self.sw.end()
            self.exiting = view.snd_una >= view.recovery_point
            return None
        if view.in_loss:
            self.sw.end()
            return None
        cwnd = None
        if self.b2b.wait:
            # the segment NR-B2B suspected arrived after all: no second reduction, and no
            # more than the full ACK's window (its one extra segment is out)
            self.b2b.wait = 0
            cwnd = SetCwnd(min(view.cwnd, self.b2b.cwnd))
        carry = self.sw.carry(view) if self.small_window else None
        return chain(cwnd, CarryDupacks(carry) if carry is not None else None)

    # ------------------------------------------------------------------ recovery
    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        # NR-LRX ([NETRENO] §6.1): the first RTT is W ticks, W the flight at fast retransmit
        self.clock.start(view.dupacks, self.sw.flight_before_early_sends(view) // view.mss)
        self.guard.marker = view.snd_max
        self.guard.wait = self.b2b.wait = 0
        self.exiting = False
        self.retransmissions = 0
        self.markers.start()
        self.ld.restart(view)

    def on_retransmit(self, view: SenderView, start: int, end: int, last_sent_at: float, *,
                      now: float) -> Decisions:
        if not view.in_recovery or self.ld.sending(start):
            return None
        self.clock.tick()               # [NETRENO] §6.2: "one additional tick ... per retransmission"
        self.guard.marker = view.snd_max    # [NETRENO] §5.3 rule 1: the marker at snd_nxt
        self.retransmissions += 1
        if view.sack_ok and self.retransmissions > 1:
            # NR-LSSACK rule 1 ([NETRENO] §5.2): "retransmit a lost packet and reduce the window by
            # one packet" (the fast retransmission is Reno's, outside the window)
            return SetCwnd(max(view.mss, view.cwnd - view.mss))
        return None

    def _recovery_dupack(self, view: SenderView, dupacks: int):
        self.clock.tick()               # [NETRENO] §6.2: a duplicate ACK, a tick
        mark = None
        if self.marking and view.sack_ok:
            if self.markers.returned(view):
                self.clock.boundary_seen()
            mark = self.markers.on_dupack(view, dupacks)
        if self.guard.wait and not view.sack_ok:
            # NR-OOO ([NETRENO] §5.3): "the number of additional duplicate ACKs is 3 - D"
            return chain(mark, self._resend_head(view) if self.guard.dupack() else None)
        if self.lost_retransmission and self.clock.due():
            # NR-LRX ([NETRENO] §6.2): one RTT of ticks and three more, SND.UNA still not acked:
            # its retransmission was lost, send it "again"
            self.clock.resent()
            return chain(mark, self._resend_head(view))
        if self.limited_data and not view.sack_ok:
            return chain(mark, self.ld.resend(view))
        return mark

    def _resend_head(self, view: SenderView) -> RetransmitHead:
        """SND.UNA goes out now in place of the segment this duplicate ACK releases ([NETRENO] §5.1:
        one packet per ACK); with SACK, NR-LSSACK rule 1 takes that segment off cwnd."""
        self.clock.restart()
        if view.sack_ok:
            return RetransmitHead()
        return RetransmitHead(cwnd=max(view.mss, view.cwnd - view.mss))

    def on_partial_ack(self, view: SenderView, *, now: float) -> Decisions:
        self.clock.restart()            # [NETRENO] §6.2: time the next unacknowledged segment
        self.markers.stop()             # [NETRENO] §6.3: the markers bound the first RTT only
        self.ld.restart(view)
        if view.sack_ok:
            # NR-LSSACK rule 2 ([NETRENO] §5.2): "retransmit a lost packet or send a new packet",
            # and no more than that
            return SetCwnd(max(view.mss, min(view.cwnd, view.pipe + view.mss)))
        if _head_resent(view):
            # NR-LD ([NETRENO] §6.5) sent this hole again already: its copy is on the way (NR-LRX
            # repairs it if lost); the ACK releases nothing ([NETRENO] §5.1 rule 1)
            return SetCwnd(max(view.mss, min(view.cwnd, view.pipe)))
        d = self.guard.distance(view)
        if self.reorder_guard and d < DUPTHRESH and view.unsent > 0:
            # NR-OOO ([NETRENO] §5.3): D < 3, "send a new packet" and wait for 3 - D duplicate ACKs
            self.guard.wait = DUPTHRESH - d
            return SetCwnd(view.pipe + view.mss)
        # NR-LSNR rule 1 ([NETRENO] §5.1): "this partial ACK does not cause more packets to be sent"
        # than the retransmission (with OOO: D >= 3, or no new data to send meanwhile)
        self.guard.wait = 0
        return RetransmitHead(cwnd=max(view.mss, min(view.cwnd, view.pipe)))

    def on_ack(self, view: SenderView, seg: Segment, prior_una: int, *, now: float) -> Decisions:
        if not self.exiting:
            return None
        self.exiting = False
        cwnd = exit_window(view)        # NR-LSNR rule 2, NR-LSSACK rule 3
        if self.back_to_back and self.b2b.suspects(view, self.guard.marker):
            # NR-B2B ([NETRENO] §6.4): "send out a new packet"; the next duplicate ACK starts the
            # second recovery
            self.b2b.cwnd = cwnd
            cwnd = view.flight_size + view.mss
        return SetCwnd(cwnd)

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        self.sw.end()
        self.guard.wait = self.b2b.wait = 0
        self.b2b.starting = False
        self.markers.stop()
        self.exiting = False
        return None


@register
class NetRenoSack(NetReno):
    name = "netreno-sack"
    offers_sack = True
    marking = True          # NR-MARK, SACK-based ([NETRENO] §6.3)


@register
class NetRenoLimitedData(NetReno):
    """Net Reno with NR-LD option (a) ([NETRENO] §6.5, "not evaluated" there)."""
    name = "netreno-ld"
    limited_data = True


@register
class Lsnr(NetReno):
    """Loss-sensitive New-Reno alone ([NETRENO] §5.1; §7's "New-Reno", Table 3's "none")."""
    name = "lsnr"
    small_window = reorder_guard = lost_retransmission = back_to_back = False
    limited_data = False


@register
class Lssack(Lsnr):
    """Loss-sensitive SACK alone ([NETRENO] §5.2; §7's "SACK", Table 3's "none")."""
    name = "lssack"
    offers_sack = True


# [NETRENO] Table 3's rows: each optimization on the loss-sensitive sender (its last row,
# "smallwnd+lrxt+back", is the bundle: netreno / netreno-sack)
TABLE3_RULES = {"sw": ("small_window",), "lrx": ("lost_retransmission",),
                "b2b": ("back_to_back",), "sw-lrx": ("small_window", "lost_retransmission")}


def _with_rules(base: type[NetReno], suffix: str,
                rules: tuple[str, ...]) -> type[NetReno]:
    cls = type(f"{base.__name__}_{suffix.replace('-', '_')}", (base,),
               {"name": f"{base.name}-{suffix}", "__doc__": f"{base.name} with "
                f"{' and '.join(rules)} ([NETRENO] Table 3)", **{r: True for r in rules}})
    return register(cls)


for _suffix, _rules in TABLE3_RULES.items():
    _with_rules(Lsnr, _suffix, _rules)
    _with_rules(Lssack, _suffix, _rules)
