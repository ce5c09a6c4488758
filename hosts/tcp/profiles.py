"""Operating-system loss-recovery profiles ([TCPDEBUG], Rewaskar, ch. 3: TCPdebug's per-OS sender
state machines; Table 1.1 = 3.3 = 4.5 and the per-OS text of §3.2).

A profile is a set of engine knobs (TcpConfig fields), so a simulated sender behaves as that
OS's loss detection and recovery did in [TCPDEBUG]'s measurements, and the trace analyzer (analyzer/profiles.py) replays traces with the same parameters:

============  =====  =========  =======  ======================  =====  ============  ========
profile       tick   initial    minRTO   RTO                     D      RTT samples   partial
                     RTO                                                              ACK
============  =====  =========  =======  ======================  =====  ============  ========
rfc5681       1 ms   1 s        1 s      srtt + 4 rttvar         3      every ACK     NewReno
linux-2.4     10 ms  3 s        200 ms   srtt + rttvar (Linux)   3      every ACK     NewReno
windows-xp    100ms  3 s        200 ms   srtt + 4 rttvar         2      once a flight RTO
freebsd-4.10  10 ms  3 s        1.2 s    srtt + 4 rttvar         3      once a flight NewReno
solaris       10 ms  3.375 s    400 ms   1.25 srtt + 4 rttvar    3      once a flight NewReno
ns2           10 ms  3 s        200 ms   srtt + 4 rttvar         3      once a flight NewReno
============  =====  =========  =======  ======================  =====  ============  ========

One more profile is a simulator's: ``ns2``, the engine as ns-2 2.35's one-way agents behave
with their defaults (``Agent/TCP/Sack1`` over ``Agent/TCPSink/Sack1``: tcpTick_ 10 ms,
rtxcur_init_ 3 s, minrto_ 200 ms, windowInit_ 2, one RTT sample per flight, no timestamps, a
receive window that never changes), the reference [RRTCP] and [RDTCP] ran on. Its knobs come
from ``hosts.tcp.ns2``, which maps every ns-2 agent, sink and bound variable (and says which of
them the engine does not act on as ns-2 does); the table's initial RTO and minRTO are
rtxcur_init_ and minrto_.

Sources, [TCPDEBUG] §3.2: Windows XP does not retransmit on a partial ACK (later holes wait for the
RTO) and updates its RTT once per flight; Linux updates per segment with its own variance
(hosts/tcp/rtt.py LinuxRttEstimator), and its nominal D of 3 adapts to reordering in the real
stack ([TCPDEBUG] analyses with 3; the engine's ``rdtcp``/``dsack-inc`` variants model adaptation);
FreeBSD follows RFC 2988 and NewReno closely; Solaris has m = 1.25. Per-flight sampling for
FreeBSD and Solaris is the BSD-derived stacks' one timed segment per RTT (an inference: [TCPDEBUG] says
it of Windows only, and "per segment" of Linux). Not modelled: Windows' RTO "rounding issue",
its SACK peculiarities and its small option-sized retransmissions ([TCPDEBUG] gives no rule for them).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from hosts.tcp.config import TcpConfig
from hosts.tcp.ns2 import Ns2Agent

__all__ = ["OsProfile", "PROFILES", "profile_config", "get_profile"]


@dataclass(frozen=True)
class OsProfile:
    name: str
    description: str
    clock_granularity: float
    initial_rto: float
    min_rto: float
    rto_m: float
    rto_k: float
    dupthresh: int
    rto_estimator: str = "rfc6298"
    rtt_sampling: str = "per-ack"
    partial_ack: str = "newreno"
    extra: tuple = ()               # further (TcpConfig field, value) pairs the profile sets

    def knobs(self) -> dict:
        """The TcpConfig fields this profile sets."""
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name not in ("name", "description", "extra")}
        out.update(self.extra)
        return out


def _ns2_profile() -> OsProfile:
    """ns-2 2.35's defaults for Agent/TCP/Sack1 over Agent/TCPSink/Sack1 (hosts.tcp.ns2), less
    what a scenario sets itself (packet size, window_, the sink's delayed ACKs)."""
    c = Ns2Agent("Sack1", "Sack1").configs().sender
    return OsProfile(
        "ns2", "ns-2 2.35's Agent/TCP/Sack1 and TCPSink/Sack1 defaults (ns Manual, TCP Agents)",
        c.clock_granularity, c.initial_rto, c.min_rto, c.rto_m, c.rto_k, c.dupthresh,
        rtt_sampling=c.rtt_sampling, partial_ack=c.partial_ack,
        extra=tuple((name, getattr(c, name)) for name in (
            "initial_window_segments", "timestamps", "window_scale", "rcv_buffer", "cwnd_model", "pipe_model")))


PROFILES: dict[str, OsProfile] = {p.name: p for p in (
    OsProfile("rfc5681", "RFC 5681/6298/6582: the engine's defaults", 0.001, 1.0, 1.0, 1.0, 4.0, 3),
    OsProfile("linux-2.4", "Linux 2.4.2 ([TCPDEBUG] Table 1.1, §3.2)", 0.010, 3.0, 0.2, 1.0, 1.0, 3,
              rto_estimator="linux-2.4"),
    OsProfile("windows-xp", "Windows XP ([TCPDEBUG] Table 1.1, §3.2)", 0.100, 3.0, 0.2, 1.0, 4.0, 2,
              rtt_sampling="per-flight", partial_ack="wait"),
    OsProfile("freebsd-4.10", "FreeBSD 4.10 / MacOS X ([TCPDEBUG] Table 1.1, §3.2)", 0.010, 3.0, 1.2,
              1.0, 4.0, 3, rtt_sampling="per-flight"),
    OsProfile("solaris", "Solaris ([TCPDEBUG] Table 1.1, §3.2)", 0.010, 3.375, 0.4, 1.25, 4.0, 3,
              rtt_sampling="per-flight"),
    _ns2_profile(),
)}


def get_profile(name: str) -> OsProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown OS profile {name!r}; choose from "
                         f"{', '.join(PROFILES)}") from None


def profile_config(name: str, base: TcpConfig | None = None, **overrides) -> TcpConfig:
    """A TcpConfig with the profile's knobs over ``base`` (default TcpConfig()), then
    ``overrides``. The profiles are for the plain sender (variant "sack", with or without SACK
    negotiated); another variant keeps the RFC's DupThresh of 3 it builds on."""
    base = base or TcpConfig()
    knobs = get_profile(name).knobs()
    if base.variant != "sack" and "variant" not in overrides:
        knobs.pop("dupthresh")
    return replace(base, **{**knobs, **overrides})
