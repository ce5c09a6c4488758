"""Eifel (RFC 3522 detection, RFC 4015 response) through the engine's public API and the
in-memory network: the first ACK after a retransmission tells by its echoed timestamp whether
the original arrived; and timestamps on every segment leave less room for data."""

from hosts.tcp import TcpConfig
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes((i * 11) % 256 for i in range(60_000))
LONG_DATA = bytes((i * 5) % 251 for i in range(400_000))
SPIKE = (0.05, 0.03, 1.5)


def cfg(variant, **kw):
    kw = {"mss": MSS + 12, **kw}            # 12 bytes of each segment carry the timestamps
    return TcpConfig(variant=variant, timestamps=True, initial_window_segments=10, **kw)


def run(variant, setup, data=DATA, **kw):
    # 1.2 ms per segment on A's link (a 1000-byte segment at 6.7 Mb/s): segments sent in one
    # burst leave at different milliseconds, so their timestamps differ as on a real link
    spike = kw.pop("ack_spike", None)
    net = TestNetwork(cfg(variant, **kw), data, serialization=0.0012, ack_spike=spike)
    setup(net)
    net.run()
    assert net.delivered == data
    return net


def test_timestamps_leave_twelve_bytes_less_for_data_per_segment():
    # RFC 9293 §3.7.1 / RFC 6691: the MSS counts data only; the options come out of it
    net = run("sack", lambda n: None, mss=1460)
    assert net.a.mss == 1448
    assert max((s.end - s.seq) % (1 << 32) for s in net.sent) == 1448


def test_a_fast_retransmit_of_a_reordered_segment_is_undone_when_its_recovery_ends():
    # segment 5 arrives after 5 later ones: SACK retransmits it at the 3rd duplicate ACK, the
    # original then fills the hole, and the ACK that ends the recovery echoes a timestamp older
    # than the retransmission's
    sack = run("sack", lambda n: n.hold(5, positions=5))
    eifel = run("eifel", lambda n: n.hold(5, positions=5))
    for net in (sack, eifel):
        assert net.a.stats["fast_retransmits"] == 1
    assert sack.a.stats["eifel_undos"] == 0
    assert eifel.a.stats["eifel_undos"] == 1
    (fr,) = eifel.events_named("fast-retransmit")
    (undo,) = eifel.events_named("undo")
    assert undo[2]["cwnd"] == fr[2]["prior_cwnd"] and undo[2]["detector"] == "eifel"
    # an RTT before any DSACK for the retransmission could have said it
    dsack_at = min(t for t, e, f in eifel.events if e == "dsack")
    assert undo[0] < dsack_at


def test_a_recovery_that_also_repairs_a_real_loss_is_not_undone():
    # segment 5 is late (reordered) but segment 8 of the same window is lost: the ACK for 5's
    # original says nothing about 8, whose retransmission fills its hole; TS.Recent then holds
    # that retransmission's timestamp and never goes back, so the recovery is not undone
    net = run("eifel", lambda n: (n.hold(5, positions=6), n.drop(8)))
    assert net.a.stats["fast_retransmits"] == 1
    assert net.a.stats["eifel_undos"] == 0 and net.events_named("undo") == []


def test_a_needed_fast_retransmit_is_not_undone():
    net = run("eifel", lambda n: n.drop(5))
    assert net.a.stats["fast_retransmits"] == 1 and net.a.stats["eifel_undos"] == 0
    assert net.events_named("undo") == []


def test_without_timestamps_eifel_is_plain_sack():
    net = TestNetwork(TcpConfig(variant="eifel", mss=MSS, initial_window_segments=10), DATA)
    net.hold(5, positions=5)
    net.run()
    assert net.delivered == DATA and not net.a.ts_ok
    assert net.a.stats["fast_retransmits"] == 1 and net.a.stats["eifel_undos"] == 0


def test_a_spurious_timeout_is_detected_and_go_back_n_is_not_sent():
    # B's ACKs sent in [50, 80) ms reach A 1.5 s late, later ones wait behind them: A's timer
    # expires although nothing was lost
    sack = run("sack", lambda n: None, LONG_DATA, ack_spike=SPIKE)
    eifel = run("eifel", lambda n: None, LONG_DATA, ack_spike=SPIKE)
    for net in (sack, eifel):
        assert net.a.stats["timeouts"] == 1
    assert eifel.a.stats["spurious_timeouts_undone"] == 1
    assert sack.a.stats["spurious_timeouts_undone"] == 0
    # SACK resends the window go-back-N; Eifel only the one segment the timer sent
    assert len(eifel.retransmissions()) == 1
    assert len(sack.retransmissions()) > 5
    (ev,) = eifel.events_named("spurious-timeout")
    (to,) = eifel.events_named("timeout")
    assert ev[2]["ssthresh"] >= to[2]["flight"]          # pipe_prev: the flight before the timer


def test_a_spurious_timeout_inside_a_fast_recovery_keeps_the_scoreboard_consistent():
    # segments 5 and 6 are lost (fast recovery), then a delay spike makes the timer expire in
    # that recovery; the first ACK after it echoes an older timestamp: spurious. Segments both
    # marked lost and SACKed must not be counted out twice (found by a property test: the
    # lost count went negative, pipe overestimated)
    net = run("eifel", lambda n: n.drop(5, 6), ack_spike=(0.0625, 0.0625, 1.0))
    assert net.a.stats["fast_retransmits"] == 1 and net.a.stats["timeouts"] == 1
    assert net.a.stats["spurious_timeouts_undone"] == 1
    assert net.a._lost_out == net.a._retrans_out == net.a._sacked_out == 0


def test_duplicate_acks_for_snd_una_after_a_spurious_timeout_are_a_fast_retransmit_without_sack():
    # [FRTO] §3 step 3a: once a timeout proved spurious, "send_high" is forgotten, so duplicate ACKs
    # may start a fast retransmit. Segment 1 arrives after 2 and 3 and the ACK covering 1-3 is
    # late (return-path spike): the timer expires and resends 1, and that ACK, echoing 1's
    # original timestamp, shows the timeout spurious. Segment 4 was lost, so every duplicate ACK
    # after it carries the SND.UNA of the detection: as after an outage that took the data
    # beyond what the first ACK covers ([FRTO] §5.2). Forgetting "recover" as SND.UNA itself left
    # them no fast retransmit: each released a new segment, the rest of the data went out beyond
    # the hole and the backed-off timer repaired it (eifel-newreno under BURST: 421 s median)
    net = TestNetwork(cfg("eifel-newreno", sack=False), DATA, serialization=0.0012,
                      ack_spike=(0.032, 0.03, 1.5))
    net.hold(1, positions=2)
    net.drop(4)
    net.run()
    assert net.delivered == DATA and not net.a.sack_ok
    assert net.a.stats["timeouts"] == 1 and net.a.stats["spurious_timeouts_undone"] == 1
    assert net.a.stats["fast_retransmits"] == 1
    (spurious,) = net.events_named("spurious-timeout")
    (fr,) = net.events_named("fast-retransmit")
    assert fr[2]["snd_una"] == (net.sent[3].seq - net.iss_a) % (1 << 32)    # segment 4
    assert fr[0] - spurious[0] < 0.1            # three duplicate ACKs later, not a timer later
    assert fr[2]["flight"] <= 15 * MSS
