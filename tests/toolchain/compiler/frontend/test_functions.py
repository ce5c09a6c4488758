"""P4 functions (spec 10.x) are inlined before checking (frontend/inline_functions.py); their
behaviour on packets is pinned by tests/toolchain/programs/functions.{p4,stf}. These tests pin
the refusals and errors. Line numbers as in test_refusals.py: declarations on line 13,
the ingress body on line 15."""
from __future__ import annotations

from toolchain.compiler.frontend import ast as A

from .conftest import program_text


def test_function_recursion_refused_with_position(ingress_errors):
    errs = ingress_errors("apply { meta.c = f(meta.c); }",
                          body="bit<8> f(in bit<8> x) { return f(x); }\n")
    assert errs == ["prog.p4:13:32: function 'f' calls itself (directly or not); recursion "
                    "is not allowed (spec 10.x)"]


def test_function_call_nested_in_conditional_branch_refused(ingress_errors):
    # a branch that is the call itself is supported (tests/toolchain/programs/functions.p4)
    errs = ingress_errors("apply { meta.c = meta.flag ? f(meta.c) + 1 : f(meta.c) + 2; }",
                          body="bit<8> f(in bit<8> x) { return x; }\n")
    assert errs == ["prog.p4:16:28: a function call nested inside a branch of `?:` is not "
                    "supported; use an if statement"]


def test_function_name_captured_by_block_local_refused(errors_of):
    text = program_text("const bit<8> K = 1;\nbit<8> f(in bit<8> x) { return x + K; }\n",
                        ingress="bit<8> K = 2; apply { meta.c = f(meta.c); }")
    assert errors_of(text) == [
        "prog.p4:14:36: function 'f' uses 'K', which the block calling it on line 17 "
        "redeclares; inlining it there is not supported (rename one)"]


def test_function_name_declared_in_another_block_is_fine(compile_p4):
    # only the block a call is inlined into matters: E declares its own K
    text = program_text("const bit<8> K = 1;\nbit<8> f(in bit<8> x) { return x + K; }\n",
                        ingress="apply { meta.c = f(meta.c); }")
    text = text.replace("control E(inout headers_t hdr, inout meta_t meta, "
                        "inout standard_metadata_t sm) { apply { } }",
                        "control E(inout headers_t hdr, inout meta_t meta, "
                        "inout standard_metadata_t sm) { bit<8> K = 2; apply { } }")
    assert "bit<8> K = 2" in text
    compile_p4(text)


def test_function_return_type_checked_once(ingress_errors):
    # the body is checked at the declaration and at the call: the error is reported once
    errs = ingress_errors("apply { meta.c = f(meta.c); }",
                          body="bit<8> f(in bit<8> x) { return true; }\n")
    assert errs == ["prog.p4:13:32: return value of function 'f': type bool does not match "
                    "bit<8>"]


def test_function_void_used_as_value_is_an_error(ingress_errors):
    errs = ingress_errors("apply { meta.c = f(meta.c); }",
                          body="void f(in bit<8> x) { }\n")
    assert errs == ["prog.p4:16:18: function 'f' returns void; it has no value"]


def test_function_calls_leave_no_call_in_the_checked_program(compile_p4):
    program = compile_p4(program_text(
        "bit<8> f(inout bit<8> x) { x = x + 1; if (x > 3) { return 1; } return 2; }\n",
        ingress="apply { meta.c = f(meta.c) + f(meta.c); }"))
    control = program.find(A.ControlDecl, "I")[0]
    calls = [n for n in A.walk(control) if isinstance(n, A.MethodCallExpr)]
    assert calls == []
    fn = program.find(A.FunctionDecl, "f")[0]
    assert fn.inlined and fn.signature is not None


def test_function_call_in_table_key_without_name_refused_with_position(ingress_errors):
    # p4c's TableKeyNames: "Complex key expression requires a @name annotation"
    errs = ingress_errors("table t { key = { f(meta.c): exact; } actions = { NoAction; } } "
                          "apply { t.apply(); }",
                          body="bit<8> f(in bit<8> x) { return x; }\n")
    assert errs == ["prog.p4:16:19: table 't': a key with a function call needs a @name "
                    "annotation (its control-plane name)"]


def test_function_call_in_table_key_is_computed_before_each_apply(compile_p4):
    program = compile_p4(program_text(
        "bit<8> f(in bit<8> x) { return x + 1; }\n",
        ingress="table t { key = { f(meta.c): exact @name(\"fc\"); } actions = { NoAction; } }\n"
                "apply { if (meta.c == 1) { t.apply(); } else { t.apply(); } }"))
    control = program.find(A.ControlDecl, "I")[0]
    (table,) = [d for d in control.locals if isinstance(d, A.TableDecl)]
    # (the key variable's type is taken from the call, which is never evaluated there)
    assert [n for root in (control.body, table) for n in A.walk(root)
            if isinstance(n, A.MethodCallExpr)
            and isinstance(n.callee, A.PathExpr)] == []
    key = table.key[0]
    assert isinstance(key.expr, A.PathExpr) and A.name_annotation(key) == "fc"
    writes = [n for n in A.walk(control.body) if isinstance(n, A.AssignStmt)
              and isinstance(n.lhs, A.PathExpr) and n.lhs.name == key.expr.name]
    assert len(writes) == 2                 # one before each apply
