"""A network built the way ns-2 builds one, for the engine to run ns-2's scenarios.

ns-2's model (the ns Manual, ch. "Links: Simple Links" and "Queue Management"; ch. "Trace and
Monitoring Support" for the trace): nodes route every packet along fewest hops; a simplex link
is a queue feeding a transmitter of ``bandwidth`` bits/s and a propagation delay; a duplex link
is two. A packet handed to a link passes the link's error module first (an error model bound to
its flow may drop it, or hold it back for a while: ``delay_pkt_``), is enqueued (trace ``+``),
and, when the transmitter is free, dequeued (``-``); its transmission takes 8·size/bandwidth
seconds, after which the next packet is dequeued, and it arrives at the far node (``r``)
``delay`` later. A drop-tail queue of limit L refuses (``d``) a packet when it already holds
L - 1 waiting ones, so at most L are in the link, the one on the wire included. Packet sizes are
the IP datagrams' lengths (ns-2's links have no link-layer header).

Here the hosts' TCP is the engine (``hosts.tcp.TcpConnection``) behind ``sim.hostnode.HostNode``
endpoints, so the frames are the real Ethernet/IPv4/TCP frames of ``netbase.wire``; a link charges
their IP length. ``NsNetwork.trace`` is the run's trace in ns-2's format (``trace_lines``), each
packet written as ns-2 would write the packet of a one-way agent: ``tcp`` for the sender's
segments, ``ack`` for the receiver's (and for the sender's own pure ACKs), SEQNO the packet
number (the SYN is packet 0 when the flow has one, the first data packet follows it) or, on an
ACK, the highest packet received in order.

Times given to the API are ns-2 times. A flow that starts without a SYN (ns-2's ``syn_ false``)
is one the engine opens beforehand: ``NsNetwork(preopen=T)`` runs the whole simulation ``T``
seconds later than ns-2's clock, opens such flows at its own time 0 and has their application
start writing at the flow's start time; the trace shows only ns-2's times from 0 on.
"""

from __future__ import annotations

import random
import re
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

from hosts.tcp import TcpConnection
from netbase import wire
from netbase.segment import ACK, SYN
from netbase.seq import SEQ_MOD
from sim.events import EventQueue
from sim.flows import BulkSink, BulkSource
from sim.hostnode import HostNode

__all__ = ["NsNetwork", "SimplexLink", "ListErrorModel", "PeriodicErrorModel",
           "RateErrorModel", "NsFlow",
           "parse_ns_bandwidth", "parse_ns_time", "ETH_HEADER"]

ETH_HEADER = 14                 # the simulated frames' Ethernet header, not on ns-2's links
# ns-2's SACK sink sizes an ACK as the 40-byte header plus 8 bytes per SACK block (its traces
# show 48 and 56 bytes); the option's two NOPs, kind and length (RFC 2018 §3) are not counted
SACK_OPTION_OVERHEAD = 4
# with timestamps_ ns-2 counts ts_option_size_ (10 bytes, the option without the two NOPs of
# RFC 7323's layout) in a data packet's header, and its sinks send ACKs of their packetSize_, 40
# bytes, that echo the timestamp in a header field of their own, so no option on the wire
TS_OPTION_SIZE = 10
TS_OPTION_BYTES = 12            # the engine's option: NOP, NOP, kind 8 length 10 (RFC 7323 §3)
DEFAULT_QUEUE_LIMIT = 50        # ns-2: Queue set limit_ 50
TCP_PORT_BASE = 10000           # an agent's ns-2 port p is TCP port 10000 + p here

_BW = re.compile(r"^\s*([0-9.eE+-]+)\s*([kKmMgG]?)([bB]?)\s*$")
_TIME = re.compile(r"^\s*([0-9.eE+-]+)\s*(s|ms|us|ns|ps)?\s*$")


def parse_ns_bandwidth(text: str | float) -> float:
    """Bits/s from ns-2's notation ("800Kb", "1.5Mb", "10Mb"; K, M, G are powers of 1000, a
    trailing B means bytes)."""
    if isinstance(text, (int, float)):
        return float(text)
    m = _BW.match(text)
    if not m:
        raise ValueError(f"cannot read bandwidth {text!r}: expected e.g. 800Kb or 1.5Mb")
    value = float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]
    value *= 8 if m.group(3) == "B" else 1
    if not value > 0:
        raise ValueError(f"bandwidth must be positive, got {text!r}")
    return value


def parse_ns_time(text: str | float) -> float:
    """Seconds from ns-2's notation ("100ms", "5ms", "0.1")."""
    if isinstance(text, (int, float)):
        return float(text)
    m = _TIME.match(text)
    if not m:
        raise ValueError(f"cannot read time {text!r}: expected e.g. 100ms or 0.1")
    value = float(m.group(1)) * {None: 1, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9,
                                 "ps": 1e-12}[m.group(2)]
    if value < 0:
        raise ValueError(f"time must be >= 0, got {text!r}")
    return value


@dataclass
class Packet:
    """A frame on ns-2's links with the fields ns-2's trace shows."""
    frame: bytes
    size: int               # IP length
    kind: str               # "tcp" or "ack"
    fid: int
    src: str                # "node.port"
    dst: str
    seqno: int
    uid: int
    to_node: int            # the node it is addressed to
    early: bool = False     # sent before ns-2's clock starts (a preopened flow's handshake)
    data: bool = False      # carries data (a "tcp" packet that is not the SYN)


class ListErrorModel:
    """ns-2's ErrorModel/List: the packets of its flow entering the link are counted from 0;
    those whose count is on ``droplist`` are dropped (or, with ``delay``, held back that long
    before they reach the queue: ``delay_pkt_`` / ``delay_``)."""

    def __init__(self, droplist, *, delay: float | None = None):
        self.droplist = sorted(int(n) for n in droplist)
        self.delay = delay
        self.count = 0
        self._next = 0

    def corrupt(self, pkt: Packet) -> bool:
        hit = self._next < len(self.droplist) and self.droplist[self._next] == self.count
        if hit:
            self._next += 1
        self.count += 1
        return hit


class PeriodicErrorModel:
    """ns-2's ErrorModel/Periodic in packets: after ``offset`` packets, every ``period``-th
    packet of its flow is dropped (``first``, ``last``: counts between which it acts)."""

    def __init__(self, *, period: int, offset: int = 0, delay: float | None = None):
        if period < 1:
            raise ValueError(f"period must be >= 1, got {period}")
        self.period, self.offset, self.delay = period, offset, delay
        self.count = 0

    def corrupt(self, pkt: Packet) -> bool:
        self.count += 1
        n = self.count - self.offset
        return n >= 1 and (n - 1) % self.period == 0 if self.offset else \
            self.count % self.period == 0


class RateErrorModel:
    """ns-2's ErrorModel in packets (``unit pkt``, ``rate_``): each packet of its flow is hit
    with probability ``rate``, drawn from its own random stream; a hit is dropped, or with
    ``delay`` held back that long (``delay_pkt_``). ``frames`` limits it to data packets
    ("data") or pure ACKs ("acks"), as a model placed where only those pass would be."""

    def __init__(self, rate: float, *, seed: int, delay: float | None = None,
                 frames: str | None = None):
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate must be a probability in [0, 1], got {rate}")
        if frames not in (None, "data", "acks"):
            raise ValueError(f"frames must be data or acks, got {frames!r}")
        self.rate, self.delay, self.frames = rate, delay, frames
        self.rng = random.Random(seed)
        self.hits = 0

    def corrupt(self, pkt: "Packet") -> bool:
        if self.frames == "data" and not pkt.data or self.frames == "acks" and pkt.kind != "ack":
            return False
        hit = self.rng.random() < self.rate
        self.hits += hit
        return hit


class SimplexLink:
    """One direction of an ns-2 link: error module, drop-tail queue, transmitter, delay."""

    def __init__(self, net: "NsNetwork", a: int, b: int, *, bandwidth: float, delay: float,
                 limit: int = DEFAULT_QUEUE_LIMIT):
        self.net, self.a, self.b = net, a, b
        self.bandwidth, self.delay, self.limit = bandwidth, delay, limit
        self.queue: deque[Packet] = deque()
        self.busy = False
        # error modules, first one first: (fid, model), ns-2's ErrorModule Fid with one model
        self.errors: list[tuple[int, Any]] = []
        self.drops = 0
        # models after the transmitter, in order: a hit holds the packet back (ns-2's
        # insert-linkloss with delay_pkt_): it arrives later, behind packets sent after it
        self.after: list[Any] = []

    def recv(self, pkt: Packet, first: int = 0) -> None:
        """A packet handed to the link: through its error modules (from ``first`` on), then
        into the queue."""
        errors = () if pkt.early else self.errors
        for i in range(first, len(errors)):
            fid, model = errors[i]
            if fid == pkt.fid and model.corrupt(pkt):
                if model.delay is None:
                    self.net.trace("d", self, pkt)
                    self.drops += 1
                else:           # held back, then on to what follows this module
                    self.net.events.schedule(self.net.events.now + model.delay,
                                             lambda p, i=i: self.recv(p, i + 1), pkt)
                return
        self.enqueue(pkt)

    def enqueue(self, pkt: Packet) -> None:
        net = self.net
        net.trace("+", self, pkt)
        if len(self.queue) + 1 >= self.limit:
            net.trace("d", self, pkt)
            self.drops += 1
            return
        self.queue.append(pkt)
        if not self.busy:
            self._transmit()

    def _transmit(self, _arg: Any = None) -> None:
        if not self.queue:
            self.busy = False
            return
        pkt = self.queue.popleft()
        net = self.net
        net.trace("-", self, pkt)
        self.busy = True
        events = net.events
        now = events.now
        txt = 8.0 * pkt.size / self.bandwidth
        extra = 0.0
        lost = False
        if self.after and not pkt.early:
            for model in self.after:
                if model.corrupt(pkt):
                    if model.delay is None:
                        lost = True         # lost on the link, after its transmission
                        break
                    extra += model.delay
        if lost:
            net.trace("d", self, pkt)
            self.drops += 1
        else:
            events.schedule(now + (txt + self.delay) + extra, self._arrive, pkt)
        events.schedule(now + txt, self._transmit)

    def _arrive(self, pkt: Packet) -> None:
        self.net.trace("r", self, pkt)
        self.net.deliver(self.b, pkt)


class _NodePort:
    """What a node's agents send through: the node routes each frame onto a link."""

    def __init__(self, net: "NsNetwork", node: int):
        self.net, self.node = net, node

    def send(self, frame: bytes, now: float) -> None:
        self.net.originate(self.node, frame)


@dataclass
class NsFlow:
    """One ns-2 agent pair (sender and sink) run by the engine."""
    fid: int
    src: int
    dst: int
    sender: TcpConnection
    receiver: TcpConnection
    source: BulkSource
    sink: BulkSink
    mss: int
    syn: bool
    src_port: int           # ns-2 ports
    dst_port: int
    started: bool = False

    def packet_number(self, offset: int) -> int:
        """ns-2's number of the data packet starting at sequence offset ``offset`` (>= 1)."""
        return (offset - 1) // self.mss + (1 if self.syn else 0)


class _GatedSource(BulkSource):
    """A bulk source that writes nothing before its flow's start time (preopened flows)."""

    def __init__(self, limit: int | None, flow_ref: list):
        super().__init__(limit)
        self._flow_ref = flow_ref

    def pump(self, conn: Any, now: float) -> list:
        flow = self._flow_ref[0] if self._flow_ref else None
        if flow is None or not flow.started:
            return []
        return super().pump(conn, now)


class NsNetwork:
    """Nodes, links, routes and flows of one ns-2-style scenario run by the engine."""

    def __init__(self, *, preopen: float = 0.0, trace: bool = True):
        if preopen < 0:
            raise ValueError(f"preopen must be >= 0 seconds, got {preopen}")
        self.events = EventQueue()
        self.offset = preopen
        self.nodes: list[str] = []                  # node id -> IPv4 address
        self.hosts: dict[int, HostNode] = {}
        self.links: dict[tuple[int, int], SimplexLink] = {}
        self.flows: list[NsFlow] = []
        self.trace_lines: list[str] | None = [] if trace else None
        self.event_lines: list[str] = []            # the agents' "E" lines
        self._by_addr: dict[tuple[str, int, str, int], tuple[NsFlow, bool]] = {}
        self._ip_node: dict[str, int] = {}
        self._next_hop: dict[tuple[int, int], int] = {}
        self._ports: dict[int, int] = {}
        self._uid = 0

    # ---------------------------------------------------------------- building
    def node(self) -> int:
        n = len(self.nodes)
        ip = f"10.{n // 250}.{n % 250}.1"
        self.nodes.append(ip)
        self._ip_node[ip] = n
        self._next_hop.clear()
        return n

    def duplex_link(self, a: int, b: int, bandwidth: str | float, delay: str | float,
                    limit: int = DEFAULT_QUEUE_LIMIT) -> None:
        bw, d = parse_ns_bandwidth(bandwidth), parse_ns_time(delay)
        for x, y in ((a, b), (b, a)):
            self.links[(x, y)] = SimplexLink(self, x, y, bandwidth=bw, delay=d, limit=limit)
        self._next_hop.clear()

    def link(self, a: int, b: int) -> SimplexLink:
        try:
            return self.links[(a, b)]
        except KeyError:
            raise ValueError(f"no link from node {a} to node {b}") from None

    def queue_limit(self, a: int, b: int, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"queue limit must be >= 1, got {limit}")
        self.link(a, b).limit = int(limit)

    def set_delay(self, a: int, b: int, delay: str | float) -> None:
        self.link(a, b).delay = parse_ns_time(delay)

    def error_model(self, a: int, b: int, fid: int, model: Any) -> None:
        """Bind ``model`` to flow ``fid`` on link a -> b in a new error module at the link's
        head, before those added earlier (ns-2's ``$link errormodule``: add-to-head)."""
        self.link(a, b).errors.insert(0, (fid, model))

    def tcp(self, src: int, dst: int, fid: int, configs: Any, *, start: float,
            limit: int | None = None,
            events: dict[str, tuple[str, ...]] | None = None) -> NsFlow:
        """An ns-2 sender at node ``src`` and its sink at ``dst`` (``create-connection``),
        its application starting at ``start`` (FTP: unbounded; ``limit``: that many bytes).
        ``configs`` is a ``hosts.tcp.ns2.Ns2Configs``. ``events`` names the ns-2 agent events
        (``eventtrace-all``'s E lines) each engine trace event writes, e.g. {"timeout":
        ("TIMEOUT", "SLOW_START")}."""
        sport, dport = self._port(src), self._port(dst)
        a, b = self._host(src), self._host(dst)
        ref: list = []
        tracer = self._event_tracer(ref, events) if events else None
        client = TcpConnection(configs.sender, local_port=TCP_PORT_BASE + sport,
                               remote_port=TCP_PORT_BASE + dport, iss=0, tracer=tracer)
        server = TcpConnection(configs.receiver, local_port=TCP_PORT_BASE + dport,
                               remote_port=TCP_PORT_BASE + sport, iss=0)
        server.listen()
        source = _GatedSource(limit, ref)
        sink = BulkSink()
        # a packet's data: the MSS less the timestamp option the engine carries in it
        data = configs.sender.mss - (TS_OPTION_BYTES if configs.sender.timestamps else 0)
        flow = NsFlow(fid, src, dst, client, server, source, sink, data, configs.syn, sport,
                      dport)
        ref.append(flow)
        ep_a = a.add_endpoint(client, local_port=TCP_PORT_BASE + sport, remote_ip=b.ip,
                              remote_port=TCP_PORT_BASE + dport, app=source)
        b.add_endpoint(server, local_port=TCP_PORT_BASE + dport, remote_ip=a.ip,
                       remote_port=TCP_PORT_BASE + sport, app=sink)
        self.flows.append(flow)
        self._by_addr[(a.ip, TCP_PORT_BASE + sport, b.ip, TCP_PORT_BASE + dport)] = (flow, True)
        self._by_addr[(b.ip, TCP_PORT_BASE + dport, a.ip, TCP_PORT_BASE + sport)] = (flow, False)
        begin = self.offset + start

        def open_(_):
            ep_a.emit(client.connect(now=self.events.now), self.events.now)

        def start_(_):
            flow.started = True
            ep_a.emit([], self.events.now)
        if configs.syn:
            flow.started = True
            self.events.schedule(begin, open_)
        else:
            if self.offset <= 0:
                raise ValueError("a flow without a SYN needs NsNetwork(preopen=...) seconds "
                                 "to open the engine's connection before ns-2's clock starts")
            self.events.schedule(0.0, open_)
            self.events.schedule(begin, start_)
        return flow

    def _event_tracer(self, ref: list, events: dict[str, tuple[str, ...]]):
        """The engine tracer writing an agent's E lines: ``E TIME SRC DST TCP EVENT FID SEQNO
        CWND``, SEQNO the next new packet, CWND in packets (before a reduction)."""
        def tracer(event: str, conn: Any, fields: dict) -> None:
            names = events.get(event)
            t = self.events.now - self.offset
            if not names or t < 0 or self.trace_lines is None:
                return
            flow = ref[0]
            seqno = flow.packet_number(conn.snd_max)
            cwnd = fields.get("prior_cwnd", conn.cwnd) // flow.mss
            t = int(t * 1e6 + 0.5) / 1e6
            for name in names:
                self.trace_lines.append(f"E {t:.15g} {flow.src} {flow.dst} TCP {name} "
                                        f"{flow.fid} {seqno} {cwnd}\n")
        return tracer

    def at(self, time: float, action: Callable[[], None]) -> None:
        """Run ``action`` at ns-2 time ``time``."""
        self.events.schedule(self.offset + time, lambda _: action())

    def _port(self, node: int) -> int:
        p = self._ports.get(node, 0)
        self._ports[node] = p + 1
        return p

    def _host(self, node: int) -> HostNode:
        host = self.hosts.get(node)
        if host is None:
            host = HostNode(f"n{node}", ip=self.nodes[node], mac=f"02:00:00:00:{node // 256:02x}:"
                            f"{node % 256:02x}", gateway_mac="02:00:00:00:ff:ff",
                            events=self.events)
            host.nic = _NodePort(self, node)
            self.hosts[node] = host
        return host

    # ---------------------------------------------------------------- moving packets
    def originate(self, node: int, frame: bytes) -> None:
        """A frame an agent of ``node`` sends: made an ns-2 packet and routed."""
        src_ip, dst_ip, seg = wire.decode_frame(frame, verify_checksum=False)
        flow, forward = self._by_addr[(src_ip, seg.src_port, dst_ip, seg.dst_port)]
        self._uid += 1
        if forward:
            off = (seg.seq - flow.sender.iss) % SEQ_MOD
            if seg.flags & SYN:
                kind, seqno = "tcp", 0
            elif seg.payload:
                kind, seqno = "tcp", flow.packet_number(off)
            else:
                ack_off = (seg.ack - flow.receiver.iss) % SEQ_MOD
                kind, seqno = "ack", max(flow.packet_number(ack_off) - 1, 0)
            src, dst = f"{flow.src}.{flow.src_port}", f"{flow.dst}.{flow.dst_port}"
        else:
            ack_off = (seg.ack - flow.sender.iss) % SEQ_MOD if seg.flags & ACK else 1
            kind, seqno = "ack", max(flow.packet_number(ack_off) - 1, 0)
            src, dst = f"{flow.dst}.{flow.dst_port}", f"{flow.src}.{flow.src_port}"
        size = len(frame) - ETH_HEADER
        if seg.options:
            names = [name for name, _ in seg.options]
            if "SAck" in names:
                size -= SACK_OPTION_OVERHEAD
            if "Timestamp" in names:
                size -= (TS_OPTION_BYTES - TS_OPTION_SIZE if forward and seg.payload
                         else TS_OPTION_BYTES)
        pkt = Packet(frame, size, kind, flow.fid, src, dst, seqno, self._uid,
                     self._ip_node[dst_ip], self.events.now < self.offset,
                     forward and bool(seg.payload))
        self.link(node, self._hop(node, pkt.to_node)).recv(pkt)

    def deliver(self, node: int, pkt: Packet) -> None:
        """``pkt`` arrived at ``node``: to its agent there, or on along the route."""
        if pkt.to_node == node:
            self.hosts[node].on_frame((0, pkt.frame))
        else:
            self.link(node, self._hop(node, pkt.to_node)).recv(pkt)

    def _hop(self, node: int, target: int) -> int:
        """The next node on a fewest-hops path (ties: the lower node id)."""
        key = (node, target)
        hop = self._next_hop.get(key)
        if hop is None:
            dist = {target: 0}
            todo = deque([target])
            while todo:
                n = todo.popleft()
                for (x, y) in self.links:
                    if y == n and x not in dist:
                        dist[x] = dist[n] + 1
                        todo.append(x)
            options = sorted(y for (x, y) in self.links if x == node and y in dist
                             and dist[y] == dist.get(node, 0) - 1)
            if node not in dist or not options:
                raise ValueError(f"no route from node {node} to node {target}")
            hop = self._next_hop[key] = options[0]
        return hop

    # ---------------------------------------------------------------- tracing and running
    def trace(self, ev: str, link: SimplexLink, pkt: Packet) -> None:
        lines = self.trace_lines
        if lines is None:
            return
        t = self.events.now - self.offset
        if t < 0:
            return                      # a preopened flow's handshake: before ns-2's clock
        t = int(t * 1e6 + 0.5) / 1e6
        lines.append(f"{ev} {t:.15g} {link.a} {link.b} {pkt.kind} {pkt.size} ------- "
                     f"{pkt.fid} {pkt.src} {pkt.dst} {pkt.seqno} {pkt.uid}\n")

    def run(self, until: float) -> None:
        """Run to ns-2 time ``until``."""
        self.events.run(self.offset + until)
