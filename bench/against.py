"""``bench_sim.py --against ns2,ns3``: the paper's dumbbell ([RDTCP] §4: A -10 Mb/s, 1 ms- R1
-5 Mb/s, 50 ms- R2 -10 Mb/s, 1 ms- B, a 65-packet drop-tail queue at R1, window 500 segments of
1460 bytes, SACK, no reordering) in this simulator, in ns-2 and in ns-3, each timed in one
invocation, with the scripts written where a reader can run them again.

- ns-2: the Tcl script ``experiments.ns2.tcl`` writes for the spec (``Agent/TCP/Sack1`` and
  ``Agent/TCPSink/Sack1``), run by ``ns`` (``experiments.ns2.runs.run_ns2``).
- ns-3: a C++ program (``ns3_source``) written from the same ``Ns2Run`` (the links' rates,
  delays and queue limits, the payload, the window), compiled with ``g++`` against
  ``libns3-dev`` (``pkg-config``) and run: NewReno congestion control with SACK and classic
  recovery (RFC 6675's loss recovery with Reno's window, as ns-2's Sack1), an ACK for every
  segment (the Sack1 sink), no timestamps, BulkSend from A to a PacketSink at B, the device
  queues drop-tail with the links' limits and no traffic-control queue disc above them (ns-3
  puts a 1000-packet pfifo_fast there by default, which would hide R1's 65-packet limit).

Each tool is timed as a child process: wall seconds and CPU seconds (user + system, from the
child's rusage), the latter being what the process costs on a shared machine, and its wall
time on an idle core.
"""

from __future__ import annotations

import hashlib
import os
import re
import resource
import shlex
import shutil
import subprocess
import time
from pathlib import Path

from experiments.ns2.install import Ns2Error, ns_binary
from experiments.ns2.runs import run_ns2
from experiments.ns2.scenario import Ns2Run

__all__ = ["TOOLS", "parse_tools", "ns3_missing", "ns3_source", "run_ns3", "run_ns2_timed",
           "Ns3Error"]

TOOLS = ("ns2", "ns3")
NS3_MODULES = ("ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point",
               "ns3-applications", "ns3-traffic-control")
RESULT_TAG = "ns3-result"
_RESULT = re.compile(rf"^{RESULT_TAG} (.*)$", re.M)
COMPILE_TIMEOUT_S = 900
RUN_TIMEOUT_S = 3600
DEFAULT_DURATION = 600.0        # the paper's 10 minutes


class Ns3Error(Exception):
    """ns-3 is missing, or its program failed to compile or run: the message says which."""


def parse_tools(text: str) -> tuple[str, ...]:
    """``ns2,ns3`` -> ("ns2", "ns3"); ValueError naming an unknown tool."""
    tools = tuple(t.strip() for t in text.split(",") if t.strip())
    bad = [t for t in tools if t not in TOOLS]
    if bad or not tools:
        raise ValueError(f"--against {text!r}: expected a comma-separated list of "
                         f"{', '.join(TOOLS)}")
    return tuple(dict.fromkeys(tools))


def ns2_missing() -> str | None:
    if ns_binary() is None:
        return "ns-2 is not installed (no `ns` on PATH; apt-get install ns2)"
    return None


def ns3_missing() -> str | None:
    """Why ns-3 cannot run here (None: it can)."""
    for tool in ("g++", "pkg-config"):
        if shutil.which(tool) is None:
            return f"ns-3 cannot be compiled: no {tool} on PATH"
    proc = subprocess.run(["pkg-config", "--exists", *NS3_MODULES], capture_output=True)
    if proc.returncode != 0:
        return ("ns-3 is not installed (pkg-config finds no " + " ".join(NS3_MODULES) +
                "; apt-get install libns3-dev)")
    return None


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_ns2_timed(run: Ns2Run, workdir: Path) -> dict:
    """ns-2's row for ``run`` (experiments.ns2.runs) with its CPU seconds beside its wall."""
    cpu0 = _child_cpu()
    row = run_ns2(run, workdir)
    return {"tool": "ns-2", "wall_s": row["wall_s"], "cpu_s": _child_cpu() - cpu0,
            "throughput_Bps": row["throughput_Bps"], "script": row["ns2_script"],
            "rerun": f"ns {row['ns2_script']}"}


def _num(x: float) -> str:
    return repr(float(x))


def ns3_source(run: Ns2Run) -> str:
    """The C++ text of ``run``'s dumbbell for ns-3 (deterministic: the same run, the same
    text; the duration is the program's ``--duration``, so runs of any length share one
    binary). Nodes in the order of ``run.nodes``, links as ``run.links``; the sender at
    ``run.src``, the sink at ``run.dst``; it prints one line ``ns3-result bytes=N``: the
    payload bytes the sink received by the run's end."""
    spec = run.spec
    idx = {name: i for i, name in enumerate(run.nodes)}
    payload = run.payload
    window = int(run.agent.params["window_"])
    links = []
    for k, ln in enumerate(run.links):
        links.append(
            f"  {{  // {ln.a} -> {ln.b}: {ln.bandwidth / 1e6:g} Mb/s, {ln.delay * 1e3:g} ms, "
            f"queues {ln.limit} / {ln.limit_back} packets\n"
            f"    PointToPointHelper p2p;\n"
            f"    p2p.SetDeviceAttribute(\"DataRate\", DataRateValue(DataRate({int(ln.bandwidth)})));\n"
            f"    p2p.SetChannelAttribute(\"Delay\", TimeValue(Seconds({_num(ln.delay)})));\n"
            f"    NetDeviceContainer d = p2p.Install(nodes.Get({idx[ln.a]}), nodes.Get({idx[ln.b]}));\n"
            f"    SetLimit(d.Get(0), {int(ln.limit)});\n"
            f"    SetLimit(d.Get(1), {int(ln.limit_back)});\n"
            f"    devices.push_back(d);\n"
            f"  }}")
    return f"""// ns-3 program of the {spec.scenario!r} scenario's dumbbell, {spec.variant}, seed {spec.seed}
// written by bench/against.py (python bench/bench_sim.py --against ns3); run it with
// --duration=S (simulated seconds, default {_num(DEFAULT_DURATION)})
{''.join(f'//   {n}' + chr(10) for n in run.notes)}#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <iostream>
#include <vector>

using namespace ns3;

static void SetLimit(Ptr<NetDevice> dev, uint32_t packets)
{{
  Ptr<PointToPointNetDevice> p = DynamicCast<PointToPointNetDevice>(dev);
  p->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, packets));
}}

int main(int argc, char* argv[])
{{
  double duration = {_num(DEFAULT_DURATION)};
  CommandLine cmd;
  cmd.AddValue("duration", "simulated seconds", duration);
  cmd.Parse(argc, argv);

  // the sender: Reno's window with SACK-based loss recovery, as ns-2's Agent/TCP/Sack1
  Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
  Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                     TypeIdValue(TcpClassicRecovery::GetTypeId()));
  Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
  Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue({payload}));
  Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
  Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));   // an ACK a segment
  // window_ {window}: the buffers bound the window to {window} segments
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue({window * payload}));
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue({window * payload}));

  NodeContainer nodes;
  nodes.Create({len(run.nodes)});
  InternetStackHelper stack;
  stack.Install(nodes);
  std::vector<NetDeviceContainer> devices;
{chr(10).join(links)}
  TrafficControlHelper tch;
  Ipv4AddressHelper address;
  Ipv4InterfaceContainer sinkSide;
  for (size_t i = 0; i < devices.size(); ++i)
  {{
    std::ostringstream net;
    net << "10.1." << (i + 1) << ".0";
    address.SetBase(net.str().c_str(), "255.255.255.0");
    Ipv4InterfaceContainer ifs = address.Assign(devices[i]);   // installs pfifo_fast, and
    tch.Uninstall(devices[i]);      // without it the device's drop-tail queue is the only one
    if (i + 1 == devices.size())
      sinkSide = ifs;
  }}
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();

  uint16_t port = 5001;
  PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
  ApplicationContainer sinkApp = sink.Install(nodes.Get({idx[run.dst]}));
  sinkApp.Start(Seconds(0.0));
  BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(sinkSide.GetAddress(1), port));
  source.SetAttribute("MaxBytes", UintegerValue(0));
  source.SetAttribute("SendSize", UintegerValue({payload}));
  ApplicationContainer sourceApp = source.Install(nodes.Get({idx[run.src]}));
  sourceApp.Start(Seconds(0.0));

  Simulator::Stop(Seconds(duration));
  Simulator::Run();
  std::cout << "{RESULT_TAG} bytes=" << DynamicCast<PacketSink>(sinkApp.Get(0))->GetTotalRx()
            << std::endl;
  Simulator::Destroy();
  return 0;
}}
"""


def _compile(source: Path, exe: Path) -> list[str]:
    """Compile ``source`` into ``exe`` unless it is there (its name carries the source's
    hash); the command, for the reader to rerun."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", *NS3_MODULES],
                           capture_output=True, text=True, check=True).stdout.split()
    # Debian's ns3-*.pc name /usr/lib/.../libgsl.so and libsqlite3.so, which only the -dev
    # packages of GSL and SQLite install; the ns-3 libraries link them themselves
    flags = [f for f in flags if (not (f.startswith("/") and f.endswith(".so"))
                                  or os.path.exists(f)) and not f.endswith("\\;")]
    cmd = ["g++", "-O2", "-std=c++17", str(source), *flags, "-o"]
    if not exe.exists():
        tmp = exe.with_name(exe.name + ".tmp")
        proc = subprocess.run(cmd + [str(tmp)], capture_output=True, text=True,
                              timeout=COMPILE_TIMEOUT_S)
        if proc.returncode != 0:
            first = next((ln for ln in proc.stderr.splitlines() if "error" in ln),
                         proc.stderr.strip()[:200])
            raise Ns3Error(f"g++ failed on {source}: {first}")
        tmp.replace(exe)
    return cmd + [str(exe)]


def run_ns3(run: Ns2Run, workdir: Path) -> dict:
    """Write ``run``'s ns-3 program into ``workdir``, compile it (once per text: the binary
    is named by the source's hash), run it; its row. Ns3Error when it cannot."""
    why = ns3_missing()
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    text = ns3_source(run)
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    source = workdir / f"ns3-{run.spec.scenario}-{run.spec.variant}-{digest}.cc"
    source.write_text(text)
    if why:
        raise Ns3Error(f"{why}; program: {source}")
    exe = source.with_suffix("")
    t0 = time.perf_counter()
    cmd = _compile(source, exe)
    compile_s = time.perf_counter() - t0
    cpu0 = _child_cpu()
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([str(exe), f"--duration={_num(run.spec.duration)}"],
                              capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                              cwd=str(workdir))
    except subprocess.TimeoutExpired:
        raise Ns3Error(f"ns-3 gave no result after {RUN_TIMEOUT_S} s; program: {exe}") from None
    wall = time.perf_counter() - t0
    cpu = _child_cpu() - cpu0
    found = _RESULT.findall(proc.stdout)
    if proc.returncode != 0 or not found:
        said = (proc.stderr or proc.stdout).strip().splitlines()
        raise Ns3Error(f"ns-3 failed (status {proc.returncode}): "
                       f"{said[0] if said else 'no output'}; program: {exe}")
    received = int(found[-1].split("=", 1)[1])
    return {"tool": "ns-3", "wall_s": wall, "cpu_s": cpu,
            "throughput_Bps": received / run.spec.duration, "script": str(source),
            "rerun": f"{shlex.join(cmd)} && {exe} --duration={_num(run.spec.duration)}",
            "compile_s": compile_s}


def missing(tool: str) -> str | None:
    return ns2_missing() if tool == "ns2" else ns3_missing()


def run_tool(tool: str, run: Ns2Run, workdir: Path) -> dict:
    """The row of ``tool`` ("ns2" or "ns3"); Ns2Error / Ns3Error when it fails."""
    if tool == "ns2":
        return run_ns2_timed(run, workdir)
    return run_ns3(run, workdir)


ERRORS = (Ns2Error, Ns3Error)


def env_note() -> str:
    """The machine's load when the figures were taken (they depend on it)."""
    try:
        return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    except OSError:
        return ""
