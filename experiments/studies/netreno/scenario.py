"""One run of Net Reno's evaluation ([NETRENO] §4.1, §7) in virtual
time, through the P4 gateway (``topologies.netreno``).

- ``netreno-sim`` (§7.1, Tables 1-2): five always-backlogged senders C1-C5 to one sink through
  gateway r1, whose port to the sink runs RED (buffer 16, min_th 4, max_th 8, w_q 0.002, max_p
  1/50) in the P4 program, configured through the controller (``red`` of the port); each sender
  opens at U(0, 1) s. The row has each connection's RTOs and drops
  (``c1_rtos`` ... ``c5_drops``) and goodput. ``netreno-sim-droptail``: the same network with
  the program's drop-tail buffer of 16 instead of RED ([NETRENO] uses RED "to eliminate the phase
  effects" of drop-tail).
- ``netreno-lab`` (§7.2, Table 3): one backlogged sender through a RED gateway (buffer 20,
  min_th 5, max_th 10, w_q 1/512, max_p 0.02) from 100 to 10 Mb/s; ``spec.level`` adds random
  drops of data packets in the P4 program (its ``drop_prob``; [NETRENO]'s gateway "reported loss rate
  of 1%", RED's own, so the tables run with 0). ``netreno-lab-droptail``: drop-tail 20.
- ``netreno-trace`` (§4.1, Fig. 1): ``TRACE_TRANSFERS`` 100 KB transfers one after another
  (each a new connection) over the lab path with ``TRACE_DELAY`` on both links and the
  program's drop-tail buffer, ``spec.level`` of the data packets dropped at random in the
  gateway; the capture at the sender goes through the analyzer, and the row has every RTO's
  cause and window (analyzer/rto_classes.py) beside the engines' own timeout counts.

Drops per connection are counted exactly: the frames of each sender (data, and the SYN and
ACKs of its opening) that reach r1 less those that leave it towards the sink, after the run's
``spec.duration``, when the senders' links stop carrying anything and ``DRAIN`` seconds empty
the queue. Counters (RTOs, goodput) are read at ``spec.duration``. RTOs are those of data
(``rtos``), the handshake's apart (``syn_rtos``): a sender that opens when the queue is full may
lose its SYN, which [NETRENO]'s always-backlogged connections, open before the runs, could not, and
which no recovery of data avoids.

Every host runs NetBSD 1.2's timers as [NETRENO] §3 states them (``netbsd_config``): 512-byte
segments, delayed ACKs (200 ms), an initial window of one segment, at most 128 segments of
cwnd, the RTO in 500 ms ticks with a 1 s minimum (2 ticks), one RTT sample per flight.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from typing import Any

from analyzer import AnalyzerConfig, analyze_file
from controller import Controller
from controller.drivers import EmbeddedDriver
from experiments.runner.gateways import TM_DEPTH
from experiments.runner.spec import SCENARIOS, RunResult, RunSpec, Scenario, register
from hosts.apps import ClosingSink, FileSender
from hosts.tcp import TcpConfig
from hosts.tcp.variants import get_variant
from sim.flows import add_bulk_flow
from sim.gateway import counters_from_report, gateway_config
from sim.network import Network
from topologies import topos
from topologies.netreno import SEGMENT, SINK_PORT

__all__ = ["run_netreno_sim", "run_netreno_lab", "run_netreno_trace", "netbsd_config",
           "gateway_setup", "gateway_counters", "SIM_SCENARIOS", "LAB_SCENARIOS",
           "TRACE_SCENARIO", "NETRENO_SCENARIOS", "RED_SIM", "RED_LAB", "SIM_SENDERS",
           "TRANSFER_BYTES", "TRACE_TRANSFERS", "TRACE_DELAY", "DRAIN"]

SIM_SCENARIOS = ("netreno-sim", "netreno-sim-droptail")
LAB_SCENARIOS = ("netreno-lab", "netreno-lab-droptail")
TRACE_SCENARIO = "netreno-trace"
NETRENO_SCENARIOS = SIM_SCENARIOS + LAB_SCENARIOS + (TRACE_SCENARIO,)
MTU = 512 + 40                  # [NETRENO] §3: "Maximum segment size is 512 bytes"

# [NETRENO] §7.1: "RED (with buffer size = 16 packets, min_th = 4, max_th = 8, w_q = 0.002, and
# max_p = 1/50)"; the buffer is the topology's max_queue_size
RED_SIM = {"min_th": 4, "max_th": 8, "w_q": 0.002, "max_p": 1 / 50}
# [NETRENO] §7.2: "bufferize=20, min_th=5, max_th=10, w_q=1/512, max_q=0.02" (max_q is max_p)
RED_LAB = {"min_th": 5, "max_th": 10, "w_q": 1 / 512, "max_p": 0.02}
SIM_SENDERS = 5                 # [NETRENO] Fig. 6: C1-C5
START_SPREAD = 1.0              # each sender opens at U(0, 1) s
DRAIN = 2.0                     # seconds to empty r1's queue before drops are counted
LAB_PORT = 2                    # NetRenoLabTopo: r1's port towards the sink
TRANSFER_BYTES = 100 * 1024     # [NETRENO] §4.1: "Each transfer delivered 100KB of data"
TRACE_TRANSFERS = 20            # transfers per run of the trace study
TRACE_DELAY = "12.5ms"          # each link's: a 50 ms round trip, a wide-area path
TRACE_GAP = 0.5                 # seconds between one transfer's end and the next one's SYN
TRACE_LIMIT = 300.0             # seconds a transfer may take at most


def netbsd_config(spec: RunSpec) -> Any:
    """Both ends' engine configuration: the variant (its SACK offer) on NetBSD 1.2's timers
    ([NETRENO] §3)."""
    policy = get_variant(spec.variant)
    return TcpConfig(variant=spec.variant, mss=SCENARIOS[spec.scenario].mss,
                     sack=policy.offers_sack, timestamps=policy.needs_timestamps,
                     window_scale=7, delayed_ack=True, delayed_ack_timeout=0.2,
                     max_cwnd_segments=128, initial_window_segments=1,
                     clock_granularity=0.5, min_rto=1.0, initial_rto=3.0,
                     rtt_sampling="per-flight", rcv_buffer=256 * 1024, snd_buffer=256 * 1024)


def gateway_setup(net: Any, name: str, switch: Any, *, port: int, red: dict | None,
                  drop: float = 0.0) -> list[str]:
    """r1's controller config: the simulator's (routes, edge ports, the P4 buffer limit of
    ``port``), and on ``port`` RED's parameters (``red``, the controller's ``ports.N.red``:
    thresholds in packets of the program's queue; None: drop-tail) and the program's random
    drop of data packets (``drop``). One apply through the controller."""
    cfg = gateway_config(net, name, tm_depth=TM_DEPTH,
                         impair={port: {"drop_prob": drop}} if drop > 0 else None)
    if red is not None:
        cfg["ports"][str(port)]["red"] = dict(red)
    return Controller(EmbeddedDriver(switch)).apply(cfg)


def gateway_counters(switch: Any) -> dict[str, int]:
    """The gateway's packet counters as ``r1_*`` columns: sim.gateway's (drops by cause, EPDN
    events, reorders) and RED's drops (``r1_drops_red``), which the controller reports apart."""
    report = Controller(EmbeddedDriver(switch)).report(ports=[])
    counters = counters_from_report(report, "r1_")
    counters["r1_drops_red"] = int(report["red"]["drops"]["packets"])
    return counters


class _Frames:
    """A tap counting the IPv4 frames of each source address (``by_src``) and, of them, those
    that carry TCP data (``data_by_src``)."""

    def __init__(self) -> None:
        self.by_src: dict[bytes, int] = {}
        self.data_by_src: dict[bytes, int] = {}

    def write(self, _time: float, frame: bytes) -> None:
        if frame[12:14] != b"\x08\x00":
            return
        src = frame[26:30]
        self.by_src[src] = self.by_src.get(src, 0) + 1
        ihl = (frame[14] & 0x0F) * 4
        total = int.from_bytes(frame[16:18], "big")
        doff = (frame[14 + ihl + 12] >> 4) * 4
        if total - ihl - doff > 0:
            self.data_by_src[src] = self.data_by_src.get(src, 0) + 1

    def close(self) -> None:
        pass


def _ip(text: str) -> bytes:
    return bytes(int(x) for x in text.split("."))


def _drop_counter(net: Any, senders: list[str], sink: str) -> tuple:
    """Taps counting each sender's frames into r1 and out towards the sink."""
    into, out = _Frames(), _Frames()
    for host in senders:
        net.channel(host, "r1").rx_taps.append(into)
    net.channel("r1", sink).taps.append(out)
    return into, out


def _stop_and_drain(net: Any, senders: list[str], until: float) -> None:
    """From now on the senders' links carry nothing; run until r1's queue is empty."""
    for host in senders:
        net.channel(host, "r1").gate = lambda frame, departure: None
    net.run(until=until)


class _HandshakeTimeouts:
    """A sender's tracer: how many of its timeouts came before the connection was established
    (its SYN sent again), which no recovery of lost data can avoid; every event also goes to
    ``then`` when given (a traced run's log of the engine's events)."""

    __slots__ = ("count", "established", "then")

    def __init__(self, then: Any = None) -> None:
        self.count, self.established, self.then = 0, False, then

    def __call__(self, event: str, conn: Any, fields: dict) -> None:
        if event == "established":
            self.count, self.established = int(conn.stats.get("timeouts", 0)), True
        if self.then is not None:
            self.then(event, conn, fields)

    def of(self, conn: Any) -> int:
        return self.count if self.established else int(conn.stats.get("timeouts", 0))


def _watch_handshake(flow: Any, then: Any = None) -> _HandshakeTimeouts:
    flow.sender.tracer = watch = _HandshakeTimeouts(then)
    return watch


def _timed(net: Any, tracer: Any) -> Any:
    """An engine tracer calling ``tracer(time, event, fields)`` with the network's clock."""
    if tracer is None:
        return None
    return lambda event, conn, fields: tracer(net.now, event, fields)


def _flow_counters(flow: Any, handshake: _HandshakeTimeouts, duration: float) -> dict:
    """A sender's counters. ``rtos``: retransmission timeouts of data ([NETRENO]'s Tables 1 and 3);
    ``syn_rtos``: the timeouts of the opening handshake, apart."""
    s = flow.sender.stats
    syn = handshake.of(flow.sender)
    return {"rtos": int(s.get("timeouts", 0)) - syn, "syn_rtos": syn,
            "fast_retransmits": int(s.get("fast_retransmits", 0)),
            "retransmits": int(s.get("retransmits", 0)),
            "goodput_Bps": round(flow.delivered_bytes / duration, 3)}


# ----------------------------------------------------------------------------- §7.1
def _check(spec: RunSpec, scenarios: tuple) -> None:
    if spec.scenario not in scenarios:
        raise ValueError(f"this run is for the scenarios {', '.join(scenarios)}, "
                         f"not {spec.scenario!r}")
    if spec.injection != "swap" or spec.swaps:
        raise ValueError("[NETRENO]'s scenarios take no reordering injection (injection 'swap' "
                         "with swaps 0)")


def _sim_network(spec: RunSpec, program: Any) -> Any:
    red = RED_SIM if spec.scenario == "netreno-sim" else None

    def configure(net, name, sw):
        gateway_setup(net, name, sw, port=SINK_PORT, red=red)

    return Network.from_topo(topos["netreno_sim"](), program=program, seed=spec.seed,
                             tm_depth=TM_DEPTH, configure=configure)


def run_netreno_sim(spec: RunSpec, program: Any, *, pcap: str | None = None,
                    traced: str = "c1", tracer: Any = None) -> RunResult:
    """[NETRENO] §7.1: five backlogged flows through r1 (see the module docstring). With ``pcap``,
    capture sender ``traced``'s interface (every segment it sends, every ACK it gets back),
    as [NETRENO]'s traces of one connection of this network (Figs. 3-5); ``tracer(time, event,
    fields)`` gets that sender's engine events (hosts.tcp's ``trace``)."""
    _check(spec, SIM_SCENARIOS)
    if spec.level:
        raise ValueError("[NETRENO] §7.1's drops are the gateway's own (level 0)")
    started = time.perf_counter()   # wall clock for the report only; the simulation never reads it
    net = _sim_network(spec, program)
    senders = [f"c{i}" for i in range(1, SIM_SENDERS + 1)]
    if traced not in senders:
        raise ValueError(f"no sender {traced!r} to trace; the senders are {', '.join(senders)}")
    if pcap:
        net.capture(traced, "r1", pcap, at=traced)
    into, out = _drop_counter(net, senders, "d")
    starts = random.Random(net.derive_seed("starts"))
    config = netbsd_config(spec)
    flows = [add_bulk_flow(net, host, "d", config=config, src_port=40000 + i,
                           dst_port=5001 + i, start=starts.uniform(0.0, START_SPREAD),
                           name=host)
             for i, host in enumerate(senders)]
    handshakes = [_watch_handshake(f, _timed(net, tracer) if host == traced else None)
                  for host, f in zip(senders, flows)]
    net.run(until=spec.duration)
    stats: dict = {}
    for host, flow, handshake in zip(senders, flows, handshakes):
        for key, value in _flow_counters(flow, handshake, spec.duration).items():
            stats[f"{host}_{key}"] = value
    delivered = sum(f.delivered_bytes for f in flows)
    _stop_and_drain(net, senders, spec.duration + DRAIN)
    net.close()
    for host in senders:
        ip = _ip(net.hosts[host].ip)
        stats[f"{host}_drops"] = into.by_src.get(ip, 0) - out.by_src.get(ip, 0)
        stats[f"{host}_data_into_r1"] = into.data_by_src.get(ip, 0)
    for key in ("rtos", "syn_rtos", "drops", "fast_retransmits", "retransmits"):
        stats[f"total_{key}"] = sum(stats[f"{h}_{key}"] for h in senders)
    stats["events"] = net.events.executed
    stats.update(gateway_counters(net.switches["r1"].switch))
    return RunResult(spec, delivered / spec.duration, delivered, stats,
                     time.perf_counter() - started, [], mss=SEGMENT)


# ----------------------------------------------------------------------------- §7.2
def _lab_network(program: Any, *, seed: int, red: dict | None, drop: float = 0.0,
                 delay: str = "0ms") -> Any:
    def configure(net, name, sw):
        gateway_setup(net, name, sw, port=LAB_PORT, red=red, drop=drop)

    return Network.from_topo(topos["netreno_lab"](delay=delay), program=program, seed=seed,
                             tm_depth=TM_DEPTH, configure=configure)


def run_netreno_lab(spec: RunSpec, program: Any, *, pcap: str | None = None,
                    tracer: Any = None) -> RunResult:
    """[NETRENO] §7.2: one backlogged flow through the RED gateway (see the module docstring). With
    ``pcap``, capture the sender's interface (every segment as s sends it, every ACK as it
    gets back), as [NETRENO]'s traces of single connections (Figs. 2-5); ``tracer(time, event,
    fields)`` gets the sender's engine events (hosts.tcp's ``trace``)."""
    _check(spec, LAB_SCENARIOS)
    started = time.perf_counter()   # wall clock for the report only; the simulation never reads it
    net = _lab_network(program, seed=spec.seed, drop=spec.level,
                       red=RED_LAB if spec.scenario == "netreno-lab" else None)
    if pcap:
        net.capture("s", "r1", pcap, at="s")
    into, out = _drop_counter(net, ["s"], "d")
    flow = add_bulk_flow(net, "s", "d", config=netbsd_config(spec), name="s")
    handshake = _watch_handshake(flow, _timed(net, tracer))
    net.run(until=spec.duration)
    stats = _flow_counters(flow, handshake, spec.duration)
    delivered = flow.delivered_bytes
    _stop_and_drain(net, ["s"], spec.duration + DRAIN)
    net.close()
    ip = _ip(net.hosts["s"].ip)
    arrived = into.by_src.get(ip, 0)
    stats["drops"] = arrived - out.by_src.get(ip, 0)
    stats["loss_rate"] = round(stats["drops"] / arrived, 6) if arrived else 0.0
    stats["goodput_kbps"] = round(delivered * 8 / spec.duration / 1000, 3)
    stats["events"] = net.events.executed
    stats.update(gateway_counters(net.switches["r1"].switch))
    return RunResult(spec, delivered / spec.duration, delivered, stats,
                     time.perf_counter() - started, [], mss=SEGMENT)


# ----------------------------------------------------------------------------- §4.1
class _Transfers:
    """``TRACE_TRANSFERS`` transfers from s to d, each opening ``TRACE_GAP`` after the last
    one's FIN was acknowledged (or ``TRACE_LIMIT`` after it opened)."""

    def __init__(self, net: Any, config: Any) -> None:
        self.net, self.config = net, config
        self.flows: list = []

    def start(self, at: float) -> None:
        if len(self.flows) >= TRACE_TRANSFERS:
            return
        i = len(self.flows)
        n = i + 1
        flow = add_bulk_flow(self.net, "s", "d", config=self.config, start=at,
                             src_port=40000 + i, dst_port=5001, name=f"transfer{n}")
        source = FileSender(TRANSFER_BYTES, lambda now: self._next(n, now + TRACE_GAP))
        flow.sender_ep.app = flow.source = source
        flow.receiver_ep.app = flow.sink = ClosingSink()
        self.flows.append(flow)
        self.net.events.schedule(at + TRACE_LIMIT, lambda _: self._next(n, self.net.now))

    def _next(self, after: int, at: float) -> None:
        if len(self.flows) == after:            # once per transfer, whichever comes first
            self.start(at)


def run_netreno_trace(spec: RunSpec, program: Any) -> RunResult:
    """[NETRENO] §4.1 on simulated transfers (see the module docstring)."""
    _check(spec, (TRACE_SCENARIO,))
    started = time.perf_counter()   # wall clock for the report only; the simulation never reads it
    # the lab path, wide-area delays, drop-tail: RED came after Paxson's traces
    net = _lab_network(program, seed=spec.seed, red=None, drop=spec.level, delay=TRACE_DELAY)
    fd, pcap = tempfile.mkstemp(prefix="netreno-trace-", suffix=".pcap")
    os.close(fd)
    try:
        net.capture("s", "r1", pcap, at="s")
        transfers = _Transfers(net, netbsd_config(spec))
        transfers.start(0.0)
        net.run(until=spec.duration)
        net.close()
        sim_s = time.perf_counter() - started
        rtos = _rto_causes(pcap)
    finally:
        os.unlink(pcap)
    flows = transfers.flows
    completed = sum(f.source.done_at is not None for f in flows)
    stats = {"transfers": len(flows), "completed": completed,
             "engine_timeouts": sum(int(f.sender.stats.get("timeouts", 0)) for f in flows),
             "rtos": rtos, "analyzed_rtos": len(rtos),
             "sim_wall_s": round(sim_s, 3), "events": net.events.executed}
    for cls in ("non_trigger", "multiple_loss", "lost_retransmission"):
        stats[cls] = sum(1 for c, _ in rtos if c == cls)
    delivered = sum(f.sink.bytes for f in flows)
    return RunResult(spec, delivered / spec.duration, delivered, stats,
                     time.perf_counter() - started, [], mss=SEGMENT)


def _rto_causes(pcap: str) -> list:
    """Every RTO of s's connections in the capture: [cause, window in segments] (analyzer/
    rto_classes.py, under the analyzer's NetBSD 1.2 profile: the timers netbsd_config sets)."""
    out: list = []

    def on_flow(summary: dict) -> None:
        if not summary["sender"].startswith("10.0.1.1:"):
            return
        profile = summary.get("profiles", {}).get("netbsd12")
        if profile:
            out.extend([cls, -(-flight // SEGMENT)] for cls, flight in profile["rtos"])

    analyze_file(pcap, AnalyzerConfig(vantage="sender", profiles=("netbsd12",)),
                 on_flow=on_flow)
    return out


# [NETRENO] §7.1 (Tables 1-2), §7.2 (Table 3), §4.1 (Fig. 1): topologies.netreno's networks,
# 512-byte segments
register(Scenario("netreno-sim", "netreno_sim", MTU, "[NETRENO] §7.1, RED, Tables 1-2",
                  run=run_netreno_sim),
         Scenario("netreno-sim-droptail", "netreno_sim", MTU, "[NETRENO] §7.1, drop-tail",
                  run=run_netreno_sim),
         Scenario("netreno-lab", "netreno_lab", MTU, "[NETRENO] §7.2, RED, Table 3",
                  run=run_netreno_lab),
         Scenario("netreno-lab-droptail", "netreno_lab", MTU, "[NETRENO] §7.2, drop-tail",
                  run=run_netreno_lab),
         Scenario(TRACE_SCENARIO, "netreno_lab", MTU, "[NETRENO] §4.1, Fig. 1", run=run_netreno_trace))
