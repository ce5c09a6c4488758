"""The STF runner's real-simple_switch path (pcap files, CLI over the control port, output
comparison), exercised against test doubles of simple_switch and simple_switch_CLI."""

import os
import shutil
import sys
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
