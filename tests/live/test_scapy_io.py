"""live.scapy_io: Scapy endpoints. Frames built by Scapy's layers (with the project's EPDN
option layer) are the struct codec's byte for byte and parse back to the same segments; two
live hosts talk through the Scapy codec; Scapy's L2 socket carries frames on an interface."""

from __future__ import annotations

import socket
import subprocess
import threading

import pytest

from hosts.tcp import TcpConnection
from live import host as live
from live.scapy_io import ScapyCodec, StructCodec
from netbase import wire
from netbase.packet_socket import SocketPairPort
from netbase.segment import ACK, FIN, PSH, SYN, URG, Segment
from tests.live import plausible_handshake_rtt

A = dict(src_ip="10.0.1.1", dst_ip="10.0.2.1", src_mac="00:00:00:00:00:0a",
         dst_mac="02:00:00:00:01:01")

SEGMENTS = [
    Segment(40000, 5001, 1, 0, SYN, 65535,
            (("MSS", 1460), ("SAckOK", b""), ("Timestamp", (7, 0)), ("NOP", None),
             ("WScale", 7), ("RDTCPOK", None))),
    Segment(5001, 40000, 9, 2, SYN | ACK, 65535, (("MSS", 1448), ("NOP", None), ("NOP", None),
                                                  ("SAckOK", b""), ("RDTCPOK", None))),
    Segment(40000, 5001, 2, 10, ACK | PSH, 512, (("EPDN", (100, 1548)),), b"\xab" * 1436),
    Segment(5001, 40000, 10, 2, ACK, 512,
            (("NOP", None), ("NOP", None), ("SAck", ((3000, 4448), (5896, 7344)))),
            b"", 0x02),                                      # the RD-TCP reorder bit
    Segment(40000, 5001, 2 ** 32 - 5, 10, ACK | FIN | URG, 1, (), b"xyz", 0x01, 1),   # AE bit
    Segment(40000, 5001, 7, 10, ACK, 9, ((77, b"\x01\x02"), ("Timestamp", (1, 2)))),  # unknown
]


@pytest.mark.parametrize("seg", SEGMENTS, ids=range(len(SEGMENTS)))
def test_scapy_builds_the_struct_codecs_frame_byte_for_byte(seg):
    assert ScapyCodec.encoder(**A)(seg) == wire.encode_frame(seg, **A)


@pytest.mark.parametrize("seg", SEGMENTS, ids=range(len(SEGMENTS)))
def test_scapy_parses_a_frame_back_to_the_same_segment(seg):
    frame = wire.encode_frame(seg, **A)
    src, dst, back = ScapyCodec.decode(frame)
    assert (src, dst, back) == StructCodec.decode(frame)
    assert (src, dst) == ("10.0.1.1", "10.0.2.1")
    assert back.options[:len(seg.options)] == seg.options     # then the padding, as an EOL
    assert (back.payload, back.flags, back.reserved, back.seq) == \
        (seg.payload, seg.flags, seg.reserved, seg.seq)
    assert ScapyCodec.encoder(**A)(back) == frame


def test_scapy_refuses_what_the_struct_codec_refuses():
    frame = bytearray(wire.encode_frame(SEGMENTS[2], **A))
    frame[-1] ^= 0xFF                                        # a payload byte changed on the way
    with pytest.raises(wire.MalformedPacket, match="bad TCP checksum"):
        ScapyCodec.decode(bytes(frame))
    arp = bytes.fromhex("ffffffffffff00000000000a0806") + bytes(28)
    with pytest.raises(wire.MalformedPacket, match="not an IPv4/TCP"):
        ScapyCodec.decode(arp)


def test_two_live_hosts_talk_through_scapy():
    s1, s2 = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    for s in (s1, s2):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    ip_a, ip_b = "10.0.1.1", "10.0.2.1"
    a = live.LiveHost(SocketPairPort(sock=s1), ip=ip_a, mac="00:00:00:00:00:0a",
                      gateway_mac="02:00:00:00:01:01", codec=ScapyCodec)
    b = live.LiveHost(SocketPairPort(sock=s2), ip=ip_b, mac="00:00:00:00:00:0b",
                      gateway_mac="02:00:00:00:02:01", codec=ScapyCodec)
    cfg = live.tcp_config("rdtcp", time_wait=0.05)
    ca = TcpConnection(cfg, local_port=40000, remote_port=5001, iss=1)
    cb = TcpConnection(cfg, local_port=5001, remote_port=40000, iss=2)
    cb.listen()
    tx, rx = live.WindowedSender(200_000, seed=3), live.ClosingSink(seed=3)
    ea = a.add_endpoint(ca, remote_ip=ip_b, app=tx)
    tx.endpoint = ea
    eb = b.add_endpoint(cb, remote_ip=ip_a, app=rx)
    done = {}
    th = threading.Thread(target=lambda: done.update(
        b=b.run(lambda: cb.state == "CLOSED" and eb.opened_at is not None, timeout=30)))
    th.start()
    a.connect(ea)
    assert a.run(lambda: ca.state == "CLOSED" and a.idle(), timeout=30)
    th.join(timeout=40)
    for h in (a, b):
        h.close()
    assert done.get("b") and rx.ok and rx.bytes == 200_000
    assert ea.summary()["rdtcp"] and a.malformed == b.malformed == 0


def test_scapys_l2_socket_carries_frames_and_not_its_own(netns_ok):
    from live.scapy_io import ScapyPort

    x, y = "rlscapyx", "rlscapyy"
    subprocess.run(["ip", "link", "add", x, "type", "veth", "peer", "name", y], check=True)
    try:
        for i in (x, y):
            subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{i}.disable_ipv6=1"], check=True)
            subprocess.run(["ip", "link", "set", i, "up"], check=True)
        px, py = ScapyPort(x), ScapyPort(y)
        frame = wire.encode_frame(SEGMENTS[2], **A)
        assert px.send(frame)
        import selectors
        sel = selectors.DefaultSelector()
        sel.register(py.sock, selectors.EVENT_READ)
        assert sel.select(2.0)
        got = py.recv_frames()
        assert [bytes(p) for p in got] == [frame]
        assert ScapyCodec.decode(got[0])[2] == SEGMENTS[2]
        assert px.recv_frames() == []                        # its own transmission is not input
        px.close()
        py.close()
    finally:
        subprocess.run(["ip", "link", "del", x])


def test_a_scapy_host_on_a_missing_interface_is_an_error_not_a_traceback(netns_ok, capsys):
    status = live.main(["--role", "receiver", "--interface", "rlnosuchif", "--ip", "10.9.9.9",
                        "--mac", "00:00:00:00:00:01", "--gateway-mac", "00:00:00:00:00:02",
                        "--peer-ip", "10.9.9.8", "--io", "scapy"])
    err = capsys.readouterr().err
    assert status == 2 and "rlnosuchif" in err and "Traceback" not in err


def test_scapy_endpoints_give_the_struct_codecs_figures(netns_ok, tmp_path):
    """The same run on a dumbbell scaled to 1 Mb/s (a window that fits the buffer, so slow
    start overflows nothing), once with each codec, the gateway dropping 2 % of the data:
    every byte intact, the bottleneck's goodput, the same drops, stamps and retransmissions."""
    from tests.live.test_live_netns import live_run

    common = ("--variant", "rdtcp", "--duration", "5", "--backend", "netns", "--drop", "0.02",
              "--bottleneck-bw", "1", "--access-bw", "2", "--max-cwnd", "20")
    s = live_run(tmp_path / "struct", *common)
    c = live_run(tmp_path / "scapy", *common, "--io", "scapy")
    goodput = 83 * 1448                       # 1 Mb/s: 83 MTU frames/s of 1448-byte segments
    for doc in (s, c):
        assert doc["ok"] and doc["pattern_ok"] and doc["delivered_bytes"] == doc["sender"]["bytes"]
        assert 0.4 * goodput <= doc["throughput_Bps"] <= 1.02 * goodput     # 2 % drops
        assert doc["r1_drops_buffer"] == 0 and doc["r1_drops_random"] > 0
        assert doc["epdn_stamps"] > 0 and doc["timeouts"] == 0
        assert doc["mss"] == 1448 and doc["sender"]["rdtcp"]
        assert plausible_handshake_rtt(doc["handshake_rtt_s"])
        assert doc["sender"]["malformed"] == doc["receiver"]["malformed"] == 0
    assert (c["io"], c["sender"]["io"], c["receiver"]["io"]) == ("scapy",) * 3
    assert s["sender"]["io"] == "struct"
    # the gateway's seeded drops hit the same segments of the same sequence: the same
    # recoveries (give or take the segments near the window's end)
    assert 0.9 <= c["throughput_Bps"] / s["throughput_Bps"] <= 1.1
    for key in ("r1_drops_random", "retransmits", "fast_retransmits", "epdn_stamps"):
        assert abs(c[key] - s[key]) <= 2, key
