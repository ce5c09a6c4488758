"""Every command-line tool over hostile input files: binary, non-UTF-8, numbers of 100,000
digits, 100,000 levels of nesting, empty. Whatever the file, a tool ends within a minute with
no traceback; when it refuses the file, with exit status 1 or 2 and a one-line error (the
compiler's diagnostics may add p4c's source line and caret under it).

The files are made in each tool's own format where one exists (JSON, TOML, P4, STF,
simple_switch_CLI commands, pcap), so that a tool's reader gets past its first check and
meets the hostile part: a huge number where the format has numbers, deep nesting where it
nests."""

from __future__ import annotations

import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KIT = ROOT / "tests" / "data" / "p4-kit"
GOOD_JSON = KIT / "lpm_forward.json"
GOOD_STF = KIT / "lpm_forward.stf"
BIN = Path(sys.executable).parent
DIGITS = "1" * 100_000
DEEP = 100_000
RUN_TIMEOUT = 60

COMMON = {
    "empty": b"",
    "binary": bytes(range(256)) * 16,                       # NUL and every other byte
    "non-utf8": b"\xff\xfe r\xe9seau \xc3(\n",
}
# the hostile parts in each format: (name, bytes)
FORMATS = {
    "json": [("huge-number", ('{"max_ports": %s, "register_arrays": [{"name": "r", "id": 0, '
                              '"size": %s, "bitwidth": 8}]}' % (DIGITS, DIGITS)).encode()),
             ("deep-array", b"[" * DEEP + b"]" * DEEP),
             ("deep-object", b'{"a":' * DEEP + b"1" + b"}" * DEEP),
             ("huge-float", b'{"max_ports": 1e999999, "size": -1e400}')],
    "toml": [("huge-number", f"max_ports = {DIGITS}\n".encode()),
             ("deep-array", b"a = " + b"[" * DEEP + b"]" * DEEP + b"\n"),
             ("deep-table", b"a = " + b"{b = " * DEEP + b"1" + b"}" * DEEP + b"\n")],
    "p4": [("huge-number", f"const bit<8> X = {DIGITS};\n".encode()),
           ("huge-width", f"const bit<{DIGITS}> X = 1;\n".encode()),
           ("deep-parens", b"const bit<8> X = " + b"(" * DEEP + b"1" + b")" * DEEP + b";\n"),
           ("deep-blocks", b"control C() { apply " + b"{" * DEEP + b"}" * DEEP + b" }\n")],
    "stf": [("huge-number", f"packet {DIGITS} 00\nexpect {DIGITS} 00\n".encode()),
            ("huge-data", f"packet 0 {DIGITS}\nexpect 0 {DIGITS}$\n".encode()),
            ("huge-key", (f"add KitIngress.ipv4_lpm hdr.ipv4.dstAddr:{DIGITS} "
                          f"KitIngress.forward(port:{DIGITS}, mac:1)\n").encode()),
            ("deep-parens", b"check_counter c" + b"(" * DEEP + b"1" + b")" * DEEP + b" == 1\n")],
    "commands": [("huge-number", (f"register_write KitIngress.r 0 {DIGITS}\n"
                                  f"set_queue_depth {DIGITS}\nmirroring_add {DIGITS} 1\n"
                                  f"table_add KitIngress.ipv4_lpm KitIngress.forward "
                                  f"10.0.1.0/24 => {DIGITS} 1\n").encode()),
                 ("deep-nesting", b"table_add " + b"[" * DEEP + b"\n")],
    "pcap": [("huge-snaplen", struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 0xFFFFFFFF, 1)
              + struct.pack("<IIII", 0, 0, 0xFFFFFFF0, 0xFFFFFFF0)),
             ("truncated-record", struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
              + struct.pack("<IIII", 0, 0, 60, 60) + bytes(20)),
             ("huge-timestamps", struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
              + struct.pack("<IIII", 0xFFFFFFFF, 0xFFFFFFFF, 14, 14) + bytes(14))],
}
SUFFIX = {"json": ".json", "toml": ".toml", "p4": ".p4", "stf": ".stf", "commands": ".txt",
          "pcap": ".pcap"}


def hostile_files(directory: Path, fmt: str) -> list[Path]:
    out = []
    for name, data in [*COMMON.items(), *FORMATS[fmt]]:
        path = directory / f"{name}{SUFFIX[fmt]}"
        path.write_bytes(data)
        out.append(path)
    return out


def good_pcap(directory: Path) -> Path:
    from netbase.pcap import PcapWriter
    path = directory / "good.pcap"
    w = PcapWriter(str(path))
    w.write(1.0, bytes(60))
    w.close()
    return path


def script(name: str) -> list[str]:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{path} not installed (make deps)")
    return [str(path)]


def module(name: str) -> list[str]:
    return [sys.executable, "-m", name]


# tool -> (format of the hostile file, argv around it: "{}" is the hostile file); the
# compiler's diagnostics carry p4c's source line and caret
def tool_cases(tmp: Path) -> list[tuple[str, list[str]]]:
    pcap, out = good_pcap(tmp), tmp / "out"
    cfg = tmp / "good-config.json"
    cfg.write_text('{"max_ports": 8}')
    return [
        ("json", [*module("controller"), "{}", "--print"]),
        ("toml", [*module("controller"), "{}", "--print"]),
        ("json", [*module("controller"), str(cfg), "--program", "{}", "--print"]),
        ("json", [*script("rdtcp-switch"), "--thrift-port", "0", "{}"]),
        ("json", [*module("toolchain.switch.replay"), "{}", str(pcap), "-o", str(out)]),
        ("pcap", [*module("toolchain.switch.replay"), str(GOOD_JSON), "{}", "-o", str(out)]),
        ("commands", [*module("toolchain.switch.replay"), str(GOOD_JSON), str(pcap), "-c", "{}",
                      "-o", str(out)]),
        ("json", [*script("rdtcp-stf"), "{}", str(GOOD_STF)]),
        ("stf", [*script("rdtcp-stf"), str(GOOD_JSON), "{}"]),
        ("p4", [*script("rdtcp-stf"), "{}", str(GOOD_STF)]),
        ("p4", [*script("rdtcp-p4c"), "{}", "-o", str(tmp / "prog.json")]),
        ("p4", [*module("toolchain.compiler.frontend"), "{}"]),
        ("json", [*module("toolchain.compiler.backend.bmv2_schema"), "{}"]),
        ("pcap", [*script("rdtcp-analyze"), "{}"]),
    ]


def run(argv: list[str]) -> tuple[list[str], int | None, str]:
    try:
        r = subprocess.run(argv, cwd=ROOT, capture_output=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return argv, None, ""
    return argv, r.returncode, (r.stdout + r.stderr).decode("utf-8", "replace")


def verdict(argv: list[str], rc: int | None, output: str) -> str | None:
    """What is wrong with one run, or None."""
    shown = " ".join(Path(a).name if "/" in a else a for a in argv)
    if rc is None:
        return f"{shown}: still running after {RUN_TIMEOUT} s"
    if "Traceback" in output:
        tail = [ln for ln in output.splitlines() if ln.strip()][-1:]
        return f"{shown}: traceback ({tail[0][:200] if tail else ''})"
    if rc not in (0, 1, 2):
        return f"{shown}: exit status {rc}"
    if rc:
        # a test report (rdtcp-stf's FAIL lines) is no error message; warnings come before
        lines = [ln for ln in output.splitlines()
                 if ln.strip() and not ln.startswith("warning:")]
        # one line; p4c's diagnostics add the source line and a caret; a checker that lists
        # several errors puts each on a line of its own, after the file's name
        diagnostic = bool(lines) and ": error: " in lines[0] and len(lines) <= 3
        listing = bool(lines) and all(ln.startswith(lines[0].split(": ")[0] + ": ")
                                      for ln in lines)
        if not (len(lines) == 1 or diagnostic or listing or "FAIL" in output):
            return f"{shown}: exit {rc} without a one-line error: {lines[:6]}"
    return None


def test_every_command_line_tool_refuses_hostile_files_in_one_line(tmp_path):
    cases = []
    for fmt, argv in tool_cases(tmp_path):
        d = tmp_path / fmt
        d.mkdir(exist_ok=True)
        for f in hostile_files(d, fmt):
            cases.append([str(f) if a == "{}" else a for a in argv])
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, cases))
    problems = [p for p in (verdict(*r) for r in results) if p]
    assert not problems, "\n".join(problems)
    assert len(results) == 93


@pytest.mark.parametrize("argv, output, problem", [
    (["rdtcp-switch", "x.json"], "Traceback (most recent call last):\n  ...\nValueError: x", "traceback"),
    (["rdtcp-switch", "x.json"], "", "without a one-line error"),
    (["rdtcp-switch", "x.json"], "error: a\n  more\n", "without a one-line error"),
    (["bmv2_schema", "x.json"], "x.json: a\nx.json: b\n", None),
    (["rdtcp-switch", "x.json"], "error: x.json: not UTF-8 text\n", None),
    (["rdtcp-p4c", "x.p4"], "x.p4:1:5: error: bad\n  source\n  ^\n", None),
])
def test_the_verdict_catches_tracebacks_and_wordy_errors(argv, output, problem):
    got = verdict(argv, 1, output)
    assert (got is None) if problem is None else (problem in got)
