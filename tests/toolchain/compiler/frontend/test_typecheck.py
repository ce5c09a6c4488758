"""Type checking (P4_16 spec 8): implicit int-literal conversion, width and sign rules,
directions, name resolution, and what the checker records on the AST for the back end."""
from __future__ import annotations

import pytest

from toolchain.compiler.frontend import ast as A
from toolchain.compiler.frontend import types as T


def user_nodes(program, cls):
    return [n for n in A.walk(program) if isinstance(n, cls) and n.pos.file.endswith("prog.p4")]


def assigns(program):
    return user_nodes(program, A.AssignStmt)


def test_every_expression_is_typed_and_every_name_resolved(check_ingress):
    prog = check_ingress("""
        register<bit<32>>(16) r;
        action fwd(bit<9> port) { sm.egress_spec = port; r.write(0, 32w1); }
        table t { key = { hdr.ipv4.dstAddr: lpm; } actions = { fwd; NoAction; }
                  default_action = NoAction(); }
        apply {
            if (hdr.ipv4.isValid() && t.apply().hit) { meta.a = meta.a + 1; }
            switch (t.apply().action_run) { fwd: { meta.c = 8w1; } default: {} }
        }""")
    for n in A.walk(prog):
        if isinstance(n, A.Expr) and not isinstance(n, A.SelectExpr):
            assert n.type is not None, (n.pos, type(n).__name__)
        if isinstance(n, A.PathExpr):
            assert n.decl is not None, (n.pos, n.name)
        if isinstance(n, A.MethodCallExpr):
            assert n.kind is not None, n.pos


def test_int_literal_takes_the_width_of_the_other_operand(check_ingress):
    prog = check_ingress("apply { meta.a = meta.a + 1; meta.c = 255; meta.s = -1; }")
    a1, a2, a3 = assigns(prog)
    lit = a1.rhs.right
    assert isinstance(lit, A.IntLit) and lit.type == T.Bits(32) and lit.width == 32
    assert a2.rhs.type == T.Bits(8) and a2.rhs.folded == 255
    assert a3.rhs.type == T.Bits(8, True) and a3.rhs.folded == -1


def test_negative_literal_to_unsigned_is_twos_complement(check_ingress):
    prog = check_ingress("apply { meta.c = -1; }")
    (a,) = assigns(prog)
    assert a.rhs.folded == 255 and a.rhs.value == 255


def test_constants_are_folded_with_wraparound_and_saturation(check_ingress):
    prog = check_ingress("""
        const bit<8> K = 250;
        apply {
            meta.c = K + 10;
            meta.c = K |+| 10;
            meta.s = 8s100 |+| 8s100;
            meta.s = -8s100 |-| 8s100;
            meta.c = (bit<8>)(16w0x1234);
            meta.a = (bit<16>)K ++ 16w1;
            meta.c = 8w0xF0[7:4] ++ 4w3;
            meta.c = 8w1 << 9;
            meta.s = (int<8>)8w128 >> 1;
        }""")
    assert [a.rhs.folded for a in assigns(prog)] == [4, 255, 127, -128, 0x34,
                                                     (250 << 16) | 1, 0xF3, 0, -64]


def test_enum_error_and_match_kind_members_resolve(check_ingress):
    prog = check_ingress("""
        apply {
            if (sm.parser_error == error.PacketTooShort) { meta.c = 1; }
            if (hdr.ethernet.etherType == ET.IPV4) { meta.c = 2; }
        }""", body="enum bit<16> ET { IPV4 = 0x0800, ARP = 0x0806 }\n")
    members = user_nodes(prog, A.MemberExpr)
    err = next(m for m in members if m.member == "PacketTooShort")
    assert err.kind == "error" and err.decl.code == prog.errors.index("PacketTooShort")
    et = next(m for m in members if m.member == "IPV4")
    assert et.kind == "enum" and et.folded == 0x0800
    assert "lpm" in prog.match_kinds and "range" in prog.match_kinds


def test_serializable_enum_converts_to_its_underlying_type_only(check_ingress, ingress_errors):
    body = "enum bit<16> ET { IPV4 = 0x0800 }\n"
    check_ingress("apply { hdr.ethernet.etherType = ET.IPV4; }", body=body)
    assert ingress_errors("apply { meta.a = ET.IPV4; }", body=body) == [
        "prog.p4:16:18: assignment: type ET does not match bit<32>"]


def test_calls_record_their_kind_and_binding(check_ingress):
    prog = check_ingress("""
        register<bit<32>>(16) r;
        counter(8, CounterType.packets) c;
        action a() { mark_to_drop(sm); }
        apply {
            r.read(meta.b, 3);
            c.count(2);
            hash(meta.a, HashAlgorithm.crc32, 32w0, { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr }, 32w16);
            hdr.ipv4.setInvalid();
            a();
        }""")
    calls = {c.callee.member if isinstance(c.callee, A.MemberExpr) else c.callee.name: c
             for c in user_nodes(prog, A.MethodCallExpr)}
    assert calls["read"].kind == "extern_method" and calls["read"].receiver.decl.name == "r"
    assert calls["read"].method.name == "read"
    assert calls["count"].kind == "extern_method"
    h = calls["hash"]
    assert h.kind == "extern_function" and h.method.name == "hash"
    assert [str(t) for t in h.type_args] == ["bit<32>", "bit<32>",
                                            "tuple<bit<32>, bit<32>>", "bit<32>"]
    assert calls["mark_to_drop"].kind == "extern_function"
    assert len(calls["mark_to_drop"].params) == 1          # the one-argument overload
    assert calls["setInvalid"].kind == "builtin" and calls["setInvalid"].builtin == "setInvalid"
    assert calls["a"].kind == "action"


def test_register_instantiation_is_specialized(check_ingress):
    prog = check_ingress("register<bit<48>>(1024) r; apply { }")
    (inst,) = [i for i in user_nodes(prog, A.Instantiation) if i.name == "r"]
    assert isinstance(inst.p4type, T.Specialized) and inst.p4type.args == (T.Bits(48),)
    assert inst.decl_type.name == "register" and inst.args[0].folded == 1024


def test_parser_features_type_check(compile_p4):
    from .conftest import HEADERS
    text = "#include <core.p4>\n#include <v1model.p4>\n" + HEADERS + """
error { BadVersion }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) special;
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType, pkt.lookahead<bit<8>>()) {
            (0x0800, 0x40 &&& 0xF0): parse_ipv4;
            (0x8847, _): parse_label;
            (0x9000 .. 0x9FFF, default): reject;
            (special, _): accept;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        verify(hdr.ipv4.version == 4, error.BadVersion);
        pkt.advance(32);
        transition accept;
    }
    state parse_label {
        pkt.extract(hdr.labels.next);
        transition select(hdr.labels.last.bos) { 1: accept; default: parse_label; }
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
    prog = compile_p4(text)
    parser = prog.find(A.ParserDecl, "P")[0]
    start = parser.states[0]
    sel = start.transition
    assert [str(e.type) for e in sel.exprs] == ["bit<16>", "bit<8>"]
    la = sel.exprs[1]
    assert la.builtin == "lookahead" and la.type == T.Bits(8)
    mask = sel.cases[0].keyset[1]
    assert isinstance(mask, A.MaskExpr) and mask.value.folded == 0x40 and mask.mask.folded == 0xF0
    assert sel.cases[3].keyset[0].decl.name == "special"
    assert sel.cases[0].state.decl is parser.states[1]
    assert sel.cases[2].state.decl.builtin and sel.cases[2].state.decl.name == "reject"
    assert prog.errors[-1] == "BadVersion"
    assert prog.main.name == "main" and prog.main.args[0].method is parser


def test_table_entries_and_default_action_are_checked(check_ingress):
    prog = check_ingress("""
        action set(bit<8> v) { meta.c = v; }
        table t {
            key = { hdr.ipv4.dstAddr: ternary; hdr.ipv4.protocol: exact; }
            actions = { set; NoAction; }
            const default_action = set(3);
            const entries = {
                (0x0a000000 &&& 0xff000000, 6): set(1);
                (_, 17): set(2) @priority(5);      // `priority =` needs non-const entries
            }
        }
        apply { t.apply(); }""")
    (t,) = user_nodes(prog, A.TableDecl)
    assert t.default_action.action.action.name == "set"
    assert t.default_action.action.args[0].type == T.Bits(8)
    e1, e2 = t.entries.entries
    assert e1.keyset[0].value.type == T.Bits(32) and e1.keyset[1].folded == 6
    assert e2.priority.folded == 5 and e2.action.args[0].folded == 2


@pytest.mark.parametrize("ingress,value,warning", [
    # spec 8.11.2: an int converted implicitly is truncated, with a warning
    ("apply { meta.c = 256; }", 0, "prog.p4:15:18: warning: value 256 does not fit in bit<8>; "
                                   "it is truncated to 0"),
    ("apply { meta.c = meta.c | 0xFFF; }", 0xFF,
     "prog.p4:15:27: warning: value 4095 does not fit in bit<8>; it is truncated to 255"),
    ("apply { meta.c = -1; }", 255, None),
    ("apply { meta.c = 8w257; }", 1, "prog.p4:15:18: warning: 8w257: value does not fit in "
                                     "bit<8>; it is truncated to 1"),
    ("apply { meta.s = 8s200; }", -56, "prog.p4:15:18: warning: 8s200: value does not fit in "
                                       "int<8>; it is truncated to -56"),
])
def test_int_overflow_on_implicit_conversion_warns_and_truncates(tmp_path, ingress, value,
                                                                 warning):
    from .conftest import program_text
    from toolchain.compiler.frontend import parse_and_check
    p = tmp_path / "prog.p4"
    p.write_text(program_text("", ingress=ingress))
    prog, warnings = parse_and_check(p)
    (a,) = assigns(prog)
    lit = a.rhs.right if isinstance(a.rhs, A.BinaryExpr) else a.rhs
    assert lit.folded == value and lit.type.width == 8
    assert [str(w).split("/")[-1] for w in warnings] == ([warning] if warning else [])


def test_serializable_enum_is_its_underlying_type_in_arithmetic(check_ingress):
    prog = check_ingress("apply { meta.c = EE.a + 1; meta.a = EE.a ++ 24w0; meta.c = 8w1 << EE.a; }",
                         body="enum bit<8> EE { a = 5 }\n")
    assert [a.rhs.folded for a in assigns(prog)] == [6, 5 << 24, 32]


def test_warnings_do_not_stop_compilation(tmp_path):
    from .conftest import program_text
    from toolchain.compiler.frontend import parse_and_check
    p = tmp_path / "prog.p4"
    p.write_text(program_text("", ingress="apply { meta.c = (bit<8>)300; }"))
    prog, warnings = parse_and_check(p)
    assert [str(w).split(": ", 1)[1] for w in warnings] == [
        "warning: value 300 does not fit in bit<8>; it is truncated to 44"]


@pytest.mark.parametrize("ingress,body,message", [
    ("apply { meta.a = meta.c; }", "",
     "prog.p4:15:18: assignment: type bit<8> does not match bit<32> (cast it)"),
    ("apply { meta.c = 5 & -3; }", "",
     "prog.p4:15:20: '&' on a negative int constant (give it a width, e.g. 32w5 & -3)"),
    ("apply { meta.flag = (bool)2; }", "", "prog.p4:15:21: illegal cast of 2 to bool (only 0 "
                                           "and 1)"),
    ("apply { meta.c = meta.c + meta.a; }", "",
     "prog.p4:15:25: '+': operands have different types bit<8> and bit<32> (cast one of them)"),
    ("apply { meta.s = (int<8>)meta.a; }", "",
     "prog.p4:15:18: illegal cast from bit<32> to int<8> (change the width and the signedness "
     "in two casts)"),
    ("apply { meta.flag = meta.c; }", "",
     "prog.p4:15:21: assignment: type bit<8> does not match bool"),
    ("apply { if (meta.c) { } }", "", "prog.p4:15:13: if condition has type bit<8>, expected bool"),
    ("action a(in bit<8> x) { x = 1; } apply { a(meta.c); }", "",
     "prog.p4:15:25: cannot write to 'x': it is an 'in' parameter"),
    ("action a(bit<8> x) { x = 1; } apply { }", "",
     "prog.p4:15:22: cannot write to 'x': action data parameters are read-only"),
    ("apply { undefined_x = 1; }", "", "prog.p4:15:9: 'undefined_x' is not declared"),
    ("apply { meta.zz = 1; }", "", "prog.p4:15:14: struct meta_t has no field 'zz'"),
    ("apply { meta.c = hdr.ipv4.ttl[8:0]; }", "",
     "prog.p4:15:18: slice [8:0] out of range for bit<8>"),
    ("apply { meta.a = 1 ++ meta.a; }", "",
     "prog.p4:15:18: '++' needs bit<W> or int<W> operands, not int (give the constant a width, "
     "e.g. 8w1)"),
    ("apply { hdr.labels[4].label = 1; }", "",
     "prog.p4:15:20: header stack index 4 out of range 0..3"),
    ("table t { key = {meta.a: fuzzy;} actions = {NoAction;} } apply { t.apply(); }", "",
     "prog.p4:15:26: unknown match kind 'fuzzy'"),
    ("table t { key = {meta.a: lpm; meta.b: lpm;} actions = {NoAction;} } apply { t.apply(); }",
     "", "prog.p4:15:31: table 't' has more than one lpm key"),
    ("table t { key = {meta.a: exact;} actions = {NoAction;} } action a() { t.apply(); } "
     "apply { }", "",
     "prog.p4:15:71: table 't' can only be applied in a control's apply block (not in an "
     "action)"),
    ("apply { mark_to_drop(sm, 1); }", "",
     "prog.p4:15:9: function mark_to_drop takes 0 or 1 arguments, 2 given"),
    ("register<bit<32>>(1024) r; apply { r.read(meta.c, 0); }", "",
     "prog.p4:15:43: argument 'result' of read has type bit<8>, expected bit<32>"),
    ("register(1024) r; apply { }", "",
     "prog.p4:15:1: extern register needs type arguments: register<T>"),
    ("apply { meta.a = error.Nope; }", "", "prog.p4:15:24: error.Nope is not declared"),
    ("apply { hdr.labels.next.label = 1; }", "",
     "prog.p4:15:9: '.next' of a header stack can only be used in a parser"),
    ("apply { meta.a = (bit<32>)hdr.labels.last.label; }", "",
     "prog.p4:15:27: '.last' of a header stack can only be used in a parser"),
    ("apply { meta.c = 2 |+| 3; }", "",
     "prog.p4:15:20: '|+|' needs operands with a fixed width"),
    ("apply { meta.a = meta.a << -1; }", "",
     "prog.p4:15:28: shift amount must not be negative"),
    ("apply { meta.a = 1 / 0; }", "", "prog.p4:15:22: division by zero"),
    ("const bit<8> K = 2; apply { K = 3; }", "",
     "prog.p4:15:29: cannot assign to constant 'K'"),
    ("apply { meta.a = meta.b >> meta.s; }", "",
     "prog.p4:15:28: shift amount must be unsigned, not int<8>"),
    ("apply { meta.b = meta.a == hdr.ipv4 ? 1 : 2; }", "",
     "prog.p4:15:25: '==': operands have different types bit<32> and ipv4_t"),
    ("apply { bit<8> x; bit<8> x; }", "", "prog.p4:15:19: 'x' is already declared (at "),
    ("table t { key = {meta.a: exact;} actions = {NoAction;} default_action = a; } apply { }",
     "", "prog.p4:15:73: table 't': action 'a' is not declared"),
])
def test_type_errors_have_exact_messages(ingress_errors, ingress, body, message):
    errs = ingress_errors(ingress, body)
    if message.endswith("(at ") or message.endswith("... "):
        assert errs[0].startswith(message.split(" ... ")[0].split(" (at ")[0]), errs
    else:
        assert errs == [message]


def test_deprecated_declarations_warn_when_called(tmp_path):
    from .conftest import program_text
    from toolchain.compiler.frontend import parse_and_check
    p = tmp_path / "prog.p4"
    p.write_text(program_text("", ingress="apply { mark_to_drop(); }"))
    _, warnings = parse_and_check(p)
    assert [str(w).split("/")[-1] for w in warnings] == [
        "prog.p4:15:9: warning: mark_to_drop is deprecated: Please use "
        "mark_to_drop(standard_metadata) instead."]


@pytest.mark.parametrize("states,message", [
    ("state start { pkt.extract(meta); transition accept; }",
     "prog.p4:15:27: extract needs a header, not meta_t"),
    ("state start { pkt.lookahead<error>(); transition accept; }",
     "prog.p4:15:15: lookahead needs a fixed-width type, not error"),
    ("state start { meta.a = 1; }",
     None),
    # spec 12.8.2: the two-argument extract is for a header with a varbit field, only
    ("state start { pkt.extract(hdr.ipv4, 32w0); transition accept; }",
     "prog.p4:15:15: extract with a length needs a header with a varbit field; ipv4_t has "
     "none"),
])
def test_packet_in_methods_check_their_types(errors_of, compile_p4, states, message):
    from .conftest import parser_program
    if message is None:
        compile_p4(parser_program(states))        # no transition: a warning, not an error
    else:
        assert errors_of(parser_program(states)) == [message]


MAIN = "V1Switch(P(), VC(), I(), E(), CC(), D()) main;"


@pytest.mark.parametrize("old,new,message", [
    (MAIN, "V1Switch(P(), VC(), I(), E(), CC()) main;",
     "prog.p4:26:1: package V1Switch takes 6 arguments, 5 given"),
    (MAIN, "V1Switch(P(), VC(), P(), E(), CC(), D()) main;",
     "prog.p4:26:21: 'P' is a parser but parameter 'ig' needs a control of type Ingress"),
    (MAIN, "V1Switch(P(), VC(), VC(), E(), CC(), D()) main;",
     "prog.p4:26:21: 'VC' has 2 parameters but Ingress has 3"),
    ("control E(inout headers_t hdr", "control E(inout meta_t hdr",
     "prog.p4:23:11: parameter 'hdr' of 'E' has type meta_t, expected headers_t"),
    ("control CC(inout headers_t hdr", "control CC(in headers_t hdr",
     "prog.p4:24:12: parameter 'hdr' of 'CC' must be 'inout' as in ComputeChecksum"),
    (MAIN, "V1Switch(P(), VC(), I(), E(), CC(), x) main;",
     "prog.p4:26:37: argument 'dep' of package V1Switch must be a parser or control "
     "instantiation like MyParser()"),
])
def test_package_arguments_must_match_the_architecture(errors_of, old, new, message):
    from .conftest import program_text
    text = program_text("", ingress="apply { }")
    assert old in text
    assert errors_of(text.replace(old, new)) == [message]


@pytest.mark.parametrize("ingress,body,message", [
    ("apply { meta.c = K; meta.c = K + 1; }", "const bit<8> K = undefined_v;\n",
     "prog.p4:13:18: 'undefined_v' is not declared"),
    ("apply { bit<8> x = undefined_v; meta.c = x; meta.c = x + 1; }", "",
     "prog.p4:15:20: 'undefined_v' is not declared"),
    ("action a(nope_t p) { } table t { key = { meta.a: exact; } actions = { a; } } "
     "apply { a(1); t.apply(); }", "",
     "prog.p4:15:10: unknown type 'nope_t'"),
])
def test_a_failed_declaration_is_reported_once(ingress_errors, ingress, body, message):
    assert ingress_errors(ingress, body) == [message]


@pytest.mark.parametrize("ingress,message", [
    ("apply { hdr.ipv4.ttll = 1; }",
     "prog.p4:15:18: header ipv4_t has no field 'ttll' (did you mean 'ttl'?)"),
    ("apply { meta.c = metaa.c; }", "prog.p4:15:18: 'metaa' is not declared (did you mean 'meta'?)"),
    ("apply { mark_to_dro(sm); }",
     "prog.p4:15:9: 'mark_to_dro' is not declared (did you mean 'mark_to_drop'?)"),
    ("table t { key = { meta.a: exatc; } actions = { NoAction; } } apply { t.apply(); }",
     "prog.p4:15:27: unknown match kind 'exatc' (did you mean 'exact'?)"),
    ("register<bit<32>>(4) r; apply { r.wirte(0, 1); }",
     "prog.p4:15:35: extern register has no method 'wirte' (did you mean 'write'?)"),
])
def test_misspelled_names_get_a_suggestion(ingress_errors, ingress, message):
    assert ingress_errors(ingress) == [message]


ENTRY_TABLE = ("action set(bit<8> v) {{ meta.c = v; }} table t {{ key = {{ {keys} }} "
               "actions = {{ set; }} const entries = {{ {entry}: set(1); }} }} apply {{ t.apply(); }}")


@pytest.mark.parametrize("keys,entry,message", [
    ("meta.a: exact;", "_", "prog.p4:15:110: table 't': '_' is not allowed for the exact key meta.a"),
    ("meta.a: exact;", "1 &&& 3",
     "prog.p4:15:110: table 't': a mask is not allowed for the exact key meta.a"),
    ("meta.a: ternary;", "1 .. 3",
     "prog.p4:15:112: table 't': a range is not allowed for the ternary key meta.a"),
    ("hdr.ipv4.dstAddr: lpm;", "0x0a000000 &&& 0xff00ff00",
     "prog.p4:15:133: table 't': mask 0xff00ff00 of the lpm key hdr.ipv4.dstAddr is not a "
     "prefix"),
])
def test_entry_keysets_fit_their_match_kinds(ingress_errors, keys, entry, message):
    assert ingress_errors(ENTRY_TABLE.format(keys=keys, entry=entry)) == [message]


def test_entry_keysets_accepted_for_each_match_kind(check_ingress):
    check_ingress(ENTRY_TABLE.format(
        keys="hdr.ipv4.dstAddr: lpm; meta.a: ternary; meta.b: range; meta.c: optional; "
             "meta.s: exact;",
        entry="(0x0a000000 &&& 0xff000000, 5 &&& 0x0f, 1 .. 9, _, -1)"))


@pytest.mark.parametrize("ingress,message", [
    ("action a(meta_t m) { } table t { key = { meta.a: exact; } actions = { a; } } "
     "apply { t.apply(); }",
     "prog.p4:15:10: action data parameter 'm' of 'a' has type meta_t; the control plane "
     "supplies only bit<W>, int<W> and bool"),
    ("table t { key = { meta.flag: lpm; } actions = { NoAction; } } apply { t.apply(); }",
     "prog.p4:15:19: table 't': an lpm key must be bit<W>, not bool"),
])
def test_table_actions_and_keys_fit_the_control_plane(ingress_errors, ingress, message):
    assert ingress_errors(ingress) == [message]


def test_named_arguments_are_put_in_parameter_order(check_ingress):
    prog = check_ingress("""
        register<bit<32>>(8) r;
        action a(bit<8> x, bit<32> y) { meta.c = x; meta.a = y; }
        apply { r.read(index = 3, result = meta.a); a(y = 7, x = 1); }""")
    calls = {c.callee.member if isinstance(c.callee, A.MemberExpr) else c.callee.name: c
             for c in user_nodes(prog, A.MethodCallExpr)}
    read = calls["read"]
    assert isinstance(read.args[0], A.MemberExpr) and read.args[1].folded == 3
    assert read.args[1].type == T.Bits(32)
    assert [x.folded for x in calls["a"].args] == [1, 7]
    assert [x.type for x in calls["a"].args] == [T.Bits(8), T.Bits(32)]


@pytest.mark.parametrize("ingress,message", [
    ("register<bit<32>>(8) r; apply { r.read(meta.a, index = 3); }",
     "prog.p4:15:33: method register.read: arguments must be all named or all positional"),
    ("register<bit<32>>(8) r; apply { r.read(result = meta.a, indx = 3); }",
     "prog.p4:15:33: method register.read has no parameters matching the arguments result, "
     "indx (did you mean 'index'?)"),
])
def test_named_argument_errors(ingress_errors, ingress, message):
    assert ingress_errors(ingress) == [message]


def test_compound_assignment_means_assign_the_operation(check_ingress):
    prog = check_ingress("apply { meta.a += 1; meta.c >>= 2; meta.c |+|= 8w3; meta.a ++= 0; }"
                         .replace("meta.a ++= 0;", ""))
    ops = [(a.rhs.op, a.rhs.left is not a.lhs, a.rhs.type) for a in assigns(prog)]
    assert ops == [("+", True, T.Bits(32)), (">>", True, T.Bits(8)), ("|+|", True, T.Bits(8))]


def test_entries_take_per_entry_const_and_priority_annotations(check_ingress):
    prog = check_ingress("""
        action set(bit<8> v) { meta.c = v; }
        table t {
            key = { meta.a: ternary; }
            actions = { set; }
            entries = {                 // priorities: only in a non-const list (14.2.1.4)
                const priority = 10: 1 &&& 0xF: set(1);
                2 &&& 0xF: set(2) @priority(3);
            }
        }
        apply { t.apply(); }""")
    (t,) = user_nodes(prog, A.TableDecl)
    e1, e2 = t.entries.entries
    assert e1.is_const and e1.priority.folded == 10
    assert not e2.is_const and e2.priority.folded == 3


def test_action_parameters_with_defaults_may_be_omitted(check_ingress):
    prog = check_ingress("action a(out bit<8> x, in bit<8> y = 5) { x = y; } "
                         "apply { a(meta.c); a(meta.c, 7); }")
    calls = [c for c in user_nodes(prog, A.MethodCallExpr) if c.kind == "action"]
    assert [[x.folded for x in c.args[1:]] for c in calls] == [[5], [7]]
    assert calls[0].args[1] is not calls[1].args[1]


def test_unknown_table_property_warns_like_p4c(tmp_path):
    from .conftest import program_text
    from toolchain.compiler.frontend import parse_and_check
    p = tmp_path / "prog.p4"
    p.write_text(program_text("", ingress="table t { key = { meta.a: exact; } actions = "
                                          "{ NoAction; } sizes = 4; } apply { t.apply(); }"))
    _, warnings = parse_and_check(p)
    assert [str(w).split("/")[-1] for w in warnings] == [
        "prog.p4:15:60: warning: table 't': unknown table property 'sizes' is ignored "
        "(did you mean 'size'?)"]


def test_value_set_of_a_struct_matches_a_tuple_select(compile_p4):
    from .conftest import parser_program
    body = "struct pair_t { bit<16> t; bit<8> v; }\n"
    prog = compile_p4(parser_program(
        "state start { pkt.extract(hdr.ethernet); transition select(hdr.ethernet.etherType, "
        "hdr.ethernet.dst[7:0]) { pvs: accept; default: reject; } }",
        locals_="value_set<pair_t>(4) pvs;", body=body))
    sel = prog.find(A.ParserDecl, "P")[0].states[0].transition
    assert sel.cases[0].keyset[0].decl.name == "pvs"


def test_empty_select_has_only_a_default(compile_p4):
    from .conftest import parser_program
    prog = compile_p4(parser_program("state start { transition select() { default: accept; } }"))
    sel = prog.find(A.ParserDecl, "P")[0].states[0].transition
    assert sel.exprs == [] and sel.cases[0].state.decl.name == "accept"


def test_error_and_enum_members_are_folded_constants(check_ingress):
    prog = check_ingress("""
        action set(bit<8> v) { meta.c = v; }
        table t { key = { sm.parser_error: exact; } actions = { set; }
                  const entries = { error.NoMatch: set(1); } }
        apply { t.apply(); }""")
    (t,) = user_nodes(prog, A.TableDecl)
    key = t.entries.entries[0].keyset[0]
    assert key.type == T.ERROR and key.folded == prog.errors.index("NoMatch")


def test_package_arguments_may_be_named(compile_p4):
    from .conftest import program_text
    text = program_text("", ingress="apply { }").replace(
        MAIN, "V1Switch(vr = VC(), p = P(), ig = I(), eg = E(), ck = CC(), dep = D()) main;")
    prog = compile_p4(text)
    assert [a.method.name for a in prog.main.args] == ["P", "VC", "I", "E", "CC", "D"]


@pytest.mark.parametrize("states,message", [
    ("state start { pkt.extract(hdr.labels.last); transition accept; }",
     "prog.p4:15:27: cannot write to '.last' of a header stack"),
    ("state start { meta.a = hdr.labels.size; hdr.labels.size = 2; transition accept; }",
     "prog.p4:15:41: cannot write to '.size' of a header stack"),
])
def test_read_only_stack_members(errors_of, states, message):
    from .conftest import parser_program
    assert errors_of(parser_program(states)) == [message]
