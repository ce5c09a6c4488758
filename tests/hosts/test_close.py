"""Closing a connection (RFC 9293 §3.10.7): TIME-WAIT lasts 2*MSL and restarts on the peer's
retransmitted FIN, a segment for no connection is answered with a reset, and a reset in the
last states of a close ends it without error."""

import pytest

from hosts.tcp import TcpConfig, TcpConnection, reset_for
from hosts.tcp.config import MSL
from netbase.segment import ACK, FIN, RST, SYN, Segment


def pair(**kw):
    cfg = TcpConfig(variant="sack", **kw)
    a = TcpConnection(cfg, local_port=1, remote_port=2, iss=2**32 - 10)
    b = TcpConnection(cfg, local_port=2, remote_port=1, iss=77)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.05)
    for s in a.on_segment(synack, now=0.1):
        b.on_segment(s, now=0.15)
    return a, b


def closed_by_a(**kw):
    """A closes first, B after: A ends in TIME-WAIT at 1.25 s, B in LAST-ACK with its FIN and
    A's last ACK of it returned (not yet delivered to B)."""
    a, b = pair(**kw)
    a.close()
    (fin,) = a.poll(now=1.0)
    for s in b.on_segment(fin, now=1.05):
        a.on_segment(s, now=1.1)
    b.close()
    (fin_b,) = b.poll(now=1.2)
    (last_ack,) = a.on_segment(fin_b, now=1.25)
    assert (a.state, b.state) == ("TIME-WAIT", "LAST-ACK")
    return a, b, fin_b, last_ack


def test_time_wait_lasts_twice_the_maximum_segment_lifetime_by_default():
    assert MSL == 120.0 and TcpConfig().time_wait == 2 * MSL     # RFC 9293 §3.4.2, §3.10.7.4
    a, _, _, _ = closed_by_a()
    assert a.next_timer() == 1.25 + 2 * MSL


def test_a_retransmitted_fin_in_time_wait_is_acknowledged_and_restarts_the_timeout():
    # A's last ACK is lost; B's FIN comes again after B's RTO: A must still be there to ACK it
    a, b, fin_b, _ = closed_by_a(time_wait=2.0)
    (again,) = b.on_timer(now=b.next_timer())
    assert again.flags & FIN and again.seq == fin_b.seq
    (ack,) = a.on_segment(again, now=3.0)
    assert ack.flags & ACK and ack.ack == (fin_b.seq + 1) % 2**32
    assert a.state == "TIME-WAIT" and a.next_timer() == 3.0 + 2.0
    assert b.on_segment(ack, now=3.1) == [] and (b.state, b.error) == ("CLOSED", None)


@pytest.mark.parametrize("flags", [ACK, ACK | FIN, SYN, FIN])
def test_a_closed_endpoint_answers_with_a_reset_the_sender_accepts(flags):
    # RFC 9293 §3.10.7.1: <SEQ=SEG.ACK><CTL=RST> if the segment had ACK, else
    # <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>
    conn = TcpConnection(TcpConfig(), local_port=80, remote_port=40000)
    seg = Segment(40000, 80, 2**32 - 2, 1234, flags, 100, (), b"xyz")
    (rst,) = conn.on_segment(seg, now=1.0)
    assert (rst.src_port, rst.dst_port) == (80, 40000) and rst.flags & RST
    if flags & ACK:
        assert (rst.seq, rst.flags) == (1234, RST)
    else:
        assert (rst.seq, rst.ack, rst.flags) == (0, (2**32 - 2 + seg.seg_len) % 2**32, RST | ACK)
    assert rst == reset_for(seg)


def test_a_reset_is_never_answered():
    conn = TcpConnection(TcpConfig(), local_port=80, remote_port=40000)
    assert conn.on_segment(Segment(40000, 80, 5, 0, RST), now=1.0) == []
    assert reset_for(Segment(40000, 80, 5, 9, RST | ACK)) is None


def test_after_time_wait_the_endpoint_resets_what_still_arrives():
    a, b, fin_b, last_ack = closed_by_a(time_wait=1.0)
    assert a.on_timer(now=2.25) == [] and a.state == "CLOSED"
    (rst,) = a.on_segment(fin_b, now=5.0)                  # B's FIN, very late
    assert (rst.flags, rst.seq) == (RST, fin_b.ack)
    # B in LAST-ACK: the peer is gone after everything B sent but its FIN was acknowledged,
    # so the reset closes B without error (RFC 9293 §3.10.7.4)
    assert b.on_segment(rst, now=5.05) == [] and (b.state, b.error) == ("CLOSED", None)
    assert b.next_timer() is None


def test_a_reset_in_time_wait_closes_without_error():
    a, b, _, last_ack = closed_by_a()
    b.on_segment(last_ack, now=1.3)
    assert b.state == "CLOSED"
    # a late duplicate of A's last ACK reaches B, which answers with a reset
    (rst,) = b.on_segment(last_ack, now=2.0)
    assert a.on_segment(rst, now=2.05) == [] and (a.state, a.error) == ("CLOSED", None)
    assert a.next_timer() is None


def test_a_reset_while_established_is_still_an_error():
    a, b = pair()
    rst = Segment(2, 1, (77 + 1) % 2**32, 0, RST)          # exactly at A's RCV.NXT
    assert a.on_segment(rst, now=1.0) == []
    assert (a.state, a.error) == ("CLOSED", "reset by peer")


@pytest.mark.parametrize("value", [-1.0, float("inf"), float("nan")])
def test_time_wait_must_be_a_finite_duration(value):
    with pytest.raises(ValueError, match="time_wait must be a finite number of seconds >= 0"):
        TcpConfig(time_wait=value)
