"""The processes of a live network: their environment, start-up and readiness, stopping;
and finding Mininet.

Used by ``live.network`` and ``live.mininet`` alike.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from live.plan import REPO_ROOT, LiveError

__all__ = ["find_mininet", "die_with_parent", "child_env", "wait_for_line", "free_tcp_port",
           "thrift_when_ready", "stop_process", "tail", "START_TIMEOUT", "STOP_TIMEOUT",
           "MININET_DIRS"]

START_TIMEOUT = 30.0          # seconds for a switch or host process to be ready
STOP_TIMEOUT = 5.0            # seconds a process gets to exit after SIGTERM before SIGKILL
MININET_DIRS = ("/usr/lib/python3/dist-packages",)   # Debian's mininet, for /usr/bin/python3


def find_mininet(dirs: tuple[str, ...] | None = None) -> Any | None:
    """The ``mininet`` package, or None. Importable as is, or Debian's copy (installed for
    /usr/bin/python3) loaded from ``dirs`` (``RDTCP_MININET_DIR`` or MININET_DIRS) when this
    interpreter is the same major.minor: only the package is loaded from there, never the rest
    of that directory, so nothing else of the system Python shadows this environment's packages.
    Mininet is pure Python over the standard library (and the ``mnexec`` binary)."""
    try:
        importlib.import_module("mininet.net")
        return sys.modules["mininet"]
    except ImportError:
        pass
    if dirs is None:
        env = os.environ.get("RDTCP_MININET_DIR")
        dirs = (env,) if env else MININET_DIRS
    if sys.version_info[:2] != _system_python_version():
        return None
    spec = importlib.machinery.PathFinder.find_spec("mininet", list(dirs))
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mininet"] = module
    try:
        spec.loader.exec_module(module)
        importlib.import_module("mininet.net")      # submodules resolve through the package
    except Exception:       # noqa: BLE001 -- a broken copy: as if there were none
        for name in [n for n in sys.modules if n == "mininet" or n.startswith("mininet.")]:
            del sys.modules[name]
        return None
    return module


def _system_python_version() -> tuple[int, int]:
    """The major.minor Debian's dist-packages are for: /usr/bin/python3's (3.11 on Debian 12)."""
    exe = Path("/usr/bin/python3")
    try:
        target = os.path.basename(os.path.realpath(exe))     # python3.11
        major, minor = target.replace("python", "").split(".")[:2]
        return int(major), int(minor)
    except (OSError, ValueError):
        return sys.version_info[:2]


# -- processes ------------------------------------------------------------------------------------
def die_with_parent() -> Any:
    """A ``preexec_fn`` that makes the child get SIGTERM when the process that started it
    dies (prctl(2) PR_SET_PDEATHSIG, kept across exec): a run killed outright, or a ``mn``
    stopped before it could stop its switches, leaves no process of ours running."""
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl        # resolved here, not in the child
    return lambda: prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


PR_SET_PDEATHSIG = 1          # linux/prctl.h


def child_env() -> dict[str, str]:
    """The environment of the processes a run starts: the checkout first on PYTHONPATH, and
    the folders of the Thrift modules the switch serves with, for a switch under another
    interpreter (PyPy has none of its own; they are pure Python)."""
    from toolchain.switch.thrift_server import ThriftUnavailable, module_dirs

    env = dict(os.environ)
    try:
        paths = [str(REPO_ROOT), *module_dirs()]
    except ThriftUnavailable:           # check_environment names what is missing
        paths = [str(REPO_ROOT)]
    env["PYTHONPATH"] = os.pathsep.join(paths + ([env["PYTHONPATH"]]
                                                 if env.get("PYTHONPATH") else []))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def wait_for_line(proc: subprocess.Popen, log: Path, prefix: str, what: str,
                  timeout: float = START_TIMEOUT) -> str:
    """The first line of ``log`` (the process's stdout) starting with ``prefix``; LiveError if
    the process exits first or ``timeout`` passes (the log's last lines tell why)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            text = log.read_text(errors="replace")
        except FileNotFoundError:
            text = ""
        for line in text.splitlines():
            if line.startswith(prefix):
                return line
        if proc.poll() is not None:
            tail = " | ".join(text.strip().splitlines()[-3:]) or "no output"
            raise LiveError(f"{what} exited with status {proc.returncode} before it was ready: "
                            f"{tail}")
        if time.monotonic() > deadline:
            raise LiveError(f"{what} not ready within {timeout:g} s (see {log})")
        time.sleep(0.02)


def free_tcp_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (simple_switch needs one given:
    it cannot pick its own Thrift port as rdtcp-switch does with 0)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def thrift_when_ready(proc: subprocess.Popen, port: int, log: Path, what: str,
                      timeout: float = START_TIMEOUT) -> Any:
    """The controller's driver on the switch's Thrift port, once the switch answers Thrift
    calls there (readiness checked over Thrift, as simple_switch prints no readiness line):
    first the port accepting connections, then one ``controller.drivers.ThriftDriver``
    (whose first call reads the program back, bm_get_config) given the rest of ``timeout``
    to answer, so a loaded machine that is slow to send a large JSON is not taken for a dead
    switch. LiveError, with the end of the switch's log, if it exits first or does not answer
    in time."""
    import socket

    from controller.drivers import DriverError, ThriftDriver
    from live.environment import EnvironmentProblem, require_thrift_client

    try:
        require_thrift_client()
    except EnvironmentProblem as e:
        raise LiveError(str(e)) from None
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            text = log.read_text(errors="replace") if log.exists() else ""
            raise LiveError(f"{what} exited with status {proc.returncode} before it was ready: "
                            f"{tail(text)}")
        left = deadline - time.monotonic()
        if left <= 0:
            raise LiveError(f"{what} not ready within {timeout:g} s: no answer to Thrift calls "
                            f"on port {port} (see {log})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=min(1.0, left)):
                pass
            return ThriftDriver(port, connect_timeout=max(1.0, left))
        except (OSError, DriverError):
            time.sleep(0.05)


def stop_process(proc: subprocess.Popen, timeout: float = STOP_TIMEOUT) -> int | None:
    """SIGTERM, then SIGKILL after ``timeout``; the exit status."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
        except ProcessLookupError:
            pass
    return proc.returncode


def tail(text: str, n: int = 3) -> str:
    return " | ".join(text.strip().splitlines()[-n:]) or "no output"
