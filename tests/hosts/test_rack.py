"""RACK-TLP (RFC 8985, hosts/tcp/variants/rack.py) through the engine and TestNetwork."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hosts.tcp import TcpConfig
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes(i % 251 for i in range(200_000))      # 200 segments
SEGMENTS = len(DATA) // MSS


def _net(variant, data=DATA, **kw):
    # 1 ms per data segment on A's link: segments leave at distinct times, as RACK needs
    return TestNetwork(TcpConfig(variant=variant, mss=MSS, initial_window_segments=10), data,
                       serialization=0.001, **kw)


def _stats(net):
    return {k: net.a.stats[k] for k in ("retransmits", "fast_retransmits", "timeouts",
                                        "spurious_retransmits", "loss_probes")}


def test_a_loss_is_found_by_time_and_repaired_by_fast_recovery():
    net = _net("rack")
    net.drop(30)
    net.run()
    assert net.delivered == DATA
    s = _stats(net)
    assert s["fast_retransmits"] == 1 and s["retransmits"] == 1 and s["timeouts"] == 0
    (rtx,) = net.retransmissions()
    assert rtx.seq == net.sent[29].seq


def test_a_loss_with_too_few_segments_after_it_for_three_dupacks_needs_no_timeout():
    # the second-to-last segment is lost: one segment follows it, one duplicate ACK. SACK
    # waits for the retransmission timer; RACK marks it lost a reordering window after the
    # last segment's SACK (§6.2 step 5, the reordering timer), or TLP's probe draws the ACK
    sack, rack = _net("sack"), _net("rack")
    for net in (sack, rack):
        net.drop(SEGMENTS - 1)
        net.run()
        assert net.delivered == DATA
    assert _stats(sack)["timeouts"] == 1
    assert _stats(rack)["timeouts"] == 0 and _stats(rack)["retransmits"] == 1
    assert rack.now < sack.now


def test_a_tail_loss_is_repaired_by_the_loss_probe_not_the_timer():
    sack, rack = _net("sack"), _net("rack")
    for net in (sack, rack):
        net.drop(SEGMENTS)                  # the last data segment: no ACK follows it at all
        net.run()
        assert net.delivered == DATA
    assert _stats(sack)["timeouts"] == 1 and _stats(sack)["loss_probes"] == 0
    s = _stats(rack)
    assert s["timeouts"] == 0 and s["loss_probes"] == 1 and s["retransmits"] == 1
    probe = rack.events_named("loss-probe")[0]
    # §7.2: two SRTTs after the last ACK, well before the 1 s minimum RTO
    last_ack_before = max(t for t, e, _ in rack.events if e != "loss-probe" and t < probe[0])
    assert probe[0] - last_ack_before < 0.5
    assert probe[2]["retransmission"] is True       # no new data left: the last segment again


def _retransmission_number(variant, lost):
    net = _net(variant)
    net.drop(lost)
    net.run()
    (rtx,) = net.retransmissions()
    return rtx.number


def test_a_lost_retransmission_is_found_by_time_without_a_timeout():
    # segment 30 is lost, and so is its fast retransmission: RACK finds the retransmission
    # lost when segments sent after it are SACKed (§6.2: RACK applies to retransmissions too),
    # where DupThresh counting has nothing left to count and leaves it to the timer
    sack, rack = _net("sack"), _net("rack")
    for net in (sack, rack):
        net.drop(30, _retransmission_number(net.config.variant, 30))
        net.run()
        assert net.delivered == DATA
    assert _stats(sack)["timeouts"] == 1
    s = _stats(rack)
    assert s["timeouts"] == 0 and s["retransmits"] == 2 and s["fast_retransmits"] == 1


def test_reordering_seen_widens_the_window_so_the_same_displacement_is_waited_out():
    # segment 20 overtaken by 2 others (sent about 1 ms before them: within min_RTT / 4, about
    # 5 ms, so RACK sees reordering, §6.2 step 3); then segment 60 overtaken by 14 (sent in
    # pairs here, so about 7 ms before the last of them: beyond min_RTT / 4) and segment 150 by
    # 8 (sent 1 ms apart by then: 8 ms). SACK fast-retransmits both. RACK's first is a false
    # fast retransmit, its DSACK doubles the window (§6.2 step 4: 2 min_RTT / 4, about 10 ms),
    # and the second is waited out
    sack, rack = _net("sack"), _net("rack")
    for net in (sack, rack):
        net.hold(20, positions=2)
        net.hold(60, positions=14)
        net.hold(150, positions=8)
        net.run()
        assert net.delivered == DATA
    assert _stats(sack)["spurious_retransmits"] == 2
    s = _stats(rack)
    assert s["retransmits"] == 1 and s["spurious_retransmits"] == 1
    assert rack.a.policy.rack.reordering_seen and rack.a.policy.rack.reo_wnd_mult == 2


def test_without_sack_it_is_newreno():
    cfg = TcpConfig(variant="rack", mss=MSS, initial_window_segments=10, sack=False)
    net = TestNetwork(cfg, DATA, serialization=0.001)
    net.drop(30)
    net.run()
    assert net.delivered == DATA
    assert net.a.stats["fast_retransmits"] == 1 and net.a.stats["loss_probes"] == 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drops=st.sets(st.integers(1, 80), max_size=8),
       holds=st.dictionaries(st.integers(1, 80), st.integers(1, 12), max_size=6))
def test_any_drops_and_holds_deliver_the_data_intact(drops, holds):
    data = DATA[:60_000]
    net = _net("rack", data)
    net.drop(*drops)
    for n, k in holds.items():
        if n not in drops:
            net.hold(n, positions=k)
    net.run()
    assert net.delivered == data
    a = net.a
    # the scoreboard's accounting is back to zero once everything is acknowledged
    assert a._sacked_out == a._lost_out == a._retrans_out == 0


def test_a_probe_resending_a_segment_whose_retransmission_is_in_flight_counts_it_once():
    # the case the property test above found: TLP's probe (RFC 8985 §7.3) resends the last
    # segment while its retransmission is in flight; RFC 6675 §4 counts a retransmitted octet
    # once in pipe, and the count returns to zero once everything is acknowledged
    data = DATA[:60_000]
    net = _net("rack", data)
    net.drop(15, 41)
    net.hold(63, positions=1)
    net.hold(51, positions=12)
    net.run()
    assert net.delivered == data and net.a.stats["loss_probes"] == 1
    assert net.a._retrans_out == 0


def test_the_variant_timer_is_one_shot_and_ignored_once_the_connection_is_closed():
    net = _net("rack")
    net.drop(SEGMENTS)
    net.run()
    a = net.a
    assert a.policy_deadline is None        # nothing left armed after the transfer
    a.policy_deadline = net.now + 1.0       # as if a timer outlived the connection
    assert a.next_timer() == net.now + 1.0
    a.state = "CLOSED"
    assert a.on_timer(now=net.now + 1.0) == []
    assert a.policy_deadline is None and a.next_timer() is None
