"""ns-2 Newreno's RFC 2582 options as engine knobs (hosts.tcp.ns2, TcpConfig): the window after
a partial ACK (partial_ack_deflation, partial_window_deflation_), which partial ACKs restart the
timer (partial_ack_timer, newreno_changes1_: RFC 6582 §4.1's Impatient variant), the guard
against a second fast retransmit from one window (recover_guard, bugFix_ and lessCareful_: RFC
2582 §6) and the refused duplicate ACKs that send nothing (guarded_dupacks_send). ns-2's own
newreno suite checks the same rules end to end (tests/experiments/test_ns2_conformance.py)."""

from dataclasses import replace

import pytest

from hosts.tcp import TcpConfig
from hosts.tcp.ns2 import Ns2Agent
from hosts.testing import TestNetwork

DATA = bytes(200_000)
NEWRENO = TcpConfig(sack=False, mss=1000, initial_window_segments=30)


def _newreno(**params):
    return Ns2Agent("Newreno", "", {"packetSize_": 1000, **params}).configs().sender


def test_newreno_variables_choose_the_rfc_2582_variants():
    default = _newreno()            # ns-2 2.35's defaults: 1, 1, bugFix_ true
    assert (default.partial_ack_deflation, default.partial_ack_timer, default.recover_guard,
            default.guarded_dupacks_send) == ("partial", "first", "careful", False)
    suite = _newreno(newreno_changes1_=0, partial_window_deflation_=0, bugFix_=False)
    assert (suite.partial_ack_deflation, suite.partial_ack_timer, suite.recover_guard) == \
        ("full", "each", "off")
    assert _newreno(lessCareful_=True).recover_guard == "less-careful"
    # the other agents and the engine's own senders keep RFC 6582's rules
    for cfg in (TcpConfig(), Ns2Agent("Sack1", "Sack1").configs().sender):
        assert (cfg.partial_ack_deflation, cfg.partial_ack_timer, cfg.recover_guard,
                cfg.guarded_dupacks_send) == ("partial", "each", "careful", True)
    for name, bad in (("partial_ack_deflation", "some"), ("partial_ack_timer", "never"),
                      ("recover_guard", "sloppy")):
        with pytest.raises(ValueError, match=f"{name} must be"):
            replace(TcpConfig(), **{name: bad})


def _on_partial_acks(config):
    """For each partial ACK of the recovery: (new segments sent on it, A's RTO deadline after)."""
    net = TestNetwork(config, DATA, serialization=0.001)
    net.drop(40, 44, 48)                # three holes in one window: two partial ACKs
    a = net.a
    on_segment = a.on_segment
    seen = []

    def recorded(seg, *, now):
        una, nxt, was = a.snd_una, a.snd_max, a.in_recovery
        out = on_segment(seg, now=now)
        if was and a.in_recovery and a.snd_una > una:
            seen.append(((a.snd_max - nxt) // a.mss, a.recovery.rto_deadline))
        return out
    a.on_segment = recorded
    net.run()
    assert net.delivered == DATA and a.stats["fast_retransmits"] == 1
    return seen


def test_without_partial_window_deflation_a_partial_ack_drops_the_inflation():
    partial = _on_partial_acks(NEWRENO)
    full = _on_partial_acks(replace(NEWRENO, partial_ack_deflation="full"))
    assert len(partial) == len(full) == 2
    # RFC 6582 §3.2 step 5 keeps the duplicate ACKs' inflation less what was acknowledged and
    # sends new data on; cwnd back to ssthresh (RFC 2582 §3) leaves no room for any
    assert partial[0][0] > 0 and full[0][0] == 0


def test_the_impatient_variant_restarts_the_timer_at_the_first_partial_ack_only():
    each = _on_partial_acks(NEWRENO)
    first = _on_partial_acks(replace(NEWRENO, partial_ack_timer="first"))
    assert each[1][1] > each[0][1]                  # Slow-but-Steady: restarted again
    assert first[1][1] == first[0][1]               # Impatient (RFC 6582 §4.1): not again
