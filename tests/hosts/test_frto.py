"""F-RTO ([FRTO], RFC 5682 §3) through the engine's public API and the in-memory
network: after a timeout it retransmits the timed-out segment only, then probes with two new
segments; the ACKs that follow tell a delay spike from a loss. A spurious timeout is answered
as the paper does (halving), or with the full undo or RFC 4015's response."""

from types import SimpleNamespace

import pytest

from hosts.tcp import TcpConfig
from hosts.tcp.variants import get_variant
from hosts.tcp.variants.frto import Frto, halve_response
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes((i * 5) % 251 for i in range(400_000))
SPIKE = (0.05, 0.03, 1.5)   # B's ACKs sent in [50, 80) ms reach A 1.5 s late (FIFO behind them)


def run(variant, setup=lambda n: None, **kw):
    net = TestNetwork(TcpConfig(variant=variant, mss=MSS, initial_window_segments=10), DATA,
                      serialization=0.0012, **kw)
    setup(net)
    net.run()
    assert net.delivered == DATA
    return net


def test_a_delay_spike_is_a_spurious_timeout_and_nothing_is_sent_twice_but_the_first():
    sack = run("sack", ack_spike=SPIKE)
    frto = run("frto", ack_spike=SPIKE)
    for net in (sack, frto):
        assert net.a.stats["timeouts"] == 1
    assert frto.a.stats["spurious_timeouts_undone"] == 1
    assert len(frto.retransmissions()) == 1             # the timed-out segment only
    assert len(sack.retransmissions()) > 5              # go-back-N
    # after the retransmission, the next data segments A sent were new ones (step 2b)
    (to,) = frto.events_named("timeout")
    after = [s for s in frto.sent if s.time > to[0]]
    assert [s.seq for s in after[1:3]] == sorted(s.seq for s in after[1:3])
    assert all(s.seq not in {x.seq for x in frto.sent if x.time <= to[0]} for s in after[1:3])
    assert frto.now < sack.now                           # and the transfer ends sooner


def test_a_lost_flight_is_a_genuine_timeout_and_recovery_goes_on_conventionally():
    # the whole second flight (segments 11-30) is lost: no duplicate ACKs, the timer expires;
    # the retransmission of 11 is acknowledged, the two new segments draw duplicate ACKs that
    # SACK data beyond RecoveryPoint: the timeout was real
    frto = run("frto", lambda n: n.drop(*range(11, 31)))
    assert frto.a.stats["timeouts"] == 1
    assert frto.a.stats["spurious_timeouts_undone"] == 0
    lost = {s.seq for s in frto.sent[10:30]}
    assert lost <= {s.seq for s in frto.retransmissions()}    # every lost segment sent again
    (to,) = frto.events_named("timeout")
    probes = [s for s in frto.sent if s.time > to[0] and s.seq not in lost]
    assert len(probes) >= 2                              # F-RTO's two new segments went out


def test_a_timeout_during_a_fast_recovery_is_conventional():
    # segment 5 and its retransmission are both lost: the timer ends the fast recovery, and
    # F-RTO does not start from inside a recovery (RFC 5682 §3 step 1)
    frto = run("frto", lambda n: n.drop(5, 21))           # transmission 21: 5 sent again
    sack = run("sack", lambda n: n.drop(5, 21))
    assert frto.sent[20].seq == frto.sent[4].seq == 5001
    assert frto.a.stats["timeouts"] == sack.a.stats["timeouts"] == 1
    assert frto.a.stats["spurious_timeouts_undone"] == 0
    assert [s.seq for s in frto.sent] == [s.seq for s in sack.sent]


def _spurious(net):
    (to,) = net.events_named("timeout")
    (sp,) = net.events_named("spurious-timeout")
    return to[2], sp[2]


def test_the_papers_response_keeps_the_window_the_timeout_halved():
    # [FRTO] §3 step 3a (FRTO-RESP-HALVE): cwnd = ssthresh = half the flight at the timer, the
    # RTO's own cut kept; congestion avoidance from there
    to, sp = _spurious(run("frto", ack_spike=SPIKE))
    assert sp["ssthresh"] == to["ssthresh"] == to["flight"] // 2
    assert sp["cwnd"] == sp["ssthresh"]


def test_in_a_first_slow_start_the_other_responses_give_back_the_infinite_ssthresh():
    # RFC 4015: ssthresh = pipe_prev = max(FlightSize, ssthresh) at the timer, cwnd = FlightSize
    # + min(acked, IW); undo: cwnd and ssthresh as before the timer. In the first slow start
    # both restore the initial "arbitrarily high" ssthresh (RFC 5681 §3.1), which halving does not
    to, rfc = _spurious(run("frto-rfc4015", ack_spike=SPIKE))
    assert rfc["ssthresh"] == 1 << 30 and rfc["cwnd"] > to["flight"]
    _, undo = _spurious(run("frto-undo", ack_spike=SPIKE))
    assert undo["ssthresh"] == 1 << 30 and undo["cwnd"] == to["flight"]   # cwnd was the flight


def test_the_halving_response_releases_at_most_three_segments_beyond_the_flight():
    # [FRTO] §4.2 burst avoidance: an ACK that covered most of the flight does not release
    # ssthresh's worth of segments at once; slow start climbs back to ssthresh
    calls = []
    conn = SimpleNamespace(mss=MSS, ssthresh=10 * MSS, flight_size=2 * MSS,
                           resume_after_spurious_timeout=lambda **kw: calls.append(kw))
    response = halve_response(conn)         # the decision; the engine applies it as below
    conn.resume_after_spurious_timeout(cwnd=response.cwnd, ssthresh=response.ssthresh)
    assert calls == [{"cwnd": 5 * MSS, "ssthresh": 10 * MSS}]


def test_an_unknown_response_is_refused_by_name():
    bogus = type("Bogus", (Frto,), {"name": "frto-bogus", "response": "double"})
    with pytest.raises(ValueError, match="frto-bogus: unknown F-RTO response 'double'"):
        bogus(TcpConfig())


def test_the_newreno_forms_answer_as_their_sack_forms():
    assert [get_variant(n).response for n in ("frto-newreno", "frto-newreno-undo",
                                              "frto-newreno-rfc4015")] == \
        [get_variant(n).response for n in ("frto", "frto-undo", "frto-rfc4015")]
    assert not any(get_variant(n).offers_sack for n in ("frto-newreno", "frto-newreno-undo",
                                                        "frto-newreno-rfc4015"))
