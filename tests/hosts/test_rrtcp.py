"""RR-TCP ([RRTCP]): rrtcp-fa (DSACK-FA, §4.2) and rrtcp (DSACK-TA, §4.3).

Through TestNetwork and the public engine API: the reordering length of Figure 2, ACKs newly
covering several segments give no sample, the 80 s history, the percentile rule, the undo of a
false fast retransmit (and of a false timeout) and the raised dupthresh that then waits the same
displacement out, a real loss still repaired by fast retransmit, and the FA ratio's adaptation.
The cost functions and the limited-transmit idle period are checked on their own, the latter
through the policy's hooks with a stand-in for the engine's public state (as
test_dsack_episodes.py does), because an idle period is a matter of timing TestNetwork's
position-based holds cannot produce.
"""

from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import hosts.tcp.variants.rrtcp as rr
from hosts.tcp import TcpConfig, TcpConnection
from hosts.tcp.variants import get_variant
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes((i * 7 + i // 256) % 256 for i in range(200_000))
N_SEGMENTS = len(DATA) // MSS
VARIANTS = ["rrtcp-fa", "rrtcp"]


def config(variant, **kw):
    return TcpConfig(variant=variant, mss=MSS, initial_window_segments=10, **kw)


def run(variant, setup=lambda net: None, data=DATA, **kw):
    net = TestNetwork(config(variant), data, **kw)
    setup(net)
    net.run(until=3000.0)
    assert net.delivered == data, "the receiver must deliver the exact byte stream"
    assert net.a.state in ("TIME-WAIT", "CLOSED") and net.b.state == "CLOSED"
    return net


def fast_retransmits(net):
    return [(f["dupacks"], f["dupthresh"]) for _, _, f in net.events_named("fast-retransmit")]


def two_reorderings(net):
    # segment 30, then segment 80, each arrives after the 4 segments sent after it
    net.hold(30, positions=4)
    net.hold(80, positions=4)


# ------------------------------------------------------------------ §4.1.1 the sampler
@pytest.mark.parametrize("variant", VARIANTS)
def test_in_order_transfer_measures_no_reordering(variant):
    net = run(variant)
    assert len(net.a.policy.histogram) == 0 and net.a.dupthresh == 3
    assert net.events_named("fast-retransmit") == []


@pytest.mark.parametrize("variant", VARIANTS)
def test_figure_2_packet_arriving_after_four_later_ones_has_length_four(variant):
    # the first displacement by 4 draws a (false) fast retransmit at dupthresh 3: its sample is
    # the -MEAN pair's; the second, waited out, is measured directly as in Figure 2:
    # SACKs for 81..84, then the cumulative ACK for 84 fills hole 80: r = 84 - 80 = 4
    net = run(variant, two_reorderings)
    first, second = net.a.policy.histogram.lengths()
    assert first >= 4 and second == 4


@pytest.mark.parametrize("variant", VARIANTS)
def test_retransmitted_segment_is_sampled_by_the_mean_of_its_two_acks(variant):
    # segment 30: its first ACK (the original, 4 places late) and its DSACK (the retransmission,
    # sent after the new segments of that instant) give r1 = 4 and r2 = m - 30 at the DSACK
    net = run(variant, lambda n: n.hold(30, positions=4))
    (length,) = net.a.policy.histogram.lengths()
    (rtx,) = net.retransmissions()
    before_rtx = [s for s in net.sent if s.number < rtx.number]
    r2 = max(s.number for s in before_rtx) - 30          # highest segment ahead of it at B
    assert length == -(-(4 + r2) // 2)


def _pair(variant):
    """Two engines, handshake done, driven by hand through the public API."""
    cfg = config(variant)
    a = TcpConnection(cfg, local_port=40000, remote_port=80, iss=1000)
    b = TcpConnection(cfg, local_port=80, remote_port=40000, iss=5000)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.01)
    for seg in a.on_segment(synack, now=0.02):
        b.on_segment(seg, now=0.03)
    return a, b


@pytest.mark.parametrize("lose_ack", [False, True])
def test_an_ack_newly_covering_two_segments_gives_no_sample(lose_ack):
    # segments 1..4 arrive as 2, 4, 1, 3 (two dupacks: no fast retransmit)
    a, b = _pair("rrtcp-fa")
    a.send(DATA[:4 * MSS])
    segs = a.poll(now=0.03)
    assert len(segs) == 4
    acks = {n: b.on_segment(segs[n - 1], now=0.04) for n in (2, 4, 1, 3)}
    for n in (2, 4, 1, 3):
        if lose_ack and n == 1:
            continue            # the ACK for 3 then newly covers 1 and 3: n = 2
        for ack in acks[n]:
            a.on_segment(ack, now=0.05)
    assert b.receive() == DATA[:4 * MSS]
    # with every ACK: segment 1 after 2..4 (r = 4 - 1), segment 3 after 4 (r = 4 - 3)
    assert a.policy.histogram.lengths() == ([] if lose_ack else [3, 1])


# ------------------------------------------------------------------ §4.1.2 the histogram
def test_histogram_events_expire_after_80_seconds_and_at_most_1000_are_kept():
    h = rr.ReorderingHistogram()
    h.add(0.0, 5)
    h.add(10.0, 70)                 # capped at 63 (6 bits, §4.1.3)
    assert h.lengths() == [5, 63]
    assert not h.expire(80.0) and len(h) == 2
    assert h.expire(80.5) and h.lengths() == [63]
    h.expire(90.5)
    assert len(h) == 0 and sum(h.counts) == 0
    for i in range(1005):
        h.add(100.0 + i * 0.01, 1 + i % 7)
    assert len(h) == 1000 and sum(h.counts) == 1000
    assert h.lengths()[0] == 1 + 5 % 7                  # the 5 oldest were dropped
    with pytest.raises(ValueError, match="at least 1"):
        h.add(200.0, 0)


def _tail_lost(times):
    # hold segment 20 by 2 places (no fast retransmit: a sample of 2), then lose the last
    # segment ``times`` times: the RTOs back off 1, 2, 4, ... s of virtual time
    def setup(net):
        net.hold(20, positions=2)
        net.drop(*range(N_SEGMENTS, N_SEGMENTS + times))
    return setup


@pytest.mark.parametrize("variant", VARIANTS)
def test_histogram_survives_timeouts_but_not_80_seconds(variant):
    kept = run(variant, _tail_lost(4))          # RTOs for ~15 s: the sample stays
    assert kept.a.stats["timeouts"] == 4 and kept.a.policy.histogram.lengths() == [2]
    gone = run(variant, _tail_lost(7))          # ~123 s: expired at the next ACK
    assert gone.a.stats["timeouts"] == 7 and gone.now > 80
    assert len(gone.a.policy.histogram) == 0 and gone.a.dupthresh == 3


# ------------------------------------------------------------------ §4.2 the percentile rule
def test_dupthresh_is_the_fa_percentile_plus_one():
    h = rr.ReorderingHistogram()
    assert rr.dupthresh_for(h, 0.9) == 3                # nothing measured
    for i in range(9):
        h.add(i, 8)
    h.add(9, 20)
    assert rr.dupthresh_for(h, 0.9) == 9                # 90 % of events <= 8 (§4.2's example)
    assert rr.dupthresh_for(h, 0.91) == 21
    assert rr.dupthresh_for(h, 0.0) == 3                # clamped to [3, 64]
    h.add(10, 63)
    assert rr.dupthresh_for(h, 1.0) == 64


# ------------------------------------------------------------------ DSACK-R + FA end to end
@pytest.mark.parametrize("variant", VARIANTS)
def test_false_fast_retransmit_undone_and_the_same_displacement_then_waited_out(variant):
    net = run(variant, two_reorderings)
    assert fast_retransmits(net) == [(3, 3)]            # only the first displacement
    assert net.a.stats["dsack_undos"] == 1 and net.a.stats["spurious_retransmits"] == 1
    assert net.a.dupthresh >= 5
    plain = run("dsack", two_reorderings)               # BL-R: dupthresh stays 3
    assert fast_retransmits(plain) == [(3, 3), (3, 3)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_real_loss_is_fast_retransmitted_at_the_raised_threshold(variant):
    net = run(variant, lambda n: (two_reorderings(n), n.drop(150)))
    frs = fast_retransmits(net)
    assert len(frs) == 2 and frs[1][1] >= 5 and frs[1][0] == frs[1][1]
    assert net.a.stats["timeouts"] == 0
    dropped = net.sent[149]
    assert [s.seq for s in net.retransmissions()][-1] == dropped.seq
    assert net.a.stats["dsack_undos"] == 1              # the loss's episode is not undone


@pytest.mark.parametrize("variant", VARIANTS)
def test_losses_spread_over_a_window_are_all_repaired_by_the_recovery(variant):
    # the raised dupthresh decides when to enter fast retransmit; inside the recovery holes are
    # marked lost at 3 SACKed segments above them (RFC 6675 IsLost, as the SACK baseline), so
    # losses every 4th segment do not wait for the timer
    net = run(variant, lambda n: (two_reorderings(n), n.drop(*range(150, 200, 4))))
    assert net.a.policy.target >= 5 and len(fast_retransmits(net)) == 2
    assert net.a.stats["timeouts"] == 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_false_timeout_restores_the_pre_timeout_window(variant):
    # the last segment arrives only after its retransmission: a false timeout (§4.3.1)
    net = run(variant, lambda n: n.hold(N_SEGMENTS, positions=1))
    (timeout,) = net.events_named("timeout")
    (undo,) = net.events_named("undo")
    assert undo[0] > timeout[0]
    assert undo[2]["cwnd"] > MSS and undo[2]["ssthresh"] > timeout[2]["ssthresh"]
    plain = run("dsack", lambda n: n.hold(N_SEGMENTS, positions=1))
    assert plain.events_named("undo") == []


def test_false_timeout_found_during_go_back_n_stops_it():
    # the DSACKs for every retransmission of the timeout arrive while its recovery still runs:
    # the Eifel-style response ends the go-back-N (no more needless retransmissions)
    calls = []
    conn = _stand_in(
        cwnd=40 * MSS, ssthresh=30 * MSS,
        undo_reduction=lambda **kw: calls.append(("undo", kw)),
        resume_after_spurious_timeout=lambda **kw: calls.append(("resume", kw)))
    policy = rr.RrTcpFa(config("rrtcp-fa"))
    policy.on_timeout(conn, now=conn.now)
    conn.in_loss, conn.cwnd = True, MSS
    policy.on_retransmit(conn, 1, 1 + MSS, 0.0, now=conn.now)
    response = policy.on_dsack(conn, 1, 1 + MSS, True, now=conn.now)
    conn.resume_after_spurious_timeout(cwnd=response.cwnd, ssthresh=response.ssthresh)
    assert calls == [("resume", {"cwnd": 40 * MSS, "ssthresh": 30 * MSS})]


# ------------------------------------------------------------------ TA: the FA ratio
def test_a_false_fast_retransmit_raises_the_fa_ratio_in_rrtcp_only():
    ta = run("rrtcp", lambda n: n.hold(30, positions=4))
    fa = run("rrtcp-fa", lambda n: n.hold(30, positions=4))
    assert ta.a.policy.fa_ratio == pytest.approx(0.91) and fa.a.policy.fa_ratio == 0.9


def test_a_timeout_lowers_the_fa_ratio_in_rrtcp_only_once_per_episode():
    # the last segment is lost: no dupacks, the RTO. A 0.5 s RTT keeps C_TO / C_FFR small
    # enough (T/R = 2) that one timeout does not take the FA ratio straight to 0
    fa = run("rrtcp-fa", lambda n: n.drop(N_SEGMENTS), delay=0.25)
    assert fa.a.stats["timeouts"] == 1 and fa.a.policy.fa_ratio == 0.9
    once = run("rrtcp", lambda n: n.drop(N_SEGMENTS), delay=0.25)
    assert once.a.stats["timeouts"] == 1 and 0 < once.a.policy.fa_ratio < 0.9
    # the retransmission lost too: a second, backed-off expiry of the same episode
    twice = run("rrtcp", lambda n: n.drop(N_SEGMENTS, N_SEGMENTS + 1), delay=0.25)
    assert twice.a.stats["timeouts"] == 2
    assert twice.a.policy.fa_ratio == once.a.policy.fa_ratio


def test_cost_functions_match_the_paper():
    # §4.3.1: W(T/R + log2 W - k - 2) + 1; the paper's P = 50 ms: W = 50, R = 0.1, T = 1, k = 1
    assert rr.timeout_cost(50, 1.0, 0.1) == pytest.approx(50 * (10 + 5.643856 - 3) + 1)
    assert rr.timeout_cost(2, 1.0, 2.0) == 0.0          # never negative
    # §4.3.2: D = R costs W/2; k = D/R interpolated between floor and ceiling; k <= W/2
    assert rr.false_fast_retransmit_cost(50, 0.1, 0.1) == 25
    assert rr.false_fast_retransmit_cost(50, 0.25, 0.1) == pytest.approx(49 + 0.5 * (72 - 49))
    assert rr.false_fast_retransmit_cost(50, 0.01, 0.1) == 25          # D/R below 1: as 1
    assert rr.false_fast_retransmit_cost(10, 100.0, 0.1) == 5 * 6 / 2   # k capped at W/2 = 5
    # §4.3.3: I/R * W - d
    assert rr.limited_transmit_cost(0.5, 0.1, 20, 2) == pytest.approx(98)


def test_fa_ratio_stays_within_0_and_1():
    a = rr.FaRatioAdapter(ratio=0.995)
    a.on_false_fast_retransmit()
    assert a.ratio == 1.0
    a.on_timeout(1000.0, 1.0)
    assert a.ratio == 0.0
    a.on_limited_transmit_idle(5.0, 10.0)               # below C_FFR: no change
    assert a.ratio == 0.0


# ------------------------------------------------------------------ §4.3.3 limited transmit idle
def _stand_in(**kw):
    """The part of TcpConnection's public state the RR-TCP hooks read."""
    state = dict(now=0.0, snd_una=1, snd_max=1 + 20 * MSS, snd_wnd=20 * MSS, unsent=50 * MSS,
                 mss=MSS, cwnd=40 * MSS, ssthresh=1 << 30, dupthresh=3, dupacks=0,
                 in_recovery=False, in_loss=False, rtt=SimpleNamespace(srtt=0.1, rto=1.0))
    highest = kw.pop("highest", 1)
    state.update(kw)
    return SimpleNamespace(highest_sacked=lambda: highest, **state)


def _idle_period(variant, idle, timeout=False):
    """Limited transmit runs out at the first dupack (the peer's window of 20 segments is
    full), one more dupack comes (d = 1), and ``idle`` s later an ACK advances the window."""
    policy = get_variant(variant)(config(variant))
    conn = _stand_in()
    policy.on_ack(conn, None, 1, now=conn.now)          # W sampled: 20 packets
    for n in (1, 2):
        conn.now, conn.dupacks = 1.0 + n / 100, n
        policy.on_dupack(conn, None, n, now=conn.now)
        policy.on_ack(conn, None, 1, now=conn.now)
    if timeout:
        policy.on_timeout(conn, now=conn.now)
    conn.now, conn.dupacks, conn.snd_una = 1.01 + idle, 0, 1 + MSS
    policy.on_new_ack(conn, now=conn.now)
    policy.on_ack(conn, None, 1, now=conn.now)
    return policy


def test_limited_transmit_idle_period_lowers_the_fa_ratio_by_its_cost():
    # I = 0.5 s, R = 0.1 s, W = 20, d = 1: C_LT = 99 > C_FFR = W/2 = 10: FA -= 9.9 S
    assert _idle_period("rrtcp", 0.5).fa_ratio == pytest.approx(0.9 - 0.099)
    # a short one costs less than a false fast retransmit: no change
    assert _idle_period("rrtcp", 0.05).fa_ratio == 0.9
    assert _idle_period("rrtcp-fa", 0.5).fa_ratio == 0.9


def test_idle_period_with_a_timeout_in_it_is_not_counted():
    policy = _idle_period("rrtcp", 0.5, timeout=True)
    # the timeout's own decrease only: C_TO / C_FFR * S with W = 20, T = 1, R = 0.1
    c_to = rr.timeout_cost(20, 1.0, 0.1)
    assert policy.fa_ratio == pytest.approx(max(0.0, 0.9 - c_to / 10 * 0.01))


# ------------------------------------------------------------------ property
rules = st.lists(st.tuples(st.sampled_from(["drop", "hold"]), st.integers(1, 50),
                           st.integers(1, 12)), max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), rules=rules, sack=st.booleans(),
       delayed_ack=st.booleans())
def test_random_drops_and_holds_always_deliver_the_exact_stream(variant, rules, sack, delayed_ack):
    data = DATA[:40_000]
    net = TestNetwork(config(variant, sack=sack, delayed_ack=delayed_ack), data)
    for kind, n, k in rules:
        if kind == "drop":
            net.drop(n)
        else:
            net.hold(n, positions=k)
    net.run(until=3000.0)
    assert net.delivered == data
    assert net.a.state in ("TIME-WAIT", "CLOSED") and net.b.state == "CLOSED"
