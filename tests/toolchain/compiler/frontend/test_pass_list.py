"""The front end as an ordered list of passes (frontend/__init__.py PASSES), run like the mid
end's: in order, stopping after the first pass that reported an error, a pass's own failure
reported as one line naming it; LimitNesting (frontend/nesting.py) among them."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError
from toolchain.compiler.deep import MAX_DEPTH
from toolchain.compiler.diagnostics import Diagnostics
from toolchain.compiler.frontend import (PASSES, FrontEndContext, check_source, parse_and_check,
                                         run_passes)
from toolchain.compiler.frontend.nesting import first_too_deep


def test_the_passes_run_in_the_order_p4c_runs_them():
    assert [p.name for p in PASSES] == [
        "Preprocess", "Parse", "LimitNesting", "InlineFunctions", "InlineControls",
        "InlineParsers", "ResolveNames", "TypeCheck", "LowerAggregateEquality",
        "LowerLookaheadFields", "LowerParserIfs", "InlineStructConstants", "Bmv2Target"]


def test_the_front_end_stops_after_the_first_pass_with_errors():
    # an undeclared name (ResolveNames) and a type error (TypeCheck, never run)
    text = ("action a(inout bit<8> x) { x = undefined_y; }\n"
            "action b(inout bit<8> x) { x = true; }\n")
    with pytest.raises(CompileError) as e:
        check_source(text)
    assert str(e.value) == "test.p4:1:32: error: 'undefined_y' is not declared"


class _Fails:
    name = "Fails"

    def run(self, ctx) -> None:
        raise KeyError("oops")


class _Never:
    name = "Never"

    def run(self, ctx) -> None:
        raise AssertionError("a pass after a failing one ran")


def test_a_pass_that_fails_is_one_error_line_naming_it():
    ctx = FrontEndContext(Diagnostics(), "x.p4")
    with pytest.raises(CompileError) as e:
        run_passes(ctx, [_Fails, _Never])
    assert str(e.value) == ("error: internal compiler error in Fails: KeyError: 'oops' "
                            "(please report it with the program)")


def test_a_long_operator_chain_past_the_limit_is_refused_on_its_line(tmp_path):
    src = tmp_path / "chain.p4"
    chain = " + ".join(["x"] * (MAX_DEPTH + 10))
    src.write_text(f"const bit<8> x = 1;\n\nconst bit<8> y = {chain};\n")
    with pytest.raises(CompileError) as e:
        parse_and_check(src, require_main=False)
    (d,) = e.value.errors
    assert (d.pos.file, d.pos.line) == (str(src), 3)
    assert d.message == ("nested too deeply: more than 10000 levels of expressions, statements "
                         "or types inside each other")


def test_first_too_deep_finds_the_first_node_past_the_limit():
    program, _ = check_source("const bit<8> y = " + " + ".join(["1"] * 50) + ";")
    assert first_too_deep(program, limit=100) is None
    node = first_too_deep(program, limit=10)
    assert node is not None and node.pos.line == 1
