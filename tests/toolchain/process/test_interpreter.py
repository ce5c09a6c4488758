"""Which interpreter rdtcp-switch runs under: PyPy (``pypy3`` on PATH) by default, this one as
the fallback, ``--python`` or ``$RDTCP_SWITCH_PYTHON`` to choose; the line after the readiness
line names it. No interfaces: no root needed."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from toolchain.switch.process import main as switch_main
from toolchain.switch.process.main import INTERPRETER_LINE_PREFIX, StartupError, choose_python

from .conftest import LPM_JSON, READY, ROOT

SCRIPT = Path(sys.executable).parent / "rdtcp-switch"


def options(**kw) -> argparse.Namespace:
    return argparse.Namespace(**{"grpc_server_addr": None, **kw})


def test_auto_takes_pypy3_on_path(monkeypatch):
    monkeypatch.setattr(switch_main.sys, "implementation", argparse.Namespace(name="cpython"))
    monkeypatch.setattr(switch_main.shutil, "which", lambda name: "/opt/pypy/bin/pypy3")
    assert choose_python("auto", options()) == ("/opt/pypy/bin/pypy3", "--python auto: pypy3 on PATH")


def test_auto_falls_back_to_this_interpreter(monkeypatch):
    monkeypatch.setattr(switch_main.sys, "implementation", argparse.Namespace(name="cpython"))
    monkeypatch.setattr(switch_main.shutil, "which", lambda name: None)
    exe, why = choose_python("auto", options())
    assert exe is None and "no pypy3 on PATH" in why
    # P4Runtime's grpcio is a CPython extension: auto stays here with --grpc-server-addr
    monkeypatch.setattr(switch_main.shutil, "which", lambda name: "/opt/pypy/bin/pypy3")
    exe, why = choose_python("auto", options(grpc_server_addr="127.0.0.1:0"))
    assert exe is None and "grpcio" in why


def test_self_and_named_interpreters():
    assert choose_python("self", options()) == (None, "--python self")
    assert choose_python(sys.executable, options())[0] is None      # this one: no re-exec
    with pytest.raises(StartupError, match="no-such-python-here: no such interpreter"):
        choose_python("no-such-python-here", options())


def start(argv: list[str], env: dict | None = None) -> tuple[str, str]:
    """Start the switch without interfaces; the readiness line and the interpreter line."""
    proc = subprocess.Popen(argv + ["--thrift-port", "0", str(LPM_JSON)], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, which = proc.stdout.readline(), proc.stdout.readline()
        assert ready.startswith(READY), ready + proc.stderr.read()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0 and "Traceback" not in err, err
        return ready, which
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(not SCRIPT.exists(), reason="rdtcp-switch not installed (make deps)")
def test_rdtcp_switch_names_its_interpreter():
    _, which = start([str(SCRIPT)])
    assert which.startswith(INTERPRETER_LINE_PREFIX)
    if shutil.which("pypy3"):
        assert which.startswith(f"{INTERPRETER_LINE_PREFIX}PyPy ") and "pypy3 on PATH" in which
    else:
        assert which.startswith(f"{INTERPRETER_LINE_PREFIX}CPython ") and "no pypy3" in which
    _, which = start([str(SCRIPT), "--python", "self"])
    assert which.startswith(f"{INTERPRETER_LINE_PREFIX}CPython ") and "--python self" in which
    _, which = start([str(SCRIPT)], env=dict(os.environ, RDTCP_SWITCH_PYTHON="self"))
    assert which.startswith(f"{INTERPRETER_LINE_PREFIX}CPython ")


def test_python_m_runs_under_the_interpreter_named():
    _, which = start([sys.executable, "-m", "toolchain.switch.process.main"])
    assert which == f"{INTERPRETER_LINE_PREFIX}{switch_main.this_interpreter()}: --python self\n"


def test_main_called_with_its_own_argv_never_replaces_the_callers_process(monkeypatch, capsys):
    # a caller (a test, a tool embedding the switch) keeps its process: no re-execution, even
    # with pypy3 on PATH; only the command itself (argv None) defaults to auto
    monkeypatch.setattr(switch_main.sys, "implementation", argparse.Namespace(name="cpython"))
    monkeypatch.setattr(switch_main.shutil, "which", lambda name: "/opt/pypy/bin/pypy3")
    monkeypatch.delenv(switch_main.PYTHON_ENV, raising=False)

    def replaced(*a, **kw):
        raise AssertionError("the caller's process was re-executed")
    monkeypatch.setattr(switch_main, "reexec", replaced)
    assert switch_main.main(["-i", "1@nosuch0", "--port-delay", "2:5", str(LPM_JSON)]) == 1
    assert "port 2 has no interface" in capsys.readouterr().err
