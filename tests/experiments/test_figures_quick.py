"""The issue's shape check on a quick run: SACK falls as swaps rise; RD-TCP stays within 1% of its
own no-reordering throughput across the paper's reordering levels."""

import pytest

from experiments.rdtcp_figures import main

pytest.importorskip("toolchain.target")
pytest.importorskip("hosts.wire", reason="the host TCP stack (hosts.wire, hosts.tcp) is not in this checkout yet")


@pytest.mark.timeout(900)
def test_quick_run_sack_falls_and_rdtcp_stays_within_1pct(tmp_path):
    import json
    status = main(["--mode", "quick", "--jobs", "2", "--out", str(tmp_path), "--seeds", "1",
                   "--variants", "sack,rdtcp", "--swaps", "0,15,30", "--interval", "1",
                   "--no-progress"])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert status == 0 and summary["failed_runs"] == 0
    checks = summary["checks"]
    assert checks["sack_falls_interval_1s"], summary["points"]
    assert checks["rdtcp_within_1pct"], summary["points"]
    assert (tmp_path / "fig3_sack_vs_rdtcp.png").exists()
