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
    # sub_control_args.p4); a control passed as a constructor argument is not supported
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
