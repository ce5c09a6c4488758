"""The gateway's behaviours as scenarios, each a sequence of frames sent and frames expected.

One scenario runs under two harnesses: the PTF suite (``rdtcp_test.py``, real PTF over veth
pairs, against the embedded switch process or real simple_switch) and the library-mode pytest
suite (``tests/gateway``, ``SimpleSwitch.process``). A harness ``h`` offers:

    h.configure(delta)          apply TEST_CONFIG deep-merged with ``delta`` (the controller);
                                ``h.configure(delta, base=LEGACY_CONFIG)`` merges into another
    h.send(port, pkt)           inject a frame
    h.expect(port, pkt)         the next frame out of ``port`` is exactly ``pkt`` (bytes); every
                                frame received is also checked with ``checksums_ok``
    h.expect_none()             no other frame came out
    h.counters()                Controller.report() of the switch
    h.epdn_table()              the live EPDN entries as (lo, hi) pairs (Controller.epdn_entries)
    h.epdn_entries              the program's EPDN_ENTRIES
    h.received(port)            every frame out of ``port`` not expected yet, in order
    h.register_write(n, i, v)   write cell i of register n (the control plane's own command)

Expected frames are written out with the same builder as the inputs (p4lang/tutorials style);
nothing here computes what the gateway would do. Sequence numbers are byte offsets; an EPDN
range is [first byte of the lowest dropped segment, end of the highest) (docs/architecture.md §4).
"""

from __future__ import annotations

import math
import struct
import zlib
from ipaddress import IPv4Address

from scapy.layers.inet import IP, IPOption_EOL, IPOption_NOP, TCP, in4_chksum
from scapy.layers.l2 import Ether

from rdtcp_frames import (HOST_A_IP, HOST_A_MAC, HOST_B_IP, HOST_C_IP, LEGACY_CONFIG, PORT_A,
                          PORT_ALT, PORT_R2, PORT_SMALL_MTU, R2_MAC, SMALL_MTU, SWITCH_MAC,
                          TEST_CONFIG, arp_frame, deep_merge, epdn_bytes, epdn_of, epdn_option,
                          tcp_frame, udp_frame)

from controller import names as n

PAYLOAD = bytes(range(100))          # 100-byte data segments
C_MAC = "00:00:00:00:00:0c"


def pattern(port: int, slots: str, **impair) -> dict:
    """A config delta: impairment pattern ``slots`` (".DRA" codes) on ``port``."""
    return {"ports": {str(port): {"impair": dict(impair, pattern=slots)}}}


def a_to_b(seq: int, **kw):
    """A data segment of the flow A:5000 -> B:80 as host A sends it (into port 1)."""
    return tcp_frame(seq=seq, payload=kw.pop("payload", PAYLOAD), **kw)


def a_to_b_out(seq: int, **kw):
    """The same segment as it must leave towards R2 (port 2): MACs rewritten, TTL 63."""
    kw.setdefault("ttl", 63)
    kw.setdefault("dst_mac", R2_MAC)
    return tcp_frame(seq=seq, payload=kw.pop("payload", PAYLOAD), src_mac=SWITCH_MAC, **kw)


def b_to_a(seq: int, **kw):
    """A data segment of the flow B:80 -> A:5000 arriving from R2 (port 2, a core port)."""
    return tcp_frame(seq=seq, payload=kw.pop("payload", PAYLOAD), src_mac=R2_MAC,
                     dst_mac=SWITCH_MAC, src_ip=HOST_B_IP, dst_ip=HOST_A_IP, sport=80,
                     dport=5000, **kw)


def b_to_a_out(seq: int, **kw):
    kw.setdefault("ttl", 63)
    return tcp_frame(seq=seq, payload=kw.pop("payload", PAYLOAD), src_mac=SWITCH_MAC,
                     dst_mac=HOST_A_MAC, src_ip=HOST_B_IP, dst_ip=HOST_A_IP, sport=80,
                     dport=5000, **kw)


# ---------------------------------------------------------------------------------- forwarding
def forwarding_ttl(h):
    """IPv4 LPM: MAC rewrite, TTL - 1, IPv4 checksum recomputed; TCP untouched."""
    h.configure({})
    h.send(PORT_A, a_to_b(1000))
    h.expect(PORT_R2, a_to_b_out(1000))
    h.send(PORT_R2, b_to_a(7000, ttl=2))
    h.expect(PORT_A, b_to_a_out(7000, ttl=1))
    h.expect_none()


def ttl_expired_dropped(h):
    """TTL 1 is not forwarded (RFC 1812 §5.3.1) and counted."""
    h.configure({})
    h.send(PORT_A, a_to_b(1000, ttl=1))
    h.expect_none()
    assert h.counters()["drops"]["ttl"]["packets"] == 1


def lpm_miss_dropped(h):
    """A destination without a route is dropped and counted as no_route."""
    h.configure({})
    h.send(PORT_A, tcp_frame(seq=1, payload=PAYLOAD, dst_ip="192.0.2.1"))
    h.expect_none()
    assert h.counters()["drops"]["no_route"]["packets"] == 1


def ipv4_header_checksum_verified(h):
    """A header corrupted on the link (its checksum no longer matches) is discarded, not given a
    fresh valid checksum (RFC 1812 §5.2.2); TCP and UDP alike, counted as malformed."""
    h.configure({})
    opts = [IPOption_NOP(), IPOption_NOP(), IPOption_NOP(), IPOption_EOL()]
    for pkt, offset in ((a_to_b(1000), 4), (udp_frame(), 4), (a_to_b(1000, ip_options=opts), 20)):
        corrupted = bytearray(bytes(pkt))
        corrupted[14 + offset] ^= 0x01       # a bit of the identification field / of an option
        h.send(PORT_A, bytes(corrupted))
    h.expect_none()
    h.send(PORT_A, a_to_b(1000))                       # the same segment intact: forwarded
    h.expect(PORT_R2, a_to_b_out(1000))
    h.expect_none()
    assert h.counters()["drops"]["malformed"]["packets"] == 3


def non_tcp_untouched(h):
    """UDP is routed without any other change; ARP is bridged byte for byte."""
    h.configure(pattern(PORT_R2, "D"))       # impairments never apply to non-TCP
    h.send(PORT_A, udp_frame(ttl=9))
    out = udp_frame(ttl=8)
    out[Ether].src, out[Ether].dst = SWITCH_MAC, R2_MAC
    h.expect(PORT_R2, out)
    h.send(PORT_A, arp_frame())
    h.expect(PORT_R2, arp_frame())
    h.expect_none()
    assert h.counters()["drops"]["pattern"]["packets"] == 0


def ip_options_preserved(h):
    """IPv4 options are re-emitted unchanged and a stamp still lands in the TCP header."""
    opts = [IPOption_NOP(), IPOption_NOP(), IPOption_NOP(), IPOption_EOL()]
    h.configure(pattern(PORT_R2, "D" + "." * 7))
    h.send(PORT_A, a_to_b(1000, ip_options=opts))
    h.send(PORT_A, a_to_b(1100, ip_options=opts))
    h.expect(PORT_R2, a_to_b_out(1100, ip_options=opts, options=[epdn_option(1000, 1100)]))
    h.expect_none()


# ---------------------------------------------------------------------------------- EPDN
def stamp_after_drops(h):
    """Two drops, then one stamp (lo = first dropped byte, hi = end of the last) and the entry
    cleared: a pure ACK is not stamped, the next data segment carries it, the one after does not."""
    h.configure(pattern(PORT_R2, "DD" + "." * 30))
    h.send(PORT_A, a_to_b(1000))
    h.send(PORT_A, a_to_b(1100))
    h.expect_none()
    assert h.epdn_table() == [(1000, 1200)]                          # one entry, both drops
    h.send(PORT_A, a_to_b(1200, payload=b""))                       # pure ACK: no data
    h.expect(PORT_R2, a_to_b_out(1200, payload=b""))
    h.send(PORT_A, a_to_b(1200, options=[("NOP", None), ("NOP", None), ("SAckOK", b"")]))
    h.expect(PORT_R2, a_to_b_out(1200, options=[epdn_option(1000, 1200), ("NOP", None),
                                                ("NOP", None), ("SAckOK", b"")]))
    assert h.epdn_table() == []                                     # the stamp cleared it
    h.send(PORT_A, a_to_b(1300))
    h.expect(PORT_R2, a_to_b_out(1300))
    h.expect_none()
    c = h.counters()
    assert c["drops"]["pattern"]["packets"] == 2
    assert c["epdn_events"]["record"]["packets"] == 2
    assert c["epdn_events"]["stamp"]["packets"] == 1


def stamp_range_wraps(h):
    """min/max follow sequence order across 2^32: drops at 2^32-100 and 0 give lo=2^32-100, hi=100."""
    h.configure(pattern(PORT_R2, "DD" + "." * 30))
    top = (1 << 32) - 100
    h.send(PORT_A, a_to_b(0))            # the later segment is dropped first
    h.send(PORT_A, a_to_b(top))
    h.send(PORT_A, a_to_b(100))
    h.expect(PORT_R2, a_to_b_out(100, options=[epdn_option(top, 100)]))
    h.expect_none()


def merge_upstream_stamp(h):
    """A segment carrying an upstream range gets the union, still one option, entry cleared."""
    h.configure(pattern(PORT_A, "D" + "." * 31))
    h.send(PORT_R2, b_to_a(7000))
    h.send(PORT_R2, b_to_a(7200, options=[epdn_option(7100, 7200)]))
    h.expect(PORT_A, b_to_a_out(7200, options=[epdn_option(7000, 7200)]))
    h.send(PORT_R2, b_to_a(7300, options=[epdn_option(6000, 6100)]))   # no entry: unchanged
    h.expect(PORT_A, b_to_a_out(7300, options=[epdn_option(6000, 6100)]))
    h.expect_none()
    assert h.counters()["epdn_events"]["merge"]["packets"] == 1


def dropped_stamp_carried_on(h):
    """[RDTCP] §3: a dropped segment that carried a range leaves that range in this gateway's entry."""
    h.configure(pattern(PORT_A, "D" + "." * 31))
    h.send(PORT_R2, b_to_a(7000, options=[epdn_option(6500, 6700)]))   # dropped here
    h.send(PORT_R2, b_to_a(7100))
    h.expect(PORT_A, b_to_a_out(7100, options=[epdn_option(6500, 7100)]))
    h.expect_none()


def strip_on_edge_port(h):
    """An EPDN option from a host (edge port 1) is removed; from a core port it is kept."""
    h.configure({})
    h.send(PORT_A, a_to_b(1000, options=[epdn_option(1, 2), ("NOP", None), ("NOP", None),
                                         ("SAckOK", b"")]))
    h.expect(PORT_R2, a_to_b_out(1000, options=[("NOP", None), ("NOP", None), ("SAckOK", b"")]))
    h.send(PORT_R2, b_to_a(7000, options=[epdn_option(1, 2)]))
    h.expect(PORT_A, b_to_a_out(7000, options=[epdn_option(1, 2)]))
    h.expect_none()
    assert h.counters()["epdn_events"]["strip"]["packets"] == 1


NOP, EOL = b"\x01", b"\x00"


def strip_two_forged_options(h):
    """Two EPDN options from a host, one after the other: both go, the first-option one and the
    one that would take its place; from a core port both stay. One strip event per segment."""
    h.configure({})
    two = epdn_bytes(1, 2) + epdn_bytes(3, 4)
    h.send(PORT_A, a_to_b(1000, raw_options=two))
    h.expect(PORT_R2, a_to_b_out(1000))
    h.send(PORT_R2, b_to_a(7000, raw_options=two))
    h.expect(PORT_A, b_to_a_out(7000, raw_options=two))
    h.expect_none()
    assert h.counters()["epdn_events"]["strip"]["packets"] == 1


def strip_three_forged_options(h):
    """Three EPDN options (the most 40 option bytes hold), behind a NOP and between other
    options: all three go, whatever their offset; the other options stay in their order."""
    h.configure({})
    three = NOP + epdn_bytes(1, 2) + epdn_bytes(3, 4) + epdn_bytes(5, 6) + NOP * 3
    h.send(PORT_A, a_to_b(1000, raw_options=three))
    h.expect(PORT_R2, a_to_b_out(1000, raw_options=NOP * 4))
    first_and_two = (epdn_bytes(7, 8) + bytes.fromhex("030307")      # window scale 7 between
                     + epdn_bytes(9, 10) + epdn_bytes(11, 12) + NOP)
    h.send(PORT_A, a_to_b(1100, raw_options=first_and_two))
    h.expect(PORT_R2, a_to_b_out(1100, raw_options=bytes.fromhex("030307") + NOP))
    h.expect_none()
    assert h.counters()["epdn_events"]["strip"]["packets"] == 2


def strip_forged_option_after_nop(h):
    """A NOP then an EPDN option (an odd offset: its bytes sit across 16-bit words, so the TCP
    checksum update takes their byte-swapped sum): the EPDN goes, the NOPs stay."""
    h.configure({})
    h.send(PORT_A, a_to_b(1000, raw_options=NOP + epdn_bytes(1, 2) + NOP * 3))
    h.expect(PORT_R2, a_to_b_out(1000, raw_options=NOP * 4))
    h.send(PORT_A, a_to_b(1100, options=[("NOP", None), ("NOP", None),
                                         ("Timestamp", (0x01020304, 0x05060708)),
                                         epdn_option(3, 4)]))
    h.expect(PORT_R2, a_to_b_out(1100, options=[("NOP", None), ("NOP", None),
                                                ("Timestamp", (0x01020304, 0x05060708))]))
    h.expect_none()
    assert h.counters()["epdn_events"]["strip"]["packets"] == 2


def forged_option_bytes_inside_values_kept(h):
    """Only options are stripped: the EPDN bytes inside a timestamp value, after a malformed
    length or after End of Option List are not options (RFC 9293 §3.1) and are carried as they
    are; a strip behind them all still lets a pending range be stamped."""
    h.configure(pattern(PORT_R2, "D...D" + "." * 27))
    h.send(PORT_A, a_to_b(900))                                           # dropped: entry
    inside = bytes.fromhex("0101080a") + epdn_bytes(1, 2)[:8]             # TSval, TSecr
    h.send(PORT_A, a_to_b(1000, raw_options=inside))
    h.expect(PORT_R2, a_to_b_out(1000, raw_options=epdn_bytes(900, 1000) + inside))
    for area in (bytes.fromhex("0100") + NOP * 2 + epdn_bytes(1, 2),     # after End of Option List
                 bytes.fromhex("1e01") + NOP * 2 + epdn_bytes(1, 2)):    # after a length of 1
        h.send(PORT_A, a_to_b(1100, raw_options=area))
        h.expect(PORT_R2, a_to_b_out(1100, raw_options=area))
    h.send(PORT_A, a_to_b(1200))                                          # dropped: entry
    behind = bytes.fromhex("0101080a") + bytes(8) + NOP + epdn_bytes(3, 4) + NOP * 3
    h.send(PORT_A, a_to_b(1300, raw_options=behind))
    h.expect(PORT_R2, a_to_b_out(1300, raw_options=epdn_bytes(1200, 1300)
                                 + bytes.fromhex("0101080a") + bytes(8) + NOP * 4))
    h.expect_none()
    c = h.counters()["epdn_events"]
    assert (c["strip"]["packets"], c["stamp"]["packets"]) == (1, 2)


def edge_tcp_fragments_dropped(h):
    """A TCP fragment from a host is dropped (its EPDN option could not be stripped: any fragment
    may hold it); from a core port it is routed, and a host's UDP fragment is routed too."""
    h.configure({})
    head = bytes(TCP(sport=5000, dport=80, seq=1000, flags="A", options=[epdn_option(1, 2)]))
    def fragment(src_mac, dst_mac, src_ip, dst_ip, ttl, proto=6, frag=0, flags="MF"):
        return (Ether(src=src_mac, dst=dst_mac) / IP(src=src_ip, dst=dst_ip, ttl=ttl, id=9,
                                                     flags=flags, frag=frag, proto=proto) / head)
    h.send(PORT_A, fragment(HOST_A_MAC, SWITCH_MAC, HOST_A_IP, HOST_B_IP, 64))         # first
    h.send(PORT_A, fragment(HOST_A_MAC, SWITCH_MAC, HOST_A_IP, HOST_B_IP, 64, frag=4, flags=0))
    h.expect_none()
    h.send(PORT_R2, fragment(R2_MAC, SWITCH_MAC, HOST_B_IP, HOST_A_IP, 64))
    h.expect(PORT_A, fragment(SWITCH_MAC, HOST_A_MAC, HOST_B_IP, HOST_A_IP, 63))
    h.send(PORT_A, fragment(HOST_A_MAC, SWITCH_MAC, HOST_A_IP, HOST_B_IP, 64, proto=17))
    h.expect(PORT_R2, fragment(SWITCH_MAC, R2_MAC, HOST_A_IP, HOST_B_IP, 63, proto=17))
    h.expect_none()
    assert h.counters()["drops"]["malformed"]["packets"] == 2


def spoofed_source_dropped(h):
    """A host claims another host's flow (ingress filtering, BCP 38): host C, on edge port 4,
    sends segments of A's flow A:5000 -> B:80 while R2's queue drops. Without the source check
    the first would be dropped there and recorded, and A's next segment would leave stamped with
    the range C chose. They are dropped as spoofed and counted before the queue or the EPDN
    table sees them; A's own drop is recorded as before, and its stamp is A's range. C's own
    address passes (by default the prefixes routed out of port 4; ``sources`` names others)."""
    h.configure(deep_merge(pattern(PORT_R2, "D" + "." * 31),
                           {"ports": {str(PORT_SMALL_MTU): {"edge": True}}}))
    h.send(PORT_SMALL_MTU, a_to_b(900000, src_mac=C_MAC))
    h.send(PORT_SMALL_MTU, a_to_b(900100, src_mac=C_MAC, payload=b""))      # a pure ACK too
    h.expect_none()
    assert h.epdn_table() == []
    c = h.counters()
    assert c["drops"]["spoofed"]["packets"] == 2 and c["drops"]["pattern"]["packets"] == 0
    assert c["epdn_events"]["record"]["packets"] == 0
    h.send(PORT_A, a_to_b(1000))                   # the pattern's drop falls on A's own segment
    h.send(PORT_A, a_to_b(1100))
    h.expect(PORT_R2, a_to_b_out(1100, options=[epdn_option(1000, 1100)]))
    own = dict(src_ip=HOST_C_IP, sport=6000, payload=PAYLOAD)
    h.send(PORT_SMALL_MTU, tcp_frame(seq=5, src_mac=C_MAC, **own))
    h.expect(PORT_R2, tcp_frame(seq=5, src_mac=SWITCH_MAC, dst_mac=R2_MAC, ttl=63, **own))
    h.expect_none()
    h.configure({"ports": {str(PORT_SMALL_MTU): {"edge": True, "sources": ["10.0.4.0/24"]}}})
    other = dict(own, src_ip="10.0.4.7")
    h.send(PORT_SMALL_MTU, tcp_frame(seq=5, src_mac=C_MAC, **other))
    h.expect(PORT_R2, tcp_frame(seq=5, src_mac=SWITCH_MAC, dst_mac=R2_MAC, ttl=63, **other))
    spoofed_udp = udp_frame()                          # A's address again, UDP this time
    spoofed_udp[Ether].src = C_MAC
    h.send(PORT_SMALL_MTU, spoofed_udp)
    h.expect_none()
    assert h.counters()["drops"]["spoofed"]["packets"] == 3


def forged_stamp_not_recorded(h):
    """A stripped forged range is not recorded when that segment is dropped."""
    h.configure(pattern(PORT_R2, "D" + "." * 31))
    h.send(PORT_A, a_to_b(1000, options=[epdn_option(1, 2)]))
    h.send(PORT_A, a_to_b(1100))
    h.expect(PORT_R2, a_to_b_out(1100, options=[epdn_option(1000, 1100)]))
    h.expect_none()


def mtu_rule(h):
    """No stamp when the segment would exceed the egress MTU; the entry waits for one that fits."""
    h.configure(pattern(PORT_SMALL_MTU, "D" + "." * 31))
    full = bytes(SMALL_MTU - 40)                 # a 576-byte datagram: no room for 12 more
    h.send(PORT_A, a_to_b(1000, dst_ip=HOST_C_IP))
    h.send(PORT_A, a_to_b(1100, dst_ip=HOST_C_IP, payload=full))
    h.expect(PORT_SMALL_MTU, a_to_b_out(1100, dst_ip=HOST_C_IP, payload=full, dst_mac=C_MAC))
    h.send(PORT_A, a_to_b(1636, dst_ip=HOST_C_IP))
    h.expect(PORT_SMALL_MTU, a_to_b_out(1636, dst_ip=HOST_C_IP, dst_mac=C_MAC,
                                         options=[epdn_option(1000, 1100)]))
    h.expect_none()
    c = h.counters()["epdn_events"]
    assert c["defer_mtu"]["packets"] == 1 and c["stamp"]["packets"] == 1


def bytes_after_datagram_kept_outside_checksum(h):
    """Bytes after the IP datagram (a link trailer, Ethernet padding) are carried unchanged and
    stay outside the TCP checksum when the gateway strips, merges or stamps (RFC 1624 update)."""
    trailer = b"\xaa" * 8
    h.configure(pattern(PORT_A, "D.D." + "." * 28))
    # strip at the edge port (host A), a trailer behind the datagram
    h.send(PORT_A, bytes(a_to_b(1000, options=[epdn_option(1, 2)])) + trailer)
    h.expect(PORT_R2, bytes(a_to_b_out(1000)) + trailer)
    # merge into an upstream stamp that has a trailer behind it
    h.send(PORT_R2, b_to_a(7000))                                            # dropped
    h.send(PORT_R2, bytes(b_to_a(7200, options=[epdn_option(7100, 7200)])) + trailer)
    h.expect(PORT_A, bytes(b_to_a_out(7200, options=[epdn_option(7000, 7200)])) + trailer)
    # stamp a one-byte segment padded to Ethernet's 60-byte minimum (55 + 5 bytes)
    h.send(PORT_R2, b_to_a(7300))                                            # dropped
    h.send(PORT_R2, bytes(b_to_a(7400, payload=b"x")) + bytes(5))
    h.expect(PORT_A, bytes(b_to_a_out(7400, payload=b"x",
                                      options=[epdn_option(7300, 7400)])) + bytes(5))
    h.expect_none()
    c = h.counters()["epdn_events"]
    assert (c["strip"]["packets"], c["merge"]["packets"], c["stamp"]["packets"]) == (1, 1, 1)


def collision_policy(h):
    """Two flows in one slot: the newer drop evicts the older entry (counted); only it is stamped."""
    h.configure(pattern(PORT_R2, "DD" + "." * 30))
    (f_sport, f_dport), (g_sport, g_dport) = colliding_flows(h.epdn_entries)
    f = dict(sport=f_sport, dport=f_dport)
    g = dict(sport=g_sport, dport=g_dport)
    h.send(PORT_A, a_to_b(1000, **f))
    h.send(PORT_A, a_to_b(5000, **g))
    h.send(PORT_A, a_to_b(1100, **f))
    h.expect(PORT_R2, a_to_b_out(1100, **f))                           # F's report was evicted
    h.send(PORT_A, a_to_b(5100, **g))
    h.expect(PORT_R2, a_to_b_out(5100, options=[epdn_option(5000, 5100)], **g))
    h.expect_none()
    assert h.counters()["epdn_events"]["collision"]["packets"] == 1


def colliding_flows(entries: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(sport, dport) of two A -> B flows sharing an EPDN slot.

    Input selection only: the slot is crc32(src, dst, proto, sport, dport) mod EPDN_ENTRIES as
    p4src/README.md documents (BMv2's crc32 is the zlib CRC-32 over the fields' bytes). CRC-32
    is linear over GF(2), so flows that differ only in their 16-bit source port map one-to-one
    onto the low 16 bits of the CRC: with 65536 entries they never collide. Varying both ports
    (32 bits into 16) must collide, and quickly (birthday bound).
    """
    def slot(sport: int, dport: int) -> int:
        key = (IPv4Address(HOST_A_IP).packed + IPv4Address(HOST_B_IP).packed
               + struct.pack("!BHH", 6, sport, dport))
        return zlib.crc32(key) % entries
    seen: dict[int, tuple[int, int]] = {}
    for dport in range(80, 80 + 256):
        for sport in range(5000, 5000 + 256):
            s = slot(sport, dport)
            if s in seen:
                return seen[s], (sport, dport)
            seen[s] = (sport, dport)
    raise AssertionError("no two flows collide")


def malformed_options_safe(h):
    """Malformed or truncated TCP headers are never rewritten nor corrupted; the entry survives."""
    h.configure(pattern(PORT_R2, "D.D" + "." * 29))
    h.send(PORT_A, a_to_b(1000))                                   # an entry is pending
    # data offset 4 (< 5): forwarded as plain IP
    bad = a_to_b(1100)
    bad[TCP].dataofs = 4
    out = a_to_b_out(1100)
    out[TCP].dataofs = 4
    h.send(PORT_A, bad)
    h.expect(PORT_R2, out)
    # the 4-byte RD-TCP-permitted form (kind 253, len 4) first: not an EPDN option
    h.send(PORT_A, a_to_b(1100, options=[(253, b"RD")]))
    h.expect(PORT_R2, a_to_b_out(1100, options=[epdn_option(1000, 1100), (253, b"RD")]))
    # truncated option list: IPv4 says more bytes than the frame holds -> dropped (malformed)
    h.send(PORT_A, a_to_b(1000))
    cut = bytes(a_to_b(1200, options=[epdn_option(5, 6)]))[:14 + 20 + 20 + 6]
    h.send(PORT_A, Ether(cut))
    h.send(PORT_A, a_to_b(1200))
    h.expect(PORT_R2, a_to_b_out(1200, options=[epdn_option(1000, 1100)]))
    h.expect_none()
    assert h.counters()["drops"]["malformed"]["packets"] == 1


def truncated_segment(tcp, length: int) -> bytes:
    """The first ``length`` bytes of A -> B segment ``tcp``, checksummed as a sender would send
    them (so only the header's inconsistency, never a bad checksum, is what is under test)."""
    seg = bytearray(bytes(tcp)[:length])
    seg[16:18] = bytes(2)
    csum = in4_chksum(6, IP(src=HOST_A_IP, dst=HOST_B_IP), bytes(seg))
    seg[16:18] = csum.to_bytes(2, "big")
    return bytes(seg)


def malformed_option_areas_carried(h):
    """Option areas the gateway does not parse (wrong ExID, an illegal length 0, a length past
    the header, an EPDN word cut by the data offset) are carried byte for byte behind the stamp;
    a segment cut inside its options is forwarded as plain IP and leaves the entry alone; a full
    60-byte header defers the stamp (no room) to the next segment."""
    h.configure(pattern(PORT_R2, "D.D.D.D.D" + "." * 23))
    cases = [struct.pack("!BBHII", 253, 12, 0x1234, 5, 6),    # kind 253, wrong ExID
             bytes.fromhex("02000000"),                        # MSS with length 0 (RFC 9293: >= 2)
             bytes.fromhex("0228") + bytes(6),                 # MSS claiming 40 bytes in 8
             bytes.fromhex("fd0c5244") + bytes(4)]             # EPDN's first word, data offset 7
    for i, raw in enumerate(cases):
        lo = 1000 + 200 * i
        h.send(PORT_A, a_to_b(lo))                                         # dropped: entry
        h.send(PORT_A, a_to_b(lo + 100, raw_options=raw))
        h.expect(PORT_R2, a_to_b_out(lo + 100, raw_options=epdn_bytes(lo, lo + 100) + raw))
    h.send(PORT_A, a_to_b(1800))                                           # dropped: entry
    cut = truncated_segment(TCP(sport=5000, dport=80, seq=1900, flags="A",
                                options=[epdn_option(5, 6)]), 26)     # ends inside the option
    h.send(PORT_A, Ether(src=HOST_A_MAC, dst=SWITCH_MAC)
           / IP(src=HOST_A_IP, dst=HOST_B_IP, ttl=64, id=1, proto=6) / cut)
    h.expect(PORT_R2, Ether(src=SWITCH_MAC, dst=R2_MAC)
             / IP(src=HOST_A_IP, dst=HOST_B_IP, ttl=63, id=1, proto=6) / cut)
    full = b"\x01" * 32                                                    # data offset 13
    h.send(PORT_A, a_to_b(1900, raw_options=full))
    h.expect(PORT_R2, a_to_b_out(1900, raw_options=full))
    h.send(PORT_A, a_to_b(2000))
    h.expect(PORT_R2, a_to_b_out(2000, options=[epdn_option(1800, 1900)]))
    h.expect_none()
    c = h.counters()
    assert c["epdn_events"]["stamp"]["packets"] == 5
    assert c["epdn_events"]["defer_no_room"]["packets"] == 1
    assert c["drops"]["malformed"]["packets"] == 0


# ---------------------------------------------------------------------------------- injection
def injected_drops_counted(h):
    """drop_prob 1 drops every data segment (counted, recorded); ACKs are never impaired."""
    h.configure({"ports": {str(PORT_R2): {"impair": {"drop_prob": 1.0}}}})
    for i in range(5):
        h.send(PORT_A, a_to_b(1000 + 100 * i))
    h.send(PORT_A, a_to_b(1500, payload=b""))
    h.expect(PORT_R2, a_to_b_out(1500, payload=b""))
    h.expect_none()
    c = h.counters()
    assert c["drops"]["random"]["packets"] == 5
    assert c["epdn_events"]["record"]["packets"] == 5
    assert c["ports"][PORT_R2]["drops"]["packets"] == 5


def recirculation_counted(h):
    """A recirculated segment loops and then leaves once, unchanged apart from routing."""
    h.configure(pattern(PORT_R2, "R" + "." * 31, recirc_loops=3))
    h.send(PORT_A, a_to_b(1000))
    h.expect(PORT_R2, a_to_b_out(1000))
    h.expect_none()
    assert h.counters()["reorders"]["recirculate"]["packets"] == 1


def alternate_port_counted(h):
    """A segment picked for the alternate path leaves by port 3 instead of 2."""
    h.configure({"ports": {str(PORT_R2): {"impair": {"pattern": "A" + "." * 31,
                                                     "alt_port": PORT_ALT}},
                           str(PORT_ALT): {"mtu": 1500}}})
    h.send(PORT_A, a_to_b(1000))
    h.expect(PORT_ALT, a_to_b_out(1000))
    h.send(PORT_A, a_to_b(1100))
    h.expect(PORT_R2, a_to_b_out(1100))
    h.expect_none()
    assert h.counters()["reorders"]["alternate_port"]["packets"] == 1


# ---------------------------------------------------------------------------------- RED
RED = {"min_th": 4, "max_th": 8, "w_q": 2 ** -24, "max_p": 0.5}
RED_ARRIVALS = 40


def red_drop_curve(h):
    """RED's drop curve at fixed average queue lengths (FJ 1993, Fig. 2; w_q = 2^-24 keeps the
    average where the control plane writes it): at or below min_th nothing is dropped, at or
    above max_th everything; in between p_b = max_p (avg - min_th) / (max_th - min_th), and FJ's
    count makes p_a = p_b / (1 - count p_b) reach 1 within 1/p_b arrivals of a drop (within
    1/p_b + 1 of count = -1), so no run of forwarded segments is longer than ceil(1/p_b),
    whatever the random draws. Every drop is recorded: the next forwarded segment carries the
    range of the run of drops before it."""
    h.configure({"ports": {str(PORT_R2): {"red": RED}}})
    seq, all_sent, all_out = 1000, [], []
    for avg in (3, 4, 5, 6, 7, 8, 9, 3):
        h.register_write(n.REG_RED_AVG, PORT_R2, avg * n.RED_AVG_ONE)
        h.register_write(n.REG_RED_COUNT, PORT_R2, 0)
        sent = [seq + 100 * i for i in range(RED_ARRIVALS)]
        for s in sent:
            h.send(PORT_A, a_to_b(s))
        seq += 100 * RED_ARRIVALS
        out = h.received(PORT_R2)
        forwarded = [struct.unpack_from("!I", f, 38)[0] for f in out]
        if avg >= RED["max_th"]:
            p_b = 1.0
        else:
            p_b = max(RED["max_p"] * (avg - RED["min_th"]) / (RED["max_th"] - RED["min_th"]), 0)
        if p_b == 0:
            assert forwarded == sent, (avg, forwarded)
        elif p_b == 1:
            assert forwarded == [], (avg, forwarded)
        else:
            assert forwarded and len(forwarded) < len(sent), (avg, forwarded)
            assert longest_run(sent, set(forwarded)) <= math.ceil(1 / p_b), (avg, forwarded)
        all_sent += sent
        all_out += out
    assert_stamps_cover_drops(all_sent, all_out)
    dropped = len(all_sent) - len(all_out)
    c = h.counters()
    assert c["red"]["drops"]["packets"] == dropped > 0
    assert c["ports"][PORT_R2]["drops"]["packets"] == dropped
    assert sum(v["packets"] for v in c["drops"].values()) == 0        # RED is its own cause
    assert c["epdn_events"]["record"]["packets"] == dropped


# ---------------------------------------------------------------------------------- legacy router
def legacy_drops_not_recorded(h):
    """A legacy router ([RDTCP] §7) drops as the gateway does and counts it, but records nothing:
    the next data segment leaves without a stamp and the EPDN table stays empty."""
    h.configure(pattern(PORT_R2, "DD" + "." * 30), base=LEGACY_CONFIG)
    h.send(PORT_A, a_to_b(1000))
    h.send(PORT_A, a_to_b(1100))
    h.expect_none()
    assert h.epdn_table() == []
    h.send(PORT_A, a_to_b(1200))
    h.expect(PORT_R2, a_to_b_out(1200))
    h.expect_none()
    c = h.counters()
    assert c["legacy"] is True
    assert c["drops"]["pattern"]["packets"] == 2
    assert c["ports"][PORT_R2]["drops"]["packets"] == 2
    assert {e: c["epdn_events"][e]["packets"] for e in ("record", "stamp", "merge")} == \
        {"record": 0, "stamp": 0, "merge": 0}


def legacy_options_pass_edge_port(h):
    """EPDN options from a host pass a legacy router unchanged, first or further in, and so
    does a host's TCP fragment: it has no trust boundary (the gateway's edge port strips both).
    Port 1's edge cell is set behind the controller's back (which refuses ``edge`` with
    ``legacy``), so that it is the mode, not a missing edge port, that keeps the options."""
    h.configure({}, base=LEGACY_CONFIG)
    h.register_write(n.REG_EDGE_PORT, PORT_A, 1)
    options = [epdn_option(1, 2), ("NOP", None), ("NOP", None), ("SAckOK", b"")]
    h.send(PORT_A, a_to_b(1000, options=options))
    h.expect(PORT_R2, a_to_b_out(1000, options=options))
    raw = NOP * 4 + epdn_bytes(3, 4)
    h.send(PORT_A, a_to_b(1100, raw_options=raw))
    h.expect(PORT_R2, a_to_b_out(1100, raw_options=raw))
    head = bytes(TCP(sport=5000, dport=80, seq=1200, flags="A", options=[epdn_option(5, 6)]))
    h.send(PORT_A, Ether(src=HOST_A_MAC, dst=SWITCH_MAC)
           / IP(src=HOST_A_IP, dst=HOST_B_IP, ttl=64, id=9, flags="MF") / head)
    h.expect(PORT_R2, Ether(src=SWITCH_MAC, dst=R2_MAC)
             / IP(src=HOST_A_IP, dst=HOST_B_IP, ttl=63, id=9, flags="MF") / head)
    h.expect_none()
    c = h.counters()
    assert c["epdn_events"]["strip"]["packets"] == 0
    assert c["drops"]["malformed"]["packets"] == 0


def legacy_upstream_stamp_passes_or_is_lost(h):
    """An upstream gateway's stamp passes a legacy router unchanged; when the legacy router
    drops the segment carrying it, the report is lost (an upgraded one would carry it on: [RDTCP]
    §3, dropped_stamp_carried_on)."""
    h.configure(pattern(PORT_A, ".D" + "." * 30), base=LEGACY_CONFIG)
    h.send(PORT_R2, b_to_a(7000, options=[epdn_option(6500, 6700)]))
    h.expect(PORT_A, b_to_a_out(7000, options=[epdn_option(6500, 6700)]))
    h.send(PORT_R2, b_to_a(7100, options=[epdn_option(6800, 6900)]))     # dropped here
    h.send(PORT_R2, b_to_a(7200))
    h.expect(PORT_A, b_to_a_out(7200))
    h.expect_none()
    assert h.epdn_table() == []


def legacy_off_again_records_and_stamps(h):
    """The same switch configured back as an RD-TCP gateway records and stamps again, and its
    edge port strips: the mode is the config's, not left over from the last one."""
    h.configure({}, base=LEGACY_CONFIG)
    h.configure(pattern(PORT_R2, "D" + "." * 31), base=TEST_CONFIG)
    assert h.counters()["legacy"] is False
    h.send(PORT_A, a_to_b(1000))
    h.send(PORT_A, a_to_b(1100, options=[epdn_option(1, 2)]))
    h.expect(PORT_R2, a_to_b_out(1100, options=[epdn_option(1000, 1100)]))
    h.expect_none()


def longest_run(sent: list[int], forwarded: set[int]) -> int:
    run = longest = 0
    for s in sent:
        run = run + 1 if s in forwarded else 0
        longest = max(longest, run)
    return longest


def assert_stamps_cover_drops(sent: list[int], out: list[bytes]):
    """A forwarded segment after a run of drops carries exactly that run's range (the EPDN
    entry's [first dropped byte, end of the last)); any other, no option."""
    forwarded = {struct.unpack_from("!I", f, 38)[0]: f for f in out}
    pending = None
    for s in sent:
        if s not in forwarded:
            pending = (pending[0] if pending else s, s + 100)
            continue
        assert epdn_of(forwarded[s]) == pending, (s, epdn_of(forwarded[s]), pending)
        pending = None


ALL = [forwarding_ttl, ttl_expired_dropped, lpm_miss_dropped, ipv4_header_checksum_verified,
       non_tcp_untouched,
       ip_options_preserved, stamp_after_drops, stamp_range_wraps, merge_upstream_stamp,
       dropped_stamp_carried_on, strip_on_edge_port, strip_two_forged_options,
       strip_three_forged_options, strip_forged_option_after_nop,
       forged_option_bytes_inside_values_kept, edge_tcp_fragments_dropped,
       spoofed_source_dropped, forged_stamp_not_recorded, mtu_rule,
       bytes_after_datagram_kept_outside_checksum, collision_policy, malformed_options_safe,
       malformed_option_areas_carried, injected_drops_counted, recirculation_counted,
       alternate_port_counted, red_drop_curve, legacy_drops_not_recorded,
       legacy_options_pass_edge_port, legacy_upstream_stamp_passes_or_is_lost,
       legacy_off_again_records_and_stamps]
