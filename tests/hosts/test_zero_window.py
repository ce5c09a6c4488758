"""A receive window that shuts (RFC 9293 §3.8.6) through the public engine API, with explicit
times: the receiver's window update when its application reads, the sender's persist timer
and zero-window probes, the receiver's silly window syndrome avoidance, and data beyond the
window."""

from dataclasses import replace

import pytest

from hosts.tcp import TcpConfig, TcpConnection
from netbase.segment import Segment

MSS = 1000
BUFFER = 8 * MSS
CFG = TcpConfig(variant="sack", mss=MSS, rcv_buffer=BUFFER, window_scale=None,
                initial_window_segments=10)


def deliver(dst, segs, now):
    return [r for s in segs for r in dst.on_segment(s, now=now)]


def shut_window(cfg=CFG):
    """A writes 20 segments to B, whose application reads nothing: A sends the 8 that B's
    8,000-byte buffer holds at 1.0, B's ACKs reach A at 1.1 and the last offers a zero window.
    Returns both ends, B's last ACK and the time A got it."""
    a = TcpConnection(cfg, local_port=1, remote_port=2, iss=100)
    b = TcpConnection(cfg, local_port=2, remote_port=1, iss=2**32 - 3)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.05)
    assert deliver(b, a.on_segment(synack, now=0.1), 0.15) == []
    a.send(bytes(20 * MSS))
    segs = a.poll(now=1.0)
    assert len(segs) == 8
    acks = deliver(b, segs, 1.05)
    assert [s.window for s in acks] == [BUFFER - MSS * i for i in range(1, 9)]
    assert deliver(a, acks, 1.1) == []
    assert a.flight_size == 0 and a.unsent == 12 * MSS
    return a, b, acks[-1], 1.1


def test_a_shut_window_with_data_waiting_arms_the_persist_timer():
    # RFC 9293 §3.8.6.1: the first probe one RTO after the window shut (SHLD-29); RTO 1 s
    a, _, _, t = shut_window()
    assert a.next_timer() == pytest.approx(t + 1.0)


def test_a_probe_is_an_old_sequence_number_the_peer_answers_with_its_window():
    a, b, _, t = shut_window()
    (probe,) = a.on_timer(now=t + 1.0)
    assert probe.payload == b"" and probe.seq == (100 + a.snd_una - 1) % 2**32
    assert a.stats["window_probes"] == 1 and a.snd_max == a.snd_una    # nothing in flight
    (answer,) = b.on_segment(probe, now=t + 1.05)
    assert answer.window == 0 and answer.ack == (100 + a.snd_una) % 2**32
    assert a.on_segment(answer, now=t + 1.1) == []


def test_probes_back_off_exponentially_while_the_window_stays_shut():
    # SHLD-30: each interval twice the one before, and the connection stays open as long as
    # the peer answers (MUST-36), more probes than max_retries
    a, b, _, t = shut_window(replace(CFG, max_retries=3))
    times = []
    for _ in range(6):
        t = a.next_timer()
        times.append(t)
        (probe,) = a.on_timer(now=t)
        a.on_segment(b.on_segment(probe, now=t + 0.05)[0], now=t + 0.1)
    gaps = [round(y - x, 6) for x, y in zip(times, times[1:])]
    assert gaps == [2.0, 4.0, 8.0, 16.0, 32.0]
    assert a.state == "ESTABLISHED" and a.error is None


def test_the_probe_interval_stops_growing_at_the_maximum_rto():
    a, b, _, t = shut_window(replace(CFG, max_rto=5.0))
    times = []
    for _ in range(5):
        t = a.next_timer()
        times.append(t)
        (probe,) = a.on_timer(now=t)
        a.on_segment(b.on_segment(probe, now=t + 0.05)[0], now=t + 0.1)
    assert [round(y - x, 6) for x, y in zip(times, times[1:])] == [2.0, 4.0, 5.0, 5.0]


def test_unanswered_probes_abort_the_connection_after_max_retries():
    a, _, _, t = shut_window(replace(CFG, max_retries=3))
    for _ in range(3):
        assert len(a.on_timer(now=a.next_timer())) == 1     # the probes are lost
    assert a.on_timer(now=a.next_timer()) == []
    assert a.state == "CLOSED" and a.error == "timed out"


def test_reading_sends_a_window_update_at_once():
    # The application reads the full buffer: B owes A an ACK that opens the window (Linux's
    # tcp_cleanup_rbuf), due at once; A then sends the next 8 segments
    a, b, _, t = shut_window()
    assert b.next_timer() is None
    assert len(b.receive()) == BUFFER
    assert b.next_timer() == 1.05                       # B's last event: the read follows it
    (update,) = b.on_timer(now=1.06)
    assert update.window == BUFFER and update.payload == b""
    assert b.stats["window_updates"] == 1
    assert len(a.on_segment(update, now=1.11)) == 8
    assert a.next_timer() == pytest.approx(1.11 + 1.0)   # the RTO now, not the persist timer


def test_a_lost_window_update_is_recovered_by_the_next_probe():
    a, b, _, t = shut_window()
    b.receive()
    b.on_timer(now=b.next_timer())                      # the window update is lost
    (probe,) = a.on_timer(now=a.next_timer())
    (answer,) = b.on_segment(probe, now=t + 1.05)
    assert answer.window == BUFFER
    assert len(a.on_segment(answer, now=t + 1.1)) == 8


def test_the_window_opens_a_segment_at_a_time_not_in_slivers():
    # RFC 9293 §3.8.6.2.2 (MUST-39): the receiver keeps RCV.NXT + RCV.WND where it is until
    # it can move by min(buffer / 2, MSS). A writes 300 bytes at a time and B's application
    # reads each at once: the window shrinks by 300 a segment until 1,200 bytes are free
    # beyond the edge, then opens to the whole buffer again
    a = TcpConnection(CFG, local_port=1, remote_port=2, iss=100)
    b = TcpConnection(CFG, local_port=2, remote_port=1, iss=7)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.05)
    deliver(b, a.on_segment(synack, now=0.1), 0.15)
    windows = []
    for i in range(5):
        t = 1.0 + i
        a.send(bytes(300))
        (seg,) = a.poll(now=t)
        (ack,) = b.on_segment(seg, now=t + 0.05)
        assert len(b.receive()) == 300 and b.next_timer() is None     # no window update
        a.on_segment(ack, now=t + 0.1)
        windows.append(ack.window)
    assert windows == [7700, 7400, 7100, 6800, 7700]


def test_the_sender_fills_no_sliver_of_window_until_the_persist_timer_says_so():
    # RFC 9293 §3.8.6.2.1 (MUST-38): a segment goes when it is full, carries all the data
    # written, or fills half the largest window offered. B's 2,500-byte buffer takes two
    # segments and leaves a 500-byte sliver, which A does not fill while ACKs may still open
    # the window; with nothing in flight, the persist timer's expiry sends what fits (the
    # override of (4), as Linux's tcp_write_wakeup), and the RTO covers it from then on
    cfg = replace(CFG, rcv_buffer=2500)
    a = TcpConnection(cfg, local_port=1, remote_port=2, iss=100)
    b = TcpConnection(cfg, local_port=2, remote_port=1, iss=7)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.05)
    deliver(b, a.on_segment(synack, now=0.1), 0.15)
    a.send(bytes(5 * MSS))
    segs = a.poll(now=1.0)
    assert [len(s.payload) for s in segs] == [MSS, MSS]
    acks = deliver(b, segs, 1.05)
    assert acks[-1].window == 500
    assert deliver(a, acks, 1.1) == []
    assert a.next_timer() == pytest.approx(1.1 + 1.0)    # the persist timer, one RTO
    (seg,) = a.on_timer(now=2.1)
    assert len(seg.payload) == 500 and a.flight_size == 500
    assert a.stats["window_probes"] == 1
    (ack,) = b.on_segment(seg, now=2.15)
    assert ack.window == 0 and len(b.receive()) == 2500


def test_data_beyond_a_shut_window_is_dropped_and_acknowledged():
    # RFC 9293 §3.10.7.4: a segment with data is not acceptable in a zero window; its ACK
    # field still counts, its data is trimmed off and answered with an ACK of the window
    a, b, last_ack, t = shut_window()
    intruder = Segment(1, 2, last_ack.ack, last_ack.seq, window=BUFFER, payload=bytes(MSS))
    (answer,) = b.on_segment(intruder, now=1.2)
    assert answer.ack == last_ack.ack and answer.window == 0
    assert len(b.receive()) == BUFFER                   # the 8 segments, not the ninth


def test_a_transfer_to_an_application_that_reads_late_completes():
    # The case the persist timer and the window update exist for: a 64 KiB buffer without
    # window scaling, delayed ACKs, and an application that reads once a second. Each read
    # opens the shut window by an update; the path loses every tenth segment B sends, window
    # updates among them, which the probes make good. Both directions 20 ms, in order.
    cfg = TcpConfig(variant="sack", rcv_buffer=64 * 1024, window_scale=None, delayed_ack=True)
    a = TcpConnection(cfg, local_port=1, remote_port=2, iss=5)
    b = TcpConnection(cfg, local_port=2, remote_port=1, iss=9)
    b.listen()
    total = 400_000
    a.send(bytes(total))
    a.close()
    ends = {"a": a, "b": b}
    path = [(0.02, "b", s) for s in a.connect(now=0.0)]      # in order: (arrival, to, segment)
    got, sent_by_b, next_read, now = 0, 0, 1.0, 0.0
    while now < 120.0 and not (got == total and a.state == "FIN-WAIT-2"):
        due = [(t, name) for name, t in (("a", a.next_timer()), ("b", b.next_timer()))
               if t is not None] + [(next_read, "read")]
        t, who = min(due)
        if path and path[0][0] <= t:
            now, who, seg = path.pop(0)
            out = ends[who].on_segment(seg, now=now)
        elif who == "read":
            now, next_read = t, t + 1.0
            got += len(b.receive())
            continue
        else:
            now = t
            out = ends[who].on_timer(now=now)
        to = "a" if who == "b" else "b"
        for seg in out:
            if to == "a":
                sent_by_b += 1
                if sent_by_b % 10 == 0:
                    continue                                # lost
            path.append((now + 0.02, to, seg))
    assert got == total, (got, a.sender.snd_wnd, a.flight_size, a.unsent, a.next_timer())
    assert a.stats["window_probes"] > 0 and b.stats["window_updates"] > 0
