"""Control flow compiled into regions (bm_sim/pipeline.py): long chains, deep nesting, joins,
and exit inside an inlined chain behave exactly as the node-by-node graph says."""

import itertools

import pytest

from toolchain.switch import SimpleSwitch

from .jsonkit import E, F, X, action, assign, frame, keyless_table, pack, prim, program, unpack

H = [["a", 8, False], ["b", 8, False], ["n", 8, False], ["m", 8, False]]


_COND_IDS = itertools.count()


def cond(name: str, field: str, value: int, true_next, false_next) -> dict:
    # conditional ids are unique in a pipeline (BMv2's DupIdChecker)
    return {"name": name, "id": next(_COND_IDS), "expression": E("==", F("h", field), X(value))["value"],
            "true_next": true_next, "false_next": false_next}


def with_ingress(conditionals, tables, actions, init) -> dict:
    p = program(H)
    p["actions"] += actions
    ing = p["pipelines"][0]
    first = ing["tables"][0]
    first["next_tables"] = {"set_port": init}
    first["base_default_next"] = init
    ing["conditionals"] = conditionals
    ing["tables"] += tables
    return p


def run(prog, **values) -> dict:
    (port, out), = SimpleSwitch(prog).process(0, frame(pack(H, values)))
    return unpack(H, out[14:], signed=False)


@pytest.mark.parametrize("depth", [3, 120])
def test_nested_conditionals_deeper_than_one_region_still_reach_the_innermost_table(depth):
    # c_i: if (h.a == 1) goto c_{i+1} else goto tbl_no; the innermost true branch sets h.n = 7
    conds = [cond(f"c{i}", "a", 1, f"c{i + 1}" if i + 1 < depth else "tbl_yes", f"tbl_no{i}")
             for i in range(depth)]
    acts = [action("yes", 50, [assign("h", "n", X(7))]), action("no", 51, [assign("h", "n", X(9))])]
    tables = [keyless_table("tbl_yes", 50, "yes", 50)]
    tables += [keyless_table(f"tbl_no{i}", 60 + i, "no", 51) for i in range(depth)]
    prog = with_ingress(conds, tables, acts, "c0")
    assert run(prog, a=1)["n"] == 7
    assert run(prog, a=0)["n"] == 9


def test_a_join_after_if_else_runs_once_whichever_branch_was_taken():
    # if (h.a == 1) { b = b + 1 } else { b = b + 2 }; then (join) m = m + 1
    acts = [action("inc1", 50, [assign("h", "b", E("+", F("h", "b"), X(1)))]),
            action("inc2", 51, [assign("h", "b", E("+", F("h", "b"), X(2)))]),
            action("join", 52, [assign("h", "m", E("+", F("h", "m"), X(1)))])]
    tables = [keyless_table("t1", 50, "inc1", 50, "tj"), keyless_table("t2", 51, "inc2", 51, "tj"),
              keyless_table("tj", 52, "join", 52)]
    prog = with_ingress([cond("c", "a", 1, "t1", "t2")], tables, acts, "c")
    assert run(prog, a=1, b=10, m=0) == {"a": 1, "b": 11, "n": 0, "m": 1}
    assert run(prog, a=0, b=10, m=0) == {"a": 0, "b": 12, "n": 0, "m": 1}


def test_exit_in_a_chain_of_inlined_tables_skips_the_rest_of_the_chain():
    acts = [action("first", 50, [assign("h", "n", X(1))]),
            action("leave", 51, [prim("exit")]),
            action("after", 52, [assign("h", "m", X(1))])]
    tables = [keyless_table("t1", 50, "first", 50, "t2"), keyless_table("t2", 51, "leave", 51, "t3"),
              keyless_table("t3", 52, "after", 52)]
    prog = with_ingress([cond("c", "a", 1, "t1", "t3")], tables, acts, "c")
    assert run(prog, a=1) == {"a": 1, "b": 0, "n": 1, "m": 0}
    assert run(prog, a=0) == {"a": 0, "b": 0, "n": 0, "m": 1}


def setter(name: str, aid: int, field: str, value: int) -> dict:
    return action(name, aid, [assign("h", field, X(value))])


def test_nested_if_without_else_falls_through_to_the_join_on_every_path():
    # if (a == 1) { if (b == 1) { n = 1 } else { n = 2 } }  m = 5   (the join absorbs both ifs)
    acts = [setter("s1", 50, "n", 1), setter("s2", 51, "n", 2), setter("sj", 52, "m", 5)]
    tables = [keyless_table("x", 50, "s1", 50, "j"), keyless_table("y", 51, "s2", 51, "j"),
              keyless_table("j", 52, "sj", 52)]
    prog = with_ingress([cond("c1", "a", 1, "c2", "j"), cond("c2", "b", 1, "x", "y")], tables, acts, "c1")
    assert run(prog, a=1, b=1) == {"a": 1, "b": 1, "n": 1, "m": 5}
    assert run(prog, a=1, b=0) == {"a": 1, "b": 0, "n": 2, "m": 5}
    assert run(prog, a=0, b=1) == {"a": 0, "b": 1, "n": 0, "m": 5}


@pytest.mark.parametrize("depth", [2, 120])
def test_deeply_nested_ifs_sharing_one_join_run_the_join_once(depth):
    # if (a == 1) { if (a == 1) { ... { n = 7 } ... } }  m = m + 1: all falses go to the join
    conds = [cond(f"c{i}", "a", 1, f"c{i + 1}" if i + 1 < depth else "yes", "j") for i in range(depth)]
    acts = [setter("sy", 50, "n", 7), action("inc", 51, [assign("h", "m", E("+", F("h", "m"), X(1)))])]
    tables = [keyless_table("yes", 50, "sy", 50, "j"), keyless_table("j", 51, "inc", 51)]
    prog = with_ingress(conds, tables, acts, "c0")
    assert run(prog, a=1) == {"a": 1, "b": 0, "n": 7, "m": 1}
    assert run(prog, a=0) == {"a": 0, "b": 0, "n": 0, "m": 1}


def test_exit_inside_an_if_skips_the_join_after_it():
    acts = [action("leave", 50, [prim("exit")]), setter("sj", 51, "m", 1)]
    tables = [keyless_table("t", 50, "leave", 50, "j"), keyless_table("j", 51, "sj", 51)]
    prog = with_ingress([cond("c", "a", 1, "t", "j")], tables, acts, "c")
    assert run(prog, a=1)["m"] == 0
    assert run(prog, a=0)["m"] == 1


def test_a_node_shared_by_two_ifs_that_are_not_nested_runs_on_each_path():
    # not structured code: c1 ? x : (c2 ? x : y); x and y both go on to z
    acts = [setter("sx", 50, "n", 1), setter("sy", 51, "n", 2), setter("sz", 52, "m", 3)]
    tables = [keyless_table("x", 50, "sx", 50, "z"), keyless_table("y", 51, "sy", 51, "z"),
              keyless_table("z", 52, "sz", 52)]
    prog = with_ingress([cond("c1", "a", 1, "x", "c2"), cond("c2", "b", 1, "x", "y")], tables, acts, "c1")
    assert run(prog, a=1, b=0) == {"a": 1, "b": 0, "n": 1, "m": 3}
    assert run(prog, a=0, b=1) == {"a": 0, "b": 1, "n": 1, "m": 3}
    assert run(prog, a=0, b=0) == {"a": 0, "b": 0, "n": 2, "m": 3}


def test_switch_on_action_run_inside_an_if_continues_at_the_right_case_then_the_join():
    # if (a == 1) { switch (t.apply().action_run) { pick1: { n = 1 } pick2: { n = 2 } } }  m = 4
    from toolchain.switch import SimpleSwitch as Switch
    acts = [action("pick1", 50, []), action("pick2", 51, []), setter("s1", 52, "n", 1),
            setter("s2", 53, "n", 2), setter("sj", 54, "m", 4)]
    t = keyless_table("t", 50, "pick1", 50)
    t.update({"key": [{"match_type": "exact", "name": "h.b", "target": ["h", "b"], "mask": None}],
              "action_ids": [50, 51], "actions": ["pick1", "pick2"],
              "next_tables": {"pick1": "x1", "pick2": "x2"}})
    t["default_entry"] = {"action_id": 50, "action_const": False, "action_data": [], "action_entry_const": False}
    tables = [t, keyless_table("x1", 52, "s1", 52, "j"), keyless_table("x2", 53, "s2", 53, "j"),
              keyless_table("j", 54, "sj", 54)]
    prog = with_ingress([cond("c", "a", 1, "t", "j")], tables, acts, "c")
    sw = Switch(prog)
    sw.cli("table_add t pick2 9 =>")

    def send(**values):
        (_, out), = sw.process(0, frame(pack(H, values)))
        return unpack(H, out[14:], signed=False)
    assert send(a=1, b=9) == {"a": 1, "b": 9, "n": 2, "m": 4}
    assert send(a=1, b=0) == {"a": 1, "b": 0, "n": 1, "m": 4}
    assert send(a=0, b=9) == {"a": 0, "b": 9, "n": 0, "m": 4}


def test_action_calls_run_their_action_then_their_next_node():
    # JSON_format.md "action_calls": a direct call of a parameterless action from the control
    acts = [setter("s1", 50, "n", 4), setter("s2", 51, "m", 6)]
    prog = with_ingress([cond("c", "a", 1, "call1", "j")], [keyless_table("j", 51, "s2", 51)], acts, "c")
    prog["pipelines"][0]["action_calls"] = [{"name": "call1", "id": 0, "action_id": 50, "next_node": "j"}]
    assert run(prog, a=1) == {"a": 1, "b": 0, "n": 4, "m": 6}
    assert run(prog, a=0) == {"a": 0, "b": 0, "n": 0, "m": 6}


def test_action_call_of_an_action_with_parameters_is_refused_as_bmv2_does():
    from toolchain.switch import LoadError, load_program
    acts = [action("needs", 50, [assign("h", "n", {"type": "runtime_data", "value": 0})], params=[("v", 8)])]
    prog = with_ingress([], [], acts, "call1")
    prog["pipelines"][0]["action_calls"] = [{"name": "call1", "id": 0, "action_id": 50, "next_node": None}]
    with pytest.raises(LoadError, match="Cannot call action 'needs' directly from control"):
        load_program(prog)


@pytest.mark.parametrize("a, b, want", [(0, 0, 9), (3, 0, 9), (0, 5, 9), (3, 5, 7), (0xFF, 1, 7)])
def test_conditional_on_zero_tests_and_d2b_through_and_not_takes_the_same_branch(a, b, want):
    # if (h.a != 0 && !(h.b == 0) && d2b(h.a)) n = 7 else n = 9: the comparisons with zero are
    # written as truth tests (ExprCompiler.condition); the branch must not change
    expr = E("and", E("and", E("!=", F("h", "a"), X(0)), E("not", None, E("==", F("h", "b"), X(0)))),
             E("d2b", None, F("h", "a")))["value"]
    acts = [action("yes", 50, [assign("h", "n", X(7))]), action("no", 51, [assign("h", "n", X(9))])]
    tables = [keyless_table("tbl_yes", 50, "yes", 50), keyless_table("tbl_no", 51, "no", 51)]
    conds = [{"name": "c", "id": 0, "expression": expr, "true_next": "tbl_yes", "false_next": "tbl_no"}]
    assert run(with_ingress(conds, tables, acts, "c"), a=a, b=b)["n"] == want


def test_conditional_on_a_negative_signed_field_is_true():
    # int<8> -1 != 0: the truth test of a sign-extended read is the same as the comparison
    expr = E("!=", F("h", "a"), X(0))["value"]
    acts = [action("yes", 50, [assign("h", "n", X(7))]), action("no", 51, [assign("h", "n", X(9))])]
    tables = [keyless_table("tbl_yes", 50, "yes", 50), keyless_table("tbl_no", 51, "no", 51)]
    prog = with_ingress([{"name": "c", "id": 0, "expression": expr, "true_next": "tbl_yes",
                          "false_next": "tbl_no"}], tables, acts, "c")
    prog["header_types"][3]["fields"][0][2] = True
    assert run(prog, a=0xFF)["n"] == 7
