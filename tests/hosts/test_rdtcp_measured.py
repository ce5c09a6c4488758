"""RD-TCP with k from the measured reordering (003 §3's proposal, §7's further work): a
retransmission made after waiting 3+k duplicate ACKs that a DSACK shows unnecessary sets 3+k one
above the number of duplicate ACKs the hole drew before its original arrived."""

from hosts.tcp import TcpConfig
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes((i * 7) % 253 for i in range(300_000))


def net_for(variant, setup, data=DATA):
    net = TestNetwork(TcpConfig(variant=variant, rdtcp=True, mss=MSS + 12, window_scale=7,
                                initial_window_segments=20), data)
    setup(net)
    net.run()
    assert net.delivered == data
    return net


def test_false_retransmit_after_waiting_sets_k_from_the_displacement():
    # segment 5 arrives after 12 later ones: RD-TCP (k = 3) retransmits at the 6th dupack, the
    # original then arrives at the 12th and the DSACK for the retransmission reports it
    net = net_for("rdtcp-measured", lambda n: n.hold(5, positions=12))
    (fr,) = net.events_named("fast-retransmit")
    assert fr[2]["dupthresh"] == 6
    assert net.a.stats["spurious_retransmits"] == 1
    assert net.a.policy.k == 12 + 1 - 3


def test_the_same_displacement_later_is_waited_out():
    holds = lambda n: (n.hold(5, positions=12), n.hold(200, positions=12))
    plain = net_for("rdtcp", holds)
    measured = net_for("rdtcp-measured", holds)
    assert plain.a.stats["fast_retransmits"] == 2
    assert measured.a.stats["fast_retransmits"] == 1
    assert measured.a.stats["spurious_retransmits"] == 1


def test_adaptive_k_retransmits_again_for_the_same_displacement():
    holds = lambda n: (n.hold(5, positions=12), n.hold(200, positions=12))
    adaptive = net_for("rdtcp-adaptive", holds)
    assert adaptive.a.stats["fast_retransmits"] == 2 and adaptive.a.policy.k == 5


def test_a_hole_filled_within_three_plus_k_changes_nothing():
    net = net_for("rdtcp-measured", lambda n: n.hold(5, positions=5))
    assert net.events_named("fast-retransmit") == []
    assert net.a.policy.k == 3


def test_episode_entered_at_three_dupacks_does_not_change_k():
    # a real drop the gateway reported (EPDN stamp): retransmitted at 3, needed, k stays
    net = net_for("rdtcp-measured", lambda n: (n.drop(5), n.stamp(6, drop_lo_of=5, drop_hi_of=5)))
    (fr,) = net.events_named("fast-retransmit")
    assert fr[2]["dupthresh"] == 3
    assert net.a.stats["spurious_retransmits"] == 0
    assert net.a.policy.k == 3


def test_timeout_resets_k_to_its_configured_value():
    n_segments = len(DATA) // MSS
    net = net_for("rdtcp-measured", lambda n: (n.hold(5, positions=12), n.drop(n_segments)))
    assert net.a.stats["timeouts"] >= 1
    assert net.a.policy.k == 3


def test_the_wait_is_bounded_by_the_window_when_it_is_used():
    # k remembers what was measured; the threshold used is at most 90 % of cwnd in segments
    # (000 §5.1) and never below the configured k
    net = TestNetwork(TcpConfig(variant="rdtcp-measured", rdtcp=True, mss=MSS + 12,
                                window_scale=7), DATA)
    conn, policy = net.a, net.a.policy
    policy.k = 40
    for cwnd_segments, expected in ((20, int(0.9 * 20) - 3), (100, 40), (2, 3)):
        conn.cwnd = cwnd_segments * conn.mss
        assert policy.wait_k(conn) == expected
