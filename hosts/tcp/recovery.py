"""Loss recovery and congestion control of the sending half: what an ACK means (new data
acknowledged, a duplicate ACK, SACK and DSACK blocks), fast retransmit and fast recovery, the
response to a retransmission timeout, and the window (cwnd, ssthresh) they set.

RFC 5681 congestion control (ssthresh from the FlightSize before limited transmit, §3.2 step
2); RFC 6675 SACK loss recovery on the scoreboard (scoreboard.py), or RFC 6582 NewReno when the
peer did not negotiate SACK; the RFC 6298 timer's expiry as RFC 5681 §3.1 and RFC 6675 §5.1
answer it. Where a variant decides differently, this part asks its policy (variants/base.py):
it calls the policy's hooks at the points documented there, giving them a read-only
``PolicyView``, and applies the decisions they return (``_APPLY``: one function per decision).
"""

from __future__ import annotations

from hosts.tcp.handshake import initial_window
from hosts.tcp.scoreboard import SACKED
from hosts.tcp.variants.base import (CarryDupacks, Decisions, EnterRecovery, GoBackN,
                                     LeaveRecovery, MarkLost, ReduceWindow, RetransmitHead,
                                     RttSample, SendNew, SendProbe, SetCwnd, SetDupthresh,
                                     SpuriousTimeout, Undo, overrides)
from netbase.segment import FIN, SYN, Segment
from netbase.seq import SEQ_MOD, seq_sub

__all__ = ["LossRecovery", "PolicyView"]


class LossRecovery:
    def __init__(self, conn, policy):
        self.conn = conn
        self.sender = conn.sender
        self.sb = conn.sender.sb
        self.policy = policy
        self.cwnd = 0
        self.ssthresh = 1 << 30                     # RFC 5681 §3.1: arbitrarily high
        self.dupacks = 0
        self.reno_dupacks = 0               # without SACK: dupacks standing for segments gone
        self.in_recovery = False                    # fast recovery (RFC 6675 §5)
        self.recovery_undone = False                # its reduction was undone (Undo)
        self.in_loss = False                        # after an RTO, until RecoveryPoint is acked
        self.recovery_point = 0                     # RFC 6675 RecoveryPoint, RFC 6582 "recover"
        self.lt_mark: int | None = None             # SND.MAX at the episode's first duplicate ACK
        self.force_head = False             # send the first lost segment regardless of pipe
        self.probe_due = False                      # a loss probe goes out first (SendProbe)
        self.new_allowance = 0              # new segments beyond cwnd on this event (SendNew)
        self.lt_ok = True                   # this dupack episode may send (limited_transmit)
        # DupThresh in force (RFC 6675 §2): fast retransmit's threshold and IsLost's count of
        # SACKed segments; 3 (RFC 5681) unless an OS profile says (004, hosts/tcp/profiles.py),
        # changed by the policy's SetDupthresh
        self.dupthresh = conn.cfg.dupthresh
        self.dupthresh_marking = True       # IsLost marks (off: the policy finds losses)
        cfg = conn.cfg              # new data bounded beyond cwnd - pipe (``new_data_end``)
        self.bounds_new_data = cfg.send_window_segments is not None \
            or cfg.limited_transmit_cwnds is not None
        # the hooks the policy overrides (None: the base class's, which does nothing)
        self._on_dupack_hook = overrides(policy, "on_dupack")
        self._on_new_ack_hook = overrides(policy, "on_new_ack")
        self._on_ack_hook = overrides(policy, "on_ack")
        self._on_dsack_hook = overrides(policy, "on_dsack")
        self._on_undo_hook = overrides(policy, "on_undo")
        self._on_enter_recovery_hook = overrides(policy, "on_enter_recovery")
        self._on_retransmit_hook = overrides(policy, "on_retransmit")
        self._on_timeout_hook = overrides(policy, "on_timeout")
        self._on_probe_sent_hook = overrides(policy, "on_probe_sent")
        self._deadline_hook = overrides(policy, "deadline")
        self._limited_transmit_hook = overrides(policy, "limited_transmit")
        self.view = PolicyView(self)
        if policy.observes_deliveries:
            self.sb.on_delivered, self.sb.view = policy.on_delivered, self.view

    # ------------------------------------------------------------------ the policy's view
    @property
    def mss(self) -> int:
        return self.conn.mss

    @property
    def snd_una(self) -> int:
        return self.sender.snd_una

    @property
    def snd_max(self) -> int:
        return self.sender.snd_max

    @property
    def snd_wnd(self) -> int:
        return self.sender.snd_wnd

    @property
    def flight_size(self) -> int:
        return self.sender.snd_max - self.sender.snd_una

    @property
    def unsent(self) -> int:
        return self.sender.unsent

    @property
    def sacked_out(self) -> int:
        return self.sb.sacked_out

    @property
    def sack_ok(self) -> bool:
        return self.conn.sack_ok

    @property
    def ts_ok(self) -> bool:
        return self.conn.ts_ok

    @property
    def rdtcp_ok(self) -> bool:
        return self.conn.rdtcp_ok

    @property
    def rtt(self):
        return self.conn.rtt

    @property
    def rto_deadline(self) -> float | None:
        return self.conn.timers.rto_at

    @property
    def scoreboard(self):
        return self.sb

    def highest_sacked(self) -> int:
        return max(self.sb.high_sacked, self.sender.snd_una)

    def initial_window(self) -> int:
        return initial_window(self.conn.cfg, self.conn.mss)

    # ------------------------------------------------------------------ the window
    @property
    def max_cwnd(self) -> int:
        return self.conn.cfg.max_cwnd_segments * self.conn.mss

    @property
    def flight_size_before_limited_transmit(self) -> int:
        """FlightSize without the data sent since this episode's first duplicate ACK: RFC 5681
        §3.2 step 2, "additional data sent in limited transmit MUST NOT be included" in the
        ssthresh of equation (4). Waiting for more than 3 duplicate ACKs (RD-TCP's 3 + k, a
        raised dupthresh, RACK's reordering window) sends much of it, and counting it made a
        reduction end above the window it reduced."""
        snd = self.sender
        mark = self.lt_mark
        end = snd.snd_max if mark is None or mark > snd.snd_max else mark
        return end - snd.snd_una

    def new_data_end(self) -> int | None:
        """The offset new data may not pass now, or None (cwnd - pipe and the peer's window
        decide alone): the sender's own window, ``send_window_segments`` beyond SND.UNA (ns-2's
        window_, 000 §5's maxwnd), and while duplicate ACKs arrive below dupthresh limited
        transmit's bound, ``limited_transmit_cwnds`` windows of cwnd beyond what was sent at the
        episode's first duplicate ACK (000 §2.3, Table 2: one cwnd; with dupthresh 3 it sends
        its 2, RFC 3042)."""
        cfg = self.conn.cfg
        end = None
        if cfg.send_window_segments is not None:
            end = self.sender.snd_una + cfg.send_window_segments * self.conn.mss
        k = cfg.limited_transmit_cwnds
        if k is not None and self.lt_mark is not None and not self.in_recovery \
                and not self.in_loss:
            lt_end = self.lt_mark + int(k * self.cwnd)
            end = lt_end if end is None or lt_end < end else end
        return end

    @property
    def pipe(self) -> int:
        """RFC 6675 §4 SetPipe: bytes believed in the network (NewReno: dupacks as SACKs)."""
        snd, sb = self.sender, self.sb
        pipe = snd.snd_max - snd.snd_una - sb.sacked_out - sb.lost_out + sb.retrans_out
        if self.reno_dupacks and not self.conn.sack_ok:    # (0 for every SACK connection)
            pipe -= self.reno_dupacks * self.conn.mss
        return pipe if pipe > 0 else 0

    def open_window(self) -> None:
        """The handshake set the MSS: cwnd starts at IW (RFC 5681 §3.1); with SACK agreed, a
        policy that finds losses itself turns IsLost's marking off."""
        self.cwnd = min(self.initial_window(), self.max_cwnd)
        self.dupthresh_marking = self.policy.dupthresh_loss_marking or not self.conn.sack_ok

    def _grow_cwnd(self, acked: int) -> None:
        mss = self.conn.mss
        if self.cwnd < self.ssthresh:
            self.cwnd += min(acked, mss)            # RFC 5681 §3.1 equation (2)
        else:
            self.cwnd += max(1, mss * mss // self.cwnd)     # RFC 5681 §3.1 equation (3)
        self.cwnd = min(self.cwnd, self.max_cwnd)

    # ------------------------------------------------------------------ an ACK arrives
    def on_ack(self, seg: Segment, now: float) -> bool:
        """Cumulative ACK, SACK/DSACK blocks, window. False when it acknowledges unsent data
        (RFC 9293 §3.10.7.4: the caller ACKs and drops it)."""
        snd = self.sender
        conn = self.conn
        ack = snd.snd_una + seq_sub(seg.ack, (conn.iss + snd.snd_una) % SEQ_MOD)
        if ack > snd.snd_max:
            return False
        if ack < snd.snd_una:
            return True                             # old ACK: nothing new (RFC 9293 §3.10.7.4)
        prior_wnd = snd.snd_wnd
        wnd = seg.window << conn.snd_wscale
        if wnd != prior_wnd:                        # (the window seldom changes)
            snd.snd_wnd = wnd
            if wnd > snd.max_wnd:
                snd.max_wnd = wnd
        new_sack = self._on_sack_blocks(seg, ack, now) if conn.sack_ok else False
        prior_una = snd.snd_una
        if ack > prior_una:
            tsecr = None
            if conn.ts_ok:
                ts = seg.option("Timestamp")
                if ts is not None:
                    tsecr = ts[1]
            self._on_new_ack(ack, now, tsecr)
        elif self._is_dupack(seg, new_sack, prior_wnd):
            self._on_dupack(seg, now)
        if (self.in_recovery or self.in_loss) and new_sack and self.dupthresh_marking:
            self.sb.mark_lost_below_sacked(self.dupthresh)
        if self._on_ack_hook is not None:
            self._apply(self._on_ack_hook(self.view, seg, prior_una, now=now), now)
        self._read_deadline()
        return True

    def _on_sack_blocks(self, seg: Segment, ack: int, now: float) -> bool:
        blocks = seg.option("SAck")
        if not blocks:
            return False
        snd = self.sender
        una = snd.snd_una
        base = (self.conn.iss + una) % SEQ_MOD
        parsed = [(una + seq_sub(l, base), una + seq_sub(r, base)) for l, r in blocks]
        first = parsed[0]
        # RFC 2883 §4: the first block is a DSACK when it lies below the cumulative ACK or
        # inside the second block
        if first[0] < ack or (len(parsed) > 1 and parsed[1][0] <= first[0]
                              and first[1] <= parsed[1][1]):
            self._dsack(first[0], first[1], now)
            parsed = parsed[1:]
        news = False
        mark_sacked = self.sb.mark_sacked
        for left, right in parsed:
            if left >= right or left < una or right > snd.snd_max:
                continue                            # a block we cannot use (RFC 2018 §8)
            news |= mark_sacked(left, right, now)
        return news

    def _dsack(self, start: int, end: int, now: float) -> None:
        conn = self.conn
        retransmitted = self.sb.was_retransmitted(start, end)
        if retransmitted:
            conn.stats["spurious_retransmits"] += 1
        conn.trace("dsack", start=start, end=end, retransmitted=retransmitted)
        if self._on_dsack_hook is not None:
            self._apply(self._on_dsack_hook(self.view, start, end, retransmitted, now=now), now)

    def _is_dupack(self, seg: Segment, new_sack: bool, prior_wnd: int) -> bool:
        """Whether an ACK that does not advance SND.UNA is a duplicate ACK.

        With SACK, RFC 6675 §2: an ACK "carrying a SACK block that identifies previously
        unacknowledged and un-SACKed octets", whatever its window; a DSACK alone reports
        nothing new. Without SACK, RFC 5681 §2: (a) data outstanding, (b) no data, (c) neither
        SYN nor FIN, (d) the acknowledgment number unchanged (the caller's test) and (e) the
        advertised window unchanged: a window update is not a duplicate ACK."""
        snd = self.sender
        if self.conn.sack_ok:
            return new_sack and snd.snd_max > snd.snd_una
        return (not seg.payload and not seg.flags & (SYN | FIN)
                and snd.snd_max > snd.snd_una and snd.snd_wnd == prior_wnd)

    def _on_new_ack(self, ack: int, now: float, tsecr: int | None) -> None:
        conn = self.conn
        snd = self.sender
        acked = ack - snd.snd_una
        snd.advance(ack, now, conn.rtt, tsecr)
        conn.stats["bytes_acked"] += acked
        self.dupacks = 0
        self.lt_mark = None
        partial = self.in_recovery and ack < self.recovery_point
        if partial and not conn.sack_ok:
            # the segments between the holes that drew duplicate ACKs (counted as gone from the
            # network) are now acked: they leave the count, the rest still stand for segments
            # that arrived above the next hole (RFC 6582 §3.2 step 5's deflation, in pipe terms)
            self.reno_dupacks = max(0, self.reno_dupacks - (acked // conn.mss - 1))
        else:
            self.reno_dupacks = 0
        timers = conn.timers
        timers.retries = 0
        if self._on_new_ack_hook is not None:
            self._apply(self._on_new_ack_hook(self.view, now=now), now)
        if self.in_recovery or self.in_loss:
            if ack >= self.recovery_point:
                self._exit_recovery()
            elif partial and conn.cfg.partial_ack == "newreno":
                # RFC 6582 §3.2 step 5 by default (partial_ack "wait": no retransmission, the
                # next hole waits for the RTO; a variant may defer it, Net Reno's reordering
                # guard, 002 §5.3)
                self._apply(self.policy.on_partial_ack(self.view, now=now), now)
        if not self.in_recovery:
            self._grow_cwnd(acked)
        # RFC 6298 (5.2)/(5.3): stop the timer when all is acked, else restart it
        timers.restart_rto(now, snd.snd_max > snd.snd_una)

    def _exit_recovery(self) -> None:
        if self.in_recovery and not self.recovery_undone:
            self.cwnd = min(self.ssthresh, self.max_cwnd)   # RFC 6582 §3.2 step 4 / RFC 6675
        self.in_recovery = self.in_loss = False
        self.conn.trace("recovery-exit", cwnd=self.cwnd)

    def _on_dupack(self, seg: Segment, now: float) -> None:
        conn = self.conn
        snd = self.sender
        self.dupacks += 1
        if self.dupacks == 1 and not self.in_recovery and not self.in_loss:
            self.lt_mark = snd.snd_max              # what follows is limited transmit
            if self._limited_transmit_hook is not None:
                self.lt_ok = self._limited_transmit_hook(self.view, now=now)
        if seg.reorder and conn.rdtcp_ok:
            conn.stats["reorder_dupacks_received"] += 1
        if not conn.sack_ok:
            self.reno_dupacks += 1                  # each dupack: a segment left the network
        if self._on_dupack_hook is not None:
            self._apply(self._on_dupack_hook(self.view, seg, self.dupacks, now=now), now)
        if not self.in_recovery and not self.in_loss \
                and self.policy.should_fast_retransmit(self.view, self.dupacks, now=now):
            if not conn.sack_ok and conn.cfg.partial_ack == "newreno" \
                    and snd.snd_una <= self.recovery_point:
                # RFC 6582 §3.2 step 2: duplicate ACKs whose cumulative ACK does not cover more
                # than "recover" may come from the last recovery's retransmissions: no new one
                return
            self._enter_recovery(now)

    def _enter_recovery(self, now: float) -> None:
        """Fast retransmit and fast recovery: RFC 6675 §5 steps (4.1)-(4.3), RFC 5681 eq. (4)."""
        conn = self.conn
        snd = self.sender
        policy = self.policy
        prior_cwnd, prior_ssthresh = self.cwnd, self.ssthresh
        if self._on_enter_recovery_hook is not None:
            self._on_enter_recovery_hook(self.view, prior_cwnd, prior_ssthresh, now=now)
        self.recovery_point = snd.snd_max
        flight = snd.snd_max - snd.snd_una
        self.ssthresh = policy.ssthresh_after_loss(self.view, now=now)  # RFC 5681 eq. (4)
        self.cwnd = self.ssthresh
        self.in_recovery = True
        self.recovery_undone = False
        conn.stats["fast_retransmits"] += 1
        conn.trace("fast-retransmit", snd_una=snd.snd_una, dupacks=self.dupacks,
                   dupthresh=self.dupthresh, flight=flight, ssthresh=self.ssthresh,
                   prior_cwnd=prior_cwnd)
        if self.dupthresh_marking:
            self.sb.mark_head_lost()
            self.sb.mark_lost_below_sacked(self.dupthresh)
        self.force_head = True

    def retransmitted(self, start: int, end: int, last_sent_at: float, now: float) -> None:
        """The sender is sending [start, end) again (the policy's ``on_retransmit``)."""
        if self._on_retransmit_hook is not None:
            self._apply(self._on_retransmit_hook(self.view, start, end, last_sent_at, now=now),
                        now)

    # ------------------------------------------------------------------ the RTO expired
    def on_rto(self, now: float) -> list[Segment]:
        """The retransmission timer expired with data outstanding (the connection has backed
        the timer off, RFC 6298 (5.5))."""
        conn = self.conn
        snd = self.sender
        policy = self.policy
        if not self.in_recovery and not self.in_loss \
                and policy.timeout_enters_recovery(self.view, now=now):
            # the variant reads this expiry as a loss to repair by fast recovery (RD-TCP,
            # 003 §3.1: the timer ran out while waiting for 3+k dupacks), not as an RTO: the
            # backed-off timer stays (RFC 6298 (5.5)), the window is halved, not collapsed
            self._timed_out(now)
            conn.trace("timeout", snd_una=snd.snd_una, rto=conn.rtt.rto, recovery=True)
            self._enter_recovery(now)
            return conn.transmit(now)
        self._timed_out(now)
        if not self.in_loss:
            ssthresh = policy.ssthresh_after_loss(self.view, now=now)  # RFC 5681 eq. (4)
            if self.in_recovery and not self.recovery_undone:
                # The RTO ends a fast recovery that already cut ssthresh for this loss event:
                # keep that cut (as Linux's tcp_enter_loss does in Recovery). FlightSize has
                # grown during the recovery by SACKed data and new segments, so eq. (4) alone
                # would *raise* ssthresh, while RFC 5681 §3.1 allows "no more than" eq. (4).
                ssthresh = min(ssthresh, self.ssthresh)
            self.ssthresh = ssthresh
        self.cwnd = conn.mss                                # RFC 5681 §3.1: loss window
        self.in_recovery = False
        self.in_loss = True
        self.recovery_point = snd.snd_max
        self.dupacks = self.reno_dupacks = 0
        if policy.timeout_retransmits_all(self.view, now=now):
            self.sb.mark_all_lost()
        else:
            self.sb.mark_head_lost()    # F-RTO (RFC 5682 §3 step 1): the timed-out segment only
        conn.trace("timeout", snd_una=snd.snd_una, rto=conn.rtt.rto, ssthresh=self.ssthresh,
                   flight=snd.snd_max - snd.snd_una)
        self.force_head = True
        out = conn.transmit(now)
        if conn.timers.rto_at is None and snd.snd_max > snd.snd_una:
            conn.timers.arm_rto(now)    # RFC 6298 (5.1): the timer runs while data is outstanding
        return out

    def _timed_out(self, now: float) -> None:
        if self._on_timeout_hook is not None:
            self._apply(self._on_timeout_hook(self.view, now=now), now)
        self._read_deadline()

    # ------------------------------------------------------------------ the variant's timer
    def on_deadline(self, now: float) -> None:
        """The variant's own timer expired (the connection has disarmed it)."""
        self._apply(self.policy.on_deadline(self.view, now=now), now)
        self._read_deadline()

    def _read_deadline(self) -> None:
        """The variant's timer as it now stands (``deadline``: after each ACK, each expiry of
        this timer and each RTO)."""
        if self._deadline_hook is not None:
            self.conn.timers.policy_deadline = self._deadline_hook()

    # ------------------------------------------------------------------ applying decisions
    def _apply(self, decision: Decisions, now: float) -> None:
        """Apply what a hook returned: a Decision, a tuple of them (in order) or None."""
        if decision is None:
            return
        if type(decision) is tuple:
            for d in decision:
                _apply_one(self, d, now)
        else:
            _apply_one(self, decision, now)

    def sample_rtt(self, rtt: float) -> None:
        """``RttSample``: the policy's measurement, to the RTO's estimator."""
        snd = self.sender
        self.conn.rtt.sample(rtt, snd_una=snd.snd_una, snd_nxt=snd.snd_nxt)
        self.conn.trace("rtt-sample", rtt=rtt, rto=self.conn.rtt.rto)

    def undo_reduction(self, cwnd: int, ssthresh: int, detector: str, now: float) -> None:
        """``Undo`` (DSACK undo, 000 §2-3; Eifel, RFC 3522). An undo during fast recovery marks
        the episode undone, so that leaving recovery keeps the restored window instead of
        setting cwnd to ssthresh (as Linux's undo clears its undo_marker,
        tcp_end_cwnd_reduction); otherwise the undo lasted one RTT, and an episode begun in the
        first slow start, whose restored ssthresh is the initial "infinite" one, left recovery
        with cwnd at its maximum in one step."""
        self.cwnd = max(self.cwnd, min(cwnd, self.max_cwnd))
        self.ssthresh = max(self.ssthresh, ssthresh)
        if self.in_recovery:
            self.recovery_undone = True
        self.conn.stats[f"{detector}_undos"] += 1
        self.conn.trace("undo", cwnd=self.cwnd, ssthresh=self.ssthresh, detector=detector)
        if self._on_undo_hook is not None:
            self._apply(self._on_undo_hook(self.view, now=now), now)

    def resume_after_spurious_timeout(self, cwnd: int, ssthresh: int, recover: int | None,
                                      now: float) -> None:
        """``SpuriousTimeout`` (RFC 4015, RFC 5682): segments marked lost by the timeout and
        not yet sent again are in flight after all."""
        if self.in_loss:
            self.sb.unmark_unsent_lost()
            self.in_loss = False
        mss = self.conn.mss
        self.cwnd = max(mss, min(cwnd, self.max_cwnd))
        self.ssthresh = max(2 * mss, ssthresh)
        self.conn.stats["spurious_timeouts_undone"] += 1
        self.conn.trace("spurious-timeout", cwnd=self.cwnd, ssthresh=self.ssthresh)
        if recover is not None:
            self.recovery_point = recover
        if self._on_undo_hook is not None:
            self._apply(self._on_undo_hook(self.view, now=now), now)

    def mark_all_lost(self, cwnd_cap: int | None) -> None:
        """``GoBackN`` (F-RTO, RFC 5682 steps 2a, 3a)."""
        self.sb.mark_all_lost()
        if cwnd_cap is not None:
            self.cwnd = max(self.conn.mss, min(self.cwnd, cwnd_cap))

    def mark_lost(self, records: list, rule: str) -> None:
        """``MarkLost`` (RACK, RFC 8985 §6.2 step 5)."""
        self.sb.mark_lost(records)
        self.conn.trace("marked-lost", count=len(records), rule=rule)

    def enter_recovery_if_idle(self, now: float) -> None:
        """``EnterRecovery``: unless a recovery already runs."""
        if not self.in_recovery and not self.in_loss:
            self._enter_recovery(now)

    def reduce_window(self, now: float) -> None:
        """``ReduceWindow`` (TLP, RFC 8985 §7.4.2)."""
        self.ssthresh = self.policy.ssthresh_after_loss(self.view, now=now)
        self.cwnd = max(self.conn.mss, min(self.cwnd, self.ssthresh))
        self.conn.trace("window-reduced", cwnd=self.cwnd, ssthresh=self.ssthresh)

    def retransmit_head(self, cwnd: int | None) -> None:
        """``RetransmitHead`` (RFC 6582 §3.2 step 5; Net Reno, 002 §5.3 and §6.2)."""
        sb = self.sb
        if sb.head < len(sb.records) and not sb.records[sb.head][SACKED]:
            sb.mark_head_lost()
            self.force_head = True
        if cwnd is not None:
            self.cwnd = cwnd

    def holds_new_data(self) -> bool:
        """Duplicate ACKs below DupThresh outside any recovery, in an episode whose policy
        refused Limited Transmit (``limited_transmit``): nothing new goes out until fast
        retransmit or a new ACK (BSD Reno's sender, 002 §4.2)."""
        return (not self.lt_ok and self.dupacks > 0 and not self.in_recovery
                and not self.in_loss)

    def leave_recovery(self) -> None:
        """``LeaveRecovery`` (Reno: RFC 5681 §3.2 step 6 on the first new ACK): fast recovery
        ends with cwnd = ssthresh; ``recover`` is set below SND.UNA so that the next three
        duplicate ACKs may be a fast retransmit, and no duplicate ACK of the old episode stands
        for a segment gone any more (Reno's flight is SND.MAX - SND.UNA)."""
        if self.in_recovery:
            self._exit_recovery()
            self.recovery_point = self.sender.snd_una - 1
            self.reno_dupacks = 0

    def carry_dupacks(self, n: int) -> None:
        """``CarryDupacks`` (Net Reno's small-window rule, 002 §4.2)."""
        if not self.in_recovery and not self.in_loss and n > 0:
            self.dupacks = n
            if not self.conn.sack_ok:
                self.reno_dupacks = n

    def send_probe(self, now: float) -> Segment | None:
        """``SendProbe`` (TLP, RFC 8985 §7.3), sent first by the connection's transmit: the
        probe, the RTO restarted from now, and the policy told (``on_probe_sent``)."""
        conn = self.conn
        snd = self.sender
        probe = snd.probe(now)
        if probe is None:
            return None
        seg, start, retransmission = probe
        conn.stats["loss_probes"] += 1
        conn.trace("loss-probe", start=start, retransmission=retransmission)
        conn.timers.restart_rto(now, snd.snd_max > snd.snd_una)
        if self._on_probe_sent_hook is not None:
            self._on_probe_sent_hook(self.view, retransmission, now=now)
        return seg


# ---------------------------------------------------------------------- the decisions' effects
# One function per decision of variants/base.py: the engine's side of each.
_APPLY = {
    Undo: lambda rec, d, now: rec.undo_reduction(d.cwnd, d.ssthresh, d.detector, now),
    SpuriousTimeout: lambda rec, d, now: rec.resume_after_spurious_timeout(
        d.cwnd, d.ssthresh, d.recover, now),
    GoBackN: lambda rec, d, now: rec.mark_all_lost(d.cwnd_cap),
    MarkLost: lambda rec, d, now: rec.mark_lost(d.records, d.rule),
    EnterRecovery: lambda rec, d, now: rec.enter_recovery_if_idle(now),
    ReduceWindow: lambda rec, d, now: rec.reduce_window(now),
    SendProbe: lambda rec, d, now: setattr(rec, "probe_due", True),
    RetransmitHead: lambda rec, d, now: rec.retransmit_head(d.cwnd),
    SetCwnd: lambda rec, d, now: setattr(rec, "cwnd", d.cwnd),
    SetDupthresh: lambda rec, d, now: setattr(rec, "dupthresh", d.n),
    RttSample: lambda rec, d, now: rec.sample_rtt(d.rtt),
    CarryDupacks: lambda rec, d, now: rec.carry_dupacks(d.n),
    LeaveRecovery: lambda rec, d, now: rec.leave_recovery(),
    SendNew: lambda rec, d, now: setattr(rec, "new_allowance", rec.new_allowance + d.count),
}


def _apply_one(rec: LossRecovery, d, now: float) -> None:
    apply = _APPLY.get(type(d))
    if apply is None:
        raise TypeError(f"TCP variant {rec.policy.name!r} returned {d!r}, not a decision of "
                        f"hosts/tcp/variants/base.py")
    apply(rec, d, now)


class PolicyView:
    """The read-only ``SenderView`` of variants/base.py that the policy's hooks get: the
    sending half's state, read through from the parts that hold it (nothing to assign)."""

    __slots__ = ("_rec",)

    def __init__(self, rec: LossRecovery) -> None:
        self._rec = rec

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
        snd = self._rec.sender
        return snd.snd_max - snd.snd_una

    @property
    def flight_size_before_limited_transmit(self) -> int:
        return self._rec.flight_size_before_limited_transmit

    @property
    def pipe(self) -> int:
        return self._rec.pipe

    @property
    def unsent(self) -> int:
        return self._rec.sender.unsent

    @property
    def sacked_out(self) -> int:
        return self._rec.sb.sacked_out

    @property
    def sack_ok(self) -> bool:
        return self._rec.sack_ok

    @property
    def ts_ok(self) -> bool:
        return self._rec.ts_ok

    @property
    def rdtcp_ok(self) -> bool:
        return self._rec.rdtcp_ok

    @property
    def rtt(self):
        return self._rec.rtt

    @property
    def rto_deadline(self) -> float | None:
        return self._rec.rto_deadline

    @property
    def scoreboard(self):
        return self._rec.sb

    def highest_sacked(self) -> int:
        return self._rec.highest_sacked()

    def initial_window(self) -> int:
        return self._rec.initial_window()
