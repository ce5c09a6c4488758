"""for loops (P4_16 1.2.4+, spec 12.9): parsing, scoping and the placement rules."""
from __future__ import annotations

import pytest

from toolchain.compiler.frontend import ast as A

from .conftest import parser_program


def loops(program):
    return [n for n in A.walk(program) if isinstance(n, A.ForStmt)
            and n.pos.file.endswith("prog.p4")]


def test_for_parses_init_list_condition_and_updates(check_ingress):
    prog = check_ingress("apply { for (bit<8> i = 0, bit<8> j = 9; i < j; i = i + 1, j -= 1) "
                         "{ meta.c = i; } }")
    (loop,) = loops(prog)
    assert [type(s).__name__ for s in loop.init] == ["VarDecl", "VarDecl"]
    assert isinstance(loop.cond, A.BinaryExpr) and loop.cond.op == "<"
    assert [type(s).__name__ for s in loop.updates] == ["AssignStmt", "AssignStmt"]
    assert isinstance(loop.body, A.BlockStmt)


def test_for_without_condition_and_with_break_continue(check_ingress):
    prog = check_ingress("apply { for (bit<8> i = 0; ; i = i + 1) { if (i == 3) { continue; } "
                         "if (i == 5) { break; } } }")
    (loop,) = loops(prog)
    assert loop.cond is None
    kinds = {type(n).__name__ for n in A.walk(loop.body)}
    assert {"BreakStmt", "ContinueStmt"} <= kinds


def test_loop_variable_is_scoped_to_the_loop(check_ingress):
    # two loops declaring i in one block: each i lives in its own loop's scope
    check_ingress("apply { for (bit<8> i = 0; i < 2; i = i + 1) { } "
                  "for (bit<8> i = 0; i < 3; i = i + 1) { meta.c = i; } }")


@pytest.mark.parametrize("ingress,message", [
    ("apply { break; }", "prog.p4:15:9: break is only allowed inside a for loop"),
    ("apply { if (meta.a == 1) { continue; } }",
     "prog.p4:15:28: continue is only allowed inside a for loop"),
    ("apply { for (bit<8> i = 0; i; i = i + 1) { } }",
     "prog.p4:15:28: for loop condition has type bit<8>, expected bool"),
    ("apply { for (bit<8> i = 0; i < 4; i = i + 1) { } meta.c = i; }",
     "prog.p4:15:59: 'i' is not declared"),
])
def test_for_loop_errors(ingress_errors, ingress, message):
    errors = ingress_errors(ingress)
    assert errors and errors[0].startswith(message)


def test_for_loop_in_a_parser_state_is_an_error(errors_of):
    errors = errors_of(parser_program(
        "state start { for (bit<8> i = 0; i < 2; i = i + 1) { } transition accept; }"))
    assert errors == ["prog.p4:15:15: for loops are not allowed in a parser (use parser states)"]
