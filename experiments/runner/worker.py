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
import platform
import sys

from experiments.runner.pool import init_worker, run_one
from experiments.studies.rdtcp.scenario import RunSpec

__all__ = ["main"]

def _probe() -> int:
    """Say which interpreter this is; importing this module imported everything a run needs."""
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
