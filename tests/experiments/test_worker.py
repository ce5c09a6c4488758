"""Runs in worker interpreters of their own (experiments.runner.worker): same rows as in-process
runs, and clear errors for interpreters that cannot run the simulator."""

import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

from experiments.rdtcp_figures import main
from experiments.runner.cli import UsageError
from experiments.runner.pool import INTERPRETER, worker_python
from sim.program import REPO_ROOT, gateway_json

ARGS = ["--mode", "quick", "--jobs", "2", "--seeds", "1", "--variants", "rdtcp", "--swaps", "0,15",
        "--interval", "1", "--duration", "5", "--no-k-study", "--no-progress"]


def _rows(out):
    """runs.csv but each run's wall time and the interpreter that ran it."""
    with open(out / "runs.csv") as f:
        return [{k: v for k, v in r.items() if k not in ("wall_s", "interpreter")}
                for r in csv.DictReader(f)]


def _interpreters(out):
    return json.loads((out / "summary.json").read_text())["interpreters"]


@pytest.fixture(scope="module")
def in_process_rows(tmp_path_factory):
    out = tmp_path_factory.mktemp("self")
    assert main(ARGS + ["--out", str(out), "--worker-python", "self"]) == 0
    return _rows(out)


def test_worker_processes_give_the_same_rows_as_forked_workers(in_process_rows, tmp_path):
    assert main(ARGS + ["--out", str(tmp_path), "--worker-python", sys.executable]) == 0
    assert _rows(tmp_path) == in_process_rows and len(in_process_rows) == 2
    assert _interpreters(tmp_path) == {INTERPRETER: 2}
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["invocations"][-1]["workers"].startswith(f"workers: {sys.executable}")


def _pypy():
    path = shutil.which("pypy3")
    if path is None:
        pytest.skip("pypy3 is not on PATH (apt install pypy3): the PyPy worker path is untested")
    return path


def test_pypy_workers_give_the_same_rows_as_cpython(in_process_rows, tmp_path):
    pypy = _pypy()
    assert main(ARGS + ["--out", str(tmp_path), "--worker-python", pypy]) == 0
    assert _rows(tmp_path) == in_process_rows
    # the rows and the summary say which interpreter ran them
    (name, count), = _interpreters(tmp_path).items()
    assert name.startswith("PyPy ") and count == 2


@pytest.mark.parametrize("choice,message", [
    ("rdtcp-no-such-python", "no such interpreter on PATH"),
    ("false", "cannot run the simulator"),
])
def test_unusable_worker_python_is_refused_with_the_reason(choice, message, tmp_path, capsys):
    with pytest.raises(UsageError, match=message):
        worker_python(choice)
    # through the CLI: one error line, status 2, and no --out directory left behind
    out = tmp_path / "never"
    assert main(ARGS + ["--out", str(out), "--worker-python", choice]) == 2
    err = capsys.readouterr().err
    assert f"error: --worker-python {choice}: {message}" in err and "Traceback" not in err
    assert not out.exists()


def test_worker_reports_a_bad_spec_line_and_goes_on():
    gateway_json()
    specs = ('{"variant": "vegas"}\n'
             '{"variant": "rdtcp", "duration": 0.5}\n')
    done = subprocess.run([sys.executable, "-m", "experiments.runner.worker",
                           str(REPO_ROOT / "build" / "rdtcp.json"),
                           "experiments.studies.rdtcp.scenario"], input=specs,
                          capture_output=True, text=True, cwd=REPO_ROOT, check=True)
    first, second = [json.loads(line) for line in done.stdout.splitlines()]
    assert "unknown variant 'vegas'" in first["error"]
    assert "error" not in second and second["delivered_bytes"] > 0


def test_worker_without_a_program_prints_its_usage():
    done = subprocess.run([sys.executable, "-m", "experiments.runner.worker"], capture_output=True,
                          text=True, cwd=REPO_ROOT)
    assert done.returncode == 2 and "usage: python -m experiments.runner.worker" in done.stderr


def test_resume_keeps_finished_runs_and_reruns_the_rest(tmp_path, capsys):
    argv = ARGS + ["--out", str(tmp_path), "--worker-python", "self"]
    assert main(argv) == 0
    journal = tmp_path / "runs.jsonl"
    first, second = journal.read_text().splitlines()
    # as if the sweep had been killed while writing its second row
    journal.write_text(first + "\n" + second[: len(second) // 2])
    capsys.readouterr()
    assert main(argv + ["--resume"]) == 0
    assert "1 kept from" in capsys.readouterr().err
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    assert len(rows) == 2 and json.loads(first) in rows      # kept as it was (same wall_s)
    with open(tmp_path / "runs.csv") as f:
        assert len(list(csv.DictReader(f))) == 2


def test_a_new_sweep_sets_the_old_journal_aside(tmp_path):
    argv = ARGS + ["--out", str(tmp_path), "--worker-python", "self", "--swaps", "0"]
    assert main(argv) == 0
    old = (tmp_path / "runs.jsonl").read_text()
    assert main(argv) == 0
    assert (tmp_path / "runs.jsonl.prev").read_text() == old


def test_worker_env_sets_pypy_nursery_unless_the_user_did(monkeypatch, tmp_path):
    from experiments.runner.pool import PYPY_GC_NURSERY, worker_env
    monkeypatch.delenv("PYPY_GC_NURSERY", raising=False)
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    env = worker_env(tmp_path)
    assert env["PYPY_GC_NURSERY"] == PYPY_GC_NURSERY == "4M"
    assert env["PYTHONPATH"].split(os.pathsep) == [str(tmp_path), "/elsewhere"]
    monkeypatch.setenv("PYPY_GC_NURSERY", "16M")
    assert worker_env(tmp_path)["PYPY_GC_NURSERY"] == "16M"
