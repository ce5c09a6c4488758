#!/usr/bin/env python3
"""Run the PTF suite against the gateway on a switch process bound to veth pairs.

For each target it: creates a network namespace with one veth pair per switch port (switch end
``swN``, PTF end ``hN``, IPv6 off so the kernel sends nothing on them); starts the switch in it
(``rdtcp-switch`` for the embedded target, ``simple_switch`` for BMv2 -- same JSON, same
commands); waits until the switch's Thrift port accepts a connection (timeout, never a blind
sleep); runs ``ptf --test-dir ptf-tests`` inside the namespace; and removes exactly what it
created (the switch process it started, then the namespace and its veths).

    sudo python3 ptf-tests/run_ptf.py                       # embedded target, every test
    sudo python3 ptf-tests/run_ptf.py --target all epdn     # both targets, group "epdn"
    sudo python3 ptf-tests/run_ptf.py --then-control p4runtime   # then forwarding, epdn over P4Runtime

Exit status: 0 all passed, 1 a test failed or the setup failed (the reason is printed),
77 every requested target was skipped (not root, no `ip netns`, simple_switch not installed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_DIR = ROOT / "ptf-tests"
PORTS = (1, 2, 3, 4)
EXIT_SKIP = 77

SWITCH_OF_TARGET = {"embedded": "rdtcp-switch", "bmv2": "simple_switch"}
CLI_OF_TARGET = {"embedded": "simple_switch_CLI", "bmv2": "simple_switch_CLI"}


class SetupError(RuntimeError):
    """The test bed could not be built; the message says what to fix."""


class Skip(Exception):
    """This target cannot run here; the message says why."""


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise SetupError(f"{' '.join(cmd)} failed: {(proc.stderr or proc.stdout).strip()}")
    return proc


def check_host() -> None:
    if os.geteuid() != 0:
        raise Skip("needs root (network namespaces and veth pairs); run with sudo")
    if shutil.which("ip") is None:
        raise Skip("`ip` (iproute2) not found; install iproute2")
    probe = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    if probe.returncode != 0:
        raise Skip(f"`ip netns` unavailable: {probe.stderr.strip()}")


def check_target(target: str) -> None:
    for tool in (SWITCH_OF_TARGET[target], CLI_OF_TARGET[target]):
        if shutil.which(tool) is None:
            hint = ("pip install -e . puts it on PATH" if target == "embedded"
                    else "install p4lang/behavioral-model")
            raise Skip(f"target {target}: {tool} not on PATH ({hint})")


class TestBed:
    """A namespace with veth pairs and a switch process: everything this run created."""

    def __init__(self, name: str, log_dir: Path):
        self.ns = name
        self.log_dir = log_dir
        self.created_ns = False
        self.switch: subprocess.Popen | None = None
        self.switch_log = log_dir / "switch.log"

    def build(self) -> None:
        run(["ip", "netns", "add", self.ns])
        self.created_ns = True
        self.exec(["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"])
        self.exec(["sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"])
        self.exec(["ip", "link", "set", "lo", "up"])
        for p in PORTS:
            self.exec(["ip", "link", "add", f"sw{p}", "type", "veth", "peer", "name", f"h{p}"])
            for dev in (f"sw{p}", f"h{p}"):
                self.exec(["ip", "link", "set", dev, "up"])

    def exec(self, cmd: list[str]) -> subprocess.CompletedProcess:
        return run(["ip", "netns", "exec", self.ns, *cmd])

    def start_switch(self, target: str, program: Path, thrift_port: int,
                     grpc_port: int | None = None) -> None:
        cmd = ["ip", "netns", "exec", self.ns, SWITCH_OF_TARGET[target]]
        for p in PORTS:
            cmd += ["-i", f"{p}@sw{p}"]
        cmd += [str(program), "--thrift-port", str(thrift_port)]
        if grpc_port is not None:        # simple_switch_grpc's target option, rdtcp-switch's too
            cmd += ["--", "--grpc-server-addr", f"127.0.0.1:{grpc_port}"]
        log = open(self.switch_log, "w")
        # `ip netns exec` execs the switch: this PID is the switch's own.
        self.switch = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
        log.close()

    def wait_ready(self, thrift_port: int, timeout: float) -> None:
        """Until the Thrift port accepts a connection inside the namespace, or fail."""
        probe = ("import socket,sys\n"
                 "s=socket.socket(); s.settimeout(0.5)\n"
                 f"sys.exit(s.connect_ex(('127.0.0.1',{thrift_port})))\n")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.switch.poll() is not None:
                raise SetupError(f"the switch exited with status {self.switch.returncode} before "
                                 f"it was ready:\n{self.switch_log.read_text()[-2000:]}")
            ok = subprocess.run(["ip", "netns", "exec", self.ns, sys.executable, "-c", probe],
                                capture_output=True).returncode == 0
            if ok:
                return
            time.sleep(0.1)        # between probes of a readiness condition, not a guess
        raise SetupError(f"the switch's Thrift port {thrift_port} did not open within {timeout} s:"
                         f"\n{self.switch_log.read_text()[-2000:]}")

    def teardown(self) -> None:
        if self.switch is not None and self.switch.poll() is None:
            self.switch.terminate()
            try:
                self.switch.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.switch.kill()
                self.switch.wait()
        if self.created_ns:
            subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
            self.created_ns = False


def ensure_program(path: Path | None, defines: list[str]) -> Path:
    """The BMv2 JSON to load: ``path`` as given, or p4src/rdtcp.p4 compiled by the front end."""
    if path is not None:
        if not path.exists():
            raise SetupError(f"{path}: no such program JSON")
        return path
    out = Path(tempfile.mkdtemp(prefix="rdtcp-ptf-json-")) / "rdtcp.json"
    cmd = [sys.executable, "-m", "toolchain.compiler.driver", str(ROOT / "p4src" / "rdtcp.p4"),
           "-o", str(out), "--p4runtime-files", str(out.with_suffix(".p4info.txt"))]
    for d in defines:
        cmd += ["-D", d]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise SetupError(f"compiling p4src/rdtcp.p4 failed:\n{proc.stderr.strip()}")
    return out


def epdn_entries(defines: list[str]) -> int:
    for d in defines:
        if d.startswith("EPDN_ENTRIES="):
            return int(d.split("=", 1)[1])
    return 65536


def run_target(target: str, args, program: Path) -> int:
    check_target(target)
    log_dir = Path(tempfile.mkdtemp(prefix=f"rdtcp-ptf-{target}-"))
    bed = TestBed(f"rdtcp-ptf-{os.getpid()}-{target}", log_dir)
    try:
        bed.build()
        grpc = args.grpc_port if "p4runtime" in (args.control, args.then_control) else None
        bed.start_switch(target, program, args.thrift_port, grpc)
        bed.wait_ready(args.thrift_port, args.ready_timeout)
        status = run_ptf(bed, target, args, program, args.control, args.ptf_args, "ptf.log")
        print(f"[run_ptf] {target}: ptf exit status {status}; logs in {log_dir}", flush=True)
        if args.then_control is not None:
            # the same switch process: each test installs its own state (P4Runtime: the
            # pipeline too), so the first pass leaves nothing the second one sees
            again = run_ptf(bed, target, args, program, args.then_control,
                            args.then_groups.split(","), f"ptf-{args.then_control}.log")
            print(f"[run_ptf] {target}, entries over {args.then_control}: ptf exit status "
                  f"{again}; logs in {log_dir}", flush=True)
            status = status or again
        return status
    finally:
        bed.teardown()


def run_ptf(bed: TestBed, target: str, args, program: Path, control: str,
            tests: list[str], log_name: str) -> int:
    """ptf over the bed's veths, the tests' entries written over ``control``: its exit status."""
    params = (f"target='{target}';thrift_port={args.thrift_port};"
              f"epdn_entries={epdn_entries(args.define)};program='{program}';"
              f"control='{control}';grpc_port={args.grpc_port}")
    cmd = ["ip", "netns", "exec", bed.ns, shutil.which("ptf") or "ptf",
           "--test-dir", str(TEST_DIR), "--pypath", str(ROOT),
           "--log-file", str(bed.log_dir / log_name), "--test-params", params]
    for p in PORTS:
        cmd += ["--interface", f"{p}@h{p}"]
    cmd += tests
    print(f"[run_ptf] {target}: {' '.join(cmd)}", flush=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), str(TEST_DIR), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run(cmd, env=env, cwd=bed.log_dir).returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--target", choices=["embedded", "bmv2", "all"], default="embedded")
    ap.add_argument("--json", type=Path, default=None,
                    help="BMv2 JSON to load (default: compile p4src/rdtcp.p4 with the front end)")
    ap.add_argument("-D", "--define", action="append", default=[],
                    help="compile-time define, e.g. EPDN_ENTRIES=1024 (when compiling)")
    ap.add_argument("--thrift-port", type=int, default=9090)
    ap.add_argument("--control", choices=["thrift", "p4runtime"], default="thrift",
                    help="write the tests' entries over Thrift (default) or over P4Runtime "
                         "(the switch serves it: rdtcp-switch, or --switch simple_switch_grpc); "
                         "the P4Info is the one beside the JSON (<name>.p4info.txt)")
    ap.add_argument("--grpc-port", type=int, default=9559)
    ap.add_argument("--then-control", choices=["thrift", "p4runtime"], default=None,
                    help="after the run, run --then-groups again on the same switch with the "
                         "entries written this way (one test bed, one switch start for both)")
    ap.add_argument("--then-groups", default="forwarding,epdn", metavar="GROUP,...",
                    help="the groups or tests of the --then-control run (default: %(default)s)")
    ap.add_argument("--ready-timeout", type=float, default=30.0,
                    help="seconds to wait for the switch's Thrift port")
    ap.add_argument("ptf_args", nargs=argparse.REMAINDER,
                    help="passed to ptf: test groups or names (e.g. epdn, rdtcp_test.StampTest)")
    args = ap.parse_args(argv)

    targets = ["embedded", "bmv2"] if args.target == "all" else [args.target]
    try:
        check_host()
    except Skip as e:
        print(f"[run_ptf] SKIP: {e}")
        return EXIT_SKIP
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))   # run the finally: clauses
    statuses = []
    try:
        program = ensure_program(args.json, args.define)
        for target in targets:
            try:
                statuses.append(run_target(target, args, program))
            except Skip as e:
                print(f"[run_ptf] SKIP {target}: {e}")
    except SetupError as e:
        print(f"[run_ptf] ERROR: {e}", file=sys.stderr)
        return 1
    if not statuses:
        return EXIT_SKIP
    return 0 if all(s == 0 for s in statuses) else 1


if __name__ == "__main__":
    sys.exit(main())
