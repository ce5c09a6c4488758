"""Running a sweep's specs: in this process, on a forked pool, or on worker processes of another
interpreter (PyPy: ``python -m experiments.runner.worker``), with a progress bar and the journal
written as each run ends. Ctrl-C ends every worker and keeps the journal."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

from experiments.runner.cli import UsageError
from experiments.runner.journal import row_key
from experiments.runner.spec import SCENARIOS, RunSpec
from sim.program import REPO_ROOT
from toolchain.switch import load_program

__all__ = ["init_worker", "jobs_for", "run_one", "run_specs", "runner_for", "study_modules",
           "worker_python", "worker_env", "PYPY_GC_NURSERY"]

# PyPy's minor-collection nursery. The simulator allocates a few short-lived objects per event,
# so the nursery size decides how often PyPy collects; 4 MiB was the fastest of 1-16 MiB and
# PyPy's own choice for the 600 s scenario (bench/README.md, "PyPy's nursery"). A
# PYPY_GC_NURSERY already in the environment wins; CPython ignores the variable.
PYPY_GC_NURSERY = "4M"


def worker_env(repo_root) -> dict[str, str]:
    """Environment of a worker interpreter: the repository importable, PyPy's nursery set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(repo_root), os.environ.get("PYTHONPATH", "")) if p)
    env.setdefault("PYPY_GC_NURSERY", PYPY_GC_NURSERY)
    return env


_PROGRAM = None


def init_worker(program_path: str) -> None:
    global _PROGRAM
    _PROGRAM = load_program(program_path)


def _init_pool_worker(program_path: str) -> None:
    """A forked pool worker leaves Ctrl-C to the parent, which terminates the pool: the
    terminal sends SIGINT to the whole process group, and a KeyboardInterrupt in each worker
    would only print tracebacks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    init_worker(program_path)


def runner_for(spec: RunSpec):
    """The function that runs ``spec``: the one its scenario's study registered."""
    return SCENARIOS[spec.scenario].run


def study_modules(specs: Sequence[RunSpec]) -> list[str]:
    """The modules that register the scenarios of ``specs`` (those of their run functions),
    which a worker in another interpreter imports before it reads a spec."""
    return sorted({SCENARIOS[spec.scenario].run.__module__ for spec in specs})


def run_one(spec: RunSpec) -> dict:
    try:
        result = runner_for(spec)(spec, _PROGRAM)
        row = result.row()
        if result.series:
            row["_series"] = result.series
        return row
    except Exception as exc:  # one failed run must not lose the sweep; it is reported
        return {**spec.__dict__, "error": f"{type(exc).__name__}: {exc}"}


def jobs_for(requested: int, runs: int) -> int:
    """The worker processes for ``runs`` runs when ``requested`` were asked for: at most one per
    run (no idle workers), at least one. The one place this is decided: the sweep prints and
    records it, ``run_specs`` runs on it."""
    return max(1, min(requested, runs))


def run_specs(specs: Sequence[RunSpec], *, jobs: int, program_path: str,
              progress: bool = True, python: str | None = None,
              journal: Path | None = None, code_version: str | None = None,
              label: str = "runs") -> list[dict]:
    """Run every spec on ``jobs`` processes (1 and no ``python``: in this process), with a
    progress bar. ``jobs``: as ``jobs_for`` decided it (the sweep prints and records that count,
    and it is the count that runs; ValueError for no job or more jobs than specs). ``python``:
    an interpreter to run the workers in (``experiments.runner.worker``). ``journal``: a JSON-lines
    file each row is appended to the moment its run ends, so an interrupted sweep keeps what it
    did (``--resume`` reads it back).
    ``code_version``: stamped on every row (``journal.code_version``). ``label``: what the
    progress bar says it runs (the sweep's name). A KeyboardInterrupt
    ends the workers, keeps the journal and propagates."""
    # deferred on purpose: the PyPy workers import this module (run_one) and have no tqdm
    from tqdm import tqdm
    if not specs:
        return []
    if not 1 <= jobs <= len(specs):
        raise ValueError(f"{jobs} jobs for {len(specs)} run(s): jobs_for decides the count")
    bar = tqdm(total=len(specs), unit="run", disable=not progress, file=sys.stderr,
               desc=label)
    rows: list[dict] = []
    log = open(journal, "a") if journal is not None else None

    def record(row: dict) -> None:
        if code_version is not None:
            row = {**row, "code_version": code_version}
        rows.append(row)
        if log is not None:
            log.write(json.dumps(row) + "\n")
            log.flush()
        bar.update()

    # longest first packs the pool better: the P4-injection runs carry recirculation work
    ordered = sorted(specs, key=lambda s: (s.duration, s.injection != "swap"), reverse=True)
    try:
        if python:
            _run_in_interpreter(ordered, jobs=jobs, python=python, program_path=program_path,
                                done=record)
        elif jobs <= 1:
            init_worker(program_path)
            for spec in ordered:
                record(run_one(spec))
        else:
            ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
            # leaving the with block (also by KeyboardInterrupt) terminates the workers
            with ctx.Pool(jobs, initializer=_init_pool_worker, initargs=(program_path,)) as pool:
                for row in pool.imap_unordered(run_one, ordered, chunksize=1):
                    record(row)
    finally:
        bar.close()
        if log is not None:
            log.close()
    return sorted(rows, key=row_key)


def _run_in_interpreter(specs: Sequence[RunSpec], *, jobs: int, python: str,
                        program_path: str, done) -> None:
    """``jobs`` worker processes of ``python -m experiments.runner.worker`` (at most one per spec:
    ``jobs_for``), fed one spec at a time.
    A worker that dies fails its run (with the end of its stderr) and is replaced. On an
    exception here (KeyboardInterrupt) every worker is killed and the runs in progress are
    neither recorded nor failed: ``--resume`` runs them."""
    env = worker_env(REPO_ROOT)
    argv = [python, "-m", "experiments.runner.worker", program_path, *study_modules(specs)]
    pending = list(reversed(specs))
    lock = threading.Lock()
    stopping = threading.Event()
    procs: list = []

    def start(errlog):
        # a session of its own: the terminal's Ctrl-C reaches this process alone, which then
        # ends the workers (instead of each printing a KeyboardInterrupt into its stderr and
        # its run being recorded as failed)
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=errlog, text=True, cwd=REPO_ROOT, env=env,
                                start_new_session=os.name == "posix")
        with lock:
            procs.append(proc)
        return proc

    def ask(proc, spec: RunSpec) -> str:
        """The worker's answer line for ``spec``, '' when it died."""
        try:
            proc.stdin.write(json.dumps(asdict(spec)) + "\n")
            proc.stdin.flush()
            return proc.stdout.readline()
        except OSError:                 # BrokenPipeError: it died before reading the spec
            return ""

    def serve() -> None:
        with tempfile.TemporaryFile("w+") as errlog:
            proc = start(errlog)
            try:
                while not stopping.is_set():
                    with lock:
                        if not pending:
                            return
                        spec = pending.pop()
                    line = ask(proc, spec)
                    if stopping.is_set():
                        return
                    row = _worker_row(line)
                    if row is None:     # died, or out of step: replaced, the run failed
                        _kill(proc)
                        proc.wait()
                        errlog.seek(0)
                        tail = errlog.read()[-400:].strip()
                        what = (f"answered {line.strip()[:200]!r}, not a row" if line else
                                f"exited with status {proc.returncode}")
                        row = {**asdict(spec), "error": f"worker {python} {what}: {tail}"}
                        errlog.seek(0)
                        errlog.truncate()
                        proc = start(errlog)
                    with lock:
                        done(row)
            finally:
                _close_worker(proc, kill=stopping.is_set())

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(jobs)]
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    except BaseException:
        stopping.set()
        with lock:
            running = list(procs)
        for proc in running:
            _kill(proc)
        for t in threads:       # quick now: every worker's pipe is at its end
            t.join()
        raise


def _worker_row(line: str) -> dict | None:
    """The row on a worker's answer line, None when there is none (it died) or the line is not
    a JSON object (then the worker is out of step with its specs)."""
    try:
        row = json.loads(line) if line else None
    except ValueError:
        return None
    return row if isinstance(row, dict) else None


def _kill(proc) -> None:
    try:
        proc.kill()
    except OSError:             # already gone
        pass


def _close_worker(proc, *, kill: bool) -> None:
    """End a worker: closing its input lets it finish; ``kill`` ends it at once."""
    if kill:
        _kill(proc)
    try:
        proc.stdin.close()
    except OSError:
        pass
    proc.wait()


def worker_python(choice: str, modules: Sequence[str] = ()) -> tuple[str | None, str]:
    """The interpreter for the workers and a sentence saying why: ``auto`` takes PyPy
    (``pypy3`` on PATH) when it can import the simulator and the studies' ``modules``
    (``study_modules``), else this process's interpreter (forked workers); any other value is
    an interpreter to use, checked the same way (UsageError when it is missing or cannot run
    the simulator)."""
    if choice == "self":
        return None, f"workers: this interpreter ({sys.implementation.name})"
    path = shutil.which("pypy3") if choice == "auto" else shutil.which(choice)
    if path is None:
        if choice == "auto":
            return None, ("workers: this interpreter (no pypy3 on PATH; installing it speeds "
                          "runs up)")
        raise UsageError(f"--worker-python {choice}: no such interpreter on PATH")
    env = worker_env(REPO_ROOT)
    probe = subprocess.run([path, "-m", "experiments.runner.worker", "--probe", *modules],
                           capture_output=True, text=True, cwd=REPO_ROOT, env=env)
    if probe.returncode != 0 or not probe.stdout.startswith("ok"):
        why = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        if choice == "auto":
            return None, f"workers: this interpreter ({path} cannot run the simulator: {why})"
        raise UsageError(f"--worker-python {choice}: cannot run the simulator: {why}")
    nursery = f", PYPY_GC_NURSERY={env['PYPY_GC_NURSERY']}" if "PyPy" in probe.stdout else ""
    return path, f"workers: {path} ({probe.stdout.strip()[3:]}{nursery})"
