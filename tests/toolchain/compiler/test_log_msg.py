"""log_msg with a header or struct among its values: BMv2's log_msg takes integral values only,
so p4c's FlattenLogMsg (midend/flattenLogMsg.cpp) logs the fields in order and rewrites the
value's `{}` to "(f1:{},f2:{},...)", a nested struct as "name:(...)". The expected texts below
are the ones p4c's midend writes for its issue2201-bmv2 sample."""
from __future__ import annotations

from toolchain.compiler import compile_file
from toolchain.compiler.backend.bmv2_schema import check_bmv2_json

from .frontend.conftest import program_text

EXTRA = "struct inner_t { bit<8> x; bool y; }\nstruct pair_t { bit<16> k; inner_t in1; }\n"


def _logs(tmp_path, ingress: str) -> list:
    path = tmp_path / "prog.p4"
    path.write_text(program_text(EXTRA, ingress=ingress))
    doc = compile_file(str(path))
    assert check_bmv2_json(doc) == []
    return [(p["parameters"][0]["value"], p["parameters"][1]["value"])
            for a in doc["actions"] for p in a["primitives"] if p["op"] == "log_msg"]


def _field(header, name):
    return {"type": "field", "value": [header, name]}


def test_log_msg_header_is_logged_field_by_field(tmp_path):
    (log,) = _logs(tmp_path, 'apply { log_msg("eth={}", {hdr.ethernet}); }')
    assert log == ("eth=(dst:{},src:{},etherType:{})",
                   [_field("ethernet", "dst"), _field("ethernet", "src"),
                    _field("ethernet", "etherType")])


def test_log_msg_struct_placeholders_keep_surrounding_text_and_scalars(tmp_path):
    (log,) = _logs(tmp_path, "pair_t p; apply { p.k = 1; p.in1.x = 2; p.in1.y = true;\n"
                             'log_msg("a={} p={} end", {meta.c, p}); }')
    text, values = log
    assert text == "a={} p=(k:{},in1:(x:{},y:{})) end"
    assert len(values) == 4 and values[0] == _field("scalars", "meta_t.c")


def test_log_msg_without_aggregates_is_unchanged(tmp_path):
    (log,) = _logs(tmp_path, 'apply { log_msg("{} and {}", {meta.a, meta.b}); }')
    assert log == ("{} and {}", [_field("scalars", "meta_t.a"), _field("scalars", "meta_t.b")])
