"""Connections in one trace: several at once, a four-tuple reused, the end of a connection,
header-only captures, a SYN that is never answered."""

from analyzer import AnalyzerConfig, analyze_file
from netbase.segment import ACK, FIN, Segment
from netbase.pcap import PcapWriter
from tracekit import GAP, RTT, SER, Trace

A2 = ("10.0.1.1", 40001)
B = ("10.0.2.1", 5001)


def fr_connection(tr: Trace, t0: float) -> float:
    """A connection from t0: eight segments, the second resent after three dupacks, all
    acknowledged, then A's FIN and B's FIN, each acknowledged; returns the end time."""
    start = tr.handshake(t0)
    times = tr.burst(start + 0.1, 0, 8)
    base = times[0] + RTT
    tr.ack(base, 1)
    for k in range(1, 4):
        tr.ack(base + k * GAP, 1, sack=[(2, 2 + k)])
    r1 = base + 3 * GAP + SER
    tr.data(r1, 1)
    done = r1 + RTT + 0.001
    tr.ack(done, 8)
    tr.data(done + 0.001, 8, length=0, fin=True)        # A's FIN
    fin_ack = tr.seq(8) + 1
    tr._put(done + 0.001 + RTT, Segment(tr.b[1], tr.a[1], tr.iss_b + 1, fin_ack, ACK | FIN,
                                        65535), tr.b, tr.a)
    tr._put(done + 0.002 + RTT, Segment(tr.a[1], tr.b[1], fin_ack, tr.iss_b + 2, ACK,
                                        65535), tr.a, tr.b)
    return done + 0.002 + RTT


def write(tmp_path, *traces, snaplen=262144):
    frames = sorted(f for tr in traces for f in tr.frames)
    path = str(tmp_path / "c.pcap")
    with PcapWriter(path, snaplen=snaplen) as w:
        for t, _, frame in frames:
            w.write(t, frame)
    return path


def data_flows(report):
    """The flows reported: those that sent data (B's FIN alone is not reported)."""
    return report["flows"]


def test_two_connections_at_once_are_told_apart(tmp_path):
    one, two = Trace(), Trace(a=A2, iss_a=777)
    fr_connection(one, 0.0)
    fr_connection(two, 0.05)
    report = analyze_file(write(tmp_path, one, two))
    flows = data_flows(report)
    assert [f["sender"] for f in flows] == ["10.0.1.1:40000", "10.0.1.1:40001"]
    for f in flows:
        assert f["profiles"]["rfc5681"]["classes"]["fast_retransmit"] == 1
        assert f["need"]["needed"] == 1 and f["oos_segments"] == 1


def test_a_reused_four_tuple_is_a_new_connection(tmp_path):
    first, again = Trace(), Trace(iss_a=123456)
    end = fr_connection(first, 0.0)
    fr_connection(again, end + 1.0)
    report = analyze_file(write(tmp_path, first, again))
    flows = data_flows(report)
    assert [f["connection"] for f in flows] == [1, 2]
    # each: eight segments, one resend, the FIN
    assert all(f["retransmissions"] == 1 and f["data_segments"] == 10 for f in flows)
    assert report["stragglers"] == 0


def test_header_only_capture_gives_the_same_analysis(tmp_path):
    tr = Trace()
    fr_connection(tr, 0.0)
    full = analyze_file(write(tmp_path, tr))
    cut = analyze_file(write(tmp_path, tr, snaplen=80))     # 80 bytes: headers and options
    assert cut["malformed_frames"] == 0
    assert data_flows(cut)[0]["data_bytes"] == data_flows(full)[0]["data_bytes"] == 8000
    assert data_flows(cut)[0]["profiles"] == data_flows(full)[0]["profiles"]


def test_a_snap_length_that_cuts_the_tcp_header_makes_malformed_frames(tmp_path):
    tr = Trace()
    fr_connection(tr, 0.0)
    report = analyze_file(write(tmp_path, tr, snaplen=40))
    assert report["tcp_frames"] == 0 and report["malformed_frames"] == len(tr.frames)
    assert "truncated TCP header" in report["malformed_examples"][0]


def test_an_unanswered_syn_reports_its_timer(tmp_path):
    """RFC 6298 (5.5): the SYN's timer doubles, 1 s then 2 s (the RFC profile); the 2004
    stacks start at 3 s ([TCPDEBUG] Table 1.1)."""
    tr = Trace()
    for t in (0.0, 1.0, 3.0):
        tr.syn(t)
    report = analyze_file(tr.write(tmp_path / "s.pcap"), AnalyzerConfig())
    [flow] = report["flows"]
    assert flow["syn_retransmissions"] == 2 and flow["data_segments"] == 0
    assert flow["verdict"]["profiles"] == ["rfc5681", "rdtcp"]
    assert flow["profiles"]["solaris"]["syn_retransmissions_unexplained"] == 2


def test_a_stray_syn_or_an_out_of_window_rst_does_not_end_a_connection(tmp_path):
    """RFC 5961 §3-4: a receiver does not let a RST outside the window or a SYN in the
    middle of a connection end it; neither does the analyzer (a corrupted frame would
    otherwise split a connection in two)."""
    from netbase.segment import RST, SYN
    tr = Trace()
    end = fr_connection(tr, 0.0)
    a, b = tr.a, tr.b
    tr._put(0.35, Segment(a[1], b[1], 999999, 0, SYN, 65535), a, b)          # stray SYN
    tr._put(0.36, Segment(b[1], a[1], tr.iss_b + 1 + (1 << 24), 0, RST, 0), b, a)
    report = analyze_file(write(tmp_path, tr))
    [flow] = report["flows"]
    assert report["ignored_syn_rst"] == 2 and report["stragglers"] == 0
    assert flow["retransmissions"] == 1 and flow["data_bytes"] == 8000
    assert abs(flow["last_time"] - (end - 0.001)) < 1e-6       # to B's FIN, which ACKs A's

    ended = Trace()
    ended.handshake()
    ended.burst(0.2, 0, 4)
    ended._put(0.25, Segment(b[1], a[1], ended.iss_b + 1, 0, RST, 0), b, a)
    ended.data(0.3, 4)                     # after the reset: a straggler
    report = analyze_file(write(tmp_path, ended))
    assert report["stragglers"] == 1 and report["flows"][0]["data_bytes"] == 4000
