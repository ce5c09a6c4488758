"""One run of RD-TCP's simulation scenario ([RDTCP] §4) in virtual time.

Scenario, as the paper states it: hosts A and B, gateways R1 and R2 (``topologies.PaperTopo``);
1500-byte packets (MTU 1500, so MSS 1460; RD-TCP flows send 1448-byte segments, keeping 12
bytes for the EPDN option: the row's ``mss``); maximum congestion window 500 segments;
drop-tail buffer of 65 packets at R1's bottleneck port, enforced by the P4 gateway itself
(p4src/README.md, "Why the program keeps its own queue count") with the traffic-manager queue configured deeper; one
bulk transfer from A to B; no delayed ACKs (ns-2's default TCP sink). Reordering is either the
paper's random queue swaps at R1's bottleneck queue (``sim.reorder``), one of the gateway's
own P4 injection modes, set through the controller's impairment knobs, or reordering by delay
on the bottleneck link (``sim.reorder.PacketDelayer``, the model of [RRTCP] and of [RDTCP] §7).
Incremental deployment ([RDTCP] §7): either gateway, or both, may run as a legacy router (``legacy``,
the gateway program's legacy mode: the same queue, no EPDN), and R2 may drop data segments on
their way to B (``r2_drop``, the gateway's drop injection), so that loss can happen at either.

Throughput is what the paper plots: data bytes delivered in order to B's application over the
whole run, divided by the run's duration.
"""

from __future__ import annotations

import time
from typing import Any

from experiments.runner.gateways import TM_DEPTH, configure_gateway, gateway_stats
from experiments.runner.spec import (DELAY_MEAN, DELAY_SD, SCENARIOS, RunResult, RunSpec, Scenario,
                                     register, tcp_config)
from hosts.tcp.profiles import profile_config
from sim.flows import add_bulk_flow
from sim.network import Network
from sim.reorder import PacketDelayer, QueueSwapper
from sim.trace import FlowSampler
from topologies import topos

__all__ = ["run_paper", "build_network", "PAPER", "BOTTLENECK_BPS", "BUFFER_PACKETS",
           "MAX_CWND_SEGMENTS", "RDTCP_K", "VARIANTS", "PAPER_VARIANTS", "CAPTURE_POINTS",
           "SCENARIO"]

BOTTLENECK_BPS = 5e6          # §4: R1–R2 at 5 Mb/s
BUFFER_PACKETS = 65           # §4: "The queue size used was 65 segments", drop-tail
MTU = 1500                    # §4: "1500 byte segments"
MSS = MTU - 40                # IPv4 + TCP headers without options
# §4: "The maximum congestion window was 500 segments"; §6: "we present the results for value
# of k = 3 (dupthresh = 6)": every RunSpec's defaults
MAX_CWND_SEGMENTS = RunSpec.max_cwnd_segments
RDTCP_K = RunSpec.k
# the paper's three senders, then Blanton and Allman's DSACK schemes that adapt dupthresh ([RDTCP] §2
# cites them as [10]; Fig. 4's "TCP using DSACK" may be one of them: hosts/tcp/variants/dsack.py),
# then RD-TCP with the two ways of setting k that [RDTCP] §3 proposes for further research: raised
# by one per false fast retransmit, or set from the reordering measured (variants/rdtcp.py), the
# latter also with DSACK undo of the false fast retransmits that teach it k; then
# Eifel ([FRTO]'s other detector: RFC 3522 timestamps, undo at the first ACK; variants/eifel.py);
# then RACK-TLP (RFC 8985), time-based loss detection, today's reference point (variants/rack.py),
# and RR-TCP ([RRTCP]'s DSACK-TA: dupthresh from a reordering histogram, variants/rrtcp.py)
PAPER_VARIANTS = ("sack", "dsack", "rdtcp")
# (the RD-TCP sweep's default set; every registered sender may run: spec.SENDERS)
VARIANTS = PAPER_VARIANTS + ("dsack-inc", "dsack-avg", "rdtcp-adaptive", "rdtcp-measured",
                             "rdtcp-measured-undo", "eifel", "rack", "rrtcp")
# The paper's numbers (§1, §5, §6), bytes/second of a 10-minute transfer.
PAPER = {
    ("none", 0): 607_500,
    ("sack", 15): 526_000,
    ("dsack", 15): 600_600,
    ("rdtcp", 15): 607_440,
}
PAPER[("dsack-inc", 15)] = PAPER[("dsack-avg", 15)] = PAPER[("dsack", 15)]   # "TCP using DSACK"
# the paper's RD-TCP (k = 3), for scale
PAPER.update({(extension, 15): PAPER[("rdtcp", 15)]
              for extension in ("rdtcp-adaptive", "rdtcp-measured", "rdtcp-measured-undo")})
PAPER[("eifel", 15)] = PAPER[("sack", 15)]        # SACK with Eifel: the SACK it modifies
PAPER[("rack", 15)] = PAPER[("sack", 15)]         # SACK with RACK-TLP's loss detection
PAPER[("rrtcp", 15)] = PAPER[("dsack", 15)]       # RR-TCP: a DSACK scheme ([RRTCP])


def build_network(spec: RunSpec, program: Any) -> Any:
    """The paper's dumbbell, both gateways running the P4 program configured by the controller."""
    alt = spec.alt_extra_delay if spec.injection == "altpath" else None
    topo = topos[SCENARIOS[spec.scenario].topo](alt_extra_delay=alt)
    return Network.from_topo(
        topo, program=program, seed=spec.seed, tm_depth=TM_DEPTH,
        configure=lambda net, name, sw: configure_gateway(net, name, sw, spec=spec,
                                                      tm_depth=TM_DEPTH))


# where a run's pcap is taken: (node1, node2, port of node1, capturing end)
CAPTURE_POINTS = {
    "r1": ("r1", "r2", 2, "r1"),    # R1's bottleneck port: after its drops and swaps
    "a": ("a", "r1", None, "a"),    # the sender's interface: every segment as A sends it
}


def run_paper(spec: RunSpec, program: Any, *, pcap: str | None = None,
              pcap_at: str = "r1", profile: str | None = None) -> RunResult:
    """Simulate ``spec`` to completion and return its throughput and counters; with ``pcap``,
    capture at ``pcap_at`` (a key of CAPTURE_POINTS); with ``profile``, both ends run that
    engine profile's knobs over the scenario's configuration (hosts.tcp.profiles)."""
    run = SCENARIOS[spec.scenario].run
    if run is not run_paper:        # another study's network and settings
        raise ValueError(f"scenario {spec.scenario!r} is run by {run.__module__}.{run.__name__}")
    started = time.perf_counter()   # wall clock for the report only; the simulation never reads it
    net = build_network(spec, program)
    if pcap:
        node1, node2, port, at = CAPTURE_POINTS[pcap_at]
        net.capture(node1, node2, pcap, port=port, at=at)
    config = tcp_config(spec)
    if profile:
        config = profile_config(profile, config)
    flow = add_bulk_flow(net, "a", "b", config=config)
    swapper = None
    if spec.injection == "swap" and spec.swaps:
        swapper = QueueSwapper(net.switches["r1"], 2, swaps=spec.swaps, interval=spec.interval,
                               seed=net.derive_seed("swapper"), span=spec.swap_span)
    delayer = None
    if spec.injection == "delay" and spec.level:
        delayer = PacketDelayer(net.channel("r1", "r2", port=2), probability=spec.level,
                                mean=DELAY_MEAN, sd=DELAY_SD, seed=net.derive_seed("delayer"))
    sampler = FlowSampler(net.events, [flow], step=spec.sample_step) if spec.sample_step else None
    net.run(until=spec.duration)
    net.close()
    stats = _flow_stats(flow)
    stats["swaps_done"] = swapper.done if swapper else 0
    stats["swaps_skipped"] = swapper.skipped if swapper else 0
    stats.update(_displacement_stats(swapper.displacements if swapper else {}, spec))
    delays = delayer.delays if delayer else []
    stats["delayed_segments"] = len(delays)
    stats["delay_extra_mean_ms"] = round(1000 * sum(delays) / len(delays), 3) if delays else 0.0
    stats["events"] = net.events.executed
    stats.update(gateway_stats(net))
    return RunResult(spec, flow.delivered_bytes / spec.duration, flow.delivered_bytes, stats,
                     time.perf_counter() - started, sampler.rows if sampler else [],
                     mss=flow.sender.mss, endpoints=_epdn_seen(flow))


def _stat(stats: Any, name: str) -> int:
    """A counter of an engine's ``stats``, a dict or an object with attributes."""
    value = stats.get(name, 0) if isinstance(stats, dict) else getattr(stats, name, 0)
    return int(value or 0)


def _flow_stats(flow: Any) -> dict:
    return {k: _stat(flow.sender.stats, k) for k in ("retransmits", "spurious_retransmits",
                                                     "fast_retransmits", "timeouts")}


def _epdn_seen(flow: Any) -> dict:
    """What the endpoints saw of EPDN: the stamps B's receiver honoured (a drop reported) and
    ignored, the ACKs it sent with the reorder bit (a gap it took for reordering), and the
    duplicate ACKs with that bit A received. Beside the gateways' drop counters they show
    whether a drop reached the receiver as a stamp ([RDTCP] §7: not from a legacy router)."""
    rcv, snd = flow.receiver.stats, flow.sender.stats
    return {"rcv_epdn_stamps": _stat(rcv, "epdn_stamps"),
            "rcv_epdn_ignored": _stat(rcv, "epdn_ignored"),
            "rcv_reorder_acks": _stat(rcv, "reorder_acks_sent"),
            "snd_reorder_dupacks": _stat(snd, "reorder_dupacks_received")}


def _displacement_stats(displacements: dict[int, int], spec: RunSpec) -> dict:
    """How far the swaps moved packets back: a packet moved back d places draws d duplicate
    ACKs, so swaps with d >= 3 can trigger SACK's fast retransmit and d >= 3 + k RD-TCP's."""
    n = sum(displacements.values())
    return {"swap_displacement_mean": round(sum(d * c for d, c in displacements.items()) / n, 3)
            if n else 0.0,
            "swap_displacement_max": max(displacements, default=0),
            "swaps_reaching_3_dupacks": sum(c for d, c in displacements.items() if d >= 3),
            "swaps_reaching_3k_dupacks": sum(c for d, c in displacements.items()
                                             if d >= 3 + spec.k)}


# §4: the runs above; RD-TCP's Figures 1-4 (topologies.PaperTopo), and the incremental
# deployment of §7 (legacy routers, drops at R2), which only this scenario's run reads
SCENARIO = Scenario("rdtcp", "rdtcp_paper", MTU, "[RDTCP] §4", run=run_paper,
                    settings=("legacy", "r2_drop"),
                    settings_name="the incremental deployment's settings ([RDTCP] §7)")
register(SCENARIO)
