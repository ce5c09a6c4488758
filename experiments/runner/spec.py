"""What one run is, whichever study makes it: ``RunSpec`` (its description, the spec fields of
every journal row), ``RunResult`` (its numbers) and the scenarios a spec may name
(``SCENARIOS``). A study registers each of its scenarios (``register``) with the function that
runs a spec of it and the spec fields only it reads; the run machinery knows no scenario
before a study registers it, and runs each spec with its scenario's function.

A process that builds, reads or runs specs of a scenario imports the study that registers it
(the drivers import theirs; a worker interpreter is told which, ``experiments.runner.worker``).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable

from experiments.runner.gateways import LEGACY_SETTINGS
from hosts.tcp import TcpConfig
from hosts.tcp.variants import VARIANTS as ALL_VARIANTS
from hosts.tcp.variants import get_variant
from hosts.tcp.variants.rdtcp import RdTcp
from sim.delays import parse as parse_delay_distribution

__all__ = ["RunSpec", "RunResult", "Scenario", "SCENARIOS", "register", "UnknownScenario",
           "tcp_config", "SENDERS", "RDTCP_VARIANTS", "INJECTIONS", "P4_INJECTIONS",
           "DELAY_MEAN", "DELAY_SD", "SETTINGS"]

# every registered sender (hosts.tcp.variants), which any run may use (one_run, live_run, the
# sweeps' --variants)
SENDERS = tuple(sorted(ALL_VARIANTS))
# the senders that negotiate RD-TCP: the RD-TCP policy or one derived from it
RDTCP_VARIANTS = tuple(v for v in SENDERS if issubclass(get_variant(v), RdTcp))
# how a run reorders packets: the simulator's random swaps in R1's bottleneck queue
# (sim.reorder.QueueSwapper), one of the P4 gateway's own injections, set through the
# controller's impairment knobs (experiments.runner.gateways), or delay on the bottleneck link
INJECTIONS = ("swap", "altpath", "recirc", "delay")
P4_INJECTIONS = ("altpath", "recirc")
# "delay": a data segment is delayed by a further N(25 ms, 8 ms) with probability ``level``;
# later segments overtake it (sim.reorder.PacketDelayer). The model of [RRTCP] §5 (its Fig. 4),
# which [RDTCP] §7 asks RD-TCP to be tested with.
DELAY_MEAN = 0.025
DELAY_SD = 0.008
# the spec fields that only some scenarios read: a spec refuses one set on a scenario that has
# not registered it (Scenario.settings), which would ignore it and report a run that was not made
SETTINGS = ("delay", "ack_level", "drop", "bursts", "path_delay", "fa_ratio", "legacy",
            "r2_drop")


@dataclass(frozen=True)
class Scenario:
    """The network a run's transfer crosses: a dumbbell class of ``topologies`` (its defaults
    are the paper's rates, delays and R1's drop-tail buffer; Mininet builds the same class) and
    the IP packet size the senders fill (their MSS is this less 40 header bytes); ``run``, the
    study's function that runs a spec of it (``run(spec, program) -> RunResult``); ``settings``,
    the SETTINGS its run reads, ``settings_name`` what they are (for the error that refuses
    them elsewhere)."""

    name: str
    topo: str           # a key of topologies.topos
    mtu: int
    cite: str
    run: Callable[..., "RunResult"] = field(repr=False)
    settings: tuple[str, ...] = ()
    settings_name: str = ""

    @property
    def mss(self) -> int:
        return self.mtu - 40


# the registered scenarios by name, in the order their studies registered them
SCENARIOS: dict[str, Scenario] = {}


def register(*scenarios: Scenario) -> None:
    """Make ``scenarios`` known to specs and to the pool, which runs each spec with its
    scenario's ``run``. ValueError for a name another scenario holds, or a setting that is not
    one of SETTINGS."""
    for scenario in scenarios:
        unknown = [name for name in scenario.settings if name not in SETTINGS]
        if unknown:
            raise ValueError(f"scenario {scenario.name!r}: {', '.join(unknown)} are not settings "
                             f"a spec has ({', '.join(SETTINGS)})")
        held = SCENARIOS.get(scenario.name)
        if held is not None and held != scenario:
            raise ValueError(f"scenario {scenario.name!r} is registered already, by "
                             f"{held.run.__module__}")
        SCENARIOS[scenario.name] = scenario


class UnknownScenario(ValueError):
    """A spec names a scenario no study imported into this process registered."""


@dataclass(frozen=True)
class RunSpec:
    """One point of one seed: which sender, which reordering, how long. The defaults are
    RD-TCP's dumbbell run ([RDTCP] §4, §6), the lab's reference scenario."""

    variant: str
    swaps: int = 0                # queue swaps per interval (injection "swap")
    interval: float = 1.0         # seconds
    seed: int = 1
    duration: float = 600.0       # seconds of virtual time
    injection: str = "swap"       # "swap" (the paper's), "altpath"/"recirc" (P4 knobs), "delay"
    level: float = 0.0            # probability of the injection per data packet
    alt_extra_delay: str = "10ms"  # extra delay of the alternate path ("altpath")
    k: int = 3                    # RD-TCP's k ([RDTCP] §6: "k = 3 (dupthresh = 6)")
    swap_span: int = 0            # max places between swapped packets (0: anywhere, sim.reorder)
    sample_step: float = 0.0      # > 0: record per-flow time series at this step
    max_cwnd_segments: int = 500  # [RDTCP] §4: "The maximum congestion window was 500 segments"
    scenario: str = "rdtcp"       # the network: a registered Scenario (SCENARIOS)
    # [RRTCP]'s impairments, read by scenario "rrtcp" (experiments.studies.rrtcp.scenario)
    delay: str = ""               # a delayed packet's extra delay (sim.delays); "": N(25, 8) ms
    ack_level: float = 0.0        # probability that an ACK is delayed alike ([RRTCP] §5.4)
    drop: float = 0.0             # data packets dropped by R1's P4 drop_prob ([RRTCP] §5.1.2)
    bursts: float = 0.0           # drop-event start probability per data packet ([RRTCP] §5.7)
    path_delay: float = 0.0       # the bottleneck's one-way delay P, s (0: the topology's own)
    fa_ratio: float = 0.0         # a fixed FA ratio for DSACK-FA senders (0: theirs, 0.90)
    # incremental deployment ([RDTCP] §7), read by scenario "rdtcp"
    legacy: str = "none"          # legacy routers: "none", "r1", "r2" or "both"
    r2_drop: float = 0.0          # probability per data segment of a drop at R2 (towards B)

    def __post_init__(self) -> None:
        self._check_types()
        if self.variant not in ALL_VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; choose from "
                             f"{', '.join(sorted(ALL_VARIANTS))}")
        if self.scenario not in SCENARIOS:
            known = ", ".join(SCENARIOS) or "none (import the study that registers it)"
            raise UnknownScenario(f"unknown scenario {self.scenario!r}; choose from {known}")
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
        self._check_settings()

    def _check_settings(self) -> None:
        """The SETTINGS: in range, and set only on a scenario whose run reads them."""
        for name in ("ack_level", "drop", "bursts", "fa_ratio"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.path_delay < 0:
            raise ValueError(f"path_delay must be >= 0 seconds, got {self.path_delay}")
        if self.delay:      # DistributionError names the problem; one spelling per run
            object.__setattr__(self, "delay", str(parse_delay_distribution(self.delay)))
        if self.legacy not in LEGACY_SETTINGS:
            raise ValueError(f"unknown legacy setting {self.legacy!r}; choose from "
                             f"{', '.join(LEGACY_SETTINGS)}")
        if not 0.0 <= self.r2_drop <= 1.0:
            raise ValueError("r2_drop must be a probability in [0, 1]")
        reads = SCENARIOS[self.scenario].settings
        foreign = [name for name in SETTINGS
                   if getattr(self, name) != _DEFAULTS[name] and name not in reads]
        if foreign:
            owner = next((s for s in SCENARIOS.values() if foreign[0] in s.settings), None)
            what = (f"{owner.settings_name} apply to scenario {owner.name!r} only"
                    if owner else "no registered scenario reads them")
            raise ValueError(f"{', '.join(foreign)}: {what}, not to {self.scenario!r}")

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
_DEFAULTS = {f.name: f.default for f in fields(RunSpec)}


@dataclass
class RunResult:
    spec: RunSpec
    throughput_Bps: float
    delivered_bytes: int
    stats: dict = field(default_factory=dict)
    wall_s: float = 0.0
    series: list = field(default_factory=list)
    mss: int = 0        # the sender's segment size: MSS less 12 bytes for EPDN on RD-TCP flows
    endpoints: dict = field(default_factory=dict)   # what the hosts saw of EPDN

    def row(self) -> dict:
        return {**asdict(self.spec), "throughput_Bps": round(self.throughput_Bps, 3),
                "delivered_bytes": self.delivered_bytes, "mss": self.mss,
                "wall_s": round(self.wall_s, 3), **self.stats, **self.endpoints}


def tcp_config(spec: RunSpec) -> Any:
    """Both ends' engine configuration for ``spec`` on its scenario: the scenario's MSS, the
    sender's SACK and timestamp options, RD-TCP negotiated by the senders that speak it (with
    the spec's k), no delayed ACKs (ns-2's default sink), the spec's window limit. A study
    whose paper sets more (timers, initial window) starts from this."""
    policy = get_variant(spec.variant)
    return TcpConfig(variant=spec.variant, mss=SCENARIOS[spec.scenario].mss,
                     sack=policy.offers_sack, timestamps=policy.needs_timestamps,
                     window_scale=7, rdtcp=spec.variant in RDTCP_VARIANTS, rdtcp_k=spec.k,
                     delayed_ack=False, max_cwnd_segments=spec.max_cwnd_segments)
