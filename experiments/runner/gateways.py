"""The paper runs' gateway setup: ``sim.gateway``'s default config plus the run's P4 reordering
injection on R1's bottleneck port (alternate path or recirculation), through the controller; and
for incremental deployment ([RDTCP] §7) which gateways run as legacy routers and the drops injected
at R2."""

from __future__ import annotations

from typing import Any

from sim.gateway import configure_gateway as _configure
from sim.gateway import gateway_config, gateway_counters

__all__ = ["configure_gateway", "gateway_config", "gateway_counters", "gateway_impairment",
           "gateway_stats", "impairment", "legacy_routers",
           "REORDER_GATEWAY", "BOTTLENECK_PORT", "ALT_PORT", "RECIRC_LOOPS", "LEGACY_SETTINGS",
           "R2_TOWARDS_B", "TM_DEPTH"]

# the traffic-manager queues of every run's gateways, in packets: four times RD-TCP's 65-packet
# buffer ([RDTCP] §4) and deeper than any topology's buffer, so the program's own drop-tail
# limit (or RED) decides the drops, as a drop the program can see (it stamps EPDN on it)
TM_DEPTH = 4 * 65

REORDER_GATEWAY = "r1"   # [RDTCP] §4: the reordering gateway is R1, at its bottleneck queue
BOTTLENECK_PORT = 2      # topologies.PaperTopo: r1 port 2 -> r2
ALT_PORT = 3             # topologies.PaperTopo(alt_extra_delay=...): the longer second link
RECIRC_LOOPS = 1         # one extra pass through the bottleneck queue per reordered packet
R2_TOWARDS_B = 1         # topologies.PaperTopo: r2 port 1 -> b, where R2's injected drops act
# Incremental deployment ([RDTCP] §7): which of the two gateways are legacy routers, not upgraded
# to RD-TCP ("none": both are RD-TCP gateways, the paper's network).
LEGACY_SETTINGS = ("none", "r1", "r2", "both")


def legacy_routers(setting: str) -> tuple[str, ...]:
    """The gateways a run's ``legacy`` setting makes legacy routers."""
    return {"none": (), "r1": ("r1",), "r2": ("r2",), "both": ("r1", "r2")}[setting]


def impairment(injection: str, level: float) -> dict | None:
    """The controller's impairment knobs for a run's P4 reordering injection."""
    if injection == "recirc" and level > 0:
        return {"recirc_prob": level, "recirc_loops": RECIRC_LOOPS}
    if injection == "altpath" and level > 0:
        return {"alt_prob": level, "alt_port": ALT_PORT}
    return None


def gateway_impairment(name: str, spec: Any, *, drop: float = 0.0) -> dict | None:
    """Gateway ``name``'s per-port impairment config for a run: on R1's bottleneck port the
    run's P4 reordering injection and, for live runs, an injected drop probability; on R2's
    port towards B the run's injected drops (``r2_drop``: loss downstream of the bottleneck,
    where R1's queue cannot see it, the router [RDTCP] §7 may leave unupgraded)."""
    if name == "r2":
        r2_drop = getattr(spec, "r2_drop", 0.0)
        return {R2_TOWARDS_B: {"drop_prob": r2_drop}} if r2_drop > 0 else None
    if name != REORDER_GATEWAY:
        return None
    knobs = dict(impairment(spec.injection, spec.level) or {})
    if drop > 0:
        knobs["drop_prob"] = drop
    return {BOTTLENECK_PORT: knobs} if knobs else None


def gateway_stats(net: Any) -> dict[str, int]:
    """Both gateways' counters for a run's row: ``r1_drops_buffer``, ``r2_epdn_events_...``."""
    return {f"{name}_{key}": value for name in ("r1", "r2")
            for key, value in gateway_counters(net.switches[name].switch).items()}


def configure_gateway(net: Any, name: str, switch: Any, *, spec: Any, tm_depth: int,
                      drop: float = 0.0) -> None:
    """``Network.from_topo``'s configure hook for a scenario's runs: the default gateway
    config, traffic-manager queues ``tm_depth`` deep, the run's impairments, and a legacy
    router where the run's ``legacy`` setting names this gateway."""
    _configure(net, name, switch, tm_depth=tm_depth,
               impair=gateway_impairment(name, spec, drop=drop),
               legacy=name in legacy_routers(getattr(spec, "legacy", "none")))
