"""The BMv2 loader-rule checker (toolchain/compiler/backend/bmv2_schema/) itself.

Positive control: real p4c's JSON in the conformance kit passes. Each rule: a valid document
(our JSON for one of the toolchain's test programs, which passes) with one defect injected
is reported, naming the place and the reason.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from toolchain.compiler.backend.bmv2_schema import (Bmv2JsonError, assert_loadable,
                                                    check_bmv2_json)

from .conftest import KIT_PROGRAMS, PROGRAMS, REPO, compile_cached


def problems_after(program: str, mutate) -> list[str]:
    doc = compile_cached(PROGRAMS / f"{program}.p4")
    assert check_bmv2_json(doc) == [], "the unmutated document must pass"
    mutate(doc)
    return [str(p) for p in check_bmv2_json(doc)]


def reported(problems: list[str], *fragments: str) -> bool:
    return any(all(f in p for f in fragments) for p in problems)


def action(doc: dict, op: str) -> dict:
    """The first primitive call with this op."""
    return next(p for a in doc["actions"] for p in a["primitives"] if p["op"] == op)


def table(doc: dict, name: str) -> dict:
    return next(t for p in doc["pipelines"] for t in p["tables"] if t["name"] == name)


def state(doc: dict, name: str) -> dict:
    return next(s for s in doc["parsers"][0]["parse_states"] if s["name"] == name)


# ---------------------------------------------------------------- positive control

@pytest.mark.parametrize("name", KIT_PROGRAMS)
def test_p4c_json_passes_the_loader_rules(name, kit_dir):
    """Real p4c 1.2.4 output loads on real simple_switch: the checker must agree."""
    doc = json.loads((kit_dir / f"{name}.json").read_text())
    assert [str(p) for p in check_bmv2_json(doc)] == []


# ---------------------------------------------------------------- document level

def test_version_major_other_than_2_rejected():
    probs = problems_after("tables", lambda d: d["__meta__"].update(version=[3, 0]))
    assert reported(probs, "__meta__.version", "major version 3")


def test_version_minor_newer_than_loader_rejected():
    probs = problems_after("tables", lambda d: d["__meta__"].update(version=[2, 99]))
    assert reported(probs, "newest supported is 24")


def test_required_block_missing_rejected():
    """simple_switch looks up pipelines "ingress"/"egress" by name."""
    probs = problems_after("tables", lambda d: d["pipelines"][1].update(name="Egress"))
    assert reported(probs, "pipelines", "'egress'")


def test_required_standard_metadata_field_missing_rejected():
    def drop_field(d):
        t = next(t for t in d["header_types"] if t["name"] == "standard_metadata")
        t["fields"] = [f for f in t["fields"] if f[0] != "egress_port"]
        t["fields"].append(["_pad9", 9, False])
    probs = problems_after("tables", drop_field)
    assert reported(probs, "standard_metadata.egress_port is required")


def test_not_a_document_rejected():
    assert [str(p) for p in check_bmv2_json([1, 2])] == \
        ["$: a BMv2 JSON document is a JSON object"]


# ---------------------------------------------------------------- headers

def test_header_ids_not_dense_rejected():
    """PHV::push_back_header asserts id == position."""
    probs = problems_after("tables", lambda d: d["headers"][-1].update(id=40))
    assert reported(probs, "headers[", "got id 40")


def test_header_type_unknown_rejected():
    probs = problems_after("tables", lambda d: d["headers"][-1].update(header_type="nope_t"))
    assert reported(probs, "invalid reference to header type 'nope_t'")


def test_header_type_not_whole_bytes_rejected():
    probs = problems_after("tables",
                           lambda d: d["header_types"][-1]["fields"].append(["odd", 3, False]))
    assert reported(probs, "not a whole number of bytes")


def test_header_type_duplicate_field_rejected():
    def dup(d):
        f = d["header_types"][-1]["fields"]
        f.append(list(f[0]))
    assert reported(problems_after("tables", dup), "repeated")


def test_signed_one_bit_field_rejected():
    """fields.cpp: assert(nbits > 1) for a signed field."""
    def signed_bit(d):
        d["header_types"][-1]["fields"] += [["s", 1, True], ["p", 7, False]]
    assert reported(problems_after("tables", signed_bit), "at least 2")


def test_stack_member_of_other_type_rejected():
    probs = problems_after("parser_features",
                           lambda d: d["header_stacks"][0]["header_ids"].__setitem__(0, 0))
    assert reported(probs, "header_stacks[0]", "is not of type 'tag_t'")


def test_field_alias_to_unknown_field_rejected():
    probs = problems_after("tables", lambda d: d["field_aliases"][0][1].__setitem__(1, "nope"))
    assert reported(probs, "field_aliases[0]", "no field 'nope'")


# ---------------------------------------------------------------- parser

def test_parser_unknown_next_state_rejected():
    """An unknown next state is a map miss in init_parsers: silently 'accept'."""
    probs = problems_after("parser_features",
                           lambda d: state(d, "start")["transitions"][0].update(next_state="x"))
    assert reported(probs, "next_state", "silently accept")


def test_parser_transition_value_width_rejected():
    probs = problems_after("parser_features",
                           lambda d: state(d, "start")["transitions"][0].update(value="0x0800ab"))
    assert reported(probs, "incorrect width, expected 2 bytes but it has 3")


def test_parser_set_into_non_field_rejected():
    def bad_set(d):
        op = state(d, "skip_two")["parser_ops"][1]
        op["parameters"][0] = {"type": "stack_field", "value": ["tags", "v"]}
    assert reported(problems_after("parser_features", bad_set), "destination must be of type 'field'")


def test_parser_set_from_unsupported_source_rejected():
    def bad_src(d):
        op = state(d, "skip_two")["parser_ops"][1]
        op["parameters"][1] = {"type": "stack_field", "value": ["tags", "v"]}
    assert reported(problems_after("parser_features", bad_src), "unsupported source type 'stack_field'")


def test_parser_verify_unknown_error_rejected():
    def bad_error(d):
        state(d, "bad")["parser_ops"][0]["parameters"][1] = {"type": "hexstr", "value": "0x63"}
    assert reported(problems_after("parser_features", bad_error), "error value 99")


def test_parser_unknown_op_rejected():
    probs = problems_after("parser_features",
                           lambda d: state(d, "start")["parser_ops"][0].update(op="extract_all"))
    assert reported(probs, "parser op 'extract_all' not supported")


def test_parser_init_state_unknown_rejected():
    probs = problems_after("parser_features", lambda d: d["parsers"][0].update(init_state="st"))
    assert reported(probs, "init_state 'st'")


# ---------------------------------------------------------------- expressions

def test_expression_unknown_op_rejected():
    """ExprOpcodesMap::get_opcode maps an unknown name to opcode 0 without complaint."""
    def typo(d):
        d["pipelines"][0]["conditionals"][0]["expression"]["value"]["op"] = "=="
        d["pipelines"][0]["conditionals"][0]["expression"]["value"]["op"] = "equals"
    assert reported(problems_after("control_flow", typo), "unknown expression op 'equals'")


def test_expression_data_as_condition_rejected():
    """BMv2 has no implicit data -> bool conversion: a condition must be boolean."""
    def data_cond(d):
        d["pipelines"][0]["conditionals"][0]["expression"] = {"type": "hexstr", "value": "0x1"}
    assert reported(problems_after("control_flow", data_cond), "expected a bool value, got data")


def test_expression_bool_operand_of_arithmetic_rejected():
    def bool_plus(d):
        d["pipelines"][0]["conditionals"][0]["expression"] = {
            "type": "expression", "value": {"op": ">", "left": {"type": "bool", "value": True},
                                            "right": {"type": "hexstr", "value": "0x1"}}}
    assert reported(problems_after("control_flow", bool_plus), "expected a data value, got bool")


def test_expression_unknown_leaf_type_rejected():
    def lookahead_in_expression(d):
        d["pipelines"][0]["conditionals"][0]["expression"]["value"]["right"] = {
            "type": "lookahead", "value": [0, 8]}
    assert reported(problems_after("control_flow", lookahead_in_expression),
                    "invalid 'type' in expression: 'lookahead'")


# ---------------------------------------------------------------- actions

def test_primitive_unknown_rejected():
    probs = problems_after("tables", lambda d: action(d, "assign").update(op="assign_field"))
    assert reported(probs, "unknown primitive action: 'assign_field'")


def test_primitive_arity_rejected():
    probs = problems_after("tables", lambda d: action(d, "assign")["parameters"].pop())
    assert reported(probs, "expected 2 but got 1")


def test_primitive_constant_destination_rejected():
    """assign takes Data & first: a hexstr there hits _BM_UNREACHABLE at packet time."""
    def const_dst(d):
        action(d, "assign")["parameters"][0] = {"type": "hexstr", "value": "0x1"}
    assert reported(problems_after("tables", const_dst), "takes Data &")


def test_primitive_runtime_data_out_of_range_rejected():
    def far(d):
        action(d, "assign")["parameters"][1] = {"type": "runtime_data", "value": 9}
    assert reported(problems_after("tables", far), "invalid 'runtime_data' reference 9")


def test_primitive_local_outside_expression_rejected():
    """"local" exists only inside expressions; a primitive argument is runtime_data."""
    def local(d):
        action(d, "assign")["parameters"][1] = {"type": "local", "value": 0}
    assert reported(problems_after("tables", local), "parameter type 'local' not supported")


def test_primitive_bool_expression_parameter_rejected():
    def bool_param(d):
        action(d, "assign")["parameters"][1] = {"type": "expression", "value": {
            "type": "expression", "value": {"op": "d2b", "left": None,
                                            "right": {"type": "hexstr", "value": "0x1"}}}}
    assert reported(problems_after("tables", bool_param), "not bool")


def test_jump_past_the_action_end_rejected():
    def far_jump(d):
        action(d, "_jump")["parameters"][0]["value"] = "0x63"
    assert reported(problems_after("control_flow", far_jump), "jump to 99")


def test_hash_algorithm_unknown_rejected():
    probs = problems_after("externs", lambda d: d["calculations"][0].update(algo="crc17"))
    assert reported(probs, "unknown hash algorithm: 'crc17'")


def test_register_read_into_expression_rejected():
    def into_expression(d):
        action(d, "register_read")["parameters"][0] = {"type": "expression", "value": {
            "type": "expression", "value": {"op": "access_field", "left": {
                "type": "header", "value": "ethernet"}, "right": 0}}}
    assert reported(problems_after("externs", into_expression), "takes Field &")


def test_field_list_id_missing_rejected():
    """simple_switch looks the id up with field_lists.at() when it clones."""
    def no_list(d):
        d["field_lists"] = []
    assert reported(problems_after("clone_field_list", no_list), "field list id", "does not exist")


def test_field_list_id_zero_rejected():
    def zero(d):
        d["field_lists"][0]["id"] = 0
        action(d, "resubmit")["parameters"][0]["value"] = "0x0"
    assert reported(problems_after("resubmit", zero), "field list id 0")


# ---------------------------------------------------------------- pipelines

def test_table_next_tables_missing_action_rejected():
    def missing(d):
        t = table(d, "TablesIngress.lpm_t")
        del t["next_tables"]["NoAction"]
    assert reported(problems_after("tables", missing), "should have exactly 2 keys")


def test_table_next_tables_hit_without_miss_rejected():
    def hit_only(d):
        table(d, "TablesIngress.lpm_t")["next_tables"] = {"__HIT__": None}
    assert reported(problems_after("tables", hit_only), "'__HIT__'/'__MISS__'")


def test_table_unknown_next_node_rejected():
    def unknown(d):
        table(d, "TablesIngress.lpm_t")["base_default_next"] = "node_77"
    assert reported(problems_after("tables", unknown), "invalid reference to control node 'node_77'")


def test_table_match_type_not_derived_from_keys_rejected():
    probs = problems_after("tables", lambda d: table(d, "TablesIngress.tern").update(
        match_type="exact"))
    assert reported(probs, "keys call for 'ternary'")


def test_table_two_lpm_keys_rejected():
    def two_lpm(d):
        t = table(d, "TablesIngress.tern")
        for k in t["key"]:
            k["match_type"] = "lpm"
        t["match_type"] = "lpm"
    assert reported(problems_after("tables", two_lpm), "2 LPM match fields")


def test_table_default_action_data_count_rejected():
    def no_data(d):
        table(d, "TablesIngress.exact_multi")["default_entry"]["action_data"] = []
    assert reported(problems_after("tables", no_data), "expected 1 but got 0")


def test_table_default_action_not_in_table_rejected():
    def foreign(d):
        t = table(d, "TablesIngress.lpm_t")
        t["default_entry"]["action_id"] = table(d, "TablesIngress.tern")["action_ids"][0]
        t["default_entry"]["action_data"] = ["0x01"]
    assert reported(problems_after("tables", foreign), "not one of the table's actions")


def test_table_entry_key_width_rejected():
    def wide(d):
        entry = table(d, "TablesIngress.const_t")["entries"][0]
        entry["match_key"][0]["start"] = "0x000000"
    assert reported(problems_after("tables", wide), "BAD_MATCH_KEY")


def test_table_entry_match_type_mismatch_rejected():
    def mismatch(d):
        entry = table(d, "TablesIngress.const_t")["entries"][0]
        entry["match_key"][1]["match_type"] = "ternary"
    assert reported(problems_after("tables", mismatch), "expected exact but got ternary")


def test_table_duplicate_entries_rejected():
    def dup(d):
        t = table(d, "TablesIngress.const_t")
        t["entries"].append(json.loads(json.dumps(t["entries"][0])))
    assert reported(problems_after("tables", dup), "duplicate entries")


def test_table_action_names_disagree_with_ids_rejected():
    probs = problems_after("tables", lambda d: table(d, "TablesIngress.lpm_t")["actions"].reverse())
    assert reported(probs, "do not name 'action_ids'")


def test_control_node_names_repeated_rejected():
    def dup(d):
        d["pipelines"][0]["conditionals"][0]["name"] = d["pipelines"][0]["tables"][1]["name"]
    assert reported(problems_after("control_flow", dup), "duplicate control node")


def test_checksum_unknown_calculation_rejected():
    probs = problems_after("checksums", lambda d: d["checksums"][0].update(calculation="calc_9"))
    assert reported(probs, "invalid reference to calculation 'calc_9'")


def test_deparser_emits_metadata_rejected():
    probs = problems_after("tables", lambda d: d["deparsers"][0]["order"].append("scalars"))
    assert reported(probs, "metadata header 'scalars' would be deparsed")


# ---------------------------------------------------------------- interfaces

def test_assert_loadable_raises_with_every_problem():
    doc = compile_cached(PROGRAMS / "tables.p4")
    doc["headers"][-1]["header_type"] = "nope_t"
    doc["__meta__"]["version"] = [1, 0]
    with pytest.raises(Bmv2JsonError) as info:
        assert_loadable(doc)
    assert len(info.value.problems) >= 2 and "nope_t" in str(info.value)


def test_cli_reports_problems_and_exit_status(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    doc = compile_cached(PROGRAMS / "tables.p4")
    good.write_text(json.dumps(doc))
    doc["actions"][0]["primitives"][0]["op"] = "frobnicate"
    bad.write_text(json.dumps(doc))
    (tmp_path / "broken.json").write_text("{not json")
    run = subprocess.run([sys.executable, "-m", "toolchain.compiler.backend.bmv2_schema",
                          str(good), str(bad), str(tmp_path / "broken.json")],
                         capture_output=True, text=True, cwd=REPO, timeout=60)
    assert run.returncode == 1
    assert f"{good}: ok" in run.stdout
    assert "unknown primitive action: 'frobnicate'" in run.stdout
    assert "cannot read JSON" in run.stdout


def test_register_size_beyond_32_bits_rejected():
    """jsoncpp's asUInt() throws Json::LogicError (simple_switch aborts) past 32 bits."""
    probs = problems_after("externs", lambda d: d["register_arrays"][0].update(size=2**33))
    assert reported(probs, "register_arrays[0].size", "32-bit unsigned")


def test_table_two_actions_with_one_name_rejected():
    """add_action_to_table: a table cannot hold two actions of the same name."""
    def twin(d):
        t = table(d, "TablesIngress.lpm_t")
        set2 = next(a for a in d["actions"] if a["name"] == "TablesIngress.set2")
        d["actions"].append(dict(set2, id=99))
        t["action_ids"][1], t["actions"][1] = 99, "TablesIngress.set2"
        t["next_tables"] = {"__HIT__": None, "__MISS__": None}
        t["default_entry"]["action_id"] = 99
        t["default_entry"]["action_data"] = ["0x01"]
    assert reported(problems_after("tables", twin), "duplicate actions with name 'TablesIngress.set2'")


def test_checksum_names_may_repeat():
    """init_checksums keeps checksums in a list: only ids must be unique."""
    def same_name(d):
        d["checksums"][1]["name"] = d["checksums"][0]["name"]
    assert problems_after("checksums", same_name) == []


def test_control_flow_cycle_rejected():
    """Pipeline::apply follows next nodes until null: a cycle never ends."""
    def loop(d):
        last = table(d, "TablesIngress.const_t")
        last["base_default_next"] = "TablesIngress.exact_multi"
        last["next_tables"] = {"TablesIngress.set4": "TablesIngress.exact_multi"}
    assert reported(problems_after("tables", loop), "control flow cycle")


def test_control_flow_into_other_pipeline_rejected():
    """Control node names are global to the loader: ingress could run an egress table."""
    def cross(d):
        d["pipelines"][0]["init_table"] = d["pipelines"][1]["tables"][0]["name"]
    assert reported(problems_after("clone_field_list", cross), "belongs to another pipeline")


def test_resubmit_in_egress_rejected():
    """simple_switch reads the resubmit flag after ingress only; p4c rejects it in egress."""
    def swap(d):
        d["pipelines"][0]["name"], d["pipelines"][1]["name"] = "egress", "ingress"
    assert reported(problems_after("resubmit", swap), "calls resubmit in egress")


def test_table_ids_unique_across_pipelines():
    """JSON_format.md: table ids are unique in the whole file."""
    def reuse(d):
        d["pipelines"][1]["tables"][0]["id"] = d["pipelines"][0]["tables"][0]["id"]
    assert reported(problems_after("clone_field_list", reuse), "is already used by tables")


def test_old_format_tables_by_action_name_loads_but_breaks_stf_runner():
    """Without "action_ids" the loader reads "actions" by name (older compilers), but p4c's
    STF runner pairs the two lists and needs both."""
    def old_format(d):
        for p in d["pipelines"]:
            for t in p["tables"]:
                del t["action_ids"]
    probs = problems_after("tables", old_format)
    assert probs and all("STF runner needs both" in p for p in probs)


def test_header_metadata_flag_may_be_absent():
    """init_headers reads it with asBool(): absent is false."""
    def no_flag(d):
        for h in d["headers"]:
            if not h["metadata"]:
                del h["metadata"]
    assert problems_after("tables", no_flag) == []


def test_cli_required_table_key_missing_rejected():
    """simple_switch_CLI indexes "support_timeout" though the switch defaults it."""
    probs = problems_after("tables", lambda d: table(d, "TablesIngress.lpm_t").pop("support_timeout"))
    assert reported(probs, "simple_switch_CLI needs 'support_timeout'")


def test_cli_counter_without_is_direct_rejected():
    probs = problems_after("externs", lambda d: d["counter_arrays"][0].pop("is_direct"))
    assert reported(probs, "simple_switch_CLI needs 'is_direct'")
