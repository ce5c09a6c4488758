"""A real-time host: the sans-IO TCP engine on a Linux interface (``python -m live.host``).

The same ``TcpConnection`` that runs in the simulator, driven by wall-clock time: one
``AF_PACKET`` raw socket on one interface (``netbase.packet_socket.RawPort``, the
switch process's port), frames built and parsed by ``netbase.wire``, and a ``selectors`` loop
that reads the monotonic clock *here*, outside the engine, and passes it in as ``now``
(seconds since the host started); ``next_timer()`` bounds every sleep.

The host has its own IPv4 and MAC addresses and sends every frame to a static next-hop MAC
(its gateway's port), so no ARP is needed. The kernel must not own the host's IP address in
this namespace: its TCP would answer our segments with resets (checked at start). Frames are
addressed to MACs no interface carries, so every kernel on the path sees them as another
host's (``PACKET_OTHERHOST``) and drops them before IP; the raw socket is promiscuous.

Roles (one connection per process; ``LiveHost`` itself holds any number):

* ``sender``: opens the connection and sends the ``hosts.apps.BulkSender`` pattern for
  ``--duration`` seconds after the handshake, or ``--bytes`` bytes, then closes it;
* ``receiver``: listens, checks every byte with ``hosts.apps.PatternSink``, closes when the
  sender's FIN arrives.

``--delay MS`` / ``--rate MBPS`` model the host's own link (its propagation delay and
serialisation, as ``sim.links.Nic`` and ``Channel`` do in the simulator): the live topology
puts a link's delay on the sending side, the switch's ``--port-delay`` for switch ports and
this for hosts (experiments/LIVE.md). A JSON summary (bytes, throughput, handshake RTT, engine
stats) is written with ``--out``; ``--pcap`` records what the host sent and received.

    python -m live.host --role receiver --interface b-eth0 --ip 10.0.2.1 \\
        --mac 00:00:00:00:00:0b --gateway-mac 02:00:00:00:02:01 --peer-ip 10.0.1.1 --out b.json
    python -m live.host --role sender --interface a-eth0 --ip 10.0.1.1 \\
        --mac 00:00:00:00:00:0a --gateway-mac 02:00:00:00:01:01 --peer-ip 10.0.2.1 \\
        --variant rdtcp --duration 10 --delay 1 --rate 10 --out a.json
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import math
import os
import re
import selectors
import signal
import socket
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from netbase import wire
from netbase.cli import CommandLineParser
from netbase.pcap import PcapWriter, TimeOrderedCapture
from hosts.apps import BulkSender, PatternSink
from hosts.tcp import TcpConfig, TcpConnection, reset_for
from hosts.tcp.config import MSL
from hosts.tcp.connection import CLOSE_WAIT, CLOSED, LAST_ACK, LISTEN, SYN_RCVD, SYN_SENT
from hosts.tcp.variants import VARIANTS, get_variant
from netbase.segment import SYN
from netbase.seq import seq_add, seq_gt

__all__ = ["LiveHost", "LiveEndpoint", "WindowedSender", "ClosingSink", "tcp_config",
           "build_parser", "main", "READY_LINE", "HostError", "check_address_not_local"]

READY_LINE = "live.host: ready"      # printed (flushed) once the socket is open
DEFAULT_RECEIVER_PORT = 5001          # as sim.flows.add_bulk_flow
DEFAULT_SENDER_PORT = 40000
_MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


class HostError(Exception):
    """The host cannot start (interface, address, options); printed as ``error: ...``."""


def tcp_config(variant: str, *, mss: int = 1460, k: int = 3, max_cwnd_segments: int = 500,
               timestamps: bool | None = None, rdtcp: bool | None = None,
               delayed_ack: bool = False, time_wait: float = 2 * MSL) -> TcpConfig:
    """The engine configuration of a live host: the paper scenario's (experiments.runner.spec's
    ``tcp_config``: SACK, window scale 7, no delayed ACKs, cwnd at most 500 segments), with
    timestamps where the variant needs them and RD-TCP-permitted offered by the RD-TCP family."""
    from hosts.tcp.variants.rdtcp import RdTcp

    cls = get_variant(variant)
    return TcpConfig(variant=variant, mss=mss, sack=True,
                     timestamps=cls.needs_timestamps if timestamps is None else timestamps,
                     window_scale=7, rdtcp=issubclass(cls, RdTcp) if rdtcp is None else rdtcp,
                     rdtcp_k=k, delayed_ack=delayed_ack, max_cwnd_segments=max_cwnd_segments,
                     time_wait=time_wait)


class LiveEndpoint:
    """One connection of a live host, its application, and the times a run reports.

    The application is a source (``BulkSender``-like: ``pump`` and ``queued``, the bytes it
    wrote) or a sink (``PatternSink``-like: ``pump`` and ``bytes``, the bytes it read)."""

    def __init__(self, host: "LiveHost", conn: TcpConnection, *, remote_ip: str, app: Any,
                 window: float | None = None):
        self.host = host
        self.conn = conn
        self.remote_ip = remote_ip
        self.app = app
        self.window = window            # seconds after the handshake over which throughput is taken
        self.encode = host.codec.encoder(src_ip=host.ip, dst_ip=remote_ip, src_mac=host.mac,
                                         dst_mac=host.gateway_mac)
        self.opened_at: float | None = None         # connect() or the first SYN received
        self.established_at: float | None = None
        self.closed_at: float | None = None
        self.last_progress_at: float | None = None  # last byte delivered (sink) or acked (source)
        self.progress_at_window: int | None = None  # progress when the window ended
        self._progress = 0
        self.ooo_segments = 0           # data segments that arrived ahead of the next expected
        self._rcv_base: int | None = None           # the peer's ISN + 1, once its SYN arrived

    # -- what the run measures --------------------------------------------------------------------
    def progress(self) -> int:
        """Bytes delivered to the application (receiver) or acknowledged by the peer (sender)."""
        if not hasattr(self.app, "queued"):
            return self.app.bytes
        return min(self.conn.stats["bytes_acked"], self.app.queued)   # the FIN is not data

    def window_end(self) -> float | None:
        if self.window is None or self.established_at is None:
            return None
        return self.established_at + self.window

    def note_arrival(self, seg) -> None:
        """Count a data segment arriving beyond the next byte expected (a hole before it: lost
        or reordered), as Linux's receiver counts its out-of-order queue (tcpi_rcv_ooopack).
        Seen from outside the engine: the next byte expected is the peer's first plus what the
        sink has read, which it reads after every event."""
        if seg.flags & SYN:
            self._rcv_base = seq_add(seg.seq, 1)
        elif seg.payload and self._rcv_base is not None and hasattr(self.app, "bytes") \
                and not hasattr(self.app, "queued"):
            if seq_gt(seg.seq, seq_add(self._rcv_base, self.app.bytes)):
                self.ooo_segments += 1

    def observe(self, now: float) -> None:
        """Bookkeeping after an event at ``now``: handshake, progress, window, close."""
        conn = self.conn
        if self.opened_at is None and conn.state not in (CLOSED, LISTEN):
            self.opened_at = now
        if self.established_at is None and conn.state not in (CLOSED, LISTEN, SYN_SENT, SYN_RCVD):
            self.established_at = now
        p = self.progress()
        if p != self._progress:
            self._progress = p
            self.last_progress_at = now
        if conn.state == CLOSED and self.closed_at is None and self.opened_at is not None:
            self.closed_at = now

    def before_event(self, now: float) -> bool:
        """Take the progress at the window's end before an event at or after it is processed;
        True when the window ended just now (the application is then pumped once)."""
        end = self.window_end()
        if end is not None and self.progress_at_window is None and now >= end:
            self.progress_at_window = self.progress()
            return True
        return False

    def throughput(self) -> float:
        """Bytes/s over the window when it ended, else over the handshake to the last progress."""
        if self.progress_at_window is not None:
            return self.progress_at_window / self.window
        if self.established_at is None or self.last_progress_at is None or \
                self.last_progress_at <= self.established_at:
            return 0.0
        return self._progress / (self.last_progress_at - self.established_at)

    def summary(self) -> dict:
        conn = self.conn
        srtt = getattr(conn.rtt, "srtt", None)
        out = {
            "local_port": conn.local_port, "remote": f"{self.remote_ip}:{conn.remote_port}",
            "variant": conn.cfg.variant, "state": conn.state, "error": conn.error,
            "opened_at": self.opened_at, "established_at": self.established_at,
            "closed_at": self.closed_at, "last_progress_at": self.last_progress_at,
            "handshake_rtt_s": (None if self.established_at is None or self.opened_at is None
                                else round(self.established_at - self.opened_at, 6)),
            "srtt_s": None if srtt is None else round(srtt, 6),
            "window_s": self.window, "bytes": self.progress(),
            "bytes_in_window": self.progress_at_window,
            "throughput_Bps": round(self.throughput(), 3),
            "mss": conn.mss, "rdtcp": conn.rdtcp_ok, "sack": conn.sack_ok,
            "timestamps": conn.ts_ok, "cwnd": conn.cwnd, "ssthresh": conn.ssthresh,
            "dupthresh": conn.dupthresh,
            "stats": {**conn.stats, "ooo_segments": self.ooo_segments},
        }
        if hasattr(self.app, "queued"):
            out["bytes_queued"] = self.app.queued
        elif hasattr(self.app, "ok"):
            out["pattern_ok"] = self.app.ok
            out["first_error"] = self.app.first_error
        return out


def _ordered_capture(writer: Any, host: "LiveHost") -> Any:
    """``writer`` (a PcapWriter) behind ``netbase.pcap.TimeOrderedCapture``: a frame sent is
    stamped when its last bit leaves the host, which its link's rate may put after frames
    received meanwhile; records wait until the host's clock has passed them, so the file is in
    time order as Wireshark expects."""
    class _Clock:                        # TimeOrderedCapture reads its clock's ``now``
        @property
        def now(self) -> float:
            return host.wall0 + host.now()

    return TimeOrderedCapture(writer, _Clock())


class LiveHost:
    """An IPv4 host with one interface: endpoints, a transmit line, and the event loop.

    ``port`` is anything with ``sock`` (selectable), ``recv_frames()`` and ``send(frame)``:
    a ``RawPort`` on a real interface, a ``live.scapy_io.ScapyPort``, or a socket pair in
    tests. ``codec`` turns segments into frames and back (``live.scapy_io``: ``StructCodec``,
    the default, or ``ScapyCodec``). ``clock`` is read here only. ``pcap``: a
    ``netbase.pcap.PcapWriter`` for what the host sends and receives (closed by ``close``),
    written in time order.
    """

    def __init__(self, port: Any, *, ip: str, mac: str, gateway_mac: str, delay: float = 0.0,
                 rate_bps: float | None = None, clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time, pcap: Any = None,
                 codec: Any = None):
        from live.scapy_io import StructCodec
        from netbase.packet_socket import DelayLine
        from netbase.wakeup import Wakeup

        self.codec = codec or StructCodec
        self.port = port
        self.ip, self.mac, self.gateway_mac = ip, mac, gateway_mac
        self.line = DelayLine(delay, rate_bps) if (delay or rate_bps) else None
        self.pcap = None if pcap is None else _ordered_capture(pcap, self)
        self.endpoints: dict[tuple[int, str, int], LiveEndpoint] = {}
        self.frames_in = self.frames_out = 0
        self.malformed = 0              # frames the codec refused
        self.unmatched = 0              # TCP for another address or no endpoint of ours
        self._clock = clock
        self.t0 = clock()
        self.wall0 = wall_clock()
        self._stop = False
        self.sel = selectors.DefaultSelector()
        self.sel.register(port.sock, selectors.EVENT_READ, "port")
        self._wakeup = Wakeup()
        self.sel.register(self._wakeup.reader, selectors.EVENT_READ, "wake")

    # -- clock: read here, never in the engine ----------------------------------------------------
    def now(self) -> float:
        return self._clock() - self.t0

    # -- connections ------------------------------------------------------------------------------
    def add_endpoint(self, conn: TcpConnection, *, remote_ip: str, app: Any,
                     window: float | None = None) -> LiveEndpoint:
        key = (conn.local_port, remote_ip, conn.remote_port)
        if key in self.endpoints:
            raise ValueError(f"endpoint {key} exists already")
        ep = LiveEndpoint(self, conn, remote_ip=remote_ip, app=app, window=window)
        self.endpoints[key] = ep
        return ep

    def connect(self, ep: LiveEndpoint) -> None:
        now = self.now()
        self.emit(ep, ep.conn.connect(now=now), now)

    def emit(self, ep: LiveEndpoint, segments: list, now: float) -> None:
        """Send what the engine returned, let the application react, note what changed."""
        for seg in segments:
            self._send(ep.encode(seg), now)
        more = ep.app.pump(ep.conn, now)
        for seg in more:
            self._send(ep.encode(seg), now)
        ep.observe(now)

    def _send(self, frame: bytes, now: float) -> None:
        if self.line is None:
            departure = now
            self.port.send(frame)
        else:
            departure = self.line.push(frame, now)
        self.frames_out += 1
        if self.pcap is not None:       # stamped when its last bit leaves the host
            self.pcap.write(self.wall0 + departure, frame)

    # -- loop -------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Make ``run`` return at its next turn (signal handlers call this)."""
        self._stop = True
        self._wakeup.wake()

    def next_deadline(self) -> float | None:
        """The earliest engine timer, window end or transmission due, or None."""
        t = None if self.line is None else self.line.next_due()
        for ep in self.endpoints.values():
            for d in (ep.conn.next_timer(), ep.window_end() if ep.progress_at_window is None
                      else None):
                if d is not None and (t is None or d < t):
                    t = d
        return t

    def turn(self, max_wait: float | None = None) -> None:
        """Wait for a frame (at most until the next deadline or ``max_wait``), then process
        frames, due timers and due transmissions, in that order, at one ``now``."""
        t = self.next_deadline()
        timeout = None if t is None else max(0.0, t - self.now())
        if max_wait is not None:
            timeout = max_wait if timeout is None else min(timeout, max_wait)
        ready = self.sel.select(timeout)
        now = self.now()
        ended = [ep for ep in self.endpoints.values() if ep.before_event(now)]
        for key, _ in ready:
            if key.data == "port":
                for frame in self.port.recv_frames():
                    self._receive(frame, now)
            else:
                self._drain_wake()
        for ep in self.endpoints.values():
            d = ep.conn.next_timer()
            if d is not None and d <= now:
                self.emit(ep, ep.conn.on_timer(now=now), now)
        for ep in ended:
            self.emit(ep, [], now)                  # the application's window ended: pump it
        if self.line is not None and self.line.next_due() is not None:
            for frame in self.line.pop_due(now):
                self.port.send(frame)

    def _drain_wake(self) -> None:
        self._wakeup.drain()

    def _receive(self, frame: bytes, now: float) -> None:
        self.frames_in += 1
        if self.pcap is not None:
            self.pcap.write(self.wall0 + now, self.codec.raw(frame))
        try:
            src_ip, dst_ip, seg = self.codec.decode(frame)
        except wire.MalformedPacket:
            self.malformed += 1
            return
        ep = self.endpoints.get((seg.dst_port, src_ip, seg.src_port)) if dst_ip == self.ip else None
        if ep is None:
            self.unmatched += 1
            rst = reset_for(seg) if dst_ip == self.ip else None     # RFC 9293 §3.10.7.1
            if rst is not None:
                self._send(wire.encode_frame(rst, src_ip=self.ip, dst_ip=src_ip, src_mac=self.mac,
                                             dst_mac=self.gateway_mac), now)
            return
        ep.note_arrival(seg)
        self.emit(ep, ep.conn.on_segment(seg, now=now), now)

    def run(self, done: Callable[[], bool], *, timeout: float | None = None) -> bool:
        """Turn until ``done()`` (True), ``timeout`` seconds of host time (False) or ``stop``."""
        deadline = None if timeout is None else self.now() + timeout
        while not self._stop and not done():
            left = None if deadline is None else deadline - self.now()
            if left is not None and left <= 0:
                return False
            self.turn(left)
        return done()

    def idle(self) -> bool:
        """Nothing left to transmit on the host's own link."""
        return self.line is None or len(self.line) == 0

    def close(self) -> None:
        self.sel.close()
        self._wakeup.close()
        if self.pcap is not None:
            self.pcap.close()


# -- the two applications' ends of a run ----------------------------------------------------------
class WindowedSender(BulkSender):
    """BulkSender that stops writing when the endpoint's window (``--duration``) has ended,
    and keeps at most ``ahead`` bytes written but unsent: a run of ``--duration`` seconds then
    ends about one window of data after it (not a whole send buffer later, 1 MB at a few
    hundred kB/s), and the engine never waits for data (it is topped up after every event)."""

    AHEAD = 64 * 1024

    def __init__(self, total: int | None, *, seed: int, ahead: int = AHEAD):
        super().__init__(total, seed=seed)
        self.ahead = ahead
        self.endpoint: LiveEndpoint | None = None

    def pump(self, conn, now: float) -> list:
        ep = self.endpoint
        end = None if ep is None else ep.window_end()
        if end is not None and now >= end and (self.total is None or self.total > self.queued):
            self.total = self.queued            # no new data: what is queued drains, then FIN
        return super().pump(_Ahead(conn, self.ahead), now)


class _Ahead:
    """A connection whose send buffer has room for ``ahead`` unsent bytes at most."""

    __slots__ = ("_conn", "_ahead")

    def __init__(self, conn: TcpConnection, ahead: int):
        self._conn, self._ahead = conn, ahead

    def send_buffer_space(self) -> int:
        conn = self._conn
        return max(0, min(conn.send_buffer_space(), self._ahead - conn.unsent))

    def __getattr__(self, name: str):
        return getattr(self._conn, name)


class ClosingSink(PatternSink):
    """PatternSink that closes its side when the sender's FIN has arrived (all data read)."""

    def pump(self, conn, now: float) -> list:
        super().pump(conn, now)
        if conn.state == CLOSE_WAIT:
            conn.close()
            return conn.poll(now=now)
        return []


# -- command line ---------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    ap = CommandLineParser(
        prog="python -m live.host",
        description="The project's TCP engine as a real-time host on one Linux "
                    "interface (AF_PACKET; needs root or CAP_NET_RAW).",
        epilog=f"Prints '{READY_LINE}' once the interface is open. Exit status 0 when "
               "the transfer completed (and, receiving, every byte was right), 1 "
               "otherwise, 2 for bad options or an interface it cannot use.")
    ap.add_argument("--role", choices=("sender", "receiver"), required=True)
    ap.add_argument("--interface", required=True, metavar="IF", help="the interface to use")
    ap.add_argument("--ip", required=True,
                    help="this host's IPv4 address (not one the kernel owns)")
    ap.add_argument("--mac", required=True, help="this host's MAC address")
    ap.add_argument("--gateway-mac", required=True, metavar="MAC",
                    help="next-hop MAC of every frame sent (the gateway port's MAC)")
    ap.add_argument("--peer-ip", required=True, metavar="IP", help="the other host's address")
    ap.add_argument("--port", type=int, default=None,
                    help=f"local TCP port (default: {DEFAULT_SENDER_PORT} sending, "
                         f"{DEFAULT_RECEIVER_PORT} receiving)")
    ap.add_argument("--peer-port", type=int, default=None,
                    help="the other host's TCP port (default: the other role's default)")
    ap.add_argument("--variant", default="sack", choices=sorted(VARIANTS), help="TCP variant")
    ap.add_argument("--mss", type=int, default=1460)
    ap.add_argument("--k", type=int, default=3, help="RD-TCP's k (dupthresh 3 + k on reordering)")
    ap.add_argument("--max-cwnd", type=int, default=500, metavar="SEGMENTS")
    ap.add_argument("--timestamps", choices=("auto", "on", "off"), default="auto",
                    help="offer the timestamp option (auto: when the variant needs it)")
    ap.add_argument("--rdtcp", choices=("auto", "on", "off"), default="auto",
                    help="offer RD-TCP-permitted (auto: for the RD-TCP variants)")
    ap.add_argument("--time-wait", type=float, default=1.0, metavar="S",
                    help="TIME-WAIT of the side that closes first (default 1 s, shorter than "
                         "the engine's 2*MSL: the host exits once its connection has closed)")
    ap.add_argument("--duration", type=float, default=None, metavar="S",
                    help="sender: send for S seconds after the handshake, then close; receiver: "
                         "measure throughput over S seconds after the handshake")
    ap.add_argument("--bytes", type=int, default=None, metavar="N",
                    help="sender: send N bytes, then close")
    ap.add_argument("--seed", type=int, default=1, help="seed of the byte pattern (both ends)")
    ap.add_argument("--delay", type=float, default=0.0, metavar="MS",
                    help="propagation delay of this host's own link (frames it sends)")
    ap.add_argument("--rate", type=float, default=None, metavar="MBPS",
                    help="rate of this host's own link (frames it sends are serialised)")
    ap.add_argument("--timeout", type=float, default=120.0, metavar="S",
                    help="give up after S seconds (default 120)")
    ap.add_argument("--linger", type=float, default=3.0, metavar="S",
                    help="receiver: wait at most S seconds for the ACK of its FIN (default 3)")
    ap.add_argument("--out", metavar="JSON", help="write the summary here")
    ap.add_argument("--pcap", metavar="FILE", help="record the frames sent and received")
    ap.add_argument("--io", choices=("struct", "scapy"), default="struct",
                    help="how frames are built, parsed, sent and received: the project's "
                         "struct codec on a raw socket (default), or Scapy's layers (with the "
                         "project's EPDN option layer) on Scapy's L2 socket; the engine is the "
                         "same")
    return ap


def _check_args(ap: argparse.ArgumentParser, args) -> None:
    for name in ("ip", "peer_ip"):
        try:
            ipaddress.IPv4Address(getattr(args, name))
        except ValueError:
            ap.error(f"--{name.replace('_', '-')} {getattr(args, name)!r} is not an IPv4 address")
    for name in ("mac", "gateway_mac"):
        if not _MAC.match(getattr(args, name)):
            ap.error(f"--{name.replace('_', '-')} {getattr(args, name)!r} is not a MAC address "
                     "(six hex pairs separated by ':')")
    for name in ("port", "peer_port"):
        v = getattr(args, name)
        if v is not None and not 1 <= v <= 65535:
            ap.error(f"--{name.replace('_', '-')} {v}: not a TCP port (1..65535)")
    checks = (("duration", args.duration, args.duration is None or 0 < args.duration < math.inf),
              ("bytes", args.bytes, args.bytes is None or args.bytes >= 0),
              ("delay", args.delay, 0 <= args.delay < math.inf),
              ("rate", args.rate, args.rate is None or 0 < args.rate < math.inf),
              ("timeout", args.timeout, 0 < args.timeout < math.inf),
              ("linger", args.linger, 0 <= args.linger < math.inf),
              ("time-wait", args.time_wait, 0 <= args.time_wait < math.inf),
              ("k", args.k, args.k >= 0), ("max-cwnd", args.max_cwnd, args.max_cwnd >= 1),
              ("mss", args.mss, 64 <= args.mss <= 65495))
    for name, value, ok in checks:
        if not ok:
            ap.error(f"--{name} {value}: out of range")
    if args.role == "sender" and args.duration is not None and args.bytes is not None:
        ap.error("give the sender --duration or --bytes, not both")
    if args.role == "receiver" and args.bytes is not None:
        ap.error("--bytes is the sender's option (the receiver reads until the FIN)")


def check_address_not_local(ip: str) -> None:
    """HostError when the kernel of this namespace owns ``ip``: its TCP would see our segments
    and reset them (RFC 9293 §3.10.7.1: no such connection there)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind((ip, 0))                 # binds only to an address local to this namespace
    except OSError:
        return
    finally:
        s.close()
    raise HostError(f"the kernel owns {ip} in this network namespace: its TCP would reset our "
                    f"segments; remove the address (ip addr del {ip}/... dev <interface>) or "
                    "use a namespace without it")


def _open_port(ifname: str, io: str = "struct"):
    from netbase.packet_socket import PortError, RawPort
    try:
        if io == "scapy":
            from live.scapy_io import ScapyPort
            return ScapyPort(ifname)
        return RawPort(0, ifname)
    except PortError as e:
        raise HostError(str(e)) from None
    except OSError as e:                    # Scapy's socket: the interface, the permission
        raise HostError(e.strerror or str(e)) from None


def _write_json(path: str, doc: dict) -> None:
    """Written to a temporary file then renamed: a reader never sees half a summary."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, p)


def run(args) -> tuple[int, dict]:
    """Open the interface, run the role, return (exit status, summary)."""

    check_address_not_local(args.ip)
    sender = args.role == "sender"
    local = args.port or (DEFAULT_SENDER_PORT if sender else DEFAULT_RECEIVER_PORT)
    remote = args.peer_port or (DEFAULT_RECEIVER_PORT if sender else DEFAULT_SENDER_PORT)
    onoff = {"auto": None, "on": True, "off": False}
    cfg = tcp_config(args.variant, mss=args.mss, k=args.k, max_cwnd_segments=args.max_cwnd,
                     timestamps=onoff[args.timestamps], rdtcp=onoff[args.rdtcp],
                     time_wait=args.time_wait)
    if args.out and not Path(args.out).resolve().parent.is_dir():
        raise HostError(f"--out {args.out}: the directory does not exist")
    from live.scapy_io import CODECS

    port = _open_port(args.interface, args.io)
    pcap = None
    try:
        pcap = PcapWriter(args.pcap) if args.pcap else None
    except OSError as e:
        port.close()
        raise HostError(f"--pcap {args.pcap}: {e.strerror or e}") from None
    host = LiveHost(port, ip=args.ip, mac=args.mac, gateway_mac=args.gateway_mac,
                    delay=args.delay / 1000.0,
                    rate_bps=None if args.rate is None else args.rate * 1e6, pcap=pcap,
                    codec=CODECS[args.io])
    # an ISS from the OS's randomness, as RFC 9293 §3.4.1 wants; the byte pattern is seeded
    conn = TcpConnection(cfg, local_port=local, remote_port=remote,
                         iss=int.from_bytes(os.urandom(4), "big"))
    if sender:
        app = WindowedSender(args.bytes, seed=args.seed)
    else:
        app = ClosingSink(seed=args.seed)
        conn.listen()
    ep = host.add_endpoint(conn, remote_ip=args.peer_ip, app=app, window=args.duration)
    if sender:
        app.endpoint = ep
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: host.stop())
    print(f"{READY_LINE} on {args.interface} as {args.ip} ({args.role})", flush=True)
    started = time.monotonic()
    lingering: list[float] = []

    def done() -> bool:
        if conn.state == CLOSED and ep.opened_at is not None:
            return host.idle()
        if not sender and conn.state == LAST_ACK:   # every byte is in; the FIN's ACK may be lost
            lingering[:1] = lingering[:1] or [host.now()]
            return host.now() - lingering[0] >= args.linger
        return False

    try:
        if sender:
            host.connect(ep)
        finished = host.run(done, timeout=args.timeout)
    finally:
        host.close()
        port.close()
    summary = {"role": args.role, "io": args.io, "interface": args.interface, "ip": args.ip,
               "mac": args.mac,
               "gateway_mac": args.gateway_mac, "delay_ms": args.delay, "rate_mbps": args.rate,
               "config": asdict(cfg), "start_monotonic": host.t0,
               "wall_s": round(time.monotonic() - started, 3),
               "finished": finished, "interrupted": host._stop and not finished,
               "frames_in": host.frames_in, "frames_out": host.frames_out,
               "malformed": host.malformed, "unmatched": host.unmatched,
               "tx_errors": port.tx_errors,
               "max_tx_backlog": host.line.max_backlog if host.line is not None else 0,
               **ep.summary()}
    ok = finished and conn.error is None and ep.established_at is not None
    if sender:
        ok = ok and app.done and summary["bytes"] >= app.queued
    else:
        ok = ok and app.ok and conn.state in (CLOSED, LAST_ACK)
    summary["ok"] = ok
    return (0 if ok else 1), summary


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    _check_args(ap, args)
    try:
        status, summary = run(args)
    except HostError as e:                  # bad input: the interface, the address, a path
        print(f"error: {e}", file=sys.stderr, flush=True)
        return 2
    if args.out:
        _write_json(args.out, summary)
    print(json.dumps({k: summary[k] for k in ("role", "ok", "bytes", "throughput_Bps",
                                              "handshake_rtt_s", "state")}), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
