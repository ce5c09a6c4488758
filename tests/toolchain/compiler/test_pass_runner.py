"""The one pass runner (toolchain/compiler/passes.py) that runs the front end's and the mid
end's pass lists: in order, stopping after the first pass that reported an error, a refusal
reported at its position, a pass's own bug as one line naming it."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError
from toolchain.compiler.diagnostics import Diagnostics, Pos
from toolchain.compiler.midend import PASSES as MIDEND_PASSES
from toolchain.compiler.midend import Unsupported
from toolchain.compiler.passes import run_pass_list


class _Ctx:
    def __init__(self):
        self.diags = Diagnostics()
        self.ran = []


def _pass(name, action=None):
    def run(self, ctx):
        ctx.ran.append(name)
        if action is not None:
            action(ctx)
    return type(name, (), {"name": name, "run": run})


def _refuse(ctx):
    raise Unsupported(Pos("p.p4", 3, 7), "value sets are not supported")


def _warn(ctx):
    ctx.diags.warning(Pos("p.p4", 1, 1), "a warning does not stop the passes")


def test_the_passes_run_in_order_and_all_run_when_none_reports_an_error():
    ctx = _Ctx()
    run_pass_list(ctx, [_pass("A"), _pass("B", _warn), _pass("C")], ctx.diags)
    assert ctx.ran == ["A", "B", "C"]
    assert [str(w) for w in ctx.diags.warnings] == [
        "p.p4:1:1: warning: a warning does not stop the passes"]


def test_a_refusal_is_an_error_at_its_position_and_stops_the_list():
    ctx = _Ctx()
    with pytest.raises(CompileError) as e:
        run_pass_list(ctx, [_pass("A", _refuse), _pass("B")], ctx.diags, refusal=Unsupported)
    assert str(e.value) == "p.p4:3:7: error: value sets are not supported"
    assert ctx.ran == ["A"]


def test_without_a_refusal_class_a_refusal_is_a_bug_of_the_pass():
    ctx = _Ctx()
    with pytest.raises(CompileError) as e:
        run_pass_list(ctx, [_pass("A", _refuse)], ctx.diags)
    assert str(e.value) == ("error: internal compiler error in A: Unsupported: value sets are "
                            "not supported (please report it with the program)")


def test_the_mid_end_list_reads_as_p4c_s_simple_switch_mid_end():
    assert [p.name for p in MIDEND_PASSES] == [
        "ResolveArchitecture", "AllocateStorage", "LowerParser", "LowerControls",
        "LowerChecksums", "LowerDeparser", "FinishProgram"]
