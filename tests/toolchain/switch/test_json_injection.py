"""No value of a BMv2 JSON document ever becomes code.

The loader generates Python from the JSON. Every string and number of the conformance kit's
programs (real p4c output) is replaced, one at a time, by text written to break out of any
place of the generated source it could be pasted into; then the program is loaded, a switch
built and a frame sent. Nothing may run the payload. A number, a constant or a word that
selects behaviour (a primitive or op name, an operand or match type...) is refused with a
``LoadError`` that starts with the JSON path of the value; a name (of a header, a field, a
table...) is data for the generated code, so a payload name is either taken as a name or
refused where it no longer resolves.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toolchain.stf import run_stf
from toolchain.switch import LoadError, SimpleSwitch, load_program
from toolchain.switch.bm_sim.json_checks import json_path, shown_path

KIT = Path(__file__).resolve().parents[2] / "data" / "p4-kit"


FRAME = bytes.fromhex(
    "00000000000100000000000208004500002c000100004006f9ad0a0000010a000101"
    "04d2005000000001000000006002200077230000020405b4") + bytes(20)

# What a payload does if it runs: leaves a mark that the test looks for.
RAN = "__import__('sys').modules['builtins'].__dict__.setdefault('_rdtcp_injected', 1)"
PAYLOADS = [
    f"0(F, A, P):\n    pass\n{RAN}\ndef _Z",      # a function name (actions: _A<id>)
    f"0, off)\n{RAN}\n(0",                        # an argument (raise _PErr(<code>, off))
    f"0] = 0; {RAN}; F[0",                        # a subscript, then statements
    f"'+{RAN}+'",                                 # inside a quoted literal
    RAN,                                          # an expression as it is
]

# The keys whose string values are names of objects (or text nothing reads): data.
NAME_KEYS = {"name", "header_type", "union_type", "init_state", "next_state", "next_node",
             "init_table", "true_next", "false_next", "base_default_next", "calculation",
             "direct_meters", "binding", "action_profile", "act_prof_name", "program",
             "compiler", "order", "actions", "target", "result_target", "next_tables", "errors",
             "fields", "field_aliases", "headers"}
# keys that neither BMv2 nor this target reads (p4c writes them for other tools)
UNREAD_KEYS = {"size", "pi_omit"}
# operand types whose "value" names an object
NAME_OPERANDS = {"field", "header", "header_stack", "header_union", "header_union_stack",
                 "stack_field", "union_stack_field", "union_stack", "regular", "stack",
                 "calculation", "register_array", "counter_array", "meter_array", "string"}


def _injected() -> bool:
    import builtins
    return builtins.__dict__.pop("_rdtcp_injected", None) is not None


def leaves(doc, path=()):
    """(path, value) of every string and number, source_info left out."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k != "source_info":
                yield from leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from leaves(v, path + (i,))
    elif isinstance(doc, (str, int)) and not isinstance(doc, bool):
        yield path, doc


def is_name(doc, path) -> bool:
    """Whether the string at ``path`` names an object (is data for the generated code)."""
    parent = doc
    for p in path[:-1]:
        if isinstance(parent, dict) and parent.get("type") in NAME_OPERANDS and p == "value":
            return True
        parent = parent[p]
    if "next_tables" in path:             # {action name: next node name}
        return True
    key = next((p for p in reversed(path) if isinstance(p, str)), None)
    if isinstance(parent, dict) and parent.get("type") in NAME_OPERANDS and path[-1] == "value":
        return True
    if isinstance(parent, dict) and parent.get("type") == "parse_vset" and path[-1] == "value":
        return True
    return key in NAME_KEYS


def representative_leaves(doc) -> list:
    """Every leaf whose kind (its path with array indexes left out) is new, plus a second one
    of each kind: the kit's 4,900 leaves come down to about 800."""
    seen: dict = {}
    out = []
    for path, value in leaves(doc):
        kind = re.sub(r"\[\d+\]", "[]", json_path(path))
        if seen.get(kind, 0) < 2:
            seen[kind] = seen.get(kind, 0) + 1
            out.append((path, value))
    return out


def load_and_run(doc) -> str:
    sw = SimpleSwitch(load_program(doc))
    sw.process(0, FRAME)
    return "loaded"


def _set(doc, path, value):
    for p in path[:-1]:
        doc = doc[p]
    doc[path[-1]] = value


@pytest.mark.parametrize("name", [p.stem for p in sorted(KIT.glob("*.json"))])
def test_no_value_of_the_json_becomes_code(name):
    text = (KIT / f"{name}.json").read_text()
    doc = json.loads(text)
    for path, value in representative_leaves(doc):
        where = json_path(path)
        for payload in PAYLOADS:
            d = json.loads(text)            # a fresh copy (parsing costs less than deepcopy)
            _set(d, path, payload)
            try:
                load_and_run(d)
                refused = None
            except LoadError as e:
                refused = str(e)
            assert not _injected(), f"{where} = {payload!r}: the payload ran"
            if is_name(doc, path):
                continue                    # a name is data: taken, or refused elsewhere
            if path[-1] in UNREAD_KEYS:
                continue                    # nobody reads it: BMv2 loads it as it is too
            assert refused is not None, f"{where} = {payload!r} was loaded"
            assert refused.startswith(shown_path(path) + ":"), f"{where}: refused as {refused!r}"


def test_the_exploit_through_an_action_id_is_refused_by_its_path():
    # the action's id made a string and the tables pointing at it by that string: the id was
    # pasted into the generated function's name ("def _A<id>(F, A, P):")
    doc = json.loads((KIT / "lpm_forward.json").read_text())
    payload = PAYLOADS[0]
    k = 1
    old = doc["actions"][k]["id"]
    doc["actions"][k]["id"] = payload
    for pipe in doc["pipelines"]:
        for t in pipe["tables"]:
            t["action_ids"] = [payload if a == old else a for a in t["action_ids"]]
            if t.get("default_entry", {}).get("action_id") == old:
                t["default_entry"]["action_id"] = payload
    with pytest.raises(LoadError, match=r"^actions\[1\]\.id: expected an integer"):
        load_and_run(doc)
    assert not _injected()


def rename_everywhere(doc, names: set, prefix: str):
    """``doc`` with every string (and object key) that is one of ``names`` prefixed."""
    if isinstance(doc, dict):
        return {(prefix + k if k in names else k): rename_everywhere(v, names, prefix)
                for k, v in doc.items()}
    if isinstance(doc, list):
        return [rename_everywhere(v, names, prefix) for v in doc]
    if isinstance(doc, str) and doc in names:
        return prefix + doc
    return doc


def defined_names(doc) -> set:
    """The names the program gives its headers, fields, types, actions, tables, states,
    calculations and externs; simple_switch's own (standard_metadata, the blocks it looks up
    by name, the core errors) and the hidden $valid$ are left as they are."""
    fixed = {"standard_metadata", "parser", "deparser", "ingress", "egress", "scalars"}
    names = set()
    for t in doc.get("header_types", []):
        if t["name"] != "standard_metadata":
            names |= {t["name"]} | {f[0] for f in t["fields"]}
    for key in ("headers", "header_stacks", "actions", "calculations", "register_arrays",
                "counter_arrays", "meter_arrays", "field_lists", "learn_lists"):
        names |= {x["name"] for x in doc.get(key, [])}
    for pipe in doc["pipelines"]:
        for key in ("tables", "conditionals"):
            names |= {x["name"] for x in pipe.get(key, [])}
    for parser in doc["parsers"]:
        names |= {s["name"] for s in parser["parse_states"]}
    # action parameters keep their names: the STF passes arguments by them
    fixed |= {r["name"] for a in doc["actions"] for r in a["runtime_data"]}
    return {n for n in names - fixed if not n.startswith("$")}


@pytest.mark.parametrize("name", [p.stem for p in sorted(KIT.glob("*.json"))])
def test_names_are_data_a_program_renamed_with_payloads_passes_its_stf(name, tmp_path):
    doc = json.loads((KIT / f"{name}.json").read_text())
    for payload in PAYLOADS:
        renamed = rename_everywhere(doc, defined_names(doc), payload)
        result = run_stf(renamed, KIT / f"{name}.stf")
        assert not _injected(), f"a name with {payload!r} ran"
        assert result.ok, "\n".join(result.failures)
