"""The RTT series, losses and timer waits the analyzer extracts from a trace ([TCPDEBUG] §5.3.1,
ch. 4), through the public API (analyze_file's on_series) on hand-built traces."""

import pytest

from analyzer import AnalyzerConfig, analyze_file
from analyzer.series import MIN_WAIT
from tracekit import GAP, MSS, RTT, SER, Trace

ANSWER = RTT + 0.001


def series_of(tr: Trace, tmp_path, **config):
    got = []
    analyze_file(tr.write(tmp_path / "t.pcap"), AnalyzerConfig(**config), on_series=got.append)
    [s] = [s for s in got if s.sender.startswith("10.0.1.1")]
    return s


def resend_after_three_dupacks(tr: Trace) -> float:
    """Segments 0..7 at 0.2 s; segment 1 lost, resent after three duplicate ACKs (SACKs of 2,
    3, 4). Returns the time of the resend."""
    tr.handshake()
    times = tr.burst(0.2, 0, 8)
    base = times[0] + RTT
    tr.ack(base, 1)
    for k in range(1, 4):
        tr.ack(base + k * GAP, 1, sack=[(2, 2 + k)])
    resend = base + 3 * GAP + SER
    tr.data(resend, 1)
    return resend


def fast_retransmit(tr: Trace) -> float:
    """resend_after_three_dupacks, everything acknowledged then. Returns the time of the
    resend."""
    resend = resend_after_three_dupacks(tr)
    tr.ack(resend + ANSWER, 8)
    return resend


def test_samples_losses_and_waits_of_a_fast_retransmit(tmp_path):
    tr = Trace()
    resend = fast_retransmit(tr)
    s = series_of(tr, tmp_path)
    assert s.profile == "rfc5681" and s.mss == MSS and s.data_segments == 9
    # one sample per advancing ACK whose segments were all sent once and never SACKed:
    # segment 0's ACK; the final ACK was made by the resend filling the hole, so none there
    [sample] = s.per_ack()
    assert sample.sent == pytest.approx(0.2) and sample.rtt == pytest.approx(RTT)
    assert sample.flight == 1               # segment 0 was alone in flight when sent
    # the per-flight timer also timed segment 0
    assert s.per_flight() == [sample]
    [loss] = s.losses
    assert loss.sent == pytest.approx(0.2 + SER) and loss.detected == pytest.approx(resend)
    assert not loss.by_timer and loss.cls == "fast_retransmit" and loss.flight == 2
    # the timer's run from segment 0's ACK to the final ACK, with the three duplicate ACKs
    [wait] = [w for w in s.waits if w.dupacks]
    assert wait.start == pytest.approx(0.2 + RTT) and wait.end == pytest.approx(resend + ANSWER)
    assert len(wait.dupacks) == 3 and wait.retx == pytest.approx(resend)
    assert (wait.need, wait.cls, wait.flight, wait.recovering) == ("needed", "fast_retransmit",
                                                                    7, False)


def test_a_resent_segment_gives_no_sample_and_short_quiet_waits_are_not_kept(tmp_path):
    tr = Trace()
    tr.handshake()
    t = 0.2
    rtts = [0.15, 0.05] * 3
    for i, rtt in enumerate(rtts):          # one segment a round trip
        tr.data(t, i)
        tr.ack(t + rtt, i + 1)
        t += rtt + 0.01
    s = series_of(tr, tmp_path)
    assert [x.flight for x in s.per_ack()] == [1] * 6
    assert [round(x.rtt, 6) for x in s.per_ack()] == rtts
    # the timer ran one RTT each time: kept when at least MIN_WAIT (no retransmission, no
    # duplicate ACK: what else could a setting change?)
    assert len(s.waits) == 3 and all(w.end - w.start >= MIN_WAIT for w in s.waits)
    assert all(w.retx is None and w.need is None for w in s.waits)


def timeouts_trace() -> Trace:
    """Twenty segments acknowledged one by one at 100 ms, then segment 20 lost and resent by
    the timer 1 s later (RFC 6298's minimum), three more acknowledged, then segment 24 whose
    ACK is held back 1.05 s: the timer resends it after 1 s, and the original's ACK arrives
    50 ms after the resend, sooner than any RTT: a spurious timeout."""
    tr = Trace()
    tr.handshake()
    t = 0.2
    for i in range(20):
        tr.data(t, i)
        tr.ack(t + RTT, i + 1)
        t += RTT + 0.01
    tr.data(t, 20)                          # lost
    resend = t + 1.0
    tr.data(resend, 20)
    tr.ack(resend + ANSWER, 21)
    t = resend + ANSWER + 0.01
    for i in range(21, 24):                 # fresh samples: the timer's backoff ends
        tr.data(t, i)
        tr.ack(t + RTT, i + 1)
        t += RTT + 0.01
    tr.data(t, 24)
    tr.data(t + 1.0, 24)                    # the timer's resend
    tr.ack(t + 1.05, 25)                    # the original's ACK, held back
    return tr


def test_the_waits_of_a_needed_and_a_spurious_timeout(tmp_path):
    s = series_of(timeouts_trace(), tmp_path)
    retx = [w for w in s.waits if w.retx is not None]
    assert [(w.need, w.cls) for w in retx] == [("needed", "rto"), ("unneeded", "rto")]
    needed, spurious = retx
    assert needed.retx - needed.start == pytest.approx(1.0, abs=0.01) and not needed.dupacks
    assert spurious.covered - spurious.start == pytest.approx(1.05, abs=0.01)
    [loss] = s.losses
    assert loss.by_timer and loss.detected - loss.sent == pytest.approx(1.0, abs=0.01)


def recovery_timeout_trace() -> Trace:
    """Segments 0..7 at 0.2 s; segments 1 and 5 lost. Segment 1 resent after three duplicate
    ACKs; its ACK is partial (to 5) and segment 5 waits for the timer (1 s, no SACK to resend
    it sooner): a timeout inside the fast recovery. That resend's ACK is partial again (to 6,
    also lost) and segment 6 waits the doubled timer, 2 s."""
    tr = Trace()
    resend = resend_after_three_dupacks(tr)
    tr.ack(resend + ANSWER, 5)              # partial: segment 5 was lost too
    timeout = resend + ANSWER + 1.0
    tr.data(timeout, 5)
    tr.ack(timeout + ANSWER, 6)             # partial again
    backed_off = timeout + ANSWER + 2.0
    tr.data(backed_off, 6)
    tr.ack(backed_off + ANSWER, 8)
    return tr


def test_a_timeout_in_a_fast_recovery_runs_the_estimators_timer_and_backs_off_the_next(
        tmp_path):
    """The wait that began at the partial ACK runs the estimator's RTO (RFC 6298 (5.3)); only
    after that timeout is the timer backed off (RFC 6298 (5.5)) for the rest of the
    recovery."""
    s = series_of(recovery_timeout_trace(), tmp_path)
    retx = [w for w in s.waits if w.retx is not None]
    assert [(w.cls, w.recovering, w.backed_off) for w in retx] == [
        ("fast_retransmit", False, False), ("rto", True, False), ("implicit", True, True)]
    assert retx[1].retx - retx[1].start == pytest.approx(1.0, abs=0.01)
