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

The real parts can stand in for the embedded ones: ``--variant linux`` runs Linux's own TCP on
both hosts (``live.kernel_host``; ``--sysctl KEY=VALUE`` sets its TCP in their namespaces),
``--io scapy`` has Scapy build and carry the engine's frames (``live.scapy_io``), and
``--backend mininet`` builds the network through Mininet with ``live.mininet.P4Switch``, and
``--switch simple_switch`` runs real BMv2 (or anything with its command line and Thrift API,
``--switch-binary``) as the gateways, ready when it answers Thrift calls. Where a sender cannot
delay what it sends (Linux's TCP, simple_switch), its links get a delay stage (netem, or a
``live.delay_stage`` process where the kernel has no netem; ``--link-delay``). Everything the
machine lacks for the run is named before anything is built (exit status 2), and a gateway or
stage that dies during the run ends it at once, torn down (exit status 1).

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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

from controller.drivers import DriverError
from experiments.helptext import add_list_variants, prog_name
from experiments.runner.cli import (HelpFormatter, UsageError, finite_float, make_out_dir,
                                    out_of_range)
from experiments.runner.gateways import TM_DEPTH, gateway_impairment
from experiments.runner.program import ProgramError, gateway_program
from experiments.runner.spec import P4_INJECTIONS, RDTCP_VARIANTS, SENDERS, RunSpec, tcp_config
from experiments.studies.rdtcp.scenario import BUFFER_PACKETS, RDTCP_K
from live.environment import EnvironmentProblem, check_sysctls, parse_sysctl, require_binary
from live.network import (LINK_DELAYS, Layout, LiveError, LiveInterrupted, LiveNetwork, LivePlan,
                          SwitchSpec, check_environment)
from netbase.units import parse_delay
from sim.gateway import counters_from_report
from topologies import PaperTopo

__all__ = ["main", "parse_args", "live_spec", "host_options", "gateway_configs", "summarize",
           "INJECTIONS", "LINUX", "live_plan", "live_layout", "run_live"]

# the gateway's own P4 injections; the simulator's "swap" and "delay" have no live form
INJECTIONS = ("none",) + P4_INJECTIONS
LINUX = "linux"              # --variant: the kernel's TCP on both hosts
DEFAULT_BW = {"bottleneck": 5.0, "access": 10.0}     # Mb/s, topologies.PaperTopo's ([RDTCP] §4)
RECEIVER_GRACE = 15.0        # seconds the receiver gets after the sender ends to see the FIN
SENDER_MARGIN = 60.0         # seconds beyond --duration before the sender is given up on
# Ranges checked before anything is built, so that no value fails halfway through a run's
# set-up: a seed the processes take as a C int, a k no larger than the largest window the
# engine may have (a larger one never sees that many duplicate ACKs), an alternate path at
# most 10 s longer than the other (every link delay of a live run is ms to a few seconds).
MAX_SEED = (1 << 31) - 1
MAX_K = 100_000
MAX_ALT_EXTRA_DELAY_S = 10.0
# the values Linux documents for each --sysctl (Documentation/networking/ip-sysctl.rst):
# booleans, small enumerations and bitmaps, and C ints for the reordering levels
_INT_MAX = (1 << 31) - 1
SYSCTL_RANGES = {"net.ipv4.tcp_sack": (0, 1), "net.ipv4.tcp_dsack": (0, 1),
                 "net.ipv4.tcp_timestamps": (0, 2), "net.ipv4.tcp_recovery": (0, 7),
                 "net.ipv4.tcp_reordering": (1, _INT_MAX),
                 "net.ipv4.tcp_max_reordering": (1, _INT_MAX),
                 "net.ipv4.tcp_early_retrans": (0, 4), "net.ipv4.tcp_frto": (0, 2)}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=prog_name("experiments.live_run", "rdtcp-live"), formatter_class=HelpFormatter,
        description="Run one bulk transfer over the paper's dumbbell ([RDTCP] §4) in real time: "
                    "hosts in network namespaces running the project's TCP engine (or "
                    "Linux's), both gateways as rdtcp-switch (or simple_switch) processes "
                    "configured by the controller. Needs root.")
    p.add_argument("--variant", choices=(*SENDERS, LINUX), default="rdtcp", metavar="VARIANT",
                   help="sender (and receiver): one of the engine's variants, or linux: the "
                        "kernel's own TCP on both hosts (live.kernel_host)")
    add_list_variants(p, SENDERS, {LINUX: "Linux's own TCP on both hosts (live.kernel_host)"})
    p.add_argument("--sysctl", action="append", default=[], metavar="KEY=VALUE",
                   help="with --variant linux: a TCP setting of both hosts' namespaces "
                        "(repeatable): net.ipv4.tcp_sack, tcp_dsack, tcp_recovery (RACK: 1 on, 0 "
                        "off), tcp_reordering, tcp_max_reordering, tcp_congestion_control, "
                        "tcp_timestamps, tcp_early_retrans, tcp_frto")
    p.add_argument("--switch", choices=("embedded", "simple_switch"), default="embedded",
                   help="the gateways: the project's rdtcp-switch, or simple_switch: anything "
                        "with simple_switch's command line and Thrift API (--switch-binary)")
    p.add_argument("--switch-binary", default=None, metavar="PATH",
                   help="with --switch simple_switch: the binary (default: simple_switch on "
                        "PATH); rdtcp-switch itself can stand in")
    p.add_argument("--cli", default=None, metavar="PROGRAM",
                   help="configure the gateways by piping commands into this CLI (e.g. "
                        "simple_switch_CLI) instead of over one Thrift connection each")
    p.add_argument("--control", choices=("thrift", "p4runtime"), default="thrift",
                   help="configure the gateways over BMv2's Thrift API (default) or P4Runtime "
                        "(rdtcp-switch --grpc-server-addr, or --switch-binary "
                        "simple_switch_grpc; needs build/rdtcp.p4info.txt: make build)")
    p.add_argument("--io", choices=("struct", "scapy"), default="struct",
                   help="the engine's hosts: frames built, parsed, sent and received by the "
                        "project's struct codec on raw sockets, or by Scapy (its layers, the "
                        "project's EPDN option layer, its L2 sockets); slower: scale the "
                        "dumbbell down with --bottleneck-bw")
    p.add_argument("--bottleneck-bw", type=finite_float, default=None, metavar="MBPS",
                   help="rate of the r1-r2 link (default: the paper's 5 Mb/s)")
    p.add_argument("--access-bw", type=finite_float, default=None, metavar="MBPS",
                   help="rate of the hosts' links (default: the paper's 10 Mb/s)")
    p.add_argument("--max-cwnd", type=int, default=None, metavar="SEGMENTS",
                   help="the engine's largest cwnd (default: the simulator's 500); with a "
                        "scaled-down bottleneck, a window that fits its buffer keeps slow "
                        "start from overflowing it")
    p.add_argument("--link-delay", choices=LINK_DELAYS, default="auto",
                   help="who delays each link: auto (the senders where they can: rdtcp-switch, "
                        "the engine's hosts; elsewhere netem, or a delay-stage process where "
                        "the kernel has no netem), senders, relay (delay stages on every link) "
                        "or netem")
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
        alt_delay = parse_delay(args.alt_extra_delay)
    except ValueError as exc:
        p.error(f"--alt-extra-delay: {exc}")
    if not alt_delay <= MAX_ALT_EXTRA_DELAY_S:
        p.error(f"--alt-extra-delay {args.alt_extra_delay}: at most "
                f"{MAX_ALT_EXTRA_DELAY_S:g} s")
    if args.seed > MAX_SEED:
        p.error(f"--seed must be 1..{MAX_SEED}")
    if args.k is not None and args.k > MAX_K:
        p.error(f"--k must be 0..{MAX_K} (duplicate ACKs; no window holds more)")
    for name in ("bottleneck_bw", "access_bw"):
        value = getattr(args, name)
        if value is not None and not 0.01 <= value <= 1000:
            p.error(f"--{name.replace('_', '-')} must be 0.01..1000 Mb/s")
    if args.switch_binary is not None and args.switch != "simple_switch":
        p.error("--switch-binary names the simple_switch to run: give --switch simple_switch")
    if args.max_cwnd is not None and not 1 <= args.max_cwnd <= 100_000:
        p.error("--max-cwnd must be 1..100000 segments")
    if args.max_cwnd is not None and args.variant == LINUX:
        p.error("--max-cwnd caps the engine's window; Linux's TCP has its own")
    if args.io != "struct" and args.variant == LINUX:
        p.error("--io chooses how the engine's hosts handle frames; Linux's TCP has its own")
    if args.sysctl and args.variant != LINUX:
        p.error("--sysctl sets Linux's TCP: use it with --variant linux")
    try:
        args.sysctls = dict(parse_sysctl(item) for item in args.sysctl)
    except ValueError as exc:
        p.error(str(exc))
    for key, value in args.sysctls.items():
        bad = sysctl_value_problem(key, value)
        if bad:
            p.error(bad)
    if args.k is not None and args.variant not in RDTCP_VARIANTS:
        p.error(f"--k is RD-TCP's; --variant {args.variant} has no k (it applies to "
                f"{', '.join(RDTCP_VARIANTS)})")
    try:
        args.spec = live_spec(args)
    except (TypeError, ValueError) as exc:
        p.error(str(exc))
    return args


def sysctl_value_problem(key: str, value: str) -> str | None:
    """The usage error of a --sysctl value outside what the kernel takes for ``key``, else
    None (the congestion control is a module's name: checked against the kernel later)."""
    if key.endswith("tcp_congestion_control"):
        if not (len(value) <= 15 and value.replace("_", "").isalnum() and value.isascii()):
            return f"--sysctl {key}={value[:40]}: not a congestion control's name"
        return None
    lo, hi = SYSCTL_RANGES.get(key, (0, _INT_MAX))
    digits = value[1:] if value.startswith("-") else value
    if not (digits.isdigit() and digits.isascii() and len(digits) <= 10
            and lo <= int(value) <= hi):
        return f"--sysctl {key}={value[:40]}: expected an integer in {lo}..{hi}"
    return None


def live_spec(args: argparse.Namespace):
    """The run as the simulator's ``RunSpec`` (its checks, its TCP and gateway configuration);
    no injection is the spec's "swap" with no swaps. A Linux run's spec says ``sack`` (the
    gateways' configuration does not depend on the hosts' TCP); run.json says ``linux``."""
    injection = "swap" if args.injection == "none" else args.injection
    variant = "sack" if args.variant == LINUX else args.variant
    return RunSpec(variant=variant, seed=args.seed, duration=args.duration,
                   injection=injection, level=args.level or 0.0,
                   alt_extra_delay=args.alt_extra_delay, k=RDTCP_K if args.k is None else args.k)


def host_options(spec, max_cwnd: int | None = None) -> list[str]:
    """``live.host`` options giving both ends ``experiments.runner.spec.tcp_config(spec)`` (its
    cwnd cap replaced by ``max_cwnd`` when given)."""
    cfg = tcp_config(spec)
    return ["--variant", cfg.variant, "--mss", str(cfg.mss), "--k", str(cfg.rdtcp_k),
            "--max-cwnd", str(max_cwnd or cfg.max_cwnd_segments),
            "--timestamps", "on" if cfg.timestamps else "off",
            "--rdtcp", "on" if cfg.rdtcp else "off", "--seed", str(spec.seed)]


def gateway_configs(plan, spec, drop: float = 0.0) -> dict[str, dict]:
    """Each gateway's controller config: the simulator's for this spec (experiments.runner.gateways:
    the injection on R1's bottleneck port), the injected drops, and the live queue rates."""
    return {name: plan.gateway_config(name, tm_depth=TM_DEPTH,
                                      impair=gateway_impairment(name, spec, drop=drop))
            for name in plan.switches}


def counters(reports: dict[str, dict]) -> dict[str, int]:
    """The gateways' counters flat, named as the simulator's rows name them (r1_drops_buffer)."""
    return {k: v for name, report in reports.items()
            for k, v in counters_from_report(report, f"{name}_").items()}


def summarize(spec, sender: dict, receiver: dict, reports: dict, *, drop: float,
              variant: str | None = None) -> dict:
    """run.json's head: the figures a reader looks for first, the same for the engine's hosts
    and Linux's (whose summaries carry the engine's names, live.kernel_host); the Linux-only
    figures (reordering events the sender saw, the receiver's checksum errors) are None for the
    engine."""
    s_stats, r_stats = sender.get("stats", {}), receiver.get("stats", {})
    linux = (variant or spec.variant) == LINUX
    return {"variant": variant or spec.variant, "duration": spec.duration,
            "implementation": "linux" if linux else "engine",
            "injection": "none" if spec.injection == "swap" else spec.injection,
            "level": spec.level, "drop": drop, "seed": spec.seed,
            "k": None if linux else spec.k,
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
            "ooo_segments": r_stats.get("ooo_segments", 0),
            "reord_seen": s_stats.get("reord_seen") if linux else None,
            "in_csum_errors": r_stats.get("in_csum_errors") if linux else None,
            "epdn_stamps": None if linux else r_stats.get("epdn_stamps", 0),
            "reorder_acks_sent": None if linux else r_stats.get("reorder_acks_sent", 0),
            "sysctl": receiver.get("sysctl") if linux else None,
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


def live_plan(spec, *, bottleneck_bw: float | None = None,
              access_bw: float | None = None):
    """The paper's dumbbell (with the alternate path when the injection uses it), its rates
    scaled when given (Mb/s)."""
    alt = spec.alt_extra_delay if spec.injection == "altpath" else None
    rates = {k: v for k, v in (("bottleneck_bw", bottleneck_bw), ("access_bw", access_bw))
             if v is not None}
    return LivePlan.from_topo(PaperTopo(queue=BUFFER_PACKETS, alt_extra_delay=alt, **rates),
                              seed=spec.seed)


def live_layout(args: argparse.Namespace, plan):
    """What runs where: the hosts' TCP, the gateways, the links' delay stages (LiveError when
    --link-delay senders cannot serve this run)."""
    hosts = "kernel" if args.variant == LINUX else "engine"
    if args.switch == "simple_switch":
        switch = SwitchSpec("simple_switch", binary=switch_binary(args))
    else:
        switch = SwitchSpec()
    return Layout.choose(plan, hosts=hosts, switch=switch, link_delay=args.link_delay,
                         sysctls=args.sysctls)


def switch_binary(args: argparse.Namespace) -> str:
    """--switch-binary resolved (a path, or a name on PATH; default simple_switch)."""
    return require_binary(args.switch_binary or "simple_switch", "switch binary")


def host_commands(args: argparse.Namespace, spec, out: Path, pcap_dir: Path | None):
    """The receiver's and the sender's options (role, TCP, window, summary file)."""
    window = ["--duration", f"{spec.duration:g}",
              "--timeout", f"{spec.duration + SENDER_MARGIN:g}"]
    if args.variant == LINUX:
        common = ["--seed", str(spec.seed)]
        pc = (lambda h: [])
    else:
        common = host_options(spec, args.max_cwnd) + ["--io", args.io]
        pc = (lambda h: ["--pcap", str(pcap_dir / f"{h}.pcap")]) if pcap_dir else (lambda h: [])
    rx = ["--role", "receiver", *common, *window, "--out", str(out / "receiver.json"), *pc("b")]
    tx = ["--role", "sender", *common, *window, "--out", str(out / "sender.json"), *pc("a")]
    return rx, tx


def run_live(args: argparse.Namespace, out: Path, program_path: str, plan, layout) -> dict:
    """Build the network, configure it, run the transfer; the run.json document."""
    spec = args.spec
    configs = gateway_configs(plan, spec, args.drop)
    pcap_dir = out / "pcap" if args.pcap else None
    if pcap_dir is not None:
        pcap_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    rx_json, tx_json = out / "receiver.json", out / "sender.json"
    rx_args, tx_args = host_commands(args, spec, out, pcap_dir)
    with LiveNetwork(plan, program_path=program_path, backend=args.backend,
                     log_dir=out / "logs", pcap_dir=pcap_dir, layout=layout,
                     cli=args.cli, control=args.control) as net:
        ctls = {name: net.controller(name) for name in plan.switches}
        _each(ctls, lambda name, ctl: ctl.apply(configs[name]))
        for stale in (rx_json, tx_json):
            stale.unlink(missing_ok=True)
        receiver = net.start_host("b", "a", rx_args)
        sender = net.start_host("a", "b", tx_args)
        _watch(net, sender, spec.duration + SENDER_MARGIN + 10)
        _watch(net, receiver, RECEIVER_GRACE)
        reports = _each(ctls, lambda name, ctl: ctl.report())
        tx = _read_summary(tx_json, sender, net.log_text("a"))
        rx = _read_summary(rx_json, receiver, net.log_text("b"))
        backend = net.backend.name
    for stale in (rx_json, tx_json):        # they are in run.json
        stale.unlink(missing_ok=True)
    doc = summarize(spec, tx, rx, reports, drop=args.drop, variant=args.variant)
    doc.update({"io": None if args.variant == LINUX else args.io,
                "bottleneck_bw_mbps": args.bottleneck_bw or DEFAULT_BW["bottleneck"],
                "access_bw_mbps": args.access_bw or DEFAULT_BW["access"], "backend": backend,
                "wall_s": round(time.monotonic() - started, 3),
                "switch": layout.switch.kind, "switch_binary": layout.switch.binary,
                "control": args.control,
                "link_delay": _delays(plan, layout),
                "sender": tx, "receiver": rx,
                "gateways": {n: _jsonable(r) for n, r in reports.items()},
                "gateway_configs": configs, "plan": plan.describe()})
    return doc


def _delays(plan, layout) -> dict[str, str]:
    """Who delayed each link: its senders, a relay delay stage, or netem."""
    return {f"{n1}-{n2}": layout.stages.get(i, "senders")
            for i, (n1, _, n2, _) in enumerate(plan.links)}


def _watch(net, proc: subprocess.Popen, timeout: float) -> None:
    """Wait for a host to end; LiveError naming the process when a gateway or a delay stage
    dies meanwhile (the network is then torn down at once, not after the hosts' timeouts)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _wait(proc, 0.2):
            return
        failed = net.failures()
        if failed:
            raise LiveError("; ".join(failed))


def _each(ctls: dict, call) -> dict:
    """``call(name, controller)`` for every gateway at once (each is a CLI session or more)."""
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
    if doc["implementation"] == "linux":
        marks = (f"{doc['reord_seen']} reorderings seen, TcpInCsumErrors "
                 f"{doc['in_csum_errors']}, r1 EPDN stamps {doc.get('r1_epdn_events_stamp', 0)}")
    else:
        marks = f"{doc['epdn_stamps']} EPDN stamps"
    io = " (Scapy)" if doc.get("io") == "scapy" else ""
    return (f"live {doc['variant']}{io}, {what}{drop}, {doc['duration']:g} s: "
            f"{thr:,.0f} B/s ({thr * 8 / 1e6:.2f} Mb/s), {doc['delivered_bytes']:,} bytes "
            f"{'intact' if doc['pattern_ok'] else 'NOT intact'}, handshake RTT "
            f"{'-' if rtt is None else f'{rtt * 1000:.1f} ms'}; {doc['retransmits']} "
            f"retransmissions ({doc['fast_retransmits']} fast, {doc['timeouts']} timeouts), "
            f"{marks}; r1 drops "
            f"{sum(v for k, v in doc.items() if k.startswith('r1_drops_'))}"
            f" [{doc['backend']}, wall {doc['wall_s']:.1f} s]")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    out = Path(args.out).absolute()     # the hosts' processes run in the checkout, not here
    try:                    # everything this machine lacks, said before any namespace exists
        check_environment()
        check_sysctls(args.sysctls)
        program_path, _ = gateway_program()         # found and loadable, checked here
        plan = live_plan(args.spec, bottleneck_bw=args.bottleneck_bw,
                         access_bw=args.access_bw)
        layout = live_layout(args, plan)
        check_environment(layout, cli=args.cli)
        make_out_dir(out)
    except (ProgramError, UsageError, LiveError, EnvironmentProblem) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        doc = run_live(args, out, program_path, plan, layout)
    except KeyboardInterrupt:
        print("\ninterrupted: the network was torn down; no run.json", file=sys.stderr)
        return 130
    except LiveInterrupted:
        print("terminated: the network was torn down; no run.json", file=sys.stderr)
        return 143
    except (LiveError, DriverError) as exc:
        print(f"error: {exc}; the network was torn down", file=sys.stderr)
        return 1
    tmp = out / "run.json.tmp"
    tmp.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    tmp.replace(out / "run.json")
    print(one_line(doc) + f" -> {out / 'run.json'}")
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
