"""Live runs on simple_switch (``--switch simple_switch --switch-binary PATH``): anything with
simple_switch's command line and Thrift API is the gateway, ready when it answers Thrift
calls, its links delayed by stages since it cannot delay its own ports. Covered with
rdtcp-switch standing in as the binary, so no BMv2 install is needed (on a machine with
BMv2, ``--switch-binary $(which simple_switch)`` runs the same test on it:
RDTCP_SIMPLE_SWITCH=path)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from live import network as ln
from tests.live import plausible_handshake_rtt
from tests.live.test_live_netns import leftovers, live_run

ROOT = Path(__file__).resolve().parents[2]


def stand_in() -> str:
    """The binary playing simple_switch: RDTCP_SIMPLE_SWITCH, else rdtcp-switch."""
    chosen = os.environ.get("RDTCP_SIMPLE_SWITCH")
    if chosen:
        return chosen
    found = shutil.which("rdtcp-switch") or str(Path(sys.executable).parent / "rdtcp-switch")
    assert os.access(found, os.X_OK), "rdtcp-switch is installed with the project (make deps)"
    return found


def test_simple_switchs_command_line_has_no_options_of_ours():
    from topologies import PaperTopo
    plan = ln.LivePlan.from_topo(PaperTopo())
    argv = plan.simple_switch_argv("r2", {1: "if1", 2: "if2"}, "x.json",
                                   binary="/usr/bin/simple_switch", thrift_port=9099,
                                   pcap_dir="p/")
    assert argv == ["/usr/bin/simple_switch", "-i", "1@if1", "-i", "2@if2", "--thrift-port",
                    "9099", "--device-id", "1", "--pcap", "p/", "x.json"]


@pytest.mark.parametrize("argv, words", [
    (["--switch-binary", "/x/simple_switch"], "give --switch simple_switch"),
    (["--switch", "bmv3"], "invalid choice"),
])
def test_switch_options_are_checked(argv, words, capsys):
    from experiments import live_run
    with pytest.raises(SystemExit) as e:
        live_run.parse_args(argv)
    assert e.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.parametrize("argv, words", [
    (["--switch", "simple_switch", "--switch-binary", "/nonexistent/simple_switch"],
     "switch binary '/nonexistent/simple_switch' not found"),
    (["--cli", "/nonexistent/simple_switch_CLI"],
     "switch CLI '/nonexistent/simple_switch_CLI' not found"),
])
def test_a_missing_switch_or_cli_is_named_before_anything_is_built(netns_ok, argv, words,
                                                                   tmp_path, capsys):
    from experiments import live_run
    assert live_run.main([*argv, "--duration", "1", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err
    assert leftovers(os.getpid()) == [] and not (tmp_path / "o").exists()


def test_a_simple_switch_run_delays_every_link_by_stages_and_is_configured_over_thrift(
        netns_ok, tmp_path):
    binary = stand_in()
    doc = live_run(tmp_path, "--switch", "simple_switch", "--switch-binary", binary,
                   "--variant", "rdtcp", "--duration", "4", "--backend", "netns",
                   "--drop", "0.02")
    assert doc["ok"] and doc["pattern_ok"] and doc["switch"] == "simple_switch"
    assert doc["switch_binary"] == binary
    # simple_switch has no --port-delay: every delayed link is a stage's
    assert set(doc["link_delay"].values()) <= {"relay", "netem"}
    assert len(doc["link_delay"]) == 3
    assert plausible_handshake_rtt(doc["handshake_rtt_s"])
    # the controller's configuration reached both gateways over Thrift
    assert doc["r1_drops_random"] > 0 and doc["r1_epdn_events_stamp"] > 0
    assert doc["epdn_stamps"] > 0 and doc["retransmits"] >= doc["r1_drops_random"]
    log = (tmp_path / "out" / "logs" / "r1.log").read_text()
    assert "--port-delay" not in log and "Adding interface" in log


def test_a_switch_binary_that_never_answers_thrift_is_named(netns_ok, tmp_path):
    """Anything that is not a switch (here: a program that exits at once on simple_switch's
    options): the run stops before any host starts, names it, and leaves nothing behind."""
    from experiments import live_run
    status = live_run.main(["--switch", "simple_switch", "--switch-binary", "/bin/false",
                            "--duration", "1", "--backend", "netns",
                            "--out", str(tmp_path / "o")])
    assert status == 1
    assert leftovers(os.getpid()) == []
