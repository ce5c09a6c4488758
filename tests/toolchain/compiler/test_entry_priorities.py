"""Entry priorities (P4_16 spec 14.2.1.4) checked as p4c's EntryPriorities pass checks them, and
written into the JSON as p4c's BMv2 back end writes them: @priority(N) if given, else the
entry's position (frontend/entry_priorities.py). Behaviour on packets:
tests/toolchain/programs/entries_priorities.{p4,stf}."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError, compile_file
from toolchain.compiler.frontend import parse_and_check

from .frontend.conftest import program_text


def _table(entries: str, props: str = "", const: bool = False, keys: str = None) -> str:
    keys = keys or "hdr.ethernet.etherType: ternary;"
    return program_text("", ingress=(
        "action set(bit<8> v) { meta.c = v; }\n"
        f"table t {{ key = {{ {keys} }} actions = {{ set; }} {props}\n"
        f"{'const ' if const else ''}entries = {{ {entries} }} }}\n"
        "apply { t.apply(); }"))


def _write(tmp_path, text):
    path = tmp_path / "prog.p4"
    path.write_text(text)
    return path


def _warnings(tmp_path, text) -> list:
    _program, warnings = parse_and_check(_write(tmp_path, text))
    return [w.message for w in warnings]


def _errors(tmp_path, text) -> list:
    with pytest.raises(CompileError) as info:
        compile_file(str(_write(tmp_path, text)))
    return [e.message for e in info.value.errors]


def _priorities(tmp_path, text) -> list:
    doc = compile_file(str(_write(tmp_path, text)))
    (t,) = [t for p in doc["pipelines"] for t in p["tables"] if t["name"] == "I.t"]
    return [e["priority"] for e in t["entries"]]


def test_priorities_out_of_order_warn_for_largest_wins(tmp_path):
    text = _table("priority=10: 1 &&& 1 : set(1); 2 &&& 2 : set(2); priority=20: 4 : set(3);")
    assert _warnings(tmp_path, text) == [
        "table 't': entries have priorities out of order (9 then 20); BMv2 matches them in "
        "source order"]


def test_priorities_in_order_for_smallest_wins_do_not_warn(tmp_path):
    text = _table("priority=10: 1 &&& 1 : set(1); 2 : set(2); priority=30: 4 : set(3);",
                  props="largest_priority_wins = false; priority_delta = 10;")
    assert _warnings(tmp_path, text) == []


def test_duplicate_priority_from_delta_warns_once(tmp_path):
    text = _table("priority=10: 1 : set(1); 2 : set(2); priority=11: 3 : set(3); "
                  "priority=11: 4 : set(4);", props="largest_priority_wins = false;")
    assert _warnings(tmp_path, text) == [
        "table 't': this entry and the one on line 17 have the same priority 11"]


def test_no_warn_annotation_silences_duplicates(tmp_path):
    text = _table("priority=5: 1 : set(1); priority=5: 2 : set(2);",
                  props='largest_priority_wins = false; @noWarn("duplicate-priorities")')
    assert _warnings(tmp_path, text) == []


def test_const_entries_with_priorities_are_an_error(tmp_path):
    errs = _errors(tmp_path, _table("priority=5: 1 : set(1);", const=True))
    assert errs == ["table 't': a 'const entries' list cannot have priorities"]


def test_priorities_on_exact_keys_are_an_error(tmp_path):
    errs = _errors(tmp_path, _table("priority=5: 1 : set(1);",
                                    keys="hdr.ethernet.etherType: exact;"))
    assert errs == ["table 't': its exact and lpm keys need no priorities, but some are given"]


def test_first_entry_without_priority_is_an_error(tmp_path):
    errs = _errors(tmp_path, _table("1 : set(1); priority=5: 2 : set(2);"))
    assert errs == ["table 't': the first entry must have a priority when others have one"]


def test_priority_delta_must_be_positive(tmp_path):
    errs = _errors(tmp_path, _table("1 : set(1);", props="priority_delta = 0;"))
    assert errs == ["table 't': priority_delta must be positive"]


def test_json_priorities_are_positions_whatever_is_written(tmp_path):
    # p4c's convertTableEntries ignores `priority = N :` (BMv2: the smallest wins)
    text = _table("priority=10: 1 : set(1); priority=30: 2 : set(2); 3 : set(3);",
                  props="largest_priority_wins = false;")
    assert _priorities(tmp_path, text) == [1, 2, 3]


def test_json_priority_annotation_is_written_as_given(tmp_path):
    text = _table("1 : set(1) @priority(7); 2 : set(2);", const=True)
    assert _priorities(tmp_path, text) == [7, 2]
