"""netbase.wire and netbase.scapy_epdn: lossless, byte-exact, forgiving with options, clear errors."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.layers.inet import IP, TCP
from scapy.layers.l2 import Ether

from netbase.checksum import internet_checksum
from netbase.scapy_epdn import (decode_rdtcp_option, register, reorder_bit_of, scapy_to_segment,
                                segment_to_scapy)
from netbase.segment import ACK, PSH, REORDER_BIT, SYN, Segment
from netbase.wire import MalformedPacket, decode_frame, decode_options, encode_frame, encode_options

KW = dict(src_ip="10.0.0.1", dst_ip="10.0.0.2")
SYN_OPTS = (("MSS", 1460), ("NOP", None), ("NOP", None), ("SAckOK", b""), ("NOP", None),
            ("WScale", 7), ("RDTCPOK", None))
DATA_OPTS = (("EPDN", (0xFFFFFF00, 0x00000100)), ("NOP", None), ("NOP", None),
             ("Timestamp", (5, 6)), ("NOP", None), ("NOP", None), ("SAck", ((10, 20),)))


@pytest.mark.parametrize("seg", [
    Segment(1234, 80, 0xFFFFFFFF, 0, SYN, 65535, SYN_OPTS),
    Segment(1234, 80, 7, 9, ACK | PSH, 500, DATA_OPTS, b"payload" * 100),
    Segment(80, 1234, 9, 7, ACK, 500, (), b"", REORDER_BIT),
])
def test_segment_round_trips_through_bytes(seg):
    frame = encode_frame(seg, **KW)
    src, dst, back = decode_frame(frame)
    assert (src, dst, back) == ("10.0.0.1", "10.0.0.2", seg)
    assert encode_frame(back, **KW) == frame


def test_epdn_option_bytes_are_the_design_format():
    raw = encode_options((("EPDN", (0x01020304, 0x0A0B0C0D)),))
    assert raw == bytes.fromhex("fd0c5244" "01020304" "0a0b0c0d")
    assert encode_options((("RDTCPOK", None),)) == bytes.fromhex("fd045244")
    assert decode_options(raw) == (("EPDN", (0x01020304, 0x0A0B0C0D)),)


def test_other_experimental_option_is_not_mistaken_for_epdn():
    raw = bytes.fromhex("fd0c1234" + "00" * 8)      # kind 253 with another ExID
    assert decode_options(raw) == ((253, bytes.fromhex("1234") + bytes(8)),)


@pytest.mark.parametrize("raw,kept", [
    (bytes.fromhex("02"), "02"),                     # kind without a length
    (bytes.fromhex("0201"), "0201"),                 # length < 2
    (bytes.fromhex("fd0c5244000000"), "fd0c5244000000"),   # EPDN truncated
])
def test_malformed_options_are_kept_not_raised(raw, kept):
    opts = decode_options(raw)
    assert opts[-1] == ("Malformed", bytes.fromhex(kept))


@pytest.mark.parametrize("frame,message", [
    (b"\x00" * 10, "shorter than an Ethernet header"),
    (bytes(12) + b"\x86\xdd" + bytes(40), "is not IPv4"),
    (bytes(12) + b"\x08\x00" + bytes.fromhex("4500"), "truncated IPv4 header"),
])
def test_malformed_frames_raise_a_clear_error(frame, message):
    with pytest.raises(MalformedPacket, match=message):
        decode_frame(frame)


def test_corrupt_tcp_checksum_is_refused():
    frame = bytearray(encode_frame(Segment(1, 2, 3, 4, ACK, 5, (), b"abc"), **KW))
    frame[-1] ^= 0xFF
    with pytest.raises(MalformedPacket, match="bad TCP checksum"):
        decode_frame(bytes(frame))


def test_data_offset_beyond_segment_is_refused():
    frame = bytearray(encode_frame(Segment(1, 2, 3, 4, ACK, 5), **KW))
    frame[14 + 20 + 12] = 0xF0                      # data offset 15 words in a 20-byte segment
    with pytest.raises(MalformedPacket, match="data offset"):
        decode_frame(bytes(frame), verify_checksum=False)


def test_scapy_names_and_decodes_both_rd_tcp_options():
    register()
    seg = Segment(1, 2, 3, 4, ACK, 100, (("EPDN", (100, 200)), ("RDTCPOK", None)), b"x",
                  REORDER_BIT)
    pkt = segment_to_scapy(seg, **KW)
    names = [n for n, _ in pkt[TCP].options]
    assert names[0] == "EPDN"
    assert [decode_rdtcp_option(v) for _, v in pkt[TCP].options[:2]] == [
        ("EPDN", (100, 200)), ("RDTCPOK", None)]
    assert reorder_bit_of(pkt) and pkt[TCP].reserved == 1
    assert "EPDN" in pkt.show(dump=True)
    assert scapy_to_segment(pkt)[2] == seg


def test_scapy_built_epdn_is_byte_identical_to_ours():
    register()
    ours = encode_frame(Segment(5, 6, 7, 8, ACK, 9, (("EPDN", (1, 2)),)), **KW)
    pkt = Ether(ours)
    theirs = Ether(dst=pkt.dst, src=pkt.src) / IP(src="10.0.0.1", dst="10.0.0.2", flags="DF", id=0) / \
        TCP(sport=5, dport=6, seq=7, ack=8, flags="A", window=9, options=[("EPDN", (0x5244, 1, 2))])
    assert bytes(theirs) == ours


def test_scapy_built_rdtcp_permitted_syn_is_byte_identical_to_ours():
    register()
    seg = Segment(5, 6, 7, 0, SYN, 9, (("MSS", 1448), ("RDTCPOK", None)))
    ours = encode_frame(seg, **KW)
    pkt = Ether(ours)
    theirs = Ether(dst=pkt.dst, src=pkt.src) / IP(src="10.0.0.1", dst="10.0.0.2", flags="DF", id=0) / \
        TCP(sport=5, dport=6, seq=7, ack=0, flags="S", window=9,
            options=[("MSS", 1448), (253, b"\x52\x44")])
    assert bytes(theirs) == ours
    assert decode_rdtcp_option(Ether(ours)[TCP].options[1][1]) == ("RDTCPOK", None)


@settings(max_examples=200, deadline=None)
@given(payload=st.binary(max_size=1600), seq=st.integers(0, 2**32 - 1),
       ports=st.tuples(st.integers(0, 65535), st.integers(0, 65535)))
def test_tcp_checksum_matches_the_rfc1071_reference(payload, seq, ports):
    """netbase.wire's fast checksum (one bignum %) gives netbase.checksum's RFC 1071 value."""
    frame = encode_frame(Segment(ports[0], ports[1], seq, 0, ACK, 0, (), payload), **KW)
    tcp = frame[34:]
    pseudo = bytes([10, 0, 0, 1, 10, 0, 0, 2, 0, 6]) + len(tcp).to_bytes(2, "big")
    assert internet_checksum(pseudo + tcp) == 0         # the stored checksum verifies
    assert internet_checksum(frame[14:34]) == 0         # and so does the IPv4 header's
    assert decode_frame(frame)[2].payload == payload


@settings(max_examples=300, deadline=None)
@given(cut=st.integers(0, 200), flips=st.lists(st.tuples(st.integers(0, 120), st.integers(0, 255)),
                                               max_size=6), verify=st.booleans())
def test_mutated_frames_decode_or_raise_malformed_only(cut, flips, verify):
    frame = bytearray(encode_frame(Segment(1, 2, 3, 4, ACK, 5, DATA_OPTS, b"abc" * 10), **KW))
    for pos, val in flips:
        if pos < len(frame):
            frame[pos] = val
    frame = bytes(frame[:len(frame) - cut]) if cut < len(frame) else b""
    try:
        _, _, seg = decode_frame(frame, verify_checksum=verify)
    except MalformedPacket as e:
        assert str(e)
    else:
        # whatever decodes re-encodes (options forgivingly kept, so no crash either way)
        encode_frame(seg, **KW)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=1600).map(lambda b: b[:len(b) & ~1])
       | st.integers(0, 800).map(lambda n: bytes(2 * n))
       | st.integers(1, 800).map(lambda n: b"\xff" * (2 * n)))
def test_sum16_variants_both_match_the_rfc1071_reference(data):
    """Both ones'-complement sums (big integer for CPython, word loop for PyPy) equal netbase's
    RFC 1071 sum on any input and any range of it, including all-zero and all-ones buffers."""
    from netbase import wire
    from netbase.checksum import ones_complement_sum
    want = ones_complement_sum(data)
    assert wire._sum16_bigint(data) == want
    assert wire._sum16_loop(data) == want
    # and any range of a larger buffer, odd lengths padded with a zero byte
    buf = b"\xa5" * 3 + data + b"\x5a" * 3
    for start, end in ((3, 3 + len(data)), (2, 4 + len(data)), (3, 4 + len(data)), (1, 2)):
        want = ones_complement_sum(buf[start:end])
        assert wire._sum16_bigint(buf, start, end) == want
        assert wire._sum16_loop(buf, start, end) == want


@pytest.mark.parametrize("kw, message", [
    (dict(src_ip="10.0.0.300"), "not an IPv4 address: '10.0.0.300'"),
    (dict(dst_ip=None), "not an IPv4 address: None"),
    (dict(src_mac="00:11:22"), "not a MAC address: '00:11:22'"),
    (dict(dst_mac="zz:11:22:33:44:55"), "not a MAC address: 'zz:11:22:33:44:55'"),
])
def test_bad_addresses_are_refused_every_time_with_a_clear_error(kw, message):
    seg = Segment(1, 2, 3, 0, ACK, 0, (), b"x")
    for _ in range(2):                      # a refused address is not memoised
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
            encode_frame(seg, **{**KW, **kw})


@settings(max_examples=200, deadline=None)
@given(fields=st.tuples(st.integers(0, 65535), st.integers(0, 65535), st.integers(0, 2**32 - 1),
                        st.integers(0, 2**32 - 1), st.integers(0, 255), st.integers(0, 65535),
                        st.integers(0, 15), st.integers(0, 65535)),
       options=st.sampled_from([(), (("MSS", 1460), ("NOP", None), ("NOP", None), ("SAckOK", b"")),
                                (("NOP", None), ("NOP", None), ("SAck", ((1, 2**32 - 1),))),
                                (("EPDN", (0xFFFFFFFF, 7)),), (("RDTCPOK", None),)]),
       payload=st.binary(max_size=64) | st.integers(0, 1461).map(bytes),
       addrs=st.tuples(*[st.integers(0, 2**32 - 1)] * 2), ttl=st.integers(0, 255),
       ip_id=st.integers(0, 65535))
def test_encoded_checksums_verify_for_any_header_fields(fields, options, payload, addrs, ttl, ip_id):
    """encode_frame sums the header fields arithmetically; the packed headers must still verify
    with the RFC 1071 reference for every field value, option list and payload length."""
    import socket
    sport, dport, seq, ack, flags, window, reserved, urgent = fields
    seg = Segment(sport, dport, seq, ack, flags, window, options, payload, reserved, urgent)
    src, dst = (socket.inet_ntoa(a.to_bytes(4, "big")) for a in addrs)
    frame = encode_frame(seg, src_ip=src, dst_ip=dst, ttl=ttl, ip_id=ip_id)
    ihl_end = 34
    tcp = frame[ihl_end:]
    pseudo = frame[26:34] + bytes([0, 6]) + len(tcp).to_bytes(2, "big")
    assert internet_checksum(frame[14:ihl_end]) == 0
    assert internet_checksum(pseudo + tcp) == 0
    assert decode_frame(frame)[2] == seg


@pytest.mark.parametrize("seg", [
    Segment(1234, 80, 0xFFFFFFFF, 0, SYN, 65535, SYN_OPTS),
    Segment(1234, 80, 7, 9, ACK | PSH, 500, DATA_OPTS, b"payload" * 100 + b"!"),
    Segment(80, 1234, 9, 7, ACK, 500, (), b"", REORDER_BIT),
])
def test_frame_encoder_frames_are_those_of_encode_frame(seg):
    from netbase.wire import FrameEncoder
    addrs = dict(src_ip="10.0.1.1", dst_ip="10.0.2.1", src_mac="00:00:00:00:01:01",
                 dst_mac="02:00:00:00:01:01")
    enc = FrameEncoder(**addrs)
    assert enc.encode(seg) == encode_frame(seg, **addrs)
    assert enc.encode(seg, ttl=3, ip_id=77) == encode_frame(seg, ttl=3, ip_id=77, **addrs)


def test_frame_encoder_refuses_bad_addresses_when_made():
    from netbase.wire import FrameEncoder
    with pytest.raises(ValueError, match="not an IPv4 address: '10.0.0.300'"):
        FrameEncoder(src_ip="10.0.0.300", dst_ip="10.0.0.2", src_mac="00:00:00:00:00:01",
                     dst_mac="00:00:00:00:00:02")
