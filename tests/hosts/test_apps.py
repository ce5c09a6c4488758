"""hosts.apps: the bulk sender and the checking sink over two engines in memory."""

from collections import deque

import pytest

from hosts.apps import (PATTERN_PERIOD, BulkSender, ClosingSink, FileSender, PatternSink,
                        pattern_bytes)
from hosts.tcp import TcpConfig, TcpConnection


def transfer(total: int, variant: str, drop_every: int, snd_buffer: int = 1 << 18):
    cfg = TcpConfig(variant=variant, rdtcp=variant == "rdtcp", snd_buffer=snd_buffer)
    a = TcpConnection(cfg, local_port=1, remote_port=2, iss=2**32 - 5000)
    b = TcpConnection(cfg, local_port=2, remote_port=1, iss=7)
    b.listen()
    src, sink = BulkSender(total, seed=3), PatternSink(seed=3)
    now, n = 0.0, 0
    to_b, to_a = deque(a.connect(now=now)), deque()
    while now < 600 and b.state != "CLOSED":
        now += 0.001
        while to_b:
            seg = to_b.popleft()
            n += bool(seg.payload)
            if not (drop_every and seg.payload and n % drop_every == 0):
                to_a.extend(b.on_segment(seg, now=now))
            sink.pump(b, now)
        if b.state == "CLOSE-WAIT":
            b.close()
            to_a.extend(b.poll(now=now))
        while to_a:
            to_b.extend(a.on_segment(to_a.popleft(), now=now))
        to_b.extend(src.pump(a, now))
        assert a.send_buffer_space() >= 0 and src.queued - a.snd_una <= snd_buffer + 1
        if not to_a and not to_b:
            t = min(x for x in (a.next_timer(), b.next_timer(), now + 1) if x is not None)
            now = max(now, t)
            to_b.extend(a.on_timer(now=now))
            to_a.extend(b.on_timer(now=now))
    return src, sink, a, b


@pytest.mark.parametrize("variant", ["sack", "dsack", "rdtcp"])
def test_bulk_transfer_delivers_the_pattern_with_bounded_send_buffer(variant):
    src, sink, a, b = transfer(2_000_000, variant, drop_every=97)
    assert src.done and src.closed
    assert sink.ok and sink.bytes == 2_000_000
    assert a.stats["retransmits"] > 0
    assert b.state == "CLOSED"


def test_sink_reports_the_first_wrong_byte():
    sink = PatternSink(seed=1)
    good = pattern_bytes(0, 5000, seed=1)
    sink.check(good[:3000])
    sink.check(good[3000:4000] + bytes([good[4000] ^ 1]) + good[4001:])
    assert not sink.ok and sink.first_error == 4000 and sink.bytes == 5000


def test_pattern_is_position_dependent_across_segment_shifts():
    # a shift by any whole number of 1448- or 1436-byte segments up to 1000 changes the bytes
    base = pattern_bytes(0, 2000)
    for mss in (1448, 1436, 1460):
        for k in range(1, 1000):
            assert pattern_bytes(k * mss, 2000) != base
    assert pattern_bytes(PATTERN_PERIOD, 100) == pattern_bytes(0, 100)
    assert len(pattern_bytes(123, 200_000)) == 200_000


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="total"):
        BulkSender(-1)
    with pytest.raises(ValueError, match="offset"):
        pattern_bytes(-1, 3)


def test_file_sender_and_closing_sink_end_the_transfer_with_both_fins():
    cfg = TcpConfig(variant="sack")
    a = TcpConnection(cfg, local_port=1, remote_port=2, iss=100)
    b = TcpConnection(cfg, local_port=2, remote_port=1, iss=7)
    b.listen()
    ends = []
    src, sink = FileSender(50_000, on_done=ends.append), ClosingSink()
    now = 0.0
    to_b, to_a = deque(a.connect(now=now)), deque()
    while now < 60 and not (a.state == "TIME-WAIT" and b.state == "CLOSED"):
        now += 0.001
        while to_b:
            to_a.extend(b.on_segment(to_b.popleft(), now=now))
        to_a.extend(sink.pump(b, now))
        while to_a:
            to_b.extend(a.on_segment(to_a.popleft(), now=now))
        to_b.extend(src.pump(a, now))
    assert sink.bytes == src.queued == 50_000 and src.closed and sink.closed
    assert a.state == "TIME-WAIT" and b.state == "CLOSED"
    # the end of the transfer is noted once, when our FIN was acknowledged
    assert ends == [src.done_at] and src.done_at is not None and src.done_at < now
