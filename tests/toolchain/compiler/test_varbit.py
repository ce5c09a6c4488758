"""varbit fields in the BMv2 JSON, shaped as p4c's BMv2 back end writes them and as
behavioral-model's loader reads them (JSON_format.md "header_types", "extract_VL"):
a "*" field and the type's max_length in bytes; extract_VL's second parameter an
"expression" wrapping a type/value node; assign_VL for varbit copies in actions, `set` in
parser states; a varbit local in a metadata instance of its own type "$varbit<W>"."""
from __future__ import annotations

import re

import pytest

from toolchain.compiler import CompileError, compile_file
from toolchain.compiler.backend.bmv2_schema import check_bmv2_json

from .conftest import PROGRAMS, compile_cached

HEAD = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> len; varbit<64> data; }
struct headers_t { h_t a; h_t b; }
struct meta_t { bit<32> bits; }
"""
TAIL = """
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.a); pkt.emit(hdr.b); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
PARSER = """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { %s transition accept; }
}
"""
INGRESS = """
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { %s }
"""


def compile_text(tmp_path, states: str, ingress: str = "apply { }") -> dict:
    path = tmp_path / "prog.p4"
    path.write_text(HEAD + PARSER % states + INGRESS % ingress + TAIL)
    doc = compile_file(path)
    assert check_bmv2_json(doc) == []
    return doc


def compile_error(tmp_path, states: str, ingress: str = "apply { }") -> str:
    path = tmp_path / "prog.p4"
    path.write_text(HEAD + PARSER % states + INGRESS % ingress + TAIL)
    with pytest.raises(CompileError) as info:
        compile_file(path)
    return str(info.value)


def ops(doc: dict, state: str = "start") -> list:
    (s,) = [s for s in doc["parsers"][0]["parse_states"] if s["name"] == state]
    return s["parser_ops"]


def primitives(doc: dict) -> list:
    return [p for a in doc["actions"] for p in a["primitives"]]


def test_header_type_varbit_field_is_star_with_max_length_in_bytes(tmp_path):
    doc = compile_text(tmp_path, "pkt.extract(hdr.a, 32w16);")
    (t,) = [t for t in doc["header_types"] if t["name"] == "h_t"]
    assert t["fields"] == [["len", 8, False], ["data", "*"]]
    assert t["max_length"] == 9                  # (8 + 64) bits
    (eth,) = [t for t in doc["header_types"] if t["name"] == "standard_metadata"]
    assert "max_length" not in eth


def test_extract_vl_length_constant_is_wrapped_hexstr(tmp_path):
    doc = compile_text(tmp_path, "pkt.extract(hdr.a, 32w16);")
    assert ops(doc) == [{"op": "extract_VL", "parameters": [
        {"type": "regular", "value": "a"},
        {"type": "expression", "value": {"type": "hexstr", "value": "0x00000010"}}]}]


def test_extract_vl_length_field_is_wrapped_field(tmp_path):
    doc = compile_text(tmp_path, "pkt.extract(hdr.a, meta.bits);")
    assert ops(doc)[-1]["parameters"][1] == {
        "type": "expression", "value": {"type": "field", "value": ["scalars", "meta_t.bits"]}}


def test_extract_vl_length_expression_is_wrapped_twice(tmp_path):
    # BMv2's loader builds the length from the parameter's value: an expression tree must
    # itself be a {"type": "expression"} node there (P4Objects::init_parsers)
    doc = compile_text(tmp_path, "pkt.extract(hdr.a, meta.bits << 3);")
    length = ops(doc)[-1]["parameters"][1]
    assert length["type"] == "expression"
    assert length["value"]["type"] == "expression"
    assert length["value"]["value"]["op"] == "&"       # the shift reduced to 32 bits
    assert length["value"]["value"]["left"]["value"]["op"] == "<<"


def test_extract_vl_length_with_lookahead_reads_a_temporary_first(tmp_path):
    doc = compile_text(tmp_path, "pkt.extract(hdr.a, (bit<32>)pkt.lookahead<bit<8>>() * 8);")
    first, second = ops(doc)
    assert first["op"] == "set" and first["parameters"][1] == {"type": "lookahead",
                                                              "value": [0, 8]}
    assert second["op"] == "extract_VL"


def test_extract_vl_into_stack_next(tmp_path):
    path = tmp_path / "prog.p4"
    path.write_text(HEAD.replace("struct headers_t { h_t a; h_t b; }",
                                 "struct headers_t { h_t a; h_t b; h_t[2] s; }")
                    + PARSER % "pkt.extract(hdr.s.next, 32w8);" + INGRESS % "apply { }" + TAIL)
    doc = compile_file(path)
    assert check_bmv2_json(doc) == []
    assert ops(doc)[0]["parameters"][0] == {"type": "stack", "value": "s"}
    assert ops(doc)[0]["op"] == "extract_VL"


def test_varbit_field_copy_in_action_is_assign_vl(tmp_path):
    doc = compile_text(tmp_path, "pkt.extract(hdr.a, 32w8);",
                       "apply { hdr.b.data = hdr.a.data; }")
    assert {"op": "assign_VL", "parameters": [{"type": "field", "value": ["b", "data"]},
                                              {"type": "field", "value": ["a", "data"]}]} \
        in [{k: p[k] for k in ("op", "parameters")} for p in primitives(doc)]


def test_varbit_field_copy_in_parser_is_set_as_p4c(tmp_path):
    doc = compile_text(tmp_path, "pkt.extract(hdr.a, 32w8); hdr.b.data = hdr.a.data;")
    assert ops(doc)[-1] == {"op": "set", "parameters": [
        {"type": "field", "value": ["b", "data"]}, {"type": "field", "value": ["a", "data"]}]}


def test_varbit_local_lives_in_its_own_metadata_instance(tmp_path):
    doc = compile_text(tmp_path, "pkt.extract(hdr.a, 32w8);",
                       "apply { varbit<64> t = hdr.a.data; hdr.a.data = hdr.b.data; "
                       "hdr.b.data = t; }")
    (t,) = [t for t in doc["header_types"] if t["name"] == "$varbit64"]
    assert t["fields"] == [["field", "*"]] and t["max_length"] == 8
    (inst,) = [h for h in doc["headers"] if h["header_type"] == "$varbit64"]
    assert inst["metadata"] is True
    copies = [p["parameters"] for p in primitives(doc) if p["op"] == "assign_VL"]
    assert copies[0] == [{"type": "field", "value": [inst["name"], "field"]},
                         {"type": "field", "value": ["a", "data"]}]
    assert len(copies) == 3


def test_varbit_equality_compares_the_fields(tmp_path):
    doc = compile_text(tmp_path, "pkt.extract(hdr.a, 32w8);",
                       "apply { if (hdr.a.data == hdr.b.data) { sm.egress_spec = 1; } }")
    (cond,) = doc["pipelines"][0]["conditionals"]
    assert cond["expression"]["value"] == {"op": "==",
                                           "left": {"type": "field", "value": ["a", "data"]},
                                           "right": {"type": "field", "value": ["b", "data"]}}


def test_min_size_counts_a_varbit_as_empty(tmp_path):
    doc = compile_text(tmp_path, "pkt.extract(hdr.a, 32w8);",
                       "apply { meta.bits = (bit<32>)hdr.a.minSizeInBits(); }")
    values = [p["parameters"][1] for p in primitives(doc) if p["op"] == "assign"]
    assert {"type": "hexstr", "value": "0x00000008"} in values


def test_one_argument_extract_of_a_varbit_header_is_an_error(tmp_path):
    assert "extract of header type h_t needs the length in bits of its varbit field" in \
        compile_error(tmp_path, "pkt.extract(hdr.a);")


def test_varbit_arithmetic_is_an_error(tmp_path):
    msg = compile_error(tmp_path, "pkt.extract(hdr.a, 32w8);",
                        "apply { if (hdr.a.data < hdr.b.data) { } }")
    assert "'<' needs numeric operands, not varbit<64>" in msg


def test_varbit_action_parameter_is_refused_at_the_call(tmp_path):
    # its copy-in/copy-out temporary would have to live in `scalars`
    ingress = ("action f(inout varbit<64> v) { v = hdr.b.data; } "
               "apply { f(hdr.a.data); }")
    msg = compile_error(tmp_path, "pkt.extract(hdr.a, 32w8);", ingress)
    assert re.search(r"prog\.p4:11:\d+: error: a varbit value in 'v' .* is not supported", msg)


def test_varbit_program_json_passes_the_loader_rules():
    doc = compile_cached(PROGRAMS / "varbit.p4")
    assert check_bmv2_json(doc) == []
    assert sum(p["op"] == "extract_VL" for s in doc["parsers"][0]["parse_states"]
               for p in s["parser_ops"]) == 3


def test_varbit_metadata_field_lives_in_its_own_metadata_instance(tmp_path):
    # p4c's issue1291-bmv2 declares one; header.cpp gives it a metadata instance of its own
    path = tmp_path / "prog.p4"
    path.write_text((HEAD + PARSER % "pkt.extract(hdr.a, 32w8);"
                     + INGRESS % "apply { meta.v = hdr.a.data; hdr.b.data = meta.v; }"
                     + TAIL).replace("struct meta_t { bit<32> bits; }",
                                     "struct meta_t { bit<32> bits; varbit<64> v; }"))
    doc = compile_file(path)
    assert check_bmv2_json(doc) == []
    (inst,) = [h for h in doc["headers"] if h["name"] == "meta_t.v"]
    assert inst["header_type"] == "$varbit64" and inst["metadata"] is True
    copies = [p["parameters"] for p in primitives(doc) if p["op"] == "assign_VL"]
    assert copies[0][0] == {"type": "field", "value": ["meta_t.v", "field"]}


def test_varbit_member_of_struct_variable_is_refused_with_position(tmp_path):
    path = tmp_path / "prog.p4"
    path.write_text((HEAD + PARSER % "" + INGRESS % "apply { s_t s; s.n = 1; meta.bits = (bit<32>)s.n; }"
                     + TAIL).replace("struct meta_t", "struct s_t { bit<8> n; varbit<16> v; }\n"
                                                      "struct meta_t"))
    with pytest.raises(CompileError) as info:
        compile_file(path)
    assert "prog.p4:5:24: error: local variables with a varbit<16> member are not " \
        "supported" in str(info.value)
