"""Scapy endpoints: the live host's frames built, parsed and carried by Scapy.

``live.host --io scapy`` (and ``experiments.live_run --io scapy``) swaps the struct codec
(``netbase.wire``) and the raw socket (``netbase.packet_socket.RawPort``) for Scapy's own: a
segment becomes ``Ether()/IP()/TCP(options=[...])/Raw()`` field by field, with the EPDN and
RD-TCP-permitted options through the project's Scapy layer (``netbase.scapy_epdn``, kind 253
registered in Scapy's ``TCPOptions``), Scapy computes the checksums and the bytes, and frames
go out and come in through Scapy's ``L2Socket`` (AF_PACKET, promiscuous). A received frame is
dissected by Scapy and read back field by field; its TCP checksum is verified with Scapy's
``in4_chksum``. The engine is the same object either way.

The frames are those of the struct codec byte for byte (IPv4 id 0, DF, TTL 64; options padded
with zero bytes to the 32-bit boundary, RFC 9293 §3.1), which ``tests/live/test_scapy_io.py``
checks; what differs is the cost: Scapy takes tens of times longer per frame, so a Scapy host
sustains a lower rate (experiments/LIVE.md has the figures).
"""

from __future__ import annotations

import errno
import socket
import struct
from typing import Any

from netbase.scapy_epdn import decode_rdtcp_option, register
from netbase.segment import Segment
from netbase.wire import EPDN_EXID, EPDN_KIND, MalformedPacket

__all__ = ["ScapyCodec", "ScapyPort", "StructCodec", "CODECS", "scapy_options",
           "segment_options"]

_RCVBUF = 4 << 20           # as RawPort: Scapy's default (64 KiB) overflows under a burst


def _scapy():
    """Scapy's layers, imported on first use (a struct host never pays for them)."""
    from scapy.layers import inet, l2
    from scapy.packet import Raw

    register()
    return l2.Ether, inet.IP, inet.TCP, Raw, inet.TCPOptions, inet.in4_chksum


# -- options: the engine's names <-> Scapy's ------------------------------------------------------
def scapy_options(options: tuple) -> list:
    """A segment's options as Scapy's TCP ``options`` list."""
    out = []
    for name, value in options:
        if name == "SAck":
            out.append(("SAck", tuple(edge for block in value for edge in block)))
        elif name == "EOL":
            out.append(("EOL", None))
        elif name == "EPDN":
            out.append(("EPDN", (EPDN_EXID, value[0], value[1])))
        elif name == "RDTCPOK":
            out.append((EPDN_KIND, EPDN_EXID.to_bytes(2, "big")))
        elif name == "Malformed":
            raise ValueError("a malformed option list cannot be built")
        else:
            out.append((name, value))
    return out


def segment_options(options: list, raw: bytes = b"") -> tuple:
    """Scapy's parsed ``options`` as the engine's (``netbase.segment``) names and values;
    ``raw``: the option bytes as received, for what follows an EOL (Scapy stops there, the
    engine keeps those bytes so a segment re-encodes to the same header)."""
    _, _, _, _, tcp_options, _ = _scapy()
    out = []
    for name, value in options:
        if name == "SAck":
            out.append(("SAck", tuple(zip(value[0::2], value[1::2]))))
        elif name == "EOL":
            out.append(("EOL", _after_eol(raw)))
            break
        elif name == "SAckOK":
            out.append(("SAckOK", b""))
        elif name in ("EPDN", EPDN_KIND):
            ours = decode_rdtcp_option(value)
            out.append(ours if ours is not None else (EPDN_KIND, _raw_value(name, value)))
        elif name in ("MSS", "WScale", "Timestamp", "NOP"):
            out.append((name, value))
        else:                            # an option the engine does not know: (kind, bytes)
            kind = name if isinstance(name, int) else tcp_options[1][name]
            out.append((kind, _raw_value(name, value)))
    return tuple(out)


def _after_eol(raw: bytes) -> bytes:
    """The bytes after the first End of Option List in an option area (RFC 9293 §3.2: kind 0
    ends the list, kind 1 is one byte, every other kind carries its length)."""
    i = 0
    while i < len(raw):
        if raw[i] == 0:
            return bytes(raw[i + 1:])
        i += 1 if raw[i] == 1 else max(2, raw[i + 1] if i + 1 < len(raw) else 2)
    return b""


def _raw_value(name, value) -> bytes:
    """The option's value bytes as they were on the wire."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    _, _, _, _, tcp_options, _ = _scapy()
    kind = name if isinstance(name, int) else tcp_options[1][name]
    fmt = tcp_options[0][kind][1]
    return struct.pack(fmt, *(value if isinstance(value, tuple) else (value,)))


# -- codecs: what the live host encodes and decodes with ------------------------------------------
class StructCodec:
    """``netbase.wire``: the project's struct codec (the default)."""

    name = "struct"

    @staticmethod
    def encoder(*, src_ip: str, dst_ip: str, src_mac: str, dst_mac: str):
        from netbase.wire import FrameEncoder
        return FrameEncoder(src_ip=src_ip, dst_ip=dst_ip, src_mac=src_mac, dst_mac=dst_mac).encode

    @staticmethod
    def decode(frame) -> tuple[str, str, Segment]:
        from netbase.wire import decode_frame
        return decode_frame(frame)

    @staticmethod
    def raw(frame) -> bytes:
        return frame


class ScapyCodec:
    """Segments to frames and back through Scapy's layers (see the module docstring)."""

    name = "scapy"

    @staticmethod
    def encoder(*, src_ip: str, dst_ip: str, src_mac: str, dst_mac: str):
        ether, ip, tcp, raw, _, _ = _scapy()

        def encode(seg: Segment) -> bytes:
            pkt = (ether(src=src_mac, dst=dst_mac)
                   / ip(src=src_ip, dst=dst_ip, id=0, flags="DF", ttl=64)
                   / tcp(sport=seg.src_port, dport=seg.dst_port, seq=seg.seq, ack=seg.ack,
                         reserved=(seg.reserved >> 1) & 0x7,
                         flags=seg.flags | ((seg.reserved & 0x1) << 8), window=seg.window,
                         urgptr=seg.urgent, options=scapy_options(seg.options)))
            if seg.payload:
                pkt = pkt / raw(load=seg.payload)
            return bytes(pkt)
        return encode

    @staticmethod
    def decode(pkt) -> tuple[str, str, Segment]:
        """(src_ip, dst_ip, Segment) of a Scapy packet (or frame bytes, dissected here)."""
        ether, ip_layer, tcp_layer, raw, _, in4_chksum = _scapy()
        if isinstance(pkt, (bytes, bytearray)):
            pkt = ether(bytes(pkt))
        if ip_layer not in pkt or tcp_layer not in pkt:
            raise MalformedPacket("not an IPv4/TCP packet")
        ip, tcp = pkt[ip_layer], pkt[tcp_layer]
        datagram = bytes(ip)                 # the dissected bytes: Scapy keeps them
        ihl = ip.ihl * 4
        if ip.len is None or ip.len > len(datagram) or ip.len < ihl + 20:
            raise MalformedPacket(f"IPv4 total length {ip.len} does not fit the packet")
        segment = bytearray(datagram[ihl:ip.len])
        segment[16:18] = b"\0\0"             # the checksum field counts as zero (RFC 9293 §3.1)
        if in4_chksum(socket.IPPROTO_TCP, ip, bytes(segment)) != tcp.chksum:
            raise MalformedPacket("bad TCP checksum")
        flags = int(tcp.flags)
        load = pkt[raw].load if raw in pkt else b""
        seg = Segment(tcp.sport, tcp.dport, tcp.seq, tcp.ack, flags & 0xFF, tcp.window,
                      segment_options(tcp.options, bytes(segment[20:tcp.dataofs * 4])),
                      bytes(load),
                      (tcp.reserved << 1) | ((flags >> 8) & 0x1), tcp.urgptr)
        return ip.src, ip.dst, seg

    @staticmethod
    def raw(pkt) -> bytes:
        return bytes(pkt)


CODECS = {"struct": StructCodec, "scapy": ScapyCodec}


# -- the port -------------------------------------------------------------------------------------
class ScapyPort:
    """The live host's port on Scapy's ``L2Socket``: ``sock`` (selectable), ``recv_frames()``
    (Scapy packets, dissected by the socket), ``send(frame)``."""

    def __init__(self, ifname: str):
        from scapy.config import conf

        register()          # before the socket dissects a frame: EPDN by its name, not raw
        self.ifname = ifname
        self.rx_packets = self.tx_packets = self.tx_errors = 0
        try:
            self.l2 = conf.L2socket(iface=ifname, promisc=True, nofilter=1)
        except PermissionError:
            raise OSError(errno.EPERM, f"cannot open a Scapy L2 socket on {ifname!r}: "
                                       "AF_PACKET needs root or CAP_NET_RAW") from None
        except (OSError, ValueError) as e:   # Scapy: ValueError for an interface it cannot find
            raise OSError(getattr(e, "errno", None) or errno.ENODEV,
                          f"interface {ifname!r}: {getattr(e, 'strerror', None) or e}") from None
        self.l2.ins.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, _RCVBUF)
        self.l2.ins.setblocking(False)
        self.sock = self.l2.ins

    def recv_frames(self, limit: int = 256) -> list[Any]:
        out = []
        while len(out) < limit:
            try:
                pkt = self.l2.recv()
            except (BlockingIOError, InterruptedError):
                break
            if pkt is not None:              # None: our own transmission coming back
                out.append(pkt)
        self.rx_packets += len(out)
        return out

    def send(self, frame) -> bool:
        try:
            self.l2.send(frame)
        except OSError:
            self.tx_errors += 1
            return False
        self.tx_packets += 1
        return True

    def close(self) -> None:
        self.l2.close()
