"""Our JSON for the kit programs, key by key against real p4c 1.2.4's, where it matters to
BMv2 and its control plane.

What must be equal: everything simple_switch_CLI and the runtime see (table match types,
sizes, key names and match kinds, action lists, default entries with their const flags,
const entries with priorities, action parameters, stateful arrays, checksums, field lists,
parser transitions, deparser order). What may differ, and is not compared: ids (BMv2 looks
objects up by name; tables refer to actions by id within the same file), the names of
conditionals (`node_N`) and compiler temporaries (`tmp`, `key_0`), the order of actions and
of the keys inside an object, the exact form of equivalent expressions (p4c masks more),
and `__meta__.compiler`.
"""
from __future__ import annotations

import json

import pytest

from .conftest import KIT_PROGRAMS, compile_cached


def _drop_ids(obj):
    if isinstance(obj, dict):
        return {k: _drop_ids(v) for k, v in obj.items() if k not in ("id", "source_info")}
    if isinstance(obj, list):
        return [_drop_ids(x) for x in obj]
    return obj


def control_plane_tables(doc: dict) -> dict:
    """User tables (p4c's synthetic `tbl_*` ones excluded) with action ids as names."""
    names = {a["id"]: a["name"] for a in doc["actions"]}
    out = {}
    for pipe in doc["pipelines"]:
        for t in pipe["tables"]:
            if t["name"].startswith("tbl_"):
                continue
            default = t.get("default_entry")
            out[t["name"]] = {
                "key": [(k["name"], k["match_type"], k.get("mask")) for k in t["key"]],
                "match_type": t["match_type"], "type": t["type"], "max_size": t["max_size"],
                "with_counters": t["with_counters"], "support_timeout": t["support_timeout"],
                "direct_meters": t["direct_meters"], "actions": t["actions"],
                "action_names_by_id": [names[i] for i in t["action_ids"]],
                "default_entry": None if default is None else
                (names[default["action_id"]], default["action_data"],
                 default.get("action_const"), default.get("action_entry_const")),
                "entries": [(e["match_key"], names[e["action_entry"]["action_id"]],
                             e["action_entry"]["action_data"], e["priority"])
                            for e in t.get("entries", [])],
            }
    return out


def user_actions(doc: dict) -> dict:
    return {a["name"]: a["runtime_data"] for a in doc["actions"]
            if "." in a["name"] or a["name"] == "NoAction"}


def parser_transitions(doc: dict) -> dict:
    return {s["name"]: [(t.get("type", "hexstr"), t["value"], t.get("mask"), t["next_state"])
                        for t in s["transitions"]]
            for p in doc["parsers"] for s in p["parse_states"]}


def checksums(doc: dict) -> list:
    algo = {c["name"]: c["algo"] for c in doc["calculations"]}
    return sorted((c["target"], c["type"], algo.get(c["calculation"]), c["verify"], c["update"])
                  for c in doc["checksums"])


@pytest.fixture(params=KIT_PROGRAMS)
def pair(request, kit_dir):
    name = request.param
    return compile_cached(kit_dir / f"{name}.p4"), json.loads((kit_dir / f"{name}.json").read_text())


def test_tables_match_p4c_for_the_control_plane(pair):
    ours, ref = pair
    assert control_plane_tables(ours) == control_plane_tables(ref)


def test_action_parameters_match_p4c(pair):
    ours, ref = pair
    assert user_actions(ours) == user_actions(ref)


def test_stateful_arrays_match_p4c(pair):
    ours, ref = pair
    for kind in ("register_arrays", "counter_arrays", "meter_arrays"):
        by_name = lambda doc: {o["name"]: o for o in _drop_ids(doc[kind])}
        assert by_name(ours) == by_name(ref), kind


def test_checksums_match_p4c(pair):
    ours, ref = pair
    assert checksums(ours) == checksums(ref)


def test_field_and_learn_lists_match_p4c(pair):
    ours, ref = pair
    for kind in ("field_lists", "learn_lists"):
        assert _drop_ids(ours[kind]) == _drop_ids(ref[kind]), kind
        # ids are handles, but BMv2 needs them non-zero (see externs.field_list_ids)
        assert all(fl["id"] >= 1 for fl in ours[kind])


def test_parser_transitions_and_deparser_order_match_p4c(pair):
    ours, ref = pair
    assert parser_transitions(ours) == parser_transitions(ref)
    assert [d["order"] for d in ours["deparsers"]] == [d["order"] for d in ref["deparsers"]]


def test_top_level_keys_and_version_match_p4c(pair):
    ours, ref = pair
    assert list(ours) == list(ref)
    assert ours["__meta__"]["version"] == ref["__meta__"]["version"]
    assert ours["field_aliases"] == ref["field_aliases"]
    assert ours["errors"] == ref["errors"]


SWITCH_ON_MISS = """
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action a() { hdr.ethernet.ether_type = 1; }
    table t { key = { hdr.ethernet.dst: exact; } actions = { a; } }
    apply {
        std.egress_spec = 1;
        switch (t.apply().action_run) {
            a: { hdr.ethernet.src = 1; }
            default: { hdr.ethernet.src = 2; }
        }
    }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_table_without_default_action_gets_noaction_like_p4c(tmp_path):
    """p4c adds NoAction (@defaultonly) to such a table and makes it the default: the control
    plane can `table_set_default t NoAction`, and on a miss `action_run` is NoAction, so a
    `switch` takes its `default:` branch."""
    from toolchain.compiler import compile_file
    from toolchain.switch import SimpleSwitch, load_program
    path = tmp_path / "switch_on_miss.p4"
    path.write_text(SWITCH_ON_MISS)
    doc = compile_file(path)
    t = control_plane_tables(doc)["I.t"]
    assert "NoAction" in t["actions"] and t["default_entry"][0] == "NoAction"
    (port, out), = SimpleSwitch(load_program(doc), seed=1).process(0, bytes(12) + b"\x08\x00")
    assert out[6:12] == bytes.fromhex("000000000002")       # the default: branch ran


DIGEST_THEN_REWRITE = """
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t ethernet; }
struct learn_t { bit<48> src; bit<9> port; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        digest<learn_t>(1, { hdr.ethernet.src, std.ingress_port });
        hdr.ethernet.src = 0;
        std.egress_spec = 1;
    }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_digest_data_is_copied_at_the_call_like_p4c(tmp_path):
    """v1model.p4: the digest carries the values the fields have when digest() is called,
    even if ingress changes them later. simple_switch reads the learn list's fields at the
    end of ingress, so p4c (e.g. behavioral-model's simple_switch_grpc digest.json) lists
    scalar temporaries assigned at the call, never the live header fields."""
    from toolchain.compiler import compile_file
    path = tmp_path / "digest.p4"
    path.write_text(DIGEST_THEN_REWRITE)
    (learn,) = compile_file(path)["learn_lists"]
    assert all(e["value"][0] == "scalars" for e in learn["elements"])
