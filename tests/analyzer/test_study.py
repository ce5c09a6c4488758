"""python -m analyzer.study: [TCPDEBUG] ch. 4-5 on any pcap, and what it says when a trace cannot
be scored (no RTT sample, no loss, one connection, not a capture)."""

import csv
import json

import pytest

from analyzer.study import main
from test_series import fast_retransmit, timeouts_trace
from tracekit import RTT, Trace


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def clean_trace() -> Trace:
    tr = Trace()
    tr.handshake()
    t = 0.2
    for i in range(12):
        tr.data(t, i)
        tr.ack(t + RTT, i + 1)
        t += RTT + 0.01
    return tr


def test_a_trace_without_loss_is_scored_for_fpa_and_says_lpa_is_undefined(tmp_path, capsys):
    path = clean_trace().write(tmp_path / "t.pcap")
    code, out, err = run([path, "--json", str(tmp_path / "s.json"), "--series",
                          str(tmp_path / "s.csv")], capsys)
    assert code == 0 and err == ""
    assert "note: no loss episode in any connection: LPA is not defined (FPA is)" in out
    assert "note: one connection: the shares over connections are that connection's" in out
    doc = json.loads((tmp_path / "s.json").read_text())
    [vegas] = [r for r in doc["summary"]["estimators"] if r["estimator"] == "Vegas"]
    assert vegas["lpa_mean"] is None and vegas["fpa_mean"] == 1.0
    with open(tmp_path / "s.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["kind"] for r in rows] == ["sample"] * 12


def test_a_trace_with_losses_is_scored_and_replayed(tmp_path, capsys):
    path = timeouts_trace().write(tmp_path / "t.pcap")
    code, out, err = run([path, "--json", str(tmp_path / "s.json")], capsys)
    assert code == 0, err
    doc = json.loads((tmp_path / "s.json").read_text())
    [conn] = doc["connections"]
    assert conn["episodes"] == 1 and conn["profile"] == "rfc5681"
    assert doc["summary"]["rto_baseline"]["by_timer"] == 1
    assert doc["summary"]["rto_baseline"]["spurious_timeouts"] == 1
    assert "timer replay ([TCPDEBUG] ch. 4)" in out and "Linux, k = 2" in out


def test_every_column_is_explained_under_its_table_and_in_help(tmp_path, capsys):
    path = timeouts_trace().write(tmp_path / "t.pcap")
    code, out, _ = run([path], capsys)
    assert code == 0
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("estimator "))
    timer = next(i for i, line in enumerate(lines) if line.startswith("setting "))
    estimators = "\n".join(lines[header:timer])
    replay = "\n".join(lines[timer:])
    for column in ("LPA", "LPA=0", "FPA", "no FP", ">=1RTT", "median d(add)", "better", "worse"):
        assert column in lines[header] and f"\n  {column}:" in estimators, column
    for column in ("spur.TO", "wait", "FR", "d mean"):
        assert column in lines[timer] and f"\n  {column}:" in replay, column
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = capsys.readouterr().out
    for column in ("LPA=0:", "no FP:", "median d(add):", "spur.TO:", "d mean:"):
        assert f"\n  {column}" in help_text, column
    assert max(len(line) for line in help_text.splitlines()) <= 80


def test_a_trace_without_rtt_samples_is_an_error_not_a_score(tmp_path, capsys):
    tr = Trace()
    tr.handshake()
    tr.burst(0.2, 0, 12)                    # nothing is ever acknowledged
    code, out, err = run([tr.write(tmp_path / "t.pcap")], capsys)
    assert code == 1 and out == ""
    assert err.startswith("error: ") and "no RTT sample in any connection" in err
    assert len(err.strip().splitlines()) == 1


def test_too_short_a_connection_is_not_scored(tmp_path, capsys):
    tr = Trace()
    fast_retransmit(tr)                     # nine segments: [TCPDEBUG] keeps 10 or more
    code, out, err = run([tr.write(tmp_path / "t.pcap")], capsys)
    assert code == 0 and "nothing to score" in out


@pytest.mark.parametrize("content,message", [(b"", "too short for a pcap global header"),
                                             (b"not a capture at all, long enough " * 2,
                                              "not a libpcap file")])
def test_not_a_capture_is_one_error_line(tmp_path, capsys, content, message):
    path = tmp_path / "x.pcap"
    path.write_bytes(content)
    code, out, err = run([str(path)], capsys)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
