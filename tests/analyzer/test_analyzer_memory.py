"""One pass, memory for what is open: a long connection fed frame by frame through the public
Analyzer API must not hold more after 10,000 segments than after 2,000; a connection's state is
released when it is done (both FINs acknowledged, a RST, or idle), and small while it is open."""

import tracemalloc

from analyzer import Analyzer, AnalyzerConfig
from netbase.segment import ACK, SYN, Segment
from netbase.wire import FrameEncoder
from tracekit import A, B, MSS, RTT, SER

WINDOW = 30
COUNT = 10000
LOSS_EVERY = 997            # one segment in that many is resent after three dupacks


def frames(count: int):
    """(time, frame) of a bulk transfer with a window of WINDOW segments, an ACK for each
    segment one RTT after it, and a fast retransmit now and then (sender-side capture)."""
    a2b = FrameEncoder(src_ip=A[0], dst_ip=B[0], src_mac="00:00:00:00:00:01",
                       dst_mac="00:00:00:00:00:02")
    b2a = FrameEncoder(src_ip=B[0], dst_ip=A[0], src_mac="00:00:00:00:00:02",
                       dst_mac="00:00:00:00:00:01")
    isn_a, isn_b = 7, 900
    payload = bytes(MSS)

    def seq(i):
        return isn_a + 1 + i * MSS

    yield 0.0, a2b.encode(Segment(A[1], B[1], isn_a, 0, SYN, 65535, (("SAckOK", b""),)))
    yield RTT, b2a.encode(Segment(B[1], A[1], isn_b, seq(0), SYN | ACK, 65535,
                                  (("SAckOK", b""),)))
    t = RTT
    stuck = None                # the lost segment while its dupacks come
    for i in range(count):
        t += 2 * SER
        yield t, a2b.encode(Segment(A[1], B[1], seq(i), isn_b + 1, ACK, 65535, (), payload))
        j = i - WINDOW          # the segment whose ACK arrives now
        if j < 0:
            continue
        if j % LOSS_EVERY == 0 and j and stuck is None:
            stuck, dup = j, 0
            continue
        if stuck is not None:
            dup += 1
            opts = (("SAck", ((seq(stuck + 1), seq(j + 1)),)),)
            yield t + 1e-4, b2a.encode(Segment(B[1], A[1], isn_b + 1, seq(stuck), ACK,
                                               65535, opts))
            if dup == 3:
                yield t + SER, a2b.encode(Segment(A[1], B[1], seq(stuck), isn_b + 1, ACK,
                                                  65535, (), payload))
                stuck = None
            continue
        yield t + 1e-4, b2a.encode(Segment(B[1], A[1], isn_b + 1, seq(j + 1), ACK, 65535))


def test_memory_does_not_grow_with_the_trace():
    analyzer = Analyzer(AnalyzerConfig())
    trace = list(frames(COUNT))
    tracemalloc.start()
    try:
        marks = {}
        for n, (t, frame) in enumerate(trace):
            analyzer.feed(t, frame)
            if n in (4000, 19000):
                marks[n] = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    report = analyzer.finish()
    [flow] = [f for f in report["flows"] if f["data_segments"]]
    losses = len(range(LOSS_EVERY, COUNT - WINDOW - 3, LOSS_EVERY))
    assert flow["data_segments"] == COUNT + losses and flow["retransmissions"] == losses
    assert flow["profiles"]["rfc5681"]["classes"]["fast_retransmit"] == losses
    # a record kept per packet would cost a megabyte or more over the 15,000 frames between
    # the marks
    assert marks[19000] - marks[4000] < 100_000, marks


# ---------------------------------------------------------------------- many connections
CLIENT, SERVER = "11.0.0.1", "10.0.0.1"


def two_packet_frames(count: int, *, gap: float = 0.001, first_port: int = 1024):
    """(time, frame) of ``count`` two-packet connections: a 1000-byte data segment from a
    client port and its ACK 0.5 ms later, one connection every ``gap`` seconds."""
    up = FrameEncoder(src_ip=CLIENT, dst_ip=SERVER, src_mac="00:00:00:00:00:01",
                      dst_mac="00:00:00:00:00:02")
    down = FrameEncoder(src_ip=SERVER, dst_ip=CLIENT, src_mac="00:00:00:00:00:02",
                        dst_mac="00:00:00:00:00:01")
    payload = bytes(1000)
    for i in range(count):
        port = first_port + i
        t = i * gap
        yield t, up.encode(Segment(port, 80, 5000, 1, ACK, 65535, (), payload))
        yield t + 0.0005, down.encode(Segment(80, port, 1, 6000, ACK, 65535))


def closing_frames(*, rst: bool):
    """A connection through its handshake, one data segment, then both FINs acknowledged (or
    a RST from the server)."""
    from tracekit import Trace
    tr = Trace()
    t = tr.handshake()
    tr.data(t, 0)
    tr.ack(t + RTT, 1)
    if rst:
        tr.raw(t + RTT + 0.01, FrameEncoder(
            src_ip=B[0], dst_ip=A[0], src_mac="00:00:00:00:00:02",
            dst_mac="00:00:00:00:00:01").encode(
                Segment(B[1], A[1], tr.iss_b + 1, 0, 0x04, 0)))
    else:
        tr.data(t + RTT + 0.01, 1, length=0, fin=True)       # A's FIN
        tr.ack(t + 2 * RTT, 1)
        fin_b = Segment(B[1], A[1], tr.iss_b + 1, tr.seq(1) + 1, ACK | 0x01, 65535)
        tr.raw(t + 2 * RTT + 0.001, FrameEncoder(
            src_ip=B[0], dst_ip=A[0], src_mac="00:00:00:00:00:02",
            dst_mac="00:00:00:00:00:01").encode(fin_b))
        tr.raw(t + 3 * RTT, FrameEncoder(
            src_ip=A[0], dst_ip=B[0], src_mac="00:00:00:00:00:01",
            dst_mac="00:00:00:00:00:02").encode(
                Segment(A[1], B[1], tr.seq(1) + 1, tr.iss_b + 2, ACK, 65535)))
    return [(t, f) for t, _, f in sorted(tr.frames)]


def test_a_connection_is_released_when_both_fins_are_acknowledged_or_on_a_rst():
    for rst in (False, True):
        flows = []
        analyzer = Analyzer(AnalyzerConfig(), on_flow=flows.append)
        frames = closing_frames(rst=rst)
        for t, frame in frames[:-1]:
            analyzer.feed(t, frame)
        assert analyzer.open_connections == 1 and not flows
        analyzer.feed(*frames[-1])          # the last ACK of a FIN, or the RST
        assert analyzer.open_connections == 0, rst
        # the summary left with the state, before the trace ended
        assert [f["sender"] for f in flows] == ["10.0.1.1:40000"]
        report = analyzer.finish()
        assert report["flows"] == [] and report["flows_reported"] == 1


def test_an_idle_connection_is_released_and_a_later_packet_starts_a_new_one():
    flows = []
    analyzer = Analyzer(AnalyzerConfig(idle_timeout=10.0), on_flow=flows.append)
    first = list(two_packet_frames(1))
    for t, frame in first:
        analyzer.feed(t, frame)
    # other traffic 3 s and 11 s later: the first connection has been silent for 10 s
    for t, frame in two_packet_frames(1, first_port=2000):
        analyzer.feed(t + 3.0, frame)
    assert analyzer.open_connections == 2
    for t, frame in two_packet_frames(1, first_port=3000):
        analyzer.feed(t + 11.0, frame)
    assert analyzer.open_connections == 2 and [f["connection"] for f in flows] == [1]
    for t, frame in first:                  # the first four-tuple again
        analyzer.feed(t + 12.0, frame)
    report = analyzer.finish()
    assert report["connections_idle_closed"] == 1 and report["connections"] == 4
    assert sorted(f["connection"] for f in flows) == [1, 2, 3, 4]


def test_memory_follows_the_connections_open_not_the_trace():
    """100 two-packet connections a second with a 1 s idle timeout: about a hundred are ever
    open, so memory after 20,000 connections is what it was after 5,000."""
    analyzer = Analyzer(AnalyzerConfig(idle_timeout=1.0), on_flow=lambda summary: None)
    frames = list(two_packet_frames(20000, gap=0.01))
    tracemalloc.start()
    try:
        marks = {}
        for n, (t, frame) in enumerate(frames):
            analyzer.feed(t, frame)
            if n + 1 in (10000, 40000):
                marks[n + 1] = tracemalloc.get_traced_memory()[0]
                assert analyzer.open_connections < 200, analyzer.open_connections
    finally:
        tracemalloc.stop()
    report = analyzer.finish()
    assert report["flows_reported"] == 20000 and report["connections_idle_closed"] > 19000
    assert marks[40000] - marks[10000] < 100_000, marks


def test_an_open_connection_costs_little():
    """5,000 quiet connections held open at once: under 2 KB each (the profiles' machines are
    not built for a flow that gives them nothing to judge, analyzer/flow.py)."""
    analyzer = Analyzer(AnalyzerConfig(), on_flow=lambda summary: None)
    frames = list(two_packet_frames(5000))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for t, frame in frames:
            analyzer.feed(t, frame)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert analyzer.open_connections == 5000
    assert held / 5000 < 2048, held / 5000
