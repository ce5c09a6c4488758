"""OS loss-recovery profiles ([TCPDEBUG], hosts/tcp/profiles.py) and the RTO estimators behind them."""

import pytest

from hosts.tcp import TcpConfig
from hosts.tcp.profiles import PROFILES, get_profile, profile_config
from hosts.tcp.rtt import LinuxRttEstimator, RttEstimator
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes(i % 251 for i in range(100_000))      # 100 segments


def _net(profile, data=DATA, **cfg):
    config = profile_config(profile, mss=MSS, initial_window_segments=10, **cfg)
    return TestNetwork(config, data, serialization=0.001)


def _wrap_samples(net):
    samples = []
    original = net.a.rtt.sample

    def sample(rtt, **kw):
        samples.append(rtt)
        original(rtt, **kw)
    net.a.rtt.sample = sample
    return samples


def test_profiles_set_the_table_values():
    xp = profile_config("windows-xp")
    assert (xp.dupthresh, xp.min_rto, xp.initial_rto, xp.clock_granularity, xp.rtt_sampling,
            xp.partial_ack) == (2, 0.2, 3.0, 0.1, "per-flight", "wait")
    sol = profile_config("solaris")
    assert (sol.rto_m, sol.initial_rto, sol.min_rto) == (1.25, 3.375, 0.4)
    assert profile_config("linux-2.4").rto_estimator == "linux-2.4"
    rfc = profile_config("rfc5681")
    assert rfc == TcpConfig()                       # the engine's defaults are the RFC profile
    assert set(PROFILES) == {"rfc5681", "linux-2.4", "windows-xp", "freebsd-4.10", "solaris",
                             "ns2"}


def test_bad_profile_and_knob_values_are_named():
    with pytest.raises(ValueError, match="unknown OS profile 'beos'; choose from rfc5681, linux-2.4"):
        get_profile("beos")
    with pytest.raises(ValueError, match="unknown rto_estimator 'bsd'"):
        TcpConfig(rto_estimator="bsd")
    with pytest.raises(ValueError, match="rtt_sampling must be"):
        TcpConfig(rtt_sampling="sometimes")
    with pytest.raises(ValueError, match="partial_ack must be"):
        TcpConfig(partial_ack="reno")
    with pytest.raises(ValueError, match="dupthresh 2 is for variant 'sack'"):
        TcpConfig(variant="rdtcp", dupthresh=2)
    with pytest.raises(ValueError, match="RTO parameters"):
        TcpConfig(min_rto=0.0)
    # a profile over another variant keeps that variant's DupThresh of 3
    assert profile_config("windows-xp", TcpConfig(variant="rdtcp")).dupthresh == 3


@pytest.mark.parametrize("profile, low, high", [
    ("linux-2.4", 0.2, 0.5),        # srtt + rttvar, rttvar floored at 200 ms: ~0.22-0.3 s here
    ("windows-xp", 0.2, 0.5),       # minRTO 200 ms, 100 ms ticks
    ("solaris", 0.4, 0.6),          # minRTO 400 ms
    ("freebsd-4.10", 1.2, 1.3),     # minRTO 1.2 s: "more than 20 RTTs" on short paths ([TCPDEBUG])
    ("rfc5681", 1.0, 1.1),
])
def test_a_tail_loss_waits_for_the_profiles_retransmission_timer(profile, low, high):
    net = _net(profile)
    n = len(DATA) // MSS
    net.drop(n)                                 # the last segment: only the RTO repairs it
    net.run()
    assert net.delivered == DATA
    assert net.a.stats["timeouts"] == 1
    (rtx,) = net.retransmissions()
    waited = rtx.time - net.sent[n - 1].time
    assert low <= waited <= high, (profile, waited)


def test_windows_retransmits_after_two_duplicate_acks():
    for profile, dupacks in (("windows-xp", 2), ("linux-2.4", 3)):
        net = _net(profile)
        net.drop(30)
        net.run()
        assert net.delivered == DATA
        (fr,) = net.events_named("fast-retransmit")
        assert fr[2]["dupacks"] == dupacks and fr[2]["dupthresh"] == dupacks


def test_newreno_repairs_two_losses_in_one_recovery_where_windows_waits_for_the_timer():
    # without SACK, two losses in one window: NewReno (RFC 6582) retransmits the second hole on
    # the partial ACK, in the same recovery; Windows XP does not retransmit on a partial ACK, so
    # the second hole waits for the RTO ([TCPDEBUG] §3.2)
    newreno, windows = _net("freebsd-4.10", sack=False), _net("windows-xp", sack=False)
    for net in (newreno, windows):
        net.drop(30, 34)
        net.run()
        assert net.delivered == DATA
    assert newreno.a.stats["fast_retransmits"] == 1 and newreno.a.stats["timeouts"] == 0
    assert newreno.a.stats["retransmits"] == 2
    assert windows.a.stats["fast_retransmits"] == 1 and windows.a.stats["timeouts"] == 1


def test_per_flight_sampling_times_one_segment_per_round_trip():
    per_ack, per_flight = _net("linux-2.4"), _net("freebsd-4.10")
    samples = {}
    for net in (per_ack, per_flight):
        samples[net.config.rtt_sampling] = _wrap_samples(net)
        net.run()
        assert net.delivered == DATA
    acks = len(per_ack.acks)
    assert len(samples["per-ack"]) > acks // 2             # nearly every ACK times a segment
    # one per round trip: the handshake, then about one per flight (~log2 of 100 segments
    # from an initial window of 10, then a few more)
    assert 3 <= len(samples["per-flight"]) <= 15


def test_timer_granularity_rounds_measurements_and_the_timeout_up_to_ticks():
    est = RttEstimator(initial_rto=3.0, min_rto=0.2, max_rto=60.0, granularity=0.1)
    est.sample(0.02)                            # 20 ms reads as one 100 ms tick
    assert est.srtt == pytest.approx(0.1)
    assert est.rto == pytest.approx(round(est.rto / 0.1) * 0.1)     # a whole number of ticks
    est.sample(0.25)
    assert est.rto == pytest.approx(round(est.rto / 0.1) * 0.1)


def test_solaris_m_scales_srtt_in_the_timeout():
    plain = RttEstimator(initial_rto=1.0, min_rto=0.0001, max_rto=60.0)
    solaris = RttEstimator(initial_rto=1.0, min_rto=0.0001, max_rto=60.0, m=1.25)
    for est in (plain, solaris):
        for _ in range(50):
            est.sample(0.4)                     # a constant RTT: rttvar decays towards 0
    assert solaris.rto - plain.rto == pytest.approx(0.25 * 0.4, rel=0.05)


def test_linux_estimator_floors_the_variance_and_barely_reacts_to_shorter_rtts():
    est = LinuxRttEstimator(initial_rto=3.0, min_rto=0.2, max_rto=60.0)
    una = nxt = 0
    for i in range(40):
        una, nxt = nxt, nxt + 10_000            # one sample per window of data
        est.sample(0.1, snd_una=una + 1, snd_nxt=nxt)
    assert est.rto == pytest.approx(0.1 + 0.2, abs=0.01)     # RTO >= srtt + 200 ms
    rfc = RttEstimator(initial_rto=3.0, min_rto=0.2, max_rto=60.0)
    for _ in range(40):
        rfc.sample(0.1)
    mdev_before = est.mdev
    est.sample(0.02, snd_una=una + 1, snd_nxt=nxt)          # a much shorter RTT
    rfc_before = rfc.rttvar
    rfc.sample(0.02)
    # Linux raises its deviation at 1/32 for a sample below srtt; RFC 6298 at 1/4
    assert est.mdev - mdev_before < (rfc.rttvar - rfc_before) * 4 / 4
    assert est.mdev - mdev_before == pytest.approx((0.08 * 1 - mdev_before / 4) / 8, rel=0.01)
