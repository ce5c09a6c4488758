"""One run of F-RTO's evaluation ([FRTO] §5.1) in virtual time: a 100 KB transfer
from the fixed host to the mobile host over ``topologies.FrtoTopo``, through the P4 gateways, in
one of the paper's three scenarios (registered below):

- ``frto-delay`` (Table 1, Fig. 6): each packet on the downlink starts a stall with probability
  ``spec.level`` (the paper's 0.02), Exp(3.5 s) long; nothing is lost on the link, only at the
  router (``sim.impair.LinkStalls``).
- ``frto-loss`` (Table 2, Fig. 7): packets are lost independently with probability
  ``spec.level`` (2, 5 or 10 %) in both directions: data segments by the gateway's own random
  drop (r1's ``drop_prob`` on the link port, set through the controller; it drops only
  segments that carry data), ACKs by the link model on the uplink (``sim.impair.LinkLoss``).
- ``frto-burst`` (Table 3, Fig. 8): good periods U(0.1, 20) s without loss alternate with bad
  periods Exp(3.5 s) that lose every packet in both directions (``sim.impair.LinkOutages``);
  ``spec.level`` is unused (0).

The senders run Linux 2.4's timers (``hosts.tcp.profiles`` "linux-2.4": 10 ms clock, initial
RTO 3 s, minimum 200 ms, Linux's RTT variance), an initial window of two segments (Linux 2.4's
``snd_cwnd = 2``), and the receiver delays ACKs by Linux's minimum ACK timeout, 40 ms
(TCP_ATO_MIN: on this link a segment arrives every 86 ms, so each is ACKed on its own, late).
SACK is offered when the variant's policy offers it (``newreno``, ``frto-newreno`` and
``eifel-newreno`` do not), timestamps when it needs them (Eifel), as RD-TCP's scenario does.

``run_frto_fairness`` runs [FRTO] §5.3's fairness test (Fig. 9, scenario ``frto-fair``): six 50 KB
transfers over the same path, set 1 (three conventional senders, Regular SACK) starting at 0 s
and set 2 (three senders of ``spec.variant``: ``frto`` in [FRTO]'s test A, ``sack`` in test B) at
3 s, with DELAY's stalls when ``spec.level`` > 0. The row has each set's fastest and slowest
transfer (time from its own first SYN to the ACK of its FIN, and 51,200 bytes over it).

The run ends when the sender has the ACK of its FIN, or at ``spec.duration`` (virtual seconds:
a limit; ``completed`` says which). ``transfer_s`` is the paper's time "from the first SYN to
the ACK of the FIN"; ``throughput_Bps`` is 102,400 bytes over it (over the limit for a transfer
that did not finish, counting what arrived).
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Any

from experiments.runner.gateways import BOTTLENECK_PORT, configure_gateway, gateway_stats
from experiments.runner.gateways import TM_DEPTH
from experiments.runner.spec import SCENARIOS, RunResult, RunSpec, Scenario, register
from hosts.apps import FileSender
from hosts.tcp import TcpConfig
from hosts.tcp.profiles import profile_config
from hosts.tcp.ranges import RangeSet
from hosts.tcp.variants import get_variant
from netbase.seq import seq_sub
from netbase.wire import MalformedPacket, decode_frame
from sim.flows import add_bulk_flow
from sim.impair import LinkLoss, LinkOutages, LinkStalls, sender_pause
from sim.network import Network
from sim.trace import FlowSampler
from topologies import topos

__all__ = ["run_frto", "run_frto_fairness", "frto_config", "FRTO_SCENARIOS", "TRANSFER_BYTES",
           "STALL_MEAN", "GOOD_MIN", "GOOD_MAX", "BAD_MEAN", "LINUX_ATO_MIN", "INITIAL_WINDOW",
           "FAIR_BYTES", "FAIR_SET_SIZE", "FAIR_SET2_START", "FAIR_START_JITTER", "CONVENTIONAL"]

FRTO_SCENARIOS = ("frto-delay", "frto-loss", "frto-burst")
TRANSFER_BYTES = 100 * 1024     # [FRTO] §5.1: "100 KB bulk transfers"
STALL_MEAN = 3.5                # [FRTO] §5.1: "mean delay length of 3.5 seconds"
GOOD_MIN, GOOD_MAX = 0.1, 20.0  # [FRTO] §5.1: good state U(0.1, 20) s
BAD_MEAN = 3.5                  # [FRTO] §5.1: bad state Exp(mean 3.5 s)
FAIR_BYTES = 50 * 1024         # [FRTO] §5.3: "All connections transfer 50 KB of bulk data"
FAIR_SET_SIZE = 3               # [FRTO] §5.3: two connection sets of three connections each
FAIR_SET2_START = 3.0           # [FRTO] §5.3: set 2 "started three seconds after the first"
CONVENTIONAL = "sack"           # [FRTO]'s conventional RTO recovery: Linux 2.4 with SACK
# Connections "started at the same time" by a test script start within a few milliseconds of
# each other: each opens at its set's time plus U(0, FAIR_START_JITTER). Without it the runs
# without delays would be one deterministic run repeated (nothing else in them is random).
FAIR_START_JITTER = 0.010
LINUX_ATO_MIN = 0.040           # Linux 2.4 TCP_ATO_MIN (HZ/25): its first delayed-ACK timeout
INITIAL_WINDOW = 2              # Linux 2.4: tp->snd_cwnd = 2 at connection start
# topologies.FrtoTopo is a PaperTopo: r1's and r2's port 2 face the link, the port the gateway
# setup (experiments.runner.gateways.gateway_impairment) puts R1's drop injection on
LINK_PORT = BOTTLENECK_PORT


def frto_config(spec: RunSpec) -> Any:
    """Both ends' engine configuration: the variant on Linux 2.4's timers (see above)."""
    policy = get_variant(spec.variant)
    base = TcpConfig(variant=spec.variant, mss=SCENARIOS[spec.scenario].mss,
                     sack=policy.offers_sack, timestamps=policy.needs_timestamps,
                     window_scale=7, delayed_ack=True, delayed_ack_timeout=LINUX_ATO_MIN,
                     max_cwnd_segments=spec.max_cwnd_segments,
                     initial_window_segments=INITIAL_WINDOW)
    return profile_config("linux-2.4", base)


class _Duplicates:
    """A tap on the link's far end that counts the data segments reaching the mobile host whose
    bytes had all arrived before: the retransmissions that were not needed (ground truth)."""

    def __init__(self) -> None:
        self.seen = RangeSet()
        self.base: int | None = None    # sequence number of the first data byte seen
        self.segments = 0
        self.duplicates = 0

    def write(self, _time: float, frame: bytes) -> None:
        try:
            _, _, seg = decode_frame(frame)
        except MalformedPacket:
            return
        if not seg.payload:
            return
        if self.base is None:
            self.base = seg.seq
        self.segments += 1
        start = seq_sub(seg.seq, self.base)     # offsets: a wrap of the ISS changes nothing
        end = start + len(seg.payload)
        if self.seen.covers(start, end):
            self.duplicates += 1
        self.seen.add(start, end)

    def close(self) -> None:
        pass


def _impairments(net: Any, spec: RunSpec) -> dict:
    """Attach the scenario's link model; returns what the row reports of it."""
    down = net.channel("r1", "r2", port=LINK_PORT)
    up = net.channel("r2", "r1", port=LINK_PORT)
    if spec.scenario == "frto-delay":
        return {"stalls": LinkStalls(down, probability=spec.level, mean=STALL_MEAN,
                                     seed=net.derive_seed("stalls"),
                                     pause=sender_pause(net, "r1", "r2", port=LINK_PORT))}
    if spec.scenario == "frto-loss":
        return {"ack_loss": LinkLoss(up, probability=spec.level,
                                     seed=net.derive_seed("ack-loss"))}
    return {"outages": LinkOutages([down, up], good_min=GOOD_MIN, good_max=GOOD_MAX,
                                   bad_mean=BAD_MEAN, seed=net.derive_seed("outages"))}


def _build_network(spec: RunSpec, program: Any) -> Any:
    """FrtoTopo with both gateways configured by the controller; in the LOSS scenario r1 drops
    data segments towards the link with probability ``spec.level`` (the P4 program's own
    random drop)."""
    drop = spec.level if spec.scenario == "frto-loss" else 0.0

    def configure(net, name, sw):
        configure_gateway(net, name, sw, spec=spec, tm_depth=TM_DEPTH, drop=drop)

    topo = topos[SCENARIOS[spec.scenario].topo]()
    return Network.from_topo(topo, program=program, seed=spec.seed, tm_depth=TM_DEPTH,
                             configure=configure)


def _check(spec: RunSpec) -> None:
    if spec.scenario not in FRTO_SCENARIOS:
        raise ValueError(f"run_frto runs the scenarios {', '.join(FRTO_SCENARIOS)}, "
                         f"not {spec.scenario!r}")
    if spec.injection != "swap" or spec.swaps:
        raise ValueError("[FRTO]'s scenarios take no reordering injection (injection 'swap' "
                         "with swaps 0)")
    if spec.scenario == "frto-burst" and spec.level:
        raise ValueError("frto-burst has no level: its outages are the paper's (level 0)")


def run_frto(spec: RunSpec, program: Any, *, pcap: str | None = None) -> RunResult:
    """Simulate one transfer of ``spec`` (an frto-* scenario) and return its row; with
    ``pcap``, capture the sender's interface (every segment as the fixed host sends it, every
    ACK as it arrives there: [FRTO]'s time-sequence diagrams) into that file."""
    _check(spec)
    started = time.perf_counter()   # wall clock for the report only; the simulation never reads it
    net = _build_network(spec, program)
    if pcap:
        net.capture("a", "r1", pcap)
    models = _impairments(net, spec)
    duplicates = _Duplicates()
    net.channel("r2", "b").taps.append(duplicates)
    flow = add_bulk_flow(net, "a", "b", config=frto_config(spec))
    source = FileSender(TRANSFER_BYTES)
    flow.sender_ep.app = flow.source = source
    sampler = FlowSampler(net.events, [flow], step=spec.sample_step) if spec.sample_step \
        else None
    net.run(until=spec.duration)
    net.close()
    done = source.done_at
    transfer_s = done if done is not None else spec.duration
    stats = _stats(flow, net, models, duplicates, done, transfer_s)
    result = RunResult(spec, (flow.delivered_bytes / transfer_s) if transfer_s else 0.0,
                       flow.delivered_bytes, stats, time.perf_counter() - started,
                       sampler.rows if sampler else [], mss=flow.sender.mss)
    return result


def _stats(flow: Any, net: Any, models: dict, duplicates: _Duplicates, done: float | None,
           transfer_s: float) -> dict:
    s = flow.sender.stats
    out: dict = {"completed": done is not None, "transfer_s": round(transfer_s, 6)}
    for k in ("retransmits", "fast_retransmits", "timeouts", "spurious_timeouts_undone",
              "eifel_undos", "spurious_retransmits", "segments_sent"):
        out[k] = int(s.get(k, 0))
    # spurious detections: timeouts (F-RTO, Eifel) and fast retransmits (Eifel) declared
    # spurious and answered as such
    out["spurious_detections"] = out["spurious_timeouts_undone"] + out["eifel_undos"]
    out["unneeded_retransmits"] = duplicates.duplicates
    gw = gateway_stats(net)
    down = net.channel("r1", "r2", port=LINK_PORT)
    up = net.channel("r2", "r1", port=LINK_PORT)
    # data lost: r1's drops (its buffer, and the LOSS scenario's random drops) and the link's
    # on the downlink; ACKs lost: r2's and the uplink's
    out["lost_data"] = sum(v for k, v in gw.items() if k.startswith("r1_drops_")) + down.lost
    out["lost_acks"] = sum(v for k, v in gw.items() if k.startswith("r2_drops_")) + up.lost
    out["link_lost_data"], out["link_lost_acks"] = down.lost, up.lost
    stalls = models.get("stalls")
    out["stalls"] = len(stalls.stalls) if stalls else 0
    out["stalled_s"] = round(stalls.stalled_seconds, 6) if stalls else 0.0
    outages = models.get("outages")
    met = outages.outages_before(transfer_s) if outages else []
    out["outages"] = len(met)
    out["outage_s"] = round(sum(min(e, transfer_s) - s0 for s0, e in met), 6)
    out["events"] = net.events.executed
    out.update(gw)
    return out


def run_frto_fairness(spec: RunSpec, program: Any) -> RunResult:
    """[FRTO] §5.3's six transfers (see the module docstring); ``spec.variant`` is set 2's."""
    if spec.scenario != "frto-fair":
        raise ValueError(f"run_frto_fairness runs the scenario frto-fair, not {spec.scenario!r}")
    if spec.injection != "swap" or spec.swaps:
        raise ValueError("[FRTO]'s scenarios take no reordering injection (injection 'swap' "
                         "with swaps 0)")
    started = time.perf_counter()   # wall clock for the report only; the simulation never reads it
    net = _build_network(spec, program)
    stalls = None
    if spec.level:
        stalls = LinkStalls(net.channel("r1", "r2", port=LINK_PORT), probability=spec.level,
                            mean=STALL_MEAN, seed=net.derive_seed("stalls"),
                            pause=sender_pause(net, "r1", "r2", port=LINK_PORT))
    sets = ((1, CONVENTIONAL, 0.0), (2, spec.variant, FAIR_SET2_START))
    jitter = random.Random(net.derive_seed("fairness-starts"))
    flows = []          # (set, start, flow, source)
    for number, variant, set_start in sets:
        config = frto_config(replace(spec, variant=variant))
        for i in range(FAIR_SET_SIZE):
            index = len(flows)
            start = set_start + jitter.uniform(0.0, FAIR_START_JITTER)
            flow = add_bulk_flow(net, "a", "b", config=config, start=start,
                                 src_port=40000 + index, dst_port=5001 + index,
                                 name=f"set{number}-{i + 1}")
            source = FileSender(FAIR_BYTES)
            flow.sender_ep.app = flow.source = source
            flows.append((number, start, flow, source))
    net.run(until=spec.duration)
    net.close()
    stats: dict = {"completed": all(s.done_at is not None for *_, s in flows)}
    for number in (1, 2):
        times = sorted((s.done_at - start) if s.done_at is not None else spec.duration - start
                       for n, start, _, s in flows if n == number)
        stats[f"set{number}_fastest_s"] = round(times[0], 6)
        stats[f"set{number}_slowest_s"] = round(times[-1], 6)
        stats[f"set{number}_fastest_Bps"] = round(FAIR_BYTES / times[0], 3)
        stats[f"set{number}_slowest_Bps"] = round(FAIR_BYTES / times[-1], 3)
    for key in ("retransmits", "timeouts", "spurious_timeouts_undone"):
        stats[key] = sum(int(f.sender.stats.get(key, 0)) for _, _, f, _ in flows)
    gw = gateway_stats(net)
    stats["lost_data"] = sum(v for k, v in gw.items() if k.startswith("r1_drops_"))
    stats["stalls"] = len(stalls.stalls) if stalls else 0
    stats["events"] = net.events.executed
    stats.update(gw)
    ends = [s.done_at for *_, s in flows if s.done_at is not None]
    last = max(ends) if stats["completed"] else spec.duration
    delivered = sum(f.delivered_bytes for _, _, f, _ in flows)
    return RunResult(spec, delivered / last if last else 0.0, delivered, stats,
                     time.perf_counter() - started, [], mss=flows[0][2].sender.mss)


# [FRTO] §5.1, Tables 1-3 (topologies.FrtoTopo): a 100 KB transfer over a 28.8 kbit/s link with
# 200 ms one-way delay behind a 7-packet router buffer, 296-byte packets (MSS 256), in the
# paper's three scenarios: delay spikes (the run's level: stall probability per packet),
# random losses (level: loss probability) and loss bursts
register(Scenario("frto-delay", "frto_paper", 296, "[FRTO] §5.1 DELAY, Table 1", run=run_frto),
         Scenario("frto-loss", "frto_paper", 296, "[FRTO] §5.1 LOSS, Table 2", run=run_frto),
         Scenario("frto-burst", "frto_paper", 296, "[FRTO] §5.1 BURST, Table 3", run=run_frto))
# [FRTO] §5.3, Fig. 9: six 50 KB transfers over the same path, three conventional ones at 0 s
# and three of the run's variant at 3 s, with DELAY's stalls (level 0.02) or without (0)
register(Scenario("frto-fair", "frto_paper", 296, "[FRTO] §5.3 fairness, Fig. 9",
                  run=run_frto_fairness))
