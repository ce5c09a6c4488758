"""One run of RD-TCP's simulation scenario (seeds/003-rd-tcp-epdn.txt §4) in virtual time.

Scenario, as the paper states it: hosts A and B, gateways R1 and R2 (``topologies.PaperTopo``);
1500-byte packets (MTU 1500, so MSS 1460; RD-TCP flows send 1448-byte segments, keeping 12
bytes for the EPDN option: the row's ``mss``); maximum congestion window 500 segments;
drop-tail buffer of 65 packets at R1's bottleneck port, enforced by the P4 gateway itself
(design.md, "Drops the program can see") with the traffic-manager queue configured deeper; one
bulk transfer from A to B; no delayed ACKs (ns-2's default TCP sink). Reordering is either the
paper's random queue swaps at R1's bottleneck queue (``sim.reorder``), one of the gateway's
own P4 injection modes, set through the controller's impairment knobs, or reordering by delay
on the bottleneck link (``sim.reorder.PacketDelayer``, the model of 000 and of 003 §7).
Incremental deployment (003 §7): either gateway, or both, may run as a legacy router (``legacy``,
the gateway program's legacy mode: the same queue, no EPDN), and R2 may drop data segments on
their way to B (``r2_drop``, the gateway's drop injection), so that loss can happen at either.

Throughput is what the paper plots: data bytes delivered in order to B's application over the
whole run, divided by the run's duration.
"""

from __future__ import annotations

import math
import numbers
import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from experiments.studies.dbce.networks import NETWORKS as DBCE_NETWORKS
from experiments.runner.gateways import LEGACY_SETTINGS, configure_gateway, gateway_stats
from hosts.tcp import TcpConfig
from hosts.tcp.variants import VARIANTS as ALL_VARIANTS
from hosts.tcp.variants import get_variant
from hosts.tcp.variants.rdtcp import RdTcp
from sim import program as gateway_source  # its gateway_json is looked up at each call
from sim.flows import add_bulk_flow
from sim.network import Network
from sim.delays import parse as parse_delay_distribution
from sim.reorder import PacketDelayer, QueueSwapper
from sim.trace import FlowSampler
from toolchain.switch import load_program
from toolchain.switch.errors import LoadError
from topologies import topos

__all__ = ["RunSpec", "run_paper", "PAPER", "BOTTLENECK_BPS", "INJECTIONS", "P4_INJECTIONS",
           "Scenario", "SCENARIOS",
           "DELAY_MEAN", "DELAY_SD", "VARIANTS", "SENDERS",
           "PAPER_VARIANTS", "RDTCP_VARIANTS", "ProgramError", "gateway_program"]

BOTTLENECK_BPS = 5e6          # §4: R1–R2 at 5 Mb/s
BUFFER_PACKETS = 65           # §4: "The queue size used was 65 segments", drop-tail
MAX_CWND_SEGMENTS = 500       # §4: "The maximum congestion window was 500 segments"
MTU = 1500                    # §4: "1500 byte segments"
MSS = MTU - 40                # IPv4 + TCP headers without options
RDTCP_K = 3                   # §6: "we present the results for value of k = 3 (dupthresh = 6)"
TM_DEPTH = 4 * BUFFER_PACKETS  # traffic-manager queue deeper than the program's own limit
NETRENO_MTU = 512 + 40        # 002 §3: "Maximum segment size is 512 bytes"
# the paper's three senders, then Blanton and Allman's DSACK schemes that adapt dupthresh (003 §2
# cites them as [10]; Fig. 4's "TCP using DSACK" may be one of them: hosts/tcp/variants/dsack.py),
# then RD-TCP with the two ways of setting k that 003 §3 proposes for further research: raised
# by one per false fast retransmit, or set from the reordering measured (variants/rdtcp.py), the
# latter also with DSACK undo of the false fast retransmits that teach it k; then
# Eifel (001's other detector: RFC 3522 timestamps, undo at the first ACK; variants/eifel.py);
# then RACK-TLP (RFC 8985), time-based loss detection, today's reference point (variants/rack.py),
# and RR-TCP (seed 000's DSACK-TA: dupthresh from a reordering histogram, variants/rrtcp.py)
PAPER_VARIANTS = ("sack", "dsack", "rdtcp")
VARIANTS = PAPER_VARIANTS + ("dsack-inc", "dsack-avg", "rdtcp-adaptive", "rdtcp-measured",
                             "rdtcp-measured-undo", "eifel", "rack", "rrtcp")
# every registered sender (hosts.tcp.variants), which any run may use (one_run, live_run, the
# sweeps' --variants); VARIANTS above is only the RD-TCP sweep's default set
SENDERS = tuple(sorted(ALL_VARIANTS))
# the senders that negotiate RD-TCP: the RD-TCP policy or one derived from it
RDTCP_VARIANTS = tuple(v for v in SENDERS if issubclass(get_variant(v), RdTcp))
INJECTIONS = ("swap", "altpath", "recirc", "delay")
# "delay": reordering by delay on the bottleneck link (000 §5 Fig. 4's model, which 003 §7 asks
# RD-TCP to be tested with): a data segment is delayed by a further N(25 ms, 8 ms) with
# probability ``level``; later segments overtake it (sim.reorder.PacketDelayer)
DELAY_MEAN = 0.025
DELAY_SD = 0.008
P4_INJECTIONS = ("altpath", "recirc")   # run for the paper's senders: the gateway's own knobs



@dataclass(frozen=True)
class Scenario:
    """The network a run's transfer crosses: a dumbbell class of ``topologies`` (its defaults
    are the paper's rates, delays and R1's drop-tail buffer; Mininet builds the same class) and
    the IP packet size the senders fill (their MSS is this less 40 header bytes)."""

    name: str
    topo: str           # a key of topologies.topos
    mtu: int
    cite: str

    @property
    def mss(self) -> int:
        return self.mtu - 40


SCENARIOS = {s.name: s for s in (
    # 003 §4: the runs above; RD-TCP's Figures 1-4 (topologies.PaperTopo)
    Scenario("rdtcp", "rdtcp_paper", MTU, "003 §4"),
    # 000 §5, Fig. 3 and Table 2 (topologies.RrTcpTopo): one flow over a 50 ms bottleneck
    # whose capacity is exactly maxwnd / RTT, 1000-byte packets, no drops ("without introducing
    # packet drops", §5.1.1). The run sets maxwnd (max_cwnd_segments).
    Scenario("rrtcp", "rrtcp_paper", 1000, "000 §5"),
    # 001 §5.1, Tables 1-3 (topologies.FrtoTopo): a 100 KB transfer over a 28.8 kbit/s link with
    # 200 ms one-way delay behind a 7-packet router buffer, 296-byte packets (MSS 256), in the
    # paper's three scenarios: delay spikes (the run's level: stall probability per packet),
    # random losses (level: loss probability) and loss bursts. Their runs are
    # experiments.studies.frto.scenario's (Linux 2.4 timers, delayed ACKs, the link models of sim.impair).
    Scenario("frto-delay", "frto_paper", 296, "001 §5.1 DELAY, Table 1"),
    Scenario("frto-loss", "frto_paper", 296, "001 §5.1 LOSS, Table 2"),
    Scenario("frto-burst", "frto_paper", 296, "001 §5.1 BURST, Table 3"),
    # 001 §5.3, Fig. 9: six 50 KB transfers over the same path, three conventional ones at 0 s
    # and three of the run's variant at 3 s, with DELAY's stalls (level 0.02) or without (0)
    Scenario("frto-fair", "frto_paper", 296, "001 §5.3 fairness, Fig. 9"),
    # 002 §7.1 (Tables 1-2), §7.2 (Table 3), §4.1 (Fig. 1): topologies.netreno's networks,
    # 512-byte segments; their runs are experiments.studies.netreno.scenario's
    Scenario("netreno-sim", "netreno_sim", NETRENO_MTU, "002 §7.1, RED, Tables 1-2"),
    Scenario("netreno-sim-droptail", "netreno_sim", NETRENO_MTU, "002 §7.1, drop-tail"),
    Scenario("netreno-lab", "netreno_lab", NETRENO_MTU, "002 §7.2, RED, Table 3"),
    Scenario("netreno-lab-droptail", "netreno_lab", NETRENO_MTU, "002 §7.2, drop-tail"),
    Scenario("netreno-trace", "netreno_lab", NETRENO_MTU, "002 §4.1, Fig. 1"),
    # 004 ch. 4-5: many connections over varied dumbbells (experiments.studies.dbce.networks);
    # their runs are experiments.studies.dbce.scenario's
    *(Scenario(name, "rdtcp_paper", MTU, "004 ch. 4-5") for name in DBCE_NETWORKS),
)}

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
PAPER[("rrtcp", 15)] = PAPER[("dsack", 15)]       # RR-TCP: a DSACK scheme (000)


@dataclass(frozen=True)
class RunSpec:
    """One point of one seed: which sender, which reordering, how long."""

    variant: str
    swaps: int = 0                # queue swaps per interval (injection "swap")
    interval: float = 1.0         # seconds
    seed: int = 1
    duration: float = 600.0       # seconds of virtual time
    injection: str = "swap"       # "swap" (the paper's), "altpath"/"recirc" (P4 knobs), "delay"
    level: float = 0.0            # probability of the injection per data packet
    alt_extra_delay: str = "10ms"  # extra delay of the alternate path ("altpath")
    k: int = RDTCP_K
    swap_span: int = 0            # max places between swapped packets (0: anywhere, sim.reorder)
    sample_step: float = 0.0      # > 0: record per-flow time series at this step
    max_cwnd_segments: int = MAX_CWND_SEGMENTS
    scenario: str = "rdtcp"       # the network: SCENARIOS (003's dumbbell, or 000's)
    # 000's impairments, scenario "rrtcp" only (experiments.studies.rrtcp.scenario)
    delay: str = ""               # a delayed packet's extra delay (sim.delays); "": N(25, 8) ms
    ack_level: float = 0.0        # probability that an ACK is delayed alike (000 §5.4)
    drop: float = 0.0             # data packets dropped by R1's P4 drop_prob (000 §5.1.2)
    bursts: float = 0.0           # drop-event start probability per data packet (000 §5.7)
    path_delay: float = 0.0       # the bottleneck's one-way delay P, s (0: the topology's own)
    fa_ratio: float = 0.0         # a fixed FA ratio for DSACK-FA senders (0: theirs, 0.90)
    legacy: str = "none"          # legacy routers (003 §7): "none", "r1", "r2" or "both"
    r2_drop: float = 0.0          # probability per data segment of a drop at R2 (towards B)

    def __post_init__(self) -> None:
        self._check_types()
        if self.variant not in ALL_VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; choose from "
                             f"{', '.join(sorted(ALL_VARIANTS))}")
        if self.scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {self.scenario!r}; choose from "
                             f"{', '.join(SCENARIOS)}")
        if self.injection not in INJECTIONS:
            raise ValueError(f"unknown injection {self.injection!r}; "
                             f"choose from {', '.join(INJECTIONS)}")
        # nan slips through the checks below (nan <= 0 is False); inf would never end a run
        for name in _FLOAT_FIELDS:
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"{name} must be a finite number, got {getattr(self, name)}")
        if self.duration <= 0 or self.interval <= 0:
            raise ValueError("duration and interval must be positive seconds")
        if self.swaps < 0 or not 0.0 <= self.level <= 1.0:
            raise ValueError("swaps must be >= 0 and level a probability in [0, 1]")
        if self.k < 0 or self.swap_span < 0:
            raise ValueError("k and swap_span must be >= 0")
        if self.seed < 1:
            raise ValueError("seed must be >= 1 (the sweeps number their seeds 1, 2, ...)")
        if self.sample_step < 0 or self.max_cwnd_segments < 1:
            raise ValueError("sample_step must be >= 0 (0: no series) and max_cwnd_segments >= 1")
        self._check_000_fields()
        self._check_deployment()

    def _check_000_fields(self) -> None:
        """000's impairments: in range, and only on 000's scenario, whose run reads them."""
        for name in ("ack_level", "drop", "bursts", "fa_ratio"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.path_delay < 0:
            raise ValueError(f"path_delay must be >= 0 seconds, got {self.path_delay}")
        if self.delay:      # DistributionError names the problem; one spelling per run
            object.__setattr__(self, "delay", str(parse_delay_distribution(self.delay)))
        if self.scenario != "rrtcp" and any(getattr(self, name) for name in _RRTCP_FIELDS):
            raise ValueError(f"{', '.join(n for n in _RRTCP_FIELDS if getattr(self, n))}: "
                             f"000's impairments apply to scenario 'rrtcp' only")

    def _check_deployment(self) -> None:
        """Legacy routers and R2's drops are settings of 003's dumbbell run by ``run_paper``."""
        if self.legacy not in LEGACY_SETTINGS:
            raise ValueError(f"unknown legacy setting {self.legacy!r}; choose from "
                             f"{', '.join(LEGACY_SETTINGS)}")
        if not 0.0 <= self.r2_drop <= 1.0:
            raise ValueError("r2_drop must be a probability in [0, 1]")
        if (self.legacy != "none" or self.r2_drop) and self.scenario != "rdtcp":
            raise ValueError(f"legacy and r2_drop are settings of the rdtcp scenario (003 §7), "
                             f"not of {self.scenario!r}")

    def _check_types(self) -> None:
        """TypeError for a field of the wrong type (a spec read back from JSON may carry
        anything); whole numbers in float fields become floats, so 5 and 5.0 are one spec."""
        for name in _STR_FIELDS:
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string, got {getattr(self, name)!r}")
        for name in _INT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{name} must be an integer, got {value!r}")
            object.__setattr__(self, name, int(value))
        for name in _FLOAT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{name} must be a number, got {value!r}")
            object.__setattr__(self, name, float(value))


_STR_FIELDS = ("variant", "injection", "alt_extra_delay", "scenario", "delay", "legacy")
_INT_FIELDS = ("swaps", "seed", "k", "swap_span", "max_cwnd_segments")
_FLOAT_FIELDS = ("interval", "duration", "level", "sample_step", "ack_level", "drop", "bursts",
                 "path_delay", "fa_ratio", "r2_drop")
_RRTCP_FIELDS = ("delay", "ack_level", "drop", "bursts", "path_delay", "fa_ratio")


@dataclass
class RunResult:
    spec: RunSpec
    throughput_Bps: float
    delivered_bytes: int
    stats: dict = field(default_factory=dict)
    wall_s: float = 0.0
    series: list = field(default_factory=list)
    mss: int = 0        # the sender's segment size: MSS less 12 bytes for EPDN on RD-TCP flows
    endpoints: dict = field(default_factory=dict)   # what the hosts saw of EPDN (_epdn_seen)

    def row(self) -> dict:
        return {**asdict(self.spec), "throughput_Bps": round(self.throughput_Bps, 3),
                "delivered_bytes": self.delivered_bytes, "mss": self.mss,
                "wall_s": round(self.wall_s, 3), **self.stats, **self.endpoints}


def tcp_config(spec: RunSpec) -> Any:
    """The sender's and receiver's engine configuration for the scenario."""
    policy = get_variant(spec.variant)
    return TcpConfig(variant=spec.variant, mss=SCENARIOS[spec.scenario].mss,
                     sack=policy.offers_sack, timestamps=policy.needs_timestamps,
                     window_scale=7, rdtcp=spec.variant in RDTCP_VARIANTS, rdtcp_k=spec.k,
                     delayed_ack=False, max_cwnd_segments=spec.max_cwnd_segments)


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
              pcap_at: str = "r1") -> RunResult:
    """Simulate ``spec`` to completion and return its throughput and counters; with ``pcap``,
    capture at ``pcap_at`` (a key of CAPTURE_POINTS)."""
    if any(getattr(spec, name) for name in _RRTCP_FIELDS):
        raise ValueError("000's impairments are run by experiments.studies.rrtcp.scenario")
    started = time.perf_counter()   # wall clock for the report only; the simulation never reads it
    net = build_network(spec, program)
    if pcap:
        node1, node2, port, at = CAPTURE_POINTS[pcap_at]
        net.capture(node1, node2, pcap, port=port, at=at)
    flow = add_bulk_flow(net, "a", "b", config=tcp_config(spec))
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
    whether a drop reached the receiver as a stamp (003 §7: not from a legacy router)."""
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


class ProgramError(Exception):
    """The gateway program cannot be found, read or loaded; the message says which and why."""


def gateway_program() -> tuple[str, Any]:
    """The gateway program the runs load: its path (for worker processes) and the loaded program.
    ``RDTCP_PROGRAM`` names a BMv2 JSON to use; without it p4src/rdtcp.p4 is compiled to
    build/rdtcp.json (or the cached one reused). ProgramError when the file is missing,
    unreadable or not a program the target can load, checked here once rather than in every
    worker (a pool whose initializer fails restarts it for ever)."""
    override = os.environ.get("RDTCP_PROGRAM")
    where = f"RDTCP_PROGRAM={override}" if override else "the gateway program"
    try:
        gateway_source.gateway_json()   # compile (or reuse the cache); reads an override
        path = override or str(gateway_source.REPO_ROOT / "build" / "rdtcp.json")
        return path, load_program(path)
    except OSError as exc:
        raise ProgramError(f"{where}: cannot read it: {exc.strerror or exc}") from None
    except RuntimeError as exc:         # stale JSON and no interpreter to run the front end
        raise ProgramError(str(exc)) from None
    except (ValueError, LoadError) as exc:      # not JSON (incl. not UTF-8), or not BMv2 JSON
        raise ProgramError(f"{where}: not a BMv2 JSON program the target can load: {exc}") \
            from None
