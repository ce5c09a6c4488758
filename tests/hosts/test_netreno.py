"""Net Reno ([NETRENO]) through the public engine API and the in-memory network of
hosts/testing.py: the paper's traces (Figs. 2-5) and its rules ([NETRENO] §4.2, §5.1-5.3, §6.2-6.5) as
deterministic cases, each against the sender without the rule (the loss-sensitive senders
``lsnr``/``lssack``, NetBSD's ``reno``, or the engine's RFC 6582/6675 senders), and the exact byte
stream under any drops and reordering.

Window scaling is off so that the receiver's advertised window never changes (a changed window
is not a duplicate ACK, RFC 5681 §2), except where the peer's window must not limit the sender;
the paper counts packets: MSS 1000, segment offsets. Data segments are numbered as A sends them
(hosts/testing.py): [NETRENO]'s senders send nothing on duplicate ACKs 1 and 2 at ten segments or more
of cwnd, so in a window of W >= 10 the fast retransmission is segment W + 1."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from hosts.tcp import TcpConfig
from hosts.tcp.variants import VARIANTS, get_variant, register
from hosts.tcp.variants.netreno import NetRenoSack
from hosts.testing import TestNetwork

MSS = 1000
NET_RENO = ("netreno", "netreno-sack", "netreno-ld", "lsnr", "lssack", "reno") + tuple(
    f"{base}-{rules}" for base in ("lsnr", "lssack") for rules in ("sw", "lrx", "b2b", "sw-lrx"))


def run(variant: str, segments: int, *, iw: int, drops=(), holds=(), serialization=0.0,
        sack: bool | None = None, window_scale=None, **kw) -> TestNetwork:
    if sack is None:
        sack = get_variant(variant).offers_sack
    cfg = TcpConfig(variant=variant, sack=sack, mss=MSS, initial_window_segments=iw,
                    window_scale=window_scale, **kw)
    data = bytes((i * 7 + i // 251) % 256 for i in range(segments * MSS))
    net = TestNetwork(cfg, data, serialization=serialization)
    net.drop(*drops)
    for number, positions in holds:
        net.hold(number, positions=positions)
    net.run()
    assert net.delivered == data, "the receiver must deliver the exact byte stream"
    assert net.a.state in ("TIME-WAIT", "CLOSED") and net.b.state == "CLOSED"
    return net


def offset(net: TestNetwork, sent) -> int:
    """The segment's position in the stream (0 = the first data segment)."""
    return (sent.seq - net.sent[0].seq) // MSS


def sent_offsets(net: TestNetwork) -> list[int]:
    return [offset(net, s) for s in net.sent]


def retransmitted(net: TestNetwork) -> list[int]:
    return [offset(net, s) for s in net.retransmissions()]


def fast_retransmits(net: TestNetwork) -> list[dict]:
    return [e[2] for e in net.events_named("fast-retransmit")]


def sent_at(net: TestNetwork, t: float) -> list[int]:
    return [offset(net, s) for s in net.sent if s.time == t]


def test_net_renos_senders_are_registered_with_their_sack_offer():
    assert set(NET_RENO) <= set(VARIANTS)
    assert [get_variant(v).offers_sack for v in ("netreno", "netreno-ld", "lsnr", "reno")] \
        == [False] * 4
    assert all(get_variant(v).offers_sack for v in ("netreno-sack", "lssack", "lssack-sw-lrx"))
    lrx = get_variant("lsnr-sw-lrx")
    assert (lrx.small_window, lrx.lost_retransmission, lrx.back_to_back) == (True, True, False)


# Fig. 2 ([NETRENO] §4.2): a window of three, the packet after a delay-ACKed one lost; its successor's
# ACK is positive (it acknowledges the delayed one), the next two are duplicate ACKs 1 and 2,
# each sending one new packet, and the third brings fast retransmit, not a timeout. Without the
# rule (NetBSD's Reno and the loss-sensitive sender alone) nothing goes out: a timeout
@pytest.mark.parametrize("variant", ["netreno", "lsnr-sw"])
def test_small_window_fig2_sends_on_dupacks_1_and_2_then_fast_retransmits(variant):
    net = run(variant, 6, iw=3, max_cwnd_segments=3, delayed_ack=True, drops=(2,))
    assert sent_offsets(net) == [0, 1, 2, 3, 4, 5, 1]
    times = [s.time for s in net.sent]
    assert times[3] < times[4] < times[5] < times[6]     # one per returning ACK (Fig. 2)
    (fr,) = fast_retransmits(net)
    assert fr["dupacks"] == 3
    assert net.a.stats["timeouts"] == 0


@pytest.mark.parametrize("variant", ["lsnr", "reno"])
def test_without_the_small_window_rule_fig2_times_out(variant):
    net = run(variant, 6, iw=3, max_cwnd_segments=3, delayed_ack=True, drops=(2,))
    assert sent_offsets(net)[:5] == [0, 1, 2, 3, 1]      # nothing new on dupacks 1 and 2
    assert net.a.stats["timeouts"] == 1 and net.a.stats["fast_retransmits"] == 0


def test_no_early_sends_at_ten_segments_or_more():
    # [NETRENO] §4.2: "it is triggered only if the congestion window size is less than ten packets";
    # the engine's RFC 3042 sender (newreno) sends on dupacks 1 and 2 at any window
    net, rfc = run("netreno", 40, iw=10, drops=(1,)), run("newreno", 40, iw=10, drops=(1,))
    assert sent_offsets(net)[:11] == list(range(10)) + [0]
    assert sent_offsets(rfc)[:13] == list(range(12)) + [0]


# [NETRENO] §4.2: a positive ACK for k packets before the third duplicate ACK, j > k sent early: the
# next unacknowledged packet inherits dupacks - k. Four packets, the first late, the second lost:
# dupacks 1 and 2 send the last two packets; the late one's ACK (k = 1 < j = 2) leaves dupacks 1,
# so the two early packets' ACKs make 2 and 3. Without the rule: a timeout
def test_positive_ack_before_dupthresh_carries_dupacks_minus_k():
    setup = dict(iw=4, drops=(2,), holds=((1, 2),))
    net, plain = run("netreno", 6, **setup), run("lsnr", 6, **setup)
    (fr,) = fast_retransmits(net)
    assert fr["dupacks"] == 3
    assert retransmitted(net) == [1] and net.a.stats["timeouts"] == 0
    # the two early packets are not in ssthresh: max(3 packets / 2, 2 MSS)
    assert fr["ssthresh"] == 2 * MSS
    assert plain.a.stats["fast_retransmits"] == 0 and plain.a.stats["timeouts"] == 1


# [NETRENO] §5.1 rule 1: a partial ACK sends its retransmission and nothing else, where RFC 6582 adds
# a new segment to it; so each of the L - 1 partial ACKs of L losses costs one packet of flight,
# which ends near W/2 - c ([NETRENO] §5). Rule 2: the full ACK releases at most one packet
def test_partial_ack_releases_only_the_retransmission():
    setup = dict(iw=20, drops=(1, 3, 5, 7, 9), serialization=0.001)    # one ACK at a time
    net, plain = run("lsnr", 80, **setup), run("newreno", 80, **setup)
    assert retransmitted(net) == retransmitted(plain) == [0, 2, 4, 6, 8]
    for hole in (2, 4, 6, 8):
        rtx = lambda n: next(s for s in n.retransmissions() if offset(n, s) == hole).time
        assert sent_at(net, rtx(net)) == [hole]
        assert len(sent_at(plain, rtx(plain))) == 2              # RFC 6582 §3.2 step 5

    def highest_at_exit(n):
        t = n.events_named("recovery-exit")[0][0]
        assert len(sent_at(n, t)) <= 1
        return max(offset(n, s) for s in n.sent if s.time <= t)

    assert highest_at_exit(net) <= highest_at_exit(plain) - 4    # four partial ACKs
    assert net.a.stats["timeouts"] == plain.a.stats["timeouts"] == 0


def flight_at_exit(net: TestNetwork) -> int:
    t = net.events_named("recovery-exit")[0][0]
    acked = max(e[2]["snd_una"] for e in net.events_named("fast-retransmit"))
    return max(offset(net, s) for s in net.sent if s.time <= t) + 1 - (acked - 1) // MSS


# [NETRENO] §5.2 rule 1: with SACK each retransmission after the fast retransmission takes one segment
# off cwnd, so the flight left at the full ACK is W/2 - c; RFC 6675 (sack) holds it at W/2
def test_loss_sensitive_sack_ends_recovery_with_less_flight_per_loss():
    setup = dict(iw=20, drops=(1, 3, 5, 7, 9), serialization=0.001)
    ls, rfc = run("lssack", 80, **setup), run("sack", 80, **setup)
    assert retransmitted(ls) == retransmitted(rfc) == [0, 2, 4, 6, 8]
    w = 20
    assert ls.a.cwnd < rfc.a.cwnd
    highest = [max(offset(n, s) for s in n.sent if s.time <= n.events_named(
        "recovery-exit")[0][0]) for n in (ls, rfc)]
    assert highest[1] - highest[0] >= 4                          # four losses after the first
    assert highest[1] + 1 - 10 <= w + w // 2                    # RFC 6675: W/2 beyond the hole
    assert ls.a.stats["timeouts"] == rfc.a.stats["timeouts"] == 0


# Figs. 3-4 ([NETRENO] §6.2): W = 34, packets 638-640 (here 0-2) lost and the fast retransmission of
# the first lost too. T = dupacks + retransmissions reaches 3 + 34 + 3 = 40 and the packet is
# sent again: no timeout. Fig. 4 is a SACK trace (37 duplicate ACKs and the three
# retransmissions' ticks); the NewReno form gets there the same way. Without the rule: Fig. 3's
# timeout. Window scaling on: the peer's window must not limit the 34-segment window
@pytest.mark.parametrize("variant,plain", [("netreno-sack", "lssack"), ("netreno", "lsnr"),
                                           ("lssack-lrx", "lssack"), ("lsnr-lrx", "lsnr")])
def test_lost_retransmission_resent_by_ack_clock_fig4(variant, plain):
    setup = dict(iw=34, drops=(1, 2, 3, 35), window_scale=7)    # sent 35th: 0's fast rtx
    net, without = run(variant, 120, **setup), run(plain, 120, **setup)
    assert net.a.policy.lrx_resends == 1 and net.a.policy.lrx_last_ticks == 40
    assert net.a.stats["timeouts"] == 0 and net.a.stats["fast_retransmits"] == 1
    assert retransmitted(net).count(0) == 2
    assert without.a.stats["timeouts"] == 1                     # Fig. 3


class _CountsDupacks(get_variant("lssack-lrx")):
    """Fig. 4's sender (SACK with the ACK clock; no markers, which would end the first RTT
    early) noting the duplicate ACKs received when NR-LRX re-sends."""
    name = "test-netreno-sack-counting"

    def on_dupack(self, view, seg, dupacks, *, now):
        before = self.clock.resends
        decision = super().on_dupack(view, seg, dupacks, now=now)
        if self.clock.resends > before:
            self.dupacks_at_resend = dupacks
        return decision


def test_fig4_sack_trace_counts_37_dupacks_and_3_retransmissions():
    # [NETRENO] §6.2: "At the time dupacks reached 40, 37 duplicate ACKs had been received, with the
    # other three ticks coming from the original three retransmissions"
    register(_CountsDupacks)
    try:
        net = run(_CountsDupacks.name, 120, iw=34, drops=(1, 2, 3, 35), sack=True,
                  window_scale=7)
    finally:
        VARIANTS.pop(_CountsDupacks.name, None)
    assert retransmitted(net)[:4] == [0, 1, 2, 0]               # 638, 639, 640, 638 again
    assert net.a.policy.dupacks_at_resend == 37
    assert net.a.policy.lrx_last_ticks == 37 + 3 == 3 + 34 + 3


def test_ack_clock_does_not_resend_a_retransmission_that_arrives():
    net = run("netreno", 120, iw=34, drops=(1, 2, 3), window_scale=7)
    assert net.a.policy.lrx_resends == 0
    assert retransmitted(net) == [0, 1, 2]


# Fig. 5 ([NETRENO] §6.4): a packet sent during recovery is lost; the full ACK leaves more outstanding
# than was sent after the last retransmission (with SACK: it carries a SACK block). Net Reno
# starts the second recovery on the next duplicate ACK. Without the rule "the connection needs to
# accumulate another three duplicate ACKs for the second recovery" (NetBSD's Reno fast
# retransmits at recover again: it has no RFC 6582 §3.2 step 2); the SACK sender, whose
# retransmission of the hole the scoreboard holds back, waits for the timer
@pytest.mark.parametrize("variant,plain", [("netreno", "lsnr"), ("netreno-sack", "lssack"),
                                           ("lsnr-b2b", "lsnr")])
def test_back_to_back_recovery_fig5_starts_on_the_next_dupack(variant, plain):
    # sent numbers: 1-20 the window, 21 the fast retransmission of offset 0, 22 the first new
    # packet of the recovery (offset 20)
    setup = dict(iw=20, drops=(1, 3, 5, 22))
    net, without = run(variant, 40, **setup), run(plain, 40, **setup)
    first, second = fast_retransmits(net)
    assert second["snd_una"] == first["snd_una"] + 20 * MSS    # at the lost recovery packet
    assert second["dupacks"] == 1                  # "dupacks = 2", the next one triggers it
    assert second["ssthresh"] < first["ssthresh"]  # the window is reduced again
    assert net.a.stats["timeouts"] == 0
    assert retransmitted(net) == [0, 2, 4, 20]
    if get_variant(plain).offers_sack:
        assert without.a.stats["timeouts"] == 1 and without.a.stats["fast_retransmits"] == 1
        return
    assert without.a.stats["timeouts"] == 0
    plain_second = fast_retransmits(without)[1]
    assert (plain_second["snd_una"], plain_second["dupacks"]) == (second["snd_una"], 3)


# NR-OOO ([NETRENO] §5.3): the fast retransmission of offset 0 (sent 11th) overtakes a packet sent
# just before it (the 9th or 10th, displaced by 2 or 1): its partial ACK has D = 2 or 1 < 3, so
# Net Reno sends new data and waits; without the rule the packet is resent at once
def test_reordered_packet_after_retransmission_is_not_resent():
    for held, positions in ((10, 1), (9, 2)):
        setup = dict(iw=10, drops=(1,), holds=((held, positions),))
        net, plain = run("netreno", 40, **setup), run("lsnr", 40, **setup)
        assert retransmitted(net) == [0]
        assert retransmitted(plain) == [0, held - 1]
        assert net.a.stats["timeouts"] == 0


def test_deferred_retransmission_after_3_minus_d_dupacks_when_really_lost():
    # the same partial ACK (D = 1), but the packet was lost: two more duplicate ACKs resend it
    net = run("netreno", 40, iw=10, drops=(1, 10))
    assert retransmitted(net) == [0, 9]
    assert net.a.stats["timeouts"] == 0


class _NoMarks(NetRenoSack):
    name = "test-netreno-sack-no-marks"
    marking = False


# NR-MARK ([NETRENO] §6.3): over half the window lost and the first retransmission too: too few
# duplicate ACKs come back for the ACK clock to count an RTT, so without markers the head waits
# for the timer; the marked new segments of the 5th and 7th duplicate ACK return with SACK
# blocks beyond the original window, end the first RTT, and the head is sent again
@pytest.mark.parametrize("lost", [14, 16])
def test_marked_packets_correct_the_ack_clock(lost):
    register(_NoMarks)
    try:
        drops = tuple(range(1, lost + 1)) + (21,)              # sent 21st: 0's fast rtx
        setup = dict(iw=20, drops=drops, serialization=0.001)
        net, without = run("netreno-sack", 60, **setup), run(_NoMarks.name, 60, **setup)
    finally:
        VARIANTS.pop(_NoMarks.name, None)
    assert net.a.stats["timeouts"] == 0 and net.a.policy.lrx_resends == 1
    assert without.a.stats["timeouts"] == 1 and without.a.policy.lrx_resends == 0
    resent = [s.time for s in net.retransmissions() if offset(net, s) == 0]
    assert len(resent) == 2 and resent[1] < 0.2 < without.a.rtt.rto


# NR-LD ([NETRENO] §6.5, option (a)): at the end of the data, three of the last ten segments and the
# first retransmission lost: without new data too few duplicate ACKs come for the ACK clock, and
# the head waits for the timer; sending segments again from SND.UNA on keeps the clock going
def test_limited_data_resends_keep_the_clock_going():
    setup = dict(iw=10, drops=(1, 2, 3, 11), serialization=0.001)
    net, without = run("netreno-ld", 10, **setup), run("netreno", 10, **setup)
    assert net.a.stats["timeouts"] == 0
    assert without.a.stats["timeouts"] == 1
    assert any(e[2]["rule"] == "net-reno-limited-data" for e in net.events_named("marked-lost"))


def test_limited_data_echoes_read_as_duplicate_acks_after_the_recovery():
    # why NR-LD is not in the netreno bundle: Fig. 4's losses with the peer's 64 KB window
    # full, so recovery has no new data to send. LD sends segments the receiver holds again;
    # their duplicate ACKs come back after the full ACK too, and the next episode counts them
    # (fast retransmits of nothing lost). Net Reno without LD repairs the window in one recovery
    setup = dict(iw=34, drops=(1, 2, 3, 35))
    ld, nr = run("netreno-ld", 120, **setup), run("netreno", 120, **setup)
    assert nr.a.stats["fast_retransmits"] == 1 and nr.a.stats["timeouts"] == 0
    assert ld.a.stats["fast_retransmits"] > 3 and ld.a.stats["timeouts"] == 0


# NetBSD Reno ([NETRENO]'s baseline): the first new ACK ends fast recovery, so each further hole of
# the window is a fast retransmit of its own that halves the window again, or a timeout
def test_reno_halves_once_per_loss_and_times_out_on_three():
    two = run("reno", 60, iw=20, drops=(1, 5), serialization=0.001)
    assert [(f["snd_una"] - 1) // MSS for f in fast_retransmits(two)] == [0, 4]
    assert [f["ssthresh"] // MSS for f in fast_retransmits(two)] == [10, 5]
    three = run("reno", 60, iw=20, drops=(1, 3, 5), serialization=0.001)
    assert three.a.stats["timeouts"] == 1
    ls = run("lsnr", 60, iw=20, drops=(1, 3, 5), serialization=0.001)
    assert ls.a.stats["timeouts"] == 0 and ls.a.stats["fast_retransmits"] == 1


def test_with_a_sack_peer_netreno_runs_the_loss_sensitive_sack_rules():
    # the same rules as netreno-sack but the markers (NR-MARK is SACK-based: netreno-sack's)
    register(_NoMarks)
    try:
        setup = dict(iw=20, drops=(1, 3, 5, 22), sack=True)
        nr, nrs = run("netreno", 40, **setup), run(_NoMarks.name, 40, **setup)
    finally:
        VARIANTS.pop(_NoMarks.name, None)
    assert [(s.seq, s.time) for s in nr.sent] == [(s.seq, s.time) for s in nrs.sent]
    assert nr.a.stats["timeouts"] == 0


rules = st.lists(st.tuples(st.sampled_from(["drop", "hold", "dup"]), st.integers(1, 50),
                           st.integers(1, 8)), max_size=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules, variant=st.sampled_from(NET_RENO), sack=st.booleans(),
       delayed_ack=st.booleans(), iw=st.sampled_from([3, 10, 34]))
def test_net_reno_senders_deliver_the_exact_stream(rules, variant, sack, delayed_ack, iw):
    data = bytes((i * 31 + 7) % 251 for i in range(40_000))
    net = TestNetwork(TcpConfig(variant=variant, sack=sack, delayed_ack=delayed_ack, mss=MSS,
                                initial_window_segments=iw), data)
    for kind, n, k in rules:
        if kind == "drop":
            net.drop(n)
        elif kind == "hold":
            net.hold(n, positions=k)
        else:
            net.duplicate(n)
    net.run(until=3000.0)
    assert net.delivered == data
    assert net.a.state in ("TIME-WAIT", "CLOSED") and net.b.state == "CLOSED"
