"""experiments.runner.timeseq: the time-sequence diagram of one traced connection, as every
study draws it."""

import pytest

from experiments.runner.plots import readability_problems
from experiments.runner.timeseq import (read_time_sequence, time_sequence_figure,
                                        time_sequence_panels)
from netbase.pcap import PcapWriter
from netbase.segment import ACK, SYN, Segment
from netbase.wire import encode_frame

A, B = ("10.0.1.1", 40000), ("10.0.2.1", 5001)
MSS, ISS = 1000, (1 << 32) - 1500     # the sequence numbers wrap inside the transfer


def _frame(seg, src, dst):
    return encode_frame(seg, src_ip=src[0], dst_ip=dst[0])


def _trace(path):
    """A's SYN at 0.1 s; segments 0-4 at 0.2 s + 10 ms each, 2 lost; ACKs of 0-1 and three
    duplicates; segment 2 again at 0.5 s; the ACK of all five at 0.6 s. A second, smaller
    connection (B to A) must not be the one drawn."""
    frames = [(0.1, _frame(Segment(A[1], B[1], ISS, 0, SYN, 65535), A, B))]
    for i in range(5):
        frames.append((0.2 + i * 0.01, _frame(Segment(A[1], B[1], (ISS + 1 + i * MSS) % 2**32,
                                                      7, ACK, 65535, (), bytes(MSS)), A, B)))
    for t, upto in ((0.3, 2), (0.32, 2), (0.33, 2), (0.34, 2), (0.6, 5)):
        frames.append((t, _frame(Segment(B[1], A[1], 7, (ISS + 1 + upto * MSS) % 2**32, ACK,
                                         65535), B, A)))
    frames.append((0.5, _frame(Segment(A[1], B[1], (ISS + 1 + 2 * MSS) % 2**32, 7, ACK, 65535,
                                       (), bytes(MSS)), A, B)))
    frames.append((0.55, _frame(Segment(6000, 80, 1, 1, ACK, 65535, (), bytes(10)), B, A)))
    with PcapWriter(str(path)) as w:
        for t, frame in sorted(frames, key=lambda f: f[0]):
            w.write(t, frame)
    return str(path)


def test_segments_retransmissions_and_acks_in_segments_from_the_syn(tmp_path):
    ts = read_time_sequence(_trace(tmp_path / "t.pcap"))
    assert ts.mss == MSS
    assert ts.sent == [(pytest.approx(0.1 + i * 0.01), i) for i in range(5)]
    assert ts.resent == [(pytest.approx(0.4), 2)]
    assert [s for _, s in ts.acks] == [2, 2, 2, 2, 5]
    assert ts.window(0.35, 0.45).resent == ts.resent and ts.window(0.35, 0.45).sent == []
    assert ts.origin == pytest.approx(0.1) and ts.window(0.35, 0.45).origin == ts.origin


def test_a_panels_points_are_labelled_apart(tmp_path, monkeypatch):
    from matplotlib.figure import Figure
    seen, real = [], Figure.savefig

    def savefig(fig, *args, **kwargs):
        real(fig, *args, **kwargs)
        seen.append((readability_problems(fig), [t for ax in fig.axes for t in ax.texts]))

    monkeypatch.setattr(Figure, "savefig", savefig)
    ts = read_time_sequence(_trace(tmp_path / "t.pcap"))
    marks = [(0.12, 2, "segment 2 lost"), (0.4, 2, "its retransmission")]
    assert time_sequence_panels([("", ts, (0.05, 0.55), marks)], tmp_path / "m.png", title="t")
    (problems, texts), = seen
    assert problems == [] and [t.get_text() for t in texts] == [m[2] for m in marks]
    assert [t.xy for t in texts] == [(0.12, 2), (0.4, 2)]
    # the second label a step below the first: two points close together do not overprint
    assert texts[1].xyann[1] < texts[0].xyann[1]


def test_the_figure_is_written_and_readable(tmp_path, monkeypatch):
    from matplotlib.figure import Figure
    problems, real = [], Figure.savefig

    def savefig(fig, *args, **kwargs):
        real(fig, *args, **kwargs)
        problems.extend(readability_problems(fig))

    monkeypatch.setattr(Figure, "savefig", savefig)
    ts = read_time_sequence(_trace(tmp_path / "t.pcap"))
    assert time_sequence_figure(ts, tmp_path / "ts.png", title="t", zoom=(0.3, 0.5))
    assert (tmp_path / "ts.png").stat().st_size > 5_000 and problems == []


def test_a_capture_without_data_or_not_a_capture_is_one_error(tmp_path):
    empty = tmp_path / "e.pcap"
    with PcapWriter(str(empty)) as w:
        w.write(0.1, _frame(Segment(A[1], B[1], 1, 0, SYN, 65535), A, B))
    with pytest.raises(ValueError, match="no TCP segment with data"):
        read_time_sequence(empty)
    junk = tmp_path / "j.pcap"
    junk.write_bytes(b"not a capture at all, twenty-four bytes+")
    with pytest.raises(ValueError, match="not a libpcap file"):
        read_time_sequence(junk)
