"""Shared fixtures for the compiler's tests: where the conformance kit and the toolchain's own
P4+STF programs live, and a cache of compiled programs (compiling is the slow part)."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PROGRAMS = REPO / "tests" / "toolchain" / "programs"
KIT = REPO / "tests" / "data" / "p4-kit"
KIT_PROGRAMS = ["lpm_forward", "epdn_option", "flow_hash_register", "parser_select_verify",
                "action_arith", "recirculate_clone", "label_stack"]

_compiled: dict = {}


def compile_cached(path: Path) -> dict:
    """Compile once per session; every caller gets its own copy (consumers may mutate it)."""
    from toolchain.compiler import compile_file
    key = str(path)
    if key not in _compiled:
        _compiled[key] = compile_file(path)
    return copy.deepcopy(_compiled[key])


@pytest.fixture
def kit_dir() -> Path:
    return KIT
