"""python -m analyzer: outputs, and every kind of bad input as one clear error line."""

import csv
import json
import os
import struct
import subprocess
import sys

import pytest

from analyzer.cli import main
from netbase.segment import Segment
from netbase.wire import encode_frame
from netbase.pcap import PcapWriter
from tracekit import GAP, RTT, SER, Trace

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fr_trace(tmp_path, name="t.pcap") -> str:
    """Eight segments, the second lost and resent after three duplicate ACKs."""
    tr = Trace()
    tr.handshake()
    times = tr.burst(0.2, 0, 8)
    base = times[0] + RTT
    tr.ack(base, 1)
    for k in range(1, 4):
        tr.ack(base + k * GAP, 1, sack=[(2, 2 + k)])
    tr.data(base + 3 * GAP + SER, 1)
    tr.ack(base + 3 * GAP + SER + RTT + 0.001, 8)
    return tr.write(tmp_path / name)


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_summary_csv_and_json(tmp_path, capsys):
    trace = fr_trace(tmp_path)
    code, out, err = run([trace, "--csv", str(tmp_path / "s.csv"), "--json",
                          str(tmp_path / "r.json")], capsys)
    assert code == 0 and err == ""
    assert "connection 1: 10.0.1.1:40000 -> 10.0.2.1:5001 (SACK)" in out
    assert "classes (rfc5681): fast retransmit 1, SACK 0, partial ACK 0, RTO 0" in out
    assert "need: needed 1 (explicit 1, implicit 0)" in out
    assert "observed dupthresh: 3 (x1)" in out
    assert "winxp no (" in out and "verdict: rfc5681, rdtcp, linux24" in out
    with open(tmp_path / "s.csv") as f:
        rows = list(csv.DictReader(f))
    assert rows[0].keys() >= {"seq", "tx", "kind", "need", "class_rfc5681", "class_winxp"}
    kinds = [(r["sender"], r["kind"]) for r in rows]
    assert kinds.count(("10.0.1.1:40000", "syn")) == 1        # each side's SYN (SYN-ACK)
    assert kinds.count(("10.0.2.1:5001", "syn")) == 1
    assert kinds.count(("10.0.1.1:40000", "original")) == 8
    [retx] = [r for r in rows if r["kind"] == "retransmission"]
    assert (retx["seq"], retx["tx"], retx["dupacks"], retx["need"]) == ("1001", "2", "3", "needed")
    assert retx["class_rfc5681"] == "fast_retransmit" and retx["acked_by"] == "cum"
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["trace"] == trace and report["vantage"] == "sender"
    [flow] = report["flows"]
    assert flow["profiles"]["rfc5681"]["classes"]["fast_retransmit"] == 1
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(tmp_path / "s.csv").st_mode & 0o777 == 0o666 & ~umask


def test_help_explains_the_tool():
    out = subprocess.run([sys.executable, "-m", "analyzer", "--help"], cwd=REPO,
                         capture_output=True, text=True)
    assert out.returncode == 0
    for text in ("TCPdebug", "--vantage {sender,path}", "--csv F", "--json F", "\nrdtcp: ",
                 "\nwinxp: ", "--rdtcp-k K", "python -m analyzer run/sender.pcap"):
        assert text in out.stdout, text
    assert max(len(line) for line in out.stdout.splitlines()) <= 80


def pcap_with(tmp_path, frames, name="x.pcap", linktype=1) -> str:
    path = str(tmp_path / name)
    with PcapWriter(path, linktype=linktype) as w:
        for t, f in frames:
            w.write(t, f)
    return path


def udp_frame() -> bytes:
    eth = bytes(6) + bytes(5) + b"\x01" + b"\x08\x00"
    ip = struct.pack("!BBHHHBBHII", 0x45, 0, 28, 0, 0, 64, 17, 0, 0x0A000001, 0x0A000002)
    return eth + ip + struct.pack("!HHHH", 53, 53, 8, 0)


def bad_file(tmp_path, kind) -> str:
    path = tmp_path / f"bad-{kind}"
    if kind == "missing":
        return str(path)
    if kind == "directory":
        path.mkdir()
    elif kind == "text":
        path.write_text("this is not a capture at all, but it is long enough\n")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "pcapng":
        path.write_bytes(b"\x0a\x0d\x0d\x0a" + bytes(40))
    elif kind == "truncated":
        data = open(fr_trace(tmp_path), "rb").read()
        path.write_bytes(data[:-30])
    elif kind == "no-tcp":
        return pcap_with(tmp_path, [(0.0, udp_frame()), (0.1, b"\xff" * 6 + bytes(6) +
                                                          b"\x08\x06" + bytes(28))])
    elif kind == "header-only":
        return pcap_with(tmp_path, [])
    elif kind == "raw-ip":
        return pcap_with(tmp_path, [(0.0, bytes(40))], linktype=101)
    return str(path)


@pytest.mark.parametrize("kind,message", [
    ("missing", "no such file"),
    ("directory", "is a directory, not a capture file"),
    ("text", "not a libpcap file"),
    ("empty", "too short for a pcap global header"),
    ("pcapng", "is a pcapng file; convert it with 'editcap -F pcap"),
    ("truncated", "truncated record"),
    ("no-tcp", "no TCP segments in its 2 frames"),
    ("header-only", "no TCP segments in its 0 frames"),
    ("raw-ip", "link type 101 is not Ethernet"),
])
def test_bad_traces_are_one_error_line_and_status_2(tmp_path, capsys, kind, message):
    code, out, err = run([bad_file(tmp_path, kind)], capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_a_failed_analysis_keeps_the_files_it_would_have_replaced(tmp_path, capsys):
    precious = tmp_path / "out.csv"
    precious.write_text("results of last week\n")
    code, _, err = run([bad_file(tmp_path, "truncated"), "--csv", str(precious), "--json",
                        str(tmp_path / "new.json")], capsys)
    assert code == 2 and "truncated" in err
    assert precious.read_text() == "results of last week\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad-truncated", "out.csv", "t.pcap"]


@pytest.mark.parametrize("argv,message", [
    (["--csv", "{trace}"], "is the trace itself: it would be overwritten"),
    (["--csv", "{tmp}/same", "--json", "{tmp}/same"], "--csv and --json name the same file"),
    (["--json", "{tmp}/no/such/dir/r.json"], "does not exist"),
    (["--csv", "{tmp}"], "is a directory"),
])
def test_bad_outputs_are_refused_before_any_work(tmp_path, capsys, argv, message):
    trace = fr_trace(tmp_path)
    before = open(trace, "rb").read()
    argv = [a.format(trace=trace, tmp=tmp_path) for a in argv]
    code, out, err = run([trace] + argv, capsys)
    assert code == 2 and out == "" and err.startswith("error: ") and message in err
    assert open(trace, "rb").read() == before


@pytest.mark.parametrize("argv,message", [
    (["--vantage", "middle"], "invalid choice: 'middle'"),
    (["--profiles", "rfc5681,beos"], "unknown profile beos"),
    (["--rdtcp-k", "-1"], "must be >= 0"),
])
def test_bad_options_are_usage_errors(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main([fr_trace(tmp_path)] + argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_malformed_frames_are_counted_skipped_and_reported(tmp_path, capsys):
    good = open(fr_trace(tmp_path), "rb").read()
    seg = Segment(1, 2, 3, 4, 0x10, 100, (), b"x" * 10)
    frame = encode_frame(seg, src_ip="10.9.9.9", dst_ip="10.9.9.8")
    cut = frame[:40]                                   # TCP header cut short
    bad_len = frame[:16] + b"\x09\x99" + frame[18:]     # IPv4 total length beyond the frame
    path = tmp_path / "mixed.pcap"
    with PcapWriter(str(path)) as w:
        w.write(0.0, cut)
        w.write(0.0, bad_len)
    # the good trace's records appended after the bad ones (same header format)
    path.write_bytes(path.read_bytes() + good[24:])
    code, out, err = run([str(path)], capsys)
    assert code == 0 and "2 malformed" in out
    assert err.startswith("warning: skipped 2 malformed frame(s): frame 1: ")
    assert "IPv4 total length 2457" in err and "fast retransmit 1" in out


def test_frames_out_of_time_order_are_reported(tmp_path, capsys):
    tr = Trace()
    tr.handshake()
    tr.data(0.3, 0)
    path = tmp_path / "o.pcap"
    with PcapWriter(str(path)) as w:
        for t, _, f in tr.frames[::-1]:
            w.write(t, f)
    code, out, err = run([str(path)], capsys)
    assert code == 0 and "earlier than the frame before them" in err


def test_module_entry_point_runs(tmp_path):
    out = subprocess.run([sys.executable, "-m", "analyzer", fr_trace(tmp_path)], cwd=REPO,
                         capture_output=True, text=True)
    assert out.returncode == 0 and "verdict:" in out.stdout


PYPY = "/usr/bin/pypy3"


@pytest.mark.skipif(not os.path.exists(PYPY), reason="no PyPy here")
def test_pypy_gives_the_same_report(tmp_path):
    """The package runs on Python 3.9 (PyPy, about five times faster on long traces) and
    reports exactly what CPython reports."""
    trace = fr_trace(tmp_path)
    outs = {}
    for name, exe in (("cpython", sys.executable), ("pypy", PYPY)):
        out = subprocess.run([exe, "-m", "analyzer", trace, "--json", str(tmp_path / name),
                              "--csv", str(tmp_path / f"{name}.csv")], cwd=REPO,
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        outs[name] = (json.loads((tmp_path / name).read_text()),
                      (tmp_path / f"{name}.csv").read_text())
    assert outs["pypy"] == outs["cpython"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_an_output_that_cannot_be_written_is_an_error_line(tmp_path, capsys, monkeypatch):
    """A full disk while the CSV is written: one error line, status 2, nothing left behind."""
    import analyzer.cli as cli
    real = cli._Output.__init__

    def on_a_full_disk(self, path):
        real(self, path)
        self.file.close()
        self.file = open("/dev/full", "w")      # every flush fails with ENOSPC
    monkeypatch.setattr(cli._Output, "__init__", on_a_full_disk)
    code, out, err = run([fr_trace(tmp_path), "--csv", str(tmp_path / "s.csv")], capsys)
    assert code == 2 and err.startswith("error: ") and "No space left on device" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.pcap"]


def test_the_reports_grow_with_what_they_say_not_with_the_profiles(tmp_path, capsys):
    """A flow with nothing out of sequence is a line of the --json and three of the text;
    the JSON holds every flow, the text every flow too, after the trace's line."""
    from test_analyzer_memory import two_packet_frames
    path = pcap_with(tmp_path, list(two_packet_frames(300)), name="quiet.pcap")
    code, out, err = run([path, "--json", str(tmp_path / "r.json")], capsys)
    assert code == 0 and err == ""
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["flows_reported"] == len(report["flows"]) == 300
    assert all("profiles" not in f and f["verdict"]["kind"] == "no-evidence"
               for f in report["flows"])
    assert (tmp_path / "r.json").stat().st_size < 300 * 1000
    lines = out.splitlines()
    assert lines[0].startswith(f"trace {path}: 600 frames") and len(lines) == 1 + 300 * 4 + 1
