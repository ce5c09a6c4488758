"""[TCPDEBUG] ch. 5's estimators (Table 5.1, row by row: a series where the condition holds and
one where it does not), the loss episodes and phases, LPA/FPA on series whose answer is known,
and the duration models of App. A-B."""

import math

import pytest

from analyzer import dbce
from analyzer.series import Loss, RttSample


def series(rtts, windows=None, *, start=0.0, gap=0.01):
    """RTT samples of segments sent ``gap`` apart, each with its window (flight) in segments;
    each segment's ACK comes one RTT after it."""
    windows = windows or [10] * len(rtts)
    out = []
    for i, (rtt, w) in enumerate(zip(rtts, windows)):
        sent = start + i * gap
        out.append(RttSample(sent, sent + rtt, rtt, w, True, False, 0, 0))
    return out


def last_signal(name, rtts, windows=None, *, gap=0.1):
    fn = {**dbce.ESTIMATORS, **dbce.VARIANTS}[name]
    return dbce.signals(series(rtts, windows, gap=gap), fn)[-1]


# one (RTTs, windows) where the row's condition holds and one where it does not
ROWS = {
    # (RTT - prevRTT)/(RTT + prevRTT) * (W + Wp)/(W - Wp) > 0: the RTT rises with the window
    "CARD": (([0.10, 0.12], [10, 11]), ([0.12, 0.10], [10, 11])),
    # NTG = firstRTT (W/RTT - Wp/RTTp)/(W - Wp) < 0.5: a window more, but the RTT grew so much
    # the throughput barely moved; against a window more at the same RTT (NTG = 1)
    "Tri-S": (([0.10, 0.10, 0.19], [9, 10, 11]), ([0.10, 0.10, 0.10], [9, 10, 11])),
    # firstRTT/(W - Wp) * (RTT/prevRTT - Wp/W) < 0.5 (as printed: under 0.5 whenever the
    # window changes by a segment at these RTTs); a window twice as large at a tenfold RTT
    "Tri-S (as printed)": (([0.10, 0.10], [9, 10]), ([1.0, 10.0], [1, 2])),
    # (minRTT + maxRTT)/2 < RTT
    "DUAL": (([0.10, 0.20, 0.18], None), ([0.10, 0.20, 0.14], None)),
    # window * (1 - minRTT/RTT) > 3: more than three segments queued
    "Vegas": (([0.10, 0.20], [10, 10]), ([0.10, 0.20], [6, 6])),
    # signed RTT variation (gain 1/4 on RTT - sRTT) > 10 ms
    "BFA": (([0.10, 0.16], None), ([0.10, 0.13], None)),
    # mean of the latest 2 > mean of the 20 before + their standard deviation
    "CIM": (([0.10, 0.11] * 10 + [0.13, 0.12], None), ([0.10, 0.11] * 10 + [0.11, 0.10], None)),
    # window * (1 - minRTT/avgRTT) >= 100 segments queued
    "FAST": (([0.10] + [0.40] * 30, [200] * 31), ([0.10] + [0.40] * 30, [120] * 31)),
    # 1 - 100/window <= minRTT/avgRTT (as printed: any window below 100 segments)
    "FAST (as printed)": (([0.10, 0.10], [50, 50]), ([0.10] + [0.40] * 30, [200] * 31)),
    # (maxRTT + minRTT)/2 - perFlightMaxRTT < 0: this flight's largest RTT above the midpoint
    "DECA": (([0.10, 0.30, 0.22, 0.10, 0.21], None), ([0.10, 0.30, 0.22, 0.10, 0.19], None)),
    # pktInFlight > x (3) and sRTT - minRTT > 20 ms
    "DAIMD": (([0.10] + [0.30] * 3, [10] * 4), ([0.10] + [0.30] * 3, [3] * 4)),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_each_row_of_table_5_1_signals_congestion_exactly_when_its_condition_holds(name):
    (true_rtts, true_w), (false_rtts, false_w) = ROWS[name]
    assert last_signal(name, true_rtts, true_w) is True
    assert last_signal(name, false_rtts, false_w) is False


def test_the_deca_flight_is_one_round_trip():
    # segments 0.1 s apart: the 0.30 sample's flight (segments 1-3) ended when segment 1's ACK
    # came, at 0.4 s; segment 4 starts a flight of its own whose largest RTT is 0.19
    rtts = [0.10, 0.30, 0.22, 0.10, 0.19]
    assert last_signal("DECA", rtts) is False
    # all sent within the first round trip: one flight, whose largest RTT is 0.30
    assert last_signal("DECA", rtts, gap=0.001) is True


def test_undefined_cases_keep_the_previous_state():
    # CARD and Tri-S with an unchanged window: the previous answer stays (NCN before any)
    assert dbce.signals(series([0.10, 0.12, 0.15], [10, 11, 11]), dbce.card) == [False, True,
                                                                              True]
    assert dbce.signals(series([0.10, 0.20], [10, 10]), dbce.tri_s) == [False, False]
    # BFA between -10 ms and +10 ms of variation keeps its state (ch. 2's hysteresis)
    answers = dbce.signals(series([0.10, 0.16, 0.16, 0.16, 0.155]), dbce.bfa)
    assert answers[1] is True and answers[-1] is True
    # CIM before 22 samples: NCN
    assert dbce.signals(series([0.1] * 21 + [5.0]), dbce.cim)[-2] is False


def test_random_08_says_congestion_four_times_in_five_and_repeats_with_its_seed():
    samples = series([0.1] * 5000)
    a = dbce.signals(samples, dbce.random_08, seed=7)
    assert a == dbce.signals(samples, dbce.random_08, seed=7)
    assert 0.78 < sum(a) / len(a) < 0.82


def loss(sent, detected, *, timer=False, flight=10):
    return Loss(sent, detected, timer, flight, 0, "rto" if timer else "fast_retransmit")


def test_losses_of_one_flight_are_one_episode():
    eps = dbce.episodes([loss(1.0, 1.3), loss(1.05, 1.35), loss(1.31, 1.6), loss(2.0, 2.3)])
    assert [(e.start, e.end, e.losses) for e in eps] == [(1.0, 1.05, 2), (1.31, 1.31, 1),
                                                         (2.0, 2.0, 1)]


def test_lpa_fpa_and_lead_on_a_series_whose_answer_is_known():
    """DUAL over: flat RTTs, a rise (CN) ending in a loss episode, flat again, a second rise
    (CN) that ends without loss, flat, and a loss with no rise before it. Two episodes, one
    predicted: LPA 1/2; two congestion phases, one followed by NCN: FPA 1/2."""
    flat, rise = [0.10] * 10, [0.16, 0.18, 0.20]
    rtts = flat + rise + flat + rise + flat + flat
    samples = series(rtts, gap=0.01)
    # episode 1 right after the first rise (segments 13-14 lost); episode 2 in the last flat run
    losses = [loss(0.13, 0.20), loss(0.14, 0.21), loss(0.40, 0.55)]
    sc = dbce.score(samples, losses, dbce.dual)
    assert (sc.episodes, sc.predicted, sc.lpa) == (2, 1, 0.5)
    assert (sc.cn_phases, sc.false_positives, sc.fpa) == (2, 1, 0.5)
    # the congestion phase began at segment 10 (0.10 s), the episode at 0.13 s
    [lead] = sc.lead
    srtt = 0.10
    for r in [0.16, 0.18, 0.20]:
        srtt += (r - srtt) / 8
    assert lead == pytest.approx(0.03 / srtt)
    # the samples of segments sent inside an episode are left out (no RTT there, §5.3.1)
    assert sc.samples == len(rtts) - 3


def test_no_loss_no_lpa_and_no_congestion_phase_no_false_positive():
    sc = dbce.score(series([0.1] * 30), [], dbce.vegas)
    assert sc.lpa is None and sc.episodes == 0
    assert sc.fpa == 1.0 and sc.cn_phases == 0
    empty = dbce.score([], [loss(1.0, 1.2)], dbce.vegas)
    assert empty.samples == 0 and empty.fpa is None and empty.lpa == 0.0


def test_duration_models_match_004s_equations():
    # App. A's worked values and App. B's
    assert dbce.F_SPURIOUS(4) == pytest.approx(2.905, abs=1e-3)
    assert dbce.R_SPURIOUS(4) == pytest.approx(2.714, abs=1e-3)
    assert dbce.RF(4) == pytest.approx(0.556, abs=1e-3)
    assert dbce.RF(16) == pytest.approx(2.200, abs=1e-3)
    assert dbce.A(3) == pytest.approx(0.429, abs=1e-3)
    assert dbce.M(10, 0.5) == pytest.approx(2.2)        # App. B.1.2 and §5.3.2 agree at 1/2
    # §5.4.3: flight 3 and beta > 0.66: the window becomes 2, as an additive decrease makes it
    assert dbce.M(3, 0.7) == pytest.approx(dbce.A(3))
    assert dbce.M(5, 1.0) == 0.0
    # Eq. 5.3 is Eq. 4.1 plus the RTT of detection; Eq. 5.4 Eq. 4.2 plus the timer's t
    assert dbce.F(4) == pytest.approx(dbce.F_SPURIOUS(4) + 1)
    assert dbce.R(4, 3.0) == pytest.approx(dbce.R_SPURIOUS(4) + 3.0)


def test_modelled_duration_change_counts_reactions_and_predicted_losses():
    # every sample CN (Random with p = 1 would; Vegas with a huge window does): each flight
    # whose samples all say CN costs A(x); the predicted episode saves F(x)
    rtts = [0.10] + [0.30] * 9
    samples = series(rtts, [100] * 10, gap=0.35)    # one sample a flight (each after an RTT)
    losses = [loss(3.5, 3.8, flight=40)]
    sc = dbce.score(samples, losses, dbce.vegas)
    assert sc.lpa == 1.0 and sc.reactions == 9
    x = dbce.model_x(40)
    assert sc.additive == pytest.approx(dbce.F(x) - 9 * dbce.A(100))
    beta = 0.10 / 0.30
    assert sc.multiplicative == pytest.approx(dbce.F(x) - 9 * dbce.M(100, beta))
    add, mult = dbce.best_case(samples, losses)
    assert add == pytest.approx(dbce.F(x) - dbce.A(40))
    # a timer-detected loss saves R(x) with its detection time in sRTTs
    timer = [loss(3.5, 4.5, timer=True, flight=40)]
    sc = dbce.score(samples, timer, dbce.vegas)
    srtt = 0.10
    for r in rtts[1:]:
        srtt += (r - srtt) / 8
    assert sc.additive == pytest.approx(dbce.R(x, 1.0 / srtt) - 9 * dbce.A(100))
    assert math.isfinite(sc.multiplicative)
