"""Actions are bound per table as simple_switch binds them (P4Objects::init_pipelines): a table
with "action_ids" gets those actions, so several actions of one name (p4c emits such copies,
e.g. one per table binding an argument differently; p4c's ternary2-bmv2) each run in their own
table, and the control plane's action parameters are those of the table's copy."""

import pytest

from toolchain.switch import LoadError, SimpleSwitch, load_program

from .tables_kit import FIELDS, send
from .jsonkit import P, action, assign, program


def _two_tables_one_action_name():
    prog = program(FIELDS)
    prog["actions"] += [action("MyIngress.setbyte", 30, [assign("h", "r", P(0))], [("v", 8)]),
                        action("MyIngress.setbyte", 31, [assign("h", "m", P(0))], [("v", 48)])]
    first = prog["pipelines"][0]["tables"][0]
    first["next_tables"] = {"set_port": "MyIngress.t1"}
    first["base_default_next"] = "MyIngress.t1"

    def table(name, tid, aid, nxt):
        return {"name": name, "id": tid, "match_type": "exact", "type": "simple",
                "key": [{"match_type": "exact", "name": "hdr.h.a", "target": ["h", "a"],
                         "mask": None}],
                "max_size": 16, "with_counters": False, "support_timeout": False,
                "direct_meters": None, "action_ids": [aid], "actions": ["MyIngress.setbyte"],
                "base_default_next": nxt, "next_tables": {"MyIngress.setbyte": nxt},
                "default_entry": {"action_id": aid, "action_const": False,
                                  "action_data": ["0x0"], "action_entry_const": False}}
    prog["pipelines"][0]["tables"] += [table("MyIngress.t1", 40, 30, "MyIngress.t2"),
                                       table("MyIngress.t2", 41, 31, None)]
    return prog


def test_each_table_runs_its_own_copy_of_a_shared_action_name():
    sw = SimpleSwitch(load_program(_two_tables_one_action_name()))
    sw.cli("table_add MyIngress.t1 MyIngress.setbyte 5 => 7")
    # 48-bit data: only t2's copy of setbyte takes it
    sw.cli("table_add MyIngress.t2 MyIngress.setbyte 5 => 0x112233445566")
    out = send(sw, a=5)
    assert out["r"] == 7 and out["m"] == 0x112233445566


def test_control_plane_checks_parameters_against_the_tables_copy():
    sw = SimpleSwitch(load_program(_two_tables_one_action_name()))
    with pytest.raises(Exception, match="Parameter is too large"):
        sw.cli("table_add MyIngress.t1 MyIngress.setbyte 5 => 0x112233445566")   # 8-bit copy
    info = sw.cli("table_info MyIngress.t2")
    assert "MyIngress.setbyte" in info and "v(48)" in info


def test_two_actions_of_one_name_in_one_table_are_refused_like_simple_switch():
    prog = _two_tables_one_action_name()
    prog["pipelines"][0]["tables"][1]["action_ids"] = [30, 31]
    with pytest.raises(LoadError, match="Duplicate actions with name 'MyIngress.setbyte'"):
        load_program(prog)


def test_table_with_an_unknown_action_id_is_refused_by_name():
    prog = _two_tables_one_action_name()
    prog["pipelines"][0]["tables"][1]["action_ids"] = [99]
    with pytest.raises(LoadError, match="table 'MyIngress.t1' refers to unknown action id 99"):
        load_program(prog)
