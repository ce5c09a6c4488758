"""Every refusal at load time names the JSON feature (LoadError), never a crash later."""

import json

import pytest

from toolchain.switch import LoadError, SimpleSwitch, load_program

from .jsonkit import E, F, X, assign, prim, program

FIELDS = [["a", 8, False], ["b", 8, False]]


def base():
    return program(FIELDS)


def with_ingress(*prims):
    return program(FIELDS, list(prims))


def mutate(fn):
    p = base()
    fn(p)
    return p


def _first_table(p):
    return p["pipelines"][0]["tables"][0]


CASES = [
    ("unsupported primitive 'frobnicate'", lambda: with_ingress(prim("frobnicate"))),
    ("unsupported expression op 'pow'", lambda: with_ingress(assign("h", "a", E("pow", F("h", "a"), X(2))))),
    ("unsupported expression operand type 'mystery'",
     lambda: with_ingress(assign("h", "a", {"type": "mystery", "value": 1}))),
    ("unsupported assignment destination type 'hexstr'", lambda: with_ingress(prim("assign", X(1), X(2)))),
    ("unknown field h.nope", lambda: with_ingress(assign("h", "nope", X(1)))),
    ("unknown header 'ghost'", lambda: with_ingress(assign("ghost", "a", X(1)))),
    ("unknown register_array 'r'", lambda: with_ingress(prim("register_write", {"type": "register_array", "value": "r"}, X(0), X(1)))),
    ("unknown calculation 'c'", lambda: with_ingress(prim("modify_field_with_hash_based_offset", F("h", "a"), X(0),
                                                         {"type": "calculation", "value": "c"}, X(16)))),
    ("extract_VL of header 'eth', which has no varbit field", lambda: mutate(
        lambda p: p["parsers"][0]["parse_states"][0]["parser_ops"].append(
            {"op": "extract_VL", "parameters": [{"type": "regular", "value": "eth"}, X(8)]}))),
    ("unsupported extract_VL target type 'field'",
     lambda: mutate(lambda p: p["parsers"][0]["parse_states"][0]["parser_ops"].append(
         {"op": "extract_VL", "parameters": [{"type": "field", "value": ["eth", "src"]}, X(8)]}))),
    ("unsupported parser op 'teleport'", lambda: mutate(lambda p: p["parsers"][0]["parse_states"][0]["parser_ops"].append(
        {"op": "teleport", "parameters": []}))),
    ("unsupported parser transition type 'range'", lambda: mutate(lambda p: p["parsers"][0]["parse_states"][0]["transitions"].insert(
        0, {"type": "range", "value": "0x1", "mask": None, "next_state": None}))),
    ("parser transition to unknown state 'nowhere'", lambda: mutate(lambda p: p["parsers"][0]["parse_states"][0]["transitions"].insert(
        0, {"type": "hexstr", "value": "0x1", "mask": None, "next_state": "nowhere"}))),
    ("unsupported table type 'hashed'", lambda: mutate(lambda p: _first_table(p).update(type="hashed"))),
    ("indirect tables need to have attribute 'action_profile'",
     lambda: mutate(lambda p: _first_table(p).update(type="indirect_ws"))),
    ("unknown action profile 'nope'",
     lambda: mutate(lambda p: _first_table(p).update(type="indirect", action_profile="nope"))),
    ("is indirect_ws but action profile 'ap' has no selector", lambda: mutate(lambda p: (
        p["pipelines"][0].update(action_profiles=[{"name": "ap", "id": 0, "max_size": 4}]),
        _first_table(p).update(type="indirect_ws", action_profile="ap")))),
    ("pipelines[0].action_profiles[0].selector.algo: unsupported hash algorithm 'md5'", lambda: mutate(lambda p: p["pipelines"][0].update(
        action_profiles=[{"name": "ap", "id": 0, "max_size": 4, "selector": {"algo": "md5", "input": []}}]))),
    ("unsupported match type 'fuzzy'", lambda: mutate(lambda p: _first_table(p).update(
        key=[{"match_type": "fuzzy", "name": "h.a", "target": ["h", "a"], "mask": None}]))),
    ("header union stack 'us': unknown union_type 'U'", lambda: mutate(lambda p: p.update(
        header_union_stacks=[{"name": "us", "id": 0, "union_type": "U", "header_union_ids": []}]))),
    ("header union 'u': unknown header id 99", lambda: mutate(lambda p: p.update(
        header_unions=[{"name": "u", "id": 0, "union_type": "U", "header_ids": [99]}]))),
    ("extern instances ('extern_instances') are not supported", lambda: mutate(lambda p: p.update(extern_instances=[{"name": "x"}]))),
    ("varbit field without 'max_length'", lambda: mutate(lambda p: p["header_types"][3]["fields"].append(["opts", "*"]))),
    ("header 'h' has a varbit field: extract it with 'extract_VL'", lambda: mutate(
        lambda p: (p["header_types"][3]["fields"].append(["opts", "*"]), p["header_types"][3].update(max_length=10)))),
    ("unsupported BMv2 JSON format version 3.0", lambda: mutate(lambda p: p.update(__meta__={"version": [3, 0]}))),
    ("missing required field standard_metadata.egress_spec", lambda: mutate(lambda p: p["header_types"][1]["fields"].pop(1))),
    ("unsupported hash algorithm 'sha1'", lambda: mutate(lambda p: p["calculations"].append(
        {"name": "c", "id": 0, "algo": "sha1", "input": []}))),
    ("calculations[0].input[0].type: unsupported expression operand type 'register'", lambda: mutate(lambda p: p["calculations"].append(
        {"name": "c", "id": 0, "algo": "crc16", "input": [{"type": "register", "value": "r"}]}))),
    ("deparsers[0].primitives[0].op: unsupported primitive 'emit_magic'", lambda: mutate(
        lambda p: p["deparsers"][0].update(primitives=[{"op": "emit_magic"}]))),
    ("deparser primitives are not supported: mark_to_drop", lambda: mutate(lambda p: p["deparsers"][0].update(
        primitives=[{"op": "mark_to_drop", "parameters": [{"type": "header", "value": "standard_metadata"}]}]))),
    ("table 'tbl_ingress' refers to unknown action 'ghost'", lambda: mutate(lambda p: _first_table(p)["actions"].append("ghost"))),
    ("pipeline refers to unknown table or conditional 'nowhere'", lambda: mutate(lambda p: p["pipelines"][0].update(
        init_table="nowhere"))),
    ("unsupported meter type 'furlongs'", lambda: mutate(lambda p: p["meter_arrays"].append(
        {"name": "m", "id": 0, "type": "furlongs", "size": 1, "rate_count": 2, "is_direct": False}))),
    ("unsupported checksum type 'crc_magic'", lambda: mutate(lambda p: p["checksums"].append(
        {"name": "ck", "id": 0, "type": "crc_magic", "calculation": "c", "target": ["h", "a"]}))),
    ("actions[0].name: expected a string, got None", lambda: mutate(
        lambda p: p["actions"][0].pop("primitives") and p["actions"][0].pop("name"))),
]


@pytest.mark.parametrize("message, make", CASES, ids=[c[0][:40] for c in CASES])
def test_load_refuses_with_named_feature(message, make):
    with pytest.raises(LoadError) as e:
        load_program(make())
    assert message in str(e.value)


def test_load_refuses_unreadable_path(tmp_path):
    with pytest.raises(LoadError, match="cannot read"):
        load_program(tmp_path / "missing.json")


def test_load_refuses_invalid_json_text(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    with pytest.raises(LoadError, match="not valid JSON"):
        load_program(p)


def test_load_refuses_non_object_top_level(tmp_path):
    p = tmp_path / "list.json"
    p.write_text(json.dumps([1, 2]))
    with pytest.raises(LoadError, match="must be an object"):
        load_program(p)


def test_switch_constructor_propagates_load_error():
    with pytest.raises(LoadError):
        SimpleSwitch(with_ingress(prim("frobnicate")))


def test_bad_const_entry_is_refused_when_the_switch_is_built():
    from .tables_kit import table_prog
    entries = [{"match_key": [{"match_type": "exact", "key": "0x1ff"}],      # 9 bits into an 8-bit key
                "action_entry": {"action_id": 12, "action_data": []}, "priority": 1}]
    with pytest.raises(LoadError, match="table 'MyIngress.t': const entry 0 refused: BAD_MATCH_KEY"):
        SimpleSwitch(table_prog([("exact", "a")], entries=entries))
