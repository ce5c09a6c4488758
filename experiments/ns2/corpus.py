"""ns-2's TCP validation tests built in our simulator: the conformance corpus.

Each test of a suite (``test-suite-SUITE.tcl`` of ns-2 2.35, the ns2-examples package) is
written here as a ``Spec``: the topology (nodes in ns-2's creation order, so node numbers and
hence the traced link are the same), the links' queue limits and delays, the agents (sender and
sink class, their bound variables: the suite's global settings, then the test's), when each
application starts and how much it sends, the error models that drop or delay packets, and when
the test stops. ``run`` builds it with ``sim.nsnet`` over the engine (each agent through
``hosts.tcp.ns2.Ns2Agent``) and returns the trace in ns-2's format; ``experiments.ns2.suites``
turns that into the points the suite compares.

A test that needs what neither the simulator nor the engine has (a RED queue, whose early drops
follow ns-2's random number stream; the tcp suite's topologies; ns-2's Delayer; ECN marks) is
listed with ``not_built`` saying which. A test that is built may still use values the engine
does not act on as ns-2 does: ``Ns2Agent.configs().unmodelled`` names them, and the runner
prints them with a test that differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hosts.tcp.ns2 import AGENT_DEFAULTS, Ns2Agent, Ns2Unsupported
from sim.nsnet import ListErrorModel, NsNetwork

__all__ = ["Flow", "ErrorSpec", "Spec", "SPECS", "RunResult", "run", "spec", "suite_specs",
           "PREOPEN"]

# seconds the engine's connections of flows without a SYN are opened before ns-2's clock starts
PREOPEN = 10.0


@dataclass(frozen=True)
class Flow:
    """One ``create-connection``: sender class, sink class, nodes, flow id, start, amount."""
    agent: str
    sink: str
    src: str
    dst: str
    fid: int
    start: float
    params: dict = field(default_factory=dict)      # the agent's own `$tcp set ...`
    packets: int | None = None                      # FTP produce N / send N*packetSize_


@dataclass(frozen=True)
class ErrorSpec:
    """An ErrorModel/List bound to flow ``fid`` on link a -> b: the counted packets in
    ``packets`` are dropped, or with ``delay`` held back that long."""
    a: str
    b: str
    fid: int
    packets: tuple[int, ...]
    delay: float | None = None


@dataclass(frozen=True)
class Spec:
    suite: str
    name: str
    topology: str = ""
    flows: tuple[Flow, ...] = ()
    stop: float = 0.0
    agent_globals: dict = field(default_factory=dict)   # `Agent/TCP set ...` in effect
    sink_globals: dict = field(default_factory=dict)
    queue_limits: tuple[tuple[str, str, int], ...] = ()
    delays: tuple[tuple[str, str, str], ...] = ()
    links: tuple[tuple[str, str, str, str], ...] = ()   # further duplex links (a, b, bw, delay)
    errors: tuple[ErrorSpec, ...] = ()                  # in the order the test inserts them
    events: bool = False                                # $ns eventtrace-all
    not_built: str = ""                                 # why the test is not built


# ------------------------------------------------------------------------ topologies
# name -> (nodes in creation order, duplex links (a, b, bandwidth, delay), queue limits)
_FOUR = ("s1", "s2", "r1", "k1")
_SIX = ("s1", "s2", "r1", "r2", "s3", "s4")
TOPOLOGIES: dict[str, tuple[tuple[str, ...], tuple, tuple]] = {
    # test-suite-sack.tcl
    "sack/net0": (_FOUR, (("s1", "r1", "8Mb", "5ms"), ("s2", "r1", "8Mb", "5ms"),
                          ("r1", "k1", "800Kb", "100ms")), (("r1", "k1", 6), ("k1", "r1", 6))),
    "sack/net1": (_FOUR, (("s1", "r1", "10Mb", "5ms"), ("s2", "r1", "10Mb", "5ms"),
                          ("r1", "k1", "1.5Mb", "100ms")), (("r1", "k1", 23), ("k1", "r1", 23))),
    "sack/net4": (_FOUR, (("s1", "r1", "10Mb", "5ms"), ("s2", "r1", "10Mb", "5ms"),
                          ("r1", "k1", "1.5Mb", "20ms")), (("r1", "k1", 25), ("k1", "r1", 25))),
    # test-suite-newreno.tcl, -testReno.tcl, -LimTransmit.tcl: 8Mb 0ms feeders, 800Kb 100ms
    "net4": (_FOUR, (("s1", "r1", "8Mb", "0ms"), ("s2", "r1", "8Mb", "0ms"),
                     ("r1", "k1", "800Kb", "100ms")), (("r1", "k1", 8), ("k1", "r1", 8))),
    "net4a": (_FOUR, (("s1", "r1", "8Mb", "0ms"), ("s2", "r1", "8Mb", "0ms"),
                      ("r1", "k1", "800Kb", "100ms")), (("r1", "k1", 80), ("k1", "r1", 80))),
    "net4b": (_FOUR, (("s1", "r1", "8Mb", "0ms"), ("s2", "r1", "8Mb", "0ms"),
                      ("r1", "k1", "800Kb", "200ms")), (("r1", "k1", 8), ("k1", "r1", 8))),
    # test-suite-frto.tcl
    "frto/net4": (_FOUR, (("s1", "r1", "8Mb", "0ms"), ("s2", "r1", "8Mb", "0ms"),
                          ("r1", "k1", "800Kb", "10ms")), (("r1", "k1", 8), ("k1", "r1", 8))),
}
RED = "a RED queue (its early drops draw on ns-2's random number stream)"
TCP_SUITE = "test-suite-tcp.tcl's topologies, not yet written here"
FRTO_TAHOE = "F-RTO on the Tahoe sender, which the engine's F-RTO does not have"


# ------------------------------------------------------------------------ the suites
def _sack() -> list[Spec]:
    g = {"minrto_": 1}          # the suite's "Agent/TCP set minrto_ 1"

    def one(name, window, start, *, burst=False, **kw):
        glob = {**g, **({"maxburst_": 4} if burst else {})}
        return Spec("sack", name, "sack/net0",
                    (Flow("Sack1", "Sack1", "s1", "k1", 0, start, {"window_": window}),),
                    5.0, glob, **kw)

    def two(name, *, burst=False):
        glob = {**g, **({"maxburst_": 4} if burst else {})}
        return Spec("sack", name, "sack/net1", (
            Flow("Sack1", "Sack1", "s1", "k1", 0, 1.0, {"window_": 50, "bugFix_": False}),
            Flow("Sack1", "Sack1", "s2", "k1", 1, 1.75, {"window_": 50, "bugFix_": False},
                 packets=100)), 6.0, glob, delays=(("s1", "r1", "3ms"), ("r1", "s1", "3ms")))

    dupacks = (Flow("Sack1", "Sack1", "s1", "k1", 0, 0.1, {"window_": 200}),)
    return [
        one("sack1", 14, 1.0), one("sack1z", 14, 0.0, burst=True), one("sack1a", 20, 0.0),
        one("sack1aa", 20, 0.0, burst=True), one("sack1b", 26, 0.0), one("sack1c", 27, 0.0),
        Spec("sack", "sack3", "sack/net0", (
            Flow("Sack1", "Sack1", "s1", "k1", 0, 1.0, {"window_": 100, "bugFix_": False}),
            Flow("Sack1", "Sack1", "s2", "k1", 1, 0.5, {"window_": 16, "bugFix_": False})),
            4.0, g, queue_limits=(("r1", "k1", 8), ("k1", "r1", 8))),
        two("sack5"), two("sack5a", burst=True),
        Spec("sack", "sackB2", "sack/net0", (
            Flow("Sack1", "Sack1", "s1", "k1", 0, 1.0, {"window_": 50}),
            Flow("Sack1", "Sack1", "s2", "k1", 1, 1.0, {"window_": 20})),
            8.0, {**g, "windowInit_": 1}, queue_limits=(("r1", "k1", 9),)),
        Spec("sack", "sackB4", not_built=RED), Spec("sack", "sackB4a", not_built=RED),
        Spec("sack", "FalsePipe", not_built=RED), Spec("sack", "FalsePipe1", not_built=RED),
        Spec("sack", "sack_dupacks", "sack/net4", dupacks, 3.0, g),
        Spec("sack", "sack_finiteflow", "sack/net4",
             (Flow("Sack1", "Sack1", "r1", "k1", 0, 0.01, {"window_": 200}, packets=21),),
             3.0, g, links=(("r1", "k1", "100Mb", "5ms"),),
             queue_limits=(("r1", "k1", 4), ("k1", "r1", 4))),
        Spec("sack", "sack_dupacks1", "sack/net4", dupacks, 3.0, {**g, "numdupacksFrac_": 4}),
    ]


# the newreno suite's drop lists
_L0, _L1 = (14, 26, 28), (14, 15, 16, 17, 18, 19, 20, 21, 25)
_L2, _L3 = (24, 25, 26, 27, 28, 29, 31, 33, 36), (24, 25, 26, 28, 31, 35, 40, 45, 46, 47, 48)
_L4 = (*range(15, 31), 37)
_L5 = (24, 25, 26, 28, 31, 35, 40, 45, 46, 47, 48, 51)


def _newreno() -> list[Spec]:
    # the suite's globals: minrto_ 1, rtxcur_init_ 6, the older RTO arithmetic, and Newreno's
    # RFC 2582 options off (tests turn them on: "A" newreno_changes1_, "B" all three)
    g = {"minrto_": 1, "rtxcur_init_": 6.0, "precisionReduce_": False,
         "updated_rttvar_": False, "newreno_changes1_": 0, "partial_window_deflation_": 0}
    A = {"newreno_changes1_": 1}
    B = {"newreno_changes1_": 1, "partial_window_deflation_": 1, "exit_recovery_fix_": 1}
    B0 = {"partial_window_deflation_": 1, "exit_recovery_fix_": 1}
    RFC2582 = {"newreno_changes1_": 1, "partial_window_deflation_": 1}

    def setup(name, agent, drops, params=None, *, topology="net4", stop=6.0, window=28,
              sink_params=None, errors=()):
        sink = "Sack1" if agent == "Sack1" else ""
        return Spec("newreno", name, topology,
                    (Flow(agent, sink, "s1", "k1", 1, 1.0, {"window_": window}),), stop,
                    {**g, **(params or {})}, sink_params or {},
                    errors=(*errors, ErrorSpec("r1", "k1", 1, tuple(drops))))

    def reorder(name, agent, params, delayed=(25,)):
        # net4a; packets of flow 1 on s1 -> r1 held back 50 ms (ErrorModel delay_pkt_)
        return setup(name, agent, (100000,), params, topology="net4a",
                     errors=(ErrorSpec("s1", "r1", 1, delayed, delay=0.05),))

    sd1, sd0, bF, bT = {"singledup_": 1}, {"singledup_": 0}, {"bugFix_": False}, \
        {"bugFix_": True}
    LC, TS = {"lessCareful_": True}, {"timestamps_": True}
    ack_f = (ErrorSpec("k1", "r1", 1, (23, 24, 25, 26)),)
    return [
        setup("reno", "Reno", _L0, {**sd1, **bF}),
        setup("reno_noLT", "Reno", _L0, {**sd0, **bF}),
        setup("newreno", "Newreno", _L0, {**sd1, **bF}),
        setup("newreno_noLT", "Newreno", _L0, {**sd0, **bF}),
        setup("newreno_B", "Newreno", _L0, {**sd1, **bF, **B}),
        setup("newreno_B_noLT", "Newreno", _L0, {**sd0, **bF, **B}),
        setup("reno1", "Reno", _L1, bF),
        setup("newreno1", "Newreno", _L1, bF),
        setup("newreno1_BF", "Newreno", _L1, bT),
        setup("newreno1_A", "Newreno", _L1, {**sd1, **bF, **A}),
        setup("newreno1_A_noLT", "Newreno", _L1, {**sd0, **bF, **A}),
        setup("newreno1_A_BF", "Newreno", _L1, {**sd1, **bT, **A}),
        setup("newreno1_A_BF_LC", "Newreno", _L1, {**sd1, **bT, **LC, **A}),
        setup("newreno1_B0", "Newreno", _L1, {**bF, **B0}),
        setup("newreno1_B", "Newreno", _L1, {**sd1, **bF, **B}),
        setup("newreno1_B_BF", "Newreno", _L1, {**sd1, **bT, **B}),
        setup("newreno1_B_BF_LC", "Newreno", _L1, {**sd1, **bT, **B}),
        setup("newreno1_B_noLT", "Reno", _L0, {**sd0, **bF}),     # runs reno's body
        setup("newreno1A_A", "Newreno", _L2, {**sd1, **bF, **A}),
        setup("newreno1A_A_BF", "Newreno", _L2, {**sd1, **bT, **A}),
        setup("newreno1A_A_BF_LC", "Newreno", _L2, {**sd1, **bT, **A}),
        setup("newreno1A_A_noLT", "Newreno", _L2, {**sd0, **bF, **A}),
        setup("reno2", "Reno", _L3, {**sd1, **bF}),
        setup("reno2_noLT", "Reno", _L3, {**sd0, **bF}),
        setup("reno2_bugfix", "Reno", _L3, {**sd1, **bT}),
        setup("reno2_bugfix_noLT", "Reno", _L3, {**sd0, **bT}),
        setup("newreno2_A", "Newreno", _L3, {**sd1, **bF, **A}),
        setup("newreno2_A_noLT", "Newreno", _L3, {**sd0, **bF, **A}),
        setup("newreno2_A_bugfix", "Newreno", _L3, {**bT, **A}),
        setup("newreno2_A_bugfix_LC", "Newreno", _L3, {**bT, **LC, **A}),
        setup("newreno2_B", "Newreno", _L3, {**sd1, **bF, **B}),
        setup("newreno2_B_noLT", "Newreno", _L3, {**sd0, **bF, **B}),
        setup("newreno2_B_bugfix", "Newreno", _L3, {**bT, **B}),
        setup("newreno2_B_bugfix_LC", "Newreno", _L3, {**bT, **LC, **B}),
        reorder("newreno5", "Newreno", {**bT, **sd1}),
        reorder("sack5", "Sack1", {**bT, **sd1}),
        reorder("newreno5_LC", "Newreno", {**bT, **LC, **sd1}),
        reorder("newreno5_noLT", "Newreno", {**bT, **sd0}),
        reorder("newreno5_noLT_LC", "Newreno", {**bT, **LC, **sd0}),
        reorder("newreno5_noBF", "Newreno", {**bF, **sd1}),
        reorder("newreno5_noLT_noBF", "Newreno", {**bF, **sd0}),
        reorder("reno5", "Reno", {**bT, **sd1}),
        reorder("reno5_noBF", "Reno", {**bF, **sd1}),
        reorder("reno5_noLT_noBF", "Reno", {**bF, **sd0}),
        reorder("reno5a", "Reno", {**bT, **sd1}, (25, 31, 35, 40)),
        reorder("reno5a_noLT_noBF", "Reno", {**bF, **sd0}, (25, 31, 35, 40)),
        setup("newreno6", "Newreno", (14, 26, 28, 33), {**sd1, **bF}),
        setup("newreno_rto_loss", "Newreno", _L4, RFC2582),
        setup("newreno_rto_loss_ack", "Newreno", _L4, {**RFC2582, "bugFix_ack_": True}),
        setup("newreno_rto_loss_ts", "Newreno", _L4, {**RFC2582, **TS},
              sink_params={"ts_echo_rfc1323_": True}),
        setup("newreno_rto_loss_tsh", "Newreno", _L4, {**RFC2582, **TS, "bugFix_ts_": True},
              sink_params={"ts_echo_rfc1323_": True}),
        setup("newreno_rto_dup", "Newreno", _L5),
        setup("newreno_rto_dup_ack", "Newreno", _L5, {"bugFix_ack_": True}),
        setup("newreno_rto_loss_ackf", "Newreno", (*range(15, 31), 43),
              {**RFC2582, "bugFix_ack_": True}, errors=ack_f),
        setup("newreno_rto_dup_ts", "Newreno", _L5, TS),
        setup("newreno_rto_dup_tsh", "Newreno", _L5, {**TS, "bugFix_ts_": True}),
        *(setup(f"{kind}{n}", "Newreno", drops,
                {"newreno_changes1_": 1 if kind == "impatient" else 0,
                 "partial_window_deflation_": 1, **sd1},
                topology="net4b", stop=stop, window=window)
          for n, drops, stop, window in ((1, range(15, 28), 10.0, 16), (2, range(15, 20), 10.0, 16),
                                         (3, (15, 16, 17, 18, 19, 22, 27), 10.0, 16),
                                         (4, range(30, 56), 20.0, 32))
          for kind in ("impatient", "slow")),
    ]


# testReno, frto and LimTransmit: 1000-byte packets with the header inside (useHeaders_
# false), a 100 ms (frto, testReno) or 500 ms (LimTransmit) tick, the older timer rules
_OLD_TIMERS = {"tcpTick_": 0.1, "rfc2988_": False, "precisionReduce_": False,
               "rtxcur_init_": 6.0, "updated_rttvar_": False, "useHeaders_": False}


def _test_reno() -> list[Spec]:
    g = {**_OLD_TIMERS, "windowInit_": 1, "singledup_": 0, "minrto_": 0, "syn_": False,
         "delay_growth_": False}
    sink_g = {"SYN_immediate_ack_": False}
    out = []
    for suffix, window, drops in (("", 5, (15, 18)), ("2", 8, (17,))):
        for agent, name in (("Tahoe", "Tahoe_TCP"), ("Tahoe", "Tahoe_TCP_without_Fast_Retransmit"),
                            ("Reno", "Reno_TCP"), ("Newreno", "NewReno_TCP"),
                            ("Sack1", "Sack_TCP")):
            test = f"{name}{suffix}" if "without" not in name else \
                name.replace("TCP", f"TCP{suffix}", 1)
            sink = "Sack1/DelAck" if agent == "Sack1" else "DelAck"
            # (the "without" tests: Agent/TCP set noFastRetrans_ true)
            glob = {**g, "noFastRetrans_": True} if "without" in name else g
            out.append(Spec("testReno", test, "net4",
                            (Flow(agent, sink, "s1", "k1", 1, 1.0, {"window_": window}),),
                            4.01, glob, sink_g, errors=(ErrorSpec("r1", "k1", 1, drops),),
                            events=True))
    return out


def _lim_transmit() -> list[Spec]:
    g = {**_OLD_TIMERS, "tcpTick_": 0.5, "minrto_": 1, "singledup_": 0, "bugFix_": False}
    sink_g = {"SYN_immediate_ack_": False}

    def setup(name, drops, params=None):
        return Spec("LimTransmit", name, "net4",
                    (Flow("Sack1", "Sack1/DelAck", "s1", "k1", 1, 0.0, {"window_": 28},
                          packets=7),), 6.0, {**g, **(params or {})}, sink_g,
                    errors=(ErrorSpec("r1", "k1", 1, drops),))
    return [setup("onedrop_sack", (1,)), setup("onedrop_SA_sack", (1,), {"singledup_": 1}),
            Spec("LimTransmit", "onedrop_ECN_sack",
                 not_built="ECN (the error model marks the packet instead of dropping it)"),
            setup("nodrop_sack", (1000,))]


def _frto() -> list[Spec]:
    g = {**_OLD_TIMERS, "windowInit_": 1, "singledup_": 0, "minrto_": 0, "syn_": False,
         "delay_growth_": False, "frto_enabled_": 1, "sfrto_enabled_": 1, "partial_ack_": True}

    def setup(name, agent, drops, immediate):
        sink = "Sack1/DelAck" if agent == "Sack1" else "DelAck"
        return Spec("frto", name, "frto/net4",
                    (Flow(agent, sink, "s1", "k1", 1, 1.0, {"window_": 28}, packets=35),), 6.0,
                    g, {"SYN_immediate_ack_": False, "RFC2581_immediate_ack_": immediate,
                        "interval_": 0.2}, errors=(ErrorSpec("r1", "k1", 1, drops),))
    delayer = "ns-2's Delayer (the s1 -> r1 link blocked for a second at 1.5 s)"
    return [
        Spec("frto", "immediateAck", not_built=FRTO_TAHOE),
        setup("immediateAckReno", "Reno", (3, 4), True),
        setup("immediateAckNewReno", "Newreno", (5, 6), True),
        setup("noImmediateAckNewReno", "Newreno", (5, 6), False),
        setup("noImmediateAckSack", "Sack1", (3, 4), False),
        Spec("frto", "delaySpikesSack", not_built=delayer),
        Spec("frto", "dropsNDelaySpikes", not_built=delayer),
        Spec("frto", "spikeNDupAck", not_built=delayer),
    ]


def _tcp() -> list[Spec]:
    # every test of test-suite-tcp.tcl has a RED bottleneck or a Tahoe sender on topologies
    # of its own
    why = {"ecn": f"{RED} and ECN", "timers": TCP_SUITE, "timersA": TCP_SUITE,
           "timersAfix": TCP_SUITE, "timersA1": TCP_SUITE, "timersA2": TCP_SUITE,
           "timersA3": TCP_SUITE, "stats1": TCP_SUITE}
    names = ["ecn", "timers", "timersA", "timersAfix", "timersA1", "timersA2", "timersA3",
             *(f"timers{i}" for i in range(1, 6)), "timers_backoffs", "stats1",
             "quiescent_100ms", "quiescentB", "quiescentB_qoption", "underutilized_100ms",
             "underutilized_100ms_control", "underutilized_100ms_control_Q",
             "underutilized_100ms_Q", "underutilized_100ms_control_Reno",
             "underutilized_100ms_control_Newreno", "underutilized_100ms_control_Sack",
             *(f"quiescent_{t}_{g}" for t in ("100ms", "1ms", "500ms")
               for g in ("fine", "coarse")), "dialup", "dialup1"]
    return [Spec("tcp", n, not_built=why.get(n, RED)) for n in names]


def _red() -> list[Spec]:
    names = ["red1", "ecn", "red2", "red_twoway", "red_twowaybytes", "flows_unforced",
             "flows_forced", "flows_combined", "ungentle", "gentle", "gentleEcn",
             "gentleEcn1", "ungentleBadParams", "gentleBadParams", "q_weight",
             "q_weight_auto", "congested", "congested_mark_p", "congested1_mark_p",
             "congested2_mark_p"]
    return [Spec("red", n, not_built=RED) for n in names]


SPECS: dict[str, list[Spec]] = {
    "sack": _sack(), "newreno": _newreno(), "testReno": _test_reno(), "tcp": _tcp(),
    "frto": _frto(), "LimTransmit": _lim_transmit(), "red": _red(),
}


def suite_specs(suite: str) -> list[Spec]:
    try:
        return SPECS[suite]
    except KeyError:
        raise ValueError(f"unknown suite {suite!r}; choose from {', '.join(SPECS)}") from None


def spec(suite: str, name: str) -> Spec:
    for s in suite_specs(suite):
        if s.name == name:
            return s
    raise ValueError(f"suite {suite!r} has no test {name!r}")


# ------------------------------------------------------------------------ running one
# the ns-2 agent events each engine trace event stands for (testReno's event trace)
_EVENTS = {"Reno": ("RENO_FAST_RETX",), "Newreno": ("NEWRENO_FAST_RETX",),
           "Sack1": ("FAST_RECOVERY",), "Tahoe": ("FAST_RETX", "SLOW_START")}


@dataclass
class RunResult:
    trace: list[str]
    unmodelled: tuple[str, ...]


def run(s: Spec) -> RunResult:
    """Build ``s`` in the simulator, run it to its stop time, return the ns-2 format trace and
    the values the engine left unmodelled. ValueError if the spec is not built."""
    if s.not_built:
        raise ValueError(f"{s.suite}/{s.name} is not built: it needs {s.not_built}")
    agents = []
    for f in s.flows:
        params = {k: v for k, v in {**s.agent_globals, **f.params}.items()}
        unknown = sorted(set(params) - set(AGENT_DEFAULTS))
        if unknown:
            raise ValueError(f"{s.suite}/{s.name}: unknown Agent/TCP variable(s) {unknown}")
        agents.append(Ns2Agent(f.agent, f.sink, params, dict(s.sink_globals)))
    try:
        configs = [a.configs() for a in agents]
    except Ns2Unsupported as exc:
        raise ValueError(f"{s.suite}/{s.name}: {exc}") from None
    net = NsNetwork(preopen=0.0 if all(c.syn for c in configs) else PREOPEN)
    nodes_, links, limits = TOPOLOGIES[s.topology]
    node = {name: net.node() for name in nodes_}
    for a, b, bw, delay in (*links, *s.links):
        net.duplex_link(node[a], node[b], bw, delay)
    for a, b, n in (*limits, *s.queue_limits):
        net.queue_limit(node[a], node[b], n)
    for a, b, d in s.delays:
        net.set_delay(node[a], node[b], d)
    for e in s.errors:
        net.error_model(node[e.a], node[e.b], e.fid, ListErrorModel(e.packets, delay=e.delay))
    notes: list[str] = []
    for f, c in zip(s.flows, configs):
        events = ({"fast-retransmit": _EVENTS[f.agent], "timeout": ("TIMEOUT", "SLOW_START")}
                  if s.events else None)
        net.tcp(node[f.src], node[f.dst], f.fid, c, start=f.start,
                limit=None if f.packets is None else f.packets * c.sender.mss, events=events)
        notes += [n for n in c.unmodelled if n not in notes]
    net.run(s.stop)
    return RunResult(net.trace_lines or [], tuple(notes))


def describe(s: Spec) -> dict[str, Any]:
    """The spec as plain data (for --list and the record)."""
    return {"suite": s.suite, "test": s.name, "built": not s.not_built,
            "not_built": s.not_built, "topology": s.topology, "stop": s.stop,
            "flows": [f.__dict__ for f in s.flows]}
