"""ns-2's TCP validation suites as the engine's conformance corpus.

    python -m experiments.ns2_conformance                  # every suite, against the saved outputs
    python -m experiments.ns2_conformance --live           # and ns-2 itself, run here
    python -m experiments.ns2_conformance --suites sack --tests sack1,sack3 -v

Each test of ns-2 2.35's test-suite-{sack,newreno,testReno,tcp,frto,LimTransmit,red}.tcl is
built in our simulator with the engine's ``ns2`` profile (experiments/ns2/corpus.py); the trace
of the link the suite plots is converted as the suite converts ns-2's (its getrc/raw2xg steps,
experiments/ns2/suites.py) and compared with the suite's expected output,
test-output-SUITE/TEST.gz of the installed ns2-examples package. Identical means: the same
sections, and in each the same packets (packet number and flow) in the same time order, every
time within 1 ms of ns-2's. Prints "N of M identical" per suite and, for every other test, its
first differing point (or why it is not built); -v adds the values the engine does not model.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from experiments.ns2.conformance import check_suite, expected_tests
from experiments.ns2.corpus import SPECS
from experiments.ns2.install import LiveSuite, Ns2Error, missing
from experiments.ns2.suites import CORE_SUITES, SUITES
from experiments.ns2.trace import TOLERANCE
from experiments.runner.cli import HelpFormatter, csv_list, finite_float

__all__ = ["main"]

ALL_SUITES = (*CORE_SUITES, *(s for s in SUITES if s not in CORE_SUITES))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m experiments.ns2_conformance", formatter_class=HelpFormatter,
        description="Run ns-2's TCP validation tests in our simulator and compare each with "
                    "ns-2's expected output.")
    p.add_argument("--suites", type=csv_list(str, ALL_SUITES), default=ALL_SUITES,
                   metavar="LIST", help=f"suites to run (default: {','.join(ALL_SUITES)})")
    p.add_argument("--tests", type=csv_list(str), metavar="LIST",
                   help="only these tests (with one suite)")
    p.add_argument("--live", action="store_true",
                   help="also run each test in ns-2 itself and compare its output with the "
                        "saved one (needs ns on PATH)")
    p.add_argument("--tolerance", type=finite_float, default=TOLERANCE, metavar="S",
                   help="largest time difference of a point still the same, in seconds")
    p.add_argument("--json", metavar="PATH", help="write every outcome to this JSON file")
    p.add_argument("--list", action="store_true",
                   help="list the corpus (built or why not) and exit")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="with each differing test, the ns-2 values the engine does not model")
    args = p.parse_args(argv)
    if args.tests and len(args.suites) != 1:
        p.error("--tests picks tests of one suite: give --suites with exactly one suite")
    if not args.tolerance >= 0:
        p.error("--tolerance must be >= 0 seconds")
    return args


def _list() -> int:
    for suite in ALL_SUITES:
        for s in SPECS[suite]:
            print(f"{suite}/{s.name}: " + (f"not built (needs {s.not_built})" if s.not_built
                                           else f"{s.topology}, {len(s.flows)} flow(s), "
                                                f"{s.stop:g} s"))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        return _list()
    why = missing(live=args.live)
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 2
    if args.tests:
        known = set(expected_tests(args.suites[0]))
        bad = [t for t in args.tests if t not in known]
        if bad:
            print(f"error: suite {args.suites[0]} has no test with an expected output named "
                  f"{', '.join(bad)}", file=sys.stderr)
            return 2
    tty = sys.stderr.isatty()
    results = []
    try:
        live = LiveSuite() if args.live else None
    except Ns2Error as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        for suite in args.suites:
            total = len(args.tests or expected_tests(suite))

            def progress(outcome, suite=suite, total=total, done=[0]):
                done[0] += 1
                if tty:
                    print(f"\r{suite}: {done[0]}/{total} ", end="", file=sys.stderr,
                          flush=True)
            result = check_suite(suite, tests=list(args.tests or []) or None, live=live,
                                 tolerance=args.tolerance, progress=progress)
            if tty:
                print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
            results.append(result)
            print(result.summary(live=args.live))
            for o in result.outcomes:
                if not o.identical:
                    print(f"  {o.line()}")
                    if args.verbose:
                        for note in o.unmodelled:
                            print(f"      unmodelled: {note}")
                if args.live and o.ns2 != "identical":
                    print(f"  {o.test}: ns-2 itself differs: {o.ns2}")
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    finally:
        if live is not None:
            live.close()
    built = sum(1 for r in results for o in r.outcomes if not o.why.startswith("not built"))
    same = sum(r.identical for r in results)
    total = sum(len(r.outcomes) for r in results)
    print(f"total: {same} of {total} identical ({built} built)")
    if args.json:
        record = [{"suite": o.suite, "test": o.test, "identical": o.identical, "why": o.why,
                   "unmodelled": list(o.unmodelled), **({"ns2": o.ns2} if args.live else {})}
                  for r in results for o in r.outcomes]
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
