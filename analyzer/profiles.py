"""Sender profiles: the loss detection and recovery parameters of one kind of TCP sender.

TCPdebug ([TCPDEBUG] ch. 3) replays each connection through one state
machine per operating system and keeps the machine that explains every out-of-sequence
segment. Our traces come from the lab's own senders, so the set is scaled to what they can
show: the RFC sender (our engine without RD-TCP), RD-TCP's sender ([RDTCP] §3.1), and the four
historical stacks of the dissertation's Table 1.1/3.3, with the behaviours its text states
([TCPDEBUG] Table 1.1). Parameters the dissertation does not give are marked in ``notes``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hosts.tcp.profiles import get_profile
from hosts.tcp.rtt import ESTIMATORS

__all__ = ["SenderProfile", "PROFILES", "DEFAULT_PROFILES", "get_profiles"]


@dataclass(frozen=True)
class SenderProfile:
    name: str
    description: str
    dupthresh: int                  # D: duplicate ACKs that trigger fast retransmit
    min_rto: float                  # seconds; for Linux's estimator the floor of the variance
    initial_rto: float              # seconds, before any RTT sample (also the SYN's timer)
    granularity: float              # timer granularity: the tolerance of the RTO test
    rto_tolerance: float            # an RTO retransmission may come this much early
    max_rto: float = 60.0           # RFC 6298 (2.5)
    k: float = 4.0                  # RTO = m*srtt + k*rttvar ([TCPDEBUG] Table 1.1)
    m: float = 1.0
    rto_estimator: str = "rfc6298"  # hosts.tcp.rtt.ESTIMATORS: the engine's own estimators
    per_flight_rtt: bool = False    # one RTT sample per flight (else one per ACK, RFC 6298 §3)
    partial_ack: bool = True        # NewReno: a partial ACK retransmits its hole (RFC 6582 §3.2)
    sack_recovery: bool = True      # retransmits holes from the SACK scoreboard (RFC 6675)
    reorder_wait_k: int | None = None   # RD-TCP: wait 3+k dupacks on the reorder bit ([RDTCP] §3.1)
    os_profile: str = ""            # the hosts.tcp.profiles entry its parameters come from
    notes: str = ""

    def estimator(self):
        """A fresh RTO estimator of this profile's kind (the engine's, hosts/tcp/rtt.py)."""
        return ESTIMATORS[self.rto_estimator](
            initial_rto=self.initial_rto, min_rto=self.min_rto, max_rto=self.max_rto,
            granularity=self.granularity, m=self.m, k=self.k)

    def with_k(self, k: int) -> "SenderProfile":
        """This profile with RD-TCP's k set (only for profiles that wait on the reorder bit)."""
        if self.reorder_wait_k is None:
            return self
        return replace(self, reorder_wait_k=k, description=_rdtcp_description(k))


def _rdtcp_description(k: int) -> str:
    return (f"RD-TCP sender ([RDTCP] §3.1): dupthresh 3, or 3+k = {3 + k} when the ACK making the "
            f"third dupack carries the reorder bit; a timer expiry while waiting retransmits "
            f"and enters fast recovery; otherwise as rfc5681")


def _from_os(name: str, os_name: str, description: str, *, rto_tolerance: float,
             granularity: float | None = None, max_rto: float = 60.0, notes: str = "",
             **extra) -> SenderProfile:
    """A profile whose timer and recovery parameters are those the engine's OS profile
    ``os_name`` sets (hosts/tcp/profiles.py: [TCPDEBUG] Table 1.1 and §3.2, one table for the
    simulated senders and for the analyzer); ``granularity`` overrides the timer tick where
    the analyzer needs a coarser tolerance than the engine's clock."""
    os_p = get_profile(os_name)
    return SenderProfile(
        name, description, dupthresh=os_p.dupthresh, min_rto=os_p.min_rto,
        initial_rto=os_p.initial_rto,
        granularity=os_p.clock_granularity if granularity is None else granularity,
        rto_tolerance=rto_tolerance, max_rto=max_rto, k=os_p.rto_k, m=os_p.rto_m,
        rto_estimator=os_p.rto_estimator, per_flight_rtt=os_p.rtt_sampling == "per-flight",
        partial_ack=os_p.partial_ack == "newreno", os_profile=os_name, notes=notes, **extra)


# Table 1.1 of [TCPDEBUG] (= Tables 3.3, 4.5) and the per-OS behaviour its text states, through
# the engine's OS profiles; the analyzer adds its tolerances and RD-TCP's wait.
PROFILES = {p.name: p for p in (
    _from_os(
        "rfc5681", "rfc5681", "RFC 5681 / 6675 / 6582 / 6298 sender: dupthresh 3, SACK or "
        "NewReno recovery, go-back-N after an RTO, RTO from RFC 6298 with a 1 s minimum",
        granularity=0.01, rto_tolerance=0.01,
        notes="RFC 6298 (2.1) initial RTO 1 s, (2.4) minimum 1 s; tolerance 10 ms (a "
              "typical clock granularity G)"),
    _from_os(
        "rdtcp", "rfc5681", _rdtcp_description(3), granularity=0.01, rto_tolerance=0.01,
        reorder_wait_k=3, notes="k = 3 as in [RDTCP] §6 unless set"),
    _from_os(
        "linux24", "linux-2.4", "Linux 2.4.2 ([TCPDEBUG] Table 1.1): dupthresh 3, NewReno, RTO = "
        "srtt + rttvar with Linux's variance floored at 200 ms, one RTT sample per segment",
        rto_tolerance=0.01, max_rto=120.0,
        notes="Linux's estimator as the engine's (hosts/tcp/rtt.py); its "
              "adaptive dupthresh is fixed at 3 as in TCPdebug's machine; max RTO 120 s "
              "(Linux's TCP_RTO_MAX)"),
    _from_os(
        "winxp", "windows-xp", "Windows XP ([TCPDEBUG] Table 1.1, §3.1): dupthresh 2, no response to "
        "partial ACKs (the rest of a window is recovered by RTO), SACK used, 100 ms timer, one "
        "RTT sample per flight",
        rto_tolerance=0.2,
        notes="the RTO test tolerates two granularities: the dissertation calls Windows' "
              "timer unstable and its heuristics deliberately conservative"),
    _from_os(
        "freebsd410", "freebsd-4.10", "FreeBSD 4.10 / MacOS X ([TCPDEBUG] Table 1.1): dupthresh 3, "
        "NewReno, RFC 2988 RTO with a 1.2 s minimum", rto_tolerance=0.01,
        notes="one RTT sample per flight is implied, not stated"),
    _from_os(
        "solaris", "solaris", "Solaris ([TCPDEBUG] Table 1.1): dupthresh 3, RTO = 1.25*srtt + "
        "4*rttvar with a 400 ms minimum, initial RTO 3.375 s", rto_tolerance=0.01,
        notes="NewReno and per-flight sampling are implied, not stated"),
)}

# NetBSD 1.2, the sender of [NETRENO] (§3: "TCP's fast timer expires every 200ms and slow timer
# every 500 ms"): the timer in 500 ms ticks with a 2-tick minimum, one RTT
# sample per flight; for the simulated senders of experiments.netreno_tables (their engine
# configuration: experiments.studies.netreno.scenario.netbsd_config). Not among the defaults: no
# OS profile of [TCPDEBUG]'s is this stack.
PROFILES["netbsd12"] = SenderProfile(
    "netbsd12", "NetBSD 1.2 ([NETRENO] §3): dupthresh 3, RTO in 500 ms ticks with a 1 s minimum, one "
    "RTT sample per flight", dupthresh=3, min_rto=1.0, initial_rto=3.0, granularity=0.5,
    rto_tolerance=0.01, per_flight_rtt=True,
    notes="the NewReno/SACK machine: [NETRENO]'s Reno leaves recovery on a partial ACK, which the "
          "machine reads as NewReno's recovery going on (a timeout then is a multiple loss, as "
          "[NETRENO] §4.1 classes it)")

DEFAULT_PROFILES = tuple(name for name in PROFILES if name != "netbsd12")


def get_profiles(names=DEFAULT_PROFILES, *, rdtcp_k: int = 3) -> tuple[SenderProfile, ...]:
    """The named profiles, RD-TCP's with ``rdtcp_k``; ValueError naming an unknown one."""
    out = []
    for name in names:
        if name not in PROFILES:
            raise ValueError(f"unknown sender profile {name!r}; choose from "
                             f"{', '.join(PROFILES)}")
        out.append(PROFILES[name].with_k(rdtcp_k))
    if not out:
        raise ValueError("no sender profile given")
    return tuple(out)
