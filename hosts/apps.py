"""Bulk applications over a TcpConnection: a sender and a checking sink with constant memory;
a finite transfer that closes (``FileSender``) and a sink that closes after its peer
(``ClosingSink``), for the experiments' file transfers.

The sender writes a deterministic byte pattern: byte ``i`` of the transfer is byte
``i % PATTERN_PERIOD`` of a block drawn from ``random.Random(seed)``. It keeps the engine's send
buffer topped up (``send_buffer_space()``) and never holds the transfer itself, so a 360 MB
transfer costs one 64 KiB pattern block. The sink recomputes the expected bytes for every offset
it reads and records the first mismatch, so a transfer is checked byte for byte without storing it.

Why a prime period: engines misplace data by whole segments, i.e. by multiples of the MSS; with a
prime period 65521 a shift of ``k`` segments goes unnoticed only when ``k * mss`` is a multiple of
65521, i.e. ``k >= 65521`` (a shift of about 95 MB), which no reassembly bug produces.

    src, sink = BulkSender(total=360_000_000, seed=1), PatternSink(seed=1)
    segs = src.pump(sender_conn, now)      # after every event on the sender
    sink.pump(receiver_conn, now)          # after every event on the receiver
    assert sink.ok and sink.bytes == src.total
"""

from __future__ import annotations

import random
from typing import Callable

__all__ = ["BulkSender", "PatternSink", "FileSender", "ClosingSink", "pattern_bytes",
           "PATTERN_PERIOD"]

PATTERN_PERIOD = 65521          # largest prime below 2^16 (see the module docstring)
_WRITE_CHUNK = 1 << 16          # bytes handed to send() at a time

_BLOCKS: dict[int, bytes] = {}


def _block(seed: int) -> bytes:
    """The pattern period for ``seed`` repeated to PATTERN_PERIOD + _WRITE_CHUNK bytes, so any
    slice of up to _WRITE_CHUNK bytes starting anywhere in the period is one plain slice."""
    block = _BLOCKS.get(seed)
    if block is None:
        period = random.Random(seed).randbytes(PATTERN_PERIOD)
        block = period + period[:_WRITE_CHUNK]
        _BLOCKS[seed] = block
    return block


def pattern_bytes(offset: int, length: int, seed: int = 0) -> bytes:
    """Bytes [offset, offset + length) of the transfer pattern for ``seed``."""
    if offset < 0 or length < 0:
        raise ValueError(f"offset and length must be >= 0, got {offset}, {length}")
    block = _block(seed)
    out = []
    while length > 0:
        i = offset % PATTERN_PERIOD
        n = min(length, _WRITE_CHUNK)
        out.append(block[i:i + n])
        offset += n
        length -= n
    return b"".join(out)


class BulkSender:
    """Feeds ``total`` pattern bytes (None: unbounded, like ns-2's FTP agent) into a connection;
    closes it after the last byte when ``close_when_done``."""

    def __init__(self, total: int | None = None, *, seed: int = 0, close_when_done: bool = True):
        if total is not None and total < 0:
            raise ValueError(f"total must be >= 0 or None, got {total}")
        self.total = total
        self.seed = seed
        self.close_when_done = close_when_done
        self.queued = 0             # bytes handed to the engine so far
        self.closed = False

    @property
    def done(self) -> bool:
        return self.total is not None and self.queued >= self.total

    def pump(self, conn, now: float) -> list:
        """Top the send buffer up and return the segments the engine can send now."""
        space = conn.send_buffer_space()
        if self.total is not None:
            space = min(space, self.total - self.queued)
        while space > 0:
            n = min(space, _WRITE_CHUNK)
            conn.send(pattern_bytes(self.queued, n, self.seed))
            self.queued += n
            space -= n
        if self.done and self.close_when_done and not self.closed:
            conn.close()
            self.closed = True
        return conn.poll(now=now)


class PatternSink:
    """Reads what a connection delivers, counts it and checks it against the pattern."""

    def __init__(self, *, seed: int = 0):
        self.seed = seed
        self.bytes = 0
        self.first_error: int | None = None     # offset of the first wrong byte, if any

    @property
    def ok(self) -> bool:
        return self.first_error is None

    def pump(self, conn, now: float) -> list:
        data = conn.receive()
        if data:
            self.check(data)
        return []

    def check(self, data: bytes) -> None:
        """Account for ``data`` as the next bytes of the stream."""
        if self.first_error is None:
            expected = pattern_bytes(self.bytes, len(data), self.seed)
            if data != expected:
                wrong = next(i for i, (x, y) in enumerate(zip(data, expected)) if x != y)
                self.first_error = self.bytes + wrong
        self.bytes += len(data)


class FileSender:
    """The application of a finite transfer: writes ``size`` bytes (zeros) and closes. Its
    ``done_at`` is when the FIN was acknowledged (the connection reached FIN-WAIT-2 or
    TIME-WAIT without an error): the end of the transfer, at which ``on_done(now)`` is called
    once. It polls the engine only when it wrote or closed."""

    def __init__(self, size: int, on_done: Callable[[float], None] | None = None) -> None:
        self.size, self.queued, self.closed = size, 0, False
        self.done_at: float | None = None
        self.on_done = on_done

    def pump(self, conn, now: float) -> list:
        space = min(conn.send_buffer_space(), self.size - self.queued)
        if space > 0:
            conn.send(bytes(space))
            self.queued += space
        closing = self.queued >= self.size and not self.closed
        if closing:
            conn.close()
            self.closed = True
        if self.done_at is None and self.closed and conn.error is None \
                and conn.state in ("FIN-WAIT-2", "TIME-WAIT"):
            self.done_at = now
            if self.on_done is not None:
                self.on_done(now)
        return conn.poll(now=now) if space > 0 or closing else []


class ClosingSink:
    """Drains what arrives and closes once the peer has (CLOSE-WAIT), so both FINs are on the
    wire (a trace shows the whole connection). ``bytes``: how many it read."""

    def __init__(self) -> None:
        self.bytes, self.closed = 0, False

    def pump(self, conn, now: float) -> list:
        self.bytes += len(conn.receive())
        if not self.closed and conn.state == "CLOSE-WAIT":
            conn.close()
            self.closed = True
            return conn.poll(now=now)
        return []
