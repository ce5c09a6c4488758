"""Frame builders and checks shared by the PTF suite and the library-mode pytest suite.

Expected packets are written out, not computed by a model of the gateway: a test builds the
input with ``tcp_frame(...)`` and the exact output it expects with the same builder (MACs,
TTL, options as they must appear), as p4lang/tutorials' PTF tests do. Scapy fills in lengths and
checksums of both, so a byte comparison checks the gateway's checksums too; ``checksums_ok``
re-verifies any output independently.
"""

from __future__ import annotations

import struct

from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw
from scapy.utils import checksum

__all__ = ["EPDN_KIND", "EPDN_EXID", "epdn_option", "epdn_bytes", "tcp_frame", "udp_frame", "arp_frame",
           "checksums_ok", "epdn_of", "deep_merge", "SWITCH_MAC", "HOST_A_MAC", "R2_MAC", "HOST_A_IP",
           "HOST_B_IP", "PORT_A", "PORT_R2", "PORT_ALT", "TEST_CONFIG", "LEGACY_CONFIG"]

EPDN_KIND = 253          # RFC 6994 experimental option (docs/architecture.md §4)
EPDN_EXID = 0x5244

# The test gateway: host A on port 1 (edge), R2 on port 2 (the bottleneck), an alternate link to
# R2 on port 3; a host on port 4 reached only by a /32 with a small MTU (the MTU rule).
PORT_A, PORT_R2, PORT_ALT, PORT_SMALL_MTU = 1, 2, 3, 4
SWITCH_MAC = "02:00:00:00:01:01"        # the address hosts send to
HOST_A_MAC = "00:00:00:00:00:0a"
R2_MAC = "02:00:00:00:02:02"
HOST_A_IP, HOST_B_IP, HOST_C_IP = "10.0.1.1", "10.0.2.1", "10.0.4.1"
SMALL_MTU = 576

TEST_CONFIG = {
    "name": "ptf-gateway",
    "routes": [
        {"prefix": "10.0.2.0/24", "port": PORT_R2, "next_hop_mac": R2_MAC},
        {"prefix": "10.0.1.0/24", "port": PORT_A, "next_hop_mac": HOST_A_MAC},
        {"prefix": HOST_C_IP + "/32", "port": PORT_SMALL_MTU, "next_hop_mac": "00:00:00:00:00:0c"},
    ],
    "l2": [{"in_port": PORT_A, "out_port": PORT_R2}, {"in_port": PORT_R2, "out_port": PORT_A}],
    "ports": {str(PORT_A): {"edge": True},
              str(PORT_R2): {"mtu": 1500},
              str(PORT_SMALL_MTU): {"mtu": SMALL_MTU}},
}

# The same router not upgraded to RD-TCP ([RDTCP] §7): its routes and bridging, no EPDN. A legacy
# router has no trust boundary and no stamping rule, so its config names no edge port and no MTU
# (the controller refuses them with `legacy = true`).
LEGACY_CONFIG = {"name": "ptf-legacy-router", "legacy": True,
                 "routes": TEST_CONFIG["routes"], "l2": TEST_CONFIG["l2"]}


def epdn_option(lo: int, hi: int) -> tuple[int, bytes]:
    """The EPDN option as a Scapy option tuple: kind 253, len 12, ExID, drop_lo, drop_hi."""
    return (EPDN_KIND, struct.pack("!HII", EPDN_EXID, lo & 0xFFFFFFFF, hi & 0xFFFFFFFF))


def epdn_bytes(lo: int, hi: int) -> bytes:
    """The EPDN option's 12 bytes on the wire (for option areas written byte by byte)."""
    return bytes((EPDN_KIND, 12)) + struct.pack("!HII", EPDN_EXID, lo & 0xFFFFFFFF, hi & 0xFFFFFFFF)


def tcp_frame(*, seq: int, payload: bytes = b"", options: list | tuple = (), ttl: int = 64,
              src_mac: str = HOST_A_MAC, dst_mac: str = SWITCH_MAC,
              src_ip: str = HOST_A_IP, dst_ip: str = HOST_B_IP, sport: int = 5000,
              dport: int = 80, flags: str = "A", ack: int = 1, ip_options=None,
              ip_id: int = 1, raw_options: bytes | None = None) -> Ether:
    """A TCP segment; ``raw_options`` (a multiple of 4 bytes) is the option area verbatim,
    malformed or not, instead of Scapy's ``options`` (the data offset covers it)."""
    ip = IP(src=src_ip, dst=dst_ip, ttl=ttl, id=ip_id)
    if ip_options is not None:
        ip.options = ip_options
    tcp = TCP(sport=sport, dport=dport, seq=seq & 0xFFFFFFFF, ack=ack, flags=flags,
              window=65535, options=list(options))
    if raw_options is not None:
        if len(raw_options) % 4 or len(raw_options) > 40:
            raise ValueError(f"raw_options: {len(raw_options)} bytes, need a multiple of 4 <= 40")
        tcp.dataofs = 5 + len(raw_options) // 4
        payload = raw_options + payload
    pkt = Ether(src=src_mac, dst=dst_mac) / ip / tcp
    if payload:
        pkt = pkt / Raw(payload)
    return pkt


def udp_frame(*, ttl: int = 64, payload: bytes = b"udp") -> Ether:
    return (Ether(src=HOST_A_MAC, dst=SWITCH_MAC) / IP(src=HOST_A_IP, dst=HOST_B_IP, ttl=ttl)
            / UDP(sport=53, dport=53) / Raw(payload))


def arp_frame() -> Ether:
    return Ether(src=HOST_A_MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(psrc=HOST_A_IP, pdst=HOST_B_IP)


def checksums_ok(frame: bytes) -> bool:
    """IPv4 header checksum valid and, for a whole unfragmented TCP segment, TCP checksum valid.

    Computed on the raw bytes with Scapy's Internet checksum (a sum over data that includes a
    correct checksum is 0), so odd option bytes that Scapy would re-serialise differently cannot
    mask or fake a result.
    """
    if len(frame) < 34 or frame[12:14] != b"\x08\x00":
        return True
    ihl = (frame[14] & 0x0F) * 4
    if ihl < 20 or len(frame) < 14 + ihl:
        return True
    if checksum(frame[14:14 + ihl]) != 0:
        return False
    total_len, flags_frag, proto = (int.from_bytes(frame[16:18], "big"),
                                    int.from_bytes(frame[20:22], "big"), frame[23])
    if proto != 6 or flags_frag & 0x3FFF or len(frame) < 14 + total_len or total_len < ihl + 20:
        return True
    seg = frame[14 + ihl:14 + total_len]
    pseudo = frame[26:34] + bytes([0, 6]) + len(seg).to_bytes(2, "big")
    return checksum(pseudo + seg) == 0


def epdn_of(frame: bytes) -> tuple[int, int] | None:
    """(drop_lo, drop_hi) of an EPDN option in the first-option position, else None."""
    pkt = Ether(frame)
    if TCP not in pkt or not pkt[TCP].options:
        return None
    kind, value = pkt[TCP].options[0]
    if kind != EPDN_KIND or not isinstance(value, bytes) or len(value) != 10:
        return None
    exid, lo, hi = struct.unpack("!HII", value)
    return (lo, hi) if exid == EPDN_EXID else None


def deep_merge(base: dict, delta: dict) -> dict:
    """``base`` with ``delta`` merged in, tables recursively (TEST_CONFIG + a test's knobs)."""
    out = dict(base)
    for key, value in delta.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out
