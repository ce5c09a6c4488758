"""Running a sweep's runs on a Dask cluster (``--scheduler ADDRESS``, ``--scheduler-file PATH``
or ``--scheduler local:N`` on every sweep driver; experiments/CLUSTER.md): the same interface as
the local pool (``pool.run_specs(..., backend=DaskBackend)``), each run one Dask task.

The submitting process sends the gateway program once (scattered to the workers) and each run's
spec. A Dask worker (a CPython process) hands its tasks to a small pool of worker processes of
its own (``pool.WorkerProcess``, the protocol of ``experiments.runner.worker``): PyPy where the
worker has a pypy3 that can run the simulator, else its own interpreter, ``--worker-python``
being decided on each worker; one process per task it runs at a time, kept for the sweep's next
task. Each row comes back to the submitting process, which journals it the moment it arrives
and writes the sweep's files exactly as after a local run: the rows are the same for the same
specs and seeds (every column but the run's own ``wall_s``; ``interpreter`` says which ran it).

Refused before any run, in one line: a scheduler that does not answer in SCHEDULER_TIMEOUT
seconds, a worker that cannot import the project, a worker whose code version
(``journal.code_version`` over its own files and the program sent) is not the submitter's, and
a worker without the interpreter ``--worker-python`` names. A worker that joins later with
other code fails its task the same way and the sweep stops, naming both versions. A run whose
worker dies is run again on another worker once (the scheduler's ``allowed-failures``, 1 for
``local:N``), then recorded as a failed run with its spec: never dropped, and ``--resume`` runs
it again. Ctrl-C cancels the sweep's tasks and ends its runs in progress; the journal keeps
every row that came back.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import re
import signal
import sys
import tempfile
import threading
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Sequence

from experiments.runner.cli import UsageError
from experiments.runner.journal import code_version
from experiments.runner.pool import WorkerProcess, study_modules, worker_python
from experiments.runner.spec import RunSpec
from experiments.runner.worker import MODULE

__all__ = ["DaskBackend", "scheduler_address", "SCHEDULER_TIMEOUT", "ALLOWED_FAILURES",
           "MAX_LOCAL_WORKERS", "VersionRefused"]

# seconds a scheduler has to answer before the sweep is refused (Dask's own default is 30 s)
SCHEDULER_TIMEOUT = 10.0
# how often a run whose worker died is run again elsewhere before it is recorded as failed: the
# scheduler's distributed.scheduler.allowed-failures (Dask's default is 3); set so for local:N
ALLOWED_FAILURES = 1
# seconds local:N waits for its workers to start (each imports the project)
LOCAL_START_TIMEOUT = 300.0
MAX_LOCAL_WORKERS = 64
LOCAL = re.compile(r"local:([0-9]{1,6})")
# the address forms Dask's comms take ("host:port" alone means tcp)
SCHEMES = ("tcp", "tls", "inproc", "ws", "wss", "ucx")
ADDRESS = re.compile(r"(?:(?:" + "|".join(SCHEMES) + r")://)?[^\s/]+(?:/[^\s]*)?")
# a scheduler file (dask scheduler --scheduler-file, dask-jobqueue) is a few hundred bytes
SCHEDULER_FILE_MAX = 1 << 20


def scheduler_address(text: str) -> str:
    """argparse type of --scheduler: ``local:N`` (1 <= N <= MAX_LOCAL_WORKERS) or a scheduler
    address such as tcp://host:8786 (or host:8786)."""
    import argparse
    local = LOCAL.fullmatch(text)
    if local:
        if not 1 <= int(local.group(1)) <= MAX_LOCAL_WORKERS:
            raise argparse.ArgumentTypeError(
                f"{text}: local:N starts N workers on this machine, 1 to {MAX_LOCAL_WORKERS}")
        return text
    if len(text) > 300 or not ADDRESS.fullmatch(text) or text.startswith("local:"):
        raise argparse.ArgumentTypeError(
            f"{text[:100]!r} is not a scheduler address: tcp://HOST:PORT (or another of "
            f"{', '.join(SCHEMES)}), HOST:PORT, or local:N")
    return text


def _address_from_file(path: str) -> str:
    """The scheduler address a scheduler file holds (its JSON's ``address``)."""
    try:
        with open(path, "rb") as f:
            data = f.read(SCHEDULER_FILE_MAX + 1)
    except OSError as exc:
        raise UsageError(f"--scheduler-file {path}: cannot read it: {exc.strerror or exc}") \
            from None
    if len(data) > SCHEDULER_FILE_MAX:
        raise UsageError(f"--scheduler-file {path}: over {SCHEDULER_FILE_MAX} bytes, not a "
                         f"scheduler file")
    try:
        info = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        info = None
    address = info.get("address") if isinstance(info, dict) else None
    if not isinstance(address, str) or not ADDRESS.fullmatch(address):
        raise UsageError(f"--scheduler-file {path}: not a scheduler file (a JSON object whose "
                         f"'address' is the scheduler's, as dask scheduler --scheduler-file "
                         f"writes)")
    return address


class VersionRefused(Exception):
    """A Dask worker runs other code than the submitting process (``code_version``)."""


class DaskBackend:
    """A sweep's runs on a Dask scheduler: ``connect``, ``prepare`` (the checks, before any
    run), ``run`` (what ``pool.run_specs`` calls), ``close``."""

    def __init__(self, client, address: str, local=None):
        self.client = client
        self.address = address
        self.local = local              # the LocalCluster of local:N, closed with the backend
        self.program: tuple[str, str] | None = None     # (its text, its SHA-256)
        self.task_args: tuple = ()

    # ------------------------------------------------------------------ connecting
    @classmethod
    def connect(cls, scheduler: str | None, scheduler_file: str | None, *,
                timeout: float | None = None) -> "DaskBackend":
        """A client of the scheduler at ``scheduler`` (or the one ``scheduler_file`` names), or
        of a LocalCluster of N single-threaded workers for ``local:N`` (its ports chosen by the
        system). UsageError, one line naming the address, when it does not answer in
        ``timeout`` seconds (SCHEDULER_TIMEOUT)."""
        timeout = SCHEDULER_TIMEOUT if timeout is None else timeout
        import dask
        from distributed import Client, LocalCluster
        local = LOCAL.fullmatch(scheduler or "")
        if local:
            n = int(local.group(1))
            with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES}):
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", scheduler_port=0, dashboard_address=None,
                                       silence_logs=logging.ERROR, preload=[__name__])
            try:
                client = Client(cluster, set_as_default=False)
                client.wait_for_workers(n, timeout=LOCAL_START_TIMEOUT)
            except BaseException:
                cluster.close()
                raise
            return cls(client, f"{scheduler} ({cluster.scheduler_address})", cluster)
        address = scheduler if scheduler else _address_from_file(scheduler_file)
        try:
            client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, ValueError, TypeError) as exc:     # TimeoutError is an OSError
            why = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            where = f" (from {scheduler_file})" if scheduler_file else ""
            raise UsageError(f"cannot reach the Dask scheduler at {address}{where}: {why}") \
                from None
        return cls(client, address)

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.local is not None:
                self.local.close()

    # ------------------------------------------------------------------ before any run
    def prepare(self, specs: Sequence[RunSpec], *, program_path: str, version: str,
                python_choice: str) -> str:
        """Check every worker the scheduler has (it imports the project and the studies of
        ``specs``, its code version is ``version`` with this program, it has the interpreter
        ``python_choice`` asks for; UsageError naming the first that fails) and say what runs
        the sweep: the sentence the sweep prints and records as its workers."""
        text = Path(program_path).read_text()
        self.program = (text, hashlib.sha256(text.encode()).hexdigest())
        modules = study_modules(specs)
        self.task_args = (version, tuple(modules), python_choice)
        facts = self.client.run(_worker_facts, *self.program, *self.task_args,
                                on_error="return")
        if not facts:
            return (f"workers: none at {self.address} yet; the runs wait for workers to join "
                    f"(each decides its interpreter, --worker-python {python_choice})")
        seen: dict[str, int] = {}
        for worker, fact in sorted(facts.items()):
            if isinstance(fact, VersionRefused):
                raise UsageError(str(fact))
            if isinstance(fact, BaseException):
                why = (str(fact).strip().splitlines() or [""])[0][:300]
                raise UsageError(f"Dask worker {worker} cannot run the sweep: "
                                 f"{type(fact).__name__}: {why}")
            seen[fact] = seen.get(fact, 0) + 1
        threads = sum(self.client.nthreads().values())
        return (f"workers: {len(facts)} Dask worker(s), {threads} thread(s); "
                + "; ".join(f"{what} on {n}" for what, n in seen.items()))

    # ------------------------------------------------------------------ the runs
    def run(self, specs: Sequence[RunSpec], *, program_path: str,
            done: Callable[[dict], None]) -> None:
        """Submit every spec as a task (in ``specs``' order of priority) and call ``done`` with
        each row as it returns. A VersionRefused task stops the sweep (UsageError); a task
        whose workers died (KilledWorker) or that raised gives its spec's failed row. On any
        exception (Ctrl-C) the tasks are cancelled and the runs in progress ended."""
        from distributed import as_completed
        from distributed.scheduler import KilledWorker
        if self.program is None:
            raise RuntimeError("DaskBackend.prepare comes before run")
        sweep = uuid.uuid4().hex[:12]
        if self.client.scheduler_info()["workers"]:
            program = self.client.scatter(self.program[0], broadcast=True, hash=False)
        else:       # a task of its own, its result fetched by each worker as it joins
            program = self.client.submit(_identity, self.program[0], pure=False)
        futures = {}
        for i, spec in enumerate(specs):
            future = self.client.submit(_run_task, asdict(spec), program, self.program[1],
                                        *self.task_args, sweep, key=f"rdtcp-run-{sweep}-{i}",
                                        pure=False, priority=len(specs) - i)
            futures[future] = spec
        try:
            for future in as_completed(futures, loop=self.client.loop):
                spec = futures.pop(future)
                if future.status == "finished":
                    done(future.result())
                    continue
                exc = future.exception() if future.status == "error" else None
                if isinstance(exc, VersionRefused):
                    raise UsageError(str(exc))
                if isinstance(exc, KilledWorker):
                    why = ("its Dask worker died while running it, on another worker again "
                           f"(run again {ALLOWED_FAILURES} time(s) at most): "
                           + str(exc).strip().splitlines()[0][:300])
                elif exc is not None:
                    why = f"{type(exc).__name__}: " + (str(exc).strip().splitlines() or [""])[0]
                else:
                    why = f"its task was {future.status} by the scheduler"
                done({**asdict(spec), "error": why})
        except BaseException:
            self.client.cancel(list(futures))
            self._end(sweep, kill=True)
            raise
        self._end(sweep, kill=False)

    def _end(self, sweep: str, *, kill: bool) -> None:
        """Close the sweep's worker processes on every worker (``kill``: also mid-run)."""
        try:
            self.client.run(_end_sweep, sweep, kill, on_error="ignore")
        except Exception:               # a worker gone meanwhile: its processes end with it
            pass


# ----------------------------------------------------------------------------- on the workers
def dask_setup(worker) -> None:
    """Run in each worker of local:N as it starts (Dask's --preload of this module): the
    terminal's Ctrl-C reaches the whole process group, and it is the sweep's, which cancels the
    tasks and closes the cluster; a worker ignores it rather than print its tracebacks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


_LOCK = threading.Lock()
_SETUP: dict[tuple, tuple[str, str, str]] = {}  # (program, version, ...) -> path, python, facts
_IDLE: dict[str, list[WorkerProcess]] = {}      # per sweep: processes waiting for a task
_BUSY: dict[str, set[WorkerProcess]] = {}       # per sweep: processes running a spec
_ENDED: set[str] = set()                        # sweeps whose processes were ended


def _identity(value):
    return value


def _worker_address() -> str:
    try:
        from distributed import get_worker
        return get_worker().address
    except ValueError:                  # not in a Dask worker (a test calling this directly)
        return "this process"


def _program_file(text: str, sha: str) -> str:
    """The program sent, as a file of this machine's (the worker processes read a path); one
    per program, written once and checked (SHA-256) when found already there."""
    path = Path(tempfile.gettempdir()) / f"rdtcp-program-{sha[:16]}.json"
    if path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() == sha:
        return str(path)
    tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_text(text)
    tmp.replace(path)
    return str(path)


def _setup(program: str, sha: str, version: str, modules: tuple, choice: str, worker: str):
    """This worker's program path, interpreter and how it says so, for one sweep's settings,
    checked once per worker process: the studies import, the code version is ``version``
    (VersionRefused naming both and the ``worker``), the interpreter is there (UsageError)."""
    key = (sha, version, modules, choice)
    with _LOCK:
        if key in _SETUP:
            return _SETUP[key]
        for name in modules:
            if not MODULE.fullmatch(name):
                raise ValueError(f"not a module of experiments: {name!r}")
            importlib.import_module(name)
        path = _program_file(program, sha)
        mine = code_version(path)
        if mine != version:
            raise VersionRefused(
                f"Dask worker {worker} runs code version {mine}, the submitting "
                f"checkout {version}: every worker needs the same code (experiments/CLUSTER.md)")
        python, why = worker_python(choice, list(modules))
        facts = why.removeprefix("workers: ")
        if python is None:              # this interpreter, in worker processes all the same
            python = sys.executable
            facts = f"{python} ({facts})"
        _SETUP[key] = (path, python, facts)
        return _SETUP[key]


def _worker_facts(program: str, sha: str, version: str, modules: tuple, choice: str,
                  dask_worker=None) -> str:
    """What ``DaskBackend.prepare`` asks every worker (``Client.run`` passes it as
    ``dask_worker``): its interpreter, once the checks pass."""
    where = dask_worker.address if dask_worker is not None else "this process"
    return _setup(program, sha, version, modules, choice, where)[2]


def _run_task(fields: dict, program: str, sha: str, version: str, modules: tuple, choice: str,
              sweep: str) -> dict:
    """One run on this worker: its spec given to a worker process of the sweep's (an idle one,
    or a new one), its row returned."""
    path, python, _ = _setup(program, sha, version, modules, choice, _worker_address())
    spec = RunSpec(**fields)
    with _LOCK:
        if sweep in _ENDED:
            raise RuntimeError("the sweep was stopped")
        idle = _IDLE.setdefault(sweep, [])
        worker = idle.pop() if idle else None
    if worker is None:
        worker = WorkerProcess(python, path, list(modules))
    with _LOCK:
        busy = _BUSY.setdefault(sweep, set())
        busy.add(worker)
    try:
        row, line = worker.ask(spec)
        with _LOCK:
            ended = sweep in _ENDED
        if ended:                       # killed by _end_sweep: no row, no new process
            raise RuntimeError("the sweep was stopped")
        if row is None:
            row = worker.failed(spec, line)
    except BaseException:
        with _LOCK:
            busy.discard(worker)
        worker.close(kill=True)
        raise
    with _LOCK:
        busy.discard(worker)
        keep = sweep not in _ENDED
        if keep:
            _IDLE[sweep].append(worker)
    if not keep:
        worker.close()
    return row


def _end_sweep(sweep: str, kill: bool) -> None:
    """Close a sweep's worker processes on this worker: the idle ones, and with ``kill`` those
    running a spec too (their tasks were cancelled)."""
    with _LOCK:
        _ENDED.add(sweep)
        idle = _IDLE.pop(sweep, [])
        busy = list(_BUSY.pop(sweep, ()))
    for worker in idle:
        worker.close()
    for worker in busy if kill else ():
        worker.kill()
