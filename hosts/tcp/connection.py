"""One TCP connection as a sans-IO engine: segments in, segments out, time passed in.

    segs = conn.connect(now=0.0)           # or conn.listen()
    segs = conn.on_segment(seg, now=t)     # every call returns the segments to send
    segs = conn.on_timer(now=t)            # when now >= conn.next_timer()

Nothing here reads a clock or does I/O. Internally every sequence number is an *unwrapped*
offset from the initial sequence number (ISS for what we send, IRS for what we receive), so
plain integer order is sequence order; wire numbers are converted at the edges with the
mod-2^32 helpers of netbase/seq.py, which makes a transfer across 2^32 behave like any other.

This module is the state machine (RFC 9293 §3.3.2, §3.10) and the public API; the work is done
by the connection's parts, one module each:

- handshake.py: the options agreed on the SYNs (MSS, SACK, window scale, timestamps, RD-TCP)
- sender.py: SND.UNA/NXT/MAX, the send buffer, our FIN, the segments that carry them
- scoreboard.py: one record per segment sent (RFC 6675), what pipe is made of
- recovery.py: what an ACK means, fast retransmit/recovery, the RTO's response, cwnd,
  ssthresh and DupThresh (RFC 5681, 6675, 6582), which segments go out next, and the variant's
  policy (variants/), whose hooks see the sending half through view.py
- inbound.py: acceptability, data and FIN into the receive buffer (receiver.py), EPDN, our ACKs
- timers.py, persist.py: RTO, delayed ACK, TIME-WAIT, persist, the variant's timer, as deadlines
"""

from __future__ import annotations

from hosts.tcp.config import TcpConfig
from hosts.tcp.handshake import Negotiated, configured_alike, negotiate, syn_options
from hosts.tcp.inbound import Inbound
from hosts.tcp.persist import Persist
from hosts.tcp.receiver import Receiver
from hosts.tcp.recovery import LossRecovery
from hosts.tcp.rtt import make_estimator
from hosts.tcp.scoreboard import Scoreboard
from hosts.tcp.sender import MAX_WINDOW_UNSCALED, Sender
from hosts.tcp.timers import Timers, ts_val
from hosts.tcp.variants import get_variant
from netbase.segment import ACK, FIN, RST, SYN, Segment
from netbase.seq import SEQ_MOD, seq_sub

__all__ = ["TcpConnection", "reset_for", "CLOSED", "LISTEN", "SYN_SENT", "SYN_RCVD",
           "ESTABLISHED", "FIN_WAIT_1", "FIN_WAIT_2", "CLOSING", "TIME_WAIT", "CLOSE_WAIT",
           "LAST_ACK"]

CLOSED, LISTEN, SYN_SENT, SYN_RCVD, ESTABLISHED = "CLOSED", "LISTEN", "SYN-SENT", "SYN-RECEIVED", "ESTABLISHED"
FIN_WAIT_1, FIN_WAIT_2, CLOSING, TIME_WAIT = "FIN-WAIT-1", "FIN-WAIT-2", "CLOSING", "TIME-WAIT"
CLOSE_WAIT, LAST_ACK = "CLOSE-WAIT", "LAST-ACK"
_SYNCHRONIZED = {ESTABLISHED, FIN_WAIT_1, FIN_WAIT_2, CLOSING, TIME_WAIT, CLOSE_WAIT, LAST_ACK}

_STATS = ("segments_sent", "segments_received", "retransmits", "fast_retransmits", "timeouts",
          "spurious_retransmits", "dsack_undos", "eifel_undos", "spurious_timeouts_undone",
          "bytes_acked", "epdn_stamps", "epdn_ignored", "reorder_acks_sent",
          "reorder_dupacks_received", "bad_segments", "challenge_acks", "loss_probes",
          "window_probes", "window_updates")


def reset_for(seg: Segment) -> Segment | None:
    """The reset that answers ``seg`` when it arrives for no connection: at a CLOSED endpoint
    or where no endpoint matches (RFC 9293 §3.10.7.1). It is made acceptable to the sender:
    <SEQ=SEG.ACK><CTL=RST> for a segment with ACK, else <SEQ=0><ACK=SEG.SEQ+SEG.LEN>
    <CTL=RST,ACK>. A reset is never answered (None)."""
    if seg.flags & RST:
        return None
    if seg.flags & ACK:
        return Segment(seg.dst_port, seg.src_port, seg.ack, 0, RST)
    return Segment(seg.dst_port, seg.src_port, 0, (seg.seq + seg.seg_len) % SEQ_MOD, RST | ACK)


class TcpConnection:
    def __init__(self, config: TcpConfig, *, local_port: int, remote_port: int, iss: int = 0,
                 tracer=None):
        self.cfg = config
        self.local_port, self.remote_port = local_port, remote_port
        self.iss = iss % SEQ_MOD
        self.tracer = tracer
        self.state = CLOSED
        self.error: str | None = None
        self.stats = {k: 0 for k in _STATS}
        self._now = 0.0
        # negotiated on the SYNs (handshake.py); until then, what we offer
        self.mss = config.mss
        self.sack_ok = self.ts_ok = self.rdtcp_ok = False
        self.snd_wscale = self.rcv_wscale = 0
        self.ts_recent = 0                          # RFC 7323 §4.3 TS.Recent
        self._peer: Negotiated | None = None
        self._peer_bare = False                     # its SYN had no options (a one-way opening)
        self._syn_sent_at: float | None = None      # for the handshake's RTT sample (Karn: once)
        # the parts
        policy = get_variant(config.variant)
        self.rtt = make_estimator(config, policy.rto_estimator)   # RFC 6298, an OS's ([TCPDEBUG])
        self.timers = Timers(self.rtt)
        self.policy = policy(config)
        # each part gets the collaborators it needs; the sender knows nothing of recovery
        self.sender = Sender(Scoreboard(), self.make, self.stats, mss=config.mss,
                             per_flight=config.rtt_sampling == "per-flight",
                             marks_retransmissions=policy.marks_retransmissions)
        self.recovery = LossRecovery(config, self.policy, self.sender, self.rtt, self.timers,
                                     iss=self.iss, stats=self.stats, trace=self.trace)
        self.inbound: Inbound | None = None         # once the peer's SYN is in
        self.persist = Persist(self)

    # ------------------------------------------------------------------ public state
    # (the rest is on the parts: conn.sender, conn.recovery, conn.inbound, conn.timers)
    @property
    def dupthresh(self) -> int:
        return self.recovery.dupthresh

    @property
    def snd_una(self) -> int:
        return self.sender.snd_una

    @property
    def snd_nxt(self) -> int:
        return self.sender.snd_nxt

    @property
    def snd_max(self) -> int:
        return self.sender.snd_max

    @property
    def flight_size(self) -> int:
        return self.sender.flight_size

    @property
    def unsent(self) -> int:
        """Bytes the application has written that were never sent."""
        return self.sender.unsent

    @property
    def cwnd(self) -> int:
        return self.recovery.cwnd

    @property
    def ssthresh(self) -> int:
        return self.recovery.ssthresh

    @property
    def in_recovery(self) -> bool:
        return self.recovery.in_recovery

    @property
    def in_loss(self) -> bool:
        return self.recovery.in_loss

    # the scoreboard's counts, which return to zero once everything is acknowledged
    @property
    def _sacked_out(self) -> int:
        return self.sender.sb.sacked_out

    @property
    def _lost_out(self) -> int:
        return self.sender.sb.lost_out

    @property
    def _retrans_out(self) -> int:
        return self.sender.sb.retrans_out

    @property
    def rcv(self) -> Receiver | None:
        return self.inbound.rcv if self.inbound is not None else None

    @property
    def policy_deadline(self) -> float | None:
        """The variant's own timer (RACK's reordering timer, TLP's PTO), or None."""
        return self.timers.policy_deadline

    @policy_deadline.setter
    def policy_deadline(self, value: float | None) -> None:
        self.timers.policy_deadline = value

    def send_buffer_space(self) -> int:
        snd = self.sender
        if snd.closing or self.state in (CLOSED, LISTEN):
            return 0
        return max(0, self.cfg.snd_buffer - (snd.app_end - snd.snd_una))

    def next_timer(self) -> float | None:
        """The earliest armed deadline (RTO, delayed ACK or window update, TIME-WAIT, persist,
        the variant's own timer), or None."""
        return self.timers.next()

    def trace(self, event: str, **fields) -> None:
        if self.tracer is not None:
            self.tracer(event, self, fields)

    # ------------------------------------------------------------------ application calls
    def listen(self) -> None:
        self.state = LISTEN

    def connect(self, *, now: float) -> list[Segment]:
        self._now = now
        self.state = SYN_SENT
        self.sender.snd_nxt = self.sender.snd_max = 1
        self._syn_sent_at = now
        self.timers.arm_rto(now)
        return [self._syn(ack=False)]

    def send(self, data: bytes) -> None:
        if self.sender.closing:
            raise ValueError("send() after close()")
        if self.state == CLOSED and self.error:
            raise ConnectionError(f"connection {self.error}")
        self.sender.write(data)

    def close(self) -> None:
        """Send FIN after the queued data (RFC 9293 §3.10.4)."""
        if not self.sender.closing:
            self.sender.fin_pending = True

    def receive(self) -> bytes:
        """The in-order data delivered so far. The read may make a window update due
        (Inbound.on_read): only a window offered that was at most half the buffer can be worth
        one, and none once the peer's FIN is in (checked here, as this runs for every read)."""
        inb = self.inbound
        if inb is None:
            return b""
        rcv = inb.rcv
        data = rcv.read()
        if data and 2 * (rcv.right_edge - rcv.rcv_nxt) <= rcv.buffer and inb.peer_fin_at is None:
            inb.on_read(self._now)
        return data

    def poll(self, *, now: float) -> list[Segment]:
        """Segments the engine can send now (after send()/close() or a window change)."""
        self._now = now
        if self.state not in _SYNCHRONIZED:
            return []
        return self.transmit(now)

    # ------------------------------------------------------------------ segments out
    def ts_options(self) -> tuple:
        """The timestamp option of the segment being built (none without timestamps): TSval
        now, TSecr TS.Recent. Every segment we send after the SYN gets it here, so here its
        ACK becomes Last.ACK.sent, which decides what may become TS.Recent next (RFC 7323
        §4.3, Inbound.note_timestamp)."""
        if not self.ts_ok:
            return ()
        inb = self.inbound
        if inb is not None:
            inb.last_ack_sent = inb.rcv.rcv_nxt
        return (("NOP", None), ("NOP", None), ("Timestamp", (ts_val(self._now), self.ts_recent)))

    def _syn(self, *, ack: bool) -> Segment:
        cfg = self.cfg
        if cfg.opening == "one-way" and (not ack or self._peer_bare):
            opts: tuple = ()                    # configured alike: nothing to offer or answer
        else:
            opts = syn_options(cfg, self._peer if ack else None,
                               (ts_val(self._now), self.ts_recent))
        self.stats["segments_sent"] += 1
        inb = self.inbound
        wire_ack = inb.wire_ack() if ack and inb is not None else 0
        return Segment(self.local_port, self.remote_port, self.iss, wire_ack,
                       SYN | (ACK if ack else 0), min(MAX_WINDOW_UNSCALED, cfg.rcv_buffer), opts)

    def make(self, off: int, payload: bytes, flags: int, opts: tuple | None = None,
             reserved: int = 0) -> Segment:
        """A segment of ours at offset ``off`` (``opts`` None: the timestamp option if in use),
        acknowledging what we received and offering our window (this runs for every segment
        sent, hence inline)."""
        self.stats["segments_sent"] += 1
        inb = self.inbound
        if inb is not None:
            rcv = inb.rcv
            ack = (inb.irs + rcv.rcv_nxt) % SEQ_MOD
            win = rcv.window >> self.rcv_wscale
        else:
            ack = 0
            win = self.cfg.rcv_buffer >> self.rcv_wscale
        if win > MAX_WINDOW_UNSCALED:
            win = MAX_WINDOW_UNSCALED
        return Segment(self.local_port, self.remote_port, (self.iss + off) % SEQ_MOD, ack,
                       flags | ACK, win,
                       opts if opts is not None else (self.ts_options() if self.ts_ok else ()),
                       payload, reserved)

    def transmit(self, now: float) -> list[Segment]:
        """Send what loss recovery lets go now (``LossRecovery.output``: cwnd, the peer's
        window and the scoreboard, RFC 6675 §5 NextSeg), then our FIN once all data is out;
        the RTO runs while data is in flight, the persist timer while the window blocks."""
        rec = self.recovery
        snd = self.sender
        if snd.snd_nxt >= snd.app_end and not (rec.probe_due or rec.force_head or rec.in_recovery
                                               or rec.in_loss or rec.new_allowance
                                               or snd.fin_pending):
            # no new data, nothing to resend, no probe, no SendNew allowance to use up and no
            # FIN: what the receiving end of a transfer meets on every segment. The persist
            # timer, if it runs, stops (with all data sent the window blocks nothing)
            if self.timers.persist_at is not None:
                self.persist.update(now)
            return []
        out = rec.output(now)
        if snd.fin_pending and snd.snd_nxt == snd.app_end \
                and self.state in (ESTABLISHED, CLOSE_WAIT):
            out.append(snd.send_fin(now))
            self.state = FIN_WAIT_1 if self.state == ESTABLISHED else LAST_ACK
        timers = self.timers
        if out:
            timers.arm_rto(now)
            if timers.persist_at is not None:       # data in flight: the RTO's turn
                self.persist.stop()
        elif timers.persist_at is not None or snd.snd_max == snd.snd_una < snd.app_end:
            self.persist.update(now)
        return out

    # ------------------------------------------------------------------ segments in
    def on_segment(self, seg: Segment, *, now: float) -> list[Segment]:
        self._now = now
        self.stats["segments_received"] += 1
        if self.state == CLOSED:
            rst = reset_for(seg)                # RFC 9293 §3.10.7.1
            return [rst] if rst is not None else []
        if self.state == LISTEN:
            return self._on_listen(seg, now)
        if self.state == SYN_SENT:
            return self._on_syn_sent(seg, now)
        return self._on_synchronized(seg, now)

    def _reset(self, seg: Segment) -> list[Segment]:
        """RFC 9293 §3.10.7.2/3: an unacceptable ACK is answered <SEQ=SEG.ACK><CTL=RST>."""
        rst = reset_for(seg)
        return [rst] if rst is not None else []

    def _negotiated(self, seg: Segment) -> Inbound:
        """The peer's SYN or SYN-ACK is in: its options, its IRS, our receive half."""
        cfg = self.cfg
        self._peer_bare = cfg.opening == "one-way" and not seg.options
        peer = self._peer = configured_alike(cfg) if self._peer_bare else \
            negotiate(cfg, seg.options)
        self.sack_ok, self.ts_ok, self.rdtcp_ok = peer.sack_ok, peer.ts_ok, peer.rdtcp_ok
        self.ts_recent = peer.ts_recent
        if peer.peer_wscale is not None and cfg.window_scale is not None:
            self.snd_wscale, self.rcv_wscale = peer.peer_wscale, cfg.window_scale
        self.mss = self.sender.mss = peer.mss
        self.recovery.open(mss=peer.mss, sack_ok=peer.sack_ok, ts_ok=peer.ts_ok,
                           rdtcp_ok=peer.rdtcp_ok, snd_wscale=self.snd_wscale)
        inb = self.inbound = Inbound(self, seg.seq, cfg.rcv_buffer)
        return inb

    def _on_listen(self, seg: Segment, now: float) -> list[Segment]:
        if seg.flags & RST:
            return []
        if seg.flags & ACK:
            return self._reset(seg)         # RFC 9293 §3.10.7.2: an ACK to a listener
        if not seg.flags & SYN:
            return []
        self._negotiated(seg)
        self.sender.set_window(seg.window)  # RFC 7323 §2.2: a SYN's window is never scaled
        self.state = SYN_RCVD
        self.sender.snd_nxt = self.sender.snd_max = 1
        if self.cfg.delayed_ack_syn and self.cfg.delayed_ack:
            # the answer waits for the delayed-ACK timer (TcpConfig.delayed_ack_syn)
            self.timers.ack_due = now + self.cfg.delayed_ack_timeout
            return []
        return [self._syn_ack(now)]

    def _syn_ack(self, now: float) -> Segment:
        self._syn_sent_at = now
        self.timers.arm_rto(now)
        return self._syn(ack=True)

    def _on_syn_sent(self, seg: Segment, now: float) -> list[Segment]:
        if seg.flags & ACK and seq_sub(seg.ack, (self.iss + 1) % SEQ_MOD) != 0:
            if seg.flags & RST:
                return []
            return self._reset(seg)
        if seg.flags & RST:
            if seg.flags & ACK:
                return self._abort("reset by peer")
            return []
        if not seg.flags & SYN:
            return []
        inb = self._negotiated(seg)
        if not seg.flags & ACK:
            return []                           # simultaneous open: not modelled
        self.sender.snd_una = 1
        self.sender.set_window(seg.window)
        self._established(now)
        if self.cfg.opening == "one-way":
            out = self.transmit(now)
            if out:
                return out                      # the first data segment acknowledges the SYN
            return [inb.ack_segment(now)]
        return [inb.ack_segment(now)] + self.transmit(now)

    def _established(self, now: float) -> None:
        """Our SYN is acknowledged: its RTT if it was sent once (Karn), timer stopped."""
        timers = self.timers
        if timers.retries == 0 and self._syn_sent_at is not None:
            self.rtt.sample(now - self._syn_sent_at)
        timers.retries = 0
        timers.rto_at = None
        self.state = ESTABLISHED
        self.trace("established", mss=self.mss, sack=self.sack_ok, rdtcp=self.rdtcp_ok)

    def _abort(self, why: str) -> list[Segment]:
        self.state = CLOSED
        self.error = why
        self.timers.stop_all()
        self.trace("abort", reason=why)
        return []

    def _on_synchronized(self, seg: Segment, now: float) -> list[Segment]:
        inb = self.inbound
        assert inb is not None                  # synchronized: the peer's SYN is in
        start = inb.offset(seg.seq)
        flags = seg.flags
        if flags & RST:
            return self._on_rst(inb, start, now)
        if flags & SYN:
            if self.state == SYN_RCVD and start == 0:
                return [self._syn(ack=True)]    # our SYN-ACK was lost: the peer repeats its SYN
            self.stats["challenge_acks"] += 1   # RFC 9293 §3.10.7.4 (RFC 5961 §4)
            return [inb.ack_segment(now)]
        if not flags & ACK:
            return []
        if not inb.acceptable(seg, start):
            inb.note_duplicate(seg, start)
            if self.state == TIME_WAIT and flags & FIN:
                # RFC 9293 §3.10.7.4: the peer's FIN again (our ACK of it was lost):
                # acknowledge it and restart the 2 MSL timeout
                self._enter_time_wait(now)
            return [inb.ack_segment(now)]       # RFC 9293 §3.10.7.4: ACK and drop
        if self.state == SYN_RCVD:
            if seq_sub(seg.ack, (self.iss + 1) % SEQ_MOD) != 0:
                return self._reset(seg)
            self.sender.snd_una = 1
            self._established(now)
        if self.ts_ok:
            inb.note_timestamp(seg, start)
        if not self.recovery.on_ack(seg, now):
            return [inb.ack_segment(now)]       # ACK of unsent data (RFC 9293 §3.10.7.4)
        snd = self.sender
        if self.state in (FIN_WAIT_1, CLOSING, LAST_ACK) and snd.fin_at is not None \
                and snd.snd_una > snd.fin_at:
            self._on_fin_acked(now)
        if seg.payload or flags & FIN:
            return inb.on_data(seg, start, now) + self.transmit(now)
        return self.transmit(now)

    def _on_rst(self, inb: Inbound, start: int, now: float) -> list[Segment]:
        """RFC 9293 §3.10.7.4 / RFC 5961 §3: reset only on an exact match, challenge if in window.
        In CLOSING, LAST-ACK and TIME-WAIT a reset closes the connection (the peer is gone),
        without error when everything we sent before our FIN was acknowledged."""
        rcv = inb.rcv
        if start == rcv.rcv_nxt:
            snd = self.sender
            if self.state in (CLOSING, LAST_ACK, TIME_WAIT) and snd.fin_at is not None \
                    and snd.snd_una >= snd.fin_at:
                self.trace("closed", reason="reset", state=self.state)
                self.state = CLOSED
                self.timers.stop_all()
                return []
            return self._abort("reset by peer")
        if rcv.rcv_nxt <= start < rcv.rcv_nxt + max(rcv.window, 1):
            self.stats["challenge_acks"] += 1
            return [inb.ack_segment(now)]
        return []

    # ------------------------------------------------------------------ closing
    def on_peer_fin(self, now: float) -> None:
        """The peer's FIN is reached in sequence (RFC 9293 §3.10.7.4, eighth step)."""
        if self.state == ESTABLISHED:
            self.state = CLOSE_WAIT
        elif self.state == FIN_WAIT_1:
            self.state = CLOSING
        elif self.state == FIN_WAIT_2:
            self._enter_time_wait(now)

    def _on_fin_acked(self, now: float) -> None:
        if self.state == FIN_WAIT_1:
            self.state = FIN_WAIT_2
        elif self.state == CLOSING:
            self._enter_time_wait(now)
        elif self.state == LAST_ACK:
            self.state = CLOSED
            self.timers.rto_at = None

    def _enter_time_wait(self, now: float) -> None:
        self.state = TIME_WAIT
        self.timers.rto_at = None
        self.timers.time_wait_until = now + self.cfg.time_wait

    # ------------------------------------------------------------------ timers
    def on_timer(self, *, now: float) -> list[Segment]:
        self._now = now
        timers = self.timers
        out: list[Segment] = []
        if timers.time_wait_until is not None and now >= timers.time_wait_until:
            timers.time_wait_until = None
            self.state = CLOSED
            return []
        inb = self.inbound
        if timers.ack_due is not None and now >= timers.ack_due and inb is not None:
            if self.state == SYN_RCVD and self._syn_sent_at is None:
                timers.ack_due = None           # the delayed answer to the SYN
                out.append(self._syn_ack(now))
            else:
                out.append(inb.ack_segment(now))    # RFC 5681 §4.2 delayed-ACK timer
        if timers.rto_at is not None and now >= timers.rto_at:
            out += self._on_rto(now)
        elif timers.persist_at is not None and now >= timers.persist_at:
            if self.state in _SYNCHRONIZED:
                segs = self.persist.on_expiry(now)
                out += segs if segs is not None else self._abort("timed out")
        elif timers.policy_deadline is not None and now >= timers.policy_deadline:
            timers.policy_deadline = None           # one shot: the variant re-arms it
            if self.state in _SYNCHRONIZED:
                self.recovery.on_deadline(now)
                out += self.transmit(now)
        return out

    def _on_rto(self, now: float) -> list[Segment]:
        timers = self.timers
        timers.rto_at = None
        timers.retries += 1
        if timers.retries > self.cfg.max_retries:
            return self._abort("timed out")
        self.rtt.on_timeout()                                   # RFC 6298 (5.5)
        self.stats["timeouts"] += 1
        if self.state in (SYN_SENT, SYN_RCVD):
            timers.arm_rto(now)
            return [self._syn(ack=self.state == SYN_RCVD)]
        snd = self.sender
        if snd.snd_max <= snd.snd_una:
            return []
        go_back_n = self.recovery.on_rto(now)
        out = self.transmit(now)
        if go_back_n and timers.rto_at is None and snd.snd_max > snd.snd_una:
            timers.arm_rto(now)     # RFC 6298 (5.1): the timer runs while data is outstanding
        return out
