"""The gateway through REAL p4c, wherever it is installed: valid P4_16 for real p4c (v1model),
no warnings. Skipped, with the reason shown, on machines without p4c-bm2-ss."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
P4C = shutil.which("p4c-bm2-ss")

pytestmark = pytest.mark.skipif(P4C is None, reason="real p4c (p4c-bm2-ss) is not on PATH")

from test_p4src_strict import CONFIGS  # noqa: E402


@pytest.fixture(scope="module")
def real_p4c(tmp_path_factory) -> tuple[Path, str]:
    """(p4c-bm2-ss's JSON of the gateway, everything it printed)."""
    out = tmp_path_factory.mktemp("p4c") / "rdtcp.json"
    proc = subprocess.run([P4C, "--std", "p4-16", "-o", str(out), str(ROOT / "p4src" / "rdtcp.p4")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"p4c-bm2-ss failed:\n{proc.stderr}"
    return out, proc.stderr + proc.stdout


def test_gateway_compiles_with_real_p4c_without_warnings(real_p4c):
    _, diagnostics = real_p4c
    assert "warning" not in diagnostics.lower(), diagnostics


@pytest.mark.parametrize("defines", [c for c in CONFIGS if c],
                         ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_every_configuration_compiles_with_real_p4c_without_warnings(defines, tmp_path):
    # the configurations the front end's strict guard compiles (test_p4src_strict.py)
    cmd = [P4C, "--std", "p4-16", "-o", str(tmp_path / "rdtcp.json"),
           *(f"-D{k}={v}" for k, v in defines.items()), str(ROOT / "p4src" / "rdtcp.p4")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "warning" not in (proc.stderr + proc.stdout).lower(), \
        proc.stderr


def test_gateway_scenarios_pass_on_real_p4c_json(real_p4c):
    # the library-mode scenario suite, unchanged, on p4c's JSON (tests/gateway/conftest.py)
    env = dict(os.environ, RDTCP_PROGRAM=str(real_p4c[0]))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           str(ROOT / "tests" / "gateway" / "test_scenarios_lib.py")],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
