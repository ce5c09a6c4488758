"""The toolchain's own P4+STF pairs (tests/toolchain/programs): each program compiled by our
front end runs its STF on the embedded target. Expected packets in the STF files were computed
from the P4_16 specification's semantics, independently of either half of the toolchain."""
from __future__ import annotations

import json

import pytest

from .conftest import PROGRAMS, compile_cached

PAIRS = sorted(p.stem for p in PROGRAMS.glob("*.p4") if p.with_suffix(".stf").exists())


@pytest.mark.parametrize("name", PAIRS)
def test_program_stf_passes(name, tmp_path):
    from toolchain.stf.runner import run_stf
    doc = compile_cached(PROGRAMS / f"{name}.p4")
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    result = run_stf(str(path), str(PROGRAMS / f"{name}.stf"), target="embedded")
    assert result.ok, "\n".join(result.failures)
