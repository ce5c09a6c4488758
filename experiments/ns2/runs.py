"""A scenario (``experiments.ns2.scenario.Ns2Run``) run in ns-2 itself, and the same scenario
run by the engine in ``sim.nsnet``: each gives one row in the runs' row format (the RunSpec's
fields, then the results), with ``engine`` saying which ran it.

Row fields beside the spec's: ``throughput_Bps`` (data delivered in order to B's application
over the run, per second, as every driver of the lab counts it; ns-2: the sink's ``bytes_``,
which counts whole packets, less the SYN, in data bytes), ``delivered_bytes``, ``acked_bytes``
(what the sender saw acknowledged: ns-2's ``ack_`` x packetSize_), ``retransmits``,
``timeouts``, ``fast_retransmits`` (ns-2: its window reductions other than timeouts,
ncwndcuts_ - nrexmit_), ``data_packets_sent``, ``mss``, ``wall_s``, ``mechanisms`` (how each of
the spec's elements was built) and for ns-2 ``ns2_script``.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import subprocess
import time
from dataclasses import asdict
from pathlib import Path

from experiments.ns2.install import NS, Ns2Error, ns_binary
from experiments.ns2.scenario import CLASSES, Inexpressible, Ns2Run
from experiments.ns2.tcl import RESULT_TAG, script
from hosts.tcp.ns2 import HEADER_BYTES
from sim.nsnet import NsFlow, NsNetwork, RateErrorModel

__all__ = ["run_ns2", "run_ours", "build_ours", "RUN_TIMEOUT_S"]

RUN_TIMEOUT_S = 3600            # a 600 s run takes seconds; a stuck ns is stopped
_RESULT = re.compile(rf"^{RESULT_TAG} (.*)$", re.M)


def _row(run: Ns2Run, engine: str, *, delivered: int, acked: int, retransmits: int,
         timeouts: int, fast: int, sent: int, wall: float, **extra) -> dict:
    spec = run.spec
    return {**asdict(spec), "engine": engine, "profile": "ns2",
            "throughput_Bps": round(delivered / spec.duration, 3), "delivered_bytes": delivered,
            "acked_bytes": acked, "retransmits": retransmits, "timeouts": timeouts,
            "fast_retransmits": fast, "data_packets_sent": sent, "mss": run.payload,
            "wall_s": round(wall, 3), "mechanisms": "; ".join(run.notes), **extra}


def run_ns2(run: Ns2Run, workdir: str | os.PathLike, *, trace: str | None = None) -> dict:
    """Write the run's script into ``workdir``, run ``ns`` on it, return its row (with
    ``trace``, ns-2's packet trace is written to that file in ``workdir``). Ns2Error with the
    error and the script's path when ns is missing, fails or prints a Tcl error."""
    binary = ns_binary()
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    spec = run.spec
    digest = hashlib.sha256(repr(spec).encode()).hexdigest()[:10]
    name = f"{spec.scenario}-{spec.variant}-{digest}-s{spec.seed}.tcl"
    path = workdir / name
    path.write_text(script(run, trace=trace))
    if binary is None:
        raise Ns2Error(f"ns-2 is not installed ({NS} is not on PATH; apt-get install ns2); "
                       f"script: {path}")
    started = time.perf_counter()     # wall clock for the report only
    try:
        proc = subprocess.run([binary, str(path)], cwd=workdir, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise Ns2Error(f"ns gave no result after {RUN_TIMEOUT_S} s; script: {path}") from None
    wall = time.perf_counter() - started
    said = (proc.stdout + proc.stderr).strip()
    found = _RESULT.findall(proc.stdout)
    if proc.returncode != 0 or not found:
        first = next((ln for ln in said.splitlines() if ln.strip()), "no output")
        raise Ns2Error(f"ns failed (status {proc.returncode}): {first}; script: {path}")
    values = dict(kv.split("=", 1) for kv in found[-1].split())
    try:
        v = {k: int(float(x)) for k, x in values.items()}
    except ValueError:
        raise Ns2Error(f"ns printed a result that is not numbers: {found[-1]!r}; script: "
                       f"{path}") from None
    configs = run.agent.configs()
    wire, payload = configs.wire_bytes, configs.sender.mss
    syn = HEADER_BYTES if configs.syn else 0
    packets = max(0, v["bytes"] - syn) // wire
    return _row(run, "ns2", delivered=packets * payload, acked=max(0, v["ack"]) * payload,
                retransmits=v["nrexmitpack"], timeouts=v["nrexmit"],
                fast=v["ncwndcuts"] - v["nrexmit"], sent=v["ndatapack"], wall=wall,
                ns2_script=str(path))


def run_ours(run: Ns2Run) -> dict:
    """The same scenario in ``sim.nsnet`` with the engine (the ns2 profile's configuration of
    the same agent), its random elements seeded from the run's seed."""
    started = time.perf_counter()     # wall clock for the report only
    net, flow = build_ours(run, trace=False)
    net.run(run.spec.duration)
    s = flow.sender.stats
    return _row(run, "engine-nsnet", delivered=flow.sink.bytes,
                acked=max(0, flow.sender.snd_una - 1), retransmits=int(s["retransmits"]),
                timeouts=int(s["timeouts"]), fast=int(s["fast_retransmits"]),
                sent=int(s["segments_sent"]), wall=time.perf_counter() - started)


def build_ours(run: Ns2Run, *, trace: bool) -> tuple[NsNetwork, NsFlow]:
    """The scenario of ``run`` built in ``sim.nsnet`` (not yet run), with ns-2's packet trace
    kept in ``net.trace_lines`` when ``trace``; the sender's flow is flow id 1, as in the
    script. Inexpressible when the network has what sim.nsnet lacks (RED)."""
    if run.red is not None:
        raise Inexpressible("RED is not in sim.nsnet: the engine runs [NETRENO]'s RED network in the "
                            "P4 gateway (experiments.netreno_tables)")
    spec = run.spec
    net = NsNetwork(trace=trace)
    node = {name: net.node() for name in run.nodes}
    for ln in run.links:
        net.duplex_link(node[ln.a], node[ln.b], ln.bandwidth, ln.delay)
        net.queue_limit(node[ln.a], node[ln.b], ln.limit)
        net.queue_limit(node[ln.b], node[ln.a], ln.limit_back)

    def seed(i: int) -> int:
        return random.Random(f"{spec.seed}/ns2/{i}").getrandbits(32)
    for i, imp in enumerate(run.impairments):
        model = RateErrorModel(imp.rate, seed=seed(i), delay=imp.delay, frames=imp.frames)
        if imp.where == "head":
            net.error_model(node[imp.a], node[imp.b], 1, model)
        else:
            net.link(node[imp.a], node[imp.b]).after.append(model)
    if run.holdback is not None:
        _holdback(net, node, run, seed)
    configs = run.agent.configs()
    flow = net.tcp(node[run.src], node[run.dst], 1, configs, start=0.0)
    return net, flow


def _holdback(net: NsNetwork, node: dict, run: Ns2Run, seed) -> None:
    """The hold-back models at the bottleneck's head, following the queue's length every
    packet time, as the ns-2 script's holdback_follow does."""
    hb = run.holdback
    link = net.link(node[hb.a], node[hb.b])
    models = [RateErrorModel(0.0, seed=seed(100 + k), delay=0.0, frames="data")
              for k in range(CLASSES)]
    for m in models:
        net.error_model(node[hb.a], node[hb.b], 1, m)
    shares = [(hb.rate / CLASSES) / (1 - k * hb.rate / CLASSES) for k in range(CLASSES)]
    last = [-1]

    def follow(k: int) -> None:
        w = min(len(link.queue), hb.limit)
        w = w if w >= 2 else 0
        net.events.schedule((k + 1) * hb.packet_time, lambda _: follow(k + 1))
        if w == last[0]:
            return
        last[0] = w
        delays = hb.classes(w)
        for i, m in enumerate(models):
            m.rate = shares[i] if delays else 0.0
            m.delay = delays[i] if delays else 0.0
    net.events.schedule(0.0, lambda _: follow(0))
