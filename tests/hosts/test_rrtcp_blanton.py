"""Blanton and Allman's DSACK schemes as [RRTCP] compares them (§3, §5.7): their undo (ssthresh set
back, cwnd slow-starting to it: BA02, not DSACK-R's immediate restore), BL-EWMA's dupthresh,
and BL-TIMEDEL/BL-TIMEINC's timer that delays fast retransmit, capped at SRTT/2, never reduced.

The timers are driven through the policy's hooks with a stand-in for the engine's read-only
view (``SenderView``), as test_dsack_episodes.py does, where what matters is when a duplicate ACK
arrives; the rest through TestNetwork."""

from types import SimpleNamespace

import pytest

from hosts.tcp import TcpConfig
from hosts.tcp.variants import get_variant
from hosts.tcp.variants.base import ENTER_RECOVERY, SetDupthresh, chain
from hosts.tcp.variants.blanton import EWMA_GAIN, TIMEINC_STEP
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes((i * 7 + i // 256) % 256 for i in range(200_000))
BL = ["dsack-inc", "dsack-avg", "dsack-ewma", "dsack-timedel", "dsack-timeinc"]


def config(variant, **kw):
    return TcpConfig(variant=variant, mss=MSS, initial_window_segments=10, **kw)


def run(variant, setup=lambda net: None):
    net = TestNetwork(config(variant), DATA)
    setup(net)
    net.run(until=3000.0)
    assert net.delivered == DATA
    return net


def view(**kw):
    state = dict(cwnd=40 * MSS, ssthresh=1 << 30, mss=MSS, snd_una=1, dupacks=0, dupthresh=3,
                 in_recovery=False, in_loss=False, rtt=SimpleNamespace(srtt=0.2, rto=1.0))
    state.update(kw)
    return SimpleNamespace(**state)


def apply(v, decisions):
    """What the engine does with the thresholds the hooks return (the rest is the tests')."""
    decisions = chain(decisions)
    for d in decisions if isinstance(decisions, tuple) else (decisions,):
        if isinstance(d, SetDupthresh):
            v.dupthresh = d.n


def _false_fast_retransmit(policy, v, *, start=1.0, dupacks=3, ack_at=None, dsack_at=1.4):
    """An episode: ``dupacks`` duplicate ACKs from ``start``, a fast retransmit, the first ACK
    for the segment at ``ack_at``, its DSACK at ``dsack_at``. Returns the Undo decision."""
    for n in range(1, dupacks + 1):
        v.dupacks = n
        apply(v, policy.on_dupack(v, None, n, now=start + n / 1000))
    policy.on_enter_recovery(v, v.cwnd, v.ssthresh, now=start + dupacks / 1000)
    prior_cwnd = v.cwnd
    v.cwnd //= 2                        # the engine's reduction (RFC 5681 eq. (4))
    policy.on_retransmit(v, v.snd_una, v.snd_una + MSS, start - 0.1, now=start + 0.01)
    v.dupacks = 0
    policy.on_new_ack(v, now=ack_at if ack_at is not None else start + 0.05)
    undo = policy.on_dsack(v, v.snd_una, v.snd_una + MSS, True, now=dsack_at)
    if undo is not None:
        v.cwnd = max(v.cwnd, undo.cwnd)
    apply(v, policy.on_undo(v, now=dsack_at))
    v.cwnd = prior_cwnd
    return undo


@pytest.mark.parametrize("variant", BL)
def test_bl_undo_sets_ssthresh_back_and_lets_cwnd_slow_start_to_it(variant):
    policy = get_variant(variant)(config(variant))
    undo = _false_fast_retransmit(policy, view())
    assert (undo.cwnd, undo.ssthresh) == (20 * MSS, 40 * MSS)       # BA02: slow start back
    dsack_r = get_variant("dsack")(config("dsack"))
    undo_r = _false_fast_retransmit(dsack_r, view())
    assert (undo_r.cwnd, undo_r.ssthresh) == (40 * MSS, 1 << 30)     # DSACK-R: all at once


def test_bl_undo_in_a_transfer_keeps_the_halved_cwnd_below_the_restored_ssthresh():
    net = run("dsack-inc", lambda n: n.hold(30, positions=4))
    (undo,) = net.events_named("undo")
    (fr,) = net.events_named("fast-retransmit")
    assert undo[2]["cwnd"] < fr[2]["prior_cwnd"] <= undo[2]["ssthresh"]
    plain = run("dsack", lambda n: n.hold(30, positions=4))
    (undo,) = plain.events_named("undo")
    assert undo[2]["cwnd"] == fr[2]["prior_cwnd"]


def test_ewma_moves_dupthresh_an_eighth_of_the_way_to_each_false_fast_retransmits_dupacks():
    policy = get_variant("dsack-ewma")(config("dsack-ewma"))
    v = view()
    _false_fast_retransmit(policy, v, dupacks=11)
    average = 3 + EWMA_GAIN * (11 - 3)
    assert v.dupthresh == 4 and policy.average == pytest.approx(average)
    apply(v, policy.on_timeout(v, now=5.0))
    assert v.dupthresh == 3 and policy.average == 3               # a timeout resets both


def test_ewma_dupthresh_is_at_most_90pct_of_cwnd():
    policy = get_variant("dsack-ewma")(config("dsack-ewma"))
    v = view(cwnd=10 * MSS)
    for _ in range(40):                             # the average climbs towards 60 dupacks
        _false_fast_retransmit(policy, v, dupacks=60)
    # set on the window BA02's undo leaves (cwnd halved to 5 segments, slow-starting back)
    assert policy.average > 50 and v.dupthresh == 4                 # int(0.9 * 5 segments)
    v.cwnd = 40 * MSS
    _false_fast_retransmit(policy, v, dupacks=60)
    assert v.dupthresh == 18                                        # int(0.9 * 20 segments)


@pytest.mark.parametrize("variant", ["dsack-timedel", "dsack-timeinc"])
def test_timer_delays_the_fast_retransmit_from_the_first_duplicate_ack(variant):
    policy = get_variant(variant)(config(variant))
    policy.delay = 0.05
    v = view()
    for n in (1, 2, 3):
        v.dupacks = n
        policy.on_dupack(v, None, n, now=1.0 + n / 1000)
    assert not policy.should_fast_retransmit(v, 3, now=1.003)
    assert policy.deadline() == pytest.approx(1.051)
    assert policy.on_deadline(v, now=1.051) is ENTER_RECOVERY
    # a cumulative ACK first: the episode is over and the timer with it
    policy.on_dupack(v, None, 1, now=2.0)
    policy.should_fast_retransmit(v, 3, now=2.003)
    policy.on_new_ack(v, now=2.01)
    assert policy.deadline() is None
    v.dupacks = 0
    assert policy.on_deadline(v, now=2.05) is None


def test_timedel_learns_the_time_from_the_first_dupack_to_the_segments_first_ack():
    policy = get_variant("dsack-timedel")(config("dsack-timedel"))
    _false_fast_retransmit(policy, view(), start=1.0, ack_at=1.06)
    assert policy.delay == pytest.approx(0.059)     # 1.06 - the first dupack at 1.001
    _false_fast_retransmit(policy, view(), start=3.0, ack_at=3.02)
    assert policy.delay == pytest.approx(0.059)     # never reduced
    _false_fast_retransmit(policy, view(), start=5.0, ack_at=5.5)
    assert policy.delay == pytest.approx(0.1)       # at most SRTT / 2


def test_timeinc_grows_by_10ms_per_false_fast_retransmit_up_to_half_the_srtt():
    policy = get_variant("dsack-timeinc")(config("dsack-timeinc"))
    for i in range(3):
        _false_fast_retransmit(policy, view(), start=1.0 + i)
    assert policy.delay == pytest.approx(3 * TIMEINC_STEP)
    for i in range(20):
        _false_fast_retransmit(policy, view(), start=10.0 + i)
    assert policy.delay == pytest.approx(0.1)
    policy.on_timeout(view(), now=40.0)
    assert policy.delay == pytest.approx(0.1)       # not reset: never reduced


@pytest.mark.parametrize("variant", ["dsack-timedel", "dsack-timeinc"])
def test_timer_schemes_wait_out_a_reordering_they_learnt_and_repair_a_loss(variant):
    # the same displacement twice, then a loss: the second reordering draws no fast
    # retransmit once the timer covers it, the loss one after the timer
    def setup(n):
        n.hold(30, positions=4)
        n.hold(80, positions=4)
        n.drop(150)
    net = run(variant, setup)
    assert net.a.stats["timeouts"] == 0
    assert net.a.stats["dsack_undos"] >= 1


def test_a_timer_scheme_without_its_rule_fails_at_instantiation():
    from hosts.tcp.variants.blanton import _DelayedFastRetransmit

    class NoRule(_DelayedFastRetransmit):
        name = "dsack-norule"

    with pytest.raises(TypeError, match="_longer"):
        NoRule(TcpConfig())

    class Fixed(_DelayedFastRetransmit):
        name = "dsack-fixed"

        def _longer(self, view):
            return 0.05

    assert Fixed(TcpConfig()).delay == 0.0
