"""What each validation suite's ``finish`` step makes of ``all.tr``: the file its test-all
script compares with ``test-output-SUITE/TEST.gz`` (``temp.rands``), built with the functions
of ``experiments.ns2.trace``. Each entry states its suite's pipeline in ns-2's own terms.
"""

from __future__ import annotations

from typing import Callable, Sequence

from experiments.ns2.trace import getrc, raw2xg, set_flow_id

__all__ = ["SUITES", "CORE_SUITES", "convert"]

Lines = Sequence[str]
WRAP = 90                   # the suites' "set wrap 90": packet numbers modulo 90, 0.01 apart
WRAP_FULLTCP = 90 * 512 + 40   # "set wrap1": FullTcp counts bytes (512-byte packets)


def _sack(lines: Lines, test: str) -> str:
    # getrc -s 2 -d 3 all.tr | raw2xg -s 0.01 -m 90 -t TEST
    return raw2xg(getrc(lines, src=2, dst=3), title=test, scale=0.01, modulus=WRAP)


def _newreno(lines: Lines, test: str) -> str:
    # getrc -s 2 -d 3 all.tr | raw2xg -s 0.01 -m $wrap -t TEST, then
    # getrc -s 3 -d 2 all.tr | raw2xg -a -c -p -s 0.01 -m $wrap -t TEST (appended)
    wrap = WRAP_FULLTCP if test.startswith("fulltcp") or "FullTcp" in test else WRAP
    return (raw2xg(getrc(lines, src=2, dst=3), title=test, scale=0.01, modulus=wrap)
            + raw2xg(getrc(lines, src=3, dst=2), title=test, scale=0.01, modulus=wrap,
                     acks=True, compact=True, no_preface=True))


def _test_reno(lines: Lines, test: str) -> str:
    # set_flow_id -s all.tr | getrc -e -s 2 -d 3 | raw2xg -v -s 0.01 -m 90 -t TEST
    return raw2xg(getrc(set_flow_id(lines, "src"), src=2, dst=3, events=True), title=test,
                  scale=0.01, modulus=WRAP, events=True)


def _tcp(lines: Lines, test: str) -> str:
    # set_flow_id -s all.tr | getrc -s 2 -d 3 | raw2xg -s 0.01 -m 90 -t TEST
    return raw2xg(getrc(set_flow_id(lines, "src"), src=2, dst=3), title=test, scale=0.01,
                  modulus=WRAP)


def _frto(lines: Lines, test: str) -> str:
    # four "N.Color:" lines, then
    # getrc -b -s 0 -d 2 all.tr | raw2xg -c -s 0.01 -m 200 -r -t TEST
    # getrc -b -s 2 -d 0 all.tr | raw2xg -c -a -s 0.01 -m 200 -t TEST
    # getrc -s 2 -d 3 all.tr | raw2xg -c -d -s 0.01 -m 200 -t TEST
    wrap = 200
    return ("0.Color: red\n2.Color: blue\n1.Color: red\n3.Color: purple\n"
            + raw2xg(getrc(lines, src=0, dst=2, both=True), title=test, scale=0.01,
                     modulus=wrap, compact=True, arrivals_only=True)
            + raw2xg(getrc(lines, src=2, dst=0, both=True), title=test, scale=0.01,
                     modulus=wrap, compact=True, acks=True)
            + raw2xg(getrc(lines, src=2, dst=3), title=test, scale=0.01, modulus=wrap,
                     compact=True, drops_only=True))


def _lim_transmit(lines: Lines, test: str) -> str:
    # set_flow_id -m all.tr > t; getrc -s 0 -d 2 t > t1; raw2xg -c -a -s 0.01 -m 90 -t TEST t1
    return raw2xg(getrc(set_flow_id(lines, "min"), src=0, dst=2), title=test, scale=0.01,
                  modulus=WRAP, compact=True, acks=True)


def _red(lines: Lines, test: str) -> str:
    # getrc -s 2 -d 3 all.tr | raw2xg -a -s 0.01 -m 90 -t TEST
    return raw2xg(getrc(lines, src=2, dst=3), title=test, scale=0.01, modulus=WRAP, acks=True)


SUITES: dict[str, Callable[[Lines, str], str]] = {
    "sack": _sack, "newreno": _newreno, "testReno": _test_reno, "tcp": _tcp, "frto": _frto,
    "LimTransmit": _lim_transmit, "red": _red,
}
# the suites every test of which the engine's ns2 profile is to reproduce
CORE_SUITES = ("sack", "newreno", "testReno", "tcp", "frto")


def convert(suite: str, lines: Lines, test: str) -> str:
    """``temp.rands`` of ``test``: what the suite compares with its expected output."""
    try:
        return SUITES[suite](lines, test)
    except KeyError:
        raise ValueError(f"unknown suite {suite!r}; choose from {', '.join(SUITES)}") from None
