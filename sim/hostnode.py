"""A simulated end host: TCP engine endpoints behind one NIC, frames via ``netbase.wire``.

The host owns no TCP logic: each endpoint is a sans-IO ``hosts.tcp.TcpConnection``; the host
decodes arriving frames, hands the segment to the endpoint it belongs to (a segment for none is
answered with the engine's reset, ``hosts.tcp.reset_for``), encodes what the engine returns, and
keeps one timer event per endpoint armed at ``next_timer()`` (re-armed after every call, stale
firings ignored).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hosts.tcp import reset_for
from netbase import wire

if TYPE_CHECKING:  # pragma: no cover
    from sim.events import EventQueue
    from sim.links import Nic

__all__ = ["HostNode", "Endpoint"]


class Endpoint:
    """One TCP connection on a host, plus its application (bulk source or sink)."""

    def __init__(self, host: "HostNode", conn: Any, *, remote_ip: str, app: Any):
        self.host = host
        self.conn = conn
        self.remote_ip = remote_ip
        self.app = app
        self.timer_at: float | None = None
        # every frame of this endpoint has the same addresses: converted once (netbase.wire)
        self._encode = wire.FrameEncoder(src_ip=host.ip, dst_ip=remote_ip, src_mac=host.mac,
                                       dst_mac=host.gateway_mac).encode

    def emit(self, segments: list, now: float) -> None:
        """Encode and send what the engine returned, let the app react, re-arm the timer."""
        encode, send = self._encode, self.host.nic.send
        for seg in segments:
            send(encode(seg), now)
        more = self.app.pump(self.conn, now)
        if more:
            for seg in more:
                send(encode(seg), now)
        self.rearm()

    def rearm(self) -> None:
        t = self.conn.next_timer()
        if t is None:
            return
        events = self.host.events
        if t < events.now:
            t = events.now
        if self.timer_at is None or t < self.timer_at:
            self.timer_at = t
            events.schedule(t, self._on_timer, t)

    def _on_timer(self, armed_for: float) -> None:
        if armed_for != self.timer_at:
            return
        self.timer_at = None
        now = self.host.events.now
        deadline = self.conn.next_timer()
        if deadline is not None and deadline <= now:
            self.emit(self.conn.on_timer(now=now), now)
        else:
            self.rearm()


class HostNode:
    """An IPv4 host with one interface towards its gateway."""

    def __init__(self, name: str, *, ip: str, mac: str, gateway_mac: str,
                 events: "EventQueue"):
        self.name = name
        self.ip = ip
        self.mac = mac
        self.gateway_mac = gateway_mac
        self.events = events
        self.nic: "Nic | None" = None
        self.endpoints: dict[tuple[int, str, int], Endpoint] = {}
        self.malformed = 0              # frames netbase.wire refused
        self.unmatched = 0              # frames for no endpoint (TCP ones answered with a reset)

    def add_endpoint(self, conn: Any, *, local_port: int, remote_ip: str, remote_port: int,
                     app: Any) -> Endpoint:
        key = (local_port, remote_ip, remote_port)
        if key in self.endpoints:
            raise ValueError(f"{self.name}: endpoint {key} exists already")
        ep = Endpoint(self, conn, remote_ip=remote_ip, app=app)
        self.endpoints[key] = ep
        return ep

    def encode(self, seg: Any, remote_ip: str) -> bytes:
        return wire.encode_frame(seg, src_ip=self.ip, dst_ip=remote_ip,
                                 src_mac=self.mac, dst_mac=self.gateway_mac)

    def on_frame(self, port_frame: tuple[int, bytes]) -> None:
        _, frame = port_frame
        if not self.endpoints:
            self.unmatched += 1         # nothing listens here: no need to decode
            return
        try:
            src_ip, _dst_ip, seg = wire.decode_frame(frame)
        except wire.MalformedPacket:
            self.malformed += 1
            return
        ep = self.endpoints.get((seg.dst_port, src_ip, seg.src_port))
        now = self.events.now
        if ep is None:
            self.unmatched += 1
            rst = reset_for(seg)            # RFC 9293 §3.10.7.1: no connection
            if rst is not None:
                self.nic.send(self.encode(rst, src_ip), now)
            return
        ep.emit(ep.conn.on_segment(seg, now=now), now)
