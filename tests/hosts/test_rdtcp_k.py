"""RD-TCP whose k follows the reordering ([RDTCP] §3's proposal for further research), both forms:
- rdtcp-adaptive (BL-INC's rule applied to k): a fast retransmit made after waiting 3+k dupacks
  that DSACK shows to be false raises k by one;
- rdtcp-measured (k from the amount of reordering measured, §7): such a retransmission sets 3+k
  one above the number of duplicate ACKs the hole drew before its original arrived;
- rdtcp-measured-undo: rdtcp-measured, and the same DSACK restores the window the false fast
  retransmit cut (DSACK undo, RFC 3708).
A timeout resets k in all."""

import pytest

from hosts.tcp import TcpConfig
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes((i * 13) % 251 for i in range(120_000))
LONG_DATA = bytes((i * 7) % 253 for i in range(300_000))   # room for a second hold at 200


def net_for(variant, setup, data=DATA):
    net = TestNetwork(TcpConfig(variant=variant, rdtcp=True, mss=MSS + 12, window_scale=7,
                                initial_window_segments=20), data)
    setup(net)
    net.run()
    assert net.delivered == data
    return net


def test_false_fast_retransmit_after_waiting_three_plus_k_raises_k():
    # segment 5 arrives after 8 later ones: 8 dupacks with the reorder bit, RD-TCP (k = 3)
    # retransmits at the 6th, and the DSACK for it shows the retransmission was unnecessary
    net = net_for("rdtcp-adaptive", lambda n: n.hold(5, positions=8))
    (fr,) = net.events_named("fast-retransmit")
    assert fr[2]["dupthresh"] == 6
    assert net.a.stats["spurious_retransmits"] == 1
    assert net.a.policy.k == 4


def test_a_second_long_displacement_is_waited_out_with_the_raised_k():
    # the first hold (8 places) raises k to 4, then 5; a later hold by 7 places needs 3 + k > 7
    holds = lambda n: (n.hold(5, positions=8), n.hold(40, positions=8), n.hold(80, positions=7))
    plain = net_for("rdtcp", holds)
    adaptive = net_for("rdtcp-adaptive", holds)
    assert plain.a.stats["fast_retransmits"] == 3 and plain.a.policy.k == 3
    assert adaptive.a.stats["fast_retransmits"] == 2 and adaptive.a.policy.k == 5


def test_episode_entered_at_three_dupacks_does_not_change_k():
    # a real drop the gateway reported (EPDN stamp): fast retransmit at 3, not spurious
    net = net_for("rdtcp-adaptive", lambda n: (n.drop(5), n.stamp(6, drop_lo_of=5, drop_hi_of=5)))
    (fr,) = net.events_named("fast-retransmit")
    assert fr[2]["dupthresh"] == 3
    assert net.a.policy.k == 3


def test_timeout_resets_k_to_its_configured_value():
    # k raised first, then the last segment is lost: no dupacks, the RTO fires
    n_segments = len(DATA) // MSS
    net = net_for("rdtcp-adaptive", lambda n: (n.hold(5, positions=8), n.drop(n_segments)))
    assert net.a.stats["timeouts"] >= 1
    assert net.a.policy.k == 3


@pytest.mark.parametrize("variant", ["rdtcp", "rdtcp-adaptive", "rdtcp-measured",
                                     "rdtcp-measured-undo"])
def test_k_never_changes_without_reordering(variant):
    net = net_for(variant, lambda n: None)
    assert net.a.policy.k == 3 and net.events_named("fast-retransmit") == []


# ---------------------------------------------------------------------------- rdtcp-measured
def test_false_retransmit_after_waiting_sets_k_from_the_displacement():
    # segment 5 arrives after 12 later ones: RD-TCP (k = 3) retransmits at the 6th dupack, the
    # original then arrives at the 12th and the DSACK for the retransmission reports it
    net = net_for("rdtcp-measured", lambda n: n.hold(5, positions=12), LONG_DATA)
    (fr,) = net.events_named("fast-retransmit")
    assert fr[2]["dupthresh"] == 6
    assert net.a.stats["spurious_retransmits"] == 1
    assert net.a.policy.k == 12 + 1 - 3


def test_the_same_displacement_later_is_waited_out():
    holds = lambda n: (n.hold(5, positions=12), n.hold(200, positions=12))
    plain = net_for("rdtcp", holds, LONG_DATA)
    measured = net_for("rdtcp-measured", holds, LONG_DATA)
    assert plain.a.stats["fast_retransmits"] == 2
    assert measured.a.stats["fast_retransmits"] == 1
    assert measured.a.stats["spurious_retransmits"] == 1


def test_adaptive_k_retransmits_again_for_the_same_displacement():
    holds = lambda n: (n.hold(5, positions=12), n.hold(200, positions=12))
    adaptive = net_for("rdtcp-adaptive", holds, LONG_DATA)
    assert adaptive.a.stats["fast_retransmits"] == 2 and adaptive.a.policy.k == 5


def test_a_hole_filled_within_three_plus_k_changes_nothing():
    net = net_for("rdtcp-measured", lambda n: n.hold(5, positions=5), LONG_DATA)
    assert net.events_named("fast-retransmit") == []
    assert net.a.policy.k == 3


def test_measured_episode_entered_at_three_dupacks_does_not_change_k():
    # a real drop the gateway reported (EPDN stamp): retransmitted at 3, needed, k stays
    net = net_for("rdtcp-measured", lambda n: (n.drop(5), n.stamp(6, drop_lo_of=5, drop_hi_of=5)),
                  LONG_DATA)
    (fr,) = net.events_named("fast-retransmit")
    assert fr[2]["dupthresh"] == 3
    assert net.a.stats["spurious_retransmits"] == 0
    assert net.a.policy.k == 3


def test_measured_timeout_resets_k_to_its_configured_value():
    n_segments = len(LONG_DATA) // MSS
    net = net_for("rdtcp-measured", lambda n: (n.hold(5, positions=12), n.drop(n_segments)),
                  LONG_DATA)
    assert net.a.stats["timeouts"] >= 1
    assert net.a.policy.k == 3


def test_the_wait_is_bounded_by_the_window_when_it_is_used():
    # k remembers what was measured; the threshold used is at most 90 % of cwnd in segments
    # ([RRTCP] §5.1) and never below the configured k
    net = TestNetwork(TcpConfig(variant="rdtcp-measured", rdtcp=True, mss=MSS + 12,
                                window_scale=7), LONG_DATA)
    conn, policy = net.a, net.a.policy
    policy.k = 40
    for cwnd_segments, expected in ((20, int(0.9 * 20) - 3), (100, 40), (2, 3)):
        conn.recovery.cwnd = cwnd_segments * conn.mss
        assert policy.wait_k(conn) == expected


# ----------------------------------------------------------------------- rdtcp-measured-undo
def test_false_retransmit_after_waiting_is_undone_and_teaches_k():
    # as above: retransmitted at the 6th dupack, original at the 12th, DSACK for the
    # retransmission; rdtcp-measured keeps the halved window, the undo form restores it
    measured = net_for("rdtcp-measured", lambda n: n.hold(5, positions=12), LONG_DATA)
    undo = net_for("rdtcp-measured-undo", lambda n: n.hold(5, positions=12), LONG_DATA)
    (fr,) = undo.events_named("fast-retransmit")
    (restored,) = undo.events_named("undo")
    assert fr[2]["dupthresh"] == 6 and undo.a.policy.k == 12 + 1 - 3
    assert restored[2]["cwnd"] == fr[2]["prior_cwnd"]
    assert restored[2]["ssthresh"] > fr[2]["ssthresh"]
    assert undo.a.stats["dsack_undos"] == 1
    assert measured.events_named("undo") == [] and measured.a.policy.k == undo.a.policy.k
    assert undo.a.cwnd > measured.a.cwnd


def test_needed_retransmission_of_a_reported_drop_is_not_undone():
    net = net_for("rdtcp-measured-undo",
                  lambda n: (n.drop(5), n.stamp(6, drop_lo_of=5, drop_hi_of=5)), LONG_DATA)
    (fr,) = net.events_named("fast-retransmit")
    assert fr[2]["dupthresh"] == 3
    assert net.events_named("undo") == [] and net.a.policy.k == 3


def test_undo_form_timeout_resets_k_and_is_not_undone():
    n_segments = len(LONG_DATA) // MSS
    net = net_for("rdtcp-measured-undo",
                  lambda n: (n.hold(5, positions=12), n.drop(n_segments)), LONG_DATA)
    assert net.a.stats["timeouts"] >= 1
    assert net.a.policy.k == 3
    assert len(net.events_named("undo")) == 1      # the false fast retransmit's, not the RTO's
