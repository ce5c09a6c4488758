"""Target drivers: how the controller talks to one switch.

Both speak the simple_switch_CLI language; they differ in transport:

* ``EmbeddedDriver(sw)``: an in-process ``toolchain.switch.SimpleSwitch`` (library mode); commands
  go through ``sw.cli``, reads through ``sw.runtime``.
* ``Bmv2Driver(thrift_port=9090)``: a running switch process, real ``simple_switch`` or the
  embedded target's ``rdtcp-switch``; commands are piped into ``simple_switch_CLI`` (or
  ``cli="rdtcp-switch-cli"``) in one session per call.
* ``SwitchProcessDriver(port)``: a running ``rdtcp-switch``, over one persistent connection
  to its control channel (what ``rdtcp-switch-cli`` speaks), without a CLI process per call.

The last two read registers and counters from the CLI's printed answers (``_CliTextDriver``).

A refused command raises ``DriverError`` naming the command and the switch's message.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any, Protocol, Sequence

__all__ = ["Driver", "DriverError", "EmbeddedDriver", "Bmv2Driver", "SwitchProcessDriver",
           "parse_cli_output"]

PROMPT = "RuntimeCmd:"
_ERROR_LINE = re.compile(r"^\s*(Error|Invalid|Exception|Traceback|Unknown)", re.I | re.M)
_REGISTER_VALUE = re.compile(r"\[\s*\d+\s*\]\s*=\s*(\d+)")
_COUNTER_PACKETS = re.compile(r"packets\s*=\s*(\d+)|(\d+)\s+packets")
_COUNTER_BYTES = re.compile(r"bytes\s*=\s*(\d+)|(\d+)\s+bytes")


class DriverError(RuntimeError):
    """The target refused a command, or the driver cannot reach the target."""


class Driver(Protocol):
    def run(self, commands: Sequence[str]) -> list[str]: ...
    def read_registers(self, cells: Sequence[tuple[str, int]]) -> list[int]: ...
    def read_counters(self, cells: Sequence[tuple[str, int]]) -> list[tuple[int, int]]: ...


def _check(command: str, output: str) -> str:
    m = _ERROR_LINE.search(output)
    if m:
        line = output[m.start():].strip().splitlines()[0]
        raise DriverError(f"{command!r} refused by the switch: {line}")
    return output


class EmbeddedDriver:
    """Drives a ``toolchain.switch.SimpleSwitch`` in this process."""

    def __init__(self, switch: Any):
        self.switch = switch

    def run(self, commands: Sequence[str]) -> list[str]:
        out = []
        for cmd in commands:
            try:
                text = self.switch.cli(cmd)
            except Exception as e:      # the target's CliError, whatever its module
                raise DriverError(f"{cmd!r} refused by the switch: {e}") from e
            out.append(_check(cmd, text or ""))
        return out

    def read_registers(self, cells: Sequence[tuple[str, int]]) -> list[int]:
        rt = self.switch.runtime
        return [int(rt.register_read(name, index)) for name, index in cells]

    def read_register_array(self, name: str) -> list[int]:
        return self.switch.runtime.register_read_all(name)

    def read_counters(self, cells: Sequence[tuple[str, int]]) -> list[tuple[int, int]]:
        rt = self.switch.runtime
        return [tuple(int(v) for v in rt.counter_read(name, index)) for name, index in cells]


class _CliTextDriver:
    """Register and counter reads parsed from simple_switch_CLI's printed answers: a mixin for
    the drivers whose own ``run(commands)`` returns those answers (Bmv2Driver,
    SwitchProcessDriver)."""

    def read_registers(self, cells: Sequence[tuple[str, int]]) -> list[int]:
        cmds = [f"register_read {name} {index}" for name, index in cells]
        values = []
        for cmd, text in zip(cmds, self.run(cmds)):
            m = _REGISTER_VALUE.search(text)
            if not m:
                raise DriverError(f"{cmd!r}: unexpected answer {text.strip()!r}")
            values.append(int(m.group(1)))
        return values

    def read_register_array(self, name: str) -> list[int]:
        """Every cell of register ``name``: simple_switch_CLI's ``register_read NAME`` without an
        index prints ``NAME= v0, v1, ...`` (one command, however large the array)."""
        cmd = f"register_read {name}"
        text = self.run([cmd])[0]
        head, sep, body = text.partition("=")
        if not sep or head.strip() != name:
            raise DriverError(f"{cmd!r}: unexpected answer {text.strip()[:200]!r}")
        try:
            return [int(v) for v in body.replace("\n", " ").split(",") if v.strip()]
        except ValueError:
            raise DriverError(f"{cmd!r}: unexpected answer {text.strip()[:200]!r}") from None

    def read_counters(self, cells: Sequence[tuple[str, int]]) -> list[tuple[int, int]]:
        cmds = [f"counter_read {name} {index}" for name, index in cells]
        values = []
        for cmd, text in zip(cmds, self.run(cmds)):
            p, b = _COUNTER_PACKETS.search(text), _COUNTER_BYTES.search(text)
            if not p or not b:
                raise DriverError(f"{cmd!r}: unexpected answer {text.strip()!r}")
            values.append((int(p.group(1) or p.group(2)), int(b.group(1) or b.group(2))))
        return values


class SwitchProcessDriver(_CliTextDriver):
    """Drives a running ``rdtcp-switch`` over one connection to its control channel
    (``toolchain.switch.process.cli.ControlClient``): the same commands and answers as
    ``Bmv2Driver(port, cli="rdtcp-switch-cli")``, without starting a CLI process per call."""

    def __init__(self, port: int, *, host: str = "127.0.0.1", connect_timeout: float = 5.0):
        from toolchain.switch.process.cli import ClientError, ControlClient
        self._client_error = ClientError
        try:
            self.client = ControlClient(port, host=host, connect_timeout=connect_timeout)
        except ClientError as e:
            raise DriverError(str(e).splitlines()[0]) from None

    def run(self, commands: Sequence[str]) -> list[str]:
        out = []
        for cmd in commands:
            try:
                text, ok = self.client.command(cmd.strip())
            except self._client_error as e:
                raise DriverError(str(e)) from None
            if not ok:
                raise DriverError(f"{cmd!r} refused by the switch: "
                                  f"{(text.strip().splitlines() or ['(no message)'])[0]}")
            out.append(_check(cmd, text))
        return out

    def close(self) -> None:
        self.client.close()


class Bmv2Driver(_CliTextDriver):
    """Drives a switch process through its runtime CLI (Thrift port)."""

    def __init__(self, thrift_port: int = 9090, *, cli: str = "simple_switch_CLI",
                 timeout: float = 60.0):
        self.thrift_port = thrift_port
        self.timeout = timeout
        path = shutil.which(cli)
        if path is None:
            raise DriverError(f"{cli} not found on PATH: install behavioral-model's runtime CLI, "
                              "use cli='rdtcp-switch-cli' for the embedded switch process, or "
                              "EmbeddedDriver for a switch in this process")
        self.cli = path

    def _session(self, commands: Sequence[str]) -> list[str]:
        script = "".join(c.strip() + "\n" for c in commands)
        try:
            proc = subprocess.run([self.cli, "--thrift-port", str(self.thrift_port)],
                                  input=script, capture_output=True, text=True,
                                  timeout=self.timeout, check=False)
        except subprocess.TimeoutExpired:
            raise DriverError(f"{self.cli} on thrift port {self.thrift_port} did not answer "
                              f"within {self.timeout} s") from None
        if proc.returncode != 0 and PROMPT not in proc.stdout:
            msg = (proc.stderr or proc.stdout).strip().splitlines()
            raise DriverError(f"{self.cli} --thrift-port {self.thrift_port} failed "
                              f"(exit {proc.returncode}): {msg[-1] if msg else 'no output'}")
        return parse_cli_output(proc.stdout, len(commands))

    def run(self, commands: Sequence[str]) -> list[str]:
        outputs = self._session(commands)
        return [_check(c, o) for c, o in zip(commands, outputs)]


def parse_cli_output(stdout: str, n_commands: int) -> list[str]:
    """Split a piped simple_switch_CLI session into one output per command.

    The CLI prints its prompt before reading each line, so the text after the k-th prompt is the
    k-th command's output (the text before the first prompt is the banner).
    """
    chunks = stdout.split(PROMPT)[1:]
    chunks += [""] * (n_commands - len(chunks))
    return [c.strip("\n ") for c in chunks[:n_commands]]
