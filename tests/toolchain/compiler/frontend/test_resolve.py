"""Name resolution (frontend/resolve.py, p4c's ResolveReferences): every name -> its
declaration, declaration before use, duplicates, self-referencing types.

Line numbers: the helper programs put the user's declarations on line 13 and the ingress
control's body on line 15 (see conftest.program_text)."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError
from toolchain.compiler.frontend import check_source

from .conftest import program_text


def test_every_name_points_at_its_declaration():
    program, _ = check_source("const bit<8> K = 3;\n"
                              "struct s_t { bit<8> f; }\n"
                              "action a(inout s_t v) { v.f = K; }\n")
    const, struct, action = program.decls
    assign = action.body.stmts[0]
    assert assign.rhs.decl is const
    assert assign.lhs.expr.decl is action.params[0]
    assert action.params[0].type_ref.decl is struct
    assert program.scope["a"] is action


@pytest.mark.parametrize("types,ingress,message", [
    ("struct s_t { bit<8> y; s_t x; }\n", "apply { }",
     "prog.p4:13:24: 's_t' names the struct being declared: self-referencing types are not "
     "supported"),
    ("header h_t { bit<8> y; h_t x; }\n", "apply { }",
     "prog.p4:13:24: 'h_t' names the header being declared: self-referencing types are not "
     "supported"),
    ("struct s_t { tuple<bit<8>, s_t> x; }\n", "apply { }",
     "prog.p4:13:28: 's_t' names the struct being declared: self-referencing types are not "
     "supported"),
    ("control Sub(inout bit<8> x) { Sub() again; apply { again.apply(x); } }\n", "apply { }",
     "prog.p4:13:31: 'Sub' names the control being declared: self-referencing types are not "
     "supported"),
    ("parser Sub(packet_in p) { Sub() again; state start { again.apply(p); "
     "transition accept; } }\n", "apply { }",
     "prog.p4:13:27: 'Sub' names the parser being declared: self-referencing types are not "
     "supported"),
])
def test_a_type_named_inside_its_own_declaration_is_refused(errors_of, types, ingress,
                                                             message):
    assert errors_of(program_text(types, ingress=ingress)) == [message]


def test_constructor_parameters_are_declared_even_where_they_are_refused(errors_of):
    # the refusal is the error; `i` is declared (no second error about an undeclared name)
    text = program_text("control Inner(inout bit<8> x) { apply { x = 1; } }\n"
                        "control C(inout bit<8> x)(Inner i) { apply { i.apply(x); } }\n",
                        ingress="C(Inner()) c; apply { c.apply(meta.c); }")
    errors = errors_of(text)
    assert errors[0] == ("prog.p4:14:27: control 'C' with constructor parameters is not "
                         "supported")
    assert not any("not declared" in e for e in errors)


def test_error_members_are_visible_from_their_declaration_on():
    text = ("error { Early }\n"
            "action a(inout bool f) { f = error.Late == error.Early; }\n"
            "error { Late }\n")
    with pytest.raises(CompileError) as e:
        check_source(text)
    col = text.splitlines()[1].index("Late") + 1
    assert str(e.value) == f"test.p4:2:{col}: error: error.Late is not declared"
