"""Sub-control instances are inlined (frontend/inline_controls.py) with p4c's control-plane
names; behaviour on packets is pinned by tests/toolchain/programs/sub_controls.{p4,stf}."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError, compile_file

from .frontend.conftest import program_text

SUB = """
control Sub(inout headers_t h, inout bit<8> x) {
    action set(bit<8> v) { x = v; }
    @name("renamed") action keep() { }
    table t { key = { h.ethernet.dst: exact; h.ethernet.isValid(): exact; }
              actions = { set; keep; } }
    apply { t.apply(); }
}
"""


def _compile(tmp_path, text):
    path = tmp_path / "prog.p4"
    path.write_text(text)
    return compile_file(str(path))


def test_sub_control_names_follow_p4c(tmp_path):
    doc = _compile(tmp_path, program_text(SUB, ingress="Sub() s; apply { s.apply(hdr, meta.c); }"))
    tables = {t["name"]: t for p in doc["pipelines"] for t in p["tables"]}
    assert "I.s.t" in tables
    assert [k["name"] for k in tables["I.s.t"]["key"]] == ["h.ethernet.dst",
                                                          "h.ethernet.$valid$"]
    names = {a["name"] for a in doc["actions"]}
    assert {"I.s.set", "I.s.renamed"} <= names


def test_sub_control_with_table_applied_twice_is_refused(tmp_path):
    text = program_text(SUB, ingress="Sub() s; apply { s.apply(hdr, meta.c); "
                                     "s.apply(hdr, meta.c); }")
    with pytest.raises(CompileError, match="instance .s. of control .Sub. applied more than once"):
        _compile(tmp_path, text)


def test_sub_control_with_control_constructor_parameter_is_refused(tmp_path):
    # value constructor parameters are substituted (tests/toolchain/programs/
    # sub_control_args.p4) and a named instance may be passed (control_arguments.p4); a
    # constructor call as the argument is not supported
    text = program_text("control Inner(inout bit<8> x) { apply { x = 1; } }\n"
                        "control C(inout bit<8> x)(Inner i) { apply { i.apply(x); } }\n",
                        ingress="C(Inner()) c; apply { c.apply(meta.c); }")
    with pytest.raises(CompileError, match="constructor parameters is not supported"):
        _compile(tmp_path, text)


def test_nested_sub_controls_names_accumulate_instance_names(tmp_path):
    inner = ("control Inner(inout headers_t h) { table t { key = { h.ethernet.src: exact; } "
             "actions = { NoAction; } } apply { t.apply(); } }\n"
             "control Mid(inout headers_t h) { Inner() in1; apply { in1.apply(h); } }\n")
    doc = _compile(tmp_path, program_text(inner, ingress="Mid() m; apply { m.apply(hdr); }"))
    tables = [t["name"] for p in doc["pipelines"] for t in p["tables"]]
    assert "I.m.in1.t" in tables


CT = """
control Step(inout bit<8> x);
control Count(inout bit<8> x) {
    counter(8, CounterType.packets) hits;
    apply { hits.count((bit<32>)x); x = x + 1; }
}
control Then(inout bit<8> x)(Step s) { apply { s.apply(x); } }
"""


def test_instance_given_to_two_controls_shares_its_externs(tmp_path):
    doc = _compile(tmp_path, program_text(
        CT, ingress="Count() c; Then(c) t1; Then(c) t2; "
                    "apply { t1.apply(meta.c); t2.apply(meta.c); }"))
    assert [c["name"] for c in doc["counter_arrays"]] == ["I.c.hits"]
    counts = [p for a in doc["actions"] for p in a["primitives"] if p["op"] == "count"]
    assert len(counts) == 2
    assert {p["parameters"][0]["value"] for p in counts} == {"I.c.hits"}


def test_direct_type_invocation_applies_an_instance_named_after_the_type(tmp_path):
    doc = _compile(tmp_path, program_text(CT, ingress="apply { Count.apply(meta.c); }"))
    assert [c["name"] for c in doc["counter_arrays"]] == ["I.Count.hits"]


def test_instance_with_a_table_given_to_two_controls_is_refused(tmp_path):
    text = program_text(SUB + """
control Step2(inout headers_t h, inout bit<8> x);
control Twice(inout headers_t h, inout bit<8> x)(Step2 s) { apply { s.apply(h, x); } }
""", ingress="Sub() s; Twice(s) a; Twice(s) b; apply { a.apply(hdr, meta.c); "
             "b.apply(hdr, meta.c); }")
    with pytest.raises(CompileError) as info:
        _compile(tmp_path, text)
    assert "applying a sub-parser or sub-control is not supported" in str(info.value)
