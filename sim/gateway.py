"""Default configuration of simulated switches: the RD-TCP gateway, set up by the controller.

The config is the controller's schema (controller/README.md) as a dict: routes from the
network's fewest-hop paths, edge ports where hosts attach (the EPDN trust boundary), and the
drop-tail buffer limit that the P4 program enforces itself on every link with a
``max_queue_size`` (p4src/README.md, "Why the program keeps its own queue count"), with the traffic-manager queue
configured deeper than that limit. Impairments (``ports.<N>.impair``) are passed in. A switch
can be made a legacy router (``legacy``: the same routes and queues, no EPDN; [RDTCP] §7), whose
config then names no edge port and no MTU, which it would not act on.
"""

from __future__ import annotations

from typing import Any

from controller import Controller
from controller.drivers import EmbeddedDriver
from sim.links import queue_packets

__all__ = ["gateway_config", "configure_gateway", "gateway_counters", "DEFAULT_TM_DEPTH"]

DEFAULT_TM_DEPTH = 1024   # packets; far deeper than any buffer limit, so the program drops first


def gateway_config(net: Any, name: str, *, tm_depth: int = DEFAULT_TM_DEPTH,
                   impair: dict[int, dict] | None = None, legacy: bool = False) -> dict:
    """The controller config of switch ``name`` of ``net``, a ``Network`` or the address plan
    of a Topo (``topologies.addressing.AddressPlan``: a live network's, built without a
    simulator); ``impair`` maps a port to its knobs; ``legacy``: a legacy router instead of the
    RD-TCP gateway."""
    ports: dict[str, dict] = {}
    for (node, port), (peer, _) in sorted(net.neighbours.items()):
        if node != name:
            continue
        entry: dict[str, Any] = {} if legacy else {"mtu": 1500}
        if peer in net.hosts and not legacy:
            entry["edge"] = True
        limit = queue_packets(net.link_info(node, port))
        if limit:
            entry["buffer_limit"] = int(limit)
            entry["tm_depth"] = max(int(tm_depth), int(limit) + 1)
        ports[str(port)] = entry
    for port, knobs in (impair or {}).items():
        ports.setdefault(str(port), {})["impair"] = dict(knobs)
    routes = [{"prefix": r.prefix, "port": r.port, "next_hop_mac": r.next_hop_mac}
              for r in net.routes(name)]
    cfg = {"name": name, "routes": routes, "ports": ports}
    if legacy:
        cfg["legacy"] = True
    return cfg


def configure_gateway(net: Any, name: str, switch: Any, *, tm_depth: int = DEFAULT_TM_DEPTH,
                      impair: dict[int, dict] | None = None, legacy: bool = False) -> list[str]:
    """Apply ``gateway_config`` through the controller; returns the CLI commands it ran."""
    cfg = gateway_config(net, name, tm_depth=tm_depth, impair=impair, legacy=legacy)
    return Controller(EmbeddedDriver(switch)).apply(cfg)


def gateway_counters(switch: Any) -> dict[str, int]:
    """Packet counts of the gateway's drop, EPDN and reordering counters, flat."""
    return counters_from_report(Controller(EmbeddedDriver(switch)).report(ports=[]))


def counters_from_report(report: dict, prefix: str = "") -> dict[str, int]:
    """A controller report's drop, EPDN and reordering packet counts, flat and named as the
    runs' rows name them (``drops_buffer``, or ``r1_drops_buffer`` with prefix ``r1_``)."""
    return {f"{prefix}{group}_{label}": int(value["packets"])
            for group in ("drops", "epdn_events", "reorders")
            for label, value in report[group].items()}
