"""Configure the simulated gateways through the controller (never by hand-written P4 state).

The config is the controller's schema (controller/README.md) as a dict: routes from the
network's shortest paths, edge ports where hosts attach (EPDN trust boundary), the drop-tail
buffer limit that the P4 program enforces on every link with ``max_queue_size``, and, on R1's
bottleneck port, the P4 reordering injection of the run (alternate path or recirculation).
"""

from __future__ import annotations

from typing import Any

__all__ = ["gateway_config", "configure_gateway", "gateway_counters", "REORDER_GATEWAY",
           "BOTTLENECK_PORT", "ALT_PORT", "RECIRC_LOOPS"]

REORDER_GATEWAY = "r1"   # 003 §4: the reordering gateway is R1, at its bottleneck queue
BOTTLENECK_PORT = 2      # topologies.PaperTopo: r1 port 2 -> r2
ALT_PORT = 3             # topologies.PaperTopo(alt_extra_delay=...): the longer second link
RECIRC_LOOPS = 1         # one extra pass through the bottleneck queue per reordered packet


def gateway_config(net: Any, name: str, *, tm_depth: int, impair: dict | None = None) -> dict:
    """The controller config of switch ``name`` in ``net``."""
    ports: dict[str, dict] = {}
    for (node, port), (peer, _) in sorted(net.neighbours.items()):
        if node != name:
            continue
        entry: dict[str, Any] = {"mtu": 1500}
        if peer in net.hosts:
            entry["edge"] = True
        limit = net.topo.linkInfo(node, peer, key=_link_key(net, node, port)).get("max_queue_size")
        if limit:
            entry["buffer_limit"] = int(limit)
            entry["tm_depth"] = max(int(tm_depth), int(limit) + 1)
        ports[str(port)] = entry
    if impair:
        ports.setdefault(str(BOTTLENECK_PORT), {})["impair"] = impair
    routes = [{"prefix": r.prefix, "port": r.port, "next_hop_mac": r.next_hop_mac}
              for r in net.routes(name)]
    return {"name": name, "routes": routes, "ports": ports}


def _link_key(net: Any, node: str, port: int) -> int:
    for i, (_, _, info) in enumerate(net.topo.links(withInfo=True)):
        if (info["node1"], info["port1"]) == (node, port) or \
           (info["node2"], info["port2"]) == (node, port):
            return i
    raise KeyError(f"no link on {node} port {port}")


def impairment(injection: str, level: float) -> dict | None:
    """The controller's impairment knobs for a run's P4 reordering injection."""
    if injection == "recirc" and level > 0:
        return {"recirc_prob": level, "recirc_loops": RECIRC_LOOPS}
    if injection == "altpath" and level > 0:
        return {"alt_prob": level, "alt_port": ALT_PORT}
    return None


def configure_gateway(net: Any, name: str, switch: Any, *, spec: Any) -> None:
    """``Network.from_topo``'s configure hook for the paper's runs."""
    from controller import Controller
    from controller.drivers import EmbeddedDriver
    from experiments.paper import TM_DEPTH

    impair = impairment(spec.injection, spec.level) if name == REORDER_GATEWAY else None
    Controller(EmbeddedDriver(switch)).apply(gateway_config(net, name, tm_depth=TM_DEPTH,
                                                            impair=impair))


def gateway_counters(switch: Any) -> dict[str, int]:
    """Packet counts of the gateway's drop, EPDN and reordering counters, flat."""
    from controller import Controller
    from controller.drivers import EmbeddedDriver

    report = Controller(EmbeddedDriver(switch)).report(ports=[])
    out = {}
    for group in ("drops", "epdn_events", "reorders"):
        for label, value in report[group].items():
            out[f"{group}_{label}"] = int(value["packets"])
    return out
