"""libpcap capture files (the classic format Wireshark, tshark and tcpdump read).

Format: https://wiki.wireshark.org/Development/LibpcapFileFormat. We write the
microsecond-resolution magic 0xa1b2c3d4 in little-endian byte order, link type 1 (Ethernet)
by default, and read both byte orders and the nanosecond variant.
"""

from __future__ import annotations

import heapq
import struct
import sys
from dataclasses import dataclass
from typing import Any, BinaryIO, Iterator

__all__ = ["LINKTYPE_ETHERNET", "PcapWriter", "TimeOrderedCapture", "PcapRecord", "read_pcap", "parse_global_header",
           "PcapFormatError"]

LINKTYPE_ETHERNET = 1
_MAGIC_US = 0xA1B2C3D4
_MAGIC_NS = 0xA1B23C4D
_SNAPLEN = 262144


class PcapFormatError(ValueError):
    """The file is not a libpcap capture, or a record is truncated."""


# slots where dataclass has them (3.10+): the simulator's workers may run on PyPy 3.9
@dataclass(frozen=True, **({"slots": True} if sys.version_info >= (3, 10) else {}))
class PcapRecord:
    time: float  # seconds since the epoch of the capture (virtual time in the simulator)
    data: bytes
    orig_len: int


class PcapWriter:
    """Append packets to a libpcap file. Time is passed in (seconds), never read from a clock."""

    def __init__(self, path_or_file: str | BinaryIO, *, linktype: int = LINKTYPE_ETHERNET,
                 snaplen: int = _SNAPLEN):
        if isinstance(path_or_file, (str, bytes)) or hasattr(path_or_file, "__fspath__"):
            self._f = open(path_or_file, "wb")
            self._owns = True
        else:
            self._f = path_or_file
            self._owns = False
        self.snaplen = snaplen
        self._f.write(struct.pack("<IHHiIII", _MAGIC_US, 2, 4, 0, 0, snaplen, linktype))
        self.count = 0

    def write(self, time: float, data: bytes) -> None:
        if not 0 <= time < 1 << 32:          # also refuses nan
            raise ValueError(f"pcap timestamps are 0 to 2^32 s, got {time}")
        sec = int(time)
        usec = int(round((time - sec) * 1e6))
        if usec >= 1_000_000:
            sec, usec = sec + 1, usec - 1_000_000
        if sec >= 1 << 32:
            raise ValueError(f"pcap timestamps are 0 to 2^32 s, got {time}")
        cap = data[: self.snaplen]
        self._f.write(struct.pack("<IIII", sec, usec, len(cap), len(data)))
        self._f.write(cap)
        self.count += 1

    def flush(self) -> None:
        self._f.flush()

    def close(self) -> None:
        if self._owns:
            self._f.close()
        else:
            self._f.flush()

    def __enter__(self) -> "PcapWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class TimeOrderedCapture:
    """A pcap file written in timestamp order. A host's frame is tapped when it is handed to its
    NIC, with the time its last bit will leave (later than now, behind the frames queued before
    it), while a received frame is tapped at now; records wait in a heap until the clock has
    passed them, since nothing tapped later can be stamped earlier than the time it is tapped.
    ``clock`` is anything with a ``now`` attribute: the simulator's event queue (virtual time)
    or a live host's wall clock."""

    def __init__(self, writer: PcapWriter, clock: Any):
        self.writer = writer
        self.clock = clock
        self._pending: list[tuple[float, int, bytes]] = []
        self._order = 0

    @property
    def count(self) -> int:
        return self.writer.count

    def write(self, time: float, frame: bytes) -> None:
        self._order += 1
        heapq.heappush(self._pending, (time, self._order, frame))
        now, pending = self.clock.now, self._pending
        while pending and pending[0][0] <= now:
            t, _, f = heapq.heappop(pending)
            self.writer.write(t, f)

    def close(self) -> None:
        while self._pending:
            t, _, f = heapq.heappop(self._pending)
            self.writer.write(t, f)
        self.writer.close()


def parse_global_header(head: bytes, path: str = "pcap") -> tuple[str, float, int]:
    """The 24-byte libpcap global header: (byte order "<" or ">", seconds per timestamp
    fraction, link type); PcapFormatError naming ``path`` when it is none."""
    if len(head) < 24:
        raise PcapFormatError(f"{path}: too short for a pcap global header ({len(head)} bytes)")
    for endian in ("<", ">"):
        magic, linktype = struct.unpack(endian + "I16xI", head[:24])
        if magic in (_MAGIC_US, _MAGIC_NS):
            return endian, 1e-6 if magic == _MAGIC_US else 1e-9, linktype & 0xFFFF
    raise PcapFormatError(f"{path}: not a libpcap file (magic {head[:4].hex()})")


def read_pcap(path: str) -> Iterator[PcapRecord]:
    """Yield the records of a libpcap file; raises PcapFormatError on a bad header or truncation."""
    with open(path, "rb") as f:
        endian, scale, _ = parse_global_header(f.read(24), path)
        rec = struct.Struct(endian + "IIII")
        while True:
            h = f.read(16)
            if not h:
                return
            if len(h) < 16:
                raise PcapFormatError(f"{path}: truncated record header")
            sec, frac, incl, orig = rec.unpack(h)
            data = f.read(incl)
            if len(data) < incl:
                raise PcapFormatError(f"{path}: truncated record ({len(data)} of {incl} bytes)")
            yield PcapRecord(sec + frac * scale, data, orig)
