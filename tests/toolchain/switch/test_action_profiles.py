"""Action profiles and selectors (JSON ``action_profiles``, tables ``indirect``/``indirect_ws``):
members and groups through simple_switch_CLI's commands, per-packet member choice by the
selector's hash, BMv2's error codes, and the dump texts."""

import pytest

from toolchain.switch import CliError, SimpleSwitch

from .jsonkit import F, P, X, action, assign, frame, pack, program, unpack

H = [["a", 8, False], ["b", 8, False], ["r", 8, False], ["s", 8, False]]


def indirect_prog(*, selector=True, old_format=False) -> dict:
    """Ingress: set_port, then table t (key h.b exact) through profile ap; actions setr(v)
    writes h.r, sets(v) writes h.s. The selector hashes h.a with 'identity' (hash = h.a)."""
    p = program(H)
    p["actions"] += [action("setr", 10, [assign("h", "r", P(0))], [("v", 8)]),
                     action("sets", 11, [assign("h", "s", P(0))], [("v", 8)])]
    ing = p["pipelines"][0]
    ing["tables"][0]["next_tables"] = {"set_port": "t"}
    ing["tables"][0]["base_default_next"] = "t"
    sel = {"algo": "identity", "input": [F("h", "a")]}
    t = {"name": "t", "id": 5, "match_type": "exact", "type": "indirect_ws" if selector else "indirect",
         "key": [{"match_type": "exact", "name": "h.b", "target": ["h", "b"], "mask": None}],
         "max_size": 64, "with_counters": False, "support_timeout": False, "direct_meters": None,
         "action_ids": [10, 11], "actions": ["setr", "sets"], "base_default_next": None,
         "next_tables": {"setr": None, "sets": None}}
    if old_format:
        t["act_prof_name"] = "ap"
        if selector:
            t["selector"] = sel
    else:
        t["action_profile"] = "ap"
        ing["action_profiles"] = [dict({"name": "ap", "id": 0, "max_size": 16}, **({"selector": sel} if selector else {}))]
    ing["tables"].append(t)
    return p


def send(sw, **values) -> dict:
    (_, out), = sw.process(0, frame(pack(H, values)))
    return unpack(H, out[14:], signed=False)


def test_member_entry_runs_the_member_action_resolved_at_lookup():
    sw = SimpleSwitch(indirect_prog(selector=False))
    assert sw.cli("act_prof_create_member ap setr 7") == "Member has been created with handle 0"
    assert sw.cli("table_indirect_add t 3 => 0").splitlines() == [
        "Adding entry to indirect match table t", "Entry has been added with handle 0"]
    assert send(sw, b=3)["r"] == 7
    sw.cli("act_prof_modify_member ap sets 0 9")       # the entry follows its member
    assert send(sw, b=3) == {"a": 0, "b": 3, "r": 0, "s": 9}
    assert send(sw, b=4) == {"a": 0, "b": 4, "r": 0, "s": 0}   # miss, no default: nothing runs


def test_group_entry_picks_member_hash_mod_size_in_handle_order():
    sw = SimpleSwitch(indirect_prog())
    for v in (10, 11, 12):
        sw.cli(f"act_prof_create_member ap setr {v}")
    assert sw.cli("act_prof_create_group ap") == "Group has been created with handle 0"
    for m in (2, 0, 1):                                  # order of insertion does not matter
        sw.cli(f"act_prof_add_member_to_group ap {m} 0")
    sw.cli("table_indirect_add_with_group t 1 => 0")
    # identity hash of h.a: member number a % 3 among [0, 1, 2]
    assert [send(sw, a=a, b=1)["r"] for a in range(6)] == [10, 11, 12, 10, 11, 12]
    sw.cli("act_prof_remove_member_from_group ap 1 0")
    assert [send(sw, a=a, b=1)["r"] for a in range(4)] == [10, 12, 10, 12]


def test_default_member_runs_on_a_miss_until_reset():
    sw = SimpleSwitch(indirect_prog(selector=False))
    sw.cli("act_prof_create_member ap sets 5")
    sw.cli("table_indirect_set_default t 0")
    assert send(sw, b=9)["s"] == 5
    sw.cli("table_indirect_reset_default t")
    assert send(sw, b=9)["s"] == 0


def test_an_empty_group_runs_no_action():
    sw = SimpleSwitch(indirect_prog())
    sw.cli("act_prof_create_group ap")
    sw.cli("table_indirect_add_with_group t 1 => 0")
    assert send(sw, a=1, b=1) == {"a": 1, "b": 1, "r": 0, "s": 0}


@pytest.mark.parametrize("command, message", [
    ("act_prof_delete_member ap 0", "Invalid table operation (MBR_STILL_USED)"),
    ("table_add t setr 1 => 2", "Invalid table operation (WRONG_TABLE_TYPE)"),
    ("table_indirect_add t 4 => 7", "Invalid table operation (INVALID_MBR_HANDLE)"),
    ("act_prof_create_member ap nope 1", "Error: Action profile 'ap' has no action 'nope'"),
    ("act_prof_create_group ap", "Error: Cannot run this command on an action profile without selector"),
    ("table_indirect_add_with_group t 4 => 0",
     "Error: Cannot run this command on non-indirect table, or on indirect table with no selector"),
])
def test_bad_operations_give_simple_switch_cli_messages(command, message):
    sw = SimpleSwitch(indirect_prog(selector=False))
    sw.cli("act_prof_create_member ap setr 1")
    sw.cli("table_indirect_add t 3 => 0")
    with pytest.raises(CliError) as e:
        sw.cli(command)
    # simple_switch_CLI prints what it was about to do ("Adding entry to ...") before the error
    assert e.value.message.splitlines()[-1] == message


def test_dumps_show_indices_members_groups_and_default():
    sw = SimpleSwitch(indirect_prog())
    sw.cli("act_prof_create_group ap")
    sw.cli("act_prof_create_member ap setr 1")
    sw.cli("table_indirect_add t 3 => 0")
    sw.cli("act_prof_add_member_to_group ap 0 0")
    sw.cli("table_indirect_add_with_group t 4 => 0")
    assert sw.cli("table_dump t").splitlines() == [
        "==========", "TABLE ENTRIES",
        "**********", "Dumping entry 0x0", "Match key:", "* h.b                 : EXACT     03", "Index: member(0)",
        "**********", "Dumping entry 0x1", "Match key:", "* h.b                 : EXACT     04", "Index: group(0)",
        "==========", "MEMBERS", "**********", "Dumping member 0", "Action entry: setr - 01",
        "==========", "GROUPS", "**********", "Dumping group 0", "Members: [0]",
        "==========", "Dumping default entry", "EMPTY", "=========="]
    assert sw.cli("act_prof_dump_group ap 0") == "Dumping group 0\nMembers: [0]"
    assert sw.cli("table_dump_entry_from_key t 4").splitlines()[-1] == "Index: group(0)"
    assert "implementation=ap" in sw.cli("show_tables")


def test_legacy_table_indirect_commands_use_the_tables_profile():
    sw = SimpleSwitch(indirect_prog(old_format=True))
    assert sw.cli("table_indirect_create_member t setr 8") == "Member has been created with handle 0"
    assert sw.cli("table_indirect_create_group t") == "Group has been created with handle 0"
    sw.cli("table_indirect_add_member_to_group t 0 0")
    sw.cli("table_indirect_add_with_group t 2 => 0")
    assert send(sw, a=5, b=2)["r"] == 8


def test_reset_state_empties_profiles_and_unsets_the_default_member():
    # ActionProfile::reset_state (members, groups, handles) and MatchTableIndirect's
    # reset_state_ (default_set = false)
    sw = SimpleSwitch(indirect_prog())
    for v in (10, 11):
        sw.cli(f"act_prof_create_member ap setr {v}")
    sw.cli("act_prof_create_group ap")
    sw.cli("act_prof_add_member_to_group ap 1 0")
    sw.cli("table_indirect_add_with_group t 1 => 0")
    sw.cli("table_indirect_set_default t 0")
    sw.cli("reset_state")
    assert send(sw, b=1)["r"] == 0 and send(sw, b=9)["r"] == 0      # no entry, no default
    assert sw.cli("act_prof_dump ap").count("Dumping member") == 0
    assert sw.cli("act_prof_create_member ap setr 12") == "Member has been created with handle 0"
    assert sw.cli("act_prof_create_group ap") == "Group has been created with handle 0"
