"""ns-2 Reno's and Newreno's recovery rules as engine knobs (hosts.tcp.ns2, TcpConfig): Reno
keeps "recover" after leaving fast recovery, so bugFix_ guards its next fast retransmit
(reno_keeps_recover); bugFix_ false lets three duplicate ACKs retransmit during an RTO's
go-back-N too (recover_guard "off"); duplicate ACKs that start no recovery send nothing
(guarded_dupacks_send, exitFastRetrans_); the halved window in whole packets
(cwnd_halves_whole, precisionReduce_ false), kept when recovery ends; Newreno's
exit_recovery_fix_ (exit_cwnd_flight, RFC 6582 §3.2 step 4 (1)); the Tahoe sender (variant
"tahoe", ns-2's Agent/TCP, with noFastRetrans_). ns-2's newreno and testReno suites check the
same rules end to end (tests/experiments/test_ns2_conformance.py)."""

from dataclasses import replace

import pytest

from hosts.tcp import TcpConfig
from hosts.tcp.ns2 import Ns2Agent, Ns2Unsupported
from hosts.testing import TestNetwork

DATA = bytes(200_000)


def _agent(agent, **params):
    return Ns2Agent(agent, "", {"packetSize_": 1000, **params}).configs().sender


def test_reno_variables_set_the_recovery_rules_and_the_defaults_stay_off():
    reno = _agent("Reno")                          # ns-2 2.35: bugFix_ and exitFastRetrans_ true
    assert (reno.reno_keeps_recover, reno.recover_guard, reno.guarded_dupacks_send) == \
        (True, "careful", False)
    assert _agent("Reno", bugFix_=False).recover_guard == "off"
    assert _agent("Reno", lessCareful_=True).recover_guard == "careful"   # Newreno's alone
    assert _agent("Reno", exitFastRetrans_=False).guarded_dupacks_send is True
    assert _agent("Newreno", exitFastRetrans_=False).guarded_dupacks_send is True
    assert _agent("Reno", precisionReduce_=False).cwnd_halves_whole is True
    assert _agent("Reno").cwnd_halves_whole is False
    assert _agent("Newreno", exit_recovery_fix_=1).exit_cwnd_flight is True
    assert _agent("Newreno").exit_cwnd_flight is False
    assert "exit_recovery_fix_" not in " ".join(
        Ns2Agent("Newreno", "", {"exit_recovery_fix_": 1}).configs().unmodelled)
    default = TcpConfig()
    assert (default.reno_keeps_recover, default.cwnd_halves_whole, default.exit_cwnd_flight,
            default.guarded_dupacks_send) == (False, False, False, True)


RENO = replace(TcpConfig(variant="reno", sack=False, mss=1000, initial_window_segments=30),
               partial_ack="newreno")


def _run(config, drops):
    net = TestNetwork(config, DATA, serialization=0.001)
    net.drop(*drops)
    net.run()
    assert net.delivered == DATA
    return net


def test_reno_keeping_recover_makes_no_second_fast_retransmit_in_one_window():
    # two holes in one window: Reno leaves fast recovery on the partial ACK for the first;
    # forgetting "recover" (BSD Reno) the second hole's duplicate ACKs retransmit again and
    # halve the window twice, keeping it (ns-2's bugFix_) they do not, the timer repairs it
    bsd = _run(RENO, (40, 44))
    ns2 = _run(replace(RENO, reno_keeps_recover=True), (40, 44))
    assert bsd.a.stats["fast_retransmits"] == 2 and not bsd.events_named("timeout")
    assert ns2.a.stats["fast_retransmits"] == 1 and ns2.events_named("timeout")
    # and with the guard off (ns-2's bugFix_ false) the second fast retransmit comes back
    off = _run(replace(RENO, reno_keeps_recover=True, recover_guard="off"), (40, 44))
    assert off.a.stats["fast_retransmits"] == 2


def _after_timeout(config):
    """Sixteen segments of one window lost: a fast retransmit, then the timer; the timeout's
    go-back-N resends segments the receiver holds, whose duplicate ACKs reach DupThresh
    (RFC 6582 §4). The fast retransmits after the first timeout, and every timeout."""
    net = _run(config, tuple(range(40, 56)))
    timeouts = [e[0] for e in net.events_named("timeout")]
    return [e[0] for e in net.events_named("fast-retransmit") if e[0] > timeouts[0]], timeouts


def test_without_the_guard_duplicate_acks_retransmit_during_the_go_back_n():
    ns2 = replace(RENO, reno_keeps_recover=True, guarded_dupacks_send=False)
    frs, _ = _after_timeout(replace(ns2, recover_guard="off"))
    assert frs, "bugFix_ false: three duplicate ACKs after the RTO are a fast retransmit"
    # bugFix_: "recover" is SND.MAX of the timeout (RFC 6582 §4), so none
    assert _after_timeout(ns2)[0] == []


def test_the_whole_packet_halving_and_the_exit_with_the_flight():
    def windows(config):
        net = TestNetwork(config, DATA, serialization=0.001)
        net.drop(60)
        a = net.a
        on_segment, seen = a.on_segment, []

        def recorded(seg, *, now):
            was = a.in_recovery
            out = on_segment(seg, now=now)
            seen.append((was, a.in_recovery, a.cwnd, a.ssthresh))
            return out
        a.on_segment = recorded
        net.run()
        assert net.delivered == DATA
        entry = next(s for s in seen if s[1] and not s[0])
        exit_ = next(s for s in seen if s[0] and not s[1])
        return entry, exit_

    ns2 = replace(RENO, variant="sack", cwnd_model="ns2", max_cwnd_segments=45,
                  initial_window_segments=2)
    (_, _, real, ssthresh), _ = windows(ns2)
    (_, _, whole, ssthresh2), _ = windows(replace(ns2, cwnd_halves_whole=True))
    assert ssthresh == ssthresh2 and whole == ssthresh and real > whole     # w/2 vs floor
    # the exit: ns-2 keeps the halved cwnd (and grows it by 1/cwnd on that ACK), RFC 6582's
    # step 4 (1) takes min(ssthresh, FlightSize + SMSS)
    _, (_, _, kept, _) = windows(ns2)
    assert real < kept < real + 1000
    _, (_, _, fix, ssthresh3) = windows(replace(ns2, exit_cwnd_flight=True))
    assert fix <= ssthresh3 + 1000 and fix != kept


TAHOE = replace(RENO, variant="tahoe")


def test_tahoe_fast_retransmits_into_slow_start_and_goes_back_n():
    # one loss: Reno resends it alone in fast recovery; Tahoe (ns-2's Agent/TCP) restarts from
    # one segment and resends everything after it too (go-back-N), with no timeout
    reno, tahoe = _run(RENO, (40,)), _run(TAHOE, (40,))
    assert reno.a.stats["fast_retransmits"] == tahoe.a.stats["fast_retransmits"] == 1
    assert len(reno.retransmissions()) == 1 and len(tahoe.retransmissions()) > 5
    assert not tahoe.events_named("timeout")
    fr = tahoe.events_named("fast-retransmit")[0][2]
    assert fr["ssthresh"] == max(fr["prior_cwnd"] // 2, 2000)
    # noFastRetrans_: only the timer repairs it
    timer = _run(replace(TAHOE, no_fast_retransmit=True), (40,))
    assert timer.a.stats["fast_retransmits"] == 0 and timer.events_named("timeout")


def test_tahoe_from_ns2s_variables():
    cfg = Ns2Agent("Tahoe", "DelAck", {"noFastRetrans_": True, "bugFix_": False}).configs()
    assert (cfg.sender.variant, cfg.sender.no_fast_retransmit, cfg.sender.recover_guard,
            cfg.sender.guarded_dupacks_send) == ("tahoe", True, "off", False)
    assert not any("noFastRetrans_" in n for n in cfg.unmodelled)
    with pytest.raises(ValueError, match="no_fast_retransmit is for variant 'tahoe'"):
        replace(RENO, no_fast_retransmit=True)
    with pytest.raises(Ns2Unsupported, match="no Tahoe form"):
        Ns2Agent("Tahoe", "DelAck", {"frto_enabled_": 1}).configs()
