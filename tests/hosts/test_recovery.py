"""Loss recovery of the three variants of [RDTCP] (sack, dsack, rdtcp) through the public engine
API and the in-memory network of hosts/testing.py. Each case checks the exact byte stream and
what the sender did: which segment it retransmitted, after how many dupacks, and cwnd."""

import pytest

from hosts.tcp import TcpConfig
from hosts.tcp.variants import VARIANTS, LossRecoveryPolicy, register
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes((i * 7 + i // 256) % 256 for i in range(40_000))


def config(variant: str, **kw) -> TcpConfig:
    return TcpConfig(variant=variant, rdtcp=variant == "rdtcp", mss=MSS + (12 if variant == "rdtcp" else 0),
                     initial_window_segments=10, **kw)


def run(variant: str, setup=lambda net: None, data=DATA, **kw) -> TestNetwork:
    net = TestNetwork(config(variant), data, **kw)
    setup(net)
    net.run()
    assert net.delivered == data, "the receiver must deliver the exact byte stream"
    assert net.a.state in ("TIME-WAIT", "CLOSED") and net.b.state == "CLOSED"
    return net


def first_fast_retransmit(net):
    ev = net.events_named("fast-retransmit")
    assert ev, "expected a fast retransmit"
    return ev[0][2]


@pytest.mark.parametrize("variant", ["sack", "dsack", "rdtcp"])
def test_no_loss_transfer_sends_no_retransmission(variant):
    net = run(variant)
    assert net.retransmissions() == []
    assert net.a.stats["timeouts"] == 0 and net.a.stats["fast_retransmits"] == 0
    assert len(net.sent) == len(DATA) // MSS


# an unreported drop looks like reordering to RD-TCP (no stamp, [RDTCP] §3): it waits 3+k = 6
@pytest.mark.parametrize("variant,dupacks", [("sack", 3), ("dsack", 3), ("rdtcp", 6)])
def test_one_drop_is_fast_retransmitted_after_dupthresh_dupacks(variant, dupacks):
    net = run(variant, lambda n: n.drop(5))
    fr = first_fast_retransmit(net)
    assert fr["dupacks"] == dupacks and fr["dupthresh"] == dupacks
    (rtx,) = net.retransmissions()
    assert rtx.seq == net.sent[4].seq                      # segment 5 again, only it
    assert net.a.stats["timeouts"] == 0
    # RFC 5681 eq. (4): ssthresh = FlightSize / 2, and cwnd = ssthresh on entering recovery
    assert net.a.ssthresh < 10 * MSS


def test_reordering_by_four_makes_sack_retransmit_spuriously():
    net = run("sack", lambda n: n.hold(3, positions=4))
    assert first_fast_retransmit(net)["dupacks"] == 3
    (rtx,) = net.retransmissions()
    assert rtx.seq == net.sent[2].seq
    assert net.a.stats["spurious_retransmits"] == 1        # the DSACK showed it
    assert net.a.stats["dsack_undos"] == 0                 # plain SACK keeps the reduction


def test_reordering_by_four_dsack_undoes_the_reduction():
    sack, dsack = run("sack", lambda n: n.hold(3, positions=4)), run("dsack", lambda n: n.hold(3, positions=4))
    assert len(dsack.retransmissions()) == 1
    undo = dsack.events_named("undo")
    assert undo and dsack.a.stats["dsack_undos"] == 1
    fr_time = dsack.events_named("fast-retransmit")[0][0]
    assert undo[0][0] > fr_time
    assert dsack.a.ssthresh > sack.a.ssthresh              # restored to its pre-reduction value


def test_reordering_by_four_rdtcp_waits_and_does_not_retransmit():
    net = run("rdtcp", lambda n: n.hold(3, positions=4))
    assert net.retransmissions() == []
    assert net.a.stats["fast_retransmits"] == 0
    marked = [s for s in net.acks if s.reorder]
    assert len(marked) == 4                                # the four dupacks carry the bit
    assert net.a.stats["reorder_dupacks_received"] == 4


def test_epdn_reported_drop_rdtcp_retransmits_after_three():
    net = run("rdtcp", lambda n: (n.drop(5), n.stamp(6, drop_lo_of=5, drop_hi_of=5)))
    fr = first_fast_retransmit(net)
    assert fr["dupacks"] == 3 and fr["dupthresh"] == 3
    assert [s.seq for s in net.retransmissions()] == [net.sent[4].seq]
    assert not any(s.reorder for s in net.acks)            # a drop, not reordering
    assert net.b.stats["epdn_stamps"] == 1


def test_paper_example_p2_p3_dropped_no_reorder_bit():
    """[RDTCP] §3: R1 drops P2 and P3; P4 carries min P2, max P3; no reorder bit; retransmit after 3."""
    net = run("rdtcp", lambda n: (n.drop(2, 3), n.stamp(4, drop_lo_of=2, drop_hi_of=3)))
    assert first_fast_retransmit(net)["dupacks"] == 3
    assert not any(s.reorder for s in net.acks)
    assert sorted(s.seq for s in net.retransmissions()) == sorted([net.sent[1].seq, net.sent[2].seq])


def test_paper_example_p2_reordered_p3_dropped():
    """[RDTCP] §3: P2 reordered, P3 dropped (P4 carries P3's range): the dupacks for P2 carry the
    reorder bit and P2 is not retransmitted; P3 is retransmitted after 3 plain dupacks."""
    net = run("rdtcp", lambda n: (n.hold(2, positions=4), n.drop(3),
                                  n.stamp(4, drop_lo_of=3, drop_hi_of=3)))
    retransmitted = [s.seq for s in net.retransmissions()]
    assert net.sent[1].seq not in retransmitted             # P2 was only reordered
    assert retransmitted == [net.sent[2].seq]               # P3 was dropped
    assert any(s.reorder for s in net.acks)


def test_timeout_while_waiting_three_plus_k_enters_fast_recovery():
    """[RDTCP] §3.1: "If the timer runs out while waiting for '3+k' dupacks ..., then the sender
    assumes that the packet has been dropped, retransmits the packet and enters fast recovery":
    the window is halved (RFC 5681 eq. (4)), not collapsed to one segment as after an RTO."""
    # segment 2 of 7 is lost and unreported: 5 dupacks follow, fewer than 3+k = 6
    net = run("rdtcp", lambda n: n.drop(2), data=DATA[:7 * MSS])
    assert net.a.stats["timeouts"] == 1
    ((_, _, timeout),) = net.events_named("timeout")
    assert timeout["recovery"] is True
    fr = first_fast_retransmit(net)
    assert fr["dupacks"] == 5 and fr["dupthresh"] == 3
    assert fr["ssthresh"] == max(fr["flight"] // 2, 2 * net.a.mss)
    assert [s.seq for s in net.retransmissions()] == [net.sent[1].seq]
    assert any(s.reorder for s in net.acks)                 # no stamp: the hole looked reordered


def test_timeout_while_waiting_retransmits_the_rest_of_the_gap_after_three_dupacks():
    """[RDTCP] §3.1: after that timeout "the sender also assumes that all packets following the
    dropped packet in that particular gap ... are dropped and retransmits them after receiving
    3 dupacks": segments 2 and 3 lost, unreported; 3 has 4 SACKed segments above it."""
    net = run("rdtcp", lambda n: n.drop(2, 3), data=DATA[:8 * MSS])
    assert net.a.stats["timeouts"] == 1
    assert [s.seq for s in net.retransmissions()] == [net.sent[1].seq, net.sent[2].seq]


def test_rdtcp_rto_outside_the_wait_is_a_plain_rto():
    """Without a reordered hole the timer is an ordinary RTO: loss window of one segment."""
    net = run("rdtcp", lambda n: n.drop(7), data=DATA[:7 * MSS])     # the last segment: no dupacks
    ((_, _, timeout),) = net.events_named("timeout")
    assert "recovery" not in timeout
    assert net.events_named("fast-retransmit") == []


@pytest.mark.parametrize("variant", ["sack", "dsack"])
def test_rto_ending_a_fast_recovery_keeps_its_ssthresh_cut(variant):
    """The fast retransmission is lost too, so the RTO ends the recovery. FlightSize then counts
    the SACKed segments and the new data sent during the recovery: RFC 5681 eq. (4) alone would
    raise ssthresh above the recovery's. RFC 5681 §3.1 asks for "no more than" eq. (4); Linux
    (tcp_enter_loss) keeps the recovery's cut: one loss event, one reduction."""
    first = run(variant, lambda n: n.drop(5))
    (rtx,) = first.retransmissions()
    net = run(variant, lambda n: n.drop(5, rtx.number))
    fr = first_fast_retransmit(net)
    ((_, _, timeout),) = net.events_named("timeout")
    assert timeout["snd_una"] == fr["snd_una"]                  # the same hole
    assert timeout["flight"] // 2 > fr["ssthresh"]                # eq. (4) would have raised it
    assert timeout["ssthresh"] == fr["ssthresh"]


@pytest.mark.parametrize("variant", ["sack", "rdtcp"])
def test_fin_beyond_a_hole_is_kept_until_the_hole_fills(variant):
    """RFC 9293 §3.10.7.4: segments are processed in sequence, so a FIN that arrives behind a
    hole takes effect once the hole fills; the sender needs no RTO to repair it (no SACK block
    can report a FIN)."""
    net = run(variant, lambda n: n.drop(2), data=DATA[:10 * MSS])
    assert net.a.stats["timeouts"] == 0
    assert [s.seq for s in net.retransmissions()] == [net.sent[1].seq]


def test_dsack_undo_during_recovery_survives_the_recovery_exit():
    """[RRTCP] §2 (BL-R): the sender "restores its old window". An undo that happens while fast
    recovery is still repairing a real loss must not be cancelled by the exit's cwnd =
    ssthresh, and a false fast retransmit in the first slow start (ssthresh still the initial
    "infinite" value) must not leave recovery with cwnd at its maximum."""
    net = TestNetwork(TcpConfig(variant="dsack", mss=MSS, window_scale=7,
                                initial_window_segments=20), bytes(200_000))
    net.hold(3, positions=4)            # a false fast retransmit of segment 3 ...
    net.drop(24)                        # ... while segment 24 is really lost in the same window
    net.run()
    fr = first_fast_retransmit(net)
    assert net.a.stats["dsack_undos"] == 1
    ((_, _, exit_),) = net.events_named("recovery-exit")
    assert exit_["cwnd"] == fr["prior_cwnd"]         # the window before the false reduction


def test_rdtcp_retransmits_at_once_when_a_later_dupack_lacks_the_bit():
    """[RDTCP] §3.1: waiting for 3+k, a dupack without the bit means drop: retransmit now."""
    net = run("rdtcp", lambda n: (n.drop(2), n.stamp(7, drop_lo_of=2, drop_hi_of=2)))
    fr = first_fast_retransmit(net)
    assert fr["dupthresh"] == 3 and fr["dupacks"] == 5     # bit on dupacks 1-4, not on the 5th
    assert [s.seq for s in net.retransmissions()] == [net.sent[1].seq]


@pytest.mark.parametrize("variant", ["sack", "dsack", "rdtcp"])
def test_sequence_wraparound_transfer(variant):
    net = run(variant, lambda n: (n.drop(7), n.hold(12, positions=2)),
              iss_a=(1 << 32) - 15_000, iss_b=(1 << 32) - 1)
    assert any(s.end < s.seq for s in net.sent) or any(s.seq < net.sent[0].seq for s in net.sent)


def test_newreno_without_sack_recovers_a_drop():
    cfg = TcpConfig(variant="sack", sack=False, mss=MSS, initial_window_segments=10)
    net = TestNetwork(cfg, DATA)
    net.drop(4, 6)
    net.run()
    assert net.delivered == DATA
    assert net.a.sack_ok is False
    assert net.a.stats["fast_retransmits"] == 1            # one episode: partial ACK continues it
    assert {s.seq for s in net.retransmissions()} >= {net.sent[3].seq, net.sent[5].seq}


def test_duplicated_segment_is_reported_by_dsack():
    net = run("dsack", lambda n: n.duplicate(4))
    assert any(s.option("SAck") for s in net.acks)
    assert net.retransmissions() == []


def test_max_cwnd_caps_the_window():
    cfg = TcpConfig(variant="sack", mss=MSS, max_cwnd_segments=8)
    net = TestNetwork(cfg, DATA)
    net.run()
    assert net.delivered == DATA and net.a.cwnd <= 8 * MSS


def test_delayed_acks_ack_every_second_segment_and_out_of_order_at_once():
    base = TestNetwork(config("sack"), DATA)
    base.run()
    delayed = TestNetwork(config("sack", delayed_ack=True), DATA)
    delayed.run()
    assert delayed.delivered == DATA

    def pure(n):
        return [s for s in n.acks if not s.payload]

    # RFC 5681 §4.2: at least every second full-sized segment is ACKed
    assert len(pure(delayed)) <= len(pure(base)) // 2 + 3
    lossy = TestNetwork(config("sack", delayed_ack=True), DATA)
    lossy.drop(5)
    lossy.run()
    assert lossy.delivered == DATA
    # out-of-order data is ACKed at once (RFC 5681 §4.2), so the fast retransmit still sees 3 dupacks
    assert first_fast_retransmit(lossy)["dupacks"] == 3
    assert lossy.a.stats["timeouts"] == 0


# Blanton and Allman's DSACK schemes ([RRTCP] §5.1): a segment held back 6 places makes a false
# fast retransmit (undone by DSACK); a later one held back 4 places shows the new dupthresh
def _two_reorderings(net):
    net.hold(3, positions=6)
    net.hold(25, positions=4)


def test_dsack_inc_raises_dupthresh_by_one_per_false_fast_retransmit():
    net = run("dsack-inc", _two_reorderings)
    frs = [f for _, _, f in net.events_named("fast-retransmit")]
    assert [(f["dupacks"], f["dupthresh"]) for f in frs] == [(3, 3), (4, 4)]
    assert net.a.stats["dsack_undos"] == 2 and net.a.dupthresh == 5


def test_dsack_avg_sets_dupthresh_to_the_mean_of_itself_and_the_episodes_dupacks():
    net = run("dsack-avg", _two_reorderings)
    frs = [f for _, _, f in net.events_named("fast-retransmit")]
    assert [(f["dupacks"], f["dupthresh"]) for f in frs] == [(3, 3)]
    assert net.a.dupthresh == (3 + 6 + 1) // 2               # 6 dupacks in the first episode
    assert net.a.stats["dsack_undos"] == 1                   # the second one waited it out


def test_dsack_undo_alone_keeps_dupthresh_at_three():
    net = run("dsack", _two_reorderings)
    assert len(net.events_named("fast-retransmit")) == 2 and net.a.dupthresh == 3


@pytest.mark.parametrize("variant", ["dsack-inc", "dsack-avg"])
def test_dsack_dupthresh_capped_at_90pct_of_cwnd_and_reset_by_a_timeout(variant):
    from hosts.tcp.variants import get_variant

    from hosts.tcp.variants.base import SetDupthresh

    class Conn:
        mss, cwnd, dupacks, dupthresh = 1000, 5000, 40, 10
    policy = get_variant(variant)(config(variant))
    raised = policy.on_false_fast_retransmit(Conn, 40, now=1.0)
    assert raised == SetDupthresh(4)                         # int(0.9 * 5 segments)
    Conn.dupthresh = 9
    assert policy.on_timeout(Conn, now=2.0) == SetDupthresh(3)


# ------------------------------------------------------------- what counts as a duplicate ACK
def test_a_dsack_alone_is_not_a_duplicate_ack_with_sack():
    """RFC 6675 §2: with SACK, a duplicate ACK is one that SACKs octets not SACKed before. Here
    segment 5 arrives after 6, a second copy of 6 and 7: two ACKs SACK something new, the copy's
    ACK carries only a DSACK, so there are two duplicate ACKs, not the three of a fast
    retransmit (RFC 5681's definition would count three and retransmit 5 for nothing)."""
    def setup(net):
        net.hold(5, positions=3)
        net.duplicate(6)
    net = run("sack", setup)
    assert net.events_named("fast-retransmit") == []
    assert net.retransmissions() == []


def test_a_window_update_is_not_a_duplicate_ack_without_sack():
    """RFC 5681 §2 (e): an ACK whose advertised window differs from the last one is a window
    update, not a duplicate ACK. B acknowledges segment 4 before its application reads it, so
    the first ACK of the hole (segment 6 held out of order) advertises the window the read
    freed: of the three ACKs the hole draws before 5 arrives, two are duplicates."""
    net = TestNetwork(config("sack", sack=False), DATA)
    net.hold(5, positions=3)
    net.run()
    assert net.delivered == DATA
    hole_acks = [s.window for s in net.acks if s.ack == net.acks[5].ack]
    assert len(set(hole_acks[:2])) == 2, "the hole's first ACK should be a window update"
    assert net.events_named("fast-retransmit") == []
    # the same hole held for one more segment: three duplicate ACKs after the update
    net = TestNetwork(config("sack", sack=False), DATA)
    net.hold(5, positions=4)
    net.run()
    assert net.delivered == DATA
    assert len(net.events_named("fast-retransmit")) == 1


def test_newreno_retransmits_each_hole_on_its_partial_ack_without_a_timeout():
    """RFC 6582 §3.2 step 5: without SACK, a partial ACK retransmits the next unacknowledged
    segment at once, whatever the pipe estimate says; two losses in one window cost one
    recovery and no RTO (the engine used to wait until the pipe allowed it, and timed out)."""
    net = TestNetwork(config("sack", sack=False), DATA)
    net.drop(12, 16)
    net.run()
    assert net.delivered == DATA
    assert net.a.stats["fast_retransmits"] == 1 and net.a.stats["timeouts"] == 0
    assert [s.seq for s in net.retransmissions()] == [net.sent[11].seq, net.sent[15].seq]


class _HeadOnlyTimeout(LossRecoveryPolicy):
    """A timeout resends the first segment only (as F-RTO's and RACK's do)."""
    name = "test-head-only-rto"

    def timeout_retransmits_all(self, conn, *, now):
        return False


def test_a_lost_retransmission_of_the_head_goes_out_again_after_the_timeout():
    """Segment 12 is lost, then its fast retransmission; segments after 15 are lost too, so no
    SACK shows anything more. The timeout must send segment 12 once more although its lost
    retransmission is still counted in flight. A policy whose timeout marks only the head lost
    (F-RTO, RACK) used to leave it 'retransmitted': nothing was sent, the timer was not re-armed
    and the connection stalled for good."""
    register(_HeadOnlyTimeout)
    try:
        data = DATA[:20 * MSS]
        first = TestNetwork(config("test-head-only-rto"), data)
        first.drop(12)
        first.run()
        rtx = first.retransmissions()[0].number
        net = TestNetwork(config("test-head-only-rto"), data)
        net.drop(12, rtx, *range(16, 21))
        net.run()
        assert net.delivered == data
        assert net.a.stats["timeouts"] >= 1
    finally:
        VARIANTS.pop("test-head-only-rto", None)


@pytest.mark.parametrize("variant, setup", [
    ("rdtcp", lambda n: n.hold(5, positions=9)),          # waits 3 + k = 6 duplicate ACKs
    ("dsack-inc", lambda n: (n.hold(5, positions=5), n.hold(15, positions=9))),
    ("rack", lambda n: n.drop(8)),
])
def test_a_reduction_leaves_out_what_limited_transmit_sent(variant, setup):
    """RFC 5681 §3.2 step 2: ssthresh is half the FlightSize *before* limited transmit. A sender
    that waits for more than 3 duplicate ACKs sends a segment per duplicate ACK meanwhile;
    counting them set ssthresh above half the window being reduced."""
    net = TestNetwork(config(variant), DATA, serialization=0.001)
    setup(net)
    net.run()
    assert net.delivered == DATA
    frs = net.events_named("fast-retransmit")
    assert frs
    for _, _, f in frs:
        assert f["ssthresh"] <= max(f["prior_cwnd"] // 2 + MSS, 2 * MSS), f
