"""Whole programs through parse_and_check: the conformance kit (tests/data/p4-kit), the
project's gateway (p4src/), the toolchain's own P4+STF programs, p4lang/tutorials-style
programs written for these tests, and a generated 1000-line program for speed."""
from __future__ import annotations

from pathlib import Path

import pytest

from toolchain.compiler.frontend import ast as A
from toolchain.compiler.frontend import parse_and_check
from toolchain.compiler.frontend import types as T

from .conftest import KIT, REPO
from .gen_large import large_program

KIT_PROGRAMS = ["lpm_forward", "epdn_option", "flow_hash_register", "parser_select_verify",
                "action_arith", "recirculate_clone", "label_stack"]
HERE = Path(__file__).resolve().parent
OWN = sorted((HERE / "programs").glob("*.p4"))
TOOLCHAIN_PROGRAMS = sorted((REPO / "tests" / "toolchain" / "programs").glob("*.p4"))
GATEWAY = REPO / "p4src" / "rdtcp.p4"


def assert_fully_checked(program: A.Program) -> None:
    """The contract of ast.py: every expression typed, every name and call resolved."""
    for n in A.walk(program):
        if isinstance(n, A.Expr) and not isinstance(n, A.SelectExpr):
            assert isinstance(n.type, T.P4Type), (n.pos, type(n).__name__)
        if isinstance(n, A.PathExpr):
            assert n.decl is not None, (n.pos, n.name)
        if isinstance(n, A.MethodCallExpr):
            assert n.kind in ("extern_method", "extern_function", "action", "table_apply", "function",
                              "builtin", "constructor", "template_apply"), (n.pos, n.kind)
        if isinstance(n, A.TypeRef):
            assert n.resolved is not None, n.pos
        if isinstance(n, A.IntLit) and isinstance(n.type, T.Bits):
            # a literal given a width by its context says so itself, with its value in range
            assert (n.width, n.signed) == (n.type.width, n.type.signed), n.pos
            assert n.value == n.folded and -(1 << n.width) < n.value < (1 << n.width), n.pos
    assert program.main is not None


@pytest.mark.parametrize("name", KIT_PROGRAMS)
def test_kit_program_checks(name):
    program, warnings = parse_and_check(KIT / f"{name}.p4")
    assert_fully_checked(program)
    assert warnings == []


@pytest.mark.parametrize("path", OWN + TOOLCHAIN_PROGRAMS, ids=lambda p: p.stem)
def test_program_checks(path):
    program, _ = parse_and_check(path)
    assert_fully_checked(program)


def test_gateway_program_checks():
    if not GATEWAY.exists():
        pytest.skip("p4src/rdtcp.p4 not present")
    program, _ = parse_and_check(GATEWAY, include_dirs=[GATEWAY.parent / "include"])
    assert_fully_checked(program)


def test_kit_names_and_positions_come_from_the_original_files():
    program, _ = parse_and_check(KIT / "lpm_forward.p4")
    ingress = program.main.args[2].method
    tables = [d for d in ingress.locals if isinstance(d, A.TableDecl)]
    assert tables and all(t.pos.file.endswith("lpm_forward.p4") for t in tables)
    # a declaration from the included kit header keeps its own file name
    headers = [d for d in program.decls if isinstance(d, A.HeaderDecl)]
    assert any(h.pos.file.endswith("common.p4") for h in headers)
    # std metadata comes from the project's v1model.p4
    sm = program.scope["standard_metadata_t"]
    assert sm.pos.file.endswith("p4include/v1model.p4")


def test_mri_program_records_stack_and_builtin_operations():
    program, _ = parse_and_check(HERE / "programs" / "mri.p4")
    calls = [n for n in A.walk(program) if isinstance(n, A.MethodCallExpr)
             and n.pos.file.endswith("mri.p4")]
    builtins = {n.builtin for n in calls if n.builtin}
    assert {"extract", "push_front", "setValid", "isValid", "emit", "verify"} <= builtins
    nxt = [n for n in A.walk(program) if isinstance(n, A.MemberExpr) and n.member == "next"]
    assert nxt and nxt[0].kind == "stack" and nxt[0].type.name == "switch_t"


def test_defines_and_include_dirs_reach_the_preprocessor(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "consts.p4").write_text("const bit<8> FROM_INCLUDE = WIDTH;\n")
    prog = tmp_path / "p.p4"
    prog.write_text('#include <core.p4>\n#include "consts.p4"\n')
    program, _ = parse_and_check(prog, include_dirs=[inc], defines={"WIDTH": "7"},
                                 require_main=False)
    (c,) = [d for d in program.decls if isinstance(d, A.ConstDecl)]
    assert c.folded == 7 and c.pos.file.endswith("consts.p4") and c.pos.line == 1


def test_preprocessor_errors_are_compile_errors(tmp_path):
    from toolchain.compiler.diagnostics import CompileError
    prog = tmp_path / "p.p4"
    prog.write_text('#include "missing.p4"\n')
    with pytest.raises(CompileError) as e:
        parse_and_check(prog)
    (d,) = e.value.errors
    assert d.pos.line == 1 and "missing.p4" in d.message


def test_missing_file_is_a_compile_error(tmp_path):
    from toolchain.compiler.diagnostics import CompileError
    with pytest.raises(CompileError) as e:
        parse_and_check(tmp_path / "nope.p4")
    assert "no such file" in str(e.value)


def test_thousand_line_program_is_fully_checked(tmp_path):
    # how long it takes is bench/bench_compiler.py's business (--large), not a unit test's
    text = large_program(70)
    assert text.count("\n") >= 1000
    path = tmp_path / "large.p4"
    path.write_text(text)
    program, _ = parse_and_check(path)
    assert_fully_checked(program)


def test_program_without_main_is_an_error(tmp_path):
    from toolchain.compiler.diagnostics import CompileError
    prog = tmp_path / "lib.p4"
    prog.write_text("#include <core.p4>\nconst bit<8> X = 1;\n")
    with pytest.raises(CompileError) as e:
        parse_and_check(prog)
    assert str(e.value) == (f"{prog}:1:1: error: the program has no 'main' package "
                            f"instantiation (e.g. V1Switch(...) main;)")


def test_columns_survive_the_preprocessor_collapsing_blanks_and_comments(tmp_path):
    from toolchain.compiler.diagnostics import CompileError
    prog = tmp_path / "cols.p4"
    prog.write_text("#define W 8\n"
                    "const   bit<W>    x /* a comment */  =    undefined_y;\n")
    with pytest.raises(CompileError) as e:
        parse_and_check(prog, require_main=False)
    (d,) = e.value.errors
    assert (d.pos.line, d.pos.col, d.message) == (2, 43, "'undefined_y' is not declared")
