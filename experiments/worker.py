"""A sweep worker in an interpreter of its own, such as PyPy: run specs in, result rows out.

    pypy3 -m experiments.worker build/rdtcp.json < specs.jsonl > rows.jsonl
    pypy3 -m experiments.worker --probe          # prints "ok <implementation> <version>"

Each input line is one ``RunSpec`` as a JSON object; each output line is the JSON row of that
run (``experiments.rdtcp_figures`` writes and reads them, one worker process per job). A run
that fails gives a row with ``error`` instead of stopping the worker. The simulation is the same
code whichever interpreter runs it, and gives the same numbers (tests/experiments pin this).
"""

from __future__ import annotations

import json
import platform
import sys

__all__ = ["main"]


def _probe() -> int:
    """Import everything a run needs; say which interpreter this is."""
    import experiments.paper  # noqa: F401
    import hosts.tcp  # noqa: F401
    import hosts.wire  # noqa: F401
    import sim.network  # noqa: F401
    import toolchain.target  # noqa: F401
    print(f"ok {platform.python_implementation()} {platform.python_version()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--probe"]:
        return _probe()
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python -m experiments.worker PROGRAM.json < specs.jsonl > rows.jsonl\n"
              "       python -m experiments.worker --probe", file=sys.stderr)
        return 2
    from experiments.paper import RunSpec
    from experiments.rdtcp_figures import _init_worker, _run_one

    _init_worker(argv[0])
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            spec = RunSpec(**json.loads(line))
        except (ValueError, TypeError) as exc:   # a bad spec is reported, not fatal
            row = {"error": f"bad run spec {line.strip()[:200]!r}: {exc}"}
        else:
            row = _run_one(spec)
        sys.stdout.write(json.dumps(row) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
