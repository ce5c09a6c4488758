"""Runs in worker interpreters of their own (experiments.worker): same rows as in-process runs,
and clear errors for interpreters that cannot run the simulator."""

import csv
import json
import shutil
import subprocess
import sys

import pytest

from experiments.rdtcp_figures import main, worker_python
from sim.program import REPO_ROOT, gateway_json

ARGS = ["--mode", "quick", "--jobs", "2", "--seeds", "1", "--variants", "rdtcp", "--swaps", "0,15",
        "--interval", "1", "--duration", "5", "--no-k-study", "--no-progress"]


def _rows(out):
    with open(out / "runs.csv") as f:
        return [{k: v for k, v in r.items() if k != "wall_s"} for r in csv.DictReader(f)]


@pytest.fixture(scope="module")
def in_process_rows(tmp_path_factory):
    out = tmp_path_factory.mktemp("self")
    assert main(ARGS + ["--out", str(out), "--worker-python", "self"]) == 0
    return _rows(out)


def test_worker_processes_give_the_same_rows_as_forked_workers(in_process_rows, tmp_path):
    assert main(ARGS + ["--out", str(tmp_path), "--worker-python", sys.executable]) == 0
    assert _rows(tmp_path) == in_process_rows and len(in_process_rows) == 2
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["workers"].startswith(f"workers: {sys.executable}")


def _pypy():
    path = shutil.which("pypy3")
    if path is None:
        pytest.skip("pypy3 is not on PATH (apt install pypy3): the PyPy worker path is untested")
    return path


def test_pypy_workers_give_the_same_rows_as_cpython(in_process_rows, tmp_path):
    pypy = _pypy()
    assert main(ARGS + ["--out", str(tmp_path), "--worker-python", pypy]) == 0
    assert _rows(tmp_path) == in_process_rows


@pytest.mark.parametrize("choice,message", [
    ("rdtcp-no-such-python", "no such interpreter on PATH"),
    ("false", "cannot run the simulator"),
])
def test_unusable_worker_python_is_refused_with_the_reason(choice, message):
    with pytest.raises(SystemExit, match=message):
        worker_python(choice)


def test_worker_reports_a_bad_spec_line_and_goes_on():
    gateway_json()
    specs = ('{"variant": "reno"}\n'
             '{"variant": "rdtcp", "duration": 0.5}\n')
    done = subprocess.run([sys.executable, "-m", "experiments.worker",
                           str(REPO_ROOT / "build" / "rdtcp.json")], input=specs,
                          capture_output=True, text=True, cwd=REPO_ROOT, check=True)
    first, second = [json.loads(line) for line in done.stdout.splitlines()]
    assert "unknown variant 'reno'" in first["error"]
    assert "error" not in second and second["delivered_bytes"] > 0


def test_worker_without_a_program_prints_its_usage():
    done = subprocess.run([sys.executable, "-m", "experiments.worker"], capture_output=True,
                          text=True, cwd=REPO_ROOT)
    assert done.returncode == 2 and "usage: python -m experiments.worker" in done.stderr
