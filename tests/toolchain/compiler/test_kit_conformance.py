"""The conformance kit (tests/data/p4-kit): our JSON for each kit program must run the kit's
STF (expected packets from real simple_switch) on the embedded target, and name its tables,
actions, registers and header types as real p4c 1.2.4 does, so that commands files and STF
work on both toolchains."""
from __future__ import annotations

import json

import pytest

from .conftest import KIT_PROGRAMS, compile_cached


def _api_actions(doc: dict) -> set:
    """Action names the control plane uses (p4c's synthetic actions have no dot)."""
    return {a["name"] for a in doc["actions"] if "." in a["name"] or a["name"] == "NoAction"}


def _api_tables(doc: dict) -> set:
    return {t["name"] for p in doc["pipelines"] for t in p["tables"]
            if not t["name"].startswith("tbl_")}


def _user_header_types(doc: dict) -> dict:
    return {t["name"]: t["fields"] for t in doc["header_types"] if t["name"] != "scalars_0"}


def _user_headers(doc: dict) -> dict:
    return {h["name"]: h["header_type"] for h in doc["headers"] if h["name"] != "scalars"}


@pytest.mark.parametrize("name", KIT_PROGRAMS)
def test_kit_stf_passes_with_our_json(name, kit_dir, tmp_path):
    from toolchain.stf.runner import run_stf
    ours = compile_cached(kit_dir / f"{name}.p4")
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(ours))
    result = run_stf(str(path), str(kit_dir / f"{name}.stf"), target="embedded")
    assert result.ok, "\n".join(result.failures)


@pytest.mark.parametrize("name", KIT_PROGRAMS)
def test_kit_names_match_p4c(name, kit_dir):
    ours = compile_cached(kit_dir / f"{name}.p4")
    ref = json.loads((kit_dir / f"{name}.json").read_text())
    assert _api_tables(ours) == _api_tables(ref)
    assert _api_actions(ours) == _api_actions(ref)
    for kind in ("register_arrays", "counter_arrays", "meter_arrays"):
        assert {(r["name"], r["size"]) for r in ours[kind]} == \
            {(r["name"], r["size"]) for r in ref[kind]}
    ours_keys = {t["name"]: [k["name"] for k in t["key"]]
                 for p in ours["pipelines"] for t in p["tables"]}
    for p in ref["pipelines"]:
        for t in p["tables"]:
            if not t["name"].startswith("tbl_"):
                assert ours_keys[t["name"]] == [k["name"] for k in t["key"]]


@pytest.mark.parametrize("name", KIT_PROGRAMS)
def test_kit_headers_match_p4c(name, kit_dir):
    ours = compile_cached(kit_dir / f"{name}.p4")
    ref = json.loads((kit_dir / f"{name}.json").read_text())
    assert _user_header_types(ours) == _user_header_types(ref)
    assert _user_headers(ours) == _user_headers(ref)
    assert ours["header_stacks"] == ref["header_stacks"] or \
        [(s["name"], s["size"]) for s in ours["header_stacks"]] == \
        [(s["name"], s["size"]) for s in ref["header_stacks"]]
    assert ours["errors"] == ref["errors"]
    assert ours["field_aliases"] == ref["field_aliases"]
    assert ours["__meta__"]["version"] == ref["__meta__"]["version"]


def test_gateway_program_compiles_and_loads():
    """The project's own RD-TCP gateway (p4src/rdtcp.p4) is the compiler's main user."""
    from toolchain.switch import load_program
    from .conftest import REPO
    doc = compile_cached(REPO / "p4src" / "rdtcp.p4")
    tables = _api_tables(doc)
    assert {"MyIngress.ipv4_lpm", "MyIngress.l2_forward"} <= tables
    assert "port_qlen" in {r["name"] for r in doc["register_arrays"]}   # top-level: no prefix
    load_program(doc)


def _table_shapes(doc: dict) -> dict:
    """What the control plane sees of each table: sizes, match, actions, default, entries."""
    actions = {a["id"]: a["name"] for a in doc["actions"]}
    shapes = {}
    for p in doc["pipelines"]:
        for t in p["tables"]:
            if t["name"].startswith("tbl_"):
                continue
            default = t.get("default_entry")
            shapes[t["name"]] = {
                "max_size": t["max_size"], "match_type": t["match_type"],
                "keys": [(k["match_type"], k["name"], k["mask"]) for k in t["key"]],
                "actions": sorted(t["actions"]),
                "with_counters": t["with_counters"],
                "default": None if default is None else (actions[default["action_id"]],
                                                         default["action_const"],
                                                         default["action_data"]),
                "entries": [(e["match_key"], actions[e["action_entry"]["action_id"]],
                             e["action_entry"]["action_data"], e["priority"])
                            for e in t.get("entries", [])],
            }
    return shapes


@pytest.mark.parametrize("name", KIT_PROGRAMS)
def test_kit_tables_match_p4c(name, kit_dir):
    ours = compile_cached(kit_dir / f"{name}.p4")
    ref = json.loads((kit_dir / f"{name}.json").read_text())
    assert _table_shapes(ours) == _table_shapes(ref)


@pytest.mark.parametrize("name", KIT_PROGRAMS)
def test_kit_parser_deparser_and_lists_match_p4c(name, kit_dir):
    """Same states, transitions (values, masks, next states; ranges expanded as p4c does),
    key kinds, emit order, field lists and hash/checksum algorithms."""
    ours = compile_cached(kit_dir / f"{name}.p4")
    ref = json.loads((kit_dir / f"{name}.json").read_text())

    def states(doc):
        return [(s["name"], s["transitions"], [k["type"] for k in s["transition_key"]])
                for s in doc["parsers"][0]["parse_states"]]
    assert states(ours) == states(ref)
    assert ours["deparsers"][0]["order"] == ref["deparsers"][0]["order"]
    assert [(f["id"], f["elements"]) for f in ours["field_lists"]] == \
        [(f["id"], f["elements"]) for f in ref["field_lists"]]
    assert [c["algo"] for c in ours["calculations"]] == [c["algo"] for c in ref["calculations"]]
    assert [(c["target"], c["verify"], c["update"]) for c in ours["checksums"]] == \
        [(c["target"], c["verify"], c["update"]) for c in ref["checksums"]]


def test_compilation_is_deterministic(kit_dir):
    """Same program, same JSON, byte for byte (names and ids do not depend on run order)."""
    from toolchain.compiler import compile_file
    src = kit_dir / "epdn_option.p4"
    assert json.dumps(compile_file(src)) == json.dumps(compile_file(src))
