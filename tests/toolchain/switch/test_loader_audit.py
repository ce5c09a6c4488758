"""Rows of the loader audit (README.md, "The loader, key by key") that a change closed: what
BMv2's P4Objects.cpp does with a key, this target does too, or refuses it by name."""

from __future__ import annotations

import pytest

from toolchain.switch import CliError, LoadError, SimpleSwitch

from .jsonkit import E, F, X, assign, frame, pack, prim, program, unpack
from .tables_kit import FIELDS, send, table_prog

CONST = [{"match_key": [{"match_type": "exact", "key": "0x05"}],
          "action_entry": {"action_id": 10, "action_data": ["0x21"]}, "priority": 1},
         {"match_key": [{"match_type": "exact", "key": "0x06"}],
          "action_entry": {"action_id": 10, "action_data": ["0x22"]}, "priority": 2}]


def test_const_entries_cannot_be_added_to_modified_or_deleted():
    # P4Objects::init_pipelines calls set_immutable_entries() once a table's "entries" are in
    sw = SimpleSwitch(table_prog([("exact", "a")], entries=CONST))
    assert send(sw, a=6)["r"] == 0x22
    for line in ("table_add MyIngress.t MyIngress.setr 7 => 1", "table_modify MyIngress.t MyIngress.setr 0 9",
                 "table_delete MyIngress.t 0"):
        with pytest.raises(CliError, match=r"Invalid table operation \(IMMUTABLE_TABLE_ENTRIES\)"):
            sw.cli(line)
    assert send(sw, a=5)["r"] == 0x21


def test_table_clear_still_empties_a_table_of_const_entries():
    # table_clear is MatchTable::reset_state, which does not look at the immutable flag
    sw = SimpleSwitch(table_prog([("exact", "a")], entries=CONST))
    sw.cli("table_clear MyIngress.t")
    assert send(sw, a=5)["r"] == 0
    assert sw.runtime.table_num_entries("MyIngress.t") == 0


def test_a_table_with_const_entries_holds_them_and_nothing_else():
    # get_table_size: with "entries", the size is their number, whatever max_size says
    sw = SimpleSwitch(table_prog([("exact", "a")], entries=CONST, max_size=1024))
    assert sw.program.tables["MyIngress.t"].max_size == 2


def test_entries_in_a_table_that_is_not_simple_are_refused():
    p = table_prog([("exact", "a")], entries=CONST)
    t = p["pipelines"][0]["tables"][-1]
    p["pipelines"][0]["action_profiles"] = [{"name": "ap", "id": 0, "max_size": 4}]
    t.update(type="indirect", action_profile="ap")
    with pytest.raises(LoadError, match="not have type 'simple' and therefore cannot specify a 'entries'"):
        SimpleSwitch(p)


def test_a_valid_match_const_entry_reads_true_and_false():
    p = table_prog([("exact", "a")])
    t = p["pipelines"][0]["tables"][-1]
    t["key"] = [{"match_type": "valid", "target": "h", "mask": None}]
    t["entries"] = [{"match_key": [{"match_type": "valid", "key": True}],
                     "action_entry": {"action_id": 10, "action_data": ["0x33"]}, "priority": 1}]
    assert send(SimpleSwitch(p), a=1)["r"] == 0x33


def test_dereference_stack_is_dereference_header_stack():
    # expressions.cpp maps both names to DEREFERENCE_HEADER_STACK
    p = program([["i", 8, False], ["r", 8, False]],
                [prim("add_header", {"type": "header", "value": "s[1]"}), assign("s[1]", "v", X(0x5A)),
                 assign("h", "r", {"type": "expression", "value": {"op": "access_field", "right": 0, "left": {
                     "type": "expression", "value": {"op": "dereference_stack",
                                                     "left": {"type": "header_stack", "value": "s"},
                                                     "right": F("h", "i")}}}})],
                extra_headers=[("s[0]", [["v", 8, False]]), ("s[1]", [["v", 8, False]])])
    ids = {h["name"]: h["id"] for h in p["headers"]}
    p["header_stacks"] = [{"name": "s", "id": 0, "header_type": "s[0]_t", "size": 2,
                           "header_ids": [ids["s[0]"], ids["s[1]"]]}]
    p["deparsers"][0]["order"] = ["eth", "h"]
    out = SimpleSwitch(p).process(0, frame(bytes([1, 0])))[0][1]
    assert out[14:] == bytes([1, 0x5A])


def _with(fn):
    p = program([["a", 8, False]])
    fn(p)
    return p


@pytest.mark.parametrize("message, make", [
    ("field 'a' is saturating", lambda: _with(lambda p: p["header_types"][3]["fields"][0].append(True))),
    ("a varbit length expression ('length_exp', P4_14)", lambda: _with(
        lambda p: p["header_types"][3].update(length_exp={"type": "hexstr", "value": "0x1"}))),
    ("type 'ipv4' (BMv2's built-in IPv4 header checksum", lambda: _with(lambda p: p["checksums"].append(
        {"name": "ck", "id": 0, "type": "ipv4", "target": ["h", "a"]}))),
    ("actions[0].primitives[1].parameters: Invalid number of parameters for primitive action "
     "register_write: expected 3 but got 2", lambda: _with(lambda p: p["actions"][0]["primitives"].append(
         prim("register_write", {"type": "register_array", "value": "r"}, X(0))))),
    ("actions[0].primitives[1].parameters[1].value.value.left.type: unsupported expression operand "
     "type 'register'", lambda: _with(lambda p: p["actions"][0]["primitives"].append(
         prim("assign", F("h", "a"), E("+", {"type": "register", "value": ["r", X(0)]}, X(1)))))),
])
def test_forms_only_p4_14_compilers_or_hand_written_json_use_are_refused_by_name(message, make):
    with pytest.raises(LoadError) as e:
        SimpleSwitch(make())
    assert message in str(e.value)


def _parse_h_then(ops, transitions=None, key=()):
    """The program's parse_h state with ``ops`` after its extract of h (a = 8 bits, r = 8 bits)."""
    p = program([["a", 8, False], ["r", 8, False]],
                [assign("h", "r", F("standard_metadata", "parser_error"))])
    st = p["parsers"][0]["parse_states"][1]
    st["parser_ops"] += ops
    if transitions is not None:
        st["transition_key"], st["transitions"] = list(key), transitions
    return p


def test_shift_skips_bytes_and_verify_takes_a_plain_error_code():
    # "shift" reads an integer of bytes (P4_14's form); "verify" an error as an integer (JSON
    # before expressions could name errors): both as P4Objects::init_parsers reads them
    p = _parse_h_then([{"op": "shift", "parameters": [2]},
                       {"op": "verify", "parameters": [{"type": "bool", "value": False}, 3]}])
    out = SimpleSwitch(p).process(0, frame(bytes([7, 0, 0xAA, 0xBB, 0xCC])))[0][1]
    # error 3 (StackOutOfBounds) from the verify; the 2 bytes shifted over are not payload
    assert out[14:] == bytes([7, 3, 0xCC])


def test_a_verify_with_an_unknown_error_code_is_refused():
    p = _parse_h_then([{"op": "verify", "parameters": [{"type": "bool", "value": False}, 77]}])
    with pytest.raises(LoadError, match="Invalid error code 77 in verify statement"):
        SimpleSwitch(p)


def test_a_transition_value_of_another_width_than_its_key_is_refused():
    # P4Objects::init_parsers: "Parser transition value has incorrect width"
    cases = [{"type": "hexstr", "value": "0x0001", "mask": None, "next_state": None},
             {"type": "default", "value": None, "mask": None, "next_state": None}]
    with pytest.raises(LoadError, match="expected width is 1 bytes but actual width is 2 bytes"):
        SimpleSwitch(_parse_h_then([], cases, [F("h", "a")]))


def test_unary_plus_and_minus_have_no_left_operand():
    # build_expression: "+" or "-" without a left operand is 0 + right, 0 - right
    plus = {"type": "expression", "value": {"op": "+", "left": None, "right": F("h", "a")}}
    minus = {"type": "expression", "value": {"op": "-", "left": None, "right": F("h", "a")}}
    p = program([["a", 8, False], ["r", 8, False]],
                [assign("h", "r", E("&", E("+", plus, E("&", minus, X(0xF0))), X(0xFF)))])
    out = SimpleSwitch(p).process(0, frame(bytes([3, 0])))[0][1]
    assert out[15] == (3 + (-3 & 0xF0)) & 0xFF
