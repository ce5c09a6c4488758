"""Tiny hand-built traces for the analyzer's tests, written with netbase.wire and netbase.pcap.

Segment numbers stand for sequence ranges: data segment i of A covers relative sequence
numbers [1 + i*MSS, 1 + (i+1)*MSS), as Wireshark numbers them (the SYN takes 0). Times are
given explicitly; the defaults mimic the lab's dumbbell: a 100 ms RTT, frames that leave A
back to back take ``SER`` (1.2 ms), ACKs paced by the bottleneck arrive 2.4 ms apart.
"""

from __future__ import annotations

from netbase.segment import ACK, FIN, REORDER_BIT, SYN, Segment
from netbase.wire import encode_frame
from netbase.pcap import PcapWriter

A = ("10.0.1.1", 40000)
B = ("10.0.2.1", 5001)
MSS = 1000
RTT = 0.1
SER = 0.0012        # a 1054-byte frame leaving A back to back with the one before
GAP = 0.0024        # ACK spacing at the bottleneck


class Trace:
    def __init__(self, *, sack: bool = True, rdtcp: bool = False, iss_a: int = 1000,
                 iss_b: int = 50000, mss: int = MSS, a=A, b=B):
        self.a, self.b = a, b
        self.sack, self.rdtcp = sack, rdtcp
        self.iss_a, self.iss_b, self.mss = iss_a, iss_b, mss
        self.frames: list[tuple[float, int, bytes]] = []

    # ------------------------------------------------------------------ building blocks
    def _put(self, t: float, seg: Segment, src, dst, ip_id: int = 0) -> None:
        frame = encode_frame(seg, src_ip=src[0], dst_ip=dst[0], ip_id=ip_id)
        self.frames.append((t, len(self.frames), frame))

    def _syn_options(self):
        opts = [("MSS", self.mss)]
        if self.sack:
            opts += [("NOP", None), ("NOP", None), ("SAckOK", b"")]
        if self.rdtcp:
            opts.append(("RDTCPOK", None))
        return tuple(opts)

    def seq(self, i: int) -> int:
        """Wire sequence number of the start of A's data segment ``i``."""
        return (self.iss_a + 1 + i * self.mss) % (1 << 32)

    def syn(self, t: float) -> None:
        self._put(t, Segment(self.a[1], self.b[1], self.iss_a, 0, SYN, 65535,
                             self._syn_options()), self.a, self.b)

    def handshake(self, t: float = 0.0, rtt: float = RTT) -> float:
        """SYN, SYN-ACK one RTT later, A's ACK; returns when A may send data."""
        self.syn(t)
        self._put(t + rtt, Segment(self.b[1], self.a[1], self.iss_b, self.seq(0), SYN | ACK,
                                   65535, self._syn_options()), self.b, self.a)
        self._put(t + rtt + 0.0001, Segment(self.a[1], self.b[1], self.seq(0), self.iss_b + 1,
                                            ACK, 65535), self.a, self.b)
        return t + rtt + 0.0001

    def data(self, t: float, i: int, *, n: int = 1, fin: bool = False, ip_id: int = 0,
             length: int | None = None) -> None:
        """A sends data segment ``i`` (``n`` segments' worth, or ``length`` bytes)."""
        size = n * self.mss if length is None else length
        seg = Segment(self.a[1], self.b[1], self.seq(i), self.iss_b + 1,
                      ACK | (FIN if fin else 0), 65535, (), bytes(size))
        self._put(t, seg, self.a, self.b, ip_id)

    def burst(self, t: float, first: int, count: int, *, skip=()) -> list[float]:
        """Segments first..first+count-1 leaving back to back from ``t``; returns their times
        (a segment in ``skip`` is sent but left out of the trace: lost before a vantage)."""
        times = []
        for k in range(count):
            ts = t + k * SER
            times.append(ts)
            if first + k not in skip:
                self.data(ts, first + k)
        return times

    def ack(self, t: float, upto: int, *, sack=(), dsack=None, reorder: bool = False,
            window: int = 65535) -> None:
        """B acknowledges everything below segment ``upto``, with SACK blocks given as
        (first, end) segment numbers and an optional DSACK block (reported first)."""
        blocks = []
        if dsack is not None:
            blocks.append((self.seq(dsack[0]), self.seq(dsack[1])))
        blocks += [(self.seq(a), self.seq(b)) for a, b in sack]
        opts = (("NOP", None), ("NOP", None), ("SAck", tuple(blocks))) if blocks else ()
        seg = Segment(self.b[1], self.a[1], self.iss_b + 1, self.seq(upto), ACK, window, opts,
                      b"", REORDER_BIT if reorder else 0)
        self._put(t, seg, self.b, self.a)

    def raw(self, t: float, frame: bytes) -> None:
        self.frames.append((t, len(self.frames), frame))

    def write(self, path) -> str:
        with PcapWriter(str(path)) as w:
            for t, _, frame in sorted(self.frames):
                w.write(t, frame)
        return str(path)
