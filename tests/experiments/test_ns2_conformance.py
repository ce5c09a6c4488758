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
HANDSHAKE = "the engine's handshake: options on SYN and SYN-ACK, a third segment ns-2 does not send"
RTO = "ns-2's RTO: 100 ms ticks from a random phase, backed off before minrto_"
FRTO = "F-RTO: after the timeout the engine sends one segment more (RFC 5682 §3 step 2b)"
SYN_DELACK = "ns-2's DelAck sink delays its ACK of the SYN; the engine answers at once"
DUPACKS_FRAC = "ns-2's numdupacksFrac_ raises DupThresh to cwnd/4; the engine's DupThresh is fixed"
UNTRACED = "the first difference comes after the first recovery; not yet traced"

KNOWN: dict[tuple[str, str], str] = {
    **{("newreno", s.name): HANDSHAKE for s in corpus.SPECS["newreno"]},
    **{("sack", t): HANDSHAKE for t in ("sack3", "sack_finiteflow")},
    **{("sack", t): HANDSHAKE for t in ("sack1b", "sack1c")},
    **{("sack", t): UNTRACED for t in ("sack5", "sackB2")},
    ("sack", "sack_dupacks1"): DUPACKS_FRAC,
    ("testReno", "Reno_TCP"): RTO,
    ("testReno", "Sack_TCP"): UNTRACED,
    **{("frto", t): FRTO for t in ("immediateAckReno", "immediateAckNewReno",
                                   "noImmediateAckNewReno", "noImmediateAckSack")},
    **{("LimTransmit", t): SYN_DELACK for t in ("onedrop_sack", "onedrop_SA_sack",
                                                "nodrop_sack")},
}


def _cases():
    if missing() is not None:
        return []
    out = []
    for suite in SUITES:
        for name in expected_tests(suite):
            try:
                spec = corpus.spec(suite, name)
                reason = f"not built: needs {spec.not_built}" if spec.not_built else \
                    KNOWN.get((suite, name))
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
    assert main(["--suites", "sack", "--tests", "sack1,sack1b,sackB4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "sack: 1 of 3 identical (2 built)"
    assert out[1].startswith('  sack1b: "packets point ')
    assert out[2].startswith("  sackB4: not built: needs a RED queue")
    assert out[-1] == "total: 1 of 3 identical (2 built)"


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
