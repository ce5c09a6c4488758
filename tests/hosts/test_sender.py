"""The sender's RTT samples through the public engine API, with explicit times: Karn's
algorithm over whole ACKs (RFC 6298 §3, §5), RTTM from the echoed timestamp (RFC 7323 §4),
per-flight timing on the same terms."""

import pytest

from hosts.tcp import TcpConfig, TcpConnection

MSS = 1000


def pair(**kw):
    """An established pair (A sends, B receives); the handshake takes A's first RTT sample,
    0.1 s: srtt 0.1, rttvar 0.05, RTO 1 s (RFC 6298 (2.2), (2.4)). No window scaling: every
    ACK offers the SYN's 65,535 bytes, so none is a window update (RFC 5681 §2 (e))."""
    cfg = TcpConfig(variant="sack", mss=MSS, initial_window_segments=10, window_scale=None, **kw)
    a = TcpConnection(cfg, local_port=1, remote_port=2, iss=2**32 - 500)
    b = TcpConnection(cfg, local_port=2, remote_port=1, iss=77)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.05)
    for s in a.on_segment(synack, now=0.1):
        assert b.on_segment(s, now=0.15) == []
    assert a.rtt.srtt == pytest.approx(0.1)
    return a, b


def deliver(dst, segs, now):
    """Segments to ``dst`` at ``now``; what it sends back."""
    return [r for s in segs for r in dst.on_segment(s, now=now)]


def repair_a_hole(a, b, *, mss=MSS):
    """Four segments sent at 1.0, the first lost; the other three arrive at 1.05 and draw three
    duplicate ACKs, which arrive at 1.1: A retransmits the first segment (fast retransmit), it
    arrives at 1.15 and B's ACK of all four reaches A at 1.2. Returns A's state before that
    last ACK, the ACK and the retransmission."""
    a.send(bytes(4 * mss))
    first, *rest = a.poll(now=1.0)
    assert len(rest) == 3 and first.payload
    dupacks = deliver(b, rest, 1.05)
    assert len(dupacks) == 3
    (rtx,) = deliver(a, dupacks, 1.1)
    assert rtx.seq == first.seq and a.stats["fast_retransmits"] == 1
    (ack,) = deliver(b, [rtx], 1.15)
    return (a.rtt.srtt, a.rtt.rttvar, a.rtt.rto), ack, rtx


def test_karn_no_sample_from_an_ack_that_also_covers_a_retransmission():
    # Without SACK the three segments B held behind the hole are acknowledged only with the
    # retransmission: timed by their send times they would count the repair (0.2 s, twice the
    # path's RTT). RFC 6298 §3 and Linux (FLAG_RETRANS_DATA_ACKED): the ACK gives no sample.
    a, b = pair(sack=False)
    before, ack, _ = repair_a_hole(a, b)
    assert a.on_segment(ack, now=1.2) == []
    assert a.flight_size == 0 and not a.in_recovery
    assert (a.rtt.srtt, a.rtt.rttvar, a.rtt.rto) == before


def test_karn_the_next_sample_comes_from_data_sent_after_the_retransmission():
    # RFC 6298 §5: once data is sent and acknowledged without a retransmission, it is timed
    a, b = pair(sack=False)
    before, ack, _ = repair_a_hole(a, b)
    a.on_segment(ack, now=1.2)
    a.send(bytes(MSS))
    (fresh,) = a.poll(now=2.0)
    deliver(a, deliver(b, [fresh], 2.05), 2.1)
    srtt, rttvar, _ = before                                # RFC 6298 (2.3), R = 0.1
    assert (a.rtt.srtt, a.rtt.rttvar) == pytest.approx(
        (0.875 * srtt + 0.125 * 0.1, 0.75 * rttvar + 0.25 * abs(srtt - 0.1)))


def test_karn_with_sack_the_segments_sacked_above_the_hole_are_not_timed_either():
    a, b = pair(sack=True)
    before, ack, _ = repair_a_hole(a, b)
    a.on_segment(ack, now=1.2)
    assert (a.rtt.srtt, a.rtt.rttvar, a.rtt.rto) == before


def test_rttm_times_a_retransmission_by_the_timestamp_its_ack_echoes():
    # RFC 7323 §4: with timestamps the ACK that the hole-filling retransmission (sent at 1.1)
    # drew echoes its TSval (§4.3), so the sample is that copy's 0.1 s, not the 0.2 s the
    # segments held behind the hole waited, and not withheld as Karn withholds it without them
    a, b = pair(sack=False, timestamps=True)
    before, ack, rtx = repair_a_hole(a, b, mss=MSS - 12)
    assert ack.option("Timestamp")[1] == rtx.option("Timestamp")[0] == 1100
    a.on_segment(ack, now=1.2)
    assert a.rtt.srtt == pytest.approx(0.875 * before[0] + 0.125 * 0.1)


def test_rttm_an_ack_that_acknowledges_nothing_new_gives_no_sample():
    # RFC 7323 §4.1, RTTM rule: only an ACK that advances SND.UNA updates the estimate
    a, b = pair(sack=False, timestamps=True)
    a.send(bytes(2 * (MSS - 12)))
    first, second = a.poll(now=1.0)
    (dupack,) = deliver(b, [second], 1.05)
    before = (a.rtt.srtt, a.rtt.rttvar, a.rtt.rto)
    a.on_segment(dupack, now=1.1)
    assert (a.rtt.srtt, a.rtt.rttvar, a.rtt.rto) == before


def test_per_flight_no_sample_from_the_timed_segment_held_behind_a_hole():
    # BSD-like per-flight timing ([TCPDEBUG] §3.2): one segment a round trip. Four segments at 1.0,
    # the second lost; the first is timed and its ACK (at 1.1) releases a fifth, the next one
    # timed. B holds it behind the hole until the fast retransmit (sent at 1.2) fills it: the
    # ACK of all five at 1.3 also covers the retransmission, and gives no sample (it would
    # read 0.2 s for a 0.1 s path)
    a, b = pair(sack=False, rtt_sampling="per-flight")
    a.send(bytes(4 * MSS))
    s1, s2, s3, s4 = a.poll(now=1.0)
    to_a = deliver(b, [s1, s3, s4], 1.05)               # ACK of s1, then two duplicate ACKs
    a.send(bytes(MSS))
    (s5,) = deliver(a, to_a[:1], 1.1)
    assert a.rtt.srtt == pytest.approx(0.875 * 0.1 + 0.125 * 0.1)
    assert deliver(a, to_a[1:], 1.1) == []
    before = (a.rtt.srtt, a.rtt.rttvar, a.rtt.rto)
    (rtx,) = deliver(a, deliver(b, [s5], 1.15), 1.2)    # the third duplicate ACK
    assert rtx.seq == s2.seq
    (ack,) = deliver(b, [rtx], 1.25)
    a.on_segment(ack, now=1.3)
    assert a.flight_size == 0
    assert (a.rtt.srtt, a.rtt.rttvar, a.rtt.rto) == before


def test_per_flight_a_retransmission_stops_the_timing_and_the_next_new_segment_is_timed():
    # BSD's t_rtt (and ns-2's rtt_active_): a retransmission stops the timing of the segment
    # timed before it, and the next new segment is timed; its ACK is its own, so it gives a
    # sample even though it also acknowledges the retransmission. Two segments sent at 1.0 are
    # lost; the timer (1 s) resends the first at 2.0, whose ACK at 2.1 gives no sample; the
    # second goes again and a new third with it at 2.1; the third arrives first, so one ACK at
    # 2.2 covers both: 0.1 s for the third (Linux's per-ACK rule would take none)
    a, b = pair(sack=False, rtt_sampling="per-flight")
    a.send(bytes(2 * MSS))
    assert len(a.poll(now=1.0)) == 2
    (rtx1,) = a.on_timer(now=a.next_timer())
    assert a.stats["timeouts"] == 1 and rtx1.payload
    before = (a.rtt.srtt, a.rtt.rttvar)
    a.send(bytes(MSS))
    (ack1,) = deliver(b, [rtx1], 2.05)
    rtx2, third = deliver(a, [ack1], 2.1)
    assert (a.rtt.srtt, a.rtt.rttvar) == before             # the ACK of a retransmission
    assert a.stats["retransmits"] == 2 and third.seq == (rtx2.seq + MSS) % 2**32
    dupack, ack = deliver(b, [third, rtx2], 2.15)
    deliver(a, [dupack, ack], 2.2)
    assert a.flight_size == 0
    srtt, rttvar = before                                   # RFC 6298 (2.3), R = 0.1
    assert (a.rtt.srtt, a.rtt.rttvar) == pytest.approx(
        (0.875 * srtt + 0.125 * 0.1, 0.75 * rttvar + 0.25 * abs(srtt - 0.1)))
