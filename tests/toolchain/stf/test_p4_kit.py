"""Conformance kit: real p4c's JSON for each kit program runs its STF on the embedded target.

The kit (../shared/p4-kit, or $RDTCP_P4KIT) holds JSON produced by real p4c 1.2.4.8 and
STF files whose expected packets real simple_switch 1.15.5 emitted.
"""

import os
from pathlib import Path

import pytest

from toolchain.stf import run_stf

KIT = Path(os.environ.get("RDTCP_P4KIT", Path(__file__).resolve().parents[3] / ".." / "shared" / "p4-kit"))
PROGRAMS = ["lpm_forward", "epdn_option", "flow_hash_register", "parser_select_verify", "action_arith",
            "recirculate_clone", "label_stack"]


@pytest.mark.skipif(not KIT.is_dir(), reason=f"conformance kit not found at {KIT}")
@pytest.mark.parametrize("name", PROGRAMS)
def test_kit_program_passes_its_stf_on_embedded_target(name):
    res = run_stf(KIT / f"{name}.json", KIT / f"{name}.stf")
    assert res.ok, "\n".join(res.failures)
    assert res.targets == ["embedded"]


@pytest.mark.skipif(not KIT.is_dir(), reason=f"conformance kit not found at {KIT}")
def test_kit_lists_every_program():
    assert sorted(PROGRAMS) == sorted(p.stem for p in KIT.glob("*.json"))
