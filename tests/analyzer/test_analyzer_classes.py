"""The analyzer's classes, needs and profile verdicts on hand-built traces (one per case).

Each trace is written with netbase.wire and netbase.pcap (tracekit.py) and read back through the
public API, analyzer.analyze_file; segment numbers stand for sequence ranges.
"""

import pytest

from analyzer import AnalyzerConfig, analyze_file
from tracekit import GAP, RTT, SER, Trace

ANSWER = RTT + 0.001        # a retransmission is answered a little later than the minimum RTT


def analyze(trace: Trace, tmp_path, **config) -> dict:
    report = analyze_file(trace.write(tmp_path / "t.pcap"), AnalyzerConfig(**config))
    flows = [f for f in report["flows"] if f["sender"].startswith("10.0.1.1")]
    assert len(flows) == 1
    return flows[0]


def classes(flow, profile="rfc5681") -> dict:
    return {c: n for c, n in flow["profiles"][profile]["classes"].items() if n}


def fast_retransmit_trace(*, dupacks=3, bits=(), rdtcp=False, sack=True):
    """Segments 0..7 leave at 0.2 s; segment 1 is lost; B sends a duplicate ACK for each
    later segment (SACKing it), the ``bits`` ones (1-based) with RD-TCP's reorder bit; A
    resends segment 1 one frame time after the ``dupacks``-th duplicate ACK; the resend is
    answered with a cumulative ACK for everything."""
    tr = Trace(rdtcp=rdtcp, sack=sack)
    tr.handshake()
    times = tr.burst(0.2, 0, 8, skip=())
    t_ack = times[0] + RTT
    tr.ack(t_ack, 1)
    retx_at = None
    for k in range(1, 7):                    # duplicate ACKs for segments 2..7
        t = t_ack + k * GAP
        tr.ack(t, 1, sack=[(2, 2 + k)] if sack else (), reorder=k in bits)
        if k == dupacks:
            retx_at = t + SER
            tr.data(retx_at, 1)
    tr.ack(retx_at + ANSWER, 8)
    return tr, retx_at


def test_fast_retransmit_after_three_duplicate_acks(tmp_path):
    tr, _ = fast_retransmit_trace(dupacks=3)
    flow = analyze(tr, tmp_path)
    assert flow["retransmissions"] == 1 and flow["oos_segments"] == 1
    for name in ("rfc5681", "linux24", "freebsd410", "solaris", "rdtcp"):
        assert classes(flow, name) == {"fast_retransmit": 1}, name
        assert flow["profiles"][name]["observed_dupthresh"] == {"3": 1}
    assert flow["need"] == {"needed": 1, "unneeded": 0, "unknown": 0}
    # Windows XP's dupthresh is 2: its fast retransmit would have left a dupack earlier
    assert not flow["profiles"]["winxp"]["explains"]
    assert "winxp" not in flow["verdict"]["profiles"]
    assert flow["verdict"]["kind"] == "consistent" and flow["verdict"]["reported"] == "rfc5681"


def test_two_duplicate_acks_identify_windows_xp(tmp_path):
    tr, _ = fast_retransmit_trace(dupacks=2)
    flow = analyze(tr, tmp_path)
    assert classes(flow, "winxp") == {"fast_retransmit": 1}
    assert classes(flow, "rfc5681") == {"unexplained": 1}
    assert list(flow["profiles"]["rfc5681"]["unexplained_reasons"]) == [
        "early fast retransmit: fewer duplicate ACKs than the profile's dupthresh"]
    assert flow["verdict"] == {**flow["verdict"], "kind": "unique", "profiles": ["winxp"]}


@pytest.mark.parametrize("bits,dupacks", [
    ((3, 4, 5, 6), 6),      # the third dupack carries the reorder bit: wait for 3+k = 6
    ((3,), 4),              # a later dupack without the bit: retransmit at once ([RDTCP] §3.1)
])
def test_rdtcp_waits_for_3_plus_k_duplicate_acks(tmp_path, bits, dupacks):
    tr, _ = fast_retransmit_trace(dupacks=dupacks, bits=bits, rdtcp=True)
    flow = analyze(tr, tmp_path)
    assert flow["rdtcp"] is True
    assert classes(flow, "rdtcp") == {"fast_retransmit": 1}
    assert flow["profiles"]["rdtcp"]["observed_dupthresh"] == {str(dupacks): 1}
    # a dupthresh-3 sender would not have waited: its fast retransmit is late
    assert classes(flow, "rfc5681") == {"unexplained": 1}
    assert list(flow["profiles"]["rfc5681"]["unexplained_reasons"]) == [
        "late fast retransmit: not sent when the profile's dupthresh was reached"]
    assert flow["verdict"]["kind"] == "unique" and flow["verdict"]["profiles"] == ["rdtcp"]


def test_rdtcp_k_is_a_parameter(tmp_path):
    tr, _ = fast_retransmit_trace(dupacks=6, bits=(3, 4, 5, 6), rdtcp=True)
    flow = analyze(tr, tmp_path, rdtcp_k=2)       # waits for 5 only: the 6th comes late
    assert classes(flow, "rdtcp") == {"unexplained": 1}


def test_rdtcp_timer_while_waiting_retransmits_and_enters_fast_recovery(tmp_path):
    """[RDTCP] §3.1: the timer runs out while the sender waits for 3+k: it retransmits and enters
    fast recovery, so the next hole is resent from the SACK scoreboard, not by go-back-N."""
    tr = Trace(rdtcp=True)
    tr.handshake()
    times = tr.burst(0.2, 0, 6)
    tr.ack(times[0] + RTT, 1)
    # segments 1 and 3 lost: dupacks for 2, 4 and 5, the third with the reorder bit
    for k, blocks in enumerate([[(2, 3)], [(4, 5), (2, 3)], [(4, 6), (2, 3)]], 1):
        tr.ack(times[0] + RTT + k * GAP, 1, sack=blocks, reorder=k == 3)
    # only 3 dupacks, the third with the bit: the sender waits for 6; its timer (1 s, RFC
    # 6298's minimum, from the last ACK that advanced) runs out first
    rto_at = times[0] + RTT + 1.0 + SER
    tr.data(rto_at, 1)
    tr.data(rto_at + SER, 3)
    tr.ack(rto_at + ANSWER, 3, sack=[(4, 6)])
    tr.ack(rto_at + SER + ANSWER, 6)
    flow = analyze(tr, tmp_path)
    rd = flow["profiles"]["rdtcp"]
    assert classes(flow, "rdtcp") == {"rto": 1, "sack": 1}
    assert rd["rto_entering_fast_recovery"] == 1 and rd["explains"]
    assert classes(flow, "rfc5681") == {"rto": 1, "implicit": 1}   # an RTO, then go-back-N
    assert not flow["profiles"]["rfc5681"]["explains"]     # it would not have waited past 3
    assert flow["need"]["needed"] == 2


def test_rto_with_rfc_minimum_and_the_profiles_it_rules_out(tmp_path):
    """The last segment is lost and nothing follows: the timer, 1 s after the last ACK that
    advanced (RFC 6298 (2.4), (5.3)), resends it. FreeBSD's 1.2 s minimum cannot explain
    it; the profiles with smaller minima can (the RTO is a lower bound, [TCPDEBUG] §3.1)."""
    tr = Trace()
    tr.handshake()
    times = tr.burst(0.2, 0, 3)
    tr.ack(times[0] + RTT, 1)
    tr.ack(times[1] + RTT, 2)
    retx = times[1] + RTT + 1.0 + SER
    tr.data(retx, 2)
    tr.ack(retx + ANSWER, 3)
    flow = analyze(tr, tmp_path)
    assert classes(flow) == {"rto": 1}
    assert flow["need"] == {"needed": 1, "unneeded": 0, "unknown": 0}
    assert classes(flow, "freebsd410") == {"unexplained": 1}
    for name in ("rfc5681", "linux24", "solaris", "winxp"):
        assert flow["profiles"][name]["explains"], name
    assert "freebsd410" not in flow["verdict"]["profiles"]


def test_rto_too_early_for_the_rfc_minimum_is_unexplained(tmp_path):
    tr = Trace()
    tr.handshake()
    times = tr.burst(0.2, 0, 3)
    tr.ack(times[1] + RTT, 2)
    retx = times[1] + RTT + 0.5           # half a second: Linux's timer, not RFC 6298's
    tr.data(retx, 2)
    tr.ack(retx + ANSWER, 3)
    flow = analyze(tr, tmp_path)
    assert classes(flow, "rfc5681") == {"unexplained": 1}
    assert classes(flow, "linux24") == {"rto": 1}
    assert flow["verdict"]["profiles"] == ["linux24", "winxp", "solaris"]


def test_sack_recovery_resends_the_second_hole(tmp_path):
    tr = Trace()
    tr.handshake()
    times = tr.burst(0.2, 0, 10)
    base = times[0] + RTT
    tr.ack(base, 1)
    # segments 1 and 4 lost: dupacks for 2, 3, 5 (the third: fast retransmit), 6, ...
    sack = {1: [(2, 3)], 2: [(2, 4)], 3: [(5, 6), (2, 4)], 4: [(5, 7), (2, 4)],
            5: [(5, 8), (2, 4)]}
    for k, blocks in sack.items():
        tr.ack(base + k * GAP, 1, sack=blocks)
        if k == 3:
            r1 = base + k * GAP + SER
            tr.data(r1, 1)
        if k == 4:
            r4 = base + k * GAP + SER
            tr.data(r4, 4)
    tr.ack(r1 + ANSWER, 4, sack=[(5, 8)])       # partial ACK: segment 4 still missing
    tr.ack(r4 + ANSWER, 10)
    flow = analyze(tr, tmp_path)
    assert classes(flow) == {"fast_retransmit": 1, "sack": 1}
    assert flow["need"] == {"needed": 2, "unneeded": 0, "unknown": 0}
    assert flow["profiles"]["rfc5681"]["need"]["sack"]["needed"] == 1


def partial_ack_trace(dupacks: int) -> Trace:
    """No SACK; segments 1 and 3 lost; A resends 1 after ``dupacks`` duplicate ACKs; the ACK
    answering it is partial (it points at 3), and A resends 3 at once."""
    tr = Trace(sack=False)
    tr.handshake()
    times = tr.burst(0.2, 0, 8)
    base = times[0] + RTT
    tr.ack(base, 1)
    for k in range(1, 6):               # dupacks for 2, 4, 5, 6, 7
        tr.ack(base + k * GAP, 1)
        if k == dupacks:
            r1 = base + k * GAP + SER
            tr.data(r1, 1)
    tr.ack(r1 + ANSWER, 3)
    r3 = r1 + ANSWER + SER
    tr.data(r3, 3)
    tr.ack(r3 + ANSWER, 8)
    return tr


def test_partial_ack_retransmission_without_sack(tmp_path):
    """NewReno (RFC 6582 §3.2 step 5): a partial ACK in fast recovery resends its hole."""
    flow = analyze(partial_ack_trace(3), tmp_path)
    assert flow["sack"] is False
    assert classes(flow) == {"fast_retransmit": 1, "partial_ack": 1}
    assert flow["need"]["needed"] == 2


def test_windows_xp_does_not_answer_partial_acks(tmp_path):
    """[TCPDEBUG] §3.1: Windows XP recovers the rest of the window by its timer, not on a partial
    ACK; its dupthresh-2 fast retransmit fits the trace, the partial-ACK resend does not."""
    flow = analyze(partial_ack_trace(2), tmp_path)
    xp = flow["profiles"]["winxp"]
    assert xp["classes"]["fast_retransmit"] == 1 and xp["classes"]["unexplained"] == 1
    assert list(xp["unexplained_reasons"]) == [
        "partial-ACK retransmission from a profile that waits for the timer instead"]


def test_implicit_go_back_n_after_an_rto_needed_and_unneeded(tmp_path):
    """[TCPDEBUG] Fig 3.1: after a timeout the sender resends segments 2 and 3 go-back-N; 2 was
    lost, 3 had arrived. The ACK for 2 covers 3 sooner after 3's resend than any RTT: that
    resend was unneeded (and the receiver answers it with a duplicate ACK)."""
    tr = Trace(sack=False)
    tr.handshake()
    times = tr.burst(0.2, 0, 4)             # 1 and 2 lost, 3 arrives: one dupack only
    tr.ack(times[0] + RTT, 1)
    tr.ack(times[3] + RTT, 1)
    rto = times[0] + RTT + 1.0 + SER
    tr.data(rto, 1)
    ack1 = rto + ANSWER
    tr.ack(ack1, 2)                         # 1 filled the hole; 2 still missing
    r2, r3 = ack1 + SER, ack1 + 2 * SER     # go-back-N, cwnd 2
    tr.data(r2, 2)
    tr.data(r3, 3)
    tr.ack(r2 + ANSWER, 4)
    tr.ack(r3 + ANSWER, 4)                  # the duplicate answering the resent 3
    flow = analyze(tr, tmp_path)
    assert classes(flow) == {"rto": 1, "implicit": 2}
    need = flow["profiles"]["rfc5681"]["need"]
    assert need["rto"] == {"needed": 1, "unneeded": 0, "unknown": 0}
    assert need["implicit"] == {"needed": 1, "unneeded": 1, "unknown": 0}
    assert flow["unneeded_by"] == {"ack-too-soon": 1}


def test_spurious_retransmission_shown_by_a_dsack(tmp_path):
    """Segment 1 is only delayed: three dupacks make A resend it, the original arrives, the
    cumulative ACK jumps, and the resend draws a DSACK (RFC 2883): unneeded."""
    tr, r1 = fast_retransmit_trace(dupacks=3)
    tr.frames = [f for f in tr.frames if f[0] < r1 + 0.05]      # drop the final ACK
    tr.ack(r1 + 0.1005, 8)                  # the original arrived (late, but not too soon)
    tr.ack(r1 + ANSWER, 8, dsack=(1, 2))    # then the resend: a duplicate
    flow = analyze(tr, tmp_path)
    assert classes(flow) == {"fast_retransmit": 1}
    assert flow["need"] == {"needed": 0, "unneeded": 1, "unknown": 0}
    assert flow["unneeded_by"] == {"dsack": 1}
    assert flow["dsacks"] == {"for_retransmitted_data": 1, "for_data_sent_once": 0}


def test_an_ack_too_soon_after_the_resend_means_the_original_arrived(tmp_path):
    tr, r1 = fast_retransmit_trace(dupacks=3)
    tr.frames = [f for f in tr.frames if f[0] < r1 + 0.05]
    tr.ack(r1 + 0.03, 8)                    # 30 ms after the resend: it answers the original
    flow = analyze(tr, tmp_path)
    assert flow["need"] == {"needed": 0, "unneeded": 1, "unknown": 0}
    assert flow["unneeded_by"] == {"ack-too-soon": 1}


def test_a_resend_never_acknowledged_has_unknown_need(tmp_path):
    tr, r1 = fast_retransmit_trace(dupacks=3)
    tr.frames = [f for f in tr.frames if f[0] < r1 + 0.05]
    flow = analyze(tr, tmp_path)
    assert flow["need"] == {"needed": 0, "unneeded": 0, "unknown": 1}


def reordered_at_r1(*, lost_before=False):
    """The path vantage (R1's egress): segments 0..5 pass in the order 0, 2, 3, 1, 4, 5
    (segment 1 displaced two places by a queue swap), or, with ``lost_before``, segment 1 is
    dropped before the vantage and resent after three dupacks."""
    tr = Trace()
    tr.handshake(rtt=RTT)
    t0 = 0.2
    order = [0, 2, 3, 4, 5, 6] if lost_before else [0, 2, 3, 1, 4, 5]
    for k, i in enumerate(order):
        tr.data(t0 + k * GAP, i)
    base = t0 + RTT
    tr.ack(base, 1)
    if lost_before:
        for k in range(1, 6):
            tr.ack(base + k * GAP, 1, sack=[(2, 2 + k)])
        r1 = base + 3 * GAP + 0.005          # the resend passes R1 later (A's link and queue)
        tr.data(r1, 1)
        tr.ack(r1 + ANSWER, 7)
    else:
        tr.ack(base + GAP, 1, sack=[(2, 3)])
        tr.ack(base + 2 * GAP, 1, sack=[(2, 4)])
        tr.ack(base + 3 * GAP, 4)
        tr.ack(base + 4 * GAP, 5)
        tr.ack(base + 5 * GAP, 6)
    return tr


def test_reordering_seen_at_a_path_vantage(tmp_path):
    flow = analyze(reordered_at_r1(), tmp_path, vantage="path")
    assert flow["network_reorder"] == 1 and flow["retransmissions"] == 0
    assert flow["verdict"]["kind"] == "no-evidence"


def test_a_segment_lost_before_the_path_vantage_is_a_retransmission(tmp_path):
    flow = analyze(reordered_at_r1(lost_before=True), tmp_path, vantage="path")
    assert flow["network_reorder"] == 0
    assert classes(flow) == {"fast_retransmit": 1}
    assert flow["need"]["needed"] == 1 and flow["holes_before_vantage"] == 1


def test_the_same_reordering_read_at_the_sender_is_no_retransmission_anyone_explains(tmp_path):
    # at the sender nothing can be reordered before the capture: the late segment 1 would be
    # a resend after no duplicate ACK at all, which no profile explains
    flow = analyze(reordered_at_r1(), tmp_path, vantage="sender")
    assert flow["network_reorder"] == 0 and classes(flow) == {"unexplained": 1}
    assert flow["verdict"]["kind"] == "none"


def test_network_duplicate_and_ip_id_reordering(tmp_path):
    """[TCPDEBUG] §3.1: a copy with the same IP-ID is a network duplicate; a segment with an IP-ID
    below one already seen from a sender that numbers its packets was reordered."""
    tr = Trace()
    tr.handshake()
    for k, (i, ip_id) in enumerate([(0, 10), (1, 11), (3, 13), (4, 14), (2, 12), (1, 11)]):
        tr.data(0.2 + k * GAP, i, ip_id=ip_id)
    tr.ack(0.2 + RTT, 5)
    flow = analyze(tr, tmp_path, vantage="path")
    assert flow["network_duplicate"] == 1 and flow["network_reorder"] == 1
    assert flow["retransmissions"] == 0


def test_syn_retransmission_tests_the_initial_rto(tmp_path):
    """RFC 6298 (2.1): 1 s; the 2004 stacks of [TCPDEBUG] Table 1.1 wait 3 s or more."""
    tr = Trace()
    tr.syn(0.0)
    start = tr.handshake(1.0)
    times = tr.burst(start + 0.001, 0, 2)
    tr.ack(times[1] + RTT, 2)
    flow = analyze(tr, tmp_path)
    assert flow["syn_retransmissions"] == 1
    assert flow["profiles"]["rfc5681"]["explains"]
    assert flow["profiles"]["linux24"]["syn_retransmissions_unexplained"] == 1
    assert flow["verdict"]["profiles"] == ["rfc5681", "rdtcp"]


def test_a_capture_that_starts_mid_connection(tmp_path):
    tr, _ = fast_retransmit_trace(dupacks=3)
    tr.frames = [f for f in tr.frames if f[0] > 0.15]       # no handshake
    flow = analyze(tr, tmp_path)
    assert flow["handshake_seen"] is False and flow["sack"] is None
    assert classes(flow) == {"fast_retransmit": 1}


def test_sequence_numbers_wrapping_past_2_to_the_32(tmp_path):
    wrapped = Trace(iss_a=(1 << 32) - 2500)     # segment 2 starts past 2^32
    wrapped.handshake()
    times = wrapped.burst(0.2, 0, 8)
    base = times[0] + RTT
    wrapped.ack(base, 1)
    for k in range(1, 4):
        wrapped.ack(base + k * GAP, 1, sack=[(2, 2 + k)])
    wrapped.data(base + 3 * GAP + SER, 1)
    wrapped.ack(base + 3 * GAP + SER + ANSWER, 8)
    flow = analyze(wrapped, tmp_path)
    assert classes(flow) == {"fast_retransmit": 1}
    assert flow["data_bytes"] == 8 * 1000 and flow["need"]["needed"] == 1


def test_profiles_that_explain_a_segment_differently_are_ambiguous(tmp_path):
    """[TCPDEBUG] §3.1.3: two machines explain everything but classify a segment apart. Away from
    the sender (where a profile is held only to 'at least D dupacks'), a resend after a
    partial ACK that comes a second later is NewReno's partial-ACK resend for rfc5681 and a
    timeout for winxp, whose timer is short and who ignores partial ACKs."""
    tr = Trace(sack=False)
    tr.handshake()
    times = tr.burst(0.2, 0, 8)
    base = times[0] + RTT
    tr.ack(base, 1)
    for k in range(1, 6):
        tr.ack(base + k * GAP, 1)
        if k == 3:
            r1 = base + k * GAP + SER
            tr.data(r1, 1)
    tr.ack(r1 + ANSWER, 3)
    r3 = r1 + ANSWER + 1.0
    tr.data(r3, 3)
    tr.ack(r3 + ANSWER, 8)
    flow = analyze(tr, tmp_path, vantage="path", profiles=("rfc5681", "winxp"))
    assert classes(flow, "rfc5681") == {"fast_retransmit": 1, "partial_ack": 1}
    assert classes(flow, "winxp") == {"fast_retransmit": 1, "rto": 1}
    assert flow["verdict"]["kind"] == "ambiguous"
    assert flow["verdict"]["differ"] == [["rfc5681", "winxp"]]
