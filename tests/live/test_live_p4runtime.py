"""Live runs configured over P4Runtime (``--control p4runtime``): the gateways are rdtcp-switch
processes with their P4Runtime server on; the controller installs the P4Info and JSON and
writes the gateway config through ``P4RuntimeDriver`` (queue settings over Thrift)."""
from __future__ import annotations

import json
import os

import pytest

from live import network as tl

from .test_live_netns import leftovers, ROOT


@pytest.fixture(scope="module")
def built(gateway):
    """build/rdtcp.json (compiled if stale) and its P4Info, written again if older."""
    path, _ = gateway
    tl.p4info_path(path)
    return ROOT / "build"


def test_missing_p4info_is_said_before_any_namespace(tmp_path):
    js = tmp_path / "prog.json"
    js.write_text("{}")
    with pytest.raises(tl.LiveError, match="prog.p4info.txt.*--p4runtime-files"):
        tl.p4info_path(str(js))
    (tmp_path / "prog.p4info.txt").write_text("")
    assert tl.p4info_path(str(js)) == tmp_path / "prog.p4info.txt"


def test_p4runtime_control_refuses_a_cli(built):
    from live.plan import LivePlan  # noqa: F401 - the plan is not built: the check comes first
    with pytest.raises(tl.LiveError, match="not with --control p4runtime"):
        tl.LiveNetwork(None, program_path=str(built / "rdtcp.json"), cli="simple_switch_CLI",
                       control="p4runtime")


def test_live_run_configured_over_p4runtime(netns_ok, built, tmp_path):
    from experiments import live_run as lr
    out = tmp_path / "out"
    status = lr.main(["--variant", "rdtcp", "--duration", "3", "--backend", "netns",
                      "--control", "p4runtime", "--out", str(out)])
    doc = json.loads((out / "run.json").read_text())
    assert status == 0 and doc["ok"] and doc["pattern_ok"]
    assert doc["control"] == "p4runtime"
    assert doc["delivered_bytes"] == doc["sender"]["bytes"] > 0
    # the config written over P4Runtime ran: r1's 65-packet buffer drops, EPDN stamps them
    assert doc["retransmits"] >= doc["r1_drops_buffer"] > 0 and doc["r2_drops_buffer"] == 0
    assert "P4Runtime server was started on" in (out / "logs" / "r1.log").read_text()
    assert leftovers(os.getpid()) == []
