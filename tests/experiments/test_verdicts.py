"""The verdicts every study gives its paper's statements (experiments.runner.verdicts): direction
and size, the tolerances, the equivalence test for "no difference", statements not run, and the
table and counts the READMEs quote; the rank statistics under them."""

import math
import random

import pytest

from experiments.runner.stats import (mann_whitney_p, paired_shift_interval, shift_interval,
                                      signed_rank_p)
from experiments.runner.verdicts import (NONE, NOT_OK, NOT_RUN, OK, Alike, Near, absolute, bound,
                                         counts, judge, markdown, not_run, relative)


def test_tolerances_are_relative_absolute_or_the_papers_bound():
    assert relative(0.1).holds(108, 100) and not relative(0.1).holds(111, 100)
    assert relative(0.1).holds(95, (100, 120)) and relative(0.1).holds(131, (100, 120))
    assert absolute(0.05).holds(0.14, 0.19) and not absolute(0.05).holds(0.05, (0.17, 0.19))
    assert bound().holds(0.75, 0.71) and not bound().holds(0.70, 0.71)
    assert bound(over=False).holds(0.09, 0.10) and not bound(over=False).holds(0.10, 0.10)
    assert relative(0.1).text(607_500) == "607,500 ± 10% (relative)"
    assert absolute(0.05).text((0.17, 0.19)) == "0.17-0.19 ± 0.05 (absolute)"
    assert bound().text(0.71) == "over 0.71 (the paper's bound)"


def _faster(values, paper_gain=0.19):
    return judge("k", "Table 1", "F-RTO is faster", paper="17-19 %", values=values,
                 direction=lambda v: v["frto"] < v["sack"], test="F-RTO's time below",
                 size=Near("time saved", lambda v: 1 - v["frto"] / v["sack"], paper_gain,
                           absolute()))


def test_direction_and_size_are_two_verdicts():
    assert (_faster({"sack": 100.0, "frto": 80.0}).direction,
            _faster({"sack": 100.0, "frto": 80.0}).size) == (OK, OK)
    five = _faster({"sack": 100.0, "frto": 95.0})      # the right way, 5 % where [FRTO] says 19 %
    assert (five.direction, five.size) == (OK, NOT_OK)
    assert "time saved 0.05" in five.values["ours"] and "0.19 ± 0.05" in five.tolerance
    wrong = _faster({"sack": 100.0, "frto": 120.0})
    assert (wrong.direction, wrong.size) == (NOT_OK, NOT_OK)


def test_a_statement_without_its_numbers_is_not_run_and_says_what_is_missing():
    s = _faster({"sack": 100.0, "frto": None})
    assert (s.direction, s.size) == (NOT_RUN, NOT_RUN) and s.not_run
    assert s.note == "not run: no frto"
    shape = judge("k", "Fig. 4", "SACK falls", paper="", values={"sack": {}},
                  direction=lambda v: True, why_missing="quick mode runs no such level")
    assert (shape.direction, shape.size) == (NOT_RUN, NONE)
    assert "no sack (quick mode runs no such level)" in shape.note
    gap = judge("k", "Fig. 4", "A above B at 30 %", paper="", values={"a": {5: 1.0}},
                direction=lambda v: v["a"][30] > 0)
    assert gap.direction == NOT_RUN and "30" in gap.note
    whole = not_run("k", "§5.7", "TAES best", paper="", why="--sweep-57 not given")
    assert (whole.direction, whole.size, whole.note) == (NOT_RUN, NOT_RUN,
                                                          "not run: --sweep-57 not given")


def test_no_difference_is_an_equivalence_test_that_says_when_runs_are_too_few():
    rng = random.Random(3)
    same = [100 * math.exp(rng.gauss(0, 0.02)) for _ in range(30)]
    also = [100 * math.exp(rng.gauss(0, 0.02)) for _ in range(30)]
    alike = Alike("time", "a", "b", 0.10)
    assert alike.judge({"a": same, "b": also})[0] == OK
    assert alike.judge({"a": same, "b": [x * 1.5 for x in also]})[0] == NOT_OK
    few = alike.judge({"a": [100, 130, 80, 120, 90], "b": [95, 125, 85, 110, 100]})
    assert few[0] == NOT_RUN and "runs each would decide it" in few[3], few
    assert alike.judge({"a": [100, 110], "b": [100, 105]})[0] == NOT_RUN   # no 90 % interval
    # paired by seed: the seeds' common draws cancel, so few runs decide
    a = {s: 50.0 * s for s in range(1, 9)}
    b = {s: 50.0 * s * (1 + 0.01 * (-1) ** s) for s in range(1, 9)}
    verdict, text, tol, _ = alike.judge({"a": a, "b": b})
    assert verdict == OK and "8 pairs" in text and "(paired)" in tol
    assert alike.judge({"a": [50.0 * s for s in a], "b": [x for x in b.values()]})[0] == NOT_RUN


def test_counts_and_the_table_list_every_statement_and_those_not_run():
    statements = [_faster({"sack": 100.0, "frto": 80.0}),
                  _faster({"sack": 100.0, "frto": 95.0}),
                  _faster({"sack": 100.0, "frto": None}),
                  judge("x", "Fig. 5", "TA's ratio over 71 %", paper="over 71 %",
                        values={"ta": 0.75}, direction=None,
                        size=Near("TA", lambda v: v["ta"], 0.71, bound()))]
    assert counts(statements) == {"statements": 4, "direction_judged": 2, "direction_ok": 2,
                                  "size_judged": 3, "size_ok": 2, "not_run": 1}
    text = markdown(statements, paper="[FRTO]", columns=(("paper", "[FRTO]"), ("ours", "ours"),
                                                      ("ns2", "ns-2")))
    assert text.splitlines()[0].startswith("4 statements: direction ok in 2 of the 2 judged, "
                                           "size ok in 2 of the 3 judged, 1 with a verdict "
                                           "not run")
    head = next(line for line in text.splitlines() if line.startswith("| #"))
    assert head == ("| # | item | [FRTO] says | [FRTO] | ours | ns-2 | direction | size | tolerance "
                    "| test and explanation |")
    assert "**Not run** (1):" in text
    assert "- #3 Table 1, direction and size: F-RTO is faster (no frto)" in text


def test_rank_intervals_and_tests_match_their_exact_small_sample_values():
    # Wilcoxon: five positive differences, P(T+ = 15) = 1/32 each side
    assert signed_rank_p([1, 2, 3, 4, 5]) == pytest.approx(2 / 32)
    assert signed_rank_p([0, 0]) == 1.0
    # the 90 % interval of 5 pairs is the Walsh averages' range (P(T+ <= 0) = 1/32 <= 0.05)
    assert paired_shift_interval([1, 2, 3, 4, 5]) == (1.0, 5.0)
    assert paired_shift_interval([1, 2, 3, 4]) is None          # 1/16 > 0.05: no interval
    # Mann-Whitney's interval: C = floor(12.5 - 1.645 * sqrt(25 * 11 / 12)) = 4
    lo, hi = shift_interval([1, 2, 3, 4, 5], [1.5, 2.5, 3.5, 4.5, 5.5])
    assert (lo, hi) == (-2.5, 1.5)
    assert shift_interval([1, 2], [3, 4]) is None
    assert mann_whitney_p([1, 2, 3], [1, 2, 3]) == 1.0
