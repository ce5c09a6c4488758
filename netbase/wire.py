"""Ethernet + IPv4 + TCP frames to and from :class:`netbase.segment.Segment`, fast.

struct-based (Scapy is ~50x slower; netbase/scapy_epdn.py converts for display and I/O). A frame
decoded and re-encoded gives the same TCP header and options byte for byte. Malformed input
raises :class:`MalformedPacket` with a message saying what is wrong; a malformed TCP *option*
list is not fatal (RFC 9293 §3.1: options are parsed forgivingly): the unparseable tail is kept
as ``("Malformed", raw)`` and ignored by the engine.
"""

from __future__ import annotations

import socket
import struct
import sys

from netbase.checksum import internet_checksum  # noqa: F401  (reference implementation, see _sum16)
from netbase.segment import Segment

__all__ = ["MalformedPacket", "encode_frame", "FrameEncoder", "decode_frame", "encode_options", "decode_options",
           "ETHERTYPE_IPV4", "IPPROTO_TCP", "EPDN_KIND", "EPDN_EXID", "EPDN_LEN", "RDTCPOK_LEN"]

ETHERTYPE_IPV4 = 0x0800
IPPROTO_TCP = 6
# RD-TCP options (docs/architecture.md §4): RFC 6994 experimental kind 253 with ExID 0x5244 ("RD")
EPDN_KIND = 253
EPDN_EXID = 0x5244
EPDN_LEN = 12       # kind, len, ExID(2), drop_lo(4), drop_hi(4)
RDTCPOK_LEN = 4     # kind, len, ExID(2): RD-TCP permitted, on SYN and SYN-ACK

_ETH = struct.Struct("!6s6sH")
_IP = struct.Struct("!BBHHHBBHII")      # addresses as integers: summed without conversion
_TCP = struct.Struct("!HHIIBBHHH")
_HII = struct.Struct("!HII")
_II = struct.Struct("!II")


def _sum16_bigint(data, start: int = 0, end: int | None = None) -> int:
    """RFC 1071 ones'-complement sum of ``data[start:end]`` (an odd length padded with a zero
    byte, RFC 9293 §3.1), as an integer in [0, 0xFFFF].

    Same value as netbase.checksum.ones_complement_sum, faster for full-size frames on CPython:
    because 2^16 == 1 (mod 0xFFFF), the sum of the 16-bit words of a buffer is congruent to the
    buffer read as one big integer, so one C-level ``%`` replaces the folding loop (RFC 1071
    §2(C)). The ones'-complement sum is 0 only for all-zero input; a multiple of 0xFFFF is 0xFFFF.
    A range is read through a memoryview (no copy); the padding byte is a shift.
    """
    if end is None:
        end = len(data)
    n = int.from_bytes(memoryview(data)[start:end] if start or end != len(data) else data, "big")
    if (end - start) & 1:
        n <<= 8
    r = n % 0xFFFF
    return r if r or not n else 0xFFFF


def _sum16_loop(data, start: int = 0, end: int | None = None) -> int:
    """The same sum as ``_sum16_bigint``, byte by byte: PyPy's JIT turns this loop into machine
    code, while its big integers are slow; on CPython it is the other way round (figures in
    ``python bench/bench_sim.py --checksum``). Indexing ``data`` in place avoids a slice, which
    on PyPy costs more than the sum.

    The high bytes of the 16-bit words (even offsets from ``start``) and the low bytes are
    summed separately, eight bytes per iteration, and combined once at the end as
    ``(hi << 8) + lo``: the same total as summing the words, with no shift or mask per word and
    a quarter of the loop overhead (PyPy, 1448 bytes: 1.7 -> 0.55 us). The fold to 16 bits is
    one ``%`` (2^16 == 1 mod 0xFFFF, RFC 1071 §2(C)).
    """
    if end is None:
        end = len(data)
    hi = lo = 0
    i = start
    stop = end - 7
    while i < stop:
        hi += data[i] + data[i + 2] + data[i + 4] + data[i + 6]
        lo += data[i + 1] + data[i + 3] + data[i + 5] + data[i + 7]
        i += 8
    while i < end - 1:
        hi += data[i]
        lo += data[i + 1]
        i += 2
    if i < end:
        hi += data[i]           # an odd length: the last byte is padded with zero (RFC 9293 §3.1)
    s = (hi << 8) + lo
    if not s:
        return 0
    r = s % 0xFFFF
    return r if r else 0xFFFF


# each interpreter gets the variant that is fast on it; both give the same value (tests)
_sum16 = _sum16_loop if sys.implementation.name == "pypy" else _sum16_bigint


def _pseudo_sum(s: int, d: int, tcp_len: int) -> int:
    """Sum of the TCP pseudo-header (RFC 9293 §3.1): addresses (as 32-bit integers, two words
    each), protocol, TCP length."""
    return (s >> 16) + (s & 0xFFFF) + (d >> 16) + (d & 0xFFFF) + IPPROTO_TCP + tcp_len


class MalformedPacket(ValueError):
    """A frame that is not Ethernet/IPv4/TCP, or is truncated or corrupt."""


# Address conversions are memoised in plain dicts, bounded by clearing: functools.lru_cache
# is pure Python on PyPy and cost ~4% of a simulation there (vmprof), for three addresses.
_MEMO_LIMIT = 4096
_IP_INT: dict = {}
_MAC_BYTES: dict = {}
_IP_STR: dict = {}


def _memo(memo: dict, key, value):
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value


def _ip_int(ip: str) -> int:
    """The dotted-quad ``ip`` as a 32-bit integer (ValueError with the address if it is not)."""
    n = _IP_INT.get(ip)
    if n is not None:
        return n
    try:
        return _memo(_IP_INT, ip, int.from_bytes(socket.inet_aton(ip), "big"))
    except (OSError, TypeError):
        raise ValueError(f"not an IPv4 address: {ip!r}") from None


def _mac_bytes(mac: str) -> bytes:
    b = _MAC_BYTES.get(mac)
    if b is not None:
        return b
    try:
        b = bytes.fromhex(mac.replace(":", "").replace("-", ""))
    except (ValueError, AttributeError, TypeError):
        b = b""
    if len(b) != 6:
        raise ValueError(f"not a MAC address: {mac!r}")
    return _memo(_MAC_BYTES, mac, b)


def _ip_str(n: int) -> str:
    s = _IP_STR.get(n)
    if s is not None:
        return s
    return _memo(_IP_STR, n, socket.inet_ntoa(n.to_bytes(4, "big")))


def _mac_str(b: bytes) -> str:
    return ":".join(f"{x:02x}" for x in b)


# ---------------------------------------------------------------------------------- options
def encode_options(options) -> bytes:
    out = bytearray()
    for name, value in options:
        if name == "NOP":
            out.append(1)
        elif name == "EOL":
            out.append(0)
            out += value or b""
        elif name == "MSS":
            out += struct.pack("!BBH", 2, 4, value)
        elif name == "WScale":
            out += struct.pack("!BBB", 3, 3, value)
        elif name == "SAckOK":
            out += b"\x04\x02"
        elif name == "SAck":
            out += bytes((5, 2 + 8 * len(value)))
            for left, right in value:
                out += _II.pack(left, right)
        elif name == "Timestamp":
            out += b"\x08\x0a" + _II.pack(*value)
        elif name == "EPDN":
            out += bytes((EPDN_KIND, EPDN_LEN)) + _HII.pack(EPDN_EXID, value[0], value[1])
        elif name == "RDTCPOK":
            out += bytes((EPDN_KIND, RDTCPOK_LEN)) + EPDN_EXID.to_bytes(2, "big")
        elif name == "Malformed":
            out += value
        elif isinstance(name, int):
            out += bytes((name, 2 + len(value))) + value
        else:
            raise ValueError(f"unknown TCP option {name!r}")
    if len(out) % 4:
        out += bytes(4 - len(out) % 4)   # EOL padding to the 32-bit boundary (RFC 9293 §3.1)
    if len(out) > 40:
        raise ValueError(f"TCP options take {len(out)} bytes, more than the 40 the header allows")
    return bytes(out)


def _decode_one(kind: int, body: bytes):
    """(name, value) of a well-formed option ``kind`` with ``body`` (bytes after kind+len)."""
    n = len(body)
    if kind == 2 and n == 2:
        return "MSS", int.from_bytes(body, "big")
    if kind == 3 and n == 1:
        return "WScale", body[0]
    if kind == 4 and n == 0:
        return "SAckOK", b""
    if kind == 5 and n % 8 == 0 and n:
        return "SAck", tuple(_II.unpack_from(body, i) for i in range(0, n, 8))
    if kind == 8 and n == 8:
        return "Timestamp", _II.unpack(body)
    if kind == EPDN_KIND and n >= 2 and int.from_bytes(body[:2], "big") == EPDN_EXID:
        if n == EPDN_LEN - 2:
            return "EPDN", _II.unpack_from(body, 2)
        if n == RDTCPOK_LEN - 2:
            return "RDTCPOK", None
    return kind, bytes(body)


def decode_options(raw: bytes) -> tuple:
    opts = []
    i, n = 0, len(raw)
    while i < n:
        kind = raw[i]
        if kind == 0:
            opts.append(("EOL", bytes(raw[i + 1:])))
            break
        if kind == 1:
            opts.append(("NOP", None))
            i += 1
            continue
        if i + 1 >= n or raw[i + 1] < 2 or i + raw[i + 1] > n:
            opts.append(("Malformed", bytes(raw[i:])))   # bad length: stop, keep the bytes
            break
        length = raw[i + 1]
        opts.append(_decode_one(kind, raw[i + 2:i + length]))
        i += length
    return tuple(opts)


# ----------------------------------------------------------------------------------- frames
def encode_frame(seg: Segment, *, src_ip: str, dst_ip: str, src_mac: str = "00:00:00:00:00:01",
                 dst_mac: str = "00:00:00:00:00:02", ttl: int = 64, ip_id: int = 0) -> bytes:
    """An Ethernet II frame carrying ``seg`` in IPv4, with valid IPv4 and TCP checksums.

    The headers are packed once, with their checksums already in place: each checksum is the
    ones' complement of a sum computed from the header fields as 16-bit words, plus (TCP) the
    options and the payload read as big integers. The grouping of a ones'-complement sum
    does not change its value (RFC 1071 §2(A)), so this equals the checksum over the packed
    bytes, without concatenating header and payload first.
    """
    return _encode(seg, _ETH.pack(_mac_bytes(dst_mac), _mac_bytes(src_mac), ETHERTYPE_IPV4),
                   _ip_int(src_ip), _ip_int(dst_ip), ttl, ip_id)


class FrameEncoder:
    """``encode_frame`` for one (source, destination) pair with the addresses converted once:
    a simulated host sends every segment of a connection with the same four addresses, so the
    Ethernet header and the IPv4 addresses as integers are made here, not per frame. Frames are
    byte for byte those of ``encode_frame`` with the same arguments."""

    __slots__ = ("_eth", "_src", "_dst")

    def __init__(self, *, src_ip: str, dst_ip: str, src_mac: str, dst_mac: str):
        self._eth = _ETH.pack(_mac_bytes(dst_mac), _mac_bytes(src_mac), ETHERTYPE_IPV4)
        self._src = _ip_int(src_ip)
        self._dst = _ip_int(dst_ip)

    def encode(self, seg: Segment, ttl: int = 64, ip_id: int = 0) -> bytes:
        return _encode(seg, self._eth, self._src, self._dst, ttl, ip_id)


def _encode(seg: Segment, eth: bytes, s: int, d: int, ttl: int, ip_id: int) -> bytes:
    """The frame of ``seg`` behind the packed Ethernet header ``eth``, from IPv4 address ``s``
    to ``d`` (integers); see ``encode_frame``."""
    opts = encode_options(seg.options) if seg.options else b""
    payload = seg.payload
    doff = 5 + len(opts) // 4
    tcp_len = doff * 4 + len(payload)
    sport, dport, sq, ak = seg.src_port, seg.dst_port, seg.seq, seg.ack
    off = (doff << 4) | (seg.reserved & 0xF)
    flags, window, urgent = seg.flags, seg.window, seg.urgent
    addr = _pseudo_sum(s, d, tcp_len)          # includes the protocol and the TCP length
    total = (addr + sport + dport + (sq >> 16) + (sq & 0xFFFF) + (ak >> 16) + (ak & 0xFFFF)
             + ((off << 8) | flags) + window + urgent)
    if opts:
        total += _sum16(opts)
    if payload:
        total += _sum16(payload)    # it starts at an even offset: its own padding is the segment's
    tcp_csum = (~(total % 0xFFFF or 0xFFFF)) & 0xFFFF   # total > 0: the protocol is in it
    ip_len = 20 + tcp_len
    ip_total = (0x4500 + ip_len + ip_id + 0x4000 + ((ttl << 8) | IPPROTO_TCP)
                + addr - IPPROTO_TCP - tcp_len)       # the addresses' words, from the pseudo sum
    ip_csum = (~(ip_total % 0xFFFF or 0xFFFF)) & 0xFFFF
    return b"".join((eth,
                     _IP.pack(0x45, 0, ip_len, ip_id, 0x4000, ttl, IPPROTO_TCP, ip_csum, s, d),
                     _TCP.pack(sport, dport, sq, ak, off, flags, window, tcp_csum, urgent),
                     opts, payload))


def decode_frame(frame: bytes, *, verify_checksum: bool = True) -> tuple[str, str, Segment]:
    """(src_ip, dst_ip, segment) of an Ethernet/IPv4/TCP frame; MalformedPacket otherwise."""
    if len(frame) < 14:
        raise MalformedPacket(f"frame of {len(frame)} bytes is shorter than an Ethernet header")
    _dst, _src, etype = _ETH.unpack_from(frame)
    if etype != ETHERTYPE_IPV4:
        raise MalformedPacket(f"EtherType 0x{etype:04x} is not IPv4")
    if len(frame) < 34:
        raise MalformedPacket("truncated IPv4 header")
    vihl, _tos, total, _id, _frag, _ttl, proto, _c, s, d = _IP.unpack_from(frame, 14)
    ihl = (vihl & 0xF) * 4
    if vihl >> 4 != 4 or ihl < 20:
        raise MalformedPacket(f"bad IPv4 version/IHL byte 0x{vihl:02x}")
    if total < ihl + 20 or 14 + total > len(frame):
        raise MalformedPacket(f"IPv4 total length {total} does not fit the {len(frame) - 14}-byte packet")
    if proto != IPPROTO_TCP:
        raise MalformedPacket(f"IPv4 protocol {proto} is not TCP")
    t = 14 + ihl
    sport, dport, seq, ack, off, flags, win, _csum, urg = _TCP.unpack_from(frame, t)
    doff = (off >> 4) * 4
    tcp_len = total - ihl
    if doff < 20 or doff > tcp_len:
        raise MalformedPacket(f"TCP data offset {doff // 4} is outside the {tcp_len}-byte segment")
    end = t + tcp_len
    # a segment verifies when its ones'-complement sum with the pseudo-header is 0xFFFF
    # (RFC 1071 §1), i.e. when their (positive) total is a multiple of 0xFFFF
    if verify_checksum and (_pseudo_sum(s, d, tcp_len) + _sum16(frame, t, end)) % 0xFFFF:
        raise MalformedPacket("bad TCP checksum")
    options = decode_options(frame[t + 20:t + doff]) if doff > 20 else ()
    seg = Segment(sport, dport, seq, ack, flags, win, options, bytes(frame[t + doff:end]),
                  off & 0xF, urg)
    return _ip_str(s), _ip_str(d), seg
