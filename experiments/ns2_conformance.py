"""ns-2's TCP validation suites as the engine's conformance corpus.

    python -m experiments.ns2_conformance                  # every suite, against the saved outputs
    python -m experiments.ns2_conformance --live           # and ns-2 itself, run here
    python -m experiments.ns2_conformance --suites sack --tests sack1,sack3 -v
    python -m experiments.ns2_conformance --lab            # the lab's scenarios, in ns-2 and ours

Each test of ns-2 2.35's test-suite-{sack,newreno,testReno,tcp,frto,LimTransmit,red}.tcl is
built in our simulator with the engine's ``ns2`` profile (experiments/ns2/corpus.py); the trace
of the link the suite plots is converted as the suite converts ns-2's (its getrc/raw2xg steps,
experiments/ns2/suites.py) and compared with the suite's expected output,
test-output-SUITE/TEST.gz of the installed ns2-examples package. Identical means: the same
sections, and in each the same packets (packet number and flow) in the same time order, every
time within 1 ms of ns-2's. Prints "N of M identical" per suite and, for every other test, its
first differing point (or why it is not built); -v adds the values the engine does not model.

``--lab`` traces the lab's own scenarios ([RDTCP] §4's dumbbell with each sender ns-2 has;
experiments/ns2/lab_traces.py) in ns-2, run here, and in the engine, and says how many of the
sender's packets agree (same packet, same order, within the tolerance) before the first
difference.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from experiments.ns2 import install, lab_traces
from experiments.ns2.conformance import check_suite, expected_tests
from experiments.ns2.corpus import SPECS
from experiments.ns2.install import LiveSuite, Ns2Error, missing
from experiments.ns2.lab_traces import LAB_SCENARIOS
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
                   metavar="LIST", help="suites to run")
    p.add_argument("--tests", type=csv_list(str), metavar="LIST",
                   help="only these tests (with one suite)")
    p.add_argument("--live", action="store_true",
                   help="also run each test in ns-2 itself and compare its output with the "
                        "saved one (needs ns on PATH)")
    p.add_argument("--tolerance", type=finite_float, default=TOLERANCE, metavar="S",
                   help="largest time difference of a point still the same, in seconds")
    p.add_argument("--lab", type=csv_list(str, tuple(LAB_SCENARIOS)), nargs="?",
                   const=tuple(LAB_SCENARIOS), metavar="LIST",
                   help="instead of the suites, trace the lab's scenarios in ns-2 (needs ns on "
                        f"PATH) and in the engine and compare them packet by packet (without LIST: "
                        f"{','.join(LAB_SCENARIOS)})")
    p.add_argument("--duration", type=finite_float, metavar="S",
                   help="with --lab: simulated seconds of each scenario (default: 20)")
    p.add_argument("--out", default="build/ns2-lab", metavar="DIR",
                   help="with --lab: where ns-2's scripts and traces are written")
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
    if args.duration is not None and not (args.lab and args.duration > 0):
        p.error("--duration goes with --lab and must be > 0 seconds")
    return args


def _list() -> int:
    for suite in ALL_SUITES:
        for s in SPECS[suite]:
            print(f"{suite}/{s.name}: " + (f"not built (needs {s.not_built})" if s.not_built
                                           else f"{s.topology}, {len(s.flows)} flow(s), "
                                                f"{s.stop:g} s"))
    return 0


def _lab(args: argparse.Namespace) -> int:
    if install.ns_binary() is None:
        print(f"error: --lab runs ns-2 itself: {install.NS} is not on PATH (apt-get install "
              f"ns2, or set NS2_BINARY)", file=sys.stderr)
        return 2
    outcomes = []
    try:
        for name in args.lab:
            outcomes.append(lab_traces.check(name, args.out, duration=args.duration,
                                             tolerance=args.tolerance))
            print(outcomes[-1].line(), flush=True)
    except Ns2Error as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    print(f"total: {sum(o.identical for o in outcomes)} of {len(outcomes)} identical")
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{"scenario": o.name, "duration": o.duration, "identical": o.identical,
              "packets": o.packets, "same_packets": o.same_packets,
              "agree_until": o.agree_until, "difference": str(o.difference or "")}
             for o in outcomes], indent=1) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        return _list()
    if args.lab:
        return _lab(args)
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
