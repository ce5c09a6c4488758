"""One run of [TCPDEBUG] ch. 4-5's study in virtual time: many TCP connections over one of the
networks of ``experiments.studies.dbce.networks``, through the P4 gateways, captured at the
senders' interface and analysed as [TCPDEBUG] analyses its Internet traces.

The workload stands in for [TCPDEBUG]'s traces (§5.2: connections of at least 10 segments, most of
them short, the bytes in a few long ones; four sender OSes): transfers from host a to host b
arriving as a Poisson process (``RATE`` a second) during the first ``ACTIVE`` of the run, sizes
from a bounded Pareto distribution (``SIZE_MIN`` to ``SIZE_MAX``, shape ``SIZE_SHAPE``), each
sender on one of [TCPDEBUG] Table 4.5's stacks (``hosts.tcp.profiles``: Linux 2.4, Windows XP, FreeBSD
4.10, Solaris) drawn at random; the receiver closes when the sender has. The run's
``injection``/``level`` reorder packets in R1's P4 program (recirculation or the alternate path),
the network's ``drop`` makes the program drop data packets, its ``cross`` adds a bulk transfer
each way for the whole run (not scored: it is the connections' cross traffic). Everything random
is drawn from the run's seed (``Network.derive_seed``).

After the run the capture at a (``experiments.studies.rdtcp.scenario.CAPTURE_POINTS["a"]``) goes
through the analyzer (``analyzer.Analyzer`` with ``on_series``) and every connection's series
through ``analyzer.study.evaluate``; the row carries those results (``connections``), each with
what the workload gave it (``os``, ``size``, ``completed``).
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from typing import Any

from analyzer import AnalyzerConfig, analyze_file
from analyzer.study import evaluate
from experiments.runner.gateways import TM_DEPTH, configure_gateway, gateway_stats
from experiments.runner.spec import SCENARIOS, RunResult, RunSpec, Scenario, register
from experiments.studies.dbce.networks import NETWORKS
from hosts.apps import ClosingSink, FileSender
from hosts.tcp import TcpConfig
from hosts.tcp.profiles import profile_config
from hosts.tcp.variants import get_variant
from sim.flows import add_bulk_flow
from sim.network import Network
from topologies import topos

__all__ = ["run_dbce", "dbce_config", "workload", "OS_PROFILES", "RATE", "ACTIVE",
           "SIZE_MIN", "SIZE_MAX", "SIZE_SHAPE", "FIRST_PORT", "CROSS_PORTS"]

OS_PROFILES = ("linux-2.4", "windows-xp", "freebsd-4.10", "solaris")  # [TCPDEBUG] Table 4.5
# the analyzer's profile of each (analyzer/profiles.py): the timer replay's baseline is the
# stack the connection really ran ([TCPDEBUG] §4.4.2 compares each OS with its own defaults)
ANALYZER_PROFILE = {"linux-2.4": "linux24", "windows-xp": "winxp",
                    "freebsd-4.10": "freebsd410", "solaris": "solaris"}
RATE = 1.0                  # connections a second
ACTIVE = 0.5                # connections start in the first half of the run
SIZE_MIN = 20_000           # bytes: more than 10 segments of 1460 ([TCPDEBUG] §5.2's filter)
SIZE_MAX = 4_000_000
SIZE_SHAPE = 0.7            # heavy-tailed: most connections short, most bytes in long ones
FIRST_PORT = 40000
CROSS_PORTS = (7000, 7001)  # a -> b and b -> a bulk transfers of "cross" networks
MAX_CONNECTIONS = 2000
MTU = 1500                  # [RDTCP]'s dumbbell's packets, as its other settings


def dbce_config(spec: RunSpec, os_profile: str) -> Any:
    """A connection's engine configuration: the variant (its SACK offer) on ``os_profile``'s
    timers and dupthresh, no delayed ACKs ([TCPDEBUG] App. A-B's models assume none)."""
    policy = get_variant(spec.variant)
    base = TcpConfig(variant=spec.variant, mss=SCENARIOS[spec.scenario].mss,
                     sack=policy.offers_sack, timestamps=policy.needs_timestamps,
                     window_scale=7, delayed_ack=False,
                     max_cwnd_segments=spec.max_cwnd_segments)
    return profile_config(os_profile, base)


def _pareto(rng, low: float, high: float, shape: float) -> int:
    """A bounded Pareto draw (inverse transform)."""
    u = rng.random()
    ratio = (low / high) ** shape
    return int(low / (1 - u * (1 - ratio)) ** (1 / shape))


def workload(spec: RunSpec, seed: int) -> list[dict]:
    """The run's connections: start time, size, OS profile, port (a function of the seed)."""
    rng = random.Random(seed)
    out = []
    t = rng.expovariate(RATE)
    while t < ACTIVE * spec.duration and len(out) < MAX_CONNECTIONS:
        out.append({"start": round(t, 6), "size": _pareto(rng, SIZE_MIN, SIZE_MAX, SIZE_SHAPE),
                    "os": rng.choice(OS_PROFILES), "port": FIRST_PORT + len(out)})
        t += rng.expovariate(RATE)
    return out


def _build_network(spec: RunSpec, program: Any) -> Any:
    """The network's dumbbell with both gateways configured by the controller: R1's reordering
    injection (the spec's) and the network's drop probability on its bottleneck port."""
    net_cfg = NETWORKS[spec.scenario]

    def configure(net, name, sw):
        configure_gateway(net, name, sw, spec=spec, tm_depth=TM_DEPTH, drop=net_cfg["drop"])

    alt = spec.alt_extra_delay if spec.injection == "altpath" else None
    topo = topos[SCENARIOS[spec.scenario].topo](
        bottleneck_bw=net_cfg["bw"], bottleneck_delay=net_cfg["delay"],
        queue=net_cfg["queue"], alt_extra_delay=alt)
    return Network.from_topo(topo, program=program, seed=spec.seed, tm_depth=TM_DEPTH,
                             configure=configure)


def _check(spec: RunSpec) -> None:
    if spec.scenario not in NETWORKS:
        raise ValueError(f"run_dbce runs the scenarios {', '.join(NETWORKS)}, "
                         f"not {spec.scenario!r}")
    if spec.injection in ("swap", "delay") and (spec.swaps or spec.level):
        raise ValueError("[TCPDEBUG]'s study reorders in the P4 gateway only: injection altpath or "
                         "recirc with a level, or none")


def run_dbce(spec: RunSpec, program: Any) -> RunResult:
    """Simulate ``spec`` (a dbce-* scenario), analyse its capture at a, return its row."""
    _check(spec)
    started = time.perf_counter()   # wall clock for the report only; the simulation never reads it
    net = _build_network(spec, program)
    fd, pcap = tempfile.mkstemp(prefix="dbce-", suffix=".pcap")
    os.close(fd)
    try:
        net.capture("a", "r1", pcap, at="a")
        plan = workload(spec, net.derive_seed("workload"))
        for c in plan:
            flow = add_bulk_flow(net, "a", "b", config=dbce_config(spec, c["os"]),
                                 start=c["start"], src_port=c["port"], dst_port=5001)
            flow.sender_ep.app = flow.source = FileSender(c["size"])
            flow.receiver_ep.app = flow.sink = c["sink"] = ClosingSink()
        if NETWORKS[spec.scenario]["cross"]:
            cfg = profile_config("rfc5681", dbce_config(spec, "linux-2.4"))
            add_bulk_flow(net, "a", "b", config=cfg, src_port=CROSS_PORTS[0], dst_port=5002)
            add_bulk_flow(net, "b", "a", config=cfg, src_port=CROSS_PORTS[1], dst_port=5003)
        net.run(until=spec.duration)
        net.close()
        sim_s = time.perf_counter() - started
        connections = _analyse(pcap, plan)
    finally:
        os.unlink(pcap)
    stats = _stats(net, plan, connections, sim_s)
    delivered = sum(c["sink"].bytes for c in plan)
    return RunResult(spec, delivered / spec.duration, delivered, stats,
                     time.perf_counter() - started, [], mss=SCENARIOS[spec.scenario].mss)


RFC_PROFILE = "rfc5681"      # the analyzer's RFC-only sender (analyzer/profiles.py)


def _chapter3(summary: dict | None) -> dict | None:
    """What [TCPDEBUG] ch. 3's tables need of a connection's analyzer summary (analyzer.report): its
    out-of-sequence segments, the verdict (its kind and the profiles that explain it), the
    reported profile's classes and needed/unneeded retransmissions by class, the RFC-only
    profile's classes (Table 3.6), the network's
    reorderings and duplicates before the vantage point and their resequencing delays."""
    if summary is None:
        return None
    judged = summary["verdict"]
    profiles = summary.get("profiles") or {}
    profile = profiles.get(judged["reported"]) or {}
    return {"oos": summary["oos_segments"], "verdict": judged["kind"],
            "explains": judged["profiles"], "reported": judged["reported"],
            "classes": profile.get("classes", {}), "need": profile.get("need", {}),
            # Table 3.6: the OS-insensitive, RFC-only reading (the thesis' tcpflows)
            "rfc_classes": (profiles.get(RFC_PROFILE) or {}).get("classes"),
            "reorder": summary["network_reorder"], "duplicate": summary["network_duplicate"],
            "resequencing": summary["resequencing_delay"]}


def _analyse(pcap: str, plan: list[dict]) -> list[dict]:
    """Every planned connection's evaluation (analyzer.study), with its workload and what ch.
    3's tables need of its analyzer summary (``ch3``)."""
    by_port = {c["port"]: c for c in plan}
    out = []
    summaries: dict = {}

    def on_series(series) -> None:
        port = int(series.sender.rsplit(":", 1)[1])
        c = by_port.get(port)
        if c is None or not series.sender.startswith("10.0.1.1:"):
            return                      # cross traffic, or b's direction
        row = evaluate(series, seed=port, baseline=ANALYZER_PROFILE[c["os"]])
        row.update(os=c["os"], size=c["size"], start=c["start"],
                   completed=c["sink"].closed and c["sink"].bytes >= c["size"])
        out.append(row)

    analyze_file(pcap, AnalyzerConfig(vantage="sender"),
                 on_flow=lambda s: summaries.__setitem__(s["sender"], s), on_series=on_series)
    for row in out:
        row["ch3"] = _chapter3(summaries.get(row["sender"]))
    out.sort(key=lambda r: r["connection"])
    return out


def _stats(net: Any, plan: list[dict], connections: list[dict], sim_s: float) -> dict:
    stats = {"planned": len(plan), "analysed": len(connections),
             "completed": sum(bool(c["completed"]) for c in connections),
             "events": net.events.executed, "sim_wall_s": round(sim_s, 3),
             "connections": connections}
    stats.update(gateway_stats(net))
    return stats


# [TCPDEBUG] ch. 4-5: many connections over varied dumbbells (NETWORKS)
register(*(Scenario(name, "rdtcp_paper", MTU, "[TCPDEBUG] ch. 4-5", run=run_dbce) for name in NETWORKS))
