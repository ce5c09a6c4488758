"""A sweep worker in an interpreter of its own, such as PyPy: run specs in, result rows out.

    pypy3 -m experiments.runner.worker build/rdtcp.json experiments.studies.rdtcp.scenario \
        < specs.jsonl > rows.jsonl
    pypy3 -m experiments.runner.worker --probe [MODULE ...]   # "ok <implementation> <version>"

The modules after the program are those that register the specs' scenarios (the pool names
them: ``pool.study_modules``); the worker imports them before it reads a spec. Each input line
is one ``RunSpec`` as a JSON object; each output line is the JSON row of that run (the sweeps
write and read them, one worker process per job). A run that fails gives a row with ``error``
instead of stopping the worker. The simulation is the same code whichever interpreter runs it,
and gives the same numbers (tests/experiments pin this).
"""

from __future__ import annotations

import importlib
import json
import platform
import re
import sys

from experiments.runner.pool import init_worker, run_one
from experiments.runner.spec import RunSpec

__all__ = ["main"]

USAGE = ("usage: python -m experiments.runner.worker PROGRAM.json [MODULE ...] < specs.jsonl > "
         "rows.jsonl\n"
         "       python -m experiments.runner.worker --probe [MODULE ...]")
# a dotted module name of the project: the worker imports nothing else
MODULE = re.compile(r"experiments(\.[A-Za-z_][A-Za-z0-9_]*)+")


def _import_studies(modules: list[str]) -> str | None:
    """Import the modules that register the scenarios; the reason when one cannot be."""
    for name in modules:
        if not MODULE.fullmatch(name):
            return f"not a module of experiments: {name!r}"
        try:
            importlib.import_module(name)
        except ImportError as exc:
            return f"cannot import {name}: {exc}"
    return None


def _probe(modules: list[str]) -> int:
    """Say which interpreter this is, once everything a run needs is imported."""
    problem = _import_studies(modules)
    if problem:
        print(problem, file=sys.stderr)
        return 1
    print(f"ok {platform.python_implementation()} {platform.python_version()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--probe"]:
        return _probe(argv[1:])
    if not argv or any(arg.startswith("-") for arg in argv):
        print(USAGE, file=sys.stderr)
        return 2
    problem = _import_studies(argv[1:])
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
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
