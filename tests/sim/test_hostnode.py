"""The simulated host's demultiplexing: a TCP segment for no endpoint of the host is answered
with the engine's reset (RFC 9293 §3.10.7.1), one for an endpoint goes to its engine."""

from types import SimpleNamespace

from hosts.tcp import TcpConfig, TcpConnection
from netbase.segment import ACK, RST, SYN, Segment
from netbase.wire import decode_frame, encode_frame
from sim.events import EventQueue
from sim.hostnode import HostNode

A = dict(ip="10.0.0.1", mac="00:00:00:00:00:01")
B = dict(ip="10.0.0.2", mac="00:00:00:00:00:02")


def host_with_listener():
    sent = []
    host = HostNode("b", ip=B["ip"], mac=B["mac"], gateway_mac="00:00:00:00:00:fe",
                    events=EventQueue())
    host.nic = SimpleNamespace(send=lambda frame, now: sent.append(decode_frame(frame)))
    conn = TcpConnection(TcpConfig(), local_port=5001, remote_port=40000)
    conn.listen()
    host.add_endpoint(conn, local_port=5001, remote_ip=A["ip"], remote_port=40000,
                      app=SimpleNamespace(pump=lambda conn, now: []))
    return host, conn, sent


def frame(seg):
    return encode_frame(seg, src_ip=A["ip"], dst_ip=B["ip"], src_mac=A["mac"], dst_mac=B["mac"])


def test_a_segment_for_no_endpoint_is_answered_with_a_reset():
    host, conn, sent = host_with_listener()
    host.on_frame((1, frame(Segment(40000, 6000, 10, 777, ACK, 100, (), b"data"))))
    assert host.unmatched == 1 and conn.state == "LISTEN"
    ((src, dst, rst),) = sent
    assert (src, dst) == (B["ip"], A["ip"])
    assert (rst.src_port, rst.dst_port, rst.seq, rst.flags) == (6000, 40000, 777, RST)


def test_a_reset_for_no_endpoint_is_not_answered():
    host, _, sent = host_with_listener()
    host.on_frame((1, frame(Segment(40000, 6000, 10, 0, RST))))
    assert host.unmatched == 1 and sent == []


def test_a_segment_for_an_endpoint_reaches_its_engine():
    host, conn, sent = host_with_listener()
    host.on_frame((1, frame(Segment(40000, 5001, 10, 0, SYN, 1000))))
    assert host.unmatched == 0 and conn.state == "SYN-RECEIVED"
    ((_, _, synack),) = sent
    assert synack.flags == SYN | ACK and synack.ack == 11
