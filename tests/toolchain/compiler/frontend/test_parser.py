"""Parser: declarations, statements and expressions of the P4_16 subset, precedence as in the
spec (P4 binds & ^ | tighter than comparisons, unlike C), and syntax errors with positions."""
from __future__ import annotations

import pytest

from toolchain.compiler.diagnostics import CompileError
from toolchain.compiler.frontend import ast as A
from toolchain.compiler.frontend.parser import parse_source


def expr_of(text: str) -> A.Expr:
    prog = parse_source(f"const bit<8> x = {text};")
    return prog.decls[0].value


def show(e) -> str:
    """Fully parenthesised form of an expression."""
    if isinstance(e, A.BinaryExpr):
        return f"({show(e.left)} {e.op} {show(e.right)})"
    if isinstance(e, A.UnaryExpr):
        return f"({e.op}{show(e.operand)})"
    if isinstance(e, A.TernaryExpr):
        return f"({show(e.cond)} ? {show(e.then)} : {show(e.other)})"
    if isinstance(e, A.IntLit):
        return e.text
    if isinstance(e, A.PathExpr):
        return e.name
    if isinstance(e, A.MemberExpr):
        return f"{show(e.expr)}.{e.member}"
    if isinstance(e, A.CastExpr):
        return f"(cast {show(e.expr)})"
    if isinstance(e, A.SliceExpr):
        return f"{show(e.expr)}[{show(e.hi)}:{show(e.lo)}]"
    if isinstance(e, A.MethodCallExpr):
        return f"{show(e.callee)}({', '.join(show(a) for a in e.args)})"
    return type(e).__name__


@pytest.mark.parametrize("text,tree", [
    ("a + b * c", "(a + (b * c))"),
    ("a & b == c", "((a & b) == c)"),           # P4: & binds tighter than ==
    ("a | b ^ c & d", "(a | (b ^ (c & d)))"),
    ("a == b && c != d || e", "(((a == b) && (c != d)) || e)"),
    ("a << 2 + b", "(a << (2 + b))"),
    ("a ++ b + c", "((a ++ b) + c)"),
    ("a |+| b |-| c", "((a |+| b) |-| c)"),
    ("a < b ? c : d ? e : f", "((a < b) ? c : (d ? e : f))"),
    ("-a * b", "((-a) * b)"),
    ("~a & b", "((~a) & b)"),
    ("a >> 1", "(a >> 1)"),
    ("a > b", "(a > b)"),
    ("(bit<8>) a + b", "((cast a) + b)"),
    ("h.f[7:4] ++ 4w0", "(h.f[7:4] ++ 4w0)"),
    ("!a || b", "((!a) || b)"),
])
def test_precedence_and_associativity(text, tree):
    assert show(expr_of(text)) == tree


def test_negative_literal_folds_into_the_literal():
    e = expr_of("-5")
    assert isinstance(e, A.IntLit) and e.value == -5


def test_generic_call_is_told_from_less_than():
    prog = parse_source("""
        extern packet_in { T lookahead<T>(); }
        parser p(packet_in pkt) { state start {
            transition select(pkt.lookahead<bit<32>>(), a < b) { default: accept; } } }""")
    sel = prog.decls[1].states[0].transition
    la, lt = sel.exprs
    assert isinstance(la, A.MethodCallExpr) and isinstance(la.type_arg_refs[0], A.BitsTypeRef)
    assert isinstance(lt, A.BinaryExpr) and lt.op == "<"


def test_header_stack_struct_enum_and_error_declarations():
    prog = parse_source("""
        header h_t { bit<8> a; int<4> b; bit c; }
        struct s_t { h_t[3] hs; bool f; }
        enum bit<8> E { A = 1, B = 0x20 }
        enum Color { Red, Green }
        error { Oops, Bad }
        typedef bit<9> port_t;
        type bit<16> id_t;
        match_kind { fuzzy }""")
    h, s, e, c, err, td, nt, mk = prog.decls
    assert [f.name for f in h.fields] == ["a", "b", "c"]
    assert isinstance(s.fields[0].type_ref, A.StackTypeRef)
    assert e.underlying is not None and [m.name for m in e.members] == ["A", "B"]
    assert c.underlying is None
    assert [m.name for m in err.members] == ["Oops", "Bad"]
    assert td.name == "port_t" and not td.is_newtype and nt.is_newtype
    assert mk.members[0].name == "fuzzy"


def test_extern_with_generic_type_parameters_constructors_and_overloads():
    prog = parse_source("""
        extern register<T> { register(bit<32> size); void read(out T result, in bit<32> i);
                             void write(in bit<32> i, in T value); }
        extern void log_msg(string msg);
        extern void log_msg<T>(string msg, in T data);""")
    reg, f1, f2 = prog.decls
    assert reg.type_params == ["T"]
    assert [m.name for m in reg.methods] == ["register", "read", "write"]
    assert reg.methods[0].return_type is None            # constructor
    assert f1.is_function and f2.type_params == ["T"]


def test_table_properties_are_typed_nodes():
    prog = parse_source("""
        control c() {
            action a(bit<8> x) {}
            table t {
                key = { h.f: exact; h.g: lpm @name("g"); }
                actions = { a; @defaultonly NoAction; }
                const default_action = NoAction();
                size = 64;
                const entries = { (1, 2 &&& 3): a(5); priority = 10: (4 .. 6, _): a(7); }
            }
            apply { t.apply(); }
        }""")
    t = prog.decls[0].locals[1]
    assert [k.match_kind for k in t.key] == ["exact", "lpm"]
    assert t.key[1].annotations[0].name == "name"
    assert [a.name.name for a in t.actions] == ["a", "NoAction"]
    assert t.default_action.is_const and t.default_action.action.has_parens
    e1, e2 = t.entries.entries
    assert isinstance(e1.keyset[1], A.MaskExpr)
    assert isinstance(e2.keyset[0], A.RangeExpr) and isinstance(e2.keyset[1], A.DontCareExpr)
    assert e2.priority.value == 10
    assert t.prop("size").value.value == 64


def test_annotations_keep_parsed_arguments_and_raw_body():
    prog = parse_source('@name("ingress.x") @field_list(1, 2) @hidden @pragma(foo bar) '
                        'struct s { bit<8> f; }')
    a = prog.decls[0].annotations
    assert [x.name for x in a] == ["name", "field_list", "hidden", "pragma"]
    assert a[0].args[0].value == "ingress.x"
    assert [x.value for x in a[1].args] == [1, 2]
    assert a[3].args == [] and a[3].body == "foo bar"
    assert A.name_annotation(prog.decls[0]) == "ingress.x"


def test_statements_of_a_control_body():
    prog = parse_source("""
        struct m_t { bit<8> a; }
        control c(inout m_t m) {
            apply {
                bit<8> x = 1;
                m_t copy;
                if (x == 1) { m.a = x; } else if (x == 2) m.a = 0; else { exit; }
                switch (x) { 1: { return; } 2: default: {} }
                { ; }
                copy = { 3 };
                copy = { a = 4 };
            }
        }""")
    stmts = prog.decls[1].body.stmts
    kinds = [type(s).__name__ for s in stmts]
    assert kinds == ["VarDecl", "VarDecl", "IfStmt", "SwitchStmt", "BlockStmt", "AssignStmt",
                     "AssignStmt"]
    sw = stmts[3]
    assert sw.cases[1].body is None and isinstance(sw.cases[2].labels[0], A.DefaultExpr)
    assert isinstance(stmts[5].rhs, A.ListExpr) and isinstance(stmts[6].rhs, A.StructInitExpr)


def test_package_instantiation_with_constructor_calls():
    prog = parse_source("""
        parser P(); control C();
        package Pkg(P p, C c);
        parser MyP() { state start { transition accept; } }
        control MyC() { apply {} }
        Pkg(MyP(), MyC()) main;""")
    main = prog.decls[-1]
    assert isinstance(main, A.Instantiation) and main.name == "main"
    assert [a.callee.name for a in main.args] == ["MyP", "MyC"]


@pytest.mark.parametrize("text,message", [
    ("header h { bit<8> a }", "test.p4:1:21: error: expected ';', found '}'"),
    ("const bit<8> = 1;", "test.p4:1:14: error: expected a constant name, found '='"),
    ("foo_t x;", "test.p4:1:1: error: unknown type 'foo_t'"),
    ("control c() { apply { x = ; } }", "test.p4:1:27: error: expected an expression, found ';'"),
    ("parser p() { state start { transition accept; x = 1; } }",
     "test.p4:1:47: error: statements after 'transition' are not allowed"),
    ("control c() { }", "test.p4:1:1: error: control 'c' has no apply block"),
    ("struct s { bit<8> a;", "test.p4:1:21: error: unterminated struct 's'"),
])
def test_syntax_errors_name_the_position(text, message):
    with pytest.raises(CompileError) as e:
        parse_source(text)
    assert str(e.value).splitlines()[0] == message


def test_several_syntax_errors_are_reported_in_one_run():
    with pytest.raises(CompileError) as e:
        parse_source("header h { bit<8> a }\nconst bit<8> = 1;\nstruct s { bit<8> b; }")
    assert len(e.value.errors) == 2
    assert [d.pos.line for d in e.value.errors] == [1, 2]


def test_missing_semicolon_is_reported_after_the_previous_token():
    with pytest.raises(CompileError) as e:
        parse_source("const bit<8> a = 1\nconst bit<8> b = 2;")
    assert str(e.value) == "test.p4:1:19: error: expected ';', found 'const'"
