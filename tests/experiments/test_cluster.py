"""Sweeps on Dask (experiments.runner.cluster): the rows of a local run, a worker killed mid-run,
refusals before any run, Ctrl-C. Every cluster here listens on 127.0.0.1 on ports the system
chooses; the runs are a few simulated seconds."""

import csv
import io
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

import dask  # noqa: E402

from experiments import dbce_tables, frto_tables, netreno_tables, rdtcp_figures, rrtcp_figures  # noqa: E402
from experiments.rdtcp_figures import main  # noqa: E402
from experiments.runner import cluster as dask_cluster  # noqa: E402
from experiments.runner.journal import code_version, scan_journal  # noqa: E402
from experiments.runner.spec import RunSpec  # noqa: E402
from sim.program import REPO_ROOT, gateway_json  # noqa: E402

# four short runs: two senders, no swaps and 15 swaps a second
ARGS = ["--mode", "quick", "--seeds", "1", "--variants", "sack,rdtcp", "--swaps", "0,15",
        "--interval", "1", "--duration", "3", "--no-k-study", "--no-progress"]


def _without_wall_time(out: Path, columns=("wall_s",)) -> list[str]:
    """runs.csv as written, line by line, less each run's own wall time (wall_s)."""
    rows = list(csv.reader(io.StringIO((out / "runs.csv").read_text(), newline="")))
    drop = {rows[0].index(name) for name in columns}
    return [",".join(cell for i, cell in enumerate(row) if i not in drop) for row in rows]


def _journal(out: Path) -> list[str]:
    """The journal's rows less wall_s, as JSON text in the order of their keys, sorted."""
    return sorted(json.dumps({k: v for k, v in json.loads(line).items() if k != "wall_s"})
                  for line in (out / "runs.jsonl").read_text().splitlines())


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The sweep on this machine's own pool (the interpreter each run takes: auto)."""
    out = tmp_path_factory.mktemp("local")
    assert main(ARGS + ["--jobs", "2", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of two worker processes on 127.0.0.1 (ports chosen by the system), with
    the scheduler setting the sweeps ask for: a run whose worker died runs again once."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      host="127.0.0.1", scheduler_port=0, dashboard_address=None,
                                      silence_logs=logging.ERROR)
    client = distributed.Client(lc, set_as_default=False)
    client.wait_for_workers(2, timeout=300)
    yield lc, client
    client.close()
    lc.close()


def test_a_sweep_on_local_2_writes_the_rows_of_a_local_sweep(local_run, tmp_path, capsys):
    out = tmp_path / "cluster"
    assert main(ARGS + ["--out", str(out), "--scheduler", "local:2"]) == 0
    err = capsys.readouterr().err
    assert "to run on the Dask scheduler local:2 (tcp://127.0.0.1:" in err
    assert "2 Dask worker(s), 2 thread(s)" in err
    assert _without_wall_time(out) == _without_wall_time(local_run)
    assert len(_without_wall_time(out)) == 5
    assert _journal(out) == _journal(local_run)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interpreters"] == json.loads(
        (local_run / "summary.json").read_text())["interpreters"]
    assert summary["invocations"][-1]["scheduler"].startswith("local:2 (tcp://127.0.0.1:")


def _children(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        for child in _children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _kill_the_worker_running(client, key_part: str, *, timeout: float = 300.0):
    """Once a task whose key holds ``key_part`` runs on a worker and that worker's run process
    has started, SIGKILL the worker; its address and the run process's pid."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for worker, keys in client.processing().items():
            if not any(key_part in str(k) for k in keys):
                continue
            pid = client.run(os.getpid, workers=[worker], on_error="return").get(worker)
            children = _children(pid) if isinstance(pid, int) else []
            if children:
                os.kill(pid, signal.SIGKILL)
                return worker, children
        time.sleep(0.05)
    raise AssertionError("no task of the sweep ran on a worker")


def _gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return True
        except (ProcessLookupError, FileNotFoundError):
            return True
        time.sleep(0.1)
    return False


def _sweep_in_thread(argv):
    done = {}
    thread = threading.Thread(target=lambda: done.update(status=main(argv)), daemon=True)
    thread.start()
    return thread, done


def test_a_worker_killed_mid_run_the_run_goes_to_another_and_the_rows_are_unchanged(
        local_run, cluster, tmp_path):
    lc, client = cluster
    out = tmp_path / "killed"
    thread, done = _sweep_in_thread(ARGS + ["--out", str(out), "--scheduler",
                                            lc.scheduler_address])
    worker, run_processes = _kill_the_worker_running(client, "rdtcp-run-")
    # the killed worker's run process notices and ends (it would run for nobody)
    assert all(_gone(pid, 10) for pid in run_processes)
    thread.join(600)
    assert done["status"] == 0
    assert _without_wall_time(out) == _without_wall_time(local_run)
    assert _journal(out) == _journal(local_run)


@pytest.mark.slow          # a sweep interrupted and resumed, or a worker restarted: minutes
def test_a_run_whose_worker_dies_twice_is_a_failed_row_with_its_spec(cluster, tmp_path):
    """Run again once, then recorded failed (never dropped); the scheduler found through its
    scheduler file, as dask-jobqueue writes one."""
    lc, client = cluster
    scheduler_file = tmp_path / "scheduler.json"
    scheduler_file.write_text(json.dumps({"type": "Scheduler", "address": lc.scheduler_address}))
    out = tmp_path / "twice"
    argv = ["--mode", "quick", "--seeds", "1", "--variants", "sack", "--swaps", "15",
            "--interval", "1", "--duration", "3", "--no-k-study", "--no-progress",
            "--out", str(out), "--scheduler-file", str(scheduler_file)]
    thread, done = _sweep_in_thread(argv)
    first, _ = _kill_the_worker_running(client, "rdtcp-run-")
    second, _ = _kill_the_worker_running(client, "rdtcp-run-")
    thread.join(600)
    assert done["status"] == 1
    (row,) = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert "its Dask worker died while running it" in row["error"]
    assert (row["variant"], row["swaps"], row["duration"], row["seed"]) == ("sack", 15, 3.0, 1)
    client.wait_for_workers(2, timeout=300)     # the nannies start the killed workers again


def test_an_unreachable_scheduler_is_one_line_and_status_2_before_any_run(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(dask_cluster, "SCHEDULER_TIMEOUT", 2.0)
    import socket
    with socket.socket() as s:          # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "never"
    assert main(ARGS + ["--out", str(out), "--scheduler", f"tcp://127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        f"error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}")
    assert not out.exists()


@pytest.mark.parametrize("content,message", [
    (None, "cannot read it: No such file or directory"),
    ("{}", "not a scheduler file"),
    ('{"address": 8786}', "not a scheduler file"),
    ("\xff\xfe", "not a scheduler file"),
])
def test_a_bad_scheduler_file_is_one_line_and_status_2(content, message, tmp_path, capsys):
    path = tmp_path / "scheduler.json"
    if content is not None:
        path.write_text(content, encoding="latin-1")
    out = tmp_path / "never"
    assert main(ARGS + ["--out", str(out), "--scheduler-file", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: --scheduler-file {path}: {message}")
    assert not out.exists()


@pytest.mark.parametrize("driver", [rdtcp_figures, rrtcp_figures, frto_tables, netreno_tables,
                                    dbce_tables])
@pytest.mark.parametrize("argv,message", [
    (["--scheduler", "local:0"], "local:N starts N workers on this machine, 1 to 64"),
    (["--scheduler", "tcp://two words"], "is not a scheduler address"),
    (["--scheduler", "local:2", "--scheduler-file", "s.json"], "not allowed with argument"),
])
def test_every_sweep_driver_takes_the_scheduler_options(driver, argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        driver.parse_args(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert driver.parse_args(["--scheduler", "tcp://127.0.0.1:8786"]).scheduler == \
        "tcp://127.0.0.1:8786"


def _copy_with_other_code(dest: Path) -> Path:
    """This checkout's sources with one line added to the simulator: another code version."""
    shutil.copytree(REPO_ROOT, dest, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "results", "run", "tests", "__pycache__", "*.egg-info"))
    with open(dest / "sim" / "__init__.py", "a") as f:
        f.write("# another version of the simulator\n")
    return dest


def _dask_worker(address: str, threads: int, cwd: Path, **env: str) -> subprocess.Popen:
    """``dask worker`` (no nanny) in a process of its own, run in ``cwd`` with ``env`` added."""
    return subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads",
         str(threads), "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"],
        cwd=cwd, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)


def test_a_worker_of_other_code_is_refused_with_both_versions(tmp_path, capsys):
    """Joining a sweep that waits for workers, its tasks are refused and the sweep stops; there
    when a sweep starts, the sweep is refused before any run. Both name the two versions."""
    other = _copy_with_other_code(tmp_path / "other")
    program = gateway_json() and str(REPO_ROOT / "build" / "rdtcp.json")
    theirs, ours = code_version(program, other), code_version(program)
    assert theirs != ours
    refused = f"runs code version {theirs}, the submitting checkout {ours}"
    with distributed.LocalCluster(n_workers=0, host="127.0.0.1", scheduler_port=0,
                                  dashboard_address=None, silence_logs=logging.ERROR) as lc, \
            distributed.Client(lc, set_as_default=False) as client:
        waiting = tmp_path / "waiting"
        thread, done = _sweep_in_thread(ARGS + ["--out", str(waiting), "--scheduler",
                                                lc.scheduler_address])
        deadline = time.monotonic() + 300
        while not (waiting / "runs.jsonl").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        worker = _dask_worker(lc.scheduler_address, 1, other, PYTHONPATH=str(other))
        try:
            thread.join(300)
            assert done["status"] == 2
            err = capsys.readouterr().err
            assert "workers: none at tcp://127.0.0.1:" in err
            assert refused in err.strip().splitlines()[-1]
            assert (waiting / "runs.jsonl").read_text() == ""
            out = tmp_path / "never"
            assert main(ARGS + ["--out", str(out), "--scheduler", lc.scheduler_address]) == 2
        finally:
            worker.terminate()
            worker.wait(60)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: Dask worker tcp://127.0.0.1:")
    assert refused in err[0]
    assert not out.exists()


def test_a_worker_process_serves_a_sweeps_tasks_in_turn_and_ends_with_it():
    """On a Dask worker (here called in this process): one worker process per task at a time,
    kept for the sweep's next task, closed when the sweep ends; a task of other code is
    refused naming both versions."""
    gateway_json()
    program = (REPO_ROOT / "build" / "rdtcp.json").read_text()
    import hashlib
    sha = hashlib.sha256(program.encode()).hexdigest()
    version = code_version(REPO_ROOT / "build" / "rdtcp.json")
    modules = ("experiments.studies.rdtcp.scenario",)
    spec = {"variant": "rdtcp", "duration": 0.5}
    rows = [dask_cluster._run_task({**spec, "seed": seed}, program, sha, version, modules,
                                   "self", "sweep-a") for seed in (1, 2)]
    assert [r["seed"] for r in rows] == [1, 2] and all("error" not in r for r in rows)
    (process,) = dask_cluster._IDLE["sweep-a"]
    dask_cluster._end_sweep("sweep-a", False)
    assert "sweep-a" not in dask_cluster._IDLE and process.proc.poll() is not None
    with pytest.raises(dask_cluster.VersionRefused,
                       match=f"runs code version {version}, the submitting checkout 0123456789ab"):
        dask_cluster._run_task(spec, program, sha, "0123456789ab", modules, "self", "sweep-b")


@pytest.mark.slow          # a sweep interrupted and resumed, or a worker restarted: minutes
def test_ctrl_c_cancels_the_tasks_and_keeps_a_consistent_journal_that_resumes(
        local_run, tmp_path, capsys):
    """The terminal's Ctrl-C (SIGINT to the process group, local:N's workers in it): status
    130, no traceback, every journal line a row, no process of the sweep left. --resume on
    local:2 then runs only what the journal lacks: the rows kept as they were, the files those
    of a local run."""
    out = tmp_path / "interrupted"
    sweep = subprocess.Popen(
        [sys.executable, "-m", "experiments.rdtcp_figures", *ARGS, "--out", str(out),
         "--scheduler", "local:2"], cwd=REPO_ROOT, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = out / "runs.jsonl"
    deadline = time.monotonic() + 400
    while time.monotonic() < deadline and sweep.poll() is None:
        if journal.exists() and journal.read_bytes().count(b"\n") >= 1:
            break
        time.sleep(0.1)
    processes = _descendants(sweep.pid)     # the workers and their run processes among them
    os.killpg(sweep.pid, signal.SIGINT)
    _, err = sweep.communicate(timeout=120)
    if sweep.returncode == 0 and scan_journal(journal).lines and \
            len(scan_journal(journal).lines) == 4:
        # on an idle machine the last runs can end between the first row and the signal
        pytest.skip("the sweep's 4 runs ended before the interrupt reached it: nothing to cancel")
    assert sweep.returncode == 130, err
    assert "Traceback" not in err and "interrupted: " in err and "of 4 runs kept" in err
    contents = scan_journal(journal)
    assert contents.bad == [] and 1 <= len(contents.lines) < 4
    assert len(processes) >= 4
    assert [pid for pid in processes if not _gone(pid, 30)] == []
    before = journal.read_bytes()
    kept = len(contents.lines)
    capsys.readouterr()
    assert main(ARGS + ["--out", str(out), "--scheduler", "local:2", "--resume"]) == 0
    err = capsys.readouterr().err
    assert f"{kept} kept from {journal}, {4 - kept} to run on the Dask scheduler local:2" in err
    assert journal.read_bytes().startswith(before)     # the kept rows untouched, none rerun
    assert len(scan_journal(journal).lines) == 4
    assert _without_wall_time(out) == _without_wall_time(local_run)
    invocations = json.loads((out / "summary.json").read_text())["invocations"]
    assert [(i["outcome"], i["runs_reused"], i["runs_done"]) for i in invocations] == [
        ("interrupted", 0, kept), ("finished", kept, 4 - kept)]


class _OneWorker:
    """A stand-in for a Client of one worker, ``Client.run`` calling the function in this
    process as a worker would (its exceptions returned, as with on_error="return")."""

    address = "tcp://127.0.0.1:1"

    def run(self, function, *args, on_error="raise"):
        try:
            return {self.address: function(*args, dask_worker=self)}
        except Exception as exc:
            return {self.address: exc}

    def nthreads(self):
        return {self.address: 1}


@pytest.mark.parametrize("choice,message", [
    ("rdtcp-no-such-python", "UsageError: --worker-python rdtcp-no-such-python: no such "
                             "interpreter on PATH"),
    ("self", None),
])
def test_every_worker_is_checked_before_any_run(choice, message):
    gateway_json()
    program = str(REPO_ROOT / "build" / "rdtcp.json")
    backend = dask_cluster.DaskBackend(_OneWorker(), "tcp://127.0.0.1:1")
    specs = [RunSpec("rdtcp", duration=1.0)]
    if message is None:
        why = backend.prepare(specs, program_path=program, version=code_version(program),
                              python_choice=choice)
        assert why.startswith(f"workers: 1 Dask worker(s), 1 thread(s); {sys.executable} (")
        return
    with pytest.raises(dask_cluster.UsageError) as exc:
        backend.prepare(specs, program_path=program, version=code_version(program),
                        python_choice=choice)
    assert str(exc.value) == f"Dask worker tcp://127.0.0.1:1 cannot run the sweep: {message}"


def test_a_worker_that_cannot_import_the_project_is_named(monkeypatch):
    gateway_json()
    program = str(REPO_ROOT / "build" / "rdtcp.json")
    backend = dask_cluster.DaskBackend(_OneWorker(), "tcp://127.0.0.1:1")
    monkeypatch.setattr(_OneWorker, "run", lambda self, f, *a, on_error="raise": {
        self.address: ModuleNotFoundError("No module named 'experiments'")})
    with pytest.raises(dask_cluster.UsageError, match="^Dask worker tcp://127.0.0.1:1 cannot run "
                       "the sweep: ModuleNotFoundError: No module named 'experiments'$"):
        backend.prepare([RunSpec("rdtcp")], program_path=program,
                        version=code_version(program), python_choice="auto")


@pytest.mark.slow          # a sweep interrupted and resumed, or a worker restarted: minutes
def test_a_worker_without_pypy3_runs_its_runs_on_cpython_and_the_rows_say_so(local_run,
                                                                              tmp_path, capsys):
    """A Dask worker whose PATH has no pypy3 (--worker-python auto): its worker processes are
    its own interpreter, every row's interpreter and summary.json say CPython, and the rows
    are otherwise those of the local run (PyPy's, where this machine has pypy3)."""
    empty = tmp_path / "bin"
    empty.mkdir()
    with distributed.LocalCluster(n_workers=0, host="127.0.0.1", scheduler_port=0,
                                  dashboard_address=None, silence_logs=logging.ERROR) as lc:
        worker = _dask_worker(lc.scheduler_address, 2, REPO_ROOT, PATH=str(empty))
        try:
            with distributed.Client(lc, set_as_default=False) as client:
                client.wait_for_workers(1, timeout=300)
            out = tmp_path / "cpython"
            assert main(ARGS + ["--out", str(out), "--scheduler", lc.scheduler_address]) == 0
        finally:
            worker.terminate()
            worker.wait(60)
    err = capsys.readouterr().err
    assert "workers: 1 Dask worker(s), 2 thread(s); " in err and "no pypy3 on PATH" in err
    cpython = f"CPython {'.'.join(map(str, sys.version_info[:3]))}"
    rows = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert [r["interpreter"] for r in rows] == [cpython] * 4
    assert json.loads((out / "summary.json").read_text())["interpreters"] == {cpython: 4}
    if shutil.which("pypy3"):           # the local run took PyPy; the worker could not
        here = json.loads((local_run / "summary.json").read_text())["interpreters"]
        assert [name.split()[0] for name in here] == ["PyPy"]
    both = ("wall_s", "interpreter")
    assert _without_wall_time(out, both) == _without_wall_time(local_run, both)
