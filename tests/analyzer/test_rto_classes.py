"""Lin and Kung's classes of retransmission timeouts ([NETRENO] §4.1, analyzer/rto_classes.py):
the rule, Fig. 1's shares, and the analyzer's verdict on three hand-built traces, one per class,
read back through analyzer.analyze_file (tracekit.py: segment numbers stand for ranges)."""

import pytest

from analyzer import AnalyzerConfig, analyze_file
from analyzer.rto_classes import (LOST_RETRANSMISSION, MULTIPLE_LOSS, NON_TRIGGER, class_counts,
                                  rto_class, window_shares)
from tracekit import GAP, MSS, RTT, SER, Trace

RTO = 1.05          # past the RFC profile's 1 s minimum


def test_the_rule():
    assert rto_class(recovering=False, resent_before=False) == NON_TRIGGER
    assert rto_class(recovering=True, resent_before=False) == MULTIPLE_LOSS
    assert rto_class(recovering=True, resent_before=True) == LOST_RETRANSMISSION
    assert rto_class(recovering=False, resent_before=True) == LOST_RETRANSMISSION


def test_fig1_shares_of_rtos_at_a_window_of_x_or_more():
    rtos = [(NON_TRIGGER, 2), (NON_TRIGGER, 3), (NON_TRIGGER, 12), (MULTIPLE_LOSS, 8),
            (LOST_RETRANSMISSION, 20)]
    shares = window_shares(rtos, [1, 3, 10, 21])
    assert shares["total"] == [1.0, 0.8, 0.4, 0.0]
    assert shares[NON_TRIGGER] == [0.6, 0.4, 0.2, 0.0]
    assert shares[MULTIPLE_LOSS] == [0.2, 0.2, 0.0, 0.0]
    assert shares[LOST_RETRANSMISSION] == [0.2, 0.2, 0.2, 0.0]
    assert class_counts(rtos) == {NON_TRIGGER: 3, MULTIPLE_LOSS: 1, LOST_RETRANSMISSION: 1}
    assert window_shares([], [1])["total"] == [0.0]


def analyze(trace: Trace, tmp_path) -> dict:
    report = analyze_file(trace.write(tmp_path / "t.pcap"), AnalyzerConfig())
    (flow,) = [f for f in report["flows"] if f["sender"].startswith("10.0.1.1")]
    return flow["profiles"]["rfc5681"]


def test_a_window_too_small_for_three_dupacks_is_a_non_trigger_rto(tmp_path):
    # three segments, the second lost: one duplicate ACK, then the timer ([NETRENO] Fig. 2's case)
    tr = Trace(sack=False)
    tr.handshake()
    times = tr.burst(0.2, 0, 3, skip=(1,))
    tr.ack(times[0] + RTT, 1)
    tr.ack(times[2] + RTT, 1)
    tr.data(times[0] + RTT + RTO, 1)
    tr.ack(times[0] + 2 * RTT + RTO, 3)
    p = analyze(tr, tmp_path)
    assert p["classes"]["rto"] == 1
    assert p["rto_causes"] == {NON_TRIGGER: 1, MULTIPLE_LOSS: 0, LOST_RETRANSMISSION: 0}
    assert p["rtos"] == [[NON_TRIGGER, 2 * MSS]]      # segments 1 and 2 outstanding


def test_a_second_hole_the_recovery_did_not_repair_is_a_multiple_loss_rto(tmp_path):
    # ten segments, 1 and 5 lost; fast retransmit of 1; its ACK is partial (5 missing) and the
    # sender (Reno) does not resend 5 on it: the timer does, in the same loss period
    tr = Trace(sack=False)
    tr.handshake()
    times = tr.burst(0.2, 0, 10, skip=(1, 5))
    t = times[0] + RTT
    tr.ack(t, 1)
    for k in range(1, 8):                           # segments 2-4 and 6-9: seven dupacks
        tr.ack(t + k * GAP, 1)
        if k == 3:
            tr.data(t + k * GAP + SER, 1)
    partial = t + 3 * GAP + SER + RTT
    tr.ack(partial, 5)
    tr.data(partial + RTO, 5)
    tr.ack(partial + RTO + RTT, 10)
    p = analyze(tr, tmp_path)
    assert p["classes"]["fast_retransmit"] == 1 and p["classes"]["rto"] == 1
    assert p["rto_causes"][MULTIPLE_LOSS] == 1
    assert p["rtos"][0][1] == 5 * MSS                   # segments 5-9 outstanding


@pytest.mark.parametrize("sack", [True, False])
def test_a_fast_retransmission_lost_again_is_a_lost_retransmission_rto(tmp_path, sack):
    # [NETRENO] Fig. 3: the fast retransmission of segment 1 is lost; the timer sends it again
    tr = Trace(sack=sack)
    tr.handshake()
    times = tr.burst(0.2, 0, 8, skip=(1,))
    t = times[0] + RTT
    tr.ack(t, 1)
    for k in range(1, 7):
        tr.ack(t + k * GAP, 1, sack=[(2, 2 + k)] if sack else ())
        if k == 3:
            tr.data(t + k * GAP + SER, 1)           # lost after the capture point
    again = t + 3 * GAP + SER + RTO
    tr.data(again, 1)
    tr.ack(again + RTT, 8)
    p = analyze(tr, tmp_path)
    assert p["classes"]["fast_retransmit"] == 1 and p["classes"]["rto"] == 1
    assert p["rto_causes"] == {NON_TRIGGER: 0, MULTIPLE_LOSS: 0, LOST_RETRANSMISSION: 1}


def test_the_netbsd_profile_is_selectable_and_not_a_default():
    from analyzer.profiles import DEFAULT_PROFILES, PROFILES, get_profiles
    (p,) = get_profiles(("netbsd12",))
    assert (p.granularity, p.min_rto, p.per_flight_rtt, p.dupthresh) == (0.5, 1.0, True, 3)
    assert "netbsd12" in PROFILES and "netbsd12" not in DEFAULT_PROFILES
