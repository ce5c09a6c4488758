"""TCP/IPv4 headers of captured Ethernet frames, for the analyzer.

netbase.wire.decode_frame decodes whole frames for the engines; a trace analyzer needs less and
more: it must read *header traces* (a capture with a snap length keeps 64-128 bytes of each
frame, as TCPdebug's traces did), where the payload is gone but the IPv4
total length still says how long it was, and it must not reject frames whose checksum a NIC
was to fill in (checksum offload: a capture at the sender shows them unset). So the headers are
read here with struct, the payload length comes from the IPv4 header, nothing is copied, and
the TCP options go through netbase.wire.decode_options (the same option names as the engines).
"""

from __future__ import annotations

import socket
import struct

from netbase.wire import decode_options

__all__ = ["Packet", "MalformedFrame", "NotTcp", "parse_frame", "ip_text"]

_ETH_IPV4 = 0x0800
_ETH_VLAN = (0x8100, 0x88A8)       # one 802.1Q / 802.1ad tag is skipped
_IP = struct.Struct("!BBHHHBBHII")
_TCP = struct.Struct("!HHIIBBHHH")
_U16 = struct.Struct("!H")


class MalformedFrame(ValueError):
    """A frame that claims to be IPv4/TCP but whose headers are cut or inconsistent."""


class NotTcp(Exception):
    """A well-formed frame that is not an unfragmented IPv4/TCP packet (ARP, IPv6, UDP, ...)."""


class Packet:
    """The header fields the analyzer uses. Addresses are 32-bit integers (``ip_text`` prints
    them); ``length`` is the TCP payload length from the IPv4 header, whether or not the
    capture kept the payload."""

    __slots__ = ("src", "dst", "sport", "dport", "seq", "ack", "flags", "window", "reserved",
                 "options", "length", "ip_id")

    def __init__(self, src, dst, sport, dport, seq, ack, flags, window, reserved, options,
                 length, ip_id):
        self.src, self.dst, self.sport, self.dport = src, dst, sport, dport
        self.seq, self.ack, self.flags, self.window = seq, ack, flags, window
        self.reserved, self.options, self.length, self.ip_id = reserved, options, length, ip_id

    def option(self, name):
        for n, v in self.options:
            if n == name:
                return v
        return None


def parse_frame(data: bytes, orig_len: int) -> Packet:
    """The TCP headers of an Ethernet frame captured as ``data`` (``orig_len`` bytes on the
    wire). NotTcp for other traffic, MalformedFrame when the headers are cut or inconsistent."""
    n = len(data)
    if n < 14:
        raise MalformedFrame(f"{n}-byte frame is shorter than an Ethernet header")
    etype = _U16.unpack_from(data, 12)[0]
    off = 14
    if etype in _ETH_VLAN:
        if n < 18:
            raise MalformedFrame("truncated 802.1Q tag")
        etype = _U16.unpack_from(data, 16)[0]
        off = 18
    if etype != _ETH_IPV4:
        raise NotTcp(f"EtherType 0x{etype:04x}")
    if n < off + 20:
        raise MalformedFrame("truncated IPv4 header")
    vihl, _tos, total, ip_id, frag, _ttl, proto, _csum, src, dst = _IP.unpack_from(data, off)
    ihl = (vihl & 0xF) * 4
    if vihl >> 4 != 4 or ihl < 20:
        raise MalformedFrame(f"bad IPv4 version/IHL byte 0x{vihl:02x}")
    if proto != 6:
        raise NotTcp(f"IP protocol {proto}")
    if frag & 0x3FFF:                   # MF set or a non-zero offset: a fragment
        raise NotTcp("IPv4 fragment")
    if total < ihl + 20:
        raise MalformedFrame(f"IPv4 total length {total} leaves no room for a TCP header")
    # what the wire carried: a capture without a snap length must hold the whole packet
    if off + total > max(orig_len, n):
        raise MalformedFrame(f"IPv4 total length {total} does not fit the "
                             f"{max(orig_len, n) - off}-byte packet")
    t = off + ihl
    if n < t + 20:
        raise MalformedFrame("truncated TCP header (snap length too short)")
    sport, dport, seq, ack, doff_byte, flags, window, _c, _u = _TCP.unpack_from(data, t)
    doff = (doff_byte >> 4) * 4
    if doff < 20 or doff > total - ihl:
        raise MalformedFrame(f"TCP data offset {doff // 4} is outside the "
                             f"{total - ihl}-byte segment")
    if n < t + doff:
        raise MalformedFrame("truncated TCP options (snap length too short)")
    options = decode_options(data[t + 20:t + doff]) if doff > 20 else ()
    return Packet(src, dst, sport, dport, seq, ack, flags, window, doff_byte & 0xF, options,
                  total - ihl - doff, ip_id)


_U32 = struct.Struct("!I")


def ip_text(addr: int) -> str:
    """Dotted quad of a 32-bit IPv4 address."""
    return socket.inet_ntoa(_U32.pack(addr))
