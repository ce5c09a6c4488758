"""ns-2's trace conversion (the suites' getrc, set_flow_id and raw2xg steps) and the comparison
of xgraph point lists, on small traces written here (no ns-2 needed)."""

import pytest

from experiments.ns2.trace import (Difference, compare, format_time, getrc, parse_xgraph,
                                   raw2xg, set_flow_id)

TRACE = """\
+ 1 0 2 tcp 1040 ------- 0 0.0 3.0 1 2
- 1 0 2 tcp 1040 ------- 0 0.0 3.0 1 2
r 1.00604 0 2 tcp 1040 ------- 0 0.0 3.0 1 2
+ 1.00604 2 3 tcp 1040 ------- 0 0.0 3.0 1 2
- 1.00604 2 3 tcp 1040 ------- 0 0.0 3.0 1 2
+ 1.00708 2 3 tcp 1040 ------- 1 1.0 3.1 95 7
d 1.00708 2 3 tcp 1040 ------- 1 1.0 3.1 95 7
+ 1.2 3 2 ack 40 ------- 0 3.0 0.0 1 3
- 1.2 3 2 ack 40 ------- 0 3.0 0.0 1 3
E 1.3 0 3 TCP RENO_FAST_RETX 0 20 5
E 1.4 0 3 TCP TIMEOUT 0 20 2
E 1.4 0 3 TCP SLOW_START 0 20 1
""".splitlines(keepends=True)


def test_getrc_keeps_one_link_and_optionally_the_agents_events():
    fwd = getrc(TRACE, src=2, dst=3)
    assert [ln.split()[0] for ln in fwd] == ["+", "-", "+", "d"]
    both = getrc(TRACE, src=2, dst=3, both=True)
    assert len(both) == 6                               # and the ACKs 3 -> 2
    assert getrc(TRACE, src=2, dst=3, fid=1) == fwd[2:]
    assert [ln.split()[5] for ln in getrc(TRACE, src=2, dst=3, events=True)
            if ln.startswith("E")] == ["RENO_FAST_RETX", "TIMEOUT", "SLOW_START"]


def test_set_flow_id_writes_the_source_destination_or_smaller_node():
    line = TRACE[7]                                     # an ACK from node 3 to node 0
    assert set_flow_id([line], "src")[0].split()[7] == "3"
    assert set_flow_id([line], "dst")[0].split()[7] == "0"
    assert set_flow_id([line], "min")[0].split()[7] == "0"
    event = set_flow_id([TRACE[9]], "src")[0].split()
    assert event[6] == "0"                              # an E line: its own node fields
    with pytest.raises(ValueError, match="mode must be min, src or dst"):
        set_flow_id(TRACE, "max")


def test_raw2xg_writes_the_suites_sections():
    text = raw2xg(getrc(TRACE, src=2, dst=3), title="t", scale=0.01, modulus=90)
    assert text == (
        "TitleText: t\nDevice: Postscript\nBoundBox: true\nTicks: true\nNoLines: true\n"
        "Markers: true\nXUnitText: time\nYUnitText: packets\n"
        '\n"packets\n1.00604 0.01\n1.00604 0.01\n1.00708 1.05\n'
        '\n"skip-1\n0 1\n\n"skip-2\n0 1\n'
        '\n"drops\n1.00708 1.05\n1.00708 1.05\n\n')      # one drop: written twice (xgraph marks)


def test_raw2xg_acks_compact_and_events():
    acks = raw2xg(getrc(TRACE, src=3, dst=2), title="t", scale=0.01, modulus=90, acks=True,
                  compact=True, no_preface=True)
    assert acks == '\n"packets\n\n"acks\n1.2 0.01\n1.2 0.01\n\n"drops\n\n'
    ev = raw2xg(getrc(TRACE, src=2, dst=3, events=True), title="t", scale=0.01, modulus=90,
                events=True)
    # raw2xg plots TCP_TIMEOUT, not the agents' TIMEOUT: that one is left out
    assert '"event_timeout\n\n' in ev
    assert '"event_slowstart\n1.4 0.2\n1.4 0.2\n' in ev
    assert '"event_renofastretx\n1.3 0.2\n1.3 0.2\n' in ev


def test_drops_beyond_four_start_with_the_first_four_in_trace_order():
    lines = [f"d {t} 2 3 tcp 1040 ------- 0 0.0 3.0 {seq} {seq}\n"
             for t, seq in ((3.0, 9), (1.0, 2), (2.0, 5), (4.0, 1), (0.5, 7))]
    text = raw2xg(lines, title="t", scale=0.01, modulus=90)
    body = text.split('"drops\n')[1].split("\n\n")[0].splitlines()
    assert body[:4] == ["3.0 0.09", "1.0 0.02", "2.0 0.05", "4.0 0.01"]   # times as given
    assert body[4:] == sorted(body[4:]) and len(body) == 9
    assert [p for p, _ in parse_xgraph(text)[-1].points] == [0.5, 1.0, 2.0, 3.0, 4.0]


def test_compare_takes_times_within_the_tolerance_and_ignores_order_within_an_instant():
    base = '\n"packets\n1.0 0.01\n1.0 0.02\n1.5 0.03\n\n"drops\n'
    same = '\n"packets\n1.0 0.02\n1.0 0.01\n1.5009 0.03\n\n"drops\n'
    assert compare(parse_xgraph(base), parse_xgraph(same)) is None
    late = '\n"packets\n1.0 0.01\n1.0 0.02\n1.5011 0.03\n\n"drops\n'
    d = compare(parse_xgraph(base), parse_xgraph(late))
    assert isinstance(d, Difference) and (d.section, d.index) == ("packets", 2)
    assert str(d) == '"packets point 3: expected (1.500000, 0.03), ours (1.501100, 0.03)'
    other = '\n"packets\n1.0 0.01\n1.0 0.02\n1.5 0.04\n\n"drops\n'
    assert compare(parse_xgraph(base), parse_xgraph(other)).index == 2
    short = '\n"packets\n1.0 0.01\n1.0 0.02\n\n"drops\n'
    assert str(compare(parse_xgraph(base), parse_xgraph(short))).endswith("ours none")
    renamed = '\n"packets\n1.0 0.01\n1.0 0.02\n1.5 0.03\n\n"acks\n'
    assert str(compare(parse_xgraph(base), parse_xgraph(renamed))) == \
        'section 2: expected "drops, ours "acks'


def test_a_malformed_point_is_named():
    with pytest.raises(ValueError, match="not an xgraph point: 'x 1'"):
        parse_xgraph('"packets\nx 1\n')


def test_times_are_written_as_ns2_writes_them():
    assert format_time(1.2169200000000001) == "1.21692"
    assert format_time(4.6181844) == "4.618184"
    assert format_time(2.0) == "2"
