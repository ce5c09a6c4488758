"""[TCPDEBUG] ch. 4's replay: a trace's timer waits judged under other RTO estimators and
parameters, on a trace whose timeouts are known (test_series.timeouts_trace)."""

import random
from dataclasses import replace

import pytest

from analyzer import AnalyzerConfig, analyze_file, rto_replay
from analyzer.series import RttSample, Wait
from hosts.tcp.rtt import LinuxRttEstimator
from test_series import timeouts_trace


@pytest.fixture
def known(tmp_path):
    got = []
    analyze_file(timeouts_trace().write(tmp_path / "t.pcap"), AnalyzerConfig(),
                 on_series=got.append)
    [s] = [s for s in got if s.sender.startswith("10.0.1.1")]
    return s


def outcome(s, setting):
    [out] = rto_replay.replay_flow(s.samples, s.waits, [setting])
    return out


def test_the_senders_own_timer_gives_back_the_trace(known):
    """RFC 6298 with the engine's 1 s minimum (the rfc5681 profile the trace identifies as):
    the lost segment waits the 1 s the trace shows; the held-back ACK takes 1.05 s, so the
    timer fires first: one spurious timeout, as in the trace."""
    assert known.profile == "rfc5681"
    base = outcome(known, rto_replay.baseline_for(known.profile))
    assert (base.losses, base.by_timer, base.by_fast) == (1, 1, 0)
    assert base.spurious_timeouts == 1 and base.spurious_fast == 0
    [wait] = base.timer_waits
    assert wait == pytest.approx(1.0 / 0.1, rel=0.02)      # in RTTs of 100 ms


def test_linux_detects_the_loss_sooner_and_a_larger_minimum_avoids_the_spurious_timeout(known):
    linux = outcome(known, rto_replay.LINUX)
    # srtt 100 ms + the 200 ms floor of the variance: 0.3 s, rounded up to Linux's 10 ms tick
    assert linux.timer_waits == [pytest.approx(3.0, rel=0.05)]
    assert linux.spurious_timeouts == 1
    slow = outcome(known, replace(rto_replay.RFC2988, min_rto=1.1, name="minRTO 1.1 s"))
    assert slow.spurious_timeouts == 0 and slow.timer_waits == [pytest.approx(11.0, rel=0.02)]
    # the model's cost: waiting time, RF(x) after a timer detection, R(x) per spurious timeout
    assert linux.cost < outcome(known, rto_replay.baseline_for("rfc5681")).cost


def test_duplicate_acks_turn_a_timeout_into_a_fast_retransmit_when_d_allows():
    samples = [RttSample(i * 0.2, i * 0.2 + 0.1, 0.1, 5, True, True, i, i + 1)
               for i in range(10)]
    w = Wait(2.0, 5, False)
    w.end, w.dupacks, w.retx, w.need = 3.5, [2.15, 2.16], 3.0, "needed"
    d2 = outcome_of(samples, [w], replace(rto_replay.RFC2988, dupthresh=2))
    d3 = outcome_of(samples, [w], rto_replay.RFC2988)
    assert (d2.by_fast, d2.by_timer) == (1, 0) and (d3.by_fast, d3.by_timer) == (0, 1)
    smart = outcome_of(samples, [w], rto_replay.SMART)    # D = max(1, min(3, 5 - 2)) = 3
    assert smart.by_timer == 1
    # a wait that ended with its ACK after two duplicate ACKs: D = 2 fast-retransmits spuriously
    ok = Wait(2.0, 5, False)
    ok.end, ok.dupacks = 2.3, [2.15, 2.16]
    assert outcome_of(samples, [ok], replace(rto_replay.RFC2988, dupthresh=2)).spurious_fast == 1
    assert outcome_of(samples, [ok], rto_replay.RFC2988).spurious_fast == 0


def outcome_of(samples, waits, setting):
    [out] = rto_replay.replay_flow(samples, waits, [setting])
    return out


def test_scaled_linux_estimator_with_the_defaults_is_the_engines():
    rng = random.Random(4)
    kw = dict(initial_rto=3.0, min_rto=0.2, max_rto=120.0, granularity=0.01)
    ours, engine = rto_replay.ScaledLinuxEstimator(**kw), LinuxRttEstimator(**kw)
    una = 0
    for _ in range(2000):
        rtt = rng.choice([0.05, 0.1, 0.3]) * rng.uniform(0.5, 3)
        una += rng.randint(0, 3000)
        for est in (ours, engine):
            est.sample(rtt, snd_una=una, snd_nxt=una + 30000)
        assert (ours.rto, ours.srtt, ours.rttvar) == (engine.rto, engine.srtt, engine.rttvar)
    # and k, a, b change it: k = 2 halves the variance term
    half = rto_replay.ScaledLinuxEstimator(k=2.0, **kw)
    full = rto_replay.ScaledLinuxEstimator(**kw)
    for est in (half, full):
        est.sample(0.1, snd_una=1, snd_nxt=2)
    assert half.rto == pytest.approx(0.1 + 0.2 / 2 + 0.0, abs=0.011)
    assert full.rto == pytest.approx(0.3, abs=0.011)


def test_the_settings_cover_004s_ranges_and_have_unique_names():
    names = [s.name for s in rto_replay.SETTINGS]
    assert len(names) == len(set(names))
    for family in ("Linux", "RFC 2988"):
        for needle in ("k = 2", "k = 8", "minRTO = 100 ms", "a = 1/32", "b = 1/32", "D = 4",
                       "G = 500 ms", "m = 1.25"):
            assert any(n.startswith(family + ",") and needle in n for n in names), (family,
                                                                                   needle)
    assert min(s.min_rto for s in rto_replay.SETTINGS) >= 0.1


def test_a_timeout_inside_a_fast_recovery_is_replayed_and_the_backed_off_one_is_not(tmp_path):
    """The timer that fires in a fast recovery (a second loss in the window, no SACK to resend
    it) is a detection by the timer that a shorter RTO makes sooner ([TCPDEBUG] Table 4.4 counts it):
    the replay judges it; the wait after it runs a backed-off timer and is left out."""
    from test_series import recovery_timeout_trace
    got = []
    analyze_file(recovery_timeout_trace().write(tmp_path / "t.pcap"), AnalyzerConfig(),
                 on_series=got.append)
    [s] = [x for x in got if x.sender.startswith("10.0.1.1")]
    base = outcome(s, rto_replay.baseline_for(s.profile))       # RFC 6298, 1 s minimum
    assert (base.losses, base.by_fast, base.by_timer) == (2, 1, 1)
    assert base.timer_waits == [pytest.approx(1.0 / 0.1, rel=0.02)]     # RTTs of 100 ms
    short = outcome(s, replace(rto_replay.baseline_for(s.profile), min_rto=0.2))
    assert short.by_timer == 1 and short.timer_waits[0] < base.timer_waits[0] / 2


def test_duplicate_acks_inside_a_recovery_start_no_second_fast_retransmit():
    """RFC 6582 §3.2: in a fast recovery, duplicate ACKs inflate the window; a lost
    retransmission is left to the timer whatever D is."""
    samples = [RttSample(i * 0.2, i * 0.2 + 0.1, 0.1, 5, True, True, i, i + 1)
               for i in range(10)]
    w = Wait(2.0, 5, True)
    w.end, w.dupacks, w.retx, w.need, w.cls = 3.5, [2.15, 2.16, 2.17], 3.0, "needed", "rto"
    got = outcome_of(samples, [w], rto_replay.RFC2988)
    assert (got.by_fast, got.by_timer) == (0, 1)
    # a retransmission the recovery made itself (a SACK hole's): the recovery detected it, the
    # timer did not, and no setting of the timer is judged on it
    w.retx, w.cls = 2.01, "sack"
    assert outcome_of(samples, [w], rto_replay.RFC2988).waits == 0
