"""One run of the paper's scenario in real time: the same engine and P4 gateway, on a live network.

    sudo python -m experiments.live_run --variant rdtcp --duration 20 --out live/
    sudo python -m experiments.live_run --variant sack --injection recirc --level 0.01 \
        --pcap --out live/

The paper's dumbbell (``topologies.PaperTopo``) is built for real (``live.network``: hosts in
network namespaces running ``live.host``, gateways as ``rdtcp-switch`` processes), both
gateways are configured by the controller with the simulator's own configuration
(``sim.gateway.gateway_config`` through ``live.network.LivePlan.gateway_config``, the run's
P4 injection on R1's bottleneck port as ``experiments.runner.gateways.impairment`` makes it), and one
bulk transfer runs from A to B for ``--duration`` seconds after its handshake. Reordering comes
from the gateway's own P4 injections (``--injection recirc|altpath --level P``); the
simulator's queue swaps have no live form. ``--drop P`` adds the gateway's injected drops on
the same port (EPDN stamps follow them on RD-TCP flows).

Writes into --out: ``run.json`` (throughput, the two hosts' summaries with engine statistics,
the gateways' counters from the controller's report, the plan), ``logs/`` (each process's
output), with --pcap ``pcap/`` (every switch port, ``<switch>-eth<port>_{in,out}.pcap``, and
each host's ``<host>.pcap``). Prints one line. Needs root; experiments/LIVE.md has the details.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

from experiments.runner.scenario import P4_INJECTIONS

__all__ = ["main", "parse_args", "live_spec", "host_options", "gateway_configs", "summarize",
           "INJECTIONS"]

# the gateway's own P4 injections; the simulator's "swap" and "delay" have no live form
INJECTIONS = ("none",) + P4_INJECTIONS
RECEIVER_GRACE = 15.0        # seconds the receiver gets after the sender ends to see the FIN
SENDER_MARGIN = 60.0         # seconds beyond --duration before the sender is given up on


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    from experiments.runner.cli import HelpFormatter, finite_float, out_of_range
    from experiments.runner.scenario import RDTCP_K, RDTCP_VARIANTS, SENDERS
    from netbase.units import parse_delay

    p = argparse.ArgumentParser(
        prog="python -m experiments.live_run", formatter_class=HelpFormatter,
        description="Run one bulk transfer over the paper's dumbbell (003 §4) in real time: "
                    "hosts in network namespaces running the project's TCP engine, both "
                    "gateways as rdtcp-switch processes configured by the controller. "
                    "Needs root.")
    p.add_argument("--variant", choices=SENDERS, default="rdtcp", help="sender (and receiver)")
    p.add_argument("--duration", type=finite_float, default=20.0,
                   help="seconds of transfer after the handshake (wall clock)")
    p.add_argument("--injection", choices=INJECTIONS, default="none",
                   help="the gateway's P4 reordering on R1's bottleneck port: recirc (a packet "
                        "goes through the queue once more) or altpath (it takes the longer "
                        "second R1-R2 link)")
    p.add_argument("--level", type=finite_float, metavar="P",
                   help="probability per data packet of the injection (needed with --injection "
                        "altpath|recirc, and only there)")
    p.add_argument("--alt-extra-delay", default="10ms", metavar="DELAY",
                   help="extra delay of the alternate path (--injection altpath)")
    p.add_argument("--drop", type=finite_float, default=0.0, metavar="P",
                   help="probability of the gateway's injected drop per data packet on R1's "
                        "bottleneck port")
    p.add_argument("--k", type=int, help=f"RD-TCP's k (default: {RDTCP_K}; only for "
                                         f"{', '.join(RDTCP_VARIANTS)})")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the gateways' random numbers and of the byte pattern")
    p.add_argument("--backend", choices=("auto", "netns", "mininet"), default="auto",
                   help="how the network is built: Mininet when importable (auto), or plain "
                        "ip netns")
    p.add_argument("--pcap", action="store_true", help="write pcaps of every switch port and host")
    p.add_argument("--out", default="live", help="output directory, created if missing")
    args = p.parse_args(argv)
    bad = out_of_range(args, ("duration", "k", "level", "seed"))
    if bad:
        p.error(bad)
    if not 0.0 <= args.drop <= 1.0:
        p.error("--drop must be a probability in [0, 1]")
    if args.duration > 3600:
        p.error("--duration must be at most 3600 seconds (a live run takes that long)")
    if args.injection == "none" and args.level is not None:
        p.error("--level is the probability of an injection: give --injection altpath or "
                "recirc with it")
    if args.injection != "none" and args.level is None:
        p.error(f"--injection {args.injection} needs --level P, the probability per data packet")
    try:
        parse_delay(args.alt_extra_delay)
    except ValueError as exc:
        p.error(f"--alt-extra-delay: {exc}")
    if args.k is not None and args.variant not in RDTCP_VARIANTS:
        p.error(f"--k is RD-TCP's; --variant {args.variant} has no k (it applies to "
                f"{', '.join(RDTCP_VARIANTS)})")
    try:
        args.spec = live_spec(args)
    except (TypeError, ValueError) as exc:
        p.error(str(exc))
    return args


def live_spec(args: argparse.Namespace):
    """The run as the simulator's ``RunSpec`` (its checks, its TCP and gateway configuration);
    no injection is the spec's "swap" with no swaps."""
    from experiments.runner.scenario import RDTCP_K, RunSpec

    injection = "swap" if args.injection == "none" else args.injection
    return RunSpec(variant=args.variant, seed=args.seed, duration=args.duration,
                   injection=injection, level=args.level or 0.0,
                   alt_extra_delay=args.alt_extra_delay, k=RDTCP_K if args.k is None else args.k)


def host_options(spec) -> list[str]:
    """``live.host`` options giving both ends ``experiments.runner.scenario.tcp_config(spec)``."""
    from experiments.runner.scenario import tcp_config

    cfg = tcp_config(spec)
    return ["--variant", cfg.variant, "--mss", str(cfg.mss), "--k", str(cfg.rdtcp_k),
            "--max-cwnd", str(cfg.max_cwnd_segments),
            "--timestamps", "on" if cfg.timestamps else "off",
            "--rdtcp", "on" if cfg.rdtcp else "off", "--seed", str(spec.seed)]


def gateway_configs(plan, spec, drop: float = 0.0) -> dict[str, dict]:
    """Each gateway's controller config: the simulator's for this spec (experiments.runner.gateways:
    the injection on R1's bottleneck port), the injected drops, and the live queue rates."""
    from experiments.runner.gateways import gateway_impairment
    from experiments.runner.scenario import TM_DEPTH

    return {name: plan.gateway_config(name, tm_depth=TM_DEPTH,
                                      impair=gateway_impairment(name, spec, drop=drop))
            for name in plan.switches}


def counters(reports: dict[str, dict]) -> dict[str, int]:
    """The gateways' counters flat, named as the simulator's rows name them (r1_drops_buffer)."""
    from sim.gateway import counters_from_report
    return {k: v for name, report in reports.items()
            for k, v in counters_from_report(report, f"{name}_").items()}


def summarize(spec, sender: dict, receiver: dict, reports: dict, *, drop: float) -> dict:
    """run.json's head: the figures a reader looks for first."""
    s_stats = sender.get("stats", {})
    return {"variant": spec.variant, "duration": spec.duration,
            "injection": "none" if spec.injection == "swap" else spec.injection,
            "level": spec.level, "drop": drop, "seed": spec.seed, "k": spec.k,
            "ok": bool(sender.get("ok") and receiver.get("ok")),
            "throughput_Bps": receiver.get("throughput_Bps", 0.0),
            "delivered_bytes": receiver.get("bytes", 0),
            "bytes_in_window": receiver.get("bytes_in_window"),
            "pattern_ok": receiver.get("pattern_ok"),
            "handshake_rtt_s": sender.get("handshake_rtt_s"),
            "srtt_s": sender.get("srtt_s"),
            "mss": sender.get("mss"),
            **{k: s_stats.get(k, 0) for k in ("retransmits", "spurious_retransmits",
                                              "fast_retransmits", "timeouts")},
            "epdn_stamps": receiver.get("stats", {}).get("epdn_stamps", 0),
            "reorder_acks_sent": receiver.get("stats", {}).get("reorder_acks_sent", 0),
            **counters(reports)}


def _read_summary(path: Path, proc: subprocess.Popen, log: str) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        tail = " | ".join(log.strip().splitlines()[-3:]) or "no output"
        return {"ok": False, "error": f"no summary (exit status {proc.returncode}): {tail}"}


def _wait(proc: subprocess.Popen, timeout: float) -> bool:
    try:
        proc.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        return False


def run_live(args: argparse.Namespace, out: Path, program_path: str, program) -> dict:
    """Build the network, configure it, run the transfer; the run.json document."""
    from topologies import PaperTopo
    from live.network import LiveNetwork, LivePlan

    from experiments.runner.scenario import BUFFER_PACKETS

    spec = args.spec
    alt = spec.alt_extra_delay if spec.injection == "altpath" else None
    plan = LivePlan.from_topo(PaperTopo(queue=BUFFER_PACKETS, alt_extra_delay=alt), program,
                              seed=spec.seed)
    configs = gateway_configs(plan, spec, args.drop)
    pcap_dir = out / "pcap" if args.pcap else None
    if pcap_dir is not None:
        pcap_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    common = host_options(spec)
    with LiveNetwork(plan, program_path=program_path, backend=args.backend,
                     log_dir=out / "logs", pcap_dir=pcap_dir) as net:
        ctls = {name: net.controller(name) for name in plan.switches}
        _each(ctls, lambda name, ctl: ctl.apply(configs[name]))
        rx_json, tx_json = out / "receiver.json", out / "sender.json"
        for stale in (rx_json, tx_json):
            stale.unlink(missing_ok=True)
        pc = (lambda h: ["--pcap", str(pcap_dir / f"{h}.pcap")]) if pcap_dir else (lambda h: [])
        receiver = net.start_host("b", "a", ["--role", "receiver", *common,
                                             "--duration", f"{spec.duration:g}",
                                             "--timeout", f"{spec.duration + SENDER_MARGIN:g}",
                                             "--out", str(rx_json), *pc("b")])
        sender = net.start_host("a", "b", ["--role", "sender", *common,
                                           "--duration", f"{spec.duration:g}",
                                           "--timeout", f"{spec.duration + SENDER_MARGIN:g}",
                                           "--out", str(tx_json), *pc("a")])
        _wait(sender, spec.duration + SENDER_MARGIN + 10)
        _wait(receiver, RECEIVER_GRACE)
        reports = _each(ctls, lambda name, ctl: ctl.report())
        tx = _read_summary(tx_json, sender, net.log_text("a"))
        rx = _read_summary(rx_json, receiver, net.log_text("b"))
        backend = net.backend.name
    for stale in (rx_json, tx_json):        # they are in run.json
        stale.unlink(missing_ok=True)
    doc = summarize(spec, tx, rx, reports, drop=args.drop)
    doc.update({"backend": backend, "wall_s": round(time.monotonic() - started, 3),
                "sender": tx, "receiver": rx,
                "gateways": {n: _jsonable(r) for n, r in reports.items()},
                "gateway_configs": configs, "plan": plan.describe()})
    return doc


def _each(ctls: dict, call) -> dict:
    """``call(name, controller)`` for every gateway at once (each is a CLI session or more)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(ctls) or 1) as pool:
        futures = {name: pool.submit(call, name, ctl) for name, ctl in ctls.items()}
        return {name: f.result() for name, f in futures.items()}


def _jsonable(report: dict) -> dict:
    return json.loads(json.dumps(report, default=str))


def one_line(doc: dict) -> str:
    thr = doc["throughput_Bps"]
    rtt = doc["handshake_rtt_s"]
    what = "no injection" if doc["injection"] == "none" else f"{doc['injection']} {doc['level']:g}"
    drop = f", drop {doc['drop']:g}" if doc["drop"] else ""
    return (f"live {doc['variant']}, {what}{drop}, {doc['duration']:g} s: "
            f"{thr:,.0f} B/s ({thr * 8 / 1e6:.2f} Mb/s), {doc['delivered_bytes']:,} bytes "
            f"{'intact' if doc['pattern_ok'] else 'NOT intact'}, handshake RTT "
            f"{'-' if rtt is None else f'{rtt * 1000:.1f} ms'}; {doc['retransmits']} "
            f"retransmissions ({doc['fast_retransmits']} fast, {doc['timeouts']} timeouts), "
            f"{doc['epdn_stamps']} EPDN stamps; r1 drops "
            f"{sum(v for k, v in doc.items() if k.startswith('r1_drops_'))}"
            f" [{doc['backend']}, wall {doc['wall_s']:.1f} s]")


def main(argv: Sequence[str] | None = None) -> int:
    from experiments.runner.cli import UsageError, make_out_dir
    from experiments.runner.scenario import ProgramError, gateway_program
    from controller.drivers import DriverError
    from live.network import LiveError, LiveInterrupted, check_environment

    args = parse_args(argv)
    out = Path(args.out)
    try:
        check_environment()
        program_path, program = gateway_program()
        make_out_dir(out)
    except (ProgramError, UsageError, LiveError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        doc = run_live(args, out, program_path, program)
    except KeyboardInterrupt:
        print("\ninterrupted: the network was torn down; no run.json", file=sys.stderr)
        return 130
    except LiveInterrupted:
        print("terminated: the network was torn down; no run.json", file=sys.stderr)
        return 143
    except (LiveError, DriverError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    tmp = out / "run.json.tmp"
    tmp.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    tmp.replace(out / "run.json")
    print(one_line(doc) + f" -> {out / 'run.json'}")
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
