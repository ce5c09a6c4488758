"""A TCP segment as the engines exchange it: header fields, parsed options, payload.

Options are kept as a tuple of ``(name, value)`` pairs in wire order so that a segment decoded
from bytes encodes back to the same bytes (netbase/wire.py). Names follow Scapy's TCPOptions
(``MSS``, ``WScale``, ``SAckOK``, ``SAck``, ``Timestamp``, ``NOP``, ``EOL``) plus the two RD-TCP
options of docs/architecture.md §4 (``EPDN`` with ``(drop_lo, drop_hi)``, ``RDTCPOK``). An option
the parser does not know stays ``(kind, raw_bytes)``; unparseable trailing bytes stay
``("Malformed", raw_bytes)`` and are ignored by the engine.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

__all__ = ["Segment", "FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR",
           "REORDER_BIT", "flag_names"]

# TCP header flags (RFC 9293 §3.1)
FIN, SYN, RST, PSH, ACK, URG, ECE, CWR = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80
# RD-TCP's reorder bit ([RDTCP] §3, docs/architecture.md §4): bit 0x02 of header byte 12, a reserved bit, kept
# in Segment.reserved (the low nibble of byte 12: three reserved bits and AE).
REORDER_BIT = 0x02

# slots where the interpreter has them (3.10+); the simulator's workers may run on PyPy 3.9
_SLOTS = {"slots": True} if sys.version_info >= (3, 10) else {}

_FLAG_NAMES = ((SYN, "S"), (ACK, "A"), (FIN, "F"), (RST, "R"), (PSH, "P"), (URG, "U"),
               (ECE, "E"), (CWR, "C"))


def flag_names(flags: int) -> str:
    return "".join(n for bit, n in _FLAG_NAMES if flags & bit) or "."


@dataclass(**_SLOTS)
class Segment:
    src_port: int
    dst_port: int
    seq: int
    ack: int = 0
    flags: int = ACK
    window: int = 0
    options: tuple = ()
    payload: bytes = b""
    reserved: int = 0            # low nibble of header byte 12 (reserved bits + AE)
    urgent: int = 0

    @property
    def reorder(self) -> bool:
        """The RD-TCP reorder bit (meaningful only on a flow that negotiated RD-TCP)."""
        return bool(self.reserved & REORDER_BIT)

    @property
    def seg_len(self) -> int:
        """Sequence space the segment occupies: payload plus one for SYN and for FIN."""
        return len(self.payload) + (1 if self.flags & SYN else 0) + (1 if self.flags & FIN else 0)

    def option(self, name):
        """The value of the first option called ``name``, or None."""
        for n, v in self.options:
            if n == name:
                return v
        return None

    def has_option(self, name) -> bool:
        return any(n == name for n, _ in self.options)

    def __str__(self) -> str:
        r = " R" if self.reorder else ""
        return (f"{self.src_port}>{self.dst_port} [{flag_names(self.flags)}{r}] seq={self.seq} "
                f"ack={self.ack} win={self.window} len={len(self.payload)} opts={list(self.options)}")
