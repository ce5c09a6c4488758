"""`make check`: a smoke test of every part in under two minutes, as Mininet's ``pingall`` or
ns-3's ``test.py --fast``: the gateway compiled by rdtcp-p4c and loaded by the switch, one STF
program of the conformance kit, one PTF group on the switch process (root: a network
namespace), and one short simulated run of each paper the lab reproduces. ``make test`` runs
them too; the full checks of each part are in its own tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "tests" / "data" / "p4-kit"
EXIT_SKIP = 77                  # ptf-tests/run_ptf.py: not root, no ip netns


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    """The gateway compiled by rdtcp-p4c (the command line) into a fresh folder, loaded."""
    from toolchain.switch import load_program
    out = tmp_path_factory.mktemp("gateway") / "rdtcp.json"
    done = subprocess.run([sys.executable, "-m", "toolchain.compiler.driver",
                           str(ROOT / "p4src" / "rdtcp.p4"), "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return out, load_program(out)


def test_the_gateway_compiles_and_loads(program):
    path, loaded = program
    doc = json.loads(path.read_text())
    assert {"MyIngress.ipv4_lpm", "MyIngress.l2_forward"} <= {
        t["name"] for p in doc["pipelines"] for t in p["tables"]}
    assert loaded is not None


def test_one_stf_program():
    from toolchain.stf.runner import run_stf
    result = run_stf(str(KIT / "lpm_forward.json"), str(KIT / "lpm_forward.stf"))
    assert result.ok and result.targets == ["embedded"], result.failures


@pytest.mark.serial             # a network namespace with veths (root)
@pytest.mark.timeout(300)
def test_one_ptf_group_on_the_switch_process(program):
    path, _ = program
    done = subprocess.run([sys.executable, str(ROOT / "ptf-tests" / "run_ptf.py"),
                           "--json", str(path), "--ready-timeout", "120", "impair"],
                          cwd=ROOT, capture_output=True,
                          text=True, timeout=280)
    output = done.stdout + done.stderr
    if done.returncode == EXIT_SKIP:
        pytest.skip(next((line for line in output.splitlines() if "SKIP" in line), output))
    assert done.returncode == 0, output[-4000:]
    assert "embedded: ptf exit status 0" in output


STUDIES = ("rdtcp", "rrtcp", "frto", "netreno", "dbce")


def run(spec: dict, program):
    """The run ``spec`` names, by the function its study registered (each study's scenario
    module registers its scenarios when imported: before the RunSpec is made, which checks
    its scenario's name)."""
    import importlib
    from experiments.runner.pool import runner_for
    from experiments.runner.spec import RunSpec
    for study in STUDIES:
        importlib.import_module(f"experiments.studies.{study}.scenario")
    run_spec = RunSpec(**spec)
    return runner_for(run_spec)(run_spec, program).row()


@pytest.mark.parametrize("paper, spec, check", [
    # [RDTCP]: RD-TCP under the paper's queue swaps: every drop at R1 reaches B as a stamp
    ("RDTCP", dict(variant="rdtcp", swaps=15, duration=5.0),
     lambda r: r["rcv_epdn_stamps"] == r["r1_epdn_events_stamp"] > 0
     and r["throughput_Bps"] > 400_000),
    # [RRTCP]: RR-TCP over [RRTCP]'s path with delayed packets, undoing false fast retransmits
    ("RRTCP", dict(variant="rrtcp", scenario="rrtcp", max_cwnd_segments=50, injection="delay",
                   level=0.05, duration=10.0),
     lambda r: r["dsack_undos"] > 0 and r["delivered_bytes"] > 0),
    # [FRTO]: F-RTO's 100 KB transfer through delay spikes, spurious timeouts detected
    ("FRTO", dict(variant="frto", scenario="frto-delay", level=0.02, seed=2, duration=900.0),
     lambda r: r["completed"] and r["spurious_timeouts_undone"] > 0),
    # [NETRENO]: Net Reno through RED in the gateway, on [NETRENO]'s lab network
    ("NETRENO", dict(variant="netreno", scenario="netreno-lab", duration=5.0),
     lambda r: r["delivered_bytes"] > 0),
    # [TCPDEBUG]: connections captured, analysed as TCPdebug does and scored ([TCPDEBUG] ch. 3-5)
    ("TCPDEBUG", dict(variant="sack", scenario="dbce-dumbbell", duration=10.0),
     lambda r: r["analysed"] == r["planned"] > 0 and len(r["connections"]) > 0),
])
def test_one_short_run_of_each_paper(program, paper, spec, check):
    row = run(spec, program[1])
    assert "error" not in row, row.get("error")
    assert check(row), {k: v for k, v in row.items() if not k.startswith("_")}
