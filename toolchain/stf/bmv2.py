"""Run an STF test on real p4c + simple_switch, the way p4c's ``run-bmv2-test.py`` does.

The program (compiled by ``p4c-bm2-ss`` when given as .p4) runs in ``simple_switch
--use-files``: each port reads ``<port>_in.pcap`` and writes ``<port>_out.pcap`` in a
temporary directory. STF table commands are translated to simple_switch_CLI commands and
sent through ``simple_switch_CLI`` before the switch starts reading packets; the outputs are
then compared per port exactly as on the embedded target.

Every child has a time limit (``COMPILE_TIMEOUT_S``, ``CLI_TIMEOUT_S``, ``READY_TIMEOUT_S``,
the outputs' deadline, ``STOP_TIMEOUT_S``): one that hangs is killed and named in the report.
A simple_switch that exits on its own before the test is over is reported with its exit
status and its last line of output or log, rather than as the packets it did not send.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from netbase.pcap import PcapFormatError, PcapWriter, read_pcap

from ..switch import LoadError, load_program
from .embedded import compare_packet
from .stf_parser import (Add, CheckCounter, CliCommand, Expect, PacketIn, RegisterCheck, SetDefault,
                         StfAddError, add_priority, parse_key_value, parse_stf, stf_key_index,
                         stf_name)

__all__ = ["missing_tools", "run_bmv2", "stf_to_cli", "cli_failure", "ChildFailed"]

USE_FILES_DELAY_S = 5          # simple_switch waits this long before reading the input pcaps
READY_TIMEOUT_S = 20.0
QUIET_PERIOD_S = 2.0           # outputs are complete once no pcap grew for this long
OUTPUT_TIMEOUT_S = 30.0        # after the --use-files delay, at most this long for the outputs
COMPILE_TIMEOUT_S = 600.0      # p4c-bm2-ss on one program
CLI_TIMEOUT_S = 60.0           # one simple_switch_CLI session
STOP_TIMEOUT_S = 10.0          # SIGTERM, then SIGKILL
SWITCH_OUTPUT = "simple_switch.out"    # its standard output and error, in the work directory
SWITCH_LOG = "switch.log"              # --log-file (BMv2's spdlog may add ".txt")


class ChildFailed(RuntimeError):
    """A child process hung or failed; the message, one line, says which and how."""


def missing_tools(program) -> list[str]:
    need = ["simple_switch", "simple_switch_CLI"]
    if str(program).endswith(".p4"):
        need.append("p4c-bm2-ss")
    return [t for t in need if shutil.which(t) is None]


def _compile(program, workdir: Path) -> Path:
    if not str(program).endswith(".p4"):
        return Path(program)
    out = workdir / "prog.json"
    try:
        res = subprocess.run(["p4c-bm2-ss", "--std", "p4-16", str(program), "-o", str(out)],
                             capture_output=True, text=True, errors="replace",
                             timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ChildFailed(f"p4c-bm2-ss did not finish within {COMPILE_TIMEOUT_S:g} s "
                          "(killed)") from None
    except OSError as e:
        raise ChildFailed(f"cannot run p4c-bm2-ss: {e.strerror}") from None
    if res.returncode != 0:
        raise RuntimeError(f"p4c-bm2-ss failed:\n{res.stderr}")
    return out


def _key_text(key, text: str) -> str:
    value, mask = parse_key_value(text, key.width)
    if key.match_type == "lpm":
        return f"{hex(value)}/{bin(mask).count('1')}"
    if key.match_type == "ternary":
        return f"{hex(value)}&&&{hex(mask)}"
    return hex(value)


def _ordered_args(prog, action: str, args) -> list[int]:
    """STF's named action arguments in the order of the action's parameters."""
    spec = prog.actions.get(action) or next((a for n, a in prog.actions.items() if n.endswith("." + action)), None)
    named = {n: int(v, 0) for n, v in args if n is not None}
    if spec is None or not named:
        return [int(v, 0) for _, v in args]
    return [named[p] for p, _ in spec.params if p in named]


def stf_to_cli(cmds, prog) -> list[str]:
    """simple_switch_CLI lines for the STF's control-plane commands, in order."""
    out = []
    for c in cmds:
        if isinstance(c, Add):
            t = prog.tables[stf_name("table", prog.tables, c.table)]
            priority = add_priority(t.name, t.match_type, [(k.name, k.match_type) for k in t.keys],
                                    c.priority)
            texts = ["0&&&0" if k.match_type == "ternary" else "0/0" if k.match_type == "lpm" else "0"
                     for k in t.keys]
            for name, text in c.keys:
                i = stf_key_index([k.name for k in t.keys], name)
                if i is None:
                    raise KeyError(f"table {t.name} has no key {name}")
                texts[i] = _key_text(t.keys[i], text)
            args = " ".join(hex(v) for v in _ordered_args(prog, c.action, c.args))
            line = f"table_add {t.name} {c.action} {' '.join(texts)} => {args}"
            out.append(line if priority is None else f"{line} {priority}")
        elif isinstance(c, SetDefault):
            out.append(f"table_set_default {c.table} {c.action} "
                       + " ".join(hex(v) for v in _ordered_args(prog, c.action, c.args)))
        elif isinstance(c, CliCommand):
            out.append(c.line)
    return out


def _last_line(*paths: Path) -> str:
    """The last non-empty line of the first of ``paths`` that has one ("" if none does)."""
    for path in paths:
        try:
            with open(path, "rb") as f:
                f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
                lines = [ln for ln in f.read().decode("utf-8", "replace").splitlines()
                         if ln.strip()]
        except OSError:
            continue
        if lines:
            return lines[-1].strip()[:300]
    return ""


def _switch_exited(proc: subprocess.Popen, workdir: Path) -> ChildFailed:
    """simple_switch ended on its own: its exit status and its last words (the last line it
    printed and the last line of its log)."""
    said = [f"its last {what} line: {line}" for what, line in (
        ("output", _last_line(workdir / SWITCH_OUTPUT)),
        ("log", _last_line(workdir / (SWITCH_LOG + ".txt"), workdir / SWITCH_LOG))) if line]
    return ChildFailed(f"simple_switch exited with status {proc.returncode} during the test; "
                       + ("; ".join(said) if said else "it printed and logged nothing"))


def _wait_port(port: int, proc: subprocess.Popen, workdir: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise _switch_exited(proc, workdir)
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise ChildFailed(f"simple_switch did not open its Thrift port {port} within "
                      f"{READY_TIMEOUT_S:g} s (killed)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_outputs(workdir: Path, started: float, deadline_s: float,
                  proc: subprocess.Popen | None = None) -> None:
    """Wait until the switch has read its inputs (after the --use-files delay) and its output
    pcaps have stopped growing for QUIET_PERIOD_S, or until the deadline. A switch that exits
    meanwhile is a ChildFailed."""
    earliest = started + USE_FILES_DELAY_S + 1.0
    last, stable_since = None, time.monotonic()
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise _switch_exited(proc, workdir)
        sizes = tuple(sorted((p.name, p.stat().st_size) for p in workdir.glob("*_out.pcap")))
        now = time.monotonic()
        if sizes != last:
            last, stable_since = sizes, now
        elif now >= earliest and now - stable_since >= QUIET_PERIOD_S:
            return
        time.sleep(0.2)


def _write_inputs(cmds, workdir: Path) -> list[int]:
    """One <port>_in.pcap per port the test uses; returns the ports."""
    ports = sorted({c.port for c in cmds if isinstance(c, (PacketIn, Expect))} | {0})
    writers = {p: PcapWriter(workdir / f"{p}_in.pcap") for p in ports}
    for i, c in enumerate(c for c in cmds if isinstance(c, PacketIn)):
        writers[c.port].write(1.0 + i * 0.001, c.data)
    for w in writers.values():
        w.close()
    return ports


def _start_switch(json_path: Path, ports: list[int], workdir: Path, thrift: int) -> subprocess.Popen:
    args = ["simple_switch", "--use-files", str(USE_FILES_DELAY_S), "--thrift-port", str(thrift),
            "--log-file", str(workdir / SWITCH_LOG), "--log-flush"]
    for p in ports:
        args += ["-i", f"{p}@{workdir / str(p)}"]
    with open(workdir / SWITCH_OUTPUT, "wb") as out:
        return subprocess.Popen(args + [str(json_path)], stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_bmv2(program, stf_path) -> list[str]:
    """Failures of the STF on real simple_switch (empty when it passes)."""
    cmds = parse_stf(Path(stf_path).read_text())
    with tempfile.TemporaryDirectory(prefix="rdtcp-stf-") as tmp:
        workdir = Path(tmp)
        try:
            json_path = _compile(program, workdir)
            prog = load_program(json_path)
            cli_lines = stf_to_cli(cmds, prog)
        except (RuntimeError, LoadError, StfAddError, KeyError) as e:
            return [str(e).strip('"')]
        ports = _write_inputs(cmds, workdir)
        thrift = _free_port()
        started = time.monotonic()
        try:
            proc = _start_switch(json_path, ports, workdir, thrift)
        except OSError as e:
            return [f"cannot run simple_switch: {e.strerror}"]
        try:
            _wait_port(thrift, proc, workdir)
            cli = _run_cli(thrift, "\n".join(cli_lines) + "\n")
            _wait_outputs(workdir, started, USE_FILES_DELAY_S + OUTPUT_TIMEOUT_S, proc)
            failures = _checks(cmds, thrift)
            if proc.poll() is not None:
                raise _switch_exited(proc, workdir)
        except RuntimeError as e:
            return [str(e)]
        finally:
            _stop(proc)
        if "Error" in cli.stdout or "Invalid" in cli.stdout:
            failures.append("simple_switch_CLI reported:\n" + cli.stdout)
        return failures + _compare(cmds, workdir)


def _run_cli(thrift: int, commands: str) -> subprocess.CompletedProcess:
    """simple_switch_CLI with ``commands`` on its standard input. A CLI that could not run
    them (exited with an error, or died in a traceback: Thrift missing, switch unreachable)
    is a RuntimeError naming its first line of error, rather than the packets a switch it
    never configured failed to send."""
    try:
        res = subprocess.run(["simple_switch_CLI", "--thrift-port", str(thrift)], input=commands,
                             capture_output=True, text=True, errors="replace",
                             timeout=CLI_TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        out = e.stderr or e.stdout or b""
        last = [ln for ln in (out.decode("utf-8", "replace") if isinstance(out, bytes)
                              else out).splitlines() if ln.strip()]
        raise ChildFailed(f"simple_switch_CLI did not finish within {CLI_TIMEOUT_S:g} s "
                          f"(killed)" + (f"; its last line: {last[-1][:300]}" if last else "")) from None
    except OSError as e:
        raise RuntimeError(f"cannot run simple_switch_CLI: {e.strerror}") from None
    failed = cli_failure(res.returncode, res.stdout, res.stderr)
    if failed:
        raise RuntimeError(failed)
    return res


TRACEBACK = "Traceback (most recent call last):"


def cli_failure(returncode: int, stdout: str, stderr: str) -> str | None:
    """None if simple_switch_CLI ran to its end; otherwise what went wrong, in one line: its
    exit status and its first line of error (of a traceback, the exception it ends with)."""
    crashed = TRACEBACK in stderr or TRACEBACK in stdout
    if returncode == 0 and not crashed:
        return None
    text = stderr if stderr.strip() else stdout
    how = f"exit status {returncode}" if returncode else "a traceback"
    return f"simple_switch_CLI failed ({how}): {_first_error_line(text)}"


def _first_error_line(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if TRACEBACK in text:
        start = next(i for i, line in enumerate(lines) if line.startswith(TRACEBACK))
        # the frames are indented; the exception ("ValueError: ...") is the first line not
        tail = [line for line in lines[start + 1:] if not line.startswith((" ", "\t"))]
        if tail:
            return tail[0]
    return lines[0] if lines else "(no output)"


def _checks(cmds, thrift: int) -> list[str]:
    failures = []
    for c in cmds:
        if isinstance(c, RegisterCheck):
            res = _run_cli(thrift, f"register_read {c.register} {c.index}\n")
            if f"= {c.value}\n" not in res.stdout:
                failures.append(f"line {c.lineno}: register {c.register}[{c.index}]: {res.stdout.strip()}")
        elif isinstance(c, CheckCounter):
            res = _run_cli(thrift, f"counter_read {c.counter} {c.index}\n")
            m = re.search(rf"{c.kind}=(\d+)", res.stdout)
            if m is None:
                failures.append(f"line {c.lineno}: counter {c.counter}({c.index}): {res.stdout.strip()}")
            elif not _compare_op(int(m.group(1)), c.op, c.value):
                failures.append(f"line {c.lineno}: counter {c.counter}({c.index}) {c.kind} is {m.group(1)}, "
                                f"expected {c.op} {c.value}")
    return failures


def _compare_op(got: int, op: str, want: int) -> bool:
    return {"==": got == want, "!=": got != want, "<": got < want, "<=": got <= want,
            ">": got > want, ">=": got >= want}[op]


def _compare(cmds, workdir: Path) -> list[str]:
    expected: dict[int, list[Expect]] = {}
    for c in cmds:
        if isinstance(c, Expect):
            expected.setdefault(c.port, []).append(c)
    received = {}
    failures = []
    for f in sorted(workdir.glob("*_out.pcap")):
        port = int(f.name.split("_")[0])
        try:
            received[port] = [r.data for r in read_pcap(os.fspath(f))] if f.stat().st_size else []
        except PcapFormatError as e:        # simple_switch killed mid-record, or worse
            failures.append(f"port {port}: simple_switch's {f.name} cannot be read: {e}")
            expected.pop(port, None)        # nothing to compare on that port
    for port in sorted(set(expected) | set(received)):
        want, got = expected.get(port, []), received.get(port, [])
        if len(want) != len(got):
            failures.append(f"Expected {len(want)} packets on port {port} got {len(got)}")
            continue
        for e, g in zip(want, got):
            diff = compare_packet(e.pattern, e.exact, g)
            if diff:
                failures.append(f"line {e.lineno}: port {port}: {diff}")
    return failures
