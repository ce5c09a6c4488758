"""Fixtures shared by the runner's tests."""

import subprocess

import pytest

from experiments.runner import pool


@pytest.fixture
def ctrl_c_at_second_run(monkeypatch):
    """The sweep's second run raises KeyboardInterrupt (Ctrl-C) in this process; call the
    returned function to let runs through again."""
    real, calls = pool.run_one, []

    def interrupted_on_the_second_run(spec):
        calls.append(spec)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(spec)

    monkeypatch.setattr(pool, "run_one", interrupted_on_the_second_run)
    return lambda: monkeypatch.setattr(pool, "run_one", real)


@pytest.fixture
def started_workers(monkeypatch):
    """The argument lists of the PyPy/CPython worker processes the sweep starts (probes left
    out), recorded as they start."""
    started, real = [], subprocess.Popen

    def popen(args, *a, **kw):
        if "experiments.runner.worker" in args and "--probe" not in args:
            started.append(args)
        return real(args, *a, **kw)

    monkeypatch.setattr(subprocess, "Popen", popen)
    return started
