"""A seed's RunSpec as a scenario both ns-2 and our simulator can run: ``describe(spec)``.

The scenario (``Ns2Run``) is what an ns-2 script of the run contains: the dumbbell of the
spec's topology (``topologies``: rates, delays, the bottleneck's queue limit), the sender and
sink (``hosts.tcp.ns2.Ns2Agent``: the spec's variant as ns-2's agent, with the scenario's
packet size, window and timers), a RED queue where the seed's gateway runs one, and the
impairments as ns-2's error models ("error modules": ``Impairment``). ``experiments.ns2.tcl``
writes it as Tcl for ``ns``; ``experiments.ns2.runs.run_ours`` builds the same scenario in
``sim.nsnet`` with the engine, so ns-2 and the engine run the same network and the same
reordering, each with its own random stream.

Reordering and loss from what ns-2 offers. Stock ns-2 has no queue swap and draws no random
delay per packet; it has error models (``ErrorModel``: a packet hit with probability ``rate_``
is dropped, or with ``delay_pkt_`` held back for ``delay_`` seconds) that can sit at a link's
head, before its queue (``errormodule``), or after its transmitter (``insert-linkloss``).
From those:

- [RDTCP]'s queue swaps (§4: N random pair swaps per interval in R1's bottleneck queue): a swap
  of positions i < j among the W packets waiting moves the packet at i back by d = j - i
  places, so d packets overtake it; with fewer than two waiting it does nothing. Here
  (``Holdback``) each data packet entering the bottleneck queue is held back, before the
  queue, with probability rate = (N / interval) x (one packet time), i.e. N per interval
  when the bottleneck is busy, by d packet times: the packets arriving meanwhile (one per
  packet time at a busy, ACK-clocked bottleneck) go ahead of it. d is drawn as a swap's
  displacement in the queue as it is: every packet time the run reads the queue's length W
  (ns-2's QueueMonitor ``pkts_``) and sets ``CLASSES`` error models to the displacements of
  a uniform pair among W (P(d) = 2(W - d)/(W(W - 1)), its quantiles at the classes'
  midpoints), or to no hold-back while W < 2. What it does not have of a swap: the packet
  moved forward, which overtakes nothing that was not already reordered.
- [RRTCP]'s reordering by delay (a data packet delayed with probability p by a draw of the
  distribution, overtaken by those behind it) and its reordered ACKs: error models after the
  transmitter of R1 -> R2 (data) or R2 -> R1 (ACKs), ``CLASSES`` of them, each holding a packet
  back by one quantile of the distribution (the class midpoints) with probability p/CLASSES
  among the packets the earlier ones left alone, so that a packet is delayed with probability
  about p by a draw of the distribution discretised.
- random drops ([RRTCP]'s ``drop``, R1's P4 drop_prob): one error model at R1's bottleneck head.

A spec that needs what ns-2 has not (a P4 injection, the EPDN senders, a variant ns-2 lacks,
drop bursts, legacy routers) is refused by ``describe`` with one line naming it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from experiments.runner.spec import DELAY_MEAN, DELAY_SD, SCENARIOS, RunSpec
from experiments.studies import netreno, rdtcp  # noqa: F401  (their scenarios register on import)
from experiments.studies.rrtcp.scenario import PATH_DELAY, delay_distribution
from hosts.tcp.ns2 import HEADER_BYTES, Ns2Agent
from netbase.units import parse_delay
from sim.delays import normal
from topologies import topos

__all__ = ["Ns2Run", "Link", "Impairment", "Holdback", "Red", "Inexpressible", "describe",
           "AGENTS", "CLASSES", "swap_classes", "delay_classes"]

# our variant -> ns-2's sender and sink (the ns Manual's one-way agents)
AGENTS = {"sack": ("Sack1", "Sack1"), "newreno": ("Newreno", ""), "reno": ("Reno", "")}
CLASSES = 8                     # error models a distribution of delays is made of
# [RRTCP]'s timers as its ns-2 runs set them (experiments.studies.rrtcp.scenario: [RRTCP] §5.3)
RRTCP_AGENT = {"minrto_": 1.0, "maxrto_": 64.0, "tcpTick_": 0.01, "windowInit_": 2}
# [NETRENO]'s RED (experiments.studies.netreno.scenario: [NETRENO] §7.1, §7.2)
RED_PARAMS = {"netreno-sim": {"min_th": 4, "max_th": 8, "w_q": 0.002, "max_p": 1 / 50},
              "netreno-lab": {"min_th": 5, "max_th": 10, "w_q": 1 / 512, "max_p": 0.02}}
NETRENO_SEGMENT = 512
# [NETRENO]'s NetBSD 1.2 hosts as the lab's runs set them (experiments.studies.netreno.scenario's
# netbsd_config: [NETRENO] §3): delayed ACKs of 200 ms at the sink, a window
# of 128 segments, one segment's initial window, a 500 ms tick, 1 s minimum and 3 s initial RTO
NETBSD_AGENT = {"windowInit_": 1, "tcpTick_": 0.5, "minrto_": 1.0, "rtxcur_init_": 3.0}
NETBSD_WINDOW = 128
NETBSD_DELACK = 0.2


class Inexpressible(ValueError):
    """The RunSpec needs what ns-2 2.35 does not have; the message names it."""


@dataclass(frozen=True)
class Link:
    a: str
    b: str
    bandwidth: float            # bits/s
    delay: float                # s
    limit: int = 50             # ns-2's queue-limit from a to b (default 50)
    limit_back: int = 50


@dataclass(frozen=True)
class Impairment:
    """One error model bound to the flow on link a -> b: ``where`` "head" (before the queue)
    or "after" (after the transmitter); hit with probability ``rate``, then dropped (``delay``
    None) or held back ``delay`` seconds; ``frames`` "data" or "acks"."""
    a: str
    b: str
    where: str
    rate: float
    delay: float | None
    frames: str
    what: str                   # which of the spec's impairments it is part of


@dataclass(frozen=True)
class Holdback:
    """[RDTCP]'s swaps as hold-backs before the queue of link a -> b (module docstring): a data
    packet is held back with probability ``rate`` (in ``CLASSES`` error models of equal
    share), by d packet times, d following the queue's length every ``packet_time``."""
    a: str
    b: str
    rate: float
    packet_time: float
    limit: int

    def classes(self, waiting: int) -> tuple[float, ...]:
        """The hold-back delays (s) of the classes while ``waiting`` packets wait (() below
        two: a swap would be skipped)."""
        if waiting < 2:
            return ()
        return tuple(d * self.packet_time for d in swap_classes(waiting + 1))


@dataclass(frozen=True)
class Red:
    a: str
    b: str
    min_th: float
    max_th: float
    w_q: float
    max_p: float


@dataclass(frozen=True)
class Ns2Run:
    spec: RunSpec
    nodes: tuple[str, ...]
    links: tuple[Link, ...]
    src: str
    dst: str
    agent: Ns2Agent
    impairments: tuple[Impairment, ...] = ()
    red: Red | None = None
    holdback: Holdback | None = None
    notes: tuple[str, ...] = field(default=())      # how each of the spec's elements is built

    @property
    def wire_bytes(self) -> int:
        return self.agent.configs().wire_bytes

    @property
    def payload(self) -> int:
        return self.agent.configs().sender.mss


def describe(spec: RunSpec) -> Ns2Run:
    """The ns-2 scenario of ``spec``; Inexpressible (one line) when ns-2 cannot run it."""
    if spec.variant not in AGENTS:
        raise Inexpressible(f"variant {spec.variant!r}: ns-2 2.35 has no such sender (it has "
                            f"{', '.join(AGENTS)}: Agent/TCP/Sack1, /Newreno, /Reno)")
    if spec.injection in ("altpath", "recirc"):
        raise Inexpressible(f"injection {spec.injection!r} is the P4 gateway's; ns-2 has no P4 "
                            f"program (use the queue swaps or injection 'delay')")
    if spec.legacy != "none" or spec.r2_drop:
        raise Inexpressible("legacy routers and R2's drops are settings of the P4 gateways "
                            "([RDTCP] §7); ns-2 runs plain routers")
    if spec.bursts:
        raise Inexpressible("drop bursts ([RRTCP] §5.7) are time-based; ns-2's error models "
                            "decide per packet")
    if spec.scenario == "rdtcp":
        return _rdtcp(spec)
    if spec.scenario == "rrtcp":
        return _rrtcp(spec)
    if spec.scenario in RED_PARAMS or spec.scenario in ("netreno-sim-droptail",
                                                       "netreno-lab-droptail"):
        return _netreno(spec)
    raise Inexpressible(f"scenario {spec.scenario!r} ({SCENARIOS[spec.scenario].cite}) has no "
                        f"ns-2 script here (scenarios: rdtcp, rrtcp, netreno-sim, netreno-lab)")


def _dumbbell(topo_name: str, **topo_kw) -> tuple[tuple[str, ...], tuple[Link, ...]]:
    """Nodes a, r1, r2, b and the links of a ``topologies`` dumbbell (rates in Mb/s there)."""
    topo = topos[topo_name](**topo_kw)
    links = []
    for a, b, info in topo.links(withInfo=True):
        if info.get("port1") == 3:          # the alternate path: a P4 injection's
            continue
        limit = int(info.get("max_queue_size") or 50)
        links.append(Link(a, b, float(info["bw"]) * 1e6, _seconds(info.get("delay")),
                          limit if a in ("r1",) else 50, 50))
    return ("a", "r1", "r2", "b"), tuple(links)


def _seconds(text) -> float:
    return parse_delay(text) if text else 0.0


def _agent(spec: RunSpec, payload: int, window: int, *, delack: float | None = None,
           **params) -> Ns2Agent:
    agent, sink = AGENTS[spec.variant]
    if delack is not None:
        sink = f"{sink}/DelAck" if sink else "DelAck"
    return Ns2Agent(agent, sink, {"packetSize_": payload, "window_": window, **params},
                    {"interval_": delack} if delack is not None else {})


def _bottleneck(links: tuple[Link, ...]) -> Link:
    return next(ln for ln in links if (ln.a, ln.b) in (("r1", "r2"), ("r1", "d")))


def _rdtcp(spec: RunSpec) -> Ns2Run:
    mss = SCENARIOS["rdtcp"].mss
    nodes, links = _dumbbell("rdtcp_paper")
    agent = _agent(spec, mss, spec.max_cwnd_segments)
    imps: list[Impairment] = []
    notes = [f"[RDTCP] §4 dumbbell, drop-tail {_bottleneck(links).limit} at R1, "
             f"{agent.agent}/{agent.sink or 'TCPSink'}, window_ {spec.max_cwnd_segments}, "
             f"packetSize_ {mss}"]
    wire = mss + HEADER_BYTES
    holdback = None
    if spec.injection == "swap" and spec.swaps:
        bn = _bottleneck(links)
        packet_time = 8 * wire / bn.bandwidth
        if spec.swap_span:
            raise Inexpressible("swap_span bounds a swap's pair; the hold-back model draws "
                                "from the whole queue's displacements only")
        rate = min(1.0, spec.swaps / spec.interval * packet_time)
        holdback = Holdback("r1", "r2", rate, packet_time, bn.limit)
        notes.append(f"{spec.swaps} swaps per {spec.interval:g} s as hold-backs before R1's "
                     f"queue: rate {rate:.4f} per data packet, by a swap's displacement in "
                     f"the queue as it is ({CLASSES} classes, followed every packet time)")
    elif spec.injection == "delay" and spec.level:
        dist = normal(DELAY_MEAN, DELAY_SD)
        imps += _delays("r1", "r2", spec.level, dist, "data", "reordering")
        notes.append(f"{spec.level:g} of data packets delayed after R1's transmitter by {dist} "
                     f"s in {CLASSES} classes")
    return Ns2Run(spec, nodes, links, "a", "b", agent, tuple(imps), notes=tuple(notes),
                  holdback=holdback)


def _rrtcp(spec: RunSpec) -> Ns2Run:
    mss = SCENARIOS["rrtcp"].mss
    delay = spec.path_delay or PATH_DELAY
    nodes, links = _dumbbell("rrtcp_paper", bottleneck_delay=f"{delay * 1e3:g}ms")
    agent = _agent(spec, mss, spec.max_cwnd_segments, **RRTCP_AGENT)
    imps: list[Impairment] = []
    notes = [f"[RRTCP] §5 path, P = {delay * 1e3:g} ms, {agent.agent}, window_ "
             f"{spec.max_cwnd_segments}, packetSize_ {mss}, [RRTCP]'s timers"]
    dist = delay_distribution(spec)
    if spec.injection == "delay" and spec.level:
        imps += _delays("r1", "r2", spec.level, dist, "data", "reordering")
        notes.append(f"{spec.level:g} of data packets delayed after R1's transmitter by {dist} "
                     f"s in {CLASSES} classes")
    elif spec.injection == "swap" and spec.swaps:
        raise Inexpressible("queue swaps are [RDTCP]'s; [RRTCP]'s scenario reorders by delay")
    if spec.ack_level:
        imps += _delays("r2", "r1", spec.ack_level, dist, "acks", "ack reordering")
        notes.append(f"{spec.ack_level:g} of ACKs delayed after R2's transmitter by {dist} s")
    if spec.drop:
        imps.append(Impairment("r1", "r2", "head", spec.drop, None, "data", "drops"))
        notes.append(f"{spec.drop:g} of data packets dropped at R1's bottleneck head")
    if spec.fa_ratio:
        raise Inexpressible("fa_ratio is DSACK-FA's; ns-2 has no DSACK-FA sender")
    return Ns2Run(spec, nodes, links, "a", "b", agent, tuple(imps), notes=tuple(notes))


def _netreno(spec: RunSpec) -> Ns2Run:
    if spec.scenario.startswith("netreno-sim"):
        raise Inexpressible("[NETRENO] §7.1 runs five senders in ATM cells; its ns-2 script is not "
                            "written here ([NETRENO] §7.2's lab network is: netreno-lab)")
    topo = topos["netreno_lab"]()
    links = []
    for a, b, info in topo.links(withInfo=True):
        limit = int(info.get("max_queue_size") or 50)
        links.append(Link(a, b, float(info["bw"]) * 1e6, _seconds(info.get("delay") or "0ms"),
                          limit if a == "r1" else 50, limit if b == "r1" else 50))
    agent = _agent(spec, NETRENO_SEGMENT, NETBSD_WINDOW, delack=NETBSD_DELACK, **NETBSD_AGENT)
    red = None
    notes = [f"[NETRENO] §7.2 lab network, {agent.agent}/TCPSink/{agent.sink}, packetSize_ "
             f"{NETRENO_SEGMENT}, NetBSD 1.2's window and timers"]
    if spec.scenario == "netreno-lab":
        p = RED_PARAMS["netreno-lab"]
        red = Red("r1", "d", p["min_th"], p["max_th"], p["w_q"], p["max_p"])
        notes.append(f"RED at R1: thresh_ {p['min_th']}, maxthresh_ {p['max_th']}, q_weight_ "
                     f"{p['w_q']:g}, linterm_ {1 / p['max_p']:g}")
    imps = []
    if spec.level:
        imps.append(Impairment("r1", "d", "head", spec.level, None, "data", "drops"))
        notes.append(f"{spec.level:g} of data packets dropped at R1")
    return Ns2Run(spec, ("s", "r1", "d"), tuple(links), "s", "d", agent, tuple(imps), red=red,
                  notes=tuple(notes))


def swap_classes(queued: int, classes: int = CLASSES) -> tuple[int, ...]:
    """The displacement d of a swap of a pair drawn uniformly among the waiting packets when
    ``queued`` are in the link (queued - 1 waiting behind the one sent: P(d) =
    2(W-d)/(W(W-1)), W = queued - 1), as ``classes`` values of equal probability: the
    distribution's quantiles at the classes' midpoints."""
    w = queued - 1
    if w < 2:
        raise ValueError(f"{queued} packets in the link leave no pair to swap")
    cdf, acc = [], 0.0
    for d in range(1, w):
        acc += 2 * (w - d) / (w * (w - 1))
        cdf.append((acc, d))
    out = []
    for k in range(classes):
        q = (k + 0.5) / classes
        out.append(next((d for c, d in cdf if c >= q - 1e-12), w - 1))
    return tuple(out)


def delay_classes(dist, classes: int = CLASSES) -> tuple[float, ...]:
    """A distribution (``sim.delays``) as ``classes`` delays of equal probability: its
    quantiles at the classes' midpoints, read from 20,000 draws of a fixed random stream."""
    rng = random.Random(20260101)
    draws = sorted(dist.draw(rng) for _ in range(20_000))
    return tuple(round(draws[int((k + 0.5) / classes * len(draws))], 6)
                 for k in range(classes))


def _delays(a: str, b: str, p: float, dist, frames: str, what: str) -> list[Impairment]:
    imps = [Impairment(a, b, "after", 0.0, d, frames, what) for d in delay_classes(dist)]
    return _share(imps, p)


def _share(imps: list[Impairment], p: float) -> list[Impairment]:
    """Rates for a chain of error models so that each takes a share p/n of the packets: the
    k-th (0-based) hits with (p/n)/(1 - k p/n), among those the earlier ones left alone."""
    n = len(imps)
    out = []
    for k, imp in enumerate(imps):
        rest = 1 - k * p / n
        out.append(Impairment(imp.a, imp.b, imp.where, (p / n) / rest if rest > 0 else 1.0,
                              imp.delay, imp.frames, imp.what))
    return out

