"""One run of RR-TCP's evaluation ([RRTCP] §5) in virtual time.

[RRTCP]'s setup (§5, Fig. 3, Table 2): one long-lived flow from a to b across ``topologies.RrTcpTopo``
through the P4 gateways, maxwnd M = 50 packets of 1000 bytes, the bottleneck (R1, R2) with
one-way delay P (``spec.path_delay``, 50 ms unless given) and capacity S = M/R, so that an
unimpaired window builds no queue. The bottleneck carries [RRTCP]'s impairments, each where it can
be made:

* reordering of data packets by delay (§2.4, §5): each data packet is delayed with probability
  ``spec.level`` by a draw of ``spec.delay`` (``sim.delays``; N(25 ms, 8 ms) by default) and
  overtaken by the packets behind it. The P4 gateway cannot draw a random delay per packet
  (its recirculation delays a packet by one more pass through R1's queue, a packet time, and
  spends link capacity on every pass; its alternate path adds one constant), so this is the
  simulator's delay element on the link (``sim.reorder.PacketDelayer``), injection "delay".
* two paths of constant delay (§5.6): with injection "altpath" R1's P4 program sends each data
  packet with probability ``spec.level`` over the second link of ``spec.alt_extra_delay`` more
  delay (the gateway's own alternate-path knob, set through the controller).
* reordered ACKs (§5.4): each ACK is delayed with probability ``spec.ack_level`` by the same
  distribution, on the reverse link (the simulator's delay element: the gateway's knobs act on
  data segments only).
* random drops (§5.1.2, §5.2): R1's P4 program drops each data packet with probability
  ``spec.drop`` (its ``drop_prob``).
* drop bursts (§5.7, Table 4): ``sim.bursts.DropBursts`` on the link, started per data packet
  with probability ``spec.bursts``: time-based, which the gateway's per-packet knobs are not.

``mechanisms(spec)`` says which element made each impairment of a run; the figure driver prints
it beside each figure and table.

The senders run [RRTCP]'s timers (§5): RFC 2988's RTO with K = 4 and
a 1 s minimum, 64 s maximum, a 10 ms clock, one segment timed at a time as ns-2's agents do
(``RTT_SAMPLING``); an initial window of two packets; maxwnd M as the sender's own window
(ns-2's window_: at most M packets beyond SND.UNA, whatever limited transmit allows, which is
what makes a packet delayed by more than a window wait rather than draw a fast retransmit,
[RRTCP] §5.6-5.7); limited transmit bounded to one cwnd beyond cwnd ([RRTCP] §2.3, Table 2), the same
rule for every sender; no delayed ACKs at the receiver, which sends
DSACKs (RFC 2883). Throughput is the in-order data delivered to b's application over the run,
as in the other scenarios. Besides the engine's counters a row has
the mean RTO over the run (time-weighted, sampled every ``RTO_STEP``; [RRTCP]'s Table 3) and at its
timeouts, and the mean FA ratio and dupthresh of the sender over the run ([RRTCP] §5.1.1, Fig. 9).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Callable

from experiments.runner.gateways import ALT_PORT, BOTTLENECK_PORT, configure_gateway, \
    gateway_stats
from experiments.runner.gateways import TM_DEPTH
from experiments.runner.spec import (DELAY_MEAN, DELAY_SD, SCENARIOS, RunResult, RunSpec, Scenario,
                                     register, tcp_config)
from netbase.seq import seq_sub
from netbase.wire import MalformedPacket, decode_frame
from sim.bursts import DropBursts
from sim.delays import Distribution, normal, parse
from sim.flows import add_bulk_flow
from sim.network import Network
from sim.reorder import PacketDelayer
from sim.trace import FlowSampler
from topologies import topos

__all__ = ["run_rrtcp", "rrtcp_config", "mechanisms", "delay_distribution", "SenderTrace",
           "PATH_DELAY", "INITIAL_WINDOW", "MIN_RTO", "MAX_RTO", "CLOCK", "RTO_STEP",
           "RTT_SAMPLING",
           "LIMITED_TRANSMIT_CWNDS",
           "RRTCP_INJECTIONS", "TRACE_COLUMNS"]

PATH_DELAY = 0.050      # [RRTCP] §5.1: "the delay of link (R1, R2) is 50 ms"
INITIAL_WINDOW = 2      # [RRTCP] does not say; ns-2's sack1 starts small
MIN_RTO = 1.0           # [RRTCP] §5.3: "the minimum RTO of 1 second" (RFC 2988 (2.4))
MAX_RTO = 64.0          # not given by [RRTCP]; ns-2's maxrto_ of 64 s
CLOCK = 0.010           # not given by [RRTCP]; a 10 ms timer clock
# ns-2's TCP agents time one segment at a time (rtt_active_, rtt_seq_: the next one sent once
# the last timed one is acknowledged; none that was retransmitted, Karn): a delayed packet that
# is not retransmitted is timed with its delay, which is what [RRTCP] §4.4 and §5.3 are about
RTT_SAMPLING = "per-flight"
RTO_STEP = 0.1          # s between samples of the RTO, FA ratio and dupthresh
# [RRTCP] §2.3, Table 2: limited transmit sends at most one cwnd beyond cwnd, for every sender
# (min(dupthresh - 1, cwnd), so SACK's dupthresh of 3 sends 2)
LIMITED_TRANSMIT_CWNDS = 1.0
RRTCP_INJECTIONS = ("swap", "delay", "altpath")   # "swap" with no swaps: no reordering
# a one-run figure's series (``trace_step``): one row per sample
TRACE_COLUMNS = ("time", "cwnd", "ssthresh", "dupthresh", "fa_ratio", "rto", "timeouts")


def delay_distribution(spec: RunSpec) -> Distribution:
    """The extra delay of a delayed packet (and of a delayed ACK)."""
    return parse(spec.delay) if spec.delay else normal(DELAY_MEAN, DELAY_SD)


def path_delay(spec: RunSpec) -> float:
    return spec.path_delay or PATH_DELAY


def rrtcp_config(spec: RunSpec) -> Any:
    """Both ends' engine configuration: the scenario's (MSS 960, maxwnd, SACK, no delayed ACKs)
    on [RRTCP]'s timers and initial window; a fixed FA ratio when the spec gives one."""
    extra = {"fa_ratio": spec.fa_ratio} if spec.fa_ratio else {}
    return replace(tcp_config(spec), initial_window_segments=INITIAL_WINDOW, min_rto=MIN_RTO,
                   send_window_segments=spec.max_cwnd_segments,
                   max_rto=MAX_RTO, clock_granularity=CLOCK, rtt_sampling=RTT_SAMPLING,
                   limited_transmit_cwnds=LIMITED_TRANSMIT_CWNDS, **extra)


def mechanisms(spec: RunSpec, *, delay_nth: frozenset | None = None) -> dict[str, str]:
    """Which element of the network made each of the run's impairments (the P4 gateway where
    it can, the simulator where it cannot), by impairment."""
    out = {}
    if spec.injection == "delay" and delay_nth:
        out["reordering"] = (f"simulator: delay element on R1->R2 (sim.reorder.PacketDelayer), "
                             f"data packet {', '.join(map(str, sorted(delay_nth)))} by "
                             f"{delay_distribution(spec)} s")
    elif spec.injection == "delay" and spec.level:
        out["reordering"] = (f"simulator: delay element on R1->R2 (sim.reorder.PacketDelayer), "
                             f"{delay_distribution(spec)} s")
    elif spec.injection == "altpath" and spec.level:
        out["reordering"] = (f"P4 gateway: R1's alternate path (alt_prob, port {ALT_PORT}, "
                             f"+{spec.alt_extra_delay})")
    if spec.ack_level:
        out["ack reordering"] = (f"simulator: delay element on R2->R1 (ACKs), "
                                 f"{delay_distribution(spec)} s")
    if spec.drop:
        out["drops"] = "P4 gateway: R1's drop_prob"
    if spec.bursts:
        out["drop bursts"] = "simulator: drop events on R1->R2 (sim.bursts.DropBursts)"
    return out


def _check(spec: RunSpec) -> None:
    if spec.scenario != "rrtcp":
        raise ValueError(f"run_rrtcp runs scenario 'rrtcp', not {spec.scenario!r}")
    if spec.injection not in RRTCP_INJECTIONS or (spec.injection == "swap" and spec.swaps):
        raise ValueError(f"[RRTCP]'s scenario reorders by delay or over the alternate path "
                         f"(injection {', '.join(RRTCP_INJECTIONS[1:])}), not {spec.injection!r}"
                         + (f" with {spec.swaps} swaps" if spec.injection == "swap" else ""))


def _build_network(spec: RunSpec, program: Any) -> Any:
    alt = spec.alt_extra_delay if spec.injection == "altpath" else None
    topo = topos[SCENARIOS[spec.scenario].topo](
        bottleneck_delay=f"{path_delay(spec) * 1e3:g}ms", alt_extra_delay=alt)

    def configure(net, name, sw):
        configure_gateway(net, name, sw, spec=spec, tm_depth=TM_DEPTH, drop=spec.drop)

    return Network.from_topo(topo, program=program, seed=spec.seed, tm_depth=TM_DEPTH,
                             configure=configure)


def _link_models(net: Any, spec: RunSpec, delay_nth: frozenset | None) -> dict:
    """The simulator's impairments on the bottleneck, each with its own random stream."""
    down = net.channel("r1", "r2", port=BOTTLENECK_PORT)
    up = net.channel("r2", "r1", port=BOTTLENECK_PORT)
    dist = delay_distribution(spec)
    models: dict = {}
    if spec.injection == "delay" and (spec.level or delay_nth):
        models["delayer"] = PacketDelayer(down, probability=spec.level, distribution=dist,
                                          seed=net.derive_seed("delayer"), nth=delay_nth)
    if spec.ack_level:
        models["ack_delayer"] = PacketDelayer(up, probability=spec.ack_level, distribution=dist,
                                              seed=net.derive_seed("ack-delayer"), frames="acks")
    if spec.bursts:
        models["bursts"] = DropBursts(down, probability=spec.bursts,
                                      seed=net.derive_seed("bursts"))
    return models


class _Sampler:
    """Every ``step`` s: the sender's RTO, FA ratio (when its policy has one) and dupthresh,
    summed for their time averages; with ``keep``, each sample as a row of TRACE_COLUMNS for a
    one-run figure. dupthresh is what fast retransmit waits for outside a recovery (a policy's
    ``fast_retransmit_threshold`` where it sets one apart from the in-recovery value, as
    RR-TCP's: [RRTCP]'s dupthresh)."""

    def __init__(self, events: Any, conn: Any, *, step: float, keep: bool = False):
        self.events, self.conn, self.step, self.keep = events, conn, step, keep
        self.n = 0
        self.rto = self.dupthresh = self.fa = 0.0
        self.fa_last: float | None = None
        self.rows: list[tuple] = []
        events.schedule(events.now, self._sample)

    def _sample(self, _arg: object = None) -> None:
        conn = self.conn
        policy = conn.policy
        fa = getattr(policy, "fa_ratio", None)
        dupthresh = getattr(policy, "fast_retransmit_threshold", conn.dupthresh)
        self.n += 1
        self.rto += conn.rtt.rto
        self.dupthresh += dupthresh
        if fa is not None:
            self.fa += fa
            self.fa_last = fa
        if self.keep:
            self.rows.append((round(self.events.now, 6), conn.cwnd, conn.ssthresh, dupthresh,
                              fa, conn.rtt.rto, conn.stats["timeouts"]))
        self.events.schedule(self.events.now + self.step, self._sample)

    def means(self) -> dict:
        n = max(self.n, 1)
        has_fa = self.fa_last is not None
        return {"rto_mean_s": round(self.rto / n, 6),
                "dupthresh_mean": round(self.dupthresh / n, 3),
                "fa_ratio_mean": round(self.fa / n, 4) if has_fa else None,
                "fa_ratio_end": round(self.fa_last, 4) if has_fa else None}


class _TimeoutRtos:
    """The RTO of each retransmission timeout, from the engine's trace: the engine doubles the
    RTO before it reports the timeout (RFC 6298 (5.5)), so the one that expired is half the
    reported value (below the maximum, which the runs never reach)."""

    def __init__(self) -> None:
        self.rtos: list[float] = []

    def __call__(self, event: str, conn: Any, fields: dict) -> None:
        if event == "timeout" and "rto" in fields:
            self.rtos.append(fields["rto"] / 2)

    def mean(self) -> float | None:
        return round(sum(self.rtos) / len(self.rtos), 6) if self.rtos else None


class SenderTrace:
    """[RRTCP] Fig. 1's view ("packet number vs. time; times are at sender"): every data segment the
    sender sends and every ACK it receives, as (time, packet number, what), packet numbers
    counted from 1 in ``mss``-sized packets; ``what`` is "sent", "retransmitted", "ack" or
    "dsack" (an ACK carrying a DSACK block, RFC 2883). A pair of channel taps."""

    def __init__(self, net: Any, mss: int):
        self.mss = mss
        self.events: list[tuple[float, int, str]] = []
        self._iss: int | None = None
        self._highest = 0
        net.channel("a", "r1").taps.append(_Tap(self._sent))
        net.channel("r1", "a").rx_taps.append(_Tap(self._acked))

    def _packet(self, seq: int) -> int:
        return seq_sub(seq, self._iss + 1) // self.mss + 1

    def _sent(self, t: float, seg: Any) -> None:
        if self._iss is None:
            self._iss = seg.seq             # the SYN's
            return
        if seg.payload:
            end = seq_sub(seg.seq, self._iss) + len(seg.payload)
            what = "retransmitted" if end <= self._highest else "sent"
            self._highest = max(self._highest, end)
            self.events.append((t, self._packet(seg.seq), what))

    def _acked(self, t: float, seg: Any) -> None:
        if self._iss is None or seg.payload:
            return
        self.events.append((t, self._packet(seg.ack) - 1, "dsack" if _is_dsack(seg) else "ack"))


def _is_dsack(seg: Any) -> bool:
    """RFC 2883 §4: the first SACK block reports a duplicate when it lies below the cumulative
    ACK or inside the second block."""
    blocks = seg.option("SAck") or ()
    if not blocks:
        return False
    start, end = blocks[0]
    if seq_sub(start, seg.ack) < 0:
        return True
    return len(blocks) > 1 and seq_sub(start, blocks[1][0]) >= 0 and \
        seq_sub(blocks[1][1], end) >= 0


class _Tap:
    """A channel tap (``write(time, frame)``) handing decoded TCP segments to ``on_segment``."""

    def __init__(self, on_segment: Callable[[float, Any], None]):
        self.on_segment = on_segment

    def write(self, t: float, frame: bytes) -> None:
        try:
            _, _, seg = decode_frame(frame)
        except MalformedPacket:
            return
        self.on_segment(t, seg)

    def close(self) -> None:
        pass


def run_rrtcp(spec: RunSpec, program: Any, *, delay_nth: frozenset | None = None,
              trace_step: float | None = None, sender_trace: bool = False) -> RunResult:
    """Simulate ``spec`` (scenario "rrtcp") and return its row; with ``spec.sample_step`` the
    per-flow time series every run can record (``sim.trace.FlowSampler``). For one-run figures:
    ``delay_nth`` delays exactly those data packets (1, 2, ...: Fig. 1); ``trace_step`` keeps
    the sampler's rows (TRACE_COLUMNS) as ``stats["trace"]``;
    ``sender_trace`` keeps the sender's packet trace (``SenderTrace.events``) as
    ``stats["sender_trace"]``."""
    _check(spec)
    started = time.perf_counter()   # wall clock for the report only; the simulation never reads it
    net = _build_network(spec, program)
    models = _link_models(net, spec, delay_nth)
    cfg = rrtcp_config(spec)
    flow = add_bulk_flow(net, "a", "b", config=cfg)
    timeout_rtos = _TimeoutRtos()
    flow.sender.tracer = timeout_rtos
    trace = SenderTrace(net, flow.sender.mss) if sender_trace else None
    sampler = _Sampler(net.events, flow.sender, step=trace_step or RTO_STEP,
                       keep=trace_step is not None)
    series = FlowSampler(net.events, [flow], step=spec.sample_step) if spec.sample_step \
        else None
    net.run(until=spec.duration)
    net.close()
    stats = _stats(flow, net, models, spec)
    stats.update(sampler.means())
    stats["rto_at_timeouts_mean_s"] = timeout_rtos.mean()
    if trace_step is not None:
        stats["trace"] = sampler.rows
    if trace is not None:
        stats["sender_trace"] = trace.events
    return RunResult(spec, flow.delivered_bytes / spec.duration, flow.delivered_bytes, stats,
                     time.perf_counter() - started, series.rows if series else [],
                     mss=flow.sender.mss)


def _stats(flow: Any, net: Any, models: dict, spec: RunSpec) -> dict:
    s = flow.sender.stats
    out = {k: int(s.get(k, 0)) for k in ("segments_sent", "retransmits", "spurious_retransmits",
                                          "fast_retransmits", "timeouts", "dsack_undos",
                                          "spurious_timeouts_undone")}
    out["delivered_packets"] = flow.delivered_bytes // flow.sender.mss
    delayer, acks, bursts = (models.get(k) for k in ("delayer", "ack_delayer", "bursts"))
    delays = delayer.delays if delayer else []
    out["delayed_segments"] = len(delays)
    out["delay_extra_mean_ms"] = round(1000 * sum(delays) / len(delays), 3) if delays else 0.0
    out["delayed_acks"] = len(acks.delays) if acks else 0
    out["acks_seen"] = acks.data_frames if acks else 0
    out["burst_events"] = len(bursts.events) if bursts else 0
    out["burst_lost"] = bursts.lost if bursts else 0
    out["events"] = net.events.executed
    out.update(gateway_stats(net))
    return out


# [RRTCP] §5, Fig. 3 and Table 2 (topologies.RrTcpTopo): one flow over a 50 ms bottleneck whose
# capacity is exactly maxwnd / RTT, 1000-byte packets, no drops ("without introducing packet
# drops", §5.1.1). The run sets maxwnd (max_cwnd_segments) and reads [RRTCP]'s impairments.
register(Scenario("rrtcp", "rrtcp_paper", 1000, "[RRTCP] §5", run=run_rrtcp,
                  settings=("delay", "ack_level", "drop", "bursts", "path_delay", "fa_ratio"),
                  settings_name="[RRTCP]'s impairments"))
