"""One pass, memory for the window only: a long connection fed frame by frame through the
public Analyzer API must not hold more after 10,000 segments than after 2,000."""

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
