"""`make test` runs the PTF suite: ptf-tests/run_ptf.py, one test per target, over veth pairs.

Each target is its own test so that a missing one shows as a skip with its reason in pytest's
summary (not hidden inside a passing test): the embedded switch process skips only when the host
cannot build the test bed (not root, no `ip netns`); real simple_switch skips when it is not on
PATH.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "ptf-tests" / "run_ptf.py"
EXIT_SKIP = 77


# the switch process (PyPy when installed) loads the gateway before its Thrift port opens: on a
# loaded machine, beside the other test workers, that can take longer than the runner's 30 s
READY_TIMEOUT = "120"


def run_runner(*args: str, timeout: float = 880) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, str(RUNNER), "--ready-timeout", READY_TIMEOUT, *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    output = proc.stdout + proc.stderr
    if proc.returncode == EXIT_SKIP:
        pytest.skip(next((l for l in output.splitlines() if "SKIP" in l), "runner skipped"))
    return proc.returncode, output


def test_runner_help_describes_usage():
    proc = subprocess.run([sys.executable, str(RUNNER), "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert "--target" in proc.stdout and "network namespace" in proc.stdout


def test_runner_missing_program_json_is_named(tmp_path):
    status, output = run_runner("--json", str(tmp_path / "nope.json"), timeout=120)
    assert status == 1
    assert "nope.json: no such program JSON" in output


def test_runner_program_refused_by_switch_is_reported(tmp_path):
    """A program the switch process refuses: the runner names the switch's reason, exits 1."""
    from gateway_build import compile_gateway
    bad = compile_gateway()
    bad["actions"][0]["primitives"].append({"op": "no_such_primitive", "parameters": []})
    path = tmp_path / "refused.json"
    path.write_text(json.dumps(bad))
    status, output = run_runner("--json", str(path), timeout=120)
    assert status == 1
    assert "switch exited with status" in output and "no_such_primitive" in output


@pytest.mark.serial             # a network namespace with veths, the switch in real time
@pytest.mark.timeout(1800)       # two passes: 4 min on 2 idle cores, far more on loaded ones
def test_ptf_suite_passes_on_embedded_switch():
    """The whole suite with the entries written over Thrift (simple_switch_CLI), then on the
    same rdtcp-switch the forwarding and EPDN groups with the controller over P4Runtime
    (P4RuntimeDriver; the whole suite passes so too: run_ptf.py --control p4runtime)."""
    status, output = run_runner("--target", "embedded", "--then-control", "p4runtime",
                                "--then-groups", "forwarding,epdn", timeout=1780)
    assert status == 0, output[-6000:]
    assert "embedded: ptf exit status 0" in output
    assert "embedded, entries over p4runtime: ptf exit status 0" in output


@pytest.mark.serial
@pytest.mark.timeout(900)
@pytest.mark.skipif(shutil.which("simple_switch") is None,
                    reason="real simple_switch (p4lang/behavioral-model) is not on PATH")
def test_ptf_suite_passes_on_real_simple_switch():
    status, output = run_runner("--target", "bmv2")
    assert status == 0, output[-6000:]
    assert "bmv2: ptf exit status 0" in output

