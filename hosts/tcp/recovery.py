"""Loss recovery and congestion control of the sending half: what an ACK means (new data
acknowledged, a duplicate ACK, SACK and DSACK blocks), fast retransmit and fast recovery, the
response to a retransmission timeout, the window (cwnd, ssthresh, DupThresh) they set, and
which segments go out next (RFC 6675 §5's NextSeg within cwnd - pipe).

RFC 5681 congestion control (ssthresh from the FlightSize before limited transmit, §3.2 step
2); RFC 6675 SACK loss recovery on the scoreboard (scoreboard.py), or RFC 6582 NewReno when the
peer did not negotiate SACK; the RFC 6298 timer's expiry as RFC 5681 §3.1 and RFC 6675 §5.1
answer it. Where a variant decides differently, this part asks its policy (variants/base.py):
it calls the policy's hooks at the points documented there, giving them a read-only
``PolicyView`` (view.py), and applies the decisions they return (``_APPLY``: the engine's side
of each decision, one method apiece).

Collaborators, passed in, in the manner of aioquic's QuicPacketRecovery: the configuration,
the policy, the sender (sequence space and segments, sender.py) with its scoreboard, the RTO's
estimator, the timers, the counters and the tracer. What the handshake agrees on arrives by
``open``. This part never calls the connection: the connection asks it for segments
(``output``) and tells it of ACKs and expiries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from hosts.tcp.handshake import initial_window
from hosts.tcp.scoreboard import END, SACKED, SENT_AT, START, Record
from hosts.tcp.variants.base import (CarryDupacks, Decision, Decisions, EnterRecovery, GoBackN,
                                     LeaveRecovery, LossRecoveryPolicy, MarkLost, ReduceWindow,
                                     RetransmitHead, RttSample, SendNew, SendProbe, SetCwnd,
                                     SetDupthresh, SpuriousTimeout, Undo, overrides)
from hosts.tcp.view import PolicyView
from netbase.segment import FIN, SYN, Segment
from netbase.seq import SEQ_MOD, seq_sub

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from hosts.tcp.rtt import RttEstimator
    from hosts.tcp.sender import Sender
    from hosts.tcp.timers import Timers

__all__ = ["LossRecovery", "Tracer"]

Tracer = Callable[..., None]        # trace(event, **fields): the connection's, to its tracer


class LossRecovery:
    # slots: these are read on every ACK, and CPython keeps at most 30 attributes of a class's
    # instances in its fast shared-key layout (these are 43: 2.7 % more instructions in
    # bench/bench_engine.py without slots)
    __slots__ = ("cfg", "policy", "sender", "sb", "rtt", "timers", "iss", "stats", "trace", "mss",
                 "sack_ok", "ts_ok", "rdtcp_ok", "snd_wscale", "max_cwnd", "cwnd", "ssthresh",
                 "dupthresh", "dupthresh_marking", "dupacks", "reno_dupacks", "in_recovery",
                 "recovery_undone", "in_loss", "recovery_point", "lt_mark", "force_head",
                 "probe_due", "new_allowance", "lt_ok", "bounds_new_data", "_on_dupack_hook",
                 "_on_new_ack_hook", "_on_ack_hook", "_on_dsack_hook", "_on_undo_hook",
                 "_on_enter_recovery_hook", "_on_retransmit_hook", "_on_timeout_hook",
                 "_on_probe_sent_hook", "_deadline_hook", "_limited_transmit_hook", "view",
                 "packet_cwnd", "cwnd_packets", "cwnd_packets_bytes", "sack1", "pipe_count",
                 "burst_at", "burst_left", "partial_acks_seen", "dupacks_in_loss")

    def __init__(self, config: TcpConfig, policy: LossRecoveryPolicy, sender: Sender,
                 rtt: RttEstimator, timers: Timers, *, iss: int, stats: dict[str, int],
                 trace: Tracer) -> None:
        self.cfg = config
        self.policy = policy
        self.sender = sender
        self.sb = sender.sb
        self.rtt = rtt
        self.timers = timers
        self.iss = iss                  # our ISS: ACK numbers on the wire become offsets
        self.stats = stats
        self.trace = trace
        # agreed on the SYNs (``open``); until then, what we offer
        self.mss = config.mss
        self.sack_ok = self.ts_ok = self.rdtcp_ok = False
        self.snd_wscale = 0
        self.max_cwnd = config.max_cwnd_segments * config.mss
        # the window and the recovery's state
        self.cwnd = 0
        self.ssthresh = 1 << 30                     # RFC 5681 §3.1: arbitrarily high
        # ns-2's window (cwnd_model "ns2"): a real number of packets that cwnd (bytes) follows;
        # ``cwnd_packets_bytes`` is the cwnd it gave, so a cwnd set otherwise (an RTO's loss
        # window, an undo) is taken up again as cwnd / SMSS
        self.packet_cwnd = config.cwnd_model == "ns2"
        self.cwnd_packets = 0.0
        self.cwnd_packets_bytes = -1
        # ns-2's Sack1 (pipe_model "sack1", with SACK agreed): fast recovery's pipe a counter
        self.sack1 = False
        self.pipe_count = 0
        # ns-2's maxburst_ (``max_burst``): what may still go out under cwnd at ``burst_at``
        self.burst_at = -1.0
        self.burst_left = 0
        # DupThresh in force (RFC 6675 §2): fast retransmit's threshold and IsLost's count of
        # SACKed segments; 3 (RFC 5681) unless an OS profile says ([TCPDEBUG], hosts/tcp/profiles.py);
        # the policy changes it by returning SetDupthresh
        self.dupthresh = config.dupthresh
        self.dupthresh_marking = True       # IsLost marks losses (off: the policy finds them)
        self.dupacks = 0
        self.reno_dupacks = 0               # without SACK: dupacks standing for segments gone
        self.in_recovery = False                    # fast recovery (RFC 6675 §5)
        self.recovery_undone = False                # its reduction was undone (Undo)
        self.partial_acks_seen = False              # a partial ACK came in this recovery
        self.in_loss = False                        # after an RTO, until RecoveryPoint is acked
        self.recovery_point = 0                     # RFC 6675 RecoveryPoint, RFC 6582 "recover"
        self.lt_mark: int | None = None             # SND.MAX at the episode's first duplicate ACK
        self.force_head = False             # send the first lost segment regardless of pipe
        self.probe_due = False                      # a loss probe goes out first (SendProbe)
        self.new_allowance = 0              # new segments beyond cwnd on this event (SendNew)
        self.lt_ok = True                   # this dupack episode may send (limited_transmit)
        # new data bounded beyond cwnd - pipe (``new_data_end``)
        self.bounds_new_data = config.send_window_segments is not None \
            or config.limited_transmit_cwnds is not None
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
        # (TcpConfig.limited_transmit_always: the policy is not asked, every episode may send)
        self._limited_transmit_hook = None if config.limited_transmit_always else \
            overrides(policy, "limited_transmit")
        self.view = PolicyView(self)
        if policy.observes_deliveries:
            self.sb.on_delivered, self.sb.view = policy.on_delivered, self.view

    def open(self, *, mss: int, sack_ok: bool, ts_ok: bool, rdtcp_ok: bool,
             snd_wscale: int) -> None:
        """The handshake agreed on these (handshake.py): cwnd starts at IW (RFC 5681 §3.1); with
        SACK agreed, a policy that finds losses itself turns IsLost's marking off."""
        self.mss, self.sack_ok, self.ts_ok, self.rdtcp_ok = mss, sack_ok, ts_ok, rdtcp_ok
        self.snd_wscale = snd_wscale
        self.max_cwnd = self.cfg.max_cwnd_segments * mss
        self.cwnd = min(self.initial_window(), self.max_cwnd)
        self.dupthresh_marking = self.policy.dupthresh_loss_marking or not sack_ok
        self.sack1 = sack_ok and self.cfg.pipe_model == "sack1"
        # without SACK, duplicate ACKs during an RTO's go-back-N are weighed as any others
        # (Limited Transmit, then the guard) when the guard is off, so that a fast retransmit
        # may follow, or when refused ones send nothing (TcpConfig.guarded_dupacks_send)
        cfg = self.cfg
        self.dupacks_in_loss = not sack_ok and (cfg.recover_guard == "off"
                                                   or not cfg.guarded_dupacks_send)

    # ------------------------------------------------------------------ the window
    def initial_window(self) -> int:
        return initial_window(self.cfg, self.mss)

    @property
    def rto_deadline(self) -> float | None:
        return self.timers.rto_at

    def highest_sacked(self) -> int:
        """The end of the highest data ever SACKed, or SND.UNA when that is beyond it."""
        return max(self.sb.high_sacked, self.sender.snd_una)

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
        window_, [RRTCP] §5's maxwnd), and while duplicate ACKs arrive below dupthresh limited
        transmit's bound, ``limited_transmit_cwnds`` windows of cwnd beyond what was sent at the
        episode's first duplicate ACK ([RRTCP] §2.3, Table 2: one cwnd; with dupthresh 3 it sends
        its 2, RFC 3042)."""
        cfg = self.cfg
        end = None
        if cfg.send_window_segments is not None:
            end = self.sender.snd_una + cfg.send_window_segments * self.mss
        k = cfg.limited_transmit_cwnds
        if k is not None and self.lt_mark is not None and not self.in_recovery \
                and not self.in_loss:
            lt_end = self.lt_mark + int(k * self.cwnd)
            end = lt_end if end is None or lt_end < end else end
        return end

    @property
    def pipe(self) -> int:
        """RFC 6675 §4 SetPipe: bytes believed in the network (NewReno: dupacks as SACKs)."""
        if self.sack1 and self.in_recovery:
            return self.pipe_count
        snd, sb = self.sender, self.sb
        pipe = snd.snd_max - snd.snd_una - sb.sacked_out - sb.lost_out + sb.retrans_out
        if self.reno_dupacks and not self.sack_ok:     # (0 for every SACK connection)
            pipe -= self.reno_dupacks * self.mss
        return pipe if pipe > 0 else 0

    def _grow_cwnd(self, acked: int) -> None:
        mss = self.mss
        if self.packet_cwnd:
            self._grow_packet_cwnd()
        elif self.cwnd < self.ssthresh:
            self.cwnd += min(acked, mss)            # RFC 5681 §3.1 equation (2)
        else:
            self.cwnd += max(1, mss * mss // self.cwnd)     # RFC 5681 §3.1 equation (3)
        self.cwnd = min(self.cwnd, self.max_cwnd)

    # ns-2's window (cwnd_model "ns2"; TcpAgent's opencwnd and slowdown, ns Manual "TCP
    # Agents"): cwnd_ is a real number of packets and the sender keeps floor(cwnd_) out. Held
    # here as that number; cwnd (bytes) is floor(w) segments plus the fraction's bytes rounded
    # down, so that cwnd - pipe makes room for a packet exactly when ns-2's window does.
    def _packets(self) -> float:
        """ns-2's cwnd_: the real-valued window, or cwnd / SMSS if cwnd was set otherwise."""
        if self.cwnd != self.cwnd_packets_bytes:
            return self.cwnd / self.mss
        return self.cwnd_packets

    def _set_packets(self, w: float) -> None:
        mss = self.mss
        whole = int(w)
        self.cwnd = self.cwnd_packets_bytes = whole * mss + int((w - whole) * mss)
        self.cwnd_packets = w

    def _grow_packet_cwnd(self) -> None:
        """Each new ACK adds 1 packet below ssthresh (slow start, whatever the ACK covers) and
        1/cwnd above it, up to the largest window."""
        w = self._packets()
        w += 1.0 if w * self.mss < self.ssthresh else 1.0 / w
        self._set_packets(min(w, self.max_cwnd / self.mss))

    def _halve_packet_cwnd(self, *, restart: bool) -> None:
        """A loss: ssthresh is the integer part of half the window, at least 2 packets; cwnd
        becomes that half (fast retransmit) or one packet (``restart``: an RTO)."""
        half = self._packets() / 2
        self.ssthresh = max(int(half), 2) * self.mss
        if self.cfg.cwnd_halves_whole:
            half = float(int(half))             # ns-2's precisionReduce_ false (TcpConfig)
        self._set_packets(1.0 if restart or half < 1.0 else half)

    # ------------------------------------------------------------------ segments out
    def output(self, now: float) -> list[Segment]:
        """What cwnd, the peer's window and the scoreboard allow now (RFC 6675 §5 NextSeg): the
        loss probe a ``SendProbe`` asked for, the head a fast retransmit or a timeout made due,
        lost segments and new data within cwnd - pipe, then new segments beyond cwnd that a
        ``SendNew`` or F-RTO's ``new_data_allowance`` asks for. The connection adds its FIN."""
        out: list[Segment] = []
        snd = self.sender
        sb = self.sb
        if self.probe_due:
            self.probe_due = False
            probe = self.send_probe(now)
            if probe is not None:
                out.append(probe)
        if self.force_head:
            # RFC 6675 (4.3) / RFC 6298 (5.4): the first lost segment goes out regardless of pipe
            self.force_head = False
            r = sb.next_lost()
            if r is not None:
                out.append(self.retransmit(r, now))
        mss = self.mss
        new_data_end = self.new_data_end() if self.bounds_new_data else None
        # a policy that refused Limited Transmit sends nothing new below DupThresh ([NETRENO] §4.2)
        held = self.dupacks > 0 and self.holds_new_data()
        burst = self.cfg.max_burst
        if burst is not None:
            # ns-2's maxburst_: at most that many packets under cwnd on one event (send_much per
            # ACK or timer), so an ACK that opens a large window does not send it in one burst
            if now != self.burst_at:
                self.burst_at, self.burst_left = now, burst
            first = len(out)
            held = held or self.burst_left <= 0
        while not held:
            if burst is not None and len(out) - first >= self.burst_left:
                break
            room = self.cwnd - self.pipe
            if room < mss and not (room > 0 and snd.app_end - snd.snd_nxt < mss):
                break
            r = sb.next_lost() if (self.in_recovery or self.in_loss) else None
            if r is not None:
                out.append(self.retransmit(r, now))
                if self.sack1 and self.in_recovery:
                    self.pipe_count += mss
                continue
            if new_data_end is not None and snd.snd_nxt + mss > new_data_end:
                break                       # the sender's window, limited transmit's bound
            seg = snd.new_data(now)
            if seg is None:
                break
            out.append(seg)
            if self.sack1 and self.in_recovery:
                self.pipe_count += mss
        if burst is not None:
            self.burst_left -= len(out) - first
        if self.new_allowance:
            # SendNew (Net Reno's marked packets, [NETRENO] §6.3): new segments beyond cwnd
            for _ in range(self.new_allowance):
                seg = snd.new_data(now)
                if seg is None:
                    break
                out.append(seg)
            self.new_allowance = 0
        if self.in_loss:
            # F-RTO (RFC 5682 §3 step 2b): new segments beyond cwnd to probe the timeout
            for _ in range(self.policy.new_data_allowance(self.view, now=now)):
                seg = snd.new_data(now)
                if seg is None:
                    break
                out.append(seg)
        return out

    def retransmit(self, r: Record, now: float) -> Segment:
        """Record ``r`` goes out again (the policy's ``on_retransmit``)."""
        start, end, last_sent_at = r[START], r[END], r[SENT_AT]
        snd = self.sender
        snd.mark_resent(r, now)
        if self._on_retransmit_hook is not None:
            self._apply(self._on_retransmit_hook(self.view, start, end, last_sent_at, now=now),
                        now)
        self.trace("retransmit", start=start, end=end)
        return snd.resent_segment(r)

    def send_probe(self, now: float) -> Segment | None:
        """``SendProbe`` (TLP, RFC 8985 §7.3), sent first by ``output``: one new segment if the
        application and the peer's window allow, whatever cwnd says, else the highest-sequence
        segment sent so far again; the RTO restarted from now, and the policy told
        (``on_probe_sent``). None when nothing can be sent."""
        snd = self.sender
        if snd.snd_max <= snd.snd_una:
            return None
        start = snd.snd_nxt
        seg = snd.new_data(now)
        retransmission = seg is None
        if seg is None:
            r = snd.last_unsacked()
            if r is None:
                return None
            start = r[START]
            seg = self.retransmit(r, now)
        self.stats["loss_probes"] += 1
        self.trace("loss-probe", start=start, retransmission=retransmission)
        self.timers.restart_rto(now, snd.snd_max > snd.snd_una)
        if self._on_probe_sent_hook is not None:
            self._on_probe_sent_hook(self.view, retransmission, now=now)
        return seg

    def holds_new_data(self) -> bool:
        """Duplicate ACKs below DupThresh outside any recovery, in an episode whose policy
        refused Limited Transmit (``limited_transmit``): nothing new goes out until fast
        retransmit or a new ACK (BSD Reno's sender, [NETRENO] §4.2)."""
        return (not self.lt_ok and self.dupacks > 0 and not self.in_recovery
                and (not self.in_loss or self.dupacks_in_loss))

    # ------------------------------------------------------------------ an ACK arrives
    def on_ack(self, seg: Segment, now: float) -> bool:
        """Cumulative ACK, SACK/DSACK blocks, window. False when it acknowledges unsent data
        (RFC 9293 §3.10.7.4: the caller ACKs and drops it)."""
        snd = self.sender
        ack = snd.snd_una + seq_sub(seg.ack, (self.iss + snd.snd_una) % SEQ_MOD)
        if ack > snd.snd_max:
            return False
        if self.sack1 and self.in_recovery:
            # Sack1: every ACK in fast recovery takes a packet out of pipe, a partial ACK one
            # more (the retransmission and the packet it covered both left)
            self.pipe_count -= self.mss
            if snd.snd_una < ack < self.recovery_point:
                self.pipe_count -= self.mss
        if ack < snd.snd_una:
            return True                             # old ACK: nothing new (RFC 9293 §3.10.7.4)
        prior_wnd = snd.snd_wnd
        wnd = seg.window << self.snd_wscale
        if wnd != prior_wnd:                        # (the window seldom changes)
            snd.snd_wnd = wnd
            if wnd > snd.max_wnd:
                snd.max_wnd = wnd
        new_sack = self._on_sack_blocks(seg, ack, now) if self.sack_ok else False
        prior_una = snd.snd_una
        if ack > prior_una:
            tsecr = None
            if self.ts_ok:
                ts = seg.option("Timestamp")
                if ts is not None:
                    tsecr = ts[1]
            self._on_new_ack(ack, now, tsecr)
        elif self._is_dupack(seg, new_sack, prior_wnd):
            self._on_dupack(seg, now)
        if (self.in_recovery or self.in_loss) and new_sack and self.dupthresh_marking:
            self.sb.mark_lost_below_sacked(1 if self.sack1 else self.dupthresh)
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
        base = (self.iss + una) % SEQ_MOD
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
        retransmitted = self.sb.was_retransmitted(start, end)
        if retransmitted:
            self.stats["spurious_retransmits"] += 1
        self.trace("dsack", start=start, end=end, retransmitted=retransmitted)
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
        if self.sack_ok:
            return new_sack and snd.snd_max > snd.snd_una
        return (not seg.payload and not seg.flags & (SYN | FIN)
                and snd.snd_max > snd.snd_una and snd.snd_wnd == prior_wnd)

    def _on_new_ack(self, ack: int, now: float, tsecr: int | None) -> None:
        snd = self.sender
        acked = ack - snd.snd_una
        snd.advance(ack, now, self.rtt, tsecr)
        self.stats["bytes_acked"] += acked
        self.dupacks = 0
        self.lt_mark = None
        partial = self.in_recovery and ack < self.recovery_point
        if partial and not self.sack_ok:
            # the segments between the holes that drew duplicate ACKs (counted as gone from the
            # network) are now acked: they leave the count, the rest still stand for segments
            # that arrived above the next hole (RFC 6582 §3.2 step 5's deflation, in pipe terms)
            if self.cfg.partial_ack_deflation == "full":
                self.reno_dupacks = 0               # RFC 2582 §3: cwnd back to ssthresh
            else:
                self.reno_dupacks = max(0, self.reno_dupacks - (acked // self.mss - 1))
        else:
            self.reno_dupacks = 0
        timers = self.timers
        timers.retries = 0
        if self._on_new_ack_hook is not None:
            self._apply(self._on_new_ack_hook(self.view, now=now), now)
        grow = True
        if self.in_recovery or self.in_loss:
            if ack >= self.recovery_point:
                # ns-2's Sack1 grows its window from the ACK after the one that ends recovery
                grow = not (self.in_recovery and self.packet_cwnd and self.sack_ok)
                self._exit_recovery()
            elif partial and self.cfg.partial_ack == "newreno":
                # RFC 6582 §3.2 step 5 by default (partial_ack "wait": no retransmission, the
                # next hole waits for the RTO; a variant may defer it, Net Reno's reordering
                # guard, [NETRENO] §5.3)
                self._apply(self.policy.on_partial_ack(self.view, now=now), now)
        if grow and not self.in_recovery:
            self._grow_cwnd(acked)
        if partial and self.cfg.partial_ack_timer == "first" and not self.sack_ok:
            # RFC 6582 §4.1 (Impatient): only the first partial ACK of a recovery restarts it
            if self.partial_acks_seen:
                return
            self.partial_acks_seen = True
        # RFC 6298 (5.2)/(5.3): stop the timer when all is acked, else restart it
        timers.restart_rto(now, snd.snd_max > snd.snd_una)

    def _exit_recovery(self) -> None:
        if self.in_recovery and not self.recovery_undone:
            if self.cfg.exit_cwnd_flight and not self.sack_ok:
                # RFC 6582 §3.2 step 4 (1): min(ssthresh, FlightSize + SMSS) (TcpConfig)
                snd = self.sender
                cwnd = min(self.ssthresh, snd.snd_max - snd.snd_una + self.mss, self.max_cwnd)
                if self.packet_cwnd:
                    self._set_packets(cwnd / self.mss)
                else:
                    self.cwnd = cwnd
            elif not self.packet_cwnd:          # ns-2 keeps its halved cwnd_ (cwnd_model)
                self.cwnd = min(self.ssthresh, self.max_cwnd)   # RFC 6582 §3.2 step 4 / 6675
        self.in_recovery = self.in_loss = False
        self.trace("recovery-exit", cwnd=self.cwnd)

    def _on_dupack(self, seg: Segment, now: float) -> None:
        snd = self.sender
        self.dupacks += 1
        if self.dupacks == 1 and not self.in_recovery \
                and (not self.in_loss or self.dupacks_in_loss):
            self.lt_mark = snd.snd_max              # what follows is limited transmit
            if self._limited_transmit_hook is not None:
                self.lt_ok = self._limited_transmit_hook(self.view, now=now)
        if seg.reorder and self.rdtcp_ok:
            self.stats["reorder_dupacks_received"] += 1
        if not self.sack_ok:
            self.reno_dupacks += 1                  # each dupack: a segment left the network
            if self.in_loss and self.dupacks_in_loss and self.dupacks < self.dupthresh \
                    and self.cfg.limited_transmit_cwnds == 0:
                # an RTO's go-back-N weighing duplicate ACKs as any others: without Limited
                # Transmit those below DupThresh send nothing, not even the resent data that
                # its bound on new data would let through (a fast retransmit counts them)
                self.reno_dupacks -= 1
        frac = self.cfg.dupthresh_cwnd_fraction
        if frac is not None:                        # ns-2's numdupacksFrac_ (TcpConfig)
            self.dupthresh = max(self.cfg.dupthresh, self.cwnd // self.mss // frac)
        if self._on_dupack_hook is not None:
            self._apply(self._on_dupack_hook(self.view, seg, self.dupacks, now=now), now)
        if not self.in_recovery and (not self.in_loss or self.dupacks_in_loss) \
                and self.policy.should_fast_retransmit(self.view, self.dupacks, now=now):
            guard = self.cfg.recover_guard
            if guard != "off" and (self.in_loss or not self.sack_ok
                                   and self.cfg.partial_ack == "newreno"
                                   and (snd.snd_una <= self.recovery_point if guard == "careful"
                                        else snd.snd_una < self.recovery_point)):
                # RFC 6582 §3.2 step 2: duplicate ACKs whose cumulative ACK does not cover more
                # than "recover" may come from the last recovery's retransmissions, and after
                # an RTO (recover = SND.MAX then, §4) from its go-back-N: no new one
                if not self.cfg.guarded_dupacks_send:
                    self.reno_dupacks -= 1      # nor a new packet (TcpConfig)
                return
            if self.policy.restarts_on_fast_retransmit:     # Tahoe
                self._restart(now)
            else:
                self._enter_recovery(now)

    def _enter_recovery(self, now: float) -> None:
        """Fast retransmit and fast recovery: RFC 6675 §5 steps (4.1)-(4.3), RFC 5681 eq. (4)."""
        snd = self.sender
        prior_cwnd, prior_ssthresh = self.cwnd, self.ssthresh
        if self._on_enter_recovery_hook is not None:
            self._on_enter_recovery_hook(self.view, prior_cwnd, prior_ssthresh, now=now)
        self.recovery_point = snd.snd_max
        flight = snd.snd_max - snd.snd_una
        if self.packet_cwnd:
            self._halve_packet_cwnd(restart=False)
        else:
            self.ssthresh = self.policy.ssthresh_after_loss(self.view, now=now)  # RFC 5681 (4)
            self.cwnd = self.ssthresh
        if self.in_loss:                    # (TcpConfig.recover_guard "off": after an RTO too)
            self.reno_dupacks = self.dupacks if not self.sack_ok else 0
        self.in_recovery = True
        self.in_loss = False
        self.recovery_undone = False
        self.partial_acks_seen = False
        self.stats["fast_retransmits"] += 1
        self.trace("fast-retransmit", snd_una=snd.snd_una, dupacks=self.dupacks,
                   dupthresh=self.dupthresh, flight=flight, ssthresh=self.ssthresh,
                   prior_cwnd=prior_cwnd)
        if self.dupthresh_marking:
            self.sb.mark_head_lost()
            self.sb.mark_lost_below_sacked(1 if self.sack1 else self.dupthresh)
        if self.sack1:
            # Sack1: the packets sent less the DupThresh duplicate ACKs' (Fall and Floyd); the
            # retransmission that follows is not counted
            self.pipe_count = snd.snd_max - snd.snd_una - self.dupthresh * self.mss
        self.force_head = True
        if self.cfg.rto_restart_at_fast_retransmit:
            self.timers.restart_rto(now, True)      # (TcpConfig: ns-2's reset_rtx_timer)

    def _restart(self, now: float) -> None:
        """Tahoe's fast retransmit (variants/tahoe.py): a timeout's response without the
        timer's backoff, ssthresh halved, cwnd one segment, go-back-N in slow start (RFC
        6582 §4's ``recover`` is SND.MAX); the duplicate ACKs go on counting, so that only a
        new ACK starts the count for the next one."""
        snd = self.sender
        prior_cwnd = self.cwnd
        if self.packet_cwnd:
            self._halve_packet_cwnd(restart=True)
        else:
            self.ssthresh = self.policy.ssthresh_after_loss(self.view, now=now)
        self.cwnd = self.mss
        self.in_loss = True
        self.recovery_point = snd.snd_max
        self.reno_dupacks = 0
        self.stats["fast_retransmits"] += 1
        self.trace("fast-retransmit", snd_una=snd.snd_una, dupacks=self.dupacks,
                   dupthresh=self.dupthresh, flight=snd.snd_max - snd.snd_una,
                   ssthresh=self.ssthresh, prior_cwnd=prior_cwnd)
        self.sb.mark_all_lost()
        self.force_head = True
        self.timers.restart_rto(now, True)

    # ------------------------------------------------------------------ the RTO expired
    def on_rto(self, now: float) -> bool:
        """The retransmission timer expired with data outstanding (the connection has backed
        the timer off, RFC 6298 (5.5), and sends what ``output`` then has). True for the
        RTO's own recovery, whose timer must run while data is outstanding (RFC 6298 (5.1));
        False when the variant made the expiry a fast recovery."""
        snd = self.sender
        policy = self.policy
        if not self.in_recovery and not self.in_loss \
                and policy.timeout_enters_recovery(self.view, now=now):
            # the variant reads this expiry as a loss to repair by fast recovery (RD-TCP,
            # [RDTCP] §3.1: the timer ran out while waiting for 3+k dupacks), not as an RTO: the
            # backed-off timer stays (RFC 6298 (5.5)), the window is halved, not collapsed
            self._timed_out(now)
            self.trace("timeout", snd_una=snd.snd_una, rto=self.rtt.rto, recovery=True)
            self._enter_recovery(now)
            return False
        self._timed_out(now)
        if self.packet_cwnd:
            self._halve_packet_cwnd(restart=True)       # on every expiry, as ns-2's TcpAgent
        elif not self.in_loss:
            ssthresh = policy.ssthresh_after_loss(self.view, now=now)  # RFC 5681 eq. (4)
            if self.in_recovery and not self.recovery_undone:
                # The RTO ends a fast recovery that already cut ssthresh for this loss event:
                # keep that cut (as Linux's tcp_enter_loss does in Recovery). FlightSize has
                # grown during the recovery by SACKed data and new segments, so eq. (4) alone
                # would *raise* ssthresh, while RFC 5681 §3.1 allows "no more than" eq. (4).
                ssthresh = min(ssthresh, self.ssthresh)
            self.ssthresh = ssthresh
        self.cwnd = self.mss                                # RFC 5681 §3.1: loss window
        self.in_recovery = False
        self.in_loss = True
        self.recovery_point = snd.snd_max
        self.dupacks = self.reno_dupacks = 0
        if policy.timeout_retransmits_all(self.view, now=now):
            self.sb.mark_all_lost()
        else:
            self.sb.mark_head_lost()    # F-RTO (RFC 5682 §3 step 1): the timed-out segment only
        self.trace("timeout", snd_una=snd.snd_una, rto=self.rtt.rto, ssthresh=self.ssthresh,
                   flight=snd.snd_max - snd.snd_una)
        self.force_head = True
        return True

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
            self.timers.policy_deadline = self._deadline_hook()

    # ------------------------------------------------------------------ applying decisions
    def _apply(self, decision: Decisions, now: float) -> None:
        """Apply what a hook returned: a Decision, a tuple of them (in order) or None."""
        if decision is None:
            return
        if isinstance(decision, tuple):
            for d in decision:
                self._apply_one(d, now)
        else:
            self._apply_one(decision, now)

    def _apply_one(self, d: Decision, now: float) -> None:
        apply = _APPLY.get(type(d))
        if apply is None:
            raise TypeError(f"TCP variant {self.policy.name!r} returned {d!r}, not a decision "
                            f"of hosts/tcp/variants/base.py")
        apply(self, d, now)

    def _undo(self, d: Undo, now: float) -> None:
        """``Undo`` (DSACK undo, [RRTCP] §2-3; Eifel, RFC 3522). An undo during fast recovery marks
        the episode undone, so that leaving recovery keeps the restored window instead of
        setting cwnd to ssthresh (as Linux's undo clears its undo_marker,
        tcp_end_cwnd_reduction); otherwise the undo lasted one RTT, and an episode begun in the
        first slow start, whose restored ssthresh is the initial "infinite" one, left recovery
        with cwnd at its maximum in one step."""
        self.cwnd = max(self.cwnd, min(d.cwnd, self.max_cwnd))
        self.ssthresh = max(self.ssthresh, d.ssthresh)
        if self.in_recovery:
            self.recovery_undone = True
        self.stats[f"{d.detector}_undos"] += 1
        self.trace("undo", cwnd=self.cwnd, ssthresh=self.ssthresh, detector=d.detector)
        if self._on_undo_hook is not None:
            self._apply(self._on_undo_hook(self.view, now=now), now)

    def _spurious_timeout(self, d: SpuriousTimeout, now: float) -> None:
        """``SpuriousTimeout`` (RFC 4015, RFC 5682): segments marked lost by the timeout and
        not yet sent again are in flight after all."""
        if self.in_loss:
            self.sb.unmark_unsent_lost()
            self.in_loss = False
        mss = self.mss
        self.cwnd = max(mss, min(d.cwnd, self.max_cwnd))
        self.ssthresh = max(2 * mss, d.ssthresh)
        self.stats["spurious_timeouts_undone"] += 1
        self.trace("spurious-timeout", cwnd=self.cwnd, ssthresh=self.ssthresh)
        if d.recover is not None:
            self.recovery_point = d.recover
        if self._on_undo_hook is not None:
            self._apply(self._on_undo_hook(self.view, now=now), now)

    def _go_back_n(self, d: GoBackN, now: float) -> None:
        """``GoBackN`` (F-RTO, RFC 5682 steps 2a, 3a)."""
        self.sb.mark_all_lost()
        if d.cwnd_cap is not None:
            self.cwnd = max(self.mss, min(self.cwnd, d.cwnd_cap))

    def _mark_lost(self, d: MarkLost, now: float) -> None:
        """``MarkLost`` (RACK, RFC 8985 §6.2 step 5; Net Reno's NR-LD): the records the policy
        read from its view are the scoreboard's own."""
        records: Any = d.records
        self.sb.mark_lost(records)
        self.trace("marked-lost", count=len(d.records), rule=d.rule)

    def _enter_recovery_if_idle(self, d: EnterRecovery, now: float) -> None:
        """``EnterRecovery``: unless a recovery already runs."""
        if not self.in_recovery and not self.in_loss:
            self._enter_recovery(now)

    def _reduce_window(self, d: ReduceWindow, now: float) -> None:
        """``ReduceWindow`` (TLP, RFC 8985 §7.4.2)."""
        self.ssthresh = self.policy.ssthresh_after_loss(self.view, now=now)
        self.cwnd = max(self.mss, min(self.cwnd, self.ssthresh))
        self.trace("window-reduced", cwnd=self.cwnd, ssthresh=self.ssthresh)

    def _send_probe(self, d: SendProbe, now: float) -> None:
        """``SendProbe``: ``output`` sends it first."""
        self.probe_due = True

    def _retransmit_head(self, d: RetransmitHead, now: float) -> None:
        """``RetransmitHead`` (RFC 6582 §3.2 step 5; Net Reno, [NETRENO] §5.3 and §6.2)."""
        sb = self.sb
        if sb.head < len(sb.records) and not sb.records[sb.head][SACKED]:
            sb.mark_head_lost()
            self.force_head = True
        if d.cwnd is not None:
            self.cwnd = d.cwnd

    def _set_cwnd(self, d: SetCwnd, now: float) -> None:
        self.cwnd = d.cwnd

    def _set_dupthresh(self, d: SetDupthresh, now: float) -> None:
        self.dupthresh = d.n

    def _rtt_sample(self, d: RttSample, now: float) -> None:
        """``RttSample``: the policy's measurement, to the RTO's estimator."""
        snd = self.sender
        self.rtt.sample(d.rtt, snd_una=snd.snd_una, snd_nxt=snd.snd_nxt)
        self.trace("rtt-sample", rtt=d.rtt, rto=self.rtt.rto)

    def _carry_dupacks(self, d: CarryDupacks, now: float) -> None:
        """``CarryDupacks`` (Net Reno's small-window rule, [NETRENO] §4.2)."""
        if not self.in_recovery and not self.in_loss and d.n > 0:
            self.dupacks = d.n
            if not self.sack_ok:
                self.reno_dupacks = d.n

    def _leave_recovery(self, d: LeaveRecovery, now: float) -> None:
        """``LeaveRecovery`` (Reno: RFC 5681 §3.2 step 6 on the first new ACK): fast recovery
        ends with cwnd = ssthresh; ``recover`` is set below SND.UNA so that the next three
        duplicate ACKs may be a fast retransmit, and no duplicate ACK of the old episode stands
        for a segment gone any more (Reno's flight is SND.MAX - SND.UNA)."""
        if self.in_recovery:
            self._exit_recovery()
            if not self.cfg.reno_keeps_recover:
                self.recovery_point = self.sender.snd_una - 1
            self.reno_dupacks = 0
            if self.dupacks_in_loss and self.sb.next_lost() is not None:
                # the recovery began during an RTO's go-back-N (TcpConfig.recover_guard
                # "off"): what that has not resent yet still goes out first
                self.in_loss = True

    def _send_new(self, d: SendNew, now: float) -> None:
        """``SendNew``: ``output`` sends them after what cwnd allows."""
        self.new_allowance += d.count


# the engine's side of each decision of variants/base.py
_APPLY: dict[type, Callable[[LossRecovery, Any, float], None]] = {
    Undo: LossRecovery._undo,
    SpuriousTimeout: LossRecovery._spurious_timeout,
    GoBackN: LossRecovery._go_back_n,
    MarkLost: LossRecovery._mark_lost,
    EnterRecovery: LossRecovery._enter_recovery_if_idle,
    ReduceWindow: LossRecovery._reduce_window,
    SendProbe: LossRecovery._send_probe,
    RetransmitHead: LossRecovery._retransmit_head,
    SetCwnd: LossRecovery._set_cwnd,
    SetDupthresh: LossRecovery._set_dupthresh,
    RttSample: LossRecovery._rtt_sample,
    CarryDupacks: LossRecovery._carry_dupacks,
    LeaveRecovery: LossRecovery._leave_recovery,
    SendNew: LossRecovery._send_new,
}
