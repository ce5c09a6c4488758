"""for loops in the BMv2 JSON: the jump layout of p4c's BMv2 back end (ActionConverter,
ForStatement), loops in apply blocks inside one synthesized action, and the refusals."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError, compile_file
from toolchain.compiler.backend.bmv2_schema import check_bmv2_json

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> n; bit<8> s; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
%s
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    %s
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


# the action stays a named action when a table runs it (a direct call is inlined)
TABLE = "table t { actions = { a; } default_action = a(); } apply { t.apply(); }"


def compile_text(tmp_path, ingress: str, top: str = "") -> dict:
    ingress = ingress.replace("TABLE", TABLE)
    path = tmp_path / "prog.p4"
    path.write_text(PROGRAM % (top, ingress))
    doc = compile_file(path)
    assert check_bmv2_json(doc) == []
    return doc


def ops_of(doc: dict, name: str) -> list:
    (a,) = [a for a in doc["actions"] if a["name"] == name]
    return [(p["op"], p["parameters"][-1]["value"] if p["op"].startswith("_jump") else None)
            for p in a["primitives"]]


def test_loop_in_action_jumps_as_p4c(tmp_path):
    doc = compile_text(tmp_path, "action a() { for (bit<8> i = 0; i < hdr.h.n; i = i + 1) "
                                 "{ hdr.h.s = hdr.h.s + i; } } TABLE")
    # init; 1: _jump_if_zero(cond, end); body; update; _jump(1); end
    assert ops_of(doc, "I.a") == [("assign", None), ("_jump_if_zero", "0x00000005"),
                                  ("assign", None), ("assign", None),
                                  ("_jump", "0x00000001")]


def test_break_and_continue_jump_to_end_and_update(tmp_path):
    doc = compile_text(tmp_path, "action a() { for (bit<8> i = 0; i < 8; i = i + 1) { "
                                 "if (i == hdr.h.n) { break; } if (i == 2) { continue; } "
                                 "hdr.h.s = i; } } TABLE")
    ops = ops_of(doc, "I.a")
    # 0 init, 1 cond, 2 if i == n, 3 break -> end (9), 4 if i == 2, 5 continue -> update (7)
    assert ops[3] == ("_jump", "0x00000009")
    assert ops[5] == ("_jump", "0x00000007")
    assert ops[8] == ("_jump", "0x00000001") and len(ops) == 9


def test_loop_that_never_runs_keeps_only_its_init(tmp_path):
    doc = compile_text(tmp_path, "action a() { for (bit<8> i = 3; false; i = i + 1) "
                                 "{ hdr.h.s = i; } } TABLE")
    assert ops_of(doc, "I.a") == [("assign", None)]


def test_loop_in_apply_block_is_one_synthesized_action(tmp_path):
    doc = compile_text(tmp_path, "apply { for (bit<8> i = 0; i < hdr.h.n; i = i + 1) "
                                 "{ hdr.h.s = hdr.h.s + 1; } }")
    looping = [a for a in doc["actions"]
               if any(p["op"] == "_jump" for p in a["primitives"])]
    assert len(looping) == 1


@pytest.mark.parametrize("ingress,top,message", [
    ("table t { actions = { NoAction; } } apply { for (bit<8> i = 0; i < 2; i = i + 1) "
     "{ t.apply(); } }", "",
     "a table apply inside a for loop of an apply block is not supported"),
    ("apply { for (bit<8> i = 0; i < 2; i = i + 1) { exit; } }", "",
     "exit inside a for loop of an apply block is not supported"),
    ("apply { for (bit<8> i = 0; f(i); i = i + 1) { } }",
     "bool f(in bit<8> x) { return x < 3; }",
     "a function call in a for loop's condition is not supported"),
])
def test_loop_refusals(tmp_path, ingress, top, message):
    path = tmp_path / "prog.p4"
    path.write_text(PROGRAM % (top, ingress))
    with pytest.raises(CompileError) as info:
        compile_file(path)
    assert message in str(info.value) and "prog.p4:" in str(info.value)
