"""Net Reno (``netreno``, seed 002) on the engine's NewReno path, through the public engine API and
the in-memory network of hosts/testing.py: the paper's traces (Figs. 2, 4, 5) and its rules
(002 §4.2, §5.1, §5.3, §6.2, §6.4) as deterministic cases, each against plain NewReno (``sack``
with a peer that has no SACK, RFC 6582), and the exact byte stream under any drops and reordering.

Window scaling is off so that the receiver's advertised window never changes (a changed window
is not a duplicate ACK, RFC 5681 §2), and the paper counts packets: MSS 1000, segment offsets."""

from hypothesis import HealthCheck, given, settings, strategies as st

from hosts.tcp import TcpConfig
from hosts.tcp.variants import VARIANTS
from hosts.testing import TestNetwork

MSS = 1000
PLAIN = "sack"          # with sack=False: the engine's RFC 6582 NewReno sender


def run(variant: str, segments: int, *, iw: int, drops=(), holds=(), serialization=0.0,
        **kw) -> TestNetwork:
    cfg = TcpConfig(variant=variant, sack=False, mss=MSS, initial_window_segments=iw,
                    window_scale=None, **kw)
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


def test_netreno_is_registered():
    assert "netreno" in VARIANTS


# Fig. 2 (002 §4.2): a window of three, the packet after a delay-ACKed one lost; its successor's
# ACK is positive (it acknowledges the delayed one), the next two are duplicate ACKs 1 and 2,
# each sending one new packet, and the third brings fast retransmit, not a timeout
def test_small_window_fig2_sends_on_dupacks_1_and_2_then_fast_retransmits():
    net = run("netreno", 6, iw=3, max_cwnd_segments=3, delayed_ack=True, drops=(2,))
    assert sent_offsets(net) == [0, 1, 2, 3, 4, 5, 1]
    times = [s.time for s in net.sent]
    assert times[3] < times[4] < times[5] < times[6]     # one per returning ACK (Fig. 2)
    (fr,) = fast_retransmits(net)
    assert fr["dupacks"] == 3
    assert net.a.stats["timeouts"] == 0


# 002 §4.2: a positive ACK for k packets before the third duplicate ACK, j > k sent early: the
# next unacknowledged packet inherits dupacks - k. Four packets, the first late, the second lost:
# dupacks 1 and 2 send the last two packets; the late one's ACK (k = 1 < j = 2) leaves dupacks 1,
# so the two early packets' ACKs make 2 and 3. NewReno restarts at 0, gets 2: a timeout.
def test_positive_ack_before_dupthresh_carries_dupacks_minus_k():
    setup = dict(iw=4, drops=(2,), holds=((1, 2),))
    net, plain = run("netreno", 6, **setup), run(PLAIN, 6, **setup)
    (fr,) = fast_retransmits(net)
    assert fr["dupacks"] == 3
    assert retransmitted(net) == [1] and net.a.stats["timeouts"] == 0
    # the two early packets are not in ssthresh: max(3 packets / 2, 2 MSS)
    assert fr["ssthresh"] == 2 * MSS
    assert plain.a.stats["fast_retransmits"] == 0 and plain.a.stats["timeouts"] == 1


# 002 §5.1 rule 1: a partial ACK sends its retransmission and nothing else, where RFC 6582 adds
# a new segment to it; so each of the L - 1 partial ACKs of L losses costs one packet of flight,
# which ends near W/2 - c (002 §5). Rule 2: the full ACK releases at most one packet
def test_partial_ack_releases_only_the_retransmission():
    setup = dict(iw=20, drops=(1, 3, 5, 7, 9), serialization=0.001)    # one ACK at a time
    net, plain = run("netreno", 80, **setup), run(PLAIN, 80, **setup)
    assert retransmitted(net) == retransmitted(plain) == [0, 2, 4, 6, 8]

    def sent_at(n, t):
        return [offset(n, s) for s in n.sent if s.time == t]

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


# Fig. 4 / digest check (002 §6.2): W = 34, packets 638-640 (here 0-2) lost and the fast
# retransmission of the first lost too. T = dupacks + retransmissions reaches 3 + 34 + 3 = 40 and
# the packet is sent again: no timeout. Plain NewReno gets no partial ACK and times out
def test_lost_retransmission_resent_by_ack_clock_fig4():
    # sent numbers: 1-34 the window, 35-36 limited transmit, 37 the fast retransmission
    setup = dict(iw=34, drops=(1, 2, 3, 37))
    net, plain = run("netreno", 120, **setup), run(PLAIN, 120, **setup)
    assert net.a.policy.lrx_resends == 1 and net.a.policy.lrx_last_ticks == 40
    assert net.a.stats["timeouts"] == 0 and net.a.stats["fast_retransmits"] == 1
    assert retransmitted(net) == [0, 0, 1, 2]
    assert plain.a.stats["timeouts"] == 1


def test_ack_clock_does_not_resend_a_retransmission_that_arrives():
    net = run("netreno", 120, iw=34, drops=(1, 2, 3))
    assert net.a.policy.lrx_resends == 0
    assert retransmitted(net) == [0, 1, 2]


# Fig. 5 (002 §6.4): a packet sent during recovery is lost; the full ACK leaves more outstanding
# than was sent after the last retransmission. Net Reno starts the second recovery on the next
# duplicate ACK; NewReno's full ACK equals "recover", which RFC 6582 §3.2 step 2 forbids to
# fast retransmit again: a timeout
def test_back_to_back_recovery_fig5_instead_of_timeout():
    # sent numbers: 1-20 the window, 21-22 limited transmit, 23 the fast retransmission of
    # offset 0, 24 the first new packet of the recovery (offset 22)
    setup = dict(iw=20, drops=(1, 3, 5, 24))
    net, plain = run("netreno", 40, **setup), run(PLAIN, 40, **setup)
    first, second = fast_retransmits(net)
    assert second["snd_una"] == first["snd_una"] + 22 * MSS    # at the lost recovery packet
    assert second["dupacks"] == 1                  # "dupacks = 2", the next one triggers it
    assert second["ssthresh"] < first["ssthresh"]  # the window is reduced again
    assert net.a.stats["timeouts"] == 0
    assert retransmitted(net) == [0, 2, 4, 22]
    assert plain.a.stats["timeouts"] == 1 and plain.a.stats["fast_retransmits"] == 1


# NR-OOO (002 §5.3): the fast retransmission of offset 0 (sent 13th) overtakes a packet sent
# just before it (limited transmit's 11th or 12th, displaced by 2 or 1): its partial ACK has
# D = 2 or 1 < 3, so Net Reno sends new data and waits; NewReno resends the packet at once
def test_reordered_packet_after_retransmission_is_not_resent():
    for held, positions in ((12, 1), (11, 2)):
        setup = dict(iw=10, drops=(1,), holds=((held, positions),))
        net, plain = run("netreno", 40, **setup), run(PLAIN, 40, **setup)
        assert retransmitted(net) == [0]
        assert retransmitted(plain) == [0, held - 1]
        assert net.a.stats["timeouts"] == 0


def test_deferred_retransmission_after_3_minus_d_dupacks_when_really_lost():
    # the same partial ACK (D = 1), but the packet was lost: two more duplicate ACKs resend it
    net = run("netreno", 40, iw=10, drops=(1, 12))
    assert retransmitted(net) == [0, 11]
    assert net.a.stats["timeouts"] == 0


def test_with_a_sack_peer_netreno_is_sack():
    cfg = dict(mss=MSS, initial_window_segments=20)
    data = bytes(40 * MSS)
    nets = []
    for v in ("netreno", "sack"):
        net = TestNetwork(TcpConfig(variant=v, **cfg), data)
        net.drop(1, 3, 5, 24)
        nets.append(net.run())
    assert [s.seq for s in nets[0].sent] == [s.seq for s in nets[1].sent]
    assert nets[0].delivered == data


rules = st.lists(st.tuples(st.sampled_from(["drop", "hold", "dup"]), st.integers(1, 50),
                           st.integers(1, 8)), max_size=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules, sack=st.booleans(), delayed_ack=st.booleans(), iw=st.sampled_from([3, 10, 34]))
def test_netreno_delivers_the_exact_stream(rules, sack, delayed_ack, iw):
    data = bytes((i * 31 + 7) % 251 for i in range(40_000))
    net = TestNetwork(TcpConfig(variant="netreno", sack=sack, delayed_ack=delayed_ack, mss=MSS,
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
