"""ns-2's TCP validation suites as the engine's conformance corpus (experiments/ns2/).

Every test of the suites with an expected output in the installed ns2-examples package runs in
our simulator and is compared with that output. A test the engine reproduces must stay
identical; every other one is a strict xfail whose reason is what the first difference was
traced to (the next change of the engine it needs), so a test that starts to pass shows up.
The expected outputs are read from the package, never copied here: without it these tests skip.
"""

from __future__ import annotations

import pytest

from experiments.ns2 import corpus
from experiments.ns2.conformance import check, expected_tests
from experiments.ns2.install import LiveSuite, expected_output, missing
from experiments.ns2.suites import SUITES, convert
from experiments.ns2.trace import compare, parse_xgraph
from experiments.ns2_conformance import main

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

# what the first difference of each test was traced to, in one line; experiments/README.md,
# "ns-2 as the reference", has each explained
WHY = "experiments/README.md, ns-2"
RTO = "ns-2's RTO: 100 ms ticks, random phase"
IMMEDIATE = "DelAck sink's RFC2581_immediate_ack_ false"
BUGFIX_ACK = "bugFix_ack_, not modelled"
NEWRENO = "ns-2 Newreno's first recovery: untraced"
NR_REORDER = "ns-2 Newreno under reordering: untraced"
TS_RTO = "ns-2's RTO with timestamps_: untraced"
BUGFIX_TS = "bugFix_ts_, not modelled"

# (suite, test): (cause, the first differing point: section and point number, ns-2's time and
# packet vs ours, as `python -m experiments.ns2_conformance -v` prints it)
KNOWN: dict[tuple[str, str], tuple[str, str]] = {
    ("newreno", "newreno2_B"): (NEWRENO, "packets 103: 3.043600 1.56 vs 3.036320 1.58"),
    ("newreno", "newreno2_B_noLT"): (NEWRENO, "packets 103: 3.022800 1.56 vs 3.015520 1.58"),
    ("newreno", "newreno2_B_bugfix"): (NEWRENO, "packets 103: 3.043600 1.56 vs 3.036320 1.58"),
    ("newreno", "newreno2_B_bugfix_LC"): (NEWRENO, "packets 103: 3.043600 1.56 vs 3.036320 1.58"),
    ("newreno", "newreno5"): (NR_REORDER, "packets 171: 2.542120 1.68 vs 2.548640 1.6"),
    ("newreno", "newreno5_noLT"): (NR_REORDER, "packets 161: 2.500520 1.64 vs 2.507040 1.58"),
    ("newreno", "newreno_rto_loss_ack"): (BUGFIX_ACK,
                                          "packets 59: 3.778680 1.21 vs 5.566800 1.21"),
    ("newreno", "newreno_rto_loss_ts"): (TS_RTO, "packets 59: 5.568370 1.21 vs 4.568370 1.21"),
    ("newreno", "newreno_rto_loss_tsh"): (BUGFIX_TS,
                                          "packets 59: 3.780360 1.21 vs 4.568370 1.21"),
    ("newreno", "slow3"): (NEWRENO, "packets 71: 5.161880 1.35 vs 5.154600 1.37"),
    ("testReno", "Reno_TCP"): (RTO, "packets 39: 3.422080 0.18 vs 3.322080 0.18"),
    ("testReno", "Tahoe_TCP_without_Fast_Retransmit"): (
        RTO, "packets 37: 2.998200 0.15 vs 2.898200 0.15"),
    ("testReno", "Tahoe_TCP2_without_Fast_Retransmit"): (
        RTO, "packets 49: 3.008200 0.17 vs 2.908200 0.17"),
    ("frto", "noImmediateAckNewReno"): (IMMEDIATE, "packets 11: 1.945760 1.09 vs 1.745760 1.09"),
    ("frto", "noImmediateAckSack"): (IMMEDIATE, "packets 8: 2.004408 1.06 vs 1.804408 1.06"),
}


def _cases():
    if missing() is not None:
        return []
    out = []
    for suite in SUITES:
        for name in expected_tests(suite):
            known = KNOWN.get((suite, name))
            try:
                spec = corpus.spec(suite, name)
                reason = f"not built: needs {spec.not_built}" if spec.not_built else \
                    known and f"{known[0]}; {known[1]}"
            except ValueError:
                reason = "not in the corpus"
            marks = [pytest.mark.xfail(strict=True, reason=f"{reason}; {WHY}")] if reason else []
            out.append(pytest.param(suite, name, id=f"{suite}/{name}", marks=marks))
    return out


@pytest.mark.parametrize("suite, name", _cases())
def test_corpus_test_is_identical_to_ns2(suite, name):
    outcome = check(suite, name)
    assert outcome.identical, outcome.why


def test_every_suite_has_its_tests_in_the_corpus():
    for suite in SUITES:
        ours = {s.name for s in corpus.SPECS[suite]}
        assert set(expected_tests(suite)) <= ours, suite


@pytest.mark.skipif(missing(live=True) is not None, reason=missing(live=True) or "")
@pytest.mark.parametrize("suite, name", [("sack", "sack1"), ("newreno", "newreno1_B"),
                                         ("testReno", "Reno_TCP"), ("frto", "noImmediateAckSack"),
                                         ("LimTransmit", "onedrop_sack"), ("tcp", "timersA")])
def test_the_conversion_gives_ns2s_expected_output_from_ns2s_own_trace(suite, name):
    """The getrc/raw2xg steps written here, applied to the all.tr of ns-2 itself run here,
    give the points of the saved output (and for these tests the very text)."""
    with LiveSuite() as live:
        ours = convert(suite, live.run(suite, name), name)
    expected = expected_output(suite, name)
    assert compare(parse_xgraph(expected), parse_xgraph(ours), tolerance=0.0) is None
    if suite != "tcp":                  # the tcp suite titles its plots with a description
        assert ours == expected


def test_runner_prints_counts_and_first_differences(capsys):
    assert main(["--suites", "testReno", "--tests", "NewReno_TCP,Reno_TCP,Tahoe_TCP"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "testReno: 2 of 3 identical (3 built)"
    assert out[1].startswith('  Reno_TCP: "packets point ')
    assert out[-1] == "total: 2 of 3 identical (3 built)"
    assert main(["--suites", "frto", "--tests", "immediateAck"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "frto: 0 of 1 identical (0 built)"
    assert out[1].startswith("  immediateAck: not built: needs F-RTO on the Tahoe sender")


def test_runner_refuses_bad_input_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--tests", "sack1"])
    assert exc.value.code == 2
    assert "give --suites with exactly one suite" in capsys.readouterr().err
    assert main(["--suites", "sack", "--tests", "sack9"]) == 2
    assert capsys.readouterr().err == \
        "error: suite sack has no test with an expected output named sack9\n"
    with pytest.raises(SystemExit):
        main(["--suites", "vegas"])
    assert "unknown vegas" in capsys.readouterr().err
