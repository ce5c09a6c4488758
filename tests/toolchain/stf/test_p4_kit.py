"""Conformance kit: real p4c's JSON for each kit program runs its STF on the embedded target.

The kit (tests/data/p4-kit) holds JSON produced by real p4c 1.2.4.8 and
STF files whose expected packets real simple_switch 1.15.5 emitted.
"""

import hashlib
from pathlib import Path

import pytest

from toolchain.stf import run_stf

KIT = Path(__file__).resolve().parents[2] / "data" / "p4-kit"
PROGRAMS = ["lpm_forward", "epdn_option", "flow_hash_register", "parser_select_verify", "action_arith",
            "recirculate_clone", "label_stack"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_kit_program_passes_its_stf_on_embedded_target(name):
    res = run_stf(KIT / f"{name}.json", KIT / f"{name}.stf")
    assert res.ok, "\n".join(res.failures)
    assert res.targets == ["embedded"]


def test_kit_lists_every_program():
    assert sorted(PROGRAMS) == sorted(p.stem for p in KIT.glob("*.json"))


def test_kit_files_are_the_real_tools_outputs_unchanged():
    """SHA256SUMS records the files as real p4c and simple_switch left them: an edit to the
    ground truth (or a lost file) fails here instead of quietly moving the reference."""
    listed = {}
    for line in (KIT / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        listed[name] = digest
    on_disk = {p.name for p in KIT.iterdir()} - {"README.md", "SHA256SUMS"}
    assert on_disk == set(listed)
    for name, digest in listed.items():
        assert hashlib.sha256((KIT / name).read_bytes()).hexdigest() == digest, name
