"""A sweep worker in an interpreter of its own, such as PyPy: run specs in, result rows out.

    pypy3 -m experiments.runner.worker build/rdtcp.json < specs.jsonl > rows.jsonl
    pypy3 -m experiments.runner.worker --probe          # prints "ok <implementation> <version>"

Each input line is one ``RunSpec`` as a JSON object; each output line is the JSON row of that
run (``experiments.rdtcp_figures`` writes and reads them, one worker process per job). A run
that fails gives a row with ``error`` instead of stopping the worker. The simulation is the same
code whichever interpreter runs it, and gives the same numbers (tests/experiments pin this).
"""

from __future__ import annotations

import json
import os
import platform
import sys

__all__ = ["main", "worker_env", "PYPY_GC_NURSERY"]

# PyPy's minor-collection nursery. PyPy sizes it from the cache it detects; on the project's
# 2-core machine (512 KiB L2 per core, 32 MiB shared L3) the 600 s paper scenario ran in
# 10.0-12.6 s with 4 MiB against 14.7-20.2 s with PyPy's own choice (1 MiB: 17.5-20.5 s,
# 2 MiB: 12.0-13.1 s, 8 MiB: 10.6-12.8 s, 16 MiB: 12.9-18.2 s; alternating runs of
# `pypy3 bench/bench_sim.py --duration 600 --no-profile`, 2026-11-22). The simulator allocates
# a few short-lived objects per event, so the nursery size decides how often PyPy collects.
# A PYPY_GC_NURSERY already in the environment wins; CPython ignores the variable.
PYPY_GC_NURSERY = "4M"


def worker_env(repo_root) -> dict[str, str]:
    """Environment of a worker interpreter: the repository importable, PyPy's nursery set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(repo_root), os.environ.get("PYTHONPATH", "")) if p)
    env.setdefault("PYPY_GC_NURSERY", PYPY_GC_NURSERY)
    return env


def _probe() -> int:
    """Import everything a run needs; say which interpreter this is."""
    import experiments.runner.scenario  # noqa: F401
    import hosts.tcp  # noqa: F401
    import netbase.wire  # noqa: F401
    import sim.network  # noqa: F401
    import toolchain.switch  # noqa: F401
    print(f"ok {platform.python_implementation()} {platform.python_version()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--probe"]:
        return _probe()
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python -m experiments.runner.worker PROGRAM.json < specs.jsonl > rows.jsonl\n"
              "       python -m experiments.runner.worker --probe", file=sys.stderr)
        return 2
    from experiments.runner.scenario import RunSpec
    from experiments.runner.pool import init_worker, run_one

    init_worker(argv[0])
    # one answer line per spec line is the protocol: anything else the simulation might print
    # goes to stderr, or the sweep would take it for a row
    rows, sys.stdout = sys.stdout, sys.stderr
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                spec = RunSpec(**json.loads(line))
            except (ValueError, TypeError) as exc:   # a bad spec is reported, not fatal
                row = {"error": f"bad run spec {line.strip()[:200]!r}: {exc}"}
            else:
                row = run_one(spec)
            rows.write(json.dumps(row) + "\n")
            rows.flush()
    finally:
        sys.stdout = rows
    return 0


if __name__ == "__main__":
    sys.exit(main())
