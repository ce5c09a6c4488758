"""The STF runner's real-simple_switch path (pcap files, CLI over the control port, output
comparison), exercised against test doubles of simple_switch and simple_switch_CLI."""

import os
import shutil
from pathlib import Path

import pytest

from toolchain.stf import bmv2, run_stf

KIT = Path(os.environ.get("RDTCP_P4KIT", Path(__file__).resolve().parents[3] / ".." / "shared" / "p4-kit"))
FAKES = Path(__file__).resolve().parent / "fake_bmv2"

pytestmark = [pytest.mark.skipif(not KIT.is_dir(), reason="conformance kit not found"),
              pytest.mark.skipif(shutil.which("simple_switch") is not None, reason="real simple_switch installed")]


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
