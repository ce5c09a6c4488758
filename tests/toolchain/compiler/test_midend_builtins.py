"""What p4c's front/mid end adds that the program does not say: NoAction as the default of
a table without default_action (CreateBuiltins), and digest data copied at the call."""
from __future__ import annotations

from toolchain.compiler import compile_file
from toolchain.switch import SimpleSwitch, load_program

from .frontend.conftest import program_text

SET_C = "action set_c(bit<8> v) { meta.c = v; } "


def _compile(tmp_path, text):
    path = tmp_path / "prog.p4"
    path.write_text(text)
    return compile_file(str(path))


def _table(doc, name):
    return next(t for p in doc["pipelines"] for t in p["tables"] if t["name"] == name)


def test_table_without_default_action_gets_no_action_not_const(tmp_path):
    doc = _compile(tmp_path, program_text("", ingress=(
        SET_C + "table t { key = { meta.c: exact; } actions = { set_c; } } "
        "apply { switch (t.apply().action_run) { set_c: { meta.a = 1; } "
        "default: { hdr.ethernet.src = 2; } } sm.egress_spec = 1; }")))
    t = _table(doc, "I.t")
    assert t["actions"] == ["I.set_c", "NoAction"]
    assert t["default_entry"]["action_const"] is False
    action_names = {a["id"]: a["name"] for a in doc["actions"]}
    assert action_names[t["default_entry"]["action_id"]] == "NoAction"
    # on a miss action_run is NoAction: the switch takes its default branch
    sw = SimpleSwitch(load_program(doc), seed=1)
    (port, out), = sw.process(0, bytes(12) + b"\x08\x00")
    assert out[6:12] == bytes.fromhex("000000000002")
    sw.cli("table_set_default I.t I.set_c 7")            # not const: the control plane may
    (port, out), = sw.process(0, bytes(12) + b"\x08\x00")
    assert out[6:12] == bytes(6)


def test_table_with_default_action_keeps_it(tmp_path):
    doc = _compile(tmp_path, program_text("", ingress=(
        SET_C + "table t { key = { meta.c: exact; } actions = { set_c; } "
        "default_action = set_c(3); }"
        " apply { t.apply(); }")))
    assert _table(doc, "I.t")["actions"] == ["I.set_c"]


def test_digest_data_copied_into_scalars_before_the_call(tmp_path):
    doc = _compile(tmp_path, program_text("struct learn_t { bit<48> src; bit<8> c; }\n",
                                          ingress=(
        "apply { digest<learn_t>(1, { hdr.ethernet.src, meta.c }); hdr.ethernet.src = 0; }")))
    (learn,) = doc["learn_lists"]
    temps = [e["value"] for e in learn["elements"]]
    assert all(v[0] == "scalars" for v in temps)
    prims = [p for a in doc["actions"] for p in a["primitives"]]
    ops = [p["op"] for p in prims]
    first_digest = ops.index("generate_digest")
    copied = [p["parameters"][0]["value"] for p in prims[:first_digest] if p["op"] == "assign"]
    assert all(v in copied for v in temps)
