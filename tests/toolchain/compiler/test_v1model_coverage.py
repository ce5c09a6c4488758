"""Constructs of p4c's v1model sample programs the toolchain took on late, checked on the JSON
(the packets: programs/checksum_list_forms, union_locals, stack_element_validity,
headers_struct_scalars, directionless_control_params, frontend_forms,
sub_parser_state_locals and v1model_version_2020 .{p4,stf})."""
from __future__ import annotations

import textwrap

from toolchain.compiler import compile_file
from toolchain.compiler.backend.bmv2_schema import check_bmv2_json

from .conftest import PROGRAMS, compile_cached

BOILERPLATE = """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def compile_text(tmp_path, body: str) -> dict:
    path = tmp_path / "prog.p4"
    path.write_text("#include <core.p4>\n#include <v1model.p4>\n" + textwrap.dedent(body)
                    + BOILERPLATE)
    doc = compile_file(path)
    assert check_bmv2_json(doc) == []
    return doc


def test_checksum_inputs_flatten_constants_concatenations_and_widening_casts():
    doc = compile_cached(PROGRAMS / "checksum_list_forms.p4")
    update = next(c for c in doc["calculations"] if len(c["input"]) > 3)
    assert update["input"] == [
        {"type": "hexstr", "value": "0x11", "bitwidth": 8},
        {"type": "field", "value": ["h", "a"]},
        {"type": "field", "value": ["h", "b"]},
        {"type": "hexstr", "value": "0x0000", "bitwidth": 16},
        {"type": "field", "value": ["h", "len"]},
        {"type": "field", "value": ["scalars", "meta_t.hi"]},
        {"type": "field", "value": ["scalars", "meta_t.lo"]}]


def test_union_locals_are_header_unions_and_union_stacks_of_their_own():
    doc = compile_cached(PROGRAMS / "union_locals.p4")
    unions = [u["name"] for u in doc["header_unions"]]
    assert unions[:6] == ["u", "u2", "us[0]", "us[1]", "us2[0]", "us2[1]"]
    assert {"lu", "ls[0]", "ls[1]", "sl.u", "lu2"} <= set(unions)
    assert [s["name"] for s in doc["header_union_stacks"]] == ["us", "us2", "ls"]
    copies = [p for a in doc["actions"] for p in a["primitives"]
              if p["op"] == "assign_union_stack"]
    assert {"type": "header_union_stack", "value": "us2"} in [c["parameters"][0]
                                                             for c in copies]
    # in the parser a header copied into a union member is one assign_header: BMv2 itself
    # invalidates the member that was valid (the member belongs to a JSON header_union)
    state = next(s for s in doc["parsers"][0]["parse_states"] if s["name"] == "copy_b")
    assert state["parser_ops"] == [{"op": "primitive", "parameters": [{
        "op": "assign_header", "parameters": [{"type": "header", "value": "u.b"},
                                              {"type": "header", "value": "pb"}]}]}]


def test_run_time_element_validity_uses_valid_and_header_expressions():
    doc = compile_cached(PROGRAMS / "stack_element_validity.p4")
    element = {"type": "expression", "value": {
        "op": "dereference_header_stack", "left": {"type": "header_stack", "value": "hs"},
        "right": {"type": "field", "value": ["idx", "j"]}}}
    text = repr(doc)
    assert repr({"op": "valid", "left": None, "right": element}) in text
    ops = [p for a in doc["actions"] for p in a["primitives"] if p["op"] == "add_header"]
    assert any(p["parameters"] == [{"type": "expression", "value": element}] for p in ops)


def test_scalar_members_of_the_headers_struct_live_in_scalars():
    doc = compile_cached(PROGRAMS / "headers_struct_scalars.p4")
    scalars = next(t for t in doc["header_types"] if t["name"].startswith("scalars"))
    assert ["headers_t.count", 8, False] in scalars["fields"]
    assert ["headers_t.seen_last", 1, False] in scalars["fields"]


def test_inline_direct_counter_is_named_by_the_property(tmp_path):
    doc = compile_text(tmp_path, """
        header h_t { bit<8> a; }
        struct headers_t { h_t h; }
        struct meta_t { }
        control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
            table t1 {
                key = { hdr.h.a : exact; }
                actions = { NoAction; }
                counters = direct_counter(CounterType.packets);
            }
            table t2 {
                key = { hdr.h.a : exact; }
                actions = { NoAction; }
                @name("t2_hits") counters = direct_counter(CounterType.packets_and_bytes);
            }
            apply { t1.apply(); t2.apply(); }
        }
        """)
    arrays = {c["name"]: c for c in doc["counter_arrays"]}
    assert arrays["counter"]["is_direct"] and arrays["counter"]["binding"] == "I.t1"
    assert arrays["t2_hits"]["binding"] == "I.t2"
    tables = {t["name"]: t for p in doc["pipelines"] for t in p["tables"]}
    assert tables["I.t1"]["with_counters"] and tables["I.t2"]["with_counters"]


def test_v1model_2020_register_takes_an_index_type():
    doc = compile_cached(PROGRAMS / "v1model_version_2020.p4")
    assert [(r["name"], r["size"], r["bitwidth"]) for r in doc["register_arrays"]] == [
        ("I.r", 256, 32)]
    std = next(t for t in doc["header_types"] if t["name"] == "standard_metadata")
    assert std["fields"][:3] == [["ingress_port", 9, False], ["egress_spec", 9, False],
                                 ["egress_port", 9, False]]
