"""The receiving half through the public engine API, with explicit times: which timestamp an
ACK echoes (RFC 7323 §4.2-4.3)."""

from dataclasses import replace

from hosts.tcp import TcpConfig, TcpConnection

MSS = 1000


def pair(*, receiver: dict | None = None, **kw):
    """An established pair, A sending to B; ``receiver``: B's settings unlike A's."""
    cfg = TcpConfig(variant="sack", mss=MSS, initial_window_segments=10, window_scale=None, **kw)
    a = TcpConnection(cfg, local_port=1, remote_port=2, iss=5)
    b = TcpConnection(replace(cfg, **(receiver or {})), local_port=2, remote_port=1,
                      iss=2**32 - 9)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.05)
    for s in a.on_segment(synack, now=0.1):
        assert b.on_segment(s, now=0.15) == []
    return a, b


def tsval(seg):
    return seg.option("Timestamp")[0]


def tsecr(seg):
    return seg.option("Timestamp")[1]


def test_a_delayed_ack_echoes_the_earliest_segment_it_acknowledges():
    # RFC 7323 §4.2 (A), §4.3 (2): TS.Recent takes a TSval only from a segment at or below
    # Last.ACK.sent, so the ACK of two segments echoes the first one's timestamp and the
    # sender's RTT measurement includes the time the ACK was delayed
    a, b = pair(timestamps=True, receiver={"delayed_ack": True})
    a.send(bytes(MSS - 12))
    (s1,) = a.poll(now=1.0)
    a.send(bytes(MSS - 12))
    (s2,) = a.poll(now=1.01)
    assert (tsval(s1), tsval(s2)) == (1000, 1010)
    assert b.on_segment(s1, now=1.05) == []               # the ACK is delayed
    (ack,) = b.on_segment(s2, now=1.06)                   # every second segment is ACKed
    assert ack.ack == s2.seq + len(s2.payload)
    assert tsecr(ack) == 1000


def test_a_hole_filling_segment_is_echoed_and_segments_above_the_hole_are_not():
    # RFC 7323 §4.2 (B), (C): ACKs of segments held above a hole echo the segment that last
    # advanced RCV.NXT; the ACK of the segment that fills the hole echoes that segment
    a, b = pair(timestamps=True)
    a.send(bytes(3 * (MSS - 12)))
    s1, s2, s3 = a.poll(now=1.0)
    (ack1,) = b.on_segment(s1, now=1.05)
    assert tsecr(ack1) == 1000
    a.on_segment(ack1, now=1.1)
    (dupack,) = b.on_segment(s3, now=1.2)
    assert tsecr(dupack) == 1000
    (rtx,) = a.on_timer(now=a.next_timer())               # s2 again, by the RTO
    assert rtx.seq == s2.seq and tsval(rtx) > 1100
    (ack,) = b.on_segment(rtx, now=2.3)
    assert ack.ack == s3.seq + len(s3.payload)
    assert tsecr(ack) == tsval(rtx)
