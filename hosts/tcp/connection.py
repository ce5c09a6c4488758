"""One TCP connection as a sans-IO engine: segments in, segments out, time passed in.

    segs = conn.connect(now=0.0)           # or conn.listen()
    segs = conn.on_segment(seg, now=t)     # every call returns the segments to send
    segs = conn.on_timer(now=t)            # when now >= conn.next_timer()

Nothing here reads a clock or does I/O. Internally every sequence number is an *unwrapped*
offset from the initial sequence number (ISS for what we send, IRS for what we receive), so
plain integer order is sequence order; wire numbers are converted at the edges with the
mod-2^32 helpers of seq.py, which makes a transfer across 2^32 behave like any other.

Loss recovery is RFC 6675 (SACK) with a per-segment scoreboard, or RFC 6582 (NewReno) when the
peer did not negotiate SACK; congestion control RFC 5681; the timer RFC 6298. What a variant
changes is a hook of its policy (hosts/tcp/variants/__init__.py).
"""

from __future__ import annotations

from hosts.tcp.config import RDTCP_MSS_REDUCTION, TcpConfig
from hosts.tcp.receiver import MAX_SACK_BLOCKS, MAX_SACK_BLOCKS_WITH_TS, Receiver
from hosts.tcp.rtt import make_estimator
from netbase.segment import ACK, FIN, REORDER_BIT, RST, SYN, Segment
from hosts.tcp.sendbuf import SendBuffer
from netbase.seq import SEQ_MOD, seq_geq, seq_sub
from hosts.tcp.variants import get_variant

__all__ = ["TcpConnection", "CLOSED", "LISTEN", "SYN_SENT", "SYN_RCVD", "ESTABLISHED",
           "FIN_WAIT_1", "FIN_WAIT_2", "CLOSING", "TIME_WAIT", "CLOSE_WAIT", "LAST_ACK"]

CLOSED, LISTEN, SYN_SENT, SYN_RCVD, ESTABLISHED = "CLOSED", "LISTEN", "SYN-SENT", "SYN-RECEIVED", "ESTABLISHED"
FIN_WAIT_1, FIN_WAIT_2, CLOSING, TIME_WAIT = "FIN-WAIT-1", "FIN-WAIT-2", "CLOSING", "TIME-WAIT"
CLOSE_WAIT, LAST_ACK = "CLOSE-WAIT", "LAST-ACK"
_SYNCHRONIZED = {ESTABLISHED, FIN_WAIT_1, FIN_WAIT_2, CLOSING, TIME_WAIT, CLOSE_WAIT, LAST_ACK}

DEFAULT_PEER_MSS = 536              # RFC 9293 §3.7.1: when the peer sends no MSS option
MAX_WINDOW_UNSCALED = 65535         # RFC 9293 §3.1: the 16-bit window field
TIMESTAMP_OPTION_BYTES = 12         # RFC 7323 §3: NOP, NOP, kind 8 length 10

# scoreboard record fields (a list per sent segment, for speed)
_S, _E, _SACKED, _LOST, _RETRANS, _SENT_AT, _TX = range(7)


def _initial_window(mss: int) -> int:
    """RFC 5681 §3.1 equation (1): IW by SMSS."""
    if mss > 2190:
        return 2 * mss
    if mss > 1095:
        return 3 * mss
    return 4 * mss


class TcpConnection:
    def __init__(self, config: TcpConfig, *, local_port: int, remote_port: int, iss: int = 0,
                 tracer=None):
        self.cfg = config
        self.local_port, self.remote_port = local_port, remote_port
        self.iss = iss % SEQ_MOD
        self.tracer = tracer
        self.policy = get_variant(config.variant)(config)
        self._deliveries = self.policy.observes_deliveries     # call on_delivered (opt-in)
        self.state = CLOSED
        self.stats = {k: 0 for k in (
            "segments_sent", "segments_received", "retransmits", "fast_retransmits", "timeouts",
            "spurious_retransmits", "dsack_undos", "eifel_undos", "spurious_timeouts_undone",
            "bytes_acked", "epdn_stamps", "epdn_ignored",
            "reorder_acks_sent", "reorder_dupacks_received", "bad_segments", "challenge_acks",
            "loss_probes")}
        # negotiated
        self.mss = config.mss
        self.sack_ok = self.ts_ok = self.rdtcp_ok = False
        self.snd_wscale = self.rcv_wscale = 0
        # sender (unwrapped offsets from ISS; the SYN is offset 0, data starts at 1)
        self.snd_una = self.snd_nxt = self.snd_max = 0
        self.snd_wnd = MAX_WINDOW_UNSCALED
        self._buf = SendBuffer(1)                   # data starts at offset 1 (after the SYN)
        self._app_end = 1
        self._fin_pending = False
        self._fin_at: int | None = None
        self._segs: list[list] = []
        self._head = 0
        self._sacked_out = self._lost_out = self._retrans_out = 0
        self._lost_hint = 0
        self._reno_dupacks = 0
        self._retx_history: list[tuple[int, int]] = []
        self.cwnd = 0
        self.ssthresh = 1 << 30                     # RFC 5681 §3.1: arbitrarily high
        self.dupacks = 0
        self.in_recovery = False                    # fast recovery (RFC 6675 §5)
        self._recovery_undone = False               # its reduction was undone (undo_reduction)
        self.in_loss = False                        # after an RTO, until RecoveryPoint is acked
        self.recovery_point = 0
        self._high_sacked = 0
        self.rtt = make_estimator(config)                 # RFC 6298, or an OS's (004)
        self._rto_at: float | None = None
        self._retries = 0
        # receiver (unwrapped offsets from IRS)
        self.irs = 0
        self.rcv: Receiver | None = None
        self._ack_due: float | None = None
        self._peer_fin: int | None = None           # offset of the peer's FIN not yet reached
        self._peer_fin_at: int | None = None        # offset of the peer's FIN once reached
        self._unacked_segments = 0
        self._ts_recent = 0
        self._time_wait_until: float | None = None
        self.error: str | None = None
        self._now = 0.0
        self._peer_wscale: int | None = None    # the peer's WScale, None if it sent none
        self._syn_sent_at: float | None = None  # for the handshake's RTT sample (Karn: once)
        self._force_head = False                # send the first lost segment regardless of pipe
        self._per_flight = config.rtt_sampling == "per-flight"
        self._lt_mark: int | None = None        # SND.MAX at the episode's first duplicate ACK
        self._timed: list | None = None         # per-flight sampling: the scoreboard record timed
        self.policy_deadline: float | None = None   # a variant's own timer (RACK, TLP): on_deadline

    # ------------------------------------------------------------------ public state
    @property
    def dupthresh(self) -> int:
        return self.policy.dupthresh

    @property
    def now(self) -> float:
        """The time of the event being processed (passed in by the caller, never read)."""
        return self._now

    @property
    def flight_size(self) -> int:
        return self.snd_max - self.snd_una

    @property
    def flight_size_before_limited_transmit(self) -> int:
        """FlightSize without the data sent since this episode's first duplicate ACK: RFC 5681
        §3.2 step 2, "additional data sent in limited transmit MUST NOT be included" in the
        ssthresh of equation (4). Waiting for more than 3 duplicate ACKs (RD-TCP's 3 + k, a
        raised dupthresh, RACK's reordering window) sends much of it, and counting it made a
        reduction end above the window it reduced."""
        mark = self._lt_mark
        end = self.snd_max if mark is None or mark > self.snd_max else mark
        return end - self.snd_una

    def send_buffer_space(self) -> int:
        if self._fin_pending or self._fin_at is not None or self.state in (CLOSED, LISTEN):
            return 0
        return max(0, self.cfg.snd_buffer - (self._app_end - self.snd_una))

    def next_timer(self) -> float | None:
        """The earliest armed deadline (RTO, delayed ACK, TIME-WAIT, the variant's own timer),
        or None. Asked after
        every event by whoever drives the engine, hence comparisons and no temporary list."""
        t = self._rto_at
        due = self._ack_due
        if due is not None and (t is None or due < t):
            t = due
        tw = self._time_wait_until
        if tw is not None and (t is None or tw < t):
            t = tw
        pd = self.policy_deadline
        if pd is not None and (t is None or pd < t):
            t = pd
        return t

    def _trace(self, event: str, **fields) -> None:
        if self.tracer is not None:
            self.tracer(event, self, fields)

    # ------------------------------------------------------------------ application calls
    def listen(self) -> None:
        self.state = LISTEN

    def connect(self, *, now: float) -> list[Segment]:
        self._now = now
        self.state = SYN_SENT
        self.snd_nxt = self.snd_max = 1
        self._syn_sent_at = now
        self._arm_rto(now)
        return [self._syn(ack=False)]

    def send(self, data: bytes) -> None:
        if self._fin_pending or self._fin_at is not None:
            raise ValueError("send() after close()")
        if self.state == CLOSED and self.error:
            raise ConnectionError(f"connection {self.error}")
        self._buf.append(data)
        self._app_end += len(data)

    def close(self) -> None:
        """Send FIN after the queued data (RFC 9293 §3.10.4)."""
        if self._fin_pending or self._fin_at is not None:
            return
        self._fin_pending = True

    def receive(self) -> bytes:
        return self.rcv.read() if self.rcv is not None else b""

    def poll(self, *, now: float) -> list[Segment]:
        """Segments the engine can send now (after send()/close() or a window change)."""
        self._now = now
        if self.state not in _SYNCHRONIZED:
            return []
        return self._transmit(now)

    def undo_reduction(self, *, cwnd: int, ssthresh: int, detector: str = "dsack") -> None:
        """Variant hook target (DSACK undo, 000 §2-3; Eifel, RFC 3522): restore the
        pre-reduction window. ``detector`` names what showed the reduction false ("dsack" or
        "eifel"), counted in ``stats["<detector>_undos"]``.

        An undo during fast recovery marks the episode undone, so that leaving recovery keeps
        the restored window instead of setting cwnd to ssthresh (as Linux's undo clears its
        undo_marker, tcp_end_cwnd_reduction); otherwise the undo lasted one RTT, and an episode
        begun in the first slow start, whose restored ssthresh is the initial "infinite" one,
        left recovery with cwnd at its maximum in one step."""
        self.cwnd = max(self.cwnd, min(cwnd, self._max_cwnd()))
        self.ssthresh = max(self.ssthresh, ssthresh)
        if self.in_recovery:
            self._recovery_undone = True
        self.stats[f"{detector}_undos"] += 1
        self._trace("undo", cwnd=self.cwnd, ssthresh=self.ssthresh, detector=detector)

    def resume_after_spurious_timeout(self, *, cwnd: int, ssthresh: int) -> None:
        """Variant hook target (Eifel response, RFC 4015): the last retransmission timeout was
        spurious. Leave its loss recovery without the go-back-N retransmissions still to come
        ("SND.NXT <- SND.MAX": segments marked lost by the timeout and not yet sent again are
        in flight after all) and set cwnd and ssthresh as the response decides."""
        if self.in_loss:
            for r in self._live():
                # (a SACKed segment keeps its LOST flag but left _lost_out when SACKed)
                if r[_LOST] and not r[_RETRANS] and not r[_SACKED]:
                    r[_LOST] = False
                    self._lost_out -= r[_E] - r[_S]
            self._lost_hint = self._head
            self.in_loss = False
        self.cwnd = max(self.mss, min(cwnd, self._max_cwnd()))
        self.ssthresh = max(2 * self.mss, ssthresh)
        self.stats["spurious_timeouts_undone"] += 1
        self._trace("spurious-timeout", cwnd=self.cwnd, ssthresh=self.ssthresh)

    def ts_val(self) -> int:
        """The TSval our segments carry now (RFC 7323 §3: a millisecond clock)."""
        return int(self._now * 1000) % SEQ_MOD

    # ------------------------------------------------------------------ segment building
    def _wire_seq(self, off: int) -> int:
        return (self.iss + off) % SEQ_MOD

    def _wire_ack(self) -> int:
        return (self.irs + self.rcv.rcv_nxt) % SEQ_MOD if self.rcv else 0

    def _window_field(self) -> int:
        win = self.rcv.window if self.rcv else self.cfg.rcv_buffer
        return min(MAX_WINDOW_UNSCALED, win >> self.rcv_wscale)

    def _ts_opts(self) -> tuple:
        if not self.ts_ok:
            return ()
        return (("NOP", None), ("NOP", None),
                ("Timestamp", (self.ts_val(), self._ts_recent)))

    def _syn(self, *, ack: bool) -> Segment:
        cfg = self.cfg
        opts = [("MSS", cfg.mss)]
        # a SYN-ACK answers only what the SYN offered (RFC 2018 §2, RFC 7323 §1.3)
        if cfg.sack and (not ack or self.sack_ok):
            opts += [("NOP", None), ("NOP", None), ("SAckOK", b"")]
        if cfg.window_scale is not None and (not ack or self._peer_wscale is not None):
            opts += [("NOP", None), ("WScale", cfg.window_scale)]
        if cfg.timestamps and (not ack or self.ts_ok):
            opts += [("NOP", None), ("NOP", None), ("Timestamp", (self.ts_val(), self._ts_recent))]
        if cfg.rdtcp and (not ack or self.rdtcp_ok):
            opts.append(("RDTCPOK", None))
        flags = SYN | (ACK if ack else 0)
        self.stats["segments_sent"] += 1
        return Segment(self.local_port, self.remote_port, self.iss, self._wire_ack() if ack else 0,
                       flags, min(MAX_WINDOW_UNSCALED, self.cfg.rcv_buffer), tuple(opts))

    def _make(self, off: int, payload: bytes, flags: int, opts: tuple | None = None,
              reserved: int = 0) -> Segment:
        """A segment of ours at offset ``off`` (``opts`` None: the timestamp option if in
        use): what _wire_seq, _wire_ack, _window_field and _ts_opts compute, inline (this runs
        for every segment sent)."""
        self.stats["segments_sent"] += 1
        rcv = self.rcv
        if rcv is not None:
            ack = (self.irs + rcv.rcv_nxt) % SEQ_MOD
            win = rcv.window >> self.rcv_wscale
        else:
            ack = 0
            win = self.cfg.rcv_buffer >> self.rcv_wscale
        if win > MAX_WINDOW_UNSCALED:
            win = MAX_WINDOW_UNSCALED
        return Segment(self.local_port, self.remote_port, (self.iss + off) % SEQ_MOD, ack,
                       flags | ACK, win,
                       opts if opts is not None else (self._ts_opts() if self.ts_ok else ()),
                       payload, reserved)

    def _ack_segment(self) -> Segment:
        """A pure ACK with SACK/DSACK blocks and, on RD-TCP flows, the reorder bit."""
        self._ack_due = None
        self._unacked_segments = 0
        opts = self._ts_opts()
        if self.sack_ok and self.rcv is not None and (self.rcv.ooo or self.rcv.dsack):
            limit = MAX_SACK_BLOCKS_WITH_TS if self.ts_ok else MAX_SACK_BLOCKS
            blocks = self.rcv.sack_blocks(limit)
            if blocks:
                irs = self.irs
                wire = tuple(((irs + s) % SEQ_MOD, (irs + e) % SEQ_MOD) for s, e in blocks)
                opts = opts + (("NOP", None), ("NOP", None), ("SAck", wire))
        reserved = 0
        if self.rdtcp_ok and self.policy.ack_reorder_bit(self.rcv):
            reserved = REORDER_BIT
            self.stats["reorder_acks_sent"] += 1
        return self._make(self.snd_nxt, b"", 0, opts, reserved)

    # ------------------------------------------------------------------ input
    def on_segment(self, seg: Segment, *, now: float) -> list[Segment]:
        self._now = now
        self.stats["segments_received"] += 1
        if self.state == CLOSED:
            return []
        if self.state == LISTEN:
            return self._on_listen(seg, now)
        if self.state == SYN_SENT:
            return self._on_syn_sent(seg, now)
        return self._on_synchronized(seg, now)

    def _negotiate(self, seg: Segment) -> None:
        """Options of the peer's SYN or SYN-ACK (RFC 9293 §3.7.1, RFC 2018 §2, RFC 7323)."""
        peer_mss = DEFAULT_PEER_MSS
        peer_ws = None
        for name, value in seg.options:
            if name == "MSS":
                peer_mss = value
            elif name == "SAckOK":
                self.sack_ok = self.cfg.sack
            elif name == "WScale":
                peer_ws = min(value, 14)        # RFC 7323 §2.3: larger values are 14
            elif name == "Timestamp":
                self.ts_ok = self.cfg.timestamps
                self._ts_recent = value[0]
            elif name == "RDTCPOK":
                self.rdtcp_ok = self.cfg.rdtcp
        self._peer_wscale = peer_ws
        if peer_ws is not None and self.cfg.window_scale is not None:
            self.snd_wscale, self.rcv_wscale = peer_ws, self.cfg.window_scale
        self.mss = max(64, min(self.cfg.mss, peer_mss))
        if self.ts_ok:
            # the MSS counts data only, every segment now carries a 12-byte timestamp option:
            # Eff.snd.MSS subtracts the options sent (RFC 9293 §3.7.1, RFC 6691 §2), or a
            # full segment would exceed the MTU (Linux's mss_cache: 1448 with timestamps)
            self.mss -= TIMESTAMP_OPTION_BYTES
        if self.rdtcp_ok:
            self.mss -= RDTCP_MSS_REDUCTION     # design.md: room for a 12-byte EPDN stamp
        self.cwnd = min(self.initial_window(), self._max_cwnd())

    def initial_window(self) -> int:
        """IW in bytes: the configured segments, else RFC 5681 §3.1's by SMSS."""
        iw = self.cfg.initial_window_segments
        return iw * self.mss if iw else _initial_window(self.mss)

    def _max_cwnd(self) -> int:
        return self.cfg.max_cwnd_segments * self.mss

    def _on_listen(self, seg: Segment, now: float) -> list[Segment]:
        if seg.flags & RST:
            return []
        if seg.flags & ACK:
            # RFC 9293 §3.10.7.2: an ACK to a listener is answered with a reset
            return [Segment(self.local_port, self.remote_port, seg.ack, 0, RST)]
        if not seg.flags & SYN:
            return []
        self.irs = seg.seq
        self.rcv = Receiver(1, self.cfg.rcv_buffer)
        self._negotiate(seg)
        self.snd_wnd = seg.window        # RFC 7323 §2.2: a SYN's window is never scaled
        self.state = SYN_RCVD
        self.snd_nxt = self.snd_max = 1
        self._syn_sent_at = now
        self._arm_rto(now)
        return [self._syn(ack=True)]

    def _on_syn_sent(self, seg: Segment, now: float) -> list[Segment]:
        if seg.flags & ACK and seq_sub(seg.ack, self._wire_seq(1)) != 0:
            if seg.flags & RST:
                return []
            return [Segment(self.local_port, self.remote_port, seg.ack, 0, RST)]
        if seg.flags & RST:
            if seg.flags & ACK:
                return self._abort("reset by peer")
            return []
        if not seg.flags & SYN:
            return []
        self.irs = seg.seq
        self.rcv = Receiver(1, self.cfg.rcv_buffer)
        self._negotiate(seg)
        if not seg.flags & ACK:
            return []                           # simultaneous open: not modelled
        self.snd_una = 1
        self.snd_wnd = seg.window
        self._rto_sample_syn(now)
        self.state = ESTABLISHED
        self._trace("established", mss=self.mss, sack=self.sack_ok, rdtcp=self.rdtcp_ok)
        return [self._ack_segment()] + self._transmit(now)

    def _rto_sample_syn(self, now: float) -> None:
        if self._retries == 0 and self._syn_sent_at is not None:
            self.rtt.sample(now - self._syn_sent_at)
        self._retries = 0
        self._rto_at = None

    def _abort(self, why: str) -> list[Segment]:
        self.state = CLOSED
        self.error = why
        self._rto_at = self._ack_due = self._time_wait_until = None
        self._trace("abort", reason=why)
        return []

    def _acceptable(self, seg: Segment, start: int) -> bool:
        """RFC 9293 §3.10.7.4 segment acceptability test (window of the receiver)."""
        rcv = self.rcv
        nxt = rcv.rcv_nxt
        wnd = rcv.window or 1           # a zero window still accepts the segment at RCV.NXT's edge
        length = seg.seg_len or 1
        return start < nxt + wnd and start + length > nxt

    def _on_synchronized(self, seg: Segment, now: float) -> list[Segment]:
        rcv = self.rcv
        start = rcv.rcv_nxt + seq_sub(seg.seq, self._wire_ack())
        if seg.flags & RST:
            return self._on_rst(start)
        if seg.flags & SYN:
            if self.state == SYN_RCVD and start == 0:
                return [self._syn(ack=True)]    # our SYN-ACK was lost: the peer repeats its SYN
            self.stats["challenge_acks"] += 1   # RFC 9293 §3.10.7.4 (RFC 5961 §4)
            return [self._ack_segment()]
        if not seg.flags & ACK:
            return []
        if not self._acceptable(seg, start):
            if seg.seg_len and start + seg.seg_len <= rcv.rcv_nxt:
                rcv.dsack = (max(start, 1), start + len(seg.payload)) if seg.payload else None
            return [self._ack_segment()]        # RFC 9293 §3.10.7.4: ACK and drop
        out: list[Segment] = []
        if self.state == SYN_RCVD:
            if seq_sub(seg.ack, self._wire_seq(1)) != 0:
                return [Segment(self.local_port, self.remote_port, seg.ack, 0, RST)]
            self.snd_una = 1
            self._rto_sample_syn(now)
            self.state = ESTABLISHED
            self._trace("established", mss=self.mss, sack=self.sack_ok, rdtcp=self.rdtcp_ok)
        if self.ts_ok:
            ts = seg.option("Timestamp")
            if ts is not None and start <= rcv.rcv_nxt and seq_geq(ts[0], self._ts_recent):
                self._ts_recent = ts[0]         # RFC 7323 §4.3 (2): never backwards
        ack_out = self._on_ack(seg, now)
        if ack_out is None:
            return [self._ack_segment()]        # ACK of unsent data (RFC 9293 §3.10.7.4)
        if seg.payload or seg.flags & FIN:
            out += self._on_data(seg, start, now)
        out += ack_out
        out += self._transmit(now)
        return out

    def _on_rst(self, start: int) -> list[Segment]:
        """RFC 9293 §3.10.7.4 / RFC 5961 §3: reset only on an exact match, challenge if in window."""
        rcv = self.rcv
        if start == rcv.rcv_nxt:
            return self._abort("reset by peer")
        if rcv.rcv_nxt <= start < rcv.rcv_nxt + max(rcv.window, 1):
            self.stats["challenge_acks"] += 1
            return [self._ack_segment()]
        return []

    # ------------------------------------------------------------------ receiving data
    def _on_data(self, seg: Segment, start: int, now: float) -> list[Segment]:
        rcv = self.rcv
        payload = seg.payload
        end = start + len(payload)
        if payload and start < 1:                  # bytes before the first data byte: trim
            payload = payload[1 - start:]
            start = 1
        fin = self._peer_fin if self._peer_fin is not None else self._peer_fin_at
        if payload and fin is not None and end > fin:
            # no data follows the peer's FIN: RFC 9293 §3.10.7.4 (seventh step) ignores the text
            # of segments after it (CLOSE-WAIT and later), and a FIN still beyond a hole ends
            # the stream where it stands; the segment is acknowledged as a duplicate would be
            payload = payload[:max(0, fin - start)]
            end = start + len(payload)
            if not payload:
                return [self._ack_segment()]
        stamp = self._epdn_of(seg, start, end) if payload else None
        if payload:
            self.policy.on_data(rcv, start, end, stamp)
            how = rcv.on_data(start, payload)
        else:
            how = "in-order"
        if seg.flags & FIN and end >= rcv.rcv_nxt and self._peer_fin is None \
                and self._peer_fin_at is None:
            # a FIN beyond a hole is kept, like its data, until the hole fills (RFC 9293
            # §3.10.7.4: segments are processed in sequence; dropping it would leave the sender
            # to repair it by RTO, since no SACK block can cover a FIN)
            self._peer_fin = end
        if self._peer_fin is not None and self._peer_fin == rcv.rcv_nxt:
            self._peer_fin_at, self._peer_fin = self._peer_fin, None
            rcv.rcv_nxt += 1                        # the FIN takes one sequence number
            self._on_fin(now)
            return [self._ack_segment()]
        if not payload:
            return []
        # RFC 5681 §4.2: ACK out-of-order, duplicate and hole-filling data at once; otherwise
        # every segment (delayed ACKs off, as in the paper's ns-2 runs) or every second one
        self._unacked_segments += 1
        if (not self.cfg.delayed_ack or how != "in-order" or self._unacked_segments >= 2):
            return [self._ack_segment()]
        if self._ack_due is None:
            self._ack_due = now + self.cfg.delayed_ack_timeout
        return []

    def _epdn_of(self, seg: Segment, start: int, end: int):
        """The EPDN stamp of ``seg`` as unwrapped offsets, or None (logged when ignored)."""
        stamp = seg.option("EPDN")
        if stamp is None:
            return None
        if seg.options[0][0] != "EPDN":
            # Trust boundary (design.md, docs/architecture.md §4): a gateway always inserts EPDN
            # as the first option, and edge gateways strip only that position, so an EPDN option
            # further in was put there by a host and is not evidence of a drop.
            self.stats["epdn_ignored"] += 1
            self._trace("epdn-ignored", reason="EPDN is not the first option", stamp=stamp)
            return None
        if not self.rdtcp_ok:
            self.stats["epdn_ignored"] += 1
            self._trace("epdn-ignored", reason="flow did not negotiate RD-TCP", stamp=stamp)
            return None
        base = self._wire_ack()
        lo = self.rcv.rcv_nxt + seq_sub(stamp[0], base)
        hi = self.rcv.rcv_nxt + seq_sub(stamp[1], base)
        limit = self.rcv.rcv_nxt + self.cfg.rcv_buffer + len(seg.payload)
        if lo > hi or lo < 1 or hi > limit:
            self.stats["epdn_ignored"] += 1
            self._trace("epdn-ignored", reason="range reversed or outside the window", stamp=stamp)
            return None
        self.stats["epdn_stamps"] += 1
        return (lo, hi)

    def _on_fin(self, now: float) -> None:
        if self.state == ESTABLISHED:
            self.state = CLOSE_WAIT
        elif self.state == FIN_WAIT_1:
            self.state = CLOSING
        elif self.state == FIN_WAIT_2:
            self._enter_time_wait(now)

    def _enter_time_wait(self, now: float) -> None:
        self.state = TIME_WAIT
        self._rto_at = None
        self._time_wait_until = now + self.cfg.time_wait

    # ------------------------------------------------------------------ ACK processing
    def _on_ack(self, seg: Segment, now: float) -> list[Segment] | None:
        """Cumulative ACK, SACK/DSACK blocks, window; None when it acknowledges unsent data."""
        ack = self.snd_una + seq_sub(seg.ack, self._wire_seq(self.snd_una))
        if ack > self.snd_max:
            return None
        if ack < self.snd_una:
            return []                               # old ACK: nothing new (RFC 9293 §3.10.7.4)
        prior_wnd = self.snd_wnd
        self.snd_wnd = seg.window << self.snd_wscale
        new_sack = self._on_sack_blocks(seg) if self.sack_ok else False
        prior_una = self.snd_una
        if ack > prior_una:
            self._on_new_ack(ack, now)
        elif self._is_dupack(seg, new_sack, prior_wnd):
            self._on_dupack(seg)
        if (self.in_recovery or self.in_loss) and new_sack and self.policy.dupthresh_loss_marking:
            self._mark_lost()
        self.policy.on_ack(self, seg, prior_una)
        if self.state in (FIN_WAIT_1, CLOSING, LAST_ACK) and self._fin_at is not None \
                and self.snd_una > self._fin_at:
            self._on_fin_acked(now)
        return []

    def _is_dupack(self, seg: Segment, new_sack: bool, prior_wnd: int) -> bool:
        """Whether an ACK that does not advance SND.UNA is a duplicate ACK.

        With SACK, RFC 6675 §2: an ACK "carrying a SACK block that identifies previously
        unacknowledged and un-SACKed octets", whatever its window; a DSACK alone reports
        nothing new. Without SACK, RFC 5681 §2: (a) data outstanding, (b) no data, (c) neither
        SYN nor FIN, (d) the acknowledgment number unchanged (the caller's test) and (e) the
        advertised window unchanged: a window update is not a duplicate ACK."""
        if self.sack_ok:
            return new_sack and self.snd_max > self.snd_una
        return (not seg.payload and not seg.flags & (SYN | FIN)
                and self.snd_max > self.snd_una and self.snd_wnd == prior_wnd)

    def _on_new_ack(self, ack: int, now: float) -> None:
        acked = ack - self.snd_una
        self._rtt_sample(ack, now)
        self._trim_acked(ack)
        self.snd_una = ack
        self.stats["bytes_acked"] += acked
        self.dupacks = 0
        self._lt_mark = None
        partial = self.in_recovery and not self.sack_ok and ack < self.recovery_point
        if partial:
            # the segments between the holes that drew duplicate ACKs (counted as gone from the
            # network) are now acked: they leave the count, the rest still stand for segments
            # that arrived above the next hole (RFC 6582 §3.2 step 5's deflation, in pipe terms)
            self._reno_dupacks = max(0, self._reno_dupacks - (acked // self.mss - 1))
        else:
            self._reno_dupacks = 0
        self._retries = 0
        self.policy.on_new_ack(self)
        if self.in_recovery or self.in_loss:
            if ack >= self.recovery_point:
                self._exit_recovery()
            elif partial and self.cfg.partial_ack == "newreno" \
                    and self.policy.retransmit_on_partial_ack(self):
                # RFC 6582 §3.2 step 5: retransmit the first unacknowledged segment now
                # (partial_ack "wait": no retransmission, the next hole waits for the RTO; a
                # variant may defer it, Net Reno's reordering guard, 002 §5.3)
                self._mark_head_lost()
                self._force_head = True
        if not self.in_recovery:
            self._grow_cwnd(acked)
        # RFC 6298 (5.2)/(5.3): stop the timer when all is acked, else restart it
        self._rto_at = None
        if self.snd_max > self.snd_una:
            self._arm_rto(now)

    def _grow_cwnd(self, acked: int) -> None:
        if self.cwnd < self.ssthresh:
            self.cwnd += min(acked, self.mss)       # RFC 5681 §3.1 equation (2)
        else:
            self.cwnd += max(1, self.mss * self.mss // self.cwnd)   # RFC 5681 §3.1 equation (3)
        self.cwnd = min(self.cwnd, self._max_cwnd())

    def _exit_recovery(self) -> None:
        if self.in_recovery and not self._recovery_undone:
            self.cwnd = min(self.ssthresh, self._max_cwnd())    # RFC 6582 §3.2 step 4 / RFC 6675
        self.in_recovery = self.in_loss = False
        self._trace("recovery-exit", cwnd=self.cwnd)

    def _on_dupack(self, seg: Segment) -> None:
        self.dupacks += 1
        if self.dupacks == 1 and not self.in_recovery and not self.in_loss:
            self._lt_mark = self.snd_max            # what follows is limited transmit
        if seg.reorder and self.rdtcp_ok:
            self.stats["reorder_dupacks_received"] += 1
        if not self.sack_ok:
            self._reno_dupacks += 1                 # each dupack: a segment left the network
        self.policy.on_dupack(self, seg, self.dupacks)
        if not self.in_recovery and not self.in_loss and self.policy.should_fast_retransmit(self, self.dupacks):
            if not self.sack_ok and self.cfg.partial_ack == "newreno" \
                    and self.snd_una <= self.recovery_point:
                # RFC 6582 §3.2 step 2: duplicate ACKs whose cumulative ACK does not cover more
                # than "recover" may come from the last recovery's retransmissions: no new one
                return
            self._enter_recovery()

    def _enter_recovery(self) -> None:
        """Fast retransmit and fast recovery: RFC 6675 §5 steps (4.1)-(4.3), RFC 5681 eq. (4)."""
        prior_cwnd, prior_ssthresh = self.cwnd, self.ssthresh
        self.policy.on_enter_recovery(self, prior_cwnd, prior_ssthresh)
        self.recovery_point = self.snd_max
        flight = self.flight_size
        self.ssthresh = self.policy.ssthresh_after_loss(self)   # RFC 5681 eq. (4) by default
        self.cwnd = self.ssthresh
        self.in_recovery = True
        self._recovery_undone = False
        self.stats["fast_retransmits"] += 1
        self._trace("fast-retransmit", snd_una=self.snd_una, dupacks=self.dupacks,
                    dupthresh=self.policy.dupthresh, flight=flight, ssthresh=self.ssthresh,
                    prior_cwnd=prior_cwnd)
        if self.policy.dupthresh_loss_marking:
            self._mark_head_lost()
            self._mark_lost()
        self._force_head = True

    # ------------------------------------------------------------------ the scoreboard
    def _live(self):
        return self._segs[self._head:]

    def _trim_acked(self, ack: int) -> None:
        segs, i = self._segs, self._head
        while i < len(segs) and segs[i][_E] <= ack:
            r = segs[i]
            self._uncount(r)
            if self._deliveries and not r[_SACKED]:
                self.policy.on_delivered(self, r[_S], r[_E], r[_SENT_AT], r[_TX])
            i += 1
        if i < len(segs) and segs[i][_S] < ack:     # partly acked (peer's window edge)
            r = segs[i]
            self._uncount(r)
            r[_S] = ack
            r[_SACKED] = r[_LOST] = r[_RETRANS] = False
        self._head = i
        if i > 1024 and i * 2 > len(segs):
            del segs[:i]
            self._head = 0
            self._lost_hint = 0
        self._high_sacked = max(self._high_sacked, ack)
        self._buf.release(ack)                      # acknowledged bytes leave the send buffer

    def _uncount(self, r: list) -> None:
        n = r[_E] - r[_S]
        if r[_SACKED]:
            self._sacked_out -= n
        else:
            if r[_LOST]:
                self._lost_out -= n
            if r[_RETRANS]:
                self._retrans_out -= n

    def _on_sack_blocks(self, seg: Segment) -> bool:
        blocks = seg.option("SAck")
        if not blocks:
            return False
        base = self._wire_seq(self.snd_una)
        parsed = [(self.snd_una + seq_sub(l, base), self.snd_una + seq_sub(r, base))
                  for l, r in blocks]
        first = parsed[0]
        # RFC 2883 §4: the first block is a DSACK when it lies below the cumulative ACK or
        # inside the second block
        ack = self.snd_una + seq_sub(seg.ack, base)
        if first[0] < ack or (len(parsed) > 1 and parsed[1][0] <= first[0] and first[1] <= parsed[1][1]):
            self._on_dsack(*first)
            parsed = parsed[1:]
        news = False
        for left, right in parsed:
            if left >= right or left < self.snd_una or right > self.snd_max:
                continue                            # a block we cannot use (RFC 2018 §8)
            news |= self._mark_sacked(left, right)
        return news

    def _mark_sacked(self, left: int, right: int) -> bool:
        segs = self._segs
        lo, hi = self._head, len(segs)
        while lo < hi:                              # first segment ending after `left`
            mid = (lo + hi) // 2
            if segs[mid][_E] <= left:
                lo = mid + 1
            else:
                hi = mid
        news = False
        for i in range(lo, len(segs)):
            r = segs[i]
            if r[_S] >= right:
                break
            if r[_SACKED] or r[_S] < left or r[_E] > right:
                continue
            n = r[_E] - r[_S]
            if r[_LOST]:
                self._lost_out -= n
            if r[_RETRANS]:
                self._retrans_out -= n
            r[_SACKED] = True
            self._sacked_out += n
            news = True
            if r[_E] > self._high_sacked:
                self._high_sacked = r[_E]
            if self._deliveries:
                self.policy.on_delivered(self, r[_S], r[_E], r[_SENT_AT], r[_TX])
        return news

    def _on_dsack(self, start: int, end: int) -> None:
        retransmitted = self._was_retransmitted(start, end)
        if retransmitted:
            self.stats["spurious_retransmits"] += 1
        self._trace("dsack", start=start, end=end, retransmitted=retransmitted)
        self.policy.on_dsack(self, start, end, retransmitted)

    def _was_retransmitted(self, start: int, end: int) -> bool:
        """Whether [start, end) overlaps a range we sent more than once (recent history)."""
        return any(s < end and e > start for s, e in reversed(self._retx_history))

    def _remember_retransmission(self, start: int, end: int) -> None:
        self._retx_history.append((start, end))
        if len(self._retx_history) > 4096:
            del self._retx_history[:2048]

    def _mark_head_lost(self) -> None:
        """The first unacknowledged segment is to be sent (again): an RTO, a fast retransmit, a
        NewReno partial ACK. A retransmission of it still counted in flight is lost too (it was
        due before the timer fired), so it goes out once more."""
        if self._head < len(self._segs):
            r = self._segs[self._head]
            if r[_SACKED]:
                return
            self._set_lost(r)
            self._lost_hint = self._head

    def _set_lost(self, r: list) -> None:
        """Segment ``r`` (not SACKed) is to be sent again: lost, and a retransmission of it
        still counted in flight is lost with it."""
        n = r[_E] - r[_S]
        if r[_RETRANS]:
            r[_RETRANS] = False
            self._retrans_out -= n
        if not r[_LOST]:
            r[_LOST] = True
            self._lost_out += n

    def _mark_lost(self) -> None:
        """RFC 6675 §4 IsLost: an unSACKed segment with DupThresh SACKed segments above it."""
        thresh = self.policy.dupthresh
        above = 0
        segs = self._segs
        for i in range(len(segs) - 1, self._head - 1, -1):
            r = segs[i]
            if r[_SACKED]:
                above += 1
            elif above >= thresh and not r[_LOST] and not r[_RETRANS]:
                r[_LOST] = True
                self._lost_out += r[_E] - r[_S]
        self._lost_hint = self._head

    def _pipe(self) -> int:
        """RFC 6675 §4 SetPipe: bytes believed in the network (NewReno: dupacks as SACKs)."""
        pipe = self.flight_size - self._sacked_out - self._lost_out + self._retrans_out
        if not self.sack_ok:
            pipe -= self._reno_dupacks * self.mss
        return pipe if pipe > 0 else 0

    # ------------------------------------------------------------------ RTT, RTO
    def _rtt_sample(self, ack: int, now: float) -> None:
        """RFC 6298 §3: time the newest fully acked segment that was sent once (Karn); with
        per-flight sampling, the one segment being timed, once it is acked (BSD's t_rtt)."""
        if self._per_flight:
            r = self._timed
            if r is not None and r[_E] <= ack:
                self._timed = None
                if r[_TX] == 1:
                    self.rtt.sample(now - r[_SENT_AT], snd_una=ack, snd_nxt=self.snd_nxt)
            return
        segs = self._segs
        i = self._head
        newest = None
        while i < len(segs) and segs[i][_E] <= ack:
            if segs[i][_TX] == 1 and not segs[i][_SACKED]:
                newest = segs[i]
            i += 1
        if newest is not None:
            self.rtt.sample(now - newest[_SENT_AT], snd_una=ack, snd_nxt=self.snd_nxt)

    def _arm_rto(self, now: float) -> None:
        if self._rto_at is None:
            self._rto_at = now + self.rtt.rto

    def on_timer(self, *, now: float) -> list[Segment]:
        self._now = now
        out: list[Segment] = []
        if self._time_wait_until is not None and now >= self._time_wait_until:
            self._time_wait_until = None
            self.state = CLOSED
            return []
        if self._ack_due is not None and now >= self._ack_due:
            out.append(self._ack_segment())         # RFC 5681 §4.2 delayed-ACK timer
        if self._rto_at is not None and now >= self._rto_at:
            out += self._on_rto(now)
        elif self.policy_deadline is not None and now >= self.policy_deadline:
            self.policy_deadline = None             # one shot: the variant re-arms it
            if self.state in _SYNCHRONIZED:
                out += self.policy.on_deadline(self, now)
                out += self._transmit(now)
        return out

    def _on_rto(self, now: float) -> list[Segment]:
        self._rto_at = None
        self._retries += 1
        if self._retries > self.cfg.max_retries:
            return self._abort("timed out")
        self.rtt.on_timeout()                                   # RFC 6298 (5.5)
        self.stats["timeouts"] += 1
        if self.state in (SYN_SENT, SYN_RCVD):
            self._arm_rto(now)
            return [self._syn(ack=self.state == SYN_RCVD)]
        if self.snd_max <= self.snd_una:
            return []
        if not self.in_recovery and not self.in_loss and self.policy.timeout_enters_recovery(self):
            # the variant reads this expiry as a loss to repair by fast recovery (RD-TCP,
            # 003 §3.1: the timer ran out while waiting for 3+k dupacks), not as an RTO: the
            # backed-off timer stays (RFC 6298 (5.5)), the window is halved, not collapsed
            self.policy.on_timeout(self)
            self._trace("timeout", snd_una=self.snd_una, rto=self.rtt.rto, recovery=True)
            self._enter_recovery()
            return self._transmit(now)
        self.policy.on_timeout(self)
        if not self.in_loss:
            ssthresh = self.policy.ssthresh_after_loss(self)        # RFC 5681 eq. (4) by default
            if self.in_recovery and not self._recovery_undone:
                # The RTO ends a fast recovery that already cut ssthresh for this loss event:
                # keep that cut (as Linux's tcp_enter_loss does in Recovery). FlightSize has
                # grown during the recovery by SACKed data and new segments, so eq. (4) alone
                # would *raise* ssthresh, while RFC 5681 §3.1 allows "no more than" eq. (4).
                ssthresh = min(ssthresh, self.ssthresh)
            self.ssthresh = ssthresh
        self.cwnd = self.mss                                    # RFC 5681 §3.1: loss window
        self.in_recovery = False
        self.in_loss = True
        self.recovery_point = self.snd_max
        self.dupacks = self._reno_dupacks = 0
        if self.policy.timeout_retransmits_all(self):
            self._mark_all_lost()
        else:
            self._mark_head_lost()      # F-RTO (RFC 5682 §3 step 1): the timed-out segment only
        self._trace("timeout", snd_una=self.snd_una, rto=self.rtt.rto, ssthresh=self.ssthresh,
                    flight=self.flight_size)
        self._force_head = True
        out = self._transmit(now)
        if self._rto_at is None and self.snd_max > self.snd_una:
            self._arm_rto(now)          # RFC 6298 (5.1): the timer runs while data is outstanding
        return out

    def mark_all_lost(self, *, cwnd_cap: int | None = None) -> None:
        """Variant hook target (F-RTO, RFC 5682): go on with the conventional recovery of a
        timeout that retransmitted its first segment only: every unSACKed segment is lost,
        cwnd at most ``cwnd_cap``."""
        self._mark_all_lost()
        if cwnd_cap is not None:
            self.cwnd = max(self.mss, min(self.cwnd, cwnd_cap))

    @property
    def unsent(self) -> int:
        """Bytes the application has written that were never sent."""
        return self._app_end - self.snd_max

    def highest_sacked(self) -> int:
        """The end of the highest data ever SACKed, or SND.UNA when that is beyond it."""
        return max(self._high_sacked, self.snd_una)

    @property
    def sacked_out(self) -> int:
        """Bytes above SND.UNA the peer has SACKed (RFC 6675's SACKed segments, in bytes)."""
        return self._sacked_out

    def enter_recovery(self) -> None:
        """Variant hook target (RACK, RFC 8985 §6.2 step 5; TLP): losses the variant marked
        start fast recovery now (cwnd reduction, RecoveryPoint), unless a recovery already runs."""
        if not self.in_recovery and not self.in_loss:
            self._enter_recovery()

    def reduce_window(self) -> None:
        """Variant hook target (TLP, RFC 8985 §7.4.2): a probe repaired a loss: the congestion
        response of a fast recovery entered and left at once (ssthresh as the variant's
        reduction, cwnd no larger)."""
        self.ssthresh = self.policy.ssthresh_after_loss(self)
        self.cwnd = max(self.mss, min(self.cwnd, self.ssthresh))
        self._trace("window-reduced", cwnd=self.cwnd, ssthresh=self.ssthresh)

    def retransmit_head(self) -> None:
        """Variant hook target (Net Reno, 002 §5.3 and §6.2): the first unacknowledged segment
        is lost (again, if its retransmission is still counted in flight): it goes out on this
        event's transmission whatever pipe says, as a NewReno partial ACK's retransmission does
        (RFC 6582 §3.2 step 5). Nothing happens when it is SACKed or nothing is outstanding."""
        if self._head < len(self._segs) and not self._segs[self._head][_SACKED]:
            self._mark_head_lost()
            self._force_head = True

    def carry_dupacks(self, n: int) -> None:
        """Variant hook target (Net Reno's small-window rule, 002 §4.2): after a cumulative ACK
        outside any recovery, the next unacknowledged segment counts as having drawn ``n``
        duplicate ACKs already (``dupacks`` = n, so the next duplicate ACK is the (n+1)th);
        without SACK each also stands for a segment gone from the network, as a duplicate ACK
        does (pipe). Data sent since is limited transmit for ssthresh only if the variant says
        so (its ``ssthresh_after_loss``)."""
        if not self.in_recovery and not self.in_loss and n > 0:
            self.dupacks = n
            if not self.sack_ok:
                self._reno_dupacks = n

    @property
    def pipe(self) -> int:
        """RFC 6675 §4 SetPipe, in bytes: what the engine believes is in the network (without
        SACK each duplicate ACK counts as a segment gone)."""
        return self._pipe()

    def restart_rto(self) -> None:
        """Variant hook target (TLP, RFC 8985 §7.3): re-arm the retransmission timer from now."""
        self._rto_at = None
        if self.snd_max > self.snd_una:
            self._arm_rto(self._now)

    @property
    def rto_deadline(self) -> float | None:
        """When the retransmission timer expires, or None when it is not armed."""
        return self._rto_at

    def mark_lost_by_send_time(self, xmit_ts: float, end_seq: int,
                               window: float) -> tuple[int, float]:
        """Variant hook target, RACK's loss rule (RFC 8985 §6.2 step 5): mark lost every
        outstanding segment (not SACKed, not already marked lost and unsent since) that was sent
        before the delivered segment sent at ``xmit_ts`` and ending at ``end_seq``, and at least
        ``window`` seconds before now (``window`` = RACK.rtt + RACK.reo_wnd: the segment's
        delivery is overdue by more than the reordering window). Returns how many segments it
        marked and how many seconds until the next of the others qualifies (0.0 if none: the
        reordering timer).

        Scans in sequence order and stops at the first segment sent only once that was sent
        after (xmit_ts, end_seq): original transmissions go out in sequence order and a later
        transmission only makes a segment later, so every segment beyond it is later too."""
        now = self._now
        timeout = 0.0
        marked = 0
        segs = self._segs
        for i in range(self._head, len(segs)):
            r = segs[i]
            sent = r[_SENT_AT]
            if sent > xmit_ts or (sent == xmit_ts and r[_E] > end_seq):
                if r[_TX] == 1:
                    break
                continue                            # retransmitted after it: not overdue
            if r[_SACKED] or (r[_LOST] and not r[_RETRANS]):
                continue
            remaining = sent + window - now
            if remaining <= 0:
                n = r[_E] - r[_S]
                if r[_RETRANS]:                     # a retransmission lost again
                    r[_RETRANS] = False
                    self._retrans_out -= n
                if not r[_LOST]:                    # (a lost segment sent again stays LOST)
                    r[_LOST] = True
                    self._lost_out += n
                marked += 1
            elif remaining > timeout:
                timeout = remaining
        if marked:
            self._lost_hint = self._head
            self._trace("marked-lost", count=marked, rule="send-time")
        return marked, timeout

    def send_probe(self, now: float) -> Segment | None:
        """Variant hook target, TLP's probe (RFC 8985 §7.3): one new segment if the application
        and the peer's window allow, whatever cwnd says, else the highest-sequence segment sent
        so far again; a FIN alone is passed over for the data below it, since a FIN beyond a
        hole draws no ACK (it waits unSACKed, see _on_data). None when nothing can be sent."""
        self._now = now
        if self.snd_max <= self.snd_una:
            return None
        start, retransmission = self.snd_nxt, False
        seg = self._new_data(now)
        if seg is None:
            for i in range(len(self._segs) - 1, self._head - 1, -1):
                r = self._segs[i]
                if not r[_SACKED] and r[_S] != self._fin_at:
                    start, retransmission = r[_S], True
                    seg = self._retransmit(r, now)
                    break
        if seg is not None:
            self.stats["loss_probes"] += 1
            self._trace("loss-probe", start=start, retransmission=retransmission)
        return seg

    def _mark_all_lost(self) -> None:
        """After an RTO every unSACKed segment is retransmitted in slow start (RFC 6675 §5.1)."""
        for r in self._live():
            if not r[_SACKED]:
                self._set_lost(r)
        self._lost_hint = self._head

    # ------------------------------------------------------------------ output
    def _transmit(self, now: float) -> list[Segment]:
        """Send what cwnd, the peer's window and the scoreboard allow (RFC 6675 §5 NextSeg)."""
        out: list[Segment] = []
        if self._force_head:
            # RFC 6675 (4.3) / RFC 6298 (5.4): the first lost segment goes out regardless of pipe
            self._force_head = False
            r = self._next_lost()
            if r is not None:
                out.append(self._retransmit(r, now))
        while True:
            room = self.cwnd - self._pipe()
            if room < self.mss and not (room > 0 and self._app_end - self.snd_nxt < self.mss):
                break
            r = self._next_lost() if (self.in_recovery or self.in_loss) else None
            if r is not None:
                out.append(self._retransmit(r, now))
                continue
            seg = self._new_data(now)
            if seg is None:
                break
            out.append(seg)
        if self.in_loss:
            # F-RTO (RFC 5682 §3 step 2b): new segments beyond cwnd to probe the timeout
            for _ in range(self.policy.new_data_allowance(self)):
                seg = self._new_data(now)
                if seg is None:
                    break
                out.append(seg)
        if self._fin_pending and self.snd_nxt == self._app_end and self.state in (ESTABLISHED, CLOSE_WAIT):
            out.append(self._send_fin(now))
        if out:
            self._arm_rto(now)
        return out

    def _next_lost(self):
        segs = self._segs
        for i in range(max(self._head, self._lost_hint), len(segs)):
            r = segs[i]
            if r[_LOST] and not r[_RETRANS] and not r[_SACKED]:
                self._lost_hint = i
                return r
        self._lost_hint = len(segs)
        return None

    def _retransmit(self, r: list, now: float) -> Segment:
        n = r[_E] - r[_S]
        r[_RETRANS] = True
        self._retrans_out += n
        r[_TX] += 1
        r[_SENT_AT] = now
        self.stats["retransmits"] += 1
        self._remember_retransmission(r[_S], r[_E])
        self.policy.on_retransmit(self, r[_S], r[_E])
        self._trace("retransmit", start=r[_S], end=r[_E])
        if self._fin_at is not None and r[_S] == self._fin_at:
            return self._make(r[_S], b"", FIN)
        return self._make(r[_S], self._payload(r[_S], r[_E]), 0)

    def _payload(self, start: int, end: int) -> bytes:
        return self._buf.read(start, end)

    def _new_data(self, now: float) -> Segment | None:
        if self.snd_nxt >= self._app_end:
            return None
        wnd_edge = self.snd_una + self.snd_wnd
        n = min(self.mss, self._app_end - self.snd_nxt, wnd_edge - self.snd_nxt)
        if n <= 0:
            return None
        start = self.snd_nxt
        r = [start, start + n, False, False, False, now, 1]
        self._segs.append(r)
        if self._per_flight and self._timed is None:
            self._timed = r                         # time this one; the next after its ACK
        self.snd_nxt = self.snd_max = start + n
        return self._make(start, self._payload(start, start + n), 0)

    def _send_fin(self, now: float) -> Segment:
        self._fin_pending = False
        self._fin_at = self.snd_nxt
        self._segs.append([self._fin_at, self._fin_at + 1, False, False, False, now, 1])
        self.snd_nxt = self.snd_max = self._fin_at + 1
        self.state = FIN_WAIT_1 if self.state == ESTABLISHED else LAST_ACK
        return self._make(self._fin_at, b"", FIN)

    def _on_fin_acked(self, now: float) -> None:
        if self.state == FIN_WAIT_1:
            self.state = FIN_WAIT_2
        elif self.state == CLOSING:
            self._enter_time_wait(now)
        elif self.state == LAST_ACK:
            self.state = CLOSED
            self._rto_at = None
