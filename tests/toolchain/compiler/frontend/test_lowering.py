"""Front-end rewrites: `pkt.lookahead<H>().f` becomes a slice of a bit lookahead."""
from __future__ import annotations

import struct
from pathlib import Path

from toolchain.compiler.frontend import ast as A
from toolchain.compiler.frontend import types as T

from .conftest import parser_program

HERE = Path(__file__).resolve().parent


def test_lookahead_header_field_becomes_a_slice_of_a_bit_lookahead(compile_p4):
    prog = compile_p4(parser_program(
        "state start { transition select(pkt.lookahead<ipv4_t>().ttl, "
        "pkt.lookahead<ipv4_t>().version, pkt.lookahead<label_t>().bos) "
        "{ (1, 4, 1): accept; default: reject; } }"))
    sel = prog.find(A.ParserDecl, "P")[0].states[0].transition
    ttl, version, bos = sel.exprs
    # ttl follows 64 bits of the IPv4 header: the low 8 of the first 72 bits
    assert isinstance(ttl, A.SliceExpr) and (ttl.hi_value, ttl.lo_value) == (7, 0)
    assert ttl.expr.builtin == "lookahead" and ttl.expr.type == T.Bits(72)
    assert ttl.expr.type_args == [T.Bits(72)] and ttl.type == T.Bits(8)
    assert version.expr.type == T.Bits(4) and version.type == T.Bits(4)
    assert bos.expr.type == T.Bits(24) and (bos.hi_value, bos.lo_value) == (0, 0)


def test_lookahead_bool_field_is_cast_back_to_bool(compile_p4):
    body = "header flag_t { bool f; bit<7> pad; }\n"
    prog = compile_p4(parser_program(
        "state start { meta.flag = pkt.lookahead<flag_t>().f; transition accept; }", body=body))
    (assign,) = [s for s in prog.find(A.ParserDecl, "P")[0].states[0].stmts
                 if isinstance(s, A.AssignStmt)]
    assert isinstance(assign.rhs, A.CastExpr) and assign.rhs.type == T.BOOL
    assert assign.rhs.expr.type == T.Bits(1) and assign.rhs.expr.expr.type == T.Bits(1)


def test_calculator_program_runs_on_the_embedded_target():
    from toolchain.compiler import compile_file
    from toolchain.switch import SimpleSwitch, load_program
    sw = SimpleSwitch(load_program(compile_file(HERE / "programs" / "calc.p4")), seed=1)
    eth = bytes.fromhex("000000000002" "000000000001") + b"\x12\x34"
    request = eth + b"P4\x01+" + struct.pack("!III", 3, 4, 0)
    ((port, frame),) = sw.process(5, request)
    assert port == 5 and frame[:12] == bytes.fromhex("000000000001" "000000000002")
    assert struct.unpack("!III", frame[18:30]) == (3, 4, 7)
    assert sw.process(5, eth + b"P4\x02+" + struct.pack("!III", 3, 4, 0)) == []   # bad version


IF_PARSER = """state start {
    pkt.extract(hdr.ethernet);
    bit<8> k = 1;
    if (hdr.ethernet.etherType == 0x0800) {
        meta.c = k;
        if (hdr.ethernet.dst == 0) { meta.a = 5; }
    } else {
        meta.c = 2;
    }
    meta.b = (bit<32>)meta.c + 10;
    transition accept;
}"""


def test_if_in_a_parser_state_becomes_a_select_and_states(compile_p4):
    prog = compile_p4(parser_program(IF_PARSER))
    parser = prog.find(A.ParserDecl, "P")[0]
    assert [s.name for s in parser.states] == [
        "start", "start_true", "start_true_true", "start_true_false", "start_true_join",
        "start_false", "start_join"]
    start = parser.states[0]
    assert [type(s).__name__ for s in start.stmts] == ["CallStmt", "VarDecl"]
    sel = start.transition
    assert isinstance(sel, A.SelectExpr) and sel.exprs[0].type == T.BOOL
    assert [c.state.decl.name for c in sel.cases] == ["start_true", "start_false"]
    join = parser.states[-1]
    assert join.transition.decl.builtin and join.transition.decl.name == "accept"
    for s in parser.states:
        assert not any(isinstance(n, (A.IfStmt, A.BlockStmt)) for n in s.stmts)


def test_if_in_a_parser_state_runs_on_the_embedded_target(tmp_path):
    from toolchain.compiler import compile_file
    from toolchain.switch import SimpleSwitch, load_program
    text = parser_program(IF_PARSER).replace(
        "control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) "
        "{ apply { } }",
        "control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) "
        "{ apply { sm.egress_spec = 1; hdr.ethernet.src = meta.b ++ 8w0 ++ meta.a[7:0]; } }")
    path = tmp_path / "pif.p4"
    path.write_text(text)
    sw = SimpleSwitch(load_program(compile_file(path)), seed=1)
    for ether_type, dst, src in ((b"\x08\x00", bytes(6), "0000000b0005"),
                                 (b"\x08\x00", b"\x01" * 6, "0000000b0000"),
                                 (b"\x86\xdd", bytes(6), "0000000c0000")):
        ((_, frame),) = sw.process(0, dst + bytes(6) + ether_type + bytes(20))
        assert frame[6:12].hex() == src


def test_header_equality_compares_validity_and_fields(check_ingress):
    prog = check_ingress("apply { meta.flag = hdr.ethernet == hdr.ethernet; "
                         "meta.flag = hdr.labels != hdr.labels; }")
    eq, ne = [n for n in A.walk(prog) if isinstance(n, A.AssignStmt)
              and n.pos.file.endswith("prog.p4")]
    # (!a.isValid() && !b.isValid()) || (a.isValid() && b.isValid() && fields...)
    assert eq.rhs.op == "||" and eq.rhs.type == T.BOOL
    leaves = [n for n in A.walk(eq.rhs) if isinstance(n, A.BinaryExpr) and n.op == "=="]
    assert sorted(l.left.member for l in leaves) == ["dst", "etherType", "src"]
    assert all(l.left is not l.right and l.left.type == l.right.type for l in leaves)
    assert ne.rhs.op == "==" and ne.rhs.right.folded is False       # !(...) as (...) == false
    stack_leaves = [n for n in A.walk(ne.rhs) if isinstance(n, A.BinaryExpr) and n.op == "=="
                    and isinstance(n.left, A.MemberExpr)]
    assert len(stack_leaves) == 4 * 4                                 # 4 elements x 4 fields
    for n in A.walk(prog):
        if isinstance(n, A.Expr):
            assert n.type is not None


def test_header_equality_runs_on_the_embedded_target(tmp_path):
    from toolchain.compiler import compile_file
    from toolchain.switch import SimpleSwitch, load_program
    from .conftest import program_text
    text = program_text("header pair_t { bit<8> a; bit<8> b; }\n", ingress="""
        apply {
            sm.egress_spec = 1;
            meta.c = 0;
            if (hdr.ethernet == hdr.ethernet) { meta.c = meta.c | 1; }
            ethernet_t e = hdr.ethernet;
            e.etherType = 1;
            if (e != hdr.ethernet) { meta.c = meta.c | 2; }
            pair_t p; pair_t q;
            if (p == q) { meta.c = meta.c | 4; }
            q.setValid(); q.a = 1; q.b = 7;
            if (p != q) { meta.c = meta.c | 8; }
            p.setValid(); p.a = 1; p.b = 7;
            if (p == q) { meta.c = meta.c | 16; }
            p.b = 8;
            if (p == q) { meta.c = meta.c | 32; }
            hdr.ethernet.src = 40w0 ++ meta.c;
        }""")
    path = tmp_path / "eq.p4"
    path.write_text(text)
    sw = SimpleSwitch(load_program(compile_file(path)), seed=1)
    ((_, frame),) = sw.process(0, bytes(12) + b"\x08\x00" + bytes(20))
    assert frame[11] == 1 | 2 | 4 | 8 | 16
