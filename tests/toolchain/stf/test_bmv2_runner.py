"""The STF runner's real-simple_switch path (pcap files, CLI over the control port, output
comparison), exercised against test doubles of simple_switch and simple_switch_CLI."""

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from toolchain.stf import bmv2, run_stf
from toolchain.stf.runner import main

KIT = Path(__file__).resolve().parents[2] / "data" / "p4-kit"
FAKES = Path(__file__).resolve().parent / "fake_bmv2"

pytestmark = pytest.mark.skipif(shutil.which("simple_switch") is not None, reason="real simple_switch installed")


@pytest.fixture
def fake_bmv2(monkeypatch):
    monkeypatch.setenv("PATH", f"{FAKES}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(bmv2, "USE_FILES_DELAY_S", 1)
    monkeypatch.setattr(bmv2, "QUIET_PERIOD_S", 0.5)


@pytest.mark.parametrize("name", ["lpm_forward", "recirculate_clone"])
def test_bmv2_target_runs_the_stf_through_pcap_files_and_the_cli(fake_bmv2, name):
    res = run_stf(KIT / f"{name}.json", KIT / f"{name}.stf", target="bmv2")
    assert res.targets == ["bmv2"] and res.ok, "\n".join(res.failures)


def test_bmv2_target_reports_a_wrong_expectation(fake_bmv2, tmp_path):
    stf = tmp_path / "bad.stf"
    text = (KIT / "lpm_forward.stf").read_text().replace("expect 1 0000000000B1", "expect 1 0000000000B9")
    stf.write_text(text)
    res = run_stf(KIT / "lpm_forward.json", stf, target="all")
    assert res.targets == ["embedded", "bmv2"]
    assert any(f.startswith("[bmv2] line") and "position" in f for f in res.failures)
    assert any(f.startswith("[embedded] line") for f in res.failures)


BROKEN_CLIS = {
    # a CLI that dies in a traceback (here: its Thrift bindings are missing), status 1
    "traceback": ("import sys\n"
                  "sys.stderr.write('Traceback (most recent call last):\\n'\n"
                  "                 '  File \"/usr/bin/simple_switch_CLI\", line 3, in <module>\\n'\n"
                  "                 '    import runtime_CLI\\n'\n"
                  "                 \"ModuleNotFoundError: No module named 'thrift'\\n\")\n"
                  "sys.exit(1)\n",
                  "simple_switch_CLI failed (exit status 1): ModuleNotFoundError: No module named 'thrift'"),
    # one that cannot reach the switch and says so (exit status 1)
    "unreachable": ("import sys\nprint('Could not connect to thrift client on port 9090')\nsys.exit(1)\n",
                    "simple_switch_CLI failed (exit status 1): Could not connect to thrift client on port 9090"),
    # one that prints a traceback but exits 0
    "traceback exit 0": ("import sys\nsys.stderr.write('Traceback (most recent call last):\\n  File \"x\"\\n"
                         "OSError: [Errno 32] Broken pipe\\n')\n",
                         "simple_switch_CLI failed (a traceback): OSError: [Errno 32] Broken pipe"),
}


@pytest.mark.parametrize("kind", list(BROKEN_CLIS))
def test_bmv2_target_reports_a_broken_cli_and_its_first_error(fake_bmv2, tmp_path, monkeypatch, capsys, kind):
    script, message = BROKEN_CLIS[kind]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cli = bin_dir / "simple_switch_CLI"
    cli.write_text(f"#!{sys.executable}\n{script}")
    cli.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    res = run_stf(KIT / "lpm_forward.json", KIT / "lpm_forward.stf", target="bmv2")
    assert res.failures == [f"[bmv2] {message}"]
    assert main([str(KIT / "lpm_forward.json"), str(KIT / "lpm_forward.stf"), "--target", "bmv2"]) == 1
    out = capsys.readouterr().out
    assert f"FAIL [bmv2] {message}" in out and "Expected" not in out


# ---------------------------------------------------------------- children that hang or die
def fake_tool(tmp_path, monkeypatch, name: str, script: str) -> None:
    """``name`` on PATH, ahead of the test doubles, running ``script``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    tool = bin_dir / name
    tool.write_text(f"#!{sys.executable}\n{script}")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def report(capsys, program=KIT / "lpm_forward.json") -> tuple[int, str]:
    rc = main([str(program), str(KIT / "lpm_forward.stf"), "--target", "bmv2"])
    return rc, capsys.readouterr().out


def test_a_hanging_cli_is_killed_and_named(fake_bmv2, tmp_path, monkeypatch, capsys):
    fake_tool(tmp_path, monkeypatch, "simple_switch_CLI",
              "import sys, time\nprint('RuntimeCmd: ', flush=True)\ntime.sleep(3600)\n")
    monkeypatch.setattr(bmv2, "CLI_TIMEOUT_S", 2)
    t0 = time.monotonic()
    rc, out = report(capsys)
    assert rc == 1 and time.monotonic() - t0 < 60
    assert "FAIL [bmv2] simple_switch_CLI did not finish within 2 s (killed); its last line: " \
           "RuntimeCmd:" in out
    assert "Expected" not in out


def test_a_switch_that_exits_is_reported_with_its_status_and_last_lines(
        fake_bmv2, monkeypatch, capsys):
    monkeypatch.setenv("FAKE_BMV2_EXIT", "3")
    rc, out = report(capsys)
    assert rc == 1
    fail = [ln for ln in out.splitlines() if ln.startswith("FAIL [bmv2]")]
    assert fail == ["FAIL [bmv2] simple_switch exited with status 3 during the test; its last "
                    "output line: simple_switch: fatal error in the egress thread; its last log "
                    "line: [00:00:00.000] [bmv2] [I] [thread 1] [E] egress_thread: port 1 went "
                    "away"]
    assert "Expected" not in out


def test_a_switch_that_never_listens_is_killed_after_the_ready_timeout(
        fake_bmv2, tmp_path, monkeypatch, capsys):
    fake_tool(tmp_path, monkeypatch, "simple_switch",
              "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
              "time.sleep(3600)\n")
    monkeypatch.setattr(bmv2, "READY_TIMEOUT_S", 1.0)
    monkeypatch.setattr(bmv2, "STOP_TIMEOUT_S", 1.0)
    t0 = time.monotonic()
    rc, out = report(capsys)
    assert rc == 1 and time.monotonic() - t0 < 30
    assert "FAIL [bmv2] simple_switch did not open its Thrift port" in out
    assert "within 1 s (killed)" in out


def test_a_hanging_compiler_is_killed_and_named(fake_bmv2, tmp_path, monkeypatch, capsys):
    fake_tool(tmp_path, monkeypatch, "p4c-bm2-ss", "import time\ntime.sleep(3600)\n")
    monkeypatch.setattr(bmv2, "COMPILE_TIMEOUT_S", 1.0)
    res = run_stf(KIT / "lpm_forward.p4", KIT / "lpm_forward.stf", target="bmv2")
    assert res.failures == ["[bmv2] p4c-bm2-ss did not finish within 1 s (killed)"]


def test_a_truncated_output_pcap_is_one_line_naming_the_file(fake_bmv2, monkeypatch, capsys):
    monkeypatch.setenv("FAKE_BMV2_TRUNCATE", "1")
    rc, out = report(capsys)
    assert rc == 1 and "Traceback" not in out
    fail = [ln for ln in out.splitlines() if ln.startswith("FAIL [bmv2]")]
    assert fail and all("_out.pcap cannot be read: " in ln for ln in fail), out
    assert "Expected" not in out
