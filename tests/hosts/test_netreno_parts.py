"""Net Reno's pieces (hosts/tcp/variants/netreno_parts.py) and the policy's hooks, one rule at a
time, on a hand-built sender view with explicit ``now`` (as the engine calls them): the counts
of [NETRENO] §4.2, §5.1-5.3 and §6.2-6.5 in the paper's units (segments of MSS bytes)."""

from types import SimpleNamespace

from hosts.tcp import TcpConfig
from hosts.tcp.scoreboard import Scoreboard
from hosts.tcp.variants import get_variant
from hosts.tcp.variants.base import (ENTER_RECOVERY, LEAVE_RECOVERY, CarryDupacks, MarkLost,
                                     RetransmitHead, SendNew, SetCwnd)
from hosts.tcp.variants.netreno_parts import (AckClock, BackToBack, LimitedData, Markers,
                                              ReorderGuard, SmallWindow, exit_window)

MSS = 1000


def view(**kw) -> SimpleNamespace:
    """A SenderView with the fields the rules read; positions and windows in segments."""
    seg = {k: v * MSS for k, v in kw.items() if k in (
        "cwnd", "snd_una", "snd_max", "flight_size_before_limited_transmit", "pipe", "unsent",
        "snd_wnd", "sacked_out", "flight_size", "recovery_point", "highest")}
    other = {k: v for k, v in kw.items() if k not in seg}
    v = SimpleNamespace(mss=MSS, sack_ok=False, in_recovery=False, in_loss=False, dupacks=0,
                        snd_una=0, snd_max=0, snd_wnd=1000 * MSS, unsent=100 * MSS,
                        sacked_out=0, scoreboard=Scoreboard())
    v.__dict__.update(seg)
    for name in ("flight_size", "flight_size_before_limited_transmit"):
        v.__dict__.setdefault(name, v.snd_max - v.snd_una)
    v.__dict__.update(other)
    v.highest_sacked = lambda: max(seg.get("highest", 0), v.snd_una)
    return v


def policy(name: str):
    return get_variant(name)(TcpConfig(variant=name, sack=get_variant(name).offers_sack))


# ----------------------------------------------------------------------------- NR-SW, [NETRENO] §4.2
def test_early_sends_only_below_ten_segments():
    assert SmallWindow.early_sends(view(cwnd=9))
    assert not SmallWindow.early_sends(view(cwnd=10))
    nr, ls = policy("netreno"), policy("lsnr")
    assert nr.limited_transmit(view(cwnd=3), now=1.0) is True
    assert nr.limited_transmit(view(cwnd=34), now=1.0) is False
    assert ls.limited_transmit(view(cwnd=3), now=1.0) is False      # NetBSD Reno: none


def test_positive_ack_for_k_below_j_carries_dupacks_minus_k():
    sw = SmallWindow()
    sw.on_dupack(view(cwnd=4, snd_una=1, snd_max=5), 1)     # mark at SND.MAX 5
    sw.on_dupack(view(cwnd=4, snd_una=1, snd_max=6), 2)     # one sent early on dupack 1
    # two sent early (j = 2), one acked (k = 1): dupacks 2 - 1 = 1 carried
    assert sw.carry(view(cwnd=4, snd_una=2, snd_max=7)) == 1
    assert sw.carried and sw.flight_before_early_sends(
        view(snd_una=2, flight_size_before_limited_transmit=5)) == 3 * MSS


def test_positive_ack_for_k_at_least_j_clears_the_episode():
    sw = SmallWindow()
    sw.on_dupack(view(cwnd=4, snd_una=1, snd_max=5), 1)
    sw.on_dupack(view(cwnd=4, snd_una=1, snd_max=6), 2)
    assert sw.carry(view(cwnd=4, snd_una=4, snd_max=7)) is None     # k = 3 >= j = 2
    assert sw.mark is None and sw.dupacks == 0


def test_the_policy_returns_the_carry_as_a_decision():
    nr = policy("netreno")
    nr.on_dupack(view(cwnd=4, snd_una=1, snd_max=5), None, 1, now=0.1)
    nr.on_dupack(view(cwnd=4, snd_una=1, snd_max=6), None, 2, now=0.2)
    decision = nr.on_new_ack(view(cwnd=4, snd_una=2, snd_max=7), now=0.3)
    assert isinstance(decision, CarryDupacks) and decision.n == 1
    assert policy("lsnr").on_new_ack(view(cwnd=4, snd_una=2, snd_max=7), now=0.3) is None


# ----------------------------------------------------------------------------- NR-LRX, [NETRENO] §6.2
def test_ack_clock_is_due_at_3_plus_w_plus_3_then_every_half_w():
    clock = AckClock()
    clock.start(3, 34)                      # Fig. 4: W = 34, T_ref = 3
    for _ in range(36):
        assert not clock.due()
        clock.tick()
    assert clock.ticks == 39 and not clock.due()
    clock.tick()
    assert clock.ticks == 40 and clock.due()
    clock.resent()
    assert (clock.resends, clock.last_resend, clock.t_ref, clock.round) == (1, 40, 40, 17)
    for _ in range(19):
        clock.tick()
    assert not clock.due()
    clock.tick()
    assert clock.due()                      # 40 + 17 + 3


def test_a_marker_ends_the_first_rtt_and_three_more_ticks_resend():
    clock = AckClock()
    clock.start(3, 20)
    for _ in range(5):
        clock.tick()
    clock.boundary_seen()                   # NR-MARK ([NETRENO] §6.3)
    assert clock.ticks == 23 and not clock.due()
    for _ in range(3):
        clock.tick()
    assert clock.due()


def test_the_policy_resends_the_head_when_the_clock_is_due():
    nr = policy("netreno")
    nr.on_enter_recovery(view(dupacks=3, snd_max=34, flight_size_before_limited_transmit=34),
                         34 * MSS, 1 << 30, now=1.0)
    rec = view(in_recovery=True, cwnd=17, pipe=17, snd_max=40)
    decisions = [nr.on_dupack(rec, None, n, now=1.0 + n / 1000) for n in range(4, 41)]
    head = [d for d in decisions if isinstance(d, RetransmitHead)]
    assert len(head) == 1 and decisions[-1] is head[0] and head[0].cwnd == 16 * MSS
    assert nr.lrx_last_ticks == 40
    # with SACK the head goes out as is and NR-LSSACK rule 1 takes its segment off cwnd
    ls = policy("lssack-lrx")
    ls.on_enter_recovery(view(dupacks=3, snd_max=34, flight_size_before_limited_transmit=34),
                         34 * MSS, 1 << 30, now=1.0)
    rec = view(in_recovery=True, sack_ok=True, cwnd=17, pipe=17, snd_max=40)
    last = [ls.on_dupack(rec, None, n, now=1.0) for n in range(4, 41)][-1]
    assert isinstance(last, RetransmitHead) and last.cwnd is None


# ----------------------------------------------------------------------------- NR-OOO, [NETRENO] §5.3
def test_partial_ack_near_the_marker_waits_3_minus_d_dupacks():
    nr = policy("netreno")
    nr.on_enter_recovery(view(dupacks=3, snd_max=20, flight_size_before_limited_transmit=20),
                         20 * MSS, 1 << 30, now=1.0)
    nr.on_retransmit(view(in_recovery=True, snd_max=22), 0, MSS, 0.5, now=1.0)   # M = 22
    d = nr.on_partial_ack(view(in_recovery=True, snd_una=21, pipe=8, cwnd=10), now=1.1)
    assert isinstance(d, SetCwnd) and d.cwnd == 9 * MSS and nr.guard.wait == 2   # D = 1
    rec = view(in_recovery=True, cwnd=9, pipe=8, snd_max=23)
    assert nr.on_dupack(rec, None, 1, now=1.2) is None
    assert isinstance(nr.on_dupack(rec, None, 2, now=1.3), RetransmitHead)
    far = nr.on_partial_ack(view(in_recovery=True, snd_una=18, pipe=8, cwnd=10), now=1.4)
    assert isinstance(far, RetransmitHead) and far.cwnd == 8 * MSS      # D = 5: at once


def test_without_the_guard_a_partial_ack_retransmits_at_once():
    ls = policy("lsnr")
    ls.on_enter_recovery(view(dupacks=3, snd_max=20), 20 * MSS, 1 << 30, now=1.0)
    ls.on_retransmit(view(in_recovery=True, snd_max=22), 0, MSS, 0.5, now=1.0)
    d = ls.on_partial_ack(view(in_recovery=True, snd_una=21, pipe=8, cwnd=10), now=1.1)
    assert isinstance(d, RetransmitHead) and d.cwnd == 8 * MSS         # [NETRENO] §5.1 rule 1
    guard = ReorderGuard()
    guard.marker = 25 * MSS
    assert guard.distance(view(snd_una=22)) == 3


# ----------------------------------------------------------------------------- NR-LSSACK, §5.2
def test_each_sack_retransmission_after_the_first_takes_a_segment_off_cwnd():
    ls = policy("lssack")
    ls.on_enter_recovery(view(dupacks=3, snd_max=20, sack_ok=True), 20 * MSS, 1 << 30, now=1.0)
    rec = view(in_recovery=True, sack_ok=True, cwnd=10, snd_max=20)
    assert ls.on_retransmit(rec, 0, MSS, 0.5, now=1.0) is None          # the fast retransmit
    d = ls.on_retransmit(rec, 2 * MSS, 3 * MSS, 0.5, now=1.0)
    assert isinstance(d, SetCwnd) and d.cwnd == 9 * MSS
    p = ls.on_partial_ack(view(in_recovery=True, sack_ok=True, cwnd=9, pipe=6), now=1.2)
    assert isinstance(p, SetCwnd) and p.cwnd == 7 * MSS                 # one segment released
    # without SACK the retransmissions leave cwnd to NR-LSNR's partial-ACK rule
    assert policy("lsnr").on_retransmit(view(in_recovery=True, cwnd=10, snd_max=20),
                                        2 * MSS, 3 * MSS, 0.5, now=1.0) is None


def test_the_full_ack_releases_at_most_one_segment():
    assert exit_window(view(cwnd=10, flight_size=4)) == 5 * MSS
    assert exit_window(view(cwnd=3, flight_size=4)) == 3 * MSS
    assert exit_window(view(cwnd=10, flight_size=0)) == 2 * MSS


# ----------------------------------------------------------------------------- NR-B2B, §6.4
def test_a_full_ack_below_the_marker_starts_the_second_recovery_on_the_next_dupack():
    nr = policy("netreno")
    nr.on_enter_recovery(view(dupacks=3, snd_max=20), 20 * MSS, 1 << 30, now=1.0)
    nr.on_retransmit(view(in_recovery=True, snd_max=30), 4 * MSS, 5 * MSS, 0.5, now=1.0)
    nr.on_new_ack(view(in_recovery=True, snd_una=20, recovery_point=20), now=2.0)
    d = nr.on_ack(view(cwnd=10, snd_una=20, flight_size=8), None, 10 * MSS, now=2.0)
    assert isinstance(d, SetCwnd) and d.cwnd == 9 * MSS                 # "send a new packet"
    assert nr.b2b.wait == 1 and nr.b2b.cwnd == 9 * MSS
    assert nr.on_dupack(view(cwnd=9, snd_una=20, snd_max=29), None, 1, now=2.1) \
        is ENTER_RECOVERY
    assert nr.ssthresh_after_loss(view(flight_size_before_limited_transmit=29), now=2.1) \
        == 4500                                                         # half of 9 again


def test_with_sack_a_full_ack_carrying_a_sack_block_is_suspect():
    b2b = BackToBack()
    assert b2b.suspects(view(sack_ok=True, sacked_out=1, snd_una=20), 0) and b2b.wait == 1
    assert not b2b.suspects(view(sack_ok=True, sacked_out=0, snd_una=20), 0)
    assert not b2b.suspects(view(snd_una=20), 20 * MSS)                 # nothing below M
    assert b2b.suspects(view(snd_una=20), 21 * MSS) and b2b.wait == 2   # D = 1: 3 - 1


# ----------------------------------------------------------------------------- NR-MARK, §6.3
def test_markers_on_dupacks_5_and_7_and_the_first_sacked_one_bounds_the_rtt():
    m = Markers()
    m.start()
    rec = view(in_recovery=True, sack_ok=True, snd_una=0, snd_max=20)
    assert [type(m.on_dupack(rec, n)) for n in range(3, 9)] == \
        [type(None), type(None), SendNew, type(None), SendNew, type(None)]
    assert m.first == 20 * MSS
    assert not m.returned(view(snd_una=0, highest=20))
    assert m.returned(view(snd_una=0, highest=21))
    assert not m.returned(view(snd_una=0, highest=22))                  # once per recovery
    m.start()
    assert m.on_dupack(view(snd_max=20, unsent=0), 5) is None           # nothing new to mark


def test_netreno_sack_sends_the_markers_and_netreno_does_not():
    for name, marks in (("netreno-sack", True), ("lssack", False)):
        p = policy(name)
        p.on_enter_recovery(view(dupacks=3, snd_max=20, sack_ok=True), 20 * MSS, 1 << 30,
                            now=1.0)
        d = p.on_dupack(view(in_recovery=True, sack_ok=True, cwnd=10, pipe=12, snd_max=20),
                        None, 5, now=1.01)
        assert isinstance(d, SendNew) == marks


# ----------------------------------------------------------------------------- NR-LD, §6.5
def test_limited_data_resends_from_snd_una_passing_over_sacked_and_resent_segments():
    sb = Scoreboard()
    for i in range(6):
        sb.add(i * MSS, (i + 1) * MSS, now=0.0)
    sb.on_retransmit(sb.records[0], now=0.1)            # the head's retransmission in flight
    sb.mark_sacked(2 * MSS, 3 * MSS, now=0.2)
    ld = LimitedData()
    rec = view(in_recovery=True, cwnd=4, pipe=2, snd_una=0, snd_max=6, unsent=0, scoreboard=sb)
    ld.restart(rec)
    picks = []
    for _ in range(5):
        d = ld.resend(rec)
        if d is None:
            break
        assert isinstance(d, MarkLost)
        picks.append(d.records[0][0] // MSS)
    assert picks == [1, 3, 4, 5]
    assert LimitedData().resend(view(cwnd=4, pipe=2, unsent=5, scoreboard=sb)) is None
    assert LimitedData().resend(view(cwnd=4, pipe=4, unsent=0, scoreboard=sb)) is None


# ----------------------------------------------------------------------------- Reno
def test_reno_leaves_recovery_on_a_partial_ack_and_halves_its_window():
    reno = policy("reno")
    assert reno.on_partial_ack(view(in_recovery=True), now=1.0) is LEAVE_RECOVERY
    assert reno.limited_transmit(view(cwnd=3), now=1.0) is False
    assert reno.ssthresh_after_loss(view(cwnd=10, snd_wnd=6, flight_size=30), now=1.0) \
        == 3 * MSS
