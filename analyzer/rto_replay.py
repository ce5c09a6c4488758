"""[TCPDEBUG] ch. 4: replay a trace's retransmission timer under other loss-detection parameters.

The trace fixes the RTTs and the losses ([TCPDEBUG] §4.3.3: "if RTTs and losses occur independent of
TCP loss detection/recovery behavior"); what changes is when the sender would have given up
waiting. For every *wait* of a connection (``analyzer.series.Wait``: the retransmission timer
running from an ACK that advanced with data outstanding, or from a send with nothing
outstanding, RFC 6298 (5.1), (5.3), until the next advance or the first retransmission), a
setting (``Setting``: the estimator and its D, a, b, m, k, minRTO and timer granularity, [TCPDEBUG]
§4.4.2-4.4.4 and Table 4.5) gives the RTO the sender would have had when the wait began, from
the same RTT samples, and so what the wait would have become:

- a wait the ACK ended: a *spurious timeout* when the RTO ran out before that ACK came (the
  segment had arrived); a *spurious fast retransmit* when at least D duplicate ACKs came first;
- a needed retransmission (the segment was lost): detected by fast retransmit at the D-th
  duplicate ACK if that came before the RTO ran out, else by the timer after the RTO: the
  *waiting time*;
- an unneeded retransmission in the trace: still spurious when the RTO (or D duplicate ACKs)
  came before the ACK of the original, else avoided.

The cost of each outcome in RTTs follows [TCPDEBUG] App. A (Eqs. 4.1-4.3): waiting time, plus RF(x)
for a loss the timer detects (slower recovery than after fast retransmit), R(x) for a spurious
timeout, F(x) for a spurious fast retransmit (x: half the flight). A setting's change in a
connection's duration is the baseline's cost less the setting's (positive: shorter); the
baseline is the connection's own sender as the analyzer identified it ([TCPDEBUG] §4.4.2 compares with
each OS's defaults), the best case (§4.4.1, App. A.1) detects every loss with a duplicate ACK
by fast retransmit at the first one, every other after the connection's largest RTT, and is
never spurious.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from hosts.tcp.rtt import LinuxRttEstimator, RttEstimator

from analyzer.dbce import F_SPURIOUS, R_SPURIOUS, RF, model_x
from analyzer.series import TIMER_CLASSES

__all__ = ["Setting", "SETTINGS", "BASELINES", "ScaledLinuxEstimator", "replay_flow",
           "Outcome", "smart_dupthresh", "baseline_for", "best_case_cost"]

WAIT_RTT_GAIN = 1 / 4           # [TCPDEBUG] ch. 4 footnote 3: times in RTTs of an EWMA with weight 1/4


def smart_dupthresh(flight: int) -> int:
    """[TCPDEBUG] §4.4.4's Smart-Config: D = max{1, min{3, F - 2}}, F the current flight size."""
    return max(1, min(3, flight - 2))


@dataclass(frozen=True)
class Setting:
    """One configuration of the loss-detection parameters ([TCPDEBUG] Table 4.5's rows): ``estimator``
    "rfc2988" (srtt + k*rttvar, RFC 2988/6298) or "linux" (Linux 2.4's, srtt + rttvar with its
    own variance, [TCPDEBUG] §1.3: k scales rttvar as k/4, so Linux's own is k = 4 as Table 4.5 lists
    it); ``a``/``b`` the rttvar and srtt gains; ``m`` the srtt factor; ``min_rto`` seconds (for
    Linux the floor of the variance term); ``granularity`` the timer tick; ``dupthresh`` D, or
    "smart" for Smart-Config's rule; ``per_flight``: one RTT sample a flight (else every ACK's)."""

    name: str
    estimator: str = "linux"
    a: float = 0.25
    b: float = 0.125
    m: float = 1.0
    k: float = 4.0
    min_rto: float = 0.2
    granularity: float = 0.01
    initial_rto: float = 3.0
    dupthresh: object = 3
    per_flight: bool = False

    def make_estimator(self):
        common = dict(initial_rto=self.initial_rto, min_rto=self.min_rto, max_rto=120.0,
                      granularity=self.granularity)
        if self.estimator == "linux":
            return ScaledLinuxEstimator(a=self.a, b=self.b, m=self.m, k=self.k, **common)
        return RttEstimator(srtt_gain=self.b, rttvar_gain=self.a, m=self.m, k=self.k, **common)

    def dupthresh_for(self, flight: int) -> int:
        return smart_dupthresh(flight) if self.dupthresh == "smart" else int(self.dupthresh)


class ScaledLinuxEstimator(LinuxRttEstimator):
    """hosts.tcp.rtt.LinuxRttEstimator with [TCPDEBUG] Table 4.5's parameters: srtt gain b, mdev gain
    a, RTO = m*srtt + (k/4)*rttvar, so that Linux's own is k = 4 as Table 4.5 lists it (the
    engine's OS profile writes the same k as 1; the mapping is ours: [TCPDEBUG] does not say how it
    varies k for Linux). With the defaults it is the engine's estimator
    (tests/analyzer/test_rto_replay.py checks it sample by sample)."""

    def __init__(self, *, a: float = 0.25, b: float = 0.125, m: float = 1.0, k: float = 4.0,
                 **kw):
        super().__init__(srtt_gain=b, rttvar_gain=a, m=m, k=k / 4, **kw)


def _family(base: Setting, prefix: str, **values) -> list:
    """``base`` with one parameter changed at a time ([TCPDEBUG] §4.4.2 varies one at a time)."""
    out = []
    for field, options in values.items():
        for v in options:
            label = {"dupthresh": "D", "min_rto": "minRTO", "granularity": "G"}.get(field, field)
            shown = (f"{v * 1000:g} ms" if field in ("min_rto", "granularity")
                     else (f"1/{round(1 / v)}" if field in ("a", "b") and v < 1 else f"{v:g}"))
            out.append(replace(base, name=f"{prefix}, {label} = {shown}", **{field: v}))
    return out


# Table 4.5's stacks as the replay's baselines (the analyzer's profiles, analyzer/profiles.py)
BASELINES = {
    "linux24": Setting("Linux 2.4 (Table 4.5)", "linux", min_rto=0.2, granularity=0.01,
                       initial_rto=3.0, dupthresh=3),
    "winxp": Setting("Windows XP (Table 4.5)", "rfc2988", min_rto=0.2, granularity=0.1,
                     initial_rto=3.0, dupthresh=2, per_flight=True),
    "freebsd410": Setting("FreeBSD 4.10 (Table 4.5)", "rfc2988", min_rto=1.2,
                          granularity=0.01, initial_rto=3.0, per_flight=True),
    "solaris": Setting("Solaris (Table 4.5)", "rfc2988", m=1.25, min_rto=0.4,
                       granularity=0.01, initial_rto=3.375, per_flight=True),
    "rfc5681": Setting("RFC 6298 (the engine's default)", "rfc2988", min_rto=1.0,
                       granularity=0.001, initial_rto=1.0),
}
BASELINES["rdtcp"] = replace(BASELINES["rfc5681"], name="RD-TCP (RFC 6298 timer)")

LINUX = BASELINES["linux24"]
# RFC 2988 as FreeBSD, Solaris and Windows use it ([TCPDEBUG] §4.5: "the proposed standard for an RTO
# estimator (which is also adopted by FreeBSD, Solaris, and Windows)"): one sample a flight,
# its 1 s minimum, a 10 ms clock
RFC2988 = Setting("RFC 2988", "rfc2988", min_rto=1.0, granularity=0.01, initial_rto=3.0,
                  per_flight=True)
SMART = replace(LINUX, k=2.0, min_rto=0.1, dupthresh="smart",
                name="Smart-Config (Linux, k = 2, minRTO = 100 ms, D = max(1, min(3, F-2)))")
# [TCPDEBUG] §4.4.2's ranges: k 2-8, minRTO 100-1000 ms, a and b 1 to 1/32 (m: "observed to be
# optimal", not shown in [TCPDEBUG]; Solaris' 1.25 and 1.5 here); §4.4.3's D = 2, 4; the timer
# granularity the ch. 4 conclusion says no longer dominates
SETTINGS = ([LINUX]
            + _family(LINUX, "Linux", k=(2.0, 3.0, 6.0, 8.0), min_rto=(0.1, 0.4, 1.0),
                      a=(1.0, 0.5, 1 / 32), b=(1.0, 0.5, 1 / 32), m=(1.25, 1.5),
                      dupthresh=(2, 4), granularity=(0.001, 0.1, 0.5))
            + [SMART, RFC2988, replace(RFC2988, name="RFC 2988, every ACK", per_flight=False)]
            + _family(RFC2988, "RFC 2988", k=(2.0, 3.0, 6.0, 8.0), min_rto=(0.1, 0.2, 0.4),
                      a=(1.0, 0.5, 1 / 32), b=(1.0, 0.5, 1 / 32), m=(1.25, 1.5),
                      dupthresh=(2, 4), granularity=(0.001, 0.1, 0.5))
            # Fig. 4.7: Solaris' own timer with a minRTO of 100 ms, not 400
            + _family(BASELINES["solaris"], "Solaris", min_rto=(0.1,)))


def baseline_for(profile: str) -> Setting:
    """The replay setting of an analyzer profile (the sender a trace was identified as)."""
    return BASELINES.get(profile, BASELINES["rfc5681"])


# ---------------------------------------------------------------------- the replay
NOTHING, SPURIOUS_TIMEOUT, SPURIOUS_FAST, BY_FAST, BY_TIMER = range(5)


class Outcome:
    """What one setting makes of one connection's waits: counts, waiting times (RTTs) of the
    losses the timer detects, and the modelled cost (RTTs, App. A): per wait its outcome."""

    __slots__ = ("name", "waits", "losses", "by_fast", "by_timer", "spurious_timeouts",
                 "spurious_fast", "timer_waits", "cost", "per_wait")

    def __init__(self, name: str):
        self.name = name
        self.waits = self.losses = self.by_fast = self.by_timer = 0
        self.spurious_timeouts = self.spurious_fast = 0
        self.timer_waits: list = []
        self.cost = 0.0
        self.per_wait: list = []

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__ if k != "per_wait"}


def _rto_at_waits(samples, waits, setting: Setting) -> list:
    """The RTO the setting's estimator holds when each wait begins, fed with the connection's
    RTT samples in the order their ACKs came (a sample and a wait starting at the same ACK:
    the sample first, as the sender measures before it restarts the timer)."""
    est = setting.make_estimator()
    use = [s for s in samples if (s.per_flight if setting.per_flight else s.per_ack)]
    out = []
    i = 0
    for w in waits:
        while i < len(use) and use[i].acked <= w.start:
            s = use[i]
            est.sample(s.rtt, snd_una=s.una, snd_nxt=s.nxt)
            i += 1
        out.append(est.rto)
    return out


def _units(samples, waits) -> list:
    """For each wait, the RTT unit of [TCPDEBUG] ch. 4 (EWMA of the per-ACK samples, weight 1/4 on the
    newest, footnote 3) at its start; 1 s before any sample."""
    out = []
    unit = None
    i = 0
    use = [s for s in samples if s.per_ack]
    for w in waits:
        while i < len(use) and use[i].acked <= w.start:
            r = use[i].rtt
            unit = r if unit is None else unit + WAIT_RTT_GAIN * (r - unit)
            i += 1
        out.append(unit or 1.0)
    return out


def _rf(x: float) -> float:
    """Eq. 4.3, taken as 0 for x <= 2: a flight of four or fewer grows back as fast after the
    timer (window 1, slow start) as after fast recovery (window x <= 2)."""
    return RF(x) if x > 2 else 0.0


def _judge(w, rto: float, dupthresh: int):
    """(outcome, waiting seconds) of wait ``w`` under an RTO of ``rto`` and dupthresh D."""
    expire = w.start + rto
    # inside a fast recovery duplicate ACKs start no second fast retransmit (RFC 6582 §3.2:
    # they inflate the window), so only the timer can detect a lost retransmission there
    dupacks = () if w.recovering else w.dupacks
    fast = dupacks[dupthresh - 1] if len(dupacks) >= dupthresh else math.inf
    if w.need == "needed":
        return (BY_FAST, fast - w.start) if fast < expire else (BY_TIMER, rto)
    arrived = w.covered if w.need == "unneeded" else w.end     # the ACK of the original
    if arrived is None:
        return NOTHING, 0.0
    if fast < min(expire, arrived):
        return SPURIOUS_FAST, 0.0
    if expire < arrived:
        return SPURIOUS_TIMEOUT, 0.0
    return NOTHING, 0.0


def _cost(outcome: int, seconds: float, unit: float, flight: int) -> float:
    x = model_x(flight)
    if outcome == BY_FAST:
        return seconds / unit
    if outcome == BY_TIMER:
        return seconds / unit + _rf(x)
    if outcome == SPURIOUS_TIMEOUT:
        return R_SPURIOUS(x)
    if outcome == SPURIOUS_FAST:
        return F_SPURIOUS(x)
    return 0.0


def usable_waits(waits) -> list:
    """The waits the replay judges: those whose timer ran the estimator's RTO (not one that
    began in a recovery the timer had fired in: that timer is backed off, RFC 6298 (5.5), and
    its expiry is the recovery's, not a new detection), whose end the trace shows (not cut by
    the end of the capture with nothing acknowledged), and, inside a fast recovery, those whose
    retransmission (if any) the timer made: its timeout detects a lost retransmission or a
    further loss, which another RTO detects sooner or later; a retransmission the recovery
    made itself (a partial ACK's, a SACK hole's) was detected by the recovery, not the timer."""
    return [w for w in waits if not w.backed_off and w.need != "unknown"
            and not (w.recovering and w.retx is not None and w.cls not in TIMER_CLASSES)
            and not (w.need is None and w.end is None)]


def replay_flow(samples, waits, settings) -> list:
    """One ``Outcome`` per setting for one connection's RTT samples and waits
    (analyzer.series)."""
    waits = usable_waits(waits)
    units = _units(samples, waits)
    out = []
    for setting in settings:
        res = Outcome(setting.name)
        rtos = _rto_at_waits(samples, waits, setting)
        for w, rto, unit in zip(waits, rtos, units):
            d = setting.dupthresh_for(w.flight)
            kind, seconds = _judge(w, rto, d)
            res.waits += 1
            if w.need == "needed":
                res.losses += 1
            if kind == BY_FAST:
                res.by_fast += 1
            elif kind == BY_TIMER:
                res.by_timer += 1
                res.timer_waits.append(seconds / unit)
            elif kind == SPURIOUS_TIMEOUT:
                res.spurious_timeouts += 1
            elif kind == SPURIOUS_FAST:
                res.spurious_fast += 1
            res.cost += _cost(kind, seconds, unit, w.flight)
            res.per_wait.append(kind)
        out.append(res)
    return out


def best_case_cost(samples, waits) -> float:
    """[TCPDEBUG] §4.4.1 / App. A.1's oracle: no spurious retransmission; a loss with a duplicate ACK
    detected by fast retransmit at the first one, any other after the connection's largest RTT
    (then recovered as after a timeout: RF(x)). Its cost in RTTs."""
    waits = usable_waits(waits)
    units = _units(samples, waits)
    max_rtt = max((s.rtt for s in samples), default=0.0)
    cost = 0.0
    for w, unit in zip(waits, units):
        if w.need != "needed":
            continue
        if w.dupacks:
            cost += (w.dupacks[0] - w.start) / unit
        else:
            cost += max_rtt / unit + _rf(model_x(w.flight))
    return cost
