"""experiments.ns2_runs: a RunSpec written as an ns-2 script, run in ns-2 and, on the same
network, by the engine (experiments/ns2/scenario.py, tcl.py, runs.py)."""

from __future__ import annotations

import json
import re

import pytest

from experiments.ns2 import runs as runs_module
from experiments.ns2.install import Ns2Error, missing
from experiments.ns2.runs import run_ns2, run_ours
from experiments.ns2.scenario import (CLASSES, Inexpressible, describe, delay_classes,
                                      swap_classes)
from experiments.ns2.tcl import script
from experiments.ns2_runs import main
from experiments.runner.spec import RunSpec
from experiments.studies import frto  # noqa: F401  (registers frto-delay, a scenario ns-2 has no script of)
from sim.delays import normal

NO_NS = missing(live=True)


@pytest.mark.parametrize("spec, what", [
    (RunSpec("rdtcp"), "variant 'rdtcp': ns-2 2.35 has no such sender"),
    (RunSpec("sack", injection="altpath", level=0.1), "injection 'altpath' is the P4 gateway's"),
    (RunSpec("sack", legacy="r1"), "legacy routers and R2's drops"),
    (RunSpec("sack", scenario="rrtcp", bursts=0.01), "drop bursts"),
    (RunSpec("sack", swaps=15, swap_span=3), "swap_span bounds a swap's pair"),
    (RunSpec("sack", scenario="netreno-sim"), "[NETRENO] §7.1 runs five senders"),
    (RunSpec("sack", scenario="frto-delay"), "has no ns-2 script here"),
])
def test_what_ns2_cannot_express_is_refused_in_one_line(spec, what):
    with pytest.raises(Inexpressible, match=re.escape(what)) as exc:
        describe(spec)
    assert "\n" not in str(exc.value)


def test_the_script_of_003s_dumbbell():
    text = script(describe(RunSpec("sack", duration=600)))
    assert script(describe(RunSpec("sack", duration=600))) == text      # deterministic
    for line in ("$ns duplex-link $n(r1) $n(r2) 5000000.0 0.05 DropTail",
                 "$ns queue-limit $n(r1) $n(r2) 65", "set tcp [new Agent/TCP/Sack1]",
                 "$tcp set window_ 500", "$tcp set packetSize_ 1460",
                 "set sink [new Agent/TCPSink/Sack1]", '$ns at 600.0 "finish"'):
        assert line in text.splitlines()
    assert "ErrorModel" not in text                 # nothing reordered, nothing dropped


def test_swaps_become_queue_following_holdbacks():
    run = describe(RunSpec("sack", swaps=15, interval=1.0))
    hb = run.holdback
    assert hb.rate == pytest.approx(15 * 1500 * 8 / 5e6)       # 15 per second of packet times
    assert hb.classes(1) == () and len(hb.classes(10)) == CLASSES
    assert swap_classes(65) == (3, 7, 11, 16, 22, 28, 36, 48)   # a full queue's displacements
    assert swap_classes(3) == (1,) * CLASSES                     # two waiting: one place
    text = script(run)
    assert "proc holdback_follow {k} {" in text and "set hbd(65) {" in text


def test_000s_delays_are_error_models_after_the_link():
    run = describe(RunSpec("sack", scenario="rrtcp", injection="delay", level=0.04,
                           delay="normal:0.1,0.033", ack_level=0.3, drop=0.005, path_delay=0.2,
                           max_cwnd_segments=50))
    data = [i for i in run.impairments if i.what == "reordering"]
    acks = [i for i in run.impairments if i.what == "ack reordering"]
    drops = [i for i in run.impairments if i.what == "drops"]
    assert len(data) == len(acks) == CLASSES and len(drops) == 1
    assert all(i.where == "after" for i in data + acks) and drops[0].where == "head"
    # each class takes level/CLASSES of the packets: the chain's hits add up to the level
    left, hit = 1.0, 0.0
    for i in data:
        hit += left * i.rate
        left *= 1 - i.rate
    assert hit == pytest.approx(0.04, rel=0.02)
    assert sorted(i.delay for i in data) == list(delay_classes(normal(0.1, 0.033)))
    assert abs(sum(delay_classes(normal(0.1, 0.033))) / CLASSES - 0.1) < 0.002
    assert run.agent.params["minrto_"] == 1.0 and run.agent.params["window_"] == 50


def test_a_missing_ns_is_named_with_the_script(tmp_path, monkeypatch):
    monkeypatch.setattr(runs_module, "ns_binary", lambda: None)
    with pytest.raises(Ns2Error, match=r"ns-2 is not installed .*; script: .*\.tcl"):
        run_ns2(describe(RunSpec("sack", duration=1)), tmp_path)
    assert list(tmp_path.glob("*.tcl"))


@pytest.mark.skipif(NO_NS is not None, reason=NO_NS or "")
def test_a_tcl_error_is_named_and_no_rows_are_written(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runs_module, "script", lambda run, **_: "set x [no_such_command]\n")
    assert main(["--variant", "sack", "--duration", "1", "--engine", "ns2",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "error: ns failed (status 1):" in err and "no_such_command" in err
    assert "script: " in err and not (tmp_path / "rows.json").exists()


@pytest.mark.skipif(NO_NS is not None, reason=NO_NS or "")
def test_ns2_on_003s_dumbbell_gives_606815_bytes_per_second_acknowledged(tmp_path):
    """Agent/TCP/Sack1 over 600 s of [RDTCP]'s dumbbell, run as a new user would (2.35's
    defaults, window_ 500, packetSize_ 1460): what the sender saw acknowledged, per second."""
    row = run_ns2(describe(RunSpec("sack", duration=600)), tmp_path)
    assert round(row["acked_bytes"] / 600) == 606_815
    assert row["delivered_bytes"] >= row["acked_bytes"] and row["engine"] == "ns2"


@pytest.mark.skipif(NO_NS is not None, reason=NO_NS or "")
def test_both_engines_run_the_same_scenario_and_write_rows(tmp_path, capsys):
    assert main(["--variant", "sack", "--swaps", "15", "--duration", "8", "--out",
                 str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "rows.json").read_text())
    assert [r["engine"] for r in rows] == ["ns2", "engine-nsnet"]
    assert all(r["swaps"] == 15 and r["throughput_Bps"] > 100_000 for r in rows)
    assert "hold-backs before R1's queue" in rows[0]["mechanisms"]
    assert (tmp_path / "rows.csv").read_text().startswith("variant,")
    assert "rdtcp, sack, 15 swaps/1 s: ns2 " in capsys.readouterr().out


def test_the_engine_runs_the_holdbacks_it_is_given():
    plain = run_ours(describe(RunSpec("sack", duration=15)))
    swapped = run_ours(describe(RunSpec("sack", swaps=60, duration=15)))
    # held-back packets draw false fast retransmits: more of them, less throughput (without
    # reordering the only ones are slow start's overshoot)
    assert swapped["fast_retransmits"] > plain["fast_retransmits"]
    assert swapped["throughput_Bps"] < 0.9 * plain["throughput_Bps"]


def test_bad_input_exits_2_before_anything_runs(tmp_path, capsys):
    assert main(["--variant", "dsack", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("error: variant 'dsack': ns-2 2.35 has no")
    assert main(["--scenario", "netreno-lab", "--variant", "reno", "--out", str(tmp_path)]) == 2
    assert "RED is not in sim.nsnet: give --engine ns2" in capsys.readouterr().err
    assert main(["--level", "2", "--out", str(tmp_path)]) == 2
    assert "level a probability" in capsys.readouterr().err
    assert not (tmp_path / "rows.json").exists()
