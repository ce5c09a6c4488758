"""The conformance check: each corpus test's result compared with ns-2's expected output.

For a test, ``check`` builds and runs the test in our simulator (``experiments.ns2.corpus``),
applies the suite's own conversion to the trace (``experiments.ns2.suites``) and compares the
points with ``test-output-SUITE/TEST.gz`` (``experiments.ns2.trace.compare``: same sections,
same packets in the same time order, times within 1 ms). With ``live``, ns-2 itself runs the
test too and its converted trace is compared with the same expected output: that the reference
holds on this machine is part of the record.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from experiments.ns2 import corpus
from experiments.ns2.install import (LiveSuite, Ns2Error, expected_output, suite_tests,
                                     suites_dir)
from experiments.ns2.suites import convert
from experiments.ns2.trace import TOLERANCE, compare, parse_xgraph

__all__ = ["Outcome", "SuiteResult", "check", "check_suite"]


@dataclass
class Outcome:
    suite: str
    test: str
    identical: bool
    why: str = ""                   # the first differing point, or why the test is not built
    unmodelled: tuple[str, ...] = ()
    ns2: str = ""                   # --live: "identical" or ns-2's own first difference

    def line(self) -> str:
        return f"{self.test}: {self.why}"


@dataclass
class SuiteResult:
    suite: str
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def identical(self) -> int:
        return sum(o.identical for o in self.outcomes)

    @property
    def ns2_identical(self) -> int:
        return sum(o.ns2 == "identical" for o in self.outcomes)

    def summary(self, *, live: bool = False) -> str:
        built = sum(not o.why.startswith("not built") for o in self.outcomes)
        text = (f"{self.suite}: {self.identical} of {len(self.outcomes)} identical "
                f"({built} built)")
        if live:
            text += f"; ns-2 itself: {self.ns2_identical} of {len(self.outcomes)}"
        return text


def expected_tests(suite: str) -> list[str]:
    """The suite's tests that have an expected output installed, in the suite file's order."""
    where = suites_dir() / f"test-output-{suite}"
    return [t for t in suite_tests(suite) if (where / f"{t}.gz").exists()]


def check(suite: str, test: str, *, live: LiveSuite | None = None,
          tolerance: float = TOLERANCE) -> Outcome:
    expected = parse_xgraph(expected_output(suite, test))
    out = Outcome(suite, test, False)
    if live is not None:
        try:
            d = compare(expected, parse_xgraph(convert(suite, live.run(suite, test), test)),
                        tolerance=tolerance)
            out.ns2 = "identical" if d is None else str(d)
        except Ns2Error as exc:
            out.ns2 = f"ns-2 failed: {exc}"
    try:
        spec = corpus.spec(suite, test)
    except ValueError:
        out.why = "not built: the corpus has no spec for it"
        return out
    if spec.not_built:
        out.why = f"not built: needs {spec.not_built}"
        return out
    result = corpus.run(spec)
    out.unmodelled = result.unmodelled
    d = compare(expected, parse_xgraph(convert(suite, result.trace, test)), tolerance=tolerance)
    out.identical = d is None
    out.why = "identical" if d is None else str(d)
    return out


def check_suite(suite: str, *, tests: list[str] | None = None, live: LiveSuite | None = None,
                tolerance: float = TOLERANCE, progress=None) -> SuiteResult:
    names = tests or expected_tests(suite)
    result = SuiteResult(suite)
    for name in names:
        result.outcomes.append(check(suite, name, live=live, tolerance=tolerance))
        if progress is not None:
            progress(result.outcomes[-1])
    return result
