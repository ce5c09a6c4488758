"""Delay-based congestion estimators (DBCEs) over a trace's RTT series, scored as [TCPDEBUG] ch. 5
scores them.

Each estimator of [TCPDEBUG] Table 5.1 is one small function of the connection's RTT history
(``History``) that answers, for one RTT sample, congestion (True, "CN"), no congestion (False,
"NCN"), or None where its formula is undefined for that sample; then the estimator keeps the
state of its previous sample (NCN before any). The conditions are the table's; where [TCPDEBUG] leaves
a value open or its formula cannot be meant as printed, the function says what we chose and
why (analyzer/README.md, "Delay-based congestion estimators", lists the choices).

Scoring ([TCPDEBUG] §5.3): the needed retransmissions of a connection are grouped into *loss episodes*
(the losses of one flight, ``episodes``); samples of segments sent inside an episode are left
out (no reliable RTT there, §5.3.1); the rest give each estimator a sequence of CN and NCN
signals, which cut the connection into congestion phases, no-congestion phases and loss
episodes. LPA is the share of loss episodes immediately preceded by a congestion phase; FP the
share of congestion phases not followed by a loss episode, FPA = 1 - FP (§5.3.2). The modelled
change in duration (§5.3.2, App. B) charges A(x) or M(x) for every flight whose samples all
signal congestion (the congestion avoidance reacts at most once a flight, and only when every
sample of it says CN: §5.3.2 footnote 3) and credits F(x) or R(x) for every loss episode a
congestion phase predicted (the loss is avoided).

Everything here is a pure function of the series (``analyzer.series``): time is what the trace
says, randomness (Random(0.8)) comes from a seed.
"""

from __future__ import annotations

import math
import random
from collections import deque

__all__ = ["History", "ESTIMATORS", "VARIANTS", "ROWS", "signals", "episodes", "score",
           "Score", "best_case", "A", "M", "F", "R", "window_cut", "F_SPURIOUS", "R_SPURIOUS",
           "RF", "model_x", "CIM_RECENT", "CIM_HISTORY", "BFA_THRESHOLD", "DAIMD_THRESHOLD",
           "DAIMD_X", "VEGAS_BETA", "FAST_ALPHA", "TRIS_THRESHOLD", "RANDOM_P", "SRTT_GAIN"]

CIM_RECENT, CIM_HISTORY = 2, 20     # Table 5.1: avg(RTT_2) against the preceding 20 samples
BFA_THRESHOLD = 0.010               # Table 5.1: 0.01 s (ch. 2: NCN again below -10 ms)
DAIMD_THRESHOLD = 0.020             # Table 5.1: sRTT - minRTT > 0.02 s
DAIMD_X = 3                         # Table 5.1's "pktInFlight > x": [TCPDEBUG] never gives x
VEGAS_BETA = 3                      # Table 5.1: window * (1 - minRTT/RTT) > 3
FAST_ALPHA = 100                    # Table 5.1: 1 - 100/window against minRTT/avgRTT
TRIS_THRESHOLD = 0.5                # Table 5.1: < 0.5
RANDOM_P = 0.8                      # [TCPDEBUG] §5.4.1: Random(0.8), CN when u >= 0.2
SRTT_GAIN = 1 / 8                   # sRTT: the EWMA [TCPDEBUG] normalises by (weight 1/8, §5.4.1)
BFA_GAIN = 1 / 4                    # Reno's RTT variation gain (RFC 6298's beta), signed


class History:
    """What an estimator sees when it judges one sample: the sample (``rtt``, ``window``: the
    segments in flight when the sampled segment was sent) and the connection's RTT history up
    to and including it. ``prev_*`` are the previous sample's; ``min_rtt``/``max_rtt`` include
    this sample (the sender has just measured it); ``srtt`` is the EWMA with weight 1/8;
    ``recent`` the last 22 RTTs (CIM); ``round_max`` the largest RTT of the current flight
    (DECA: a flight starts with the first segment sent after the previous flight's first
    segment was acknowledged, one round trip); ``bfa_dev`` the signed RTT variation (BFA)."""

    __slots__ = ("rtt", "window", "prev_rtt", "prev_window", "first_rtt", "min_rtt",
                 "max_rtt", "srtt", "recent", "round_max", "round_end", "bfa_dev", "rng",
                 "count")

    def __init__(self, seed=0):
        self.rtt = self.prev_rtt = self.first_rtt = self.min_rtt = self.max_rtt = None
        self.window = self.prev_window = None
        self.srtt = None
        self.recent: deque = deque(maxlen=CIM_RECENT + CIM_HISTORY)
        self.round_max = 0.0
        self.round_end = -math.inf
        self.bfa_dev = 0.0
        self.rng = random.Random(seed)
        self.count = 0

    def push(self, rtt: float, window: int, sent: float, acked: float) -> None:
        """Take the next sample: the segment sent at ``sent``, acknowledged at ``acked``."""
        self.prev_rtt, self.prev_window = self.rtt, self.window
        self.rtt, self.window = rtt, window
        self.count += 1
        if self.first_rtt is None:
            self.first_rtt = self.min_rtt = self.max_rtt = self.srtt = rtt
        else:
            self.min_rtt = min(self.min_rtt, rtt)
            self.max_rtt = max(self.max_rtt, rtt)
            # Reno's variation (RFC 6298 (2.3): against the srtt before this sample), signed
            self.bfa_dev += BFA_GAIN * ((rtt - self.srtt) - self.bfa_dev)
            self.srtt += SRTT_GAIN * (rtt - self.srtt)
        self.recent.append(rtt)
        if sent >= self.round_end:          # a new flight (round trip) begins
            self.round_end = acked
            self.round_max = rtt
        elif rtt > self.round_max:
            self.round_max = rtt


# ---------------------------------------------------------------------- Table 5.1, row by row
def card(h: History):
    """CARD [Jai89], Table 5.1 row 1 (delay gradient against the previous RTT):
    (RTT - prevRTT)/(RTT + prevRTT) * (Window + prevWindow)/(Window - prevWindow) > 0.
    Undefined when the window did not change ([TCPDEBUG] does not say what then): None, the previous
    state stays."""
    if h.prev_rtt is None or h.window == h.prev_window:
        return None
    return ((h.rtt - h.prev_rtt) / (h.rtt + h.prev_rtt)
            * (h.window + h.prev_window) / (h.window - h.prev_window)) > 0


def tri_s(h: History):
    """Tri-S [WC91], Table 5.1 row 2 (throughput gradient against the initial one), in the
    dimensionally consistent form of the normalised throughput gradient: NTG =
    firstRTT * (Window/RTT - prevWindow/prevRTT) / (Window - prevWindow) < 0.5 (the
    throughput gradient W/RTT per segment of window, over the first one, 1/firstRTT). The row as
    printed (``tri_s_as_printed``) is not dimensionless. Undefined when
    the window did not change: None."""
    if h.prev_rtt is None or h.window == h.prev_window:
        return None
    ntg = h.first_rtt * (h.window / h.rtt - h.prev_window / h.prev_rtt) \
        / (h.window - h.prev_window)
    return ntg < TRIS_THRESHOLD


def tri_s_as_printed(h: History):
    """Tri-S, Table 5.1 row 2 exactly as printed:
    firstRTT/(Window - prevWindow) * (RTT/prevRTT - prevWindow/Window) < 0.5 (seconds per
    segment against a pure number: with RTTs of a fraction of a second it is below 0.5 for
    almost every change of window). Undefined when the window did not change: None."""
    if h.prev_rtt is None or h.window == h.prev_window:
        return None
    value = h.first_rtt / (h.window - h.prev_window) \
        * (h.rtt / h.prev_rtt - h.prev_window / h.window)
    return value < TRIS_THRESHOLD


def dual(h: History):
    """DUAL [WC92], Table 5.1 row 3: (minRTT + maxRTT)/2 < RTT (the minimum as propagation
    delay, the maximum as propagation plus a full queue, ch. 2)."""
    return (h.min_rtt + h.max_rtt) / 2 < h.rtt


def vegas(h: History):
    """Vegas [BOP94], Table 5.1 row 4: window * (1 - minRTT/RTT) > 3 (more than Vegas' beta =
    3 segments queued)."""
    return h.window * (1 - h.min_rtt / h.rtt) > VEGAS_BETA


def bfa(h: History):
    """BFA [AR98], Table 5.1 row 5: signed RTT variability > 0.01 s. The variability is Reno's
    (RFC 6298 (2.3), gain 1/4) keeping its sign (ch. 2), and ch. 2 adds that BFA returns to no
    congestion only below -10 ms: between the two thresholds the previous state stays (None)."""
    if h.bfa_dev > BFA_THRESHOLD:
        return True
    if h.bfa_dev < -BFA_THRESHOLD:
        return False
    return None


def cim(h: History):
    """CIM [MNR03], Table 5.1 row 6: avg(RTT_2) > avg(RTT_20) + RTT_std-dev: the mean of the
    two latest samples against the mean of the 20 before them plus their standard deviation
    (the population's). Undefined until 22 samples exist: None (NCN until then)."""
    if len(h.recent) < CIM_RECENT + CIM_HISTORY:
        return None
    values = list(h.recent)
    older, latest = values[:CIM_HISTORY], values[CIM_HISTORY:]
    mean = sum(older) / CIM_HISTORY
    sd = math.sqrt(sum((v - mean) ** 2 for v in older) / CIM_HISTORY)
    return sum(latest) / CIM_RECENT > mean + sd


def fast(h: History):
    """FAST [WJLH06], Table 5.1 row 7, with the inequality turned: 1 - 100/window >=
    minRTT/avgRTT, i.e. window * (1 - minRTT/avgRTT) >= 100 segments queued (FAST's alpha; the
    Vegas-like backlog ch. 2 describes). As printed (``fast_as_printed``, "<=") it is true for
    every window below 100 segments. avgRTT: the sRTT (weight 1/8)."""
    return 1 - FAST_ALPHA / h.window >= h.min_rtt / h.srtt


def fast_as_printed(h: History):
    """FAST, Table 5.1 row 7 exactly as printed: 1 - 100/window <= minRTT/avgRTT."""
    return 1 - FAST_ALPHA / h.window <= h.min_rtt / h.srtt


def deca(h: History):
    """DECA [YQC04], Table 5.1 row 8: (maxRTT + minRTT)/2 - perFlightMaxRTT < 0, the largest
    RTT of the current flight (round trip) against DUAL's midpoint (ch. 2: "the maximum RTT
    observed in the last RTT interval")."""
    return (h.max_rtt + h.min_rtt) / 2 - h.round_max < 0


def daimd(h: History):
    """DAIMD [LSM+07], Table 5.1 row 9: (pktInFlight > x) & (sRTT - minRTT) > 0.02 s. [TCPDEBUG] gives
    no x: we take 3. Ch. 2 mentions a lower threshold for returning to NCN without its value;
    the table's condition alone is used."""
    return h.window > DAIMD_X and h.srtt - h.min_rtt > DAIMD_THRESHOLD


def random_08(h: History):
    """Random(0.8), [TCPDEBUG] §5.4.1: for every valid RTT sample a number u drawn uniformly from
    [0, 1): CN when u >= 0.2, NCN below (seeded per connection, so runs repeat)."""
    return h.rng.random() >= 1 - RANDOM_P


# [TCPDEBUG]'s nine estimators and the baseline, in Table 5.1's order, by the names [TCPDEBUG]'s text uses
ESTIMATORS = {"CARD": card, "Tri-S": tri_s, "DUAL": dual, "Vegas": vegas, "BFA": bfa,
              "CIM": cim, "FAST": fast, "DECA": deca, "DAIMD": daimd,
              "Random(0.8)": random_08}
# the rows as printed where our reading differs (reported beside, never in [TCPDEBUG]'s findings)
VARIANTS = {"Tri-S (as printed)": tri_s_as_printed, "FAST (as printed)": fast_as_printed}
ROWS = {"CARD": "Table 5.1 row 1 [Jai89]", "Tri-S": "Table 5.1 row 2 [WC91]",
        "DUAL": "Table 5.1 row 3 [WC92]", "Vegas": "Table 5.1 row 4 [BOP94]",
        "BFA": "Table 5.1 row 5 [AR98]", "CIM": "Table 5.1 row 6 [MNR03]",
        "FAST": "Table 5.1 row 7 [WJLH06]", "DECA": "Table 5.1 row 8 [YQC04]",
        "DAIMD": "Table 5.1 row 9 [LSM+07]", "Random(0.8)": "§5.4.1",
        "Tri-S (as printed)": "Table 5.1 row 2", "FAST (as printed)": "Table 5.1 row 7"}


def signals(samples, estimator, *, seed=0) -> list:
    """The estimator's CN (True) / NCN (False) answer for each sample in order: samples are
    objects with ``rtt``, ``flight``, ``sent`` and ``acked`` (analyzer.series.RttSample). An
    undefined answer keeps the previous one (NCN before any)."""
    h = History(seed)
    out = []
    state = False
    for s in samples:
        h.push(s.rtt, s.flight, s.sent, s.acked)
        answer = estimator(h)
        if answer is not None:
            state = answer
        out.append(state)
    return out


# ---------------------------------------------------------------------- duration models
def window_cut(x: float, d: float) -> float:
    """The RTTs a connection loses when its window of ``x`` segments is cut by ``d`` and grows
    back by one a round trip, less what it sent meanwhile ([TCPDEBUG] App. B.1):
    d - (x*d - d^2 + d(d-1)/2) / (x + d/2) = d(2d + 1)/(2x + d). d = 1 is A(x) (B.1.1)."""
    if d <= 0:
        return 0.0
    return d * (2 * d + 1) / (2 * x + d)


def A(x: float) -> float:
    """Eq. 5.1: additive decrease by one segment of a flight of ``x``: 1.5/(x + 0.5) RTTs."""
    return 1.5 / (x + 0.5)


def M(x: float, beta: float) -> float:
    """Eq. 5.2's model with §5.3.2's semantics: the window becomes beta*x (beta = minRTT/RTT,
    DAIMD's cwnd*minRTT/currRTT), in whole segments and at least one, so the cut is
    d = x - max(1, floor(beta*x)) (§5.4.3: "flight 3 ... greater than 0.66 will also result in
    a congestion window of two"). App. B.1.2 prints beta(2*beta*x + 1)/(2 + beta), which is
    the same model with the cut d = beta*x: the two agree at beta = 0.5."""
    d = x - max(1, math.floor(beta * x + 1e-9))
    return window_cut(x, d)


def model_x(flight: float) -> float:
    """The x of Eqs. 5.3-5.4 and 4.1-4.3 from the flight before the loss (= 2x), at least 1 (the
    models' logarithm and denominators break down below: a flight of one or two segments is
    modelled as x = 1)."""
    return max(1.0, flight / 2)


def F(x: float) -> float:
    """Eq. 5.3: RTTs saved when a loss that fast retransmit would have detected is predicted
    and avoided (flight 2x before the loss): x + 2 - (3x^2 - x)/(5x + 1)."""
    return x + 2 - (3 * x * x - x) / (5 * x + 1)


def R(x: float, t: float) -> float:
    """Eq. 5.4: RTTs saved when a loss the timer would have detected after ``t`` RTTs is
    predicted and avoided: t + x + log2 x - 1 - (3x^2 + x - 4)/(5x + log2 x - 1) (the logarithm
    is base 2: App. A.2's n with 2^n = x)."""
    lg = math.log2(x)
    return t + x + lg - 1 - (3 * x * x + x - 4) / (5 * x + lg - 1)


def F_SPURIOUS(x: float) -> float:
    """Eq. 4.1 (= A.1): RTTs saved when a spurious fast retransmit is avoided:
    x + 1 - (3x^2 - x)/(5x + 1)."""
    return x + 1 - (3 * x * x - x) / (5 * x + 1)


def R_SPURIOUS(x: float) -> float:
    """Eq. 4.2 (= A.2): RTTs saved when a spurious timeout is avoided:
    x + log2 x - 1 - (3x^2 + x - 4)/(5x + log2 x - 1)."""
    lg = math.log2(x)
    return x + lg - 1 - (3 * x * x + x - 4) / (5 * x + lg - 1)


def RF(x: float) -> float:
    """Eq. 4.3 (= A.3): RTTs saved after the recovery when fast retransmit instead of the timer
    detects a loss: log2 x - 1 - (2x - 4)/(2x + log2 x - 1)."""
    lg = math.log2(x)
    return lg - 1 - (2 * x - 4) / (2 * x + lg - 1)


# ---------------------------------------------------------------------- episodes and phases
class Episode:
    """A loss episode ([TCPDEBUG] §5.3.1): the losses of one flight, from the first transmission of
    its first lost segment (``start``) to that of its last (``end``). ``by_timer``: the first
    loss was detected by the retransmission timer (else by duplicate ACKs); ``detect``: seconds
    from that loss's transmission to its retransmission; ``flight``: segments in flight when
    it was sent."""

    __slots__ = ("start", "end", "by_timer", "detect", "flight", "losses")

    def __init__(self, loss):
        self.start = self.end = loss.sent
        self.by_timer = loss.by_timer
        self.detect = loss.detected - loss.sent
        self.flight = loss.flight
        self.losses = 1


def episodes(losses) -> list:
    """Loss episodes from the needed retransmissions (objects with ``sent``, ``detected``,
    ``by_timer``, ``flight``: analyzer.series.Loss): a loss joins the episode of the first loss
    before it when it was first sent before that loss was detected (resent): until then the two
    were outstanding together, one flight ([TCPDEBUG]: "all losses that occur within the same flight
    ... into a single loss-episode")."""
    out = []
    current = None
    detected = -math.inf
    for loss in sorted(losses, key=lambda l: l.sent):
        if current is not None and loss.sent < detected:
            current.end = loss.sent
            current.losses += 1
            continue
        current = Episode(loss)
        detected = loss.detected
        out.append(current)
    return out


def outside(samples, eps) -> list:
    """The samples of segments not sent inside a loss episode ([TCPDEBUG] §5.3.1)."""
    out = []
    i = 0
    for s in samples:
        while i < len(eps) and eps[i].end < s.sent:
            i += 1
        if i < len(eps) and eps[i].start <= s.sent <= eps[i].end:
            continue
        out.append(s)
    return out


class Score:
    """One estimator on one connection. ``lpa``: None without a loss episode; ``fpa``: 1.0
    without a congestion phase (no prediction was made, so none was false: the reading [TCPDEBUG]'s
    Fig. 5.4 needs for Vegas, "no false predictions in more than 90% of connections"), None
    without samples; ``lead``: for each predicted episode, how long the congestion phase before
    it lasted, in sRTTs (Fig. 5.3); ``additive``/``multiplicative``: the modelled change in
    the connection's duration in RTTs (positive: shorter)."""

    __slots__ = ("samples", "episodes", "predicted", "cn_phases", "false_positives",
                 "lead", "additive", "multiplicative", "reactions", "lpa", "fpa")

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__}


def score(samples, losses, estimator, *, seed=0) -> Score:
    """Score ``estimator`` on one connection's RTT ``samples`` (in transmission order) and
    needed ``losses`` ([TCPDEBUG] §5.3)."""
    eps = episodes(losses)
    kept = outside(samples, eps)
    sig = signals(kept, estimator, seed=seed)
    sc = Score()
    sc.samples, sc.episodes = len(kept), len(eps)
    sc.predicted = sc.cn_phases = sc.false_positives = sc.reactions = 0
    sc.lead = []
    sc.additive = sc.multiplicative = 0.0
    # the phases, in time order: samples (their CN/NCN) and episodes (at their start)
    srtt = None
    phase = None                # "CN", "NCN", "LOSS"
    phase_start = 0.0
    i = 0
    j = 0
    min_rtt = math.inf
    # flights for the reaction model: a flight is cut by an episode and by a NCN sample
    flight_end = -math.inf
    flight_all_cn = False
    flight_last = None

    def close_flight():
        nonlocal flight_all_cn, flight_last
        if flight_last is not None and flight_all_cn:
            x, beta = flight_last
            sc.reactions += 1
            sc.additive -= A(x)
            sc.multiplicative -= M(x, beta)
        flight_all_cn, flight_last = False, None

    while i < len(kept) or j < len(eps):
        if j < len(eps) and (i >= len(kept) or eps[j].start <= kept[i].sent):
            ep = eps[j]
            j += 1
            close_flight()
            flight_end = -math.inf
            if phase == "CN":
                sc.predicted += 1
                unit = srtt if srtt else 1.0
                sc.lead.append((ep.start - phase_start) / unit)
                x = model_x(ep.flight)
                saved = R(x, ep.detect / unit) if ep.by_timer else F(x)
                sc.additive += saved
                sc.multiplicative += saved
            phase = "LOSS"
            continue
        s = kept[i]
        cn = sig[i]
        i += 1
        srtt = s.rtt if srtt is None else srtt + SRTT_GAIN * (s.rtt - srtt)
        min_rtt = min(min_rtt, s.rtt)
        if s.sent >= flight_end:            # a new flight (round trip) of samples
            close_flight()
            flight_end = s.acked
            flight_all_cn = cn
        else:
            flight_all_cn = flight_all_cn and cn
        flight_last = (s.flight, min_rtt / s.rtt)
        kind = "CN" if cn else "NCN"
        if kind != phase:
            if phase == "CN":
                sc.false_positives += 1     # followed by NCN: no loss came
            if kind == "CN":
                sc.cn_phases += 1
            phase, phase_start = kind, s.sent
    close_flight()
    if phase == "CN":
        sc.false_positives += 1             # the connection ended in a congestion phase
    sc.lpa = sc.predicted / sc.episodes if sc.episodes else None
    if not sc.samples:
        sc.fpa = None
    else:
        sc.fpa = 1.0 - sc.false_positives / sc.cn_phases if sc.cn_phases else 1.0
    return sc


def best_case(samples, losses) -> tuple:
    """[TCPDEBUG] §5.4.3 / App. B.3: every loss episode predicted (LPA = 1) and no congestion phase
    without a loss (FPA = 1): each episode saves F(x) or R(x) less one reaction (A or M, at the
    flight of the loss, beta from the last sample before it). (additive, multiplicative) RTTs."""
    eps = episodes(losses)
    kept = outside(samples, eps)
    add = mult = 0.0
    srtt = None
    min_rtt = math.inf
    beta = 1.0
    i = 0
    for ep in eps:
        while i < len(kept) and kept[i].sent < ep.start:
            s = kept[i]
            srtt = s.rtt if srtt is None else srtt + SRTT_GAIN * (s.rtt - srtt)
            min_rtt = min(min_rtt, s.rtt)
            beta = min_rtt / s.rtt
            i += 1
        unit = srtt if srtt else 1.0
        x = model_x(ep.flight)
        saved = R(x, ep.detect / unit) if ep.by_timer else F(x)
        add += saved - A(max(1.0, ep.flight))
        mult += saved - M(max(1.0, ep.flight), beta)
    return add, mult
