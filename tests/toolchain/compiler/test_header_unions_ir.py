"""The mid end records header unions for the back end (JSON_format.md "header_union_types",
"header_unions"); packets are pinned by tests/toolchain/programs/header_unions.{p4,stf}."""
from __future__ import annotations

from pathlib import Path

from toolchain.compiler.diagnostics import Diagnostics
from toolchain.compiler.frontend import parse_and_check
from toolchain.compiler.midend import run_midend

from .conftest import PROGRAMS


def test_header_union_recorded_in_ir_with_member_instances():
    path = PROGRAMS / "header_unions.p4"
    program, _ = parse_and_check(path)
    out = run_midend(program, Diagnostics(), Path(path).name)
    assert [(t.name, t.members) for t in out.header_union_types] == [
        ("opt_t", [("s", "short_t"), ("l", "long_t")])]
    assert [(u.name, u.type_name, u.members) for u in out.header_unions] == [
        ("u", "opt_t", [("s", "u.s"), ("l", "u.l")])]
    names = [h.name for h in out.headers]
    assert "u.s" in names and "u.l" in names
