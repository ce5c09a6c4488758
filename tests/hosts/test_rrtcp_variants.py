"""RR-TCP's remaining forms ([RRTCP]) and the engine rules they need, through the public API:
limited transmit bounded to one cwnd and the sender's own window ([RRTCP] §2.3, §5), DSACK-FA's
fixed FA ratio, DSACK-ES's RTT samples (rrtcp-faes, rrtcp-taes, §4.4), DSACK-HG's histogram
RTO (rrtcp-hg, §5.3) and the -RTX forms' RTX bit (rrtcp-fa-rtx, rrtcp-rtx, §5.1.1)."""

from types import SimpleNamespace

import pytest

import hosts.tcp.variants.rrtcp as rr
from hosts.tcp import TcpConfig, TcpConnection
from hosts.tcp.rtt import HistogramRtoEstimator
from hosts.tcp.sender import RTX_BIT
from hosts.tcp.variants import VARIANTS, LossRecoveryPolicy, register
from hosts.tcp.variants.base import SetDupthresh
from hosts.tcp.variants.rrtcp_rtt import EnhancedRttSampling, chain
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes((i * 7 + i // 256) % 256 for i in range(200_000))
N_SEGMENTS = len(DATA) // MSS
NEW_VARIANTS = ["rrtcp-faes", "rrtcp-taes", "rrtcp-hg", "rrtcp-fa-rtx", "rrtcp-rtx"]


def config(variant, **kw):
    return TcpConfig(variant=variant, mss=MSS, initial_window_segments=10, **kw)


def run(variant, setup=lambda net: None, **kw):
    net = TestNetwork(config(variant, **kw.pop("cfg", {})), DATA, **kw)
    setup(net)
    net.run(until=3000.0)
    assert net.delivered == DATA, "the receiver must deliver the exact byte stream"
    return net


@register
class _NeverFastRetransmits(LossRecoveryPolicy):
    """Waits out every hole: what limited transmit sends while duplicate ACKs arrive."""

    name = "test-never-fr"

    def should_fast_retransmit(self, view, dupacks, *, now):
        return False


def _new_data_after_a_hole(**kw):
    """Ten segments out, the first one held: how many new segments do the duplicate ACKs of
    the other nine, and of what they send, let out?"""
    cfg = config("test-never-fr", **kw)
    a = TcpConnection(cfg, local_port=40000, remote_port=80, iss=1000)
    b = TcpConnection(cfg, local_port=80, remote_port=40000, iss=5000)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.01)
    for seg in a.on_segment(synack, now=0.02):
        b.on_segment(seg, now=0.03)
    a.send(DATA)
    out = a.poll(now=0.03)
    assert len(out) == 10
    queue, sent_after = out[1:], 0
    t = 0.04
    while queue:
        seg = queue.pop(0)
        for ack in b.on_segment(seg, now=t):
            new = a.on_segment(ack, now=t)
            sent_after += len(new)
            queue += new
        t += 0.001
    return sent_after


def test_limited_transmit_sends_at_most_one_cwnd_beyond_the_window():
    # [RRTCP] §2.3: one new segment per duplicate ACK, at most one cwnd (10 segments) in all
    assert _new_data_after_a_hole(limited_transmit_cwnds=1.0) == 10
    assert _new_data_after_a_hole(limited_transmit_cwnds=0.5) == 5
    # RFC 6675 §5 (3) without a bound: a segment for every duplicate ACK, for ever
    assert _new_data_after_a_hole() > 100


def test_the_senders_own_window_bounds_what_is_outstanding():
    # ns-2's window_ ([RRTCP]'s maxwnd): 15 segments beyond SND.UNA, whatever limited transmit says
    assert _new_data_after_a_hole(limited_transmit_cwnds=1.0, send_window_segments=15) == 5


@pytest.mark.parametrize("kw, message", [
    (dict(limited_transmit_cwnds=-1.0), "limited_transmit_cwnds must be >= 0"),
    (dict(send_window_segments=0), "send_window_segments must be >= 1"),
    (dict(fa_ratio=1.5), "fa_ratio must be in"),
])
def test_bad_engine_knobs_are_refused_by_name(kw, message):
    with pytest.raises(ValueError, match=message):
        config("rrtcp", **kw)


# ------------------------------------------------------------------ DSACK-FA's fixed ratio
def test_fa_ratio_fixes_dsack_fas_percentile_and_starts_dsack_tas():
    policy = rr.RrTcpFa(config("rrtcp-fa", fa_ratio=0.5))
    for t, length in enumerate((2, 2, 2, 9, 9, 9)):
        policy.histogram.add(float(t), length)
    assert policy.fa_ratio == 0.5 and rr.dupthresh_for(policy.histogram, policy.fa_ratio) == 3
    assert rr.RrTcpFa(config("rrtcp-fa")).fa_ratio == rr.FA_RATIO
    assert rr.RrTcp(config("rrtcp", fa_ratio=0.7)).fa_ratio == 0.7


def test_rrtcp_dupthresh_is_not_bounded_by_cwnd():
    # [RRTCP] §5.7: the 0.9 cwnd bound is Blanton and Allman's, which keeps their schemes from
    # avoiding longer reorderings; RR-TCP's dupthresh is the histogram's percentile + 1
    policy = rr.RrTcpFa(config("rrtcp-fa"))
    for t in range(10):
        policy.histogram.add(float(t), 30)
    view = SimpleNamespace(cwnd=20 * MSS, mss=MSS, in_recovery=False, in_loss=False,
                           dupthresh=3, highest_sacked=lambda: 1)
    assert policy.on_ack(view, None, 1, now=10.0) == SetDupthresh(31)
    assert policy.target == 31


# ------------------------------------------------------------------ DSACK-ES (§4.4)
def test_es_pairs_the_first_ack_with_the_original_and_the_dsack_with_the_retransmission():
    es = EnhancedRttSampling()
    es.on_retransmit(1, 1001, 1.0, 1.5)       # sent at 1.0, again at 1.5
    es.on_delivered(1, 2, 1.6)                # first ACK at 1.6
    assert es.on_dsack(1, 1001, 2.1) == [pytest.approx(((1.6 - 1.0) + (2.1 - 1.5)) / 2)]
    es.on_retransmit(1001, 2001, 2.0, 2.5)
    assert es.on_dsack(1001, 2001, 2.6) == []     # no first ACK: nothing to pair (Karn)
    es.on_retransmit(2001, 3001, 3.0, 3.5)
    es.on_retransmit(9001, 10001, 90.0, 90.5)     # 80 s later: the first was a loss
    assert list(es.pending) == [9001]


@pytest.mark.parametrize("variant", ["rrtcp-faes", "rrtcp-taes", "rrtcp-hg"])
def test_a_dsacked_retransmission_feeds_the_rto_estimator(variant):
    es = run(variant, lambda n: n.hold(30, positions=4), delay=0.05)
    (sample,) = es.events_named("rtt-sample")
    assert 0.09 < sample[2]["rtt"] < 0.2           # about the path's 100 ms RTT
    base = {"rrtcp-faes": "rrtcp-fa", "rrtcp-taes": "rrtcp", "rrtcp-hg": "rrtcp"}[variant]
    assert run(base, lambda n: n.hold(30, positions=4), delay=0.05).events_named(
        "rtt-sample") == []


def test_chain_flattens_decisions_in_order():
    assert chain(None, None) is None
    assert chain("a", None) == "a"
    assert chain(("a", "b"), None, "c") == ("a", "b", "c")


# ------------------------------------------------------------------ DSACK-HG (§5.3)
def test_hg_rto_is_the_998th_permille_of_the_rtt_samples():
    est = HistogramRtoEstimator(initial_rto=1.0, min_rto=0.01, max_rto=64.0, granularity=0.01)
    for _ in range(998):
        est.sample(0.1)
    est.sample(2.0)
    est.sample(2.0)
    assert est.rto == pytest.approx(0.11)          # 998 of 1000 samples in the 0.1 s bin
    est.sample(2.0)
    assert est.rto == pytest.approx(2.01)          # 3 of 1001 above it: over 0.2 %
    est.on_timeout()
    assert est.rto == pytest.approx(4.02)          # backed off (RFC 6298 (5.5))
    assert est.srtt is not None                    # RFC 6298's, for R


def test_rrtcp_hg_runs_on_the_histogram_estimator_whatever_the_config_says():
    # the estimator is what DSACK-HG is; an OS profile's ([TCPDEBUG]) estimator gives way to it
    for cfg in (config("rrtcp-hg"), config("rrtcp-hg", rto_estimator="linux-2.4")):
        conn = TcpConnection(cfg, local_port=1, remote_port=2)
        assert isinstance(conn.rtt, HistogramRtoEstimator)
    assert not isinstance(TcpConnection(config("rrtcp"), local_port=1, remote_port=2).rtt,
                          HistogramRtoEstimator)


# ------------------------------------------------------------------ -RTX (§5.1.1)
def test_rtx_forms_mark_retransmissions_and_the_receiver_echoes_the_bit():
    rtx = run("rrtcp-rtx", lambda n: n.hold(30, positions=4))
    echoed = [a for a in rtx.acks if a.reserved & RTX_BIT]
    assert len(echoed) == 1                        # the ACK the retransmission drew
    mean = run("rrtcp", lambda n: n.hold(30, positions=4))
    assert not any(a.reserved & RTX_BIT for a in mean.acks)


@pytest.mark.parametrize("variant", ["rrtcp-fa-rtx", "rrtcp-rtx"])
def test_rtx_forms_record_the_originals_length_only(variant):
    # segment 30 arrives after the 4 behind it, its retransmission later: the original drew
    # the first ACK (no RTX bit), whose length is 4; the -MEAN form records the pair's mean
    rtx = run(variant, lambda n: n.hold(30, positions=4))
    assert rtx.a.policy.histogram.lengths() == [4]
    mean = run({"rrtcp-fa-rtx": "rrtcp-fa", "rrtcp-rtx": "rrtcp"}[variant],
               lambda n: n.hold(30, positions=4))
    assert mean.a.policy.histogram.lengths()[0] > 4


def test_rtx_form_measures_the_original_from_its_dsack_when_the_retransmission_wins():
    # segment 30 held until 60 later ones passed, its retransmission among them: the
    # retransmission draws the first ACK (RTX bit echoed), the original's arrival the DSACK,
    # whose ACK has no bit: the original's length, 59 segments ahead of it at the receiver
    rtx = run("rrtcp-fa-rtx", lambda n: n.hold(30, positions=60))
    assert rtx.a.policy.histogram.lengths() == [59]
    mean = run("rrtcp-fa", lambda n: n.hold(30, positions=60))
    (paired,) = mean.a.policy.histogram.lengths()
    assert paired < 59                  # the retransmission's shorter length averaged in


@pytest.mark.parametrize("variant", NEW_VARIANTS)
def test_every_new_form_is_registered_and_delivers_under_reordering_and_loss(variant):
    assert variant in VARIANTS
    net = run(variant, lambda n: (n.hold(30, positions=6), n.drop(90, 91), n.hold(150, positions=3)))
    assert net.a.stats["retransmits"] >= 2
