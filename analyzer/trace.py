"""The trace: frames in, connections out, in one pass.

``Analyzer.feed(time, frame)`` takes the frames of a capture in order; every TCP connection
(four-tuple, a new one when a SYN with another initial sequence number reuses it after a
quiet second) gets a ``Flow`` per direction that sends (analyzer/flow.py). A connection is
finished, its flows summarised and its memory released, when both FINs are acknowledged, on a
RST in its window, when it has been idle for ``AnalyzerConfig.idle_timeout``, or at the end of
the trace; its summaries go to ``on_flow`` as they are made (kept for the report only when
no one takes them), so memory follows the connections open at once, not the trace.
Frames that are not TCP are counted; frames that claim to be but cannot be read are counted as
malformed and skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analyzer.flow import Flow, Nic
from analyzer.frames import MalformedFrame, NotTcp, parse_frame
from analyzer.profiles import DEFAULT_PROFILES, get_profiles
from analyzer.report import flow_summary
from analyzer.series import SeriesRecorder

__all__ = ["AnalyzerConfig", "Analyzer", "VANTAGES"]

SYN, FIN, RST, ACK = 0x02, 0x01, 0x04, 0x10
VANTAGES = ("sender", "path")
_CLOSED_MEMORY = 65536          # finished four-tuples remembered, to ignore their stragglers
_REUSE_AFTER = 1.0              # seconds of silence before a new SYN may reuse a four-tuple
_RST_WINDOW = 1 << 20           # a RST this far from the sender's next byte is not believed
# a connection silent this long is finished: longer than any profile's largest backed-off RTO
# (120 s, Linux's TCP_RTO_MAX) so a connection still retransmitting is never cut, and as long as
# Zeek's default TCP inactivity timeout (5 min); a later packet of it starts a new connection
IDLE_TIMEOUT = 300.0


@dataclass(frozen=True)
class AnalyzerConfig:
    """How to read a trace. ``vantage``: "sender" when the capture is at the data sender's
    interface (every ACK seen reached it, nothing is reordered before the capture), "path"
    when it is somewhere between sender and receiver ([TCPDEBUG] §3.1.2's monitor). The fractions
    and the DSACK horizon are TCPdebug's 0.75 and our own choices, documented in
    analyzer/README.md."""

    vantage: str = "sender"
    profiles: tuple = DEFAULT_PROFILES
    rdtcp_k: int = 3
    reorder_fraction: float = 0.75      # [TCPDEBUG] §3.1 rule (i): of the minimum RTT
    unneeded_fraction: float | None = None  # of the minimum RTT (None: 1 at the sender,
    #                                         TCPdebug's 0.75 on the path; analyzer/flow.py)
    response_slack: float = 0.001       # sender vantage: time the sender may take to react
    dsack_horizon: float = 3.0          # seconds a retransmitted segment waits for a DSACK
    idle_timeout: float = IDLE_TIMEOUT  # seconds of silence that finish a connection
    sender_profiles: tuple = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self):
        if self.vantage not in VANTAGES:
            raise ValueError(f"unknown vantage {self.vantage!r}; choose from "
                             f"{', '.join(VANTAGES)}")
        if self.rdtcp_k < 0:
            raise ValueError(f"RD-TCP's k must be >= 0, got {self.rdtcp_k}")
        for name in ("reorder_fraction", "unneeded_fraction"):
            if getattr(self, name) is not None and not 0 < getattr(self, name) <= 10:
                raise ValueError(f"{name} must be in (0, 10], got {getattr(self, name)}")
        if self.response_slack < 0 or self.dsack_horizon <= 0:
            raise ValueError("response_slack must be >= 0 and dsack_horizon > 0")
        if not self.idle_timeout > 0:       # also refuses nan
            raise ValueError(f"idle_timeout must be > 0 seconds, got {self.idle_timeout}")
        object.__setattr__(self, "sender_profiles",
                           get_profiles(self.profiles, rdtcp_k=self.rdtcp_k))


class Connection:
    """Both directions of one connection. A direction's flow is made when that end first
    sends something a flow records (a SYN, data, a FIN): most of a server's flows carry only
    ACKs, which its peer's flow takes."""

    __slots__ = ("cid", "ends", "flows", "negotiated", "subrtt_set", "fins", "last_time",
                 "_config", "_sink", "_nics", "_on_series")

    def __init__(self, cid: int, a: tuple, b: tuple, config: AnalyzerConfig, sink, nics,
                 on_series=None):
        self.cid = cid
        self.ends = (a, b)
        self.flows: dict = {}
        self._config, self._sink, self._nics = config, sink, nics
        self._on_series = on_series
        self.negotiated = False
        self.fins = False                   # a FIN was seen: check for the end
        self.subrtt_set = config.vantage != "path"
        self.last_time = 0.0

    def flow(self, end: tuple) -> Flow:
        """The flow of the data ``end`` sends, made on first use."""
        flow = self.flows.get(end)
        if flow is None:
            a, b = self.ends
            other = b if end == a else a
            config = self._config
            flow = self.flows[end] = Flow(self.cid, end, other, config.sender_profiles,
                                          config, self._sink)
            if self._nics is not None:
                flow.nic = self._nics.get(end[0])
            if self._on_series is not None:
                flow.series = SeriesRecorder(flow)
        return flow

    def syn_verdict(self, end: tuple, isn: int, now: float) -> str:
        """What a SYN (no ACK) from ``end`` with ``isn`` is: "same" (this connection's SYN,
        or its resend), "new" (the four-tuple reused after the connection went quiet), or
        "stray" (a SYN with another ISN in the middle of a live connection: ignored, as a
        receiver would not let it reset the connection, RFC 5961 §4)."""
        flow = self.flows.get(end)
        if flow is None or not flow.started \
                or (flow.handshake and flow.base == isn and flow.snd_una == 0):
            return "same"
        last = max((f.last_time for f in self.flows.values() if f.last_time is not None),
                   default=None)
        return "new" if last is None or now - last >= _REUSE_AFTER else "stray"

    def resets(self, end: tuple, seq: int) -> bool:
        """Whether a RST from ``end`` ends the connection: its sequence number must be in
        the window the sender was using (RFC 5961 §3: a receiver ignores others)."""
        flow = self.flows.get(end)
        if flow is None or not flow.started:
            return True
        return abs(flow.offset(seq, flow.snd_max) - flow.snd_max) <= _RST_WINDOW

    def negotiate(self) -> None:
        """SACK, timestamps and RD-TCP are in use when both SYNs offered them (RFC 2018 §2,
        RFC 7323 §3.2, docs/architecture.md §4); a side whose SYN was not captured leaves them unknown."""
        if self.negotiated or len(self.flows) < 2:
            return
        a, b = self.flows.values()
        if not (a.handshake and b.handshake):
            return
        self.negotiated = True
        names_a = {n for n, _ in a.syn_options}
        names_b = {n for n, _ in b.syn_options}
        for attr, name in (("sack", "SAckOK"), ("timestamps", "Timestamp"),
                           ("rdtcp", "RDTCPOK")):
            both = name in names_a and name in names_b
            setattr(a, attr, both)
            setattr(b, attr, both)

    def after_handshake(self) -> None:
        """At a path vantage each side's SYN round trip (vantage -> peer -> vantage) is the
        other side's sub-RTT, added to its RTT samples ([TCPDEBUG] §3.1.2, [AKSJ03])."""
        if len(self.flows) < 2:
            return
        a, b = self.flows.values()
        if a.min_rtt is not None and b.min_rtt is not None:
            a.subrtt, b.subrtt = b.min_rtt, a.min_rtt
            self.subrtt_set = True

    @property
    def done(self) -> bool:
        """Both ends' FINs sent and acknowledged (a direction that never sent is not done)."""
        return len(self.flows) == 2 and all(f.done for f in self.flows.values())


class Analyzer:
    """Feed it the frames of a trace in order, then call ``finish`` for the report (a dict,
    analyzer/report.py). ``on_record(flow, record)`` is called for every segment whose history
    is final (the CSV writer); ``on_flow(summary)`` for every flow's summary as its connection
    finishes (then the report's ``flows`` is empty: the caller has them); ``on_series(series)``
    with every flow's RTT series (analyzer/series.py) when its connection finishes."""

    def __init__(self, config: AnalyzerConfig | None = None, *, on_record=None, on_flow=None,
                 on_series=None):
        self.config = config or AnalyzerConfig()
        self.sink = on_record
        self.on_flow = on_flow
        self.on_series = on_series
        self.conns: dict = {}
        self.closed: dict = {}
        # sender vantage: each host's transmit queue, as its frames show it (flow.Nic), kept
        # while the host has a connection open
        self.nics: dict | None = {} if self.config.vantage == "sender" else None
        self.nic_users: dict = {}
        self.summaries: list[dict] = []
        self.next_id = 1
        self.frames = 0
        self.tcp = 0
        self.non_tcp = 0
        self.malformed = 0
        self.malformed_examples: list[str] = []
        self.stragglers = 0
        self.ignored = 0                # SYNs and RSTs that cannot belong (see Connection)
        self.idle_closed = 0            # connections finished by the idle timeout
        self.flows_reported = 0
        self.last_time: float | None = None
        self.out_of_order_times = 0
        self._next_sweep = None         # when to look for idle connections next

    @property
    def open_connections(self) -> int:
        """Connections whose state is held now."""
        return len(self.conns)

    def feed(self, time: float, data: bytes, orig_len: int | None = None) -> None:
        self.frames += 1
        if self.last_time is not None and time < self.last_time:
            self.out_of_order_times += 1        # TCPdebug needs time-sorted traces ([TCPDEBUG] §1.2)
        self.last_time = time
        if self._next_sweep is None:
            self._next_sweep = time + self.config.idle_timeout / 4
        elif time >= self._next_sweep:
            self._close_idle(time)
        try:
            pkt = parse_frame(data, len(data) if orig_len is None else orig_len)
        except NotTcp:
            self.non_tcp += 1
            return
        except MalformedFrame as exc:
            self.malformed += 1
            if len(self.malformed_examples) < 3:
                self.malformed_examples.append(f"frame {self.frames}: {exc}")
            return
        self.tcp += 1
        a = (pkt.src, pkt.sport)
        b = (pkt.dst, pkt.dport)
        key = (a, b) if a < b else (b, a)
        conn = self.conns.get(key)
        flags = pkt.flags
        if flags & SYN and not flags & ACK:
            verdict = conn.syn_verdict(a, pkt.seq, time) if conn is not None else "new"
            if verdict == "stray":
                self.ignored += 1
                self._note_frame(pkt.src, time, data, orig_len)
                return
            if verdict == "new" and conn is not None:
                self._close(key, conn)
                conn = None
            self.closed.pop(key, None)
        elif conn is None and key in self.closed:
            self.stragglers += 1                # a late packet of a finished connection
            self._note_frame(pkt.src, time, data, orig_len)
            return
        if conn is None:
            conn = self.conns[key] = Connection(self.next_id, a, b, self.config, self.sink,
                                                self.nics, self.on_series)
            self.next_id += 1
            if self.nics is not None:
                for end in (a, b):
                    users = self.nic_users
                    users[end[0]] = users.get(end[0], 0) + 1
                    if end[0] not in self.nics:
                        self.nics[end[0]] = Nic()
        conn.last_time = time
        self._note_frame(pkt.src, time, data, orig_len)
        length = pkt.length
        if flags & ACK:
            dst = conn.flows.get(b)
            if dst is not None:
                dst.on_ack(time, pkt)
        if flags & SYN:
            conn.flow(a).on_syn(time, pkt)
            conn.negotiate()
        elif length or flags & FIN:
            conn.flow(a).on_data(time, pkt)
        if not conn.subrtt_set:
            conn.after_handshake()
        if flags & FIN:
            conn.fins = True
        if flags & RST:
            if conn.resets(a, pkt.seq):
                self._close(key, conn)
            else:
                self.ignored += 1
        elif conn.fins and conn.done:
            self._close(key, conn)

    def _note_frame(self, src: int, time: float, data: bytes, orig_len) -> None:
        """The sending host's interface sees the frame (sender vantage, flow.Nic)."""
        if self.nics is not None:
            nic = self.nics.get(src)
            if nic is not None:
                nic.on_frame(time, len(data) if orig_len is None else orig_len)

    def _close_idle(self, now: float) -> None:
        """Finish the connections silent for the idle timeout (memory is released with them;
        a later packet of one starts a new connection, as a capture that begins mid-way)."""
        timeout = self.config.idle_timeout
        idle = [(key, conn) for key, conn in self.conns.items()
                if now - conn.last_time >= timeout]
        for key, conn in idle:
            self.idle_closed += 1
            self._close(key, conn, remember=False)
        self._next_sweep = now + timeout / 4

    def _close(self, key, conn: Connection, *, remember: bool = True) -> None:
        del self.conns[key]
        if remember:
            if len(self.closed) >= _CLOSED_MEMORY:
                self.closed.clear()
            self.closed[key] = True
        if self.nics is not None:
            for end in conn.ends:
                left = self.nic_users[end[0]] - 1
                if left:
                    self.nic_users[end[0]] = left
                else:                   # no connection of this host is open: forget it
                    del self.nic_users[end[0]]
                    self.nics.pop(end[0], None)
        self._summarise(conn)

    def _summarise(self, conn: Connection) -> None:
        for flow in conn.flows.values():
            flow.finish()
            if flow.series is not None:
                if flow.data_bytes:
                    self.on_series(flow.series.result())
                flow.series = None
            if flow.data_bytes or flow.oos or flow.syn_retransmissions:
                summary = flow_summary(flow)
                self.flows_reported += 1
                if self.on_flow is not None:
                    self.on_flow(summary)
                else:
                    self.summaries.append(summary)

    def finish(self) -> dict:
        """Finish every connection still open and return the report (its ``flows``: every
        flow's summary in connection order, unless ``on_flow`` took them)."""
        for key, conn in list(self.conns.items()):
            del self.conns[key]
            self._summarise(conn)
        self.nics = {} if self.nics is not None else None
        self.nic_users = {}
        self.summaries.sort(key=lambda s: (s["connection"], s["first_time"] or 0.0))
        return {
            "vantage": self.config.vantage,
            "profiles": {p.name: p.description for p in self.config.sender_profiles},
            "frames": self.frames, "tcp_frames": self.tcp, "non_tcp_frames": self.non_tcp,
            "malformed_frames": self.malformed, "malformed_examples": self.malformed_examples,
            "frames_out_of_time_order": self.out_of_order_times,
            "stragglers": self.stragglers, "ignored_syn_rst": self.ignored,
            "connections": self.next_id - 1, "connections_idle_closed": self.idle_closed,
            "flows_reported": self.flows_reported,
            "flows": self.summaries,
        }
