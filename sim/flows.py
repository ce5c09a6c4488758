"""Bulk-transfer flows between two simulated hosts (the paper's "single bulk TCP transfer").

A flow is two ``hosts.tcp.TcpConnection`` endpoints — the active opener on the source host, the
listener on the destination host — plus their applications: a source that keeps the engine's
send buffer topped up (an infinite file, like ns-2's FTP agent) and a sink that drains and
counts the in-order bytes the engine delivers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hosts.tcp import TcpConnection

if TYPE_CHECKING:  # pragma: no cover
    from sim.hostnode import Endpoint
    from sim.network import Network

__all__ = ["BulkSource", "BulkSink", "Flow", "add_bulk_flow"]

_CHUNK = bytes(64 * 1024)   # payload content is irrelevant to the experiments; zeros are cheap


class BulkSource:
    """Tops up the sender's buffer whenever the engine has room (unbounded transfer)."""

    def __init__(self, limit: int | None = None):
        self.limit = limit          # total bytes to send, None for unbounded
        self.queued = 0

    def pump(self, conn: Any, now: float) -> list:
        space = conn.send_buffer_space()
        if self.limit is not None:
            space = min(space, self.limit - self.queued)
        added = False
        while space > 0:
            n = min(space, len(_CHUNK))
            conn.send(_CHUNK if n == len(_CHUNK) else _CHUNK[:n])
            self.queued += n
            space -= n
            added = True
        return conn.poll(now=now) if added else []


class BulkSink:
    """Drains and counts the in-order bytes delivered by the receiving engine."""

    def __init__(self) -> None:
        self.bytes = 0

    def pump(self, conn: Any, now: float) -> list:
        self.bytes += len(conn.receive())
        return []


class Flow:
    """The two endpoints and applications of one transfer."""

    def __init__(self, name: str, sender: "Endpoint", receiver: "Endpoint",
                 source: BulkSource, sink: BulkSink):
        self.name = name
        self.sender_ep = sender
        self.receiver_ep = receiver
        self.source = source
        self.sink = sink

    @property
    def sender(self) -> TcpConnection:
        return self.sender_ep.conn

    @property
    def receiver(self) -> TcpConnection:
        return self.receiver_ep.conn

    @property
    def delivered_bytes(self) -> int:
        return self.sink.bytes


def add_bulk_flow(net: "Network", src: str, dst: str, *, config: Any,
                  receiver_config: Any = None, start: float = 0.0, src_port: int = 40000,
                  dst_port: int = 5001, name: str | None = None, limit: int | None = None) -> Flow:
    """A bulk transfer from host ``src`` to ``dst``, opening its connection at ``start``."""
    a, b = net.hosts[src], net.hosts[dst]
    rng = net.rng
    client = TcpConnection(config, local_port=src_port, remote_port=dst_port,
                           iss=rng.getrandbits(32))
    server = TcpConnection(receiver_config or config, local_port=dst_port, remote_port=src_port,
                           iss=rng.getrandbits(32))
    server.listen()
    source, sink = BulkSource(limit), BulkSink()
    ep_a = a.add_endpoint(client, local_port=src_port, remote_ip=b.ip, remote_port=dst_port,
                          app=source)
    ep_b = b.add_endpoint(server, local_port=dst_port, remote_ip=a.ip, remote_port=src_port,
                          app=sink)
    net.events.schedule(start, lambda _: ep_a.emit(client.connect(now=net.now), net.now))
    return Flow(name or f"{src}:{src_port}->{dst}:{dst_port}", ep_a, ep_b, source, sink)
