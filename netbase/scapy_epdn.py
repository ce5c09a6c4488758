"""Scapy support for RD-TCP: the EPDN option, the RD-TCP-permitted option, the reorder bit.

Registering is done once, here (style-models.md §6, item 15): kind 253 gets the name "EPDN"
with the 12-byte format ``!HII`` (ExID, drop_lo, drop_hi) in both ``TCPOptions`` dicts, so
``pkt.show()`` names and decodes a stamp. The 4-byte RD-TCP-permitted form does not match that
format and comes back from Scapy as raw bytes: :func:`decode_rdtcp_option` decodes both forms
and checks the ExID. The reorder bit is bit 0x02 of TCP header byte 12; Scapy splits that byte
into ``dataofs`` (4 bits), ``reserved`` (3 bits) and the top bit of ``flags`` (AE), so the bit
shows in ``pkt.show()`` as ``reserved = 1``; :func:`reorder_bit_of` reads it.
"""

from __future__ import annotations

from scapy.layers.inet import IP, TCP
from scapy.layers.l2 import Ether

from netbase.segment import REORDER_BIT, Segment
from netbase.wire import EPDN_EXID, EPDN_KIND, decode_frame, encode_frame

__all__ = ["register", "decode_rdtcp_option", "segment_to_scapy", "scapy_to_segment",
           "reorder_bit_of"]

def register() -> None:
    """Teach Scapy the EPDN option (idempotent). Scapy's table is looked up where it lives now,
    not kept from import time: a module that reloads Scapy's layers (a test tool's set-up) makes
    new tables, and a flag of its own would leave those without the option."""
    from scapy.layers import inet
    options = inet.TCPOptions
    if options[0].get(EPDN_KIND) != ("EPDN", "!HII") or options[1].get("EPDN") != EPDN_KIND:
        options[0][EPDN_KIND] = ("EPDN", "!HII")
        options[1]["EPDN"] = EPDN_KIND


def decode_rdtcp_option(value) -> tuple[str, tuple[int, int] | None] | None:
    """('EPDN', (lo, hi)) or ('RDTCPOK', None) from a Scapy option value, None if not ours."""
    if isinstance(value, tuple) and len(value) == 3:
        exid, lo, hi = value
        return ("EPDN", (lo, hi)) if exid == EPDN_EXID else None
    if isinstance(value, (bytes, bytearray)) and len(value) == 2:
        return ("RDTCPOK", None) if int.from_bytes(value, "big") == EPDN_EXID else None
    return None


def reorder_bit_of(pkt) -> bool:
    """The RD-TCP reorder bit of a Scapy TCP packet (header byte 12, mask 0x02)."""
    return bool(bytes(pkt[TCP])[12] & REORDER_BIT)


def segment_to_scapy(seg: Segment, *, src_ip: str, dst_ip: str, src_mac: str = "00:00:00:00:00:01",
                     dst_mac: str = "00:00:00:00:00:02"):
    """The frame of ``seg`` as a Scapy packet (built from our exact bytes: lossless)."""
    register()
    return Ether(encode_frame(seg, src_ip=src_ip, dst_ip=dst_ip, src_mac=src_mac, dst_mac=dst_mac))


def scapy_to_segment(pkt) -> tuple[str, str, Segment]:
    """(src_ip, dst_ip, Segment) of a Scapy Ether/IP/TCP packet."""
    if IP not in pkt or TCP not in pkt:
        raise ValueError("not an IPv4/TCP packet")
    frame = bytes(pkt) if Ether in pkt else bytes(Ether() / pkt[IP])
    return decode_frame(frame)
