"""The sender's buffer of unacknowledged and unsent bytes, as a list of the application's chunks.

Positions are unwrapped offsets (like everything inside the engine, see connection.py). The
application hands over chunks with ``append``; the engine reads any range of them with
``read`` (a new or retransmitted segment) and gives up what the peer acknowledged with
``release``.

Why chunks and not one ``bytearray``: appending to a bytearray and deleting its acknowledged
front copies the whole buffer (up to ``snd_buffer``, 1 MiB by default) again and again; on PyPy
that was ~12% of a simulation run (vmprof). Here ``append`` keeps a reference to the immutable
chunk (no copy), ``release`` drops whole chunks, and ``read`` slices one chunk (a segment
straddles two chunks only once per chunk).
"""

from __future__ import annotations

from bisect import bisect_right

__all__ = ["SendBuffer"]


class SendBuffer:
    """Bytes [base, end) of the stream, held as the chunks the application wrote."""

    __slots__ = ("_chunks", "_starts", "_head", "end")

    def __init__(self, base: int):
        self._chunks: list[bytes] = []
        self._starts: list[int] = []    # stream offset of each chunk's first byte
        self._head = 0                  # index of the first chunk still held
        self.end = base                 # offset just past the last byte appended

    @property
    def base(self) -> int:
        """Offset of the first byte still held (everything before it was released)."""
        return self._starts[self._head] if self._head < len(self._starts) else self.end

    def __len__(self) -> int:
        return self.end - self.base

    def append(self, data) -> None:
        """Queue ``data`` (bytes-like) after the bytes held; an empty chunk is ignored."""
        if not data:
            return
        if not isinstance(data, bytes):
            data = bytes(data)          # a caller's bytearray may change after the call
        self._chunks.append(data)
        self._starts.append(self.end)
        self.end += len(data)

    def read(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of the stream; ValueError if any of them is not held."""
        if start < self.base or end > self.end or start > end:
            raise ValueError(f"send buffer holds [{self.base}, {self.end}), "
                             f"cannot read [{start}, {end})")
        if start == end:
            return b""
        starts, chunks = self._starts, self._chunks
        k = bisect_right(starts, start, self._head) - 1
        i = start - starts[k]
        chunk = chunks[k]
        if i + (end - start) <= len(chunk):     # the common case: inside one chunk
            return chunk[i:i + end - start]
        parts = []
        while start < end:
            chunk = chunks[k]
            i = start - starts[k]
            piece = chunk[i:i + end - start]
            parts.append(piece)
            start += len(piece)
            k += 1
        return b"".join(parts)

    def release(self, upto: int) -> None:
        """Forget the chunks wholly below offset ``upto`` (acknowledged bytes). A chunk that
        is only partly acknowledged stays whole until its last byte is."""
        starts, chunks = self._starts, self._chunks
        head, n = self._head, len(chunks)
        while head < n and starts[head] + len(chunks[head]) <= upto:
            chunks[head] = b""          # drop the reference now; the slot is compacted below
            head += 1
        if head > 64 and head * 2 > n:  # compact rarely: amortised O(1) per chunk
            del chunks[:head]
            del starts[:head]
            head = 0
        self._head = head
