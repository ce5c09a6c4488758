"""Stacks of header unions in the parser, as p4c's BMv2 back end writes them: the JSON
sections "header_union_types", "header_unions" and "header_union_stacks"; `u.next.m` as an
extract target ({"type": "union_stack", "value": [u, m]}, also extract_VL); `u.last.m.f` as
a select key ("union_stack_field" [u, m, f], JSON_format.md); `u.lastIndex` as
last_stack_index of the header_union_stack. Packets: programs/union_stacks.{p4,stf}."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError, compile_file
from toolchain.compiler.backend.bmv2_schema import check_bmv2_json
from toolchain.compiler.driver import main

from .conftest import PROGRAMS, compile_cached

UNION_STACK = {"type": "header_union_stack", "value": "u"}


def _doc():
    return compile_cached(PROGRAMS / "union_stacks.p4")


def _state(doc, name):
    return next(s for s in doc["parsers"][0]["parse_states"] if s["name"] == name)


def test_union_stack_sections_name_unions_and_members_as_p4c():
    doc = _doc()
    assert doc["header_union_types"] == [
        {"name": "opt_t", "id": 0, "headers": [["a", "a_t"], ["b", "b_t"], ["v", "v_t"]]}]
    ids = {h["name"]: h["id"] for h in doc["headers"]}
    assert doc["header_unions"] == [
        {"name": f"u[{i}]", "id": i, "union_type": "opt_t", "pi_omit": True,
         "header_ids": [ids[f"u[{i}].{m}"] for m in "abv"]} for i in range(3)]
    assert doc["header_union_stacks"] == [
        {"name": "u", "id": 0, "union_type": "opt_t", "size": 3, "header_union_ids": [0, 1, 2]}]
    # the elements' members come after the other headers, as p4c's addHeaderStacks adds them
    names = [h["name"] for h in doc["headers"]]
    assert names.index("h") < names.index("u[0].a") and names[-1] == "u[2].v"


def test_next_member_is_a_union_stack_extract():
    doc = _doc()
    assert _state(doc, "next_a")["parser_ops"][0] == {
        "parameters": [{"type": "union_stack", "value": ["u", "a"]}], "op": "extract"}
    vl = next(op for op in _state(doc, "next_v")["parser_ops"] if op["op"] == "extract_VL")
    assert vl["parameters"][0] == {"type": "union_stack", "value": ["u", "v"]}
    assert vl["parameters"][1]["type"] == "expression"
    # no explicit invalidation after it: BMv2 keeps the union's one valid member itself
    assert [op["op"] for op in _state(doc, "next_a")["parser_ops"]] == ["extract", "set"]


def test_last_member_field_is_a_union_stack_field_key():
    doc = _doc()
    assert _state(doc, "next_a")["transition_key"] == [
        {"type": "union_stack_field", "value": ["u", "a", "t"]}]
    # two keys, each padded to a byte: (d, t) = (0xFF, _) is value 0xff00 mask 0xff00
    next_b = _state(doc, "next_b")
    assert next_b["transition_key"] == [
        {"type": "union_stack_field", "value": ["u", "b", "d"]},
        {"type": "union_stack_field", "value": ["u", "b", "t"]}]
    assert next_b["transitions"][0] == {"type": "hexstr", "value": "0xff00", "mask": "0xff00",
                                        "next_state": None}


def test_last_index_reads_the_union_stack():
    (last,) = [op for op in _state(_doc(), "next_a")["parser_ops"] if op["op"] == "set"]
    assert last["parameters"][1] == {"type": "expression", "value": {
        "type": "expression", "value": {"op": "last_stack_index", "left": None,
                                        "right": UNION_STACK}}}


def test_union_stack_program_passes_the_bmv2_loader_rules():
    assert check_bmv2_json(_doc()) == []


def test_loader_rules_report_an_unknown_union_stack_member():
    doc = _doc()
    _state(doc, "next_a")["parser_ops"][0]["parameters"][0]["value"][1] = "zz"
    assert any("unknown field name 'zz' in the union type" in str(p)
               for p in check_bmv2_json(doc))


def test_loader_rules_keep_dereference_of_a_union_stack_a_header_stack_op():
    doc = _doc()
    op = _state(doc, "next_a")["parser_ops"][1]["parameters"][1]["value"]["value"]
    op.update({"op": "dereference_header_stack", "left": UNION_STACK,
               "right": {"type": "hexstr", "value": "0x00"}})
    assert any("expected a header_stack value, got header_union_stack" in str(p)
               for p in check_bmv2_json(doc))


PROGRAM = """#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> t; bool f; bit<7> pad; }
header b_t { bit<16> c; }
header_union u_t { a_t a; b_t b; }
struct headers_t { a_t h; u_t[2] u; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); pkt.extract(hdr.u.next.a); STMT transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _errors(tmp_path, stmt, transition=None):
    text = PROGRAM.replace("STMT", stmt)
    if transition is not None:
        text = text.replace("transition accept;", transition)
    path = tmp_path / "prog.p4"
    path.write_text(text)
    with pytest.raises(CompileError) as info:
        compile_file(str(path))
    return [e.message for e in info.value.errors]


@pytest.mark.parametrize("stmt, transition, message", [
    # BMv2 reads the last union's field only as a transition key
    ("meta.m = hdr.u.last.a.t;", None,
     "hdr.u.last.a.t: a field of a header union stack's .last member can only be a select key"),
    ("", "transition select(hdr.u.last.a.t + 1) { 0: accept; default: accept; }",
     "hdr.u.last.a.t: a field of a header union stack's .last member can only be a select key"),
    ("", "transition select(hdr.u.last.a.f) { true: accept; default: accept; }",
     "hdr.u.last.a.f: a bool field of a header union stack's .last member as a select key is "
     "not supported"),
    # .next of a union stack is only an extract target (p4c: "next field read")
    ("meta.m = hdr.u.next.a.t;", None,
     "hdr.u.next.a.t: a member of a header union stack's .next can only be extracted into"),
    ("pkt.extract(hdr.u.next);", None, "extract needs a header, not u_t"),
    ("meta.m = hdr.u.last.zz.t;", None, "header_union u_t has no field 'zz'"),
])
def test_unsupported_union_stack_uses_are_refused_by_name(tmp_path, stmt, transition, message):
    assert message in _errors(tmp_path, stmt, transition)


def test_refused_union_stack_use_is_one_error_line_and_no_json(tmp_path, monkeypatch, capsys):
    (tmp_path / "prog.p4").write_text(PROGRAM.replace("STMT", "meta.m = hdr.u.last.a.t;"))
    monkeypatch.chdir(tmp_path)
    assert main(["prog.p4", "-o", "out.json"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("prog.p4:9:") and "can only be a select key" in err[0]
    assert "Traceback" not in "\n".join(err)
    assert not (tmp_path / "out.json").exists()
