"""The trace: frames in, connections out, in one pass.

``Analyzer.feed(time, frame)`` takes the frames of a capture in order; every TCP connection
(four-tuple, a new one when a SYN with another initial sequence number reuses it after a
quiet second) gets a ``Flow`` per direction (analyzer/flow.py). A connection is finished, its
flows summarised and its memory released, when both FINs are acknowledged, on a RST in its
window, or at the end of the trace.
Frames that are not TCP are counted; frames that claim to be but cannot be read are counted as
malformed and skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analyzer.flow import Flow, Nic
from analyzer.frames import MalformedFrame, NotTcp, parse_frame
from analyzer.profiles import DEFAULT_PROFILES, get_profiles
from analyzer.report import flow_summary

__all__ = ["AnalyzerConfig", "Analyzer", "VANTAGES"]

SYN, FIN, RST, ACK = 0x02, 0x01, 0x04, 0x10
VANTAGES = ("sender", "path")
_CLOSED_MEMORY = 65536          # finished four-tuples remembered, to ignore their stragglers
_REUSE_AFTER = 1.0              # seconds of silence before a new SYN may reuse a four-tuple
_RST_WINDOW = 1 << 20           # a RST this far from the sender's next byte is not believed


@dataclass(frozen=True)
class AnalyzerConfig:
    """How to read a trace. ``vantage``: "sender" when the capture is at the data sender's
    interface (every ACK seen reached it, nothing is reordered before the capture), "path"
    when it is somewhere between sender and receiver (004 §3.1.2's monitor). The fractions
    and the DSACK horizon are TCPdebug's 0.75 and our own choices, documented in
    analyzer/README.md."""

    vantage: str = "sender"
    profiles: tuple = DEFAULT_PROFILES
    rdtcp_k: int = 3
    reorder_fraction: float = 0.75      # 004 §3.1 rule (i): of the minimum RTT
    unneeded_fraction: float | None = None  # of the minimum RTT (None: 1 at the sender,
    #                                         TCPdebug's 0.75 on the path; analyzer/flow.py)
    response_slack: float = 0.001       # sender vantage: time the sender may take to react
    dsack_horizon: float = 3.0          # seconds a retransmitted segment waits for a DSACK
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
        object.__setattr__(self, "sender_profiles",
                           get_profiles(self.profiles, rdtcp_k=self.rdtcp_k))


class Connection:
    __slots__ = ("cid", "flows", "ends", "negotiated", "subrtt_set", "fins")

    def __init__(self, cid: int, a: tuple, b: tuple, config: AnalyzerConfig, sink, nics):
        self.cid = cid
        self.ends = (a, b)
        profiles = config.sender_profiles
        self.flows = {a: Flow(cid, a, b, profiles, config, sink),
                      b: Flow(cid, b, a, profiles, config, sink)}
        if nics is not None:
            for end, flow in self.flows.items():
                flow.nic = nics.get(end[0])
                if flow.nic is None:
                    flow.nic = nics[end[0]] = Nic()
        self.negotiated = False
        self.fins = False                   # a FIN was seen: check for the end
        self.subrtt_set = config.vantage != "path"

    def syn_verdict(self, end: tuple, isn: int, now: float) -> str:
        """What a SYN (no ACK) from ``end`` with ``isn`` is: "same" (this connection's SYN,
        or its resend), "new" (the four-tuple reused after the connection went quiet), or
        "stray" (a SYN with another ISN in the middle of a live connection: ignored, as a
        receiver would not let it reset the connection, RFC 5961 §4)."""
        flow = self.flows[end]
        if not flow.started or (flow.handshake and flow.base == isn and flow.snd_una == 0):
            return "same"
        last = max((f.last_time for f in self.flows.values() if f.last_time is not None),
                   default=None)
        return "new" if last is None or now - last >= _REUSE_AFTER else "stray"

    def resets(self, end: tuple, seq: int) -> bool:
        """Whether a RST from ``end`` ends the connection: its sequence number must be in
        the window the sender was using (RFC 5961 §3: a receiver ignores others)."""
        flow = self.flows[end]
        if not flow.started:
            return True
        return abs(flow.offset(seq, flow.snd_max) - flow.snd_max) <= _RST_WINDOW

    def negotiate(self) -> None:
        """SACK, timestamps and RD-TCP are in use when both SYNs offered them (RFC 2018 §2,
        RFC 7323 §3.2, design.md); a side whose SYN was not captured leaves them unknown."""
        a, b = self.flows.values()
        if not (a.handshake and b.handshake) or self.negotiated:
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
        other side's sub-RTT, added to its RTT samples (004 §3.1.2, [AKSJ03])."""
        a, b = self.flows.values()
        if a.min_rtt is not None and b.min_rtt is not None:
            a.subrtt, b.subrtt = b.min_rtt, a.min_rtt
            self.subrtt_set = True

    @property
    def done(self) -> bool:
        a, b = self.flows.values()
        return a.done and b.done


class Analyzer:
    """Feed it the frames of a trace in order, then call ``finish`` for the report (a dict,
    analyzer/report.py). ``on_record(flow, record)`` is called for every segment whose history
    is final (the CSV writer)."""

    def __init__(self, config: AnalyzerConfig | None = None, *, on_record=None):
        self.config = config or AnalyzerConfig()
        self.sink = on_record
        self.conns: dict = {}
        self.closed: dict = {}
        # sender vantage: each host's transmit queue, as its frames show it (flow.Nic)
        self.nics: dict | None = {} if self.config.vantage == "sender" else None
        self.summaries: list[dict] = []
        self.next_id = 1
        self.frames = 0
        self.tcp = 0
        self.non_tcp = 0
        self.malformed = 0
        self.malformed_examples: list[str] = []
        self.stragglers = 0
        self.ignored = 0                # SYNs and RSTs that cannot belong (see Connection)
        self.last_time: float | None = None
        self.out_of_order_times = 0

    def feed(self, time: float, data: bytes, orig_len: int | None = None) -> None:
        self.frames += 1
        if self.last_time is not None and time < self.last_time:
            self.out_of_order_times += 1        # TCPdebug needs time-sorted traces (004 §1.2)
        self.last_time = time
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
        if self.nics is not None:
            nic = self.nics.get(pkt.src)
            if nic is None:
                nic = self.nics[pkt.src] = Nic()
            nic.on_frame(time, len(data) if orig_len is None else orig_len)
        a = (pkt.src, pkt.sport)
        b = (pkt.dst, pkt.dport)
        key = (a, b) if a < b else (b, a)
        conn = self.conns.get(key)
        flags = pkt.flags
        if flags & SYN and not flags & ACK:
            verdict = conn.syn_verdict(a, pkt.seq, time) if conn is not None else "new"
            if verdict == "stray":
                self.ignored += 1
                return
            if verdict == "new" and conn is not None:
                self._close(key, conn)
                conn = None
            self.closed.pop(key, None)
        elif conn is None and key in self.closed:
            self.stragglers += 1                # a late packet of a finished connection
            return
        if conn is None:
            conn = self.conns[key] = Connection(self.next_id, a, b, self.config, self.sink,
                                                self.nics)
            self.next_id += 1
        src = conn.flows[a]
        dst = conn.flows[b]
        if flags & ACK:
            dst.on_ack(time, pkt)
        if flags & SYN:
            src.on_syn(time, pkt)
            conn.negotiate()
        else:
            src.on_data(time, pkt)
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

    def _close(self, key, conn: Connection) -> None:
        del self.conns[key]
        if len(self.closed) >= _CLOSED_MEMORY:
            self.closed.clear()
        self.closed[key] = True
        self._summarise(conn)

    def _summarise(self, conn: Connection) -> None:
        for flow in conn.flows.values():
            flow.finish()
            if flow.data_bytes or flow.oos or flow.syn_retransmissions:
                self.summaries.append(flow_summary(flow))

    def finish(self) -> dict:
        """Finish every connection still open and return the report."""
        for key, conn in list(self.conns.items()):
            del self.conns[key]
            self._summarise(conn)
        self.summaries.sort(key=lambda s: (s["connection"], s["first_time"] or 0.0))
        return {
            "vantage": self.config.vantage,
            "profiles": {p.name: p.description for p in self.config.sender_profiles},
            "frames": self.frames, "tcp_frames": self.tcp, "non_tcp_frames": self.non_tcp,
            "malformed_frames": self.malformed, "malformed_examples": self.malformed_examples,
            "frames_out_of_time_order": self.out_of_order_times,
            "stragglers": self.stragglers, "ignored_syn_rst": self.ignored,
            "flows": self.summaries,
        }
