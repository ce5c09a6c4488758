"""The gateway source against the rules real p4c (p4c-bm2-ss, v1model) enforces with warnings or
errors, checked here without p4c: the gateway must be valid P4_16 for real p4c (v1model) with
no warnings.

p4c is not installable on this machine (tests/gateway/test_real_p4c.py runs the real thing where
it is). Each rule below is one that p4c's front end, mid end or BMv2 back end applies to v1model
programs (p4src/README.md, "Checked against p4c", names the p4c source of each); the checker
works on the preprocessed source as p4c sees it (system headers core.p4/v1model.p4 excluded, as
p4c's `isSystemFile` excludes them), or on the BMv2 JSON where the rule is about what the back
end emits. Every rule has a negative control: the same checker on the gateway with one injected
defect must report it, so a checker that silently stopped working fails here too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolchain.compiler import compile_file
from toolchain.compiler.frontend import P4INCLUDE
from toolchain.compiler.frontend.preprocess import preprocess

ROOT = Path(__file__).resolve().parents[2]
P4SRC = ROOT / "p4src"
GATEWAY = P4SRC / "rdtcp.p4"

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
TYPE = r"(?:bit<\d+>|int<\d+>|bool|" + IDENT + r")"
# An extern instance, v1model's or TNA's (test_p4src_tna.py applies the same rules to the port).
INSTANCE = (r"\b(?:register|counter|meter|direct_counter|Register|RegisterAction|Counter|Hash|"
            r"Random|Checksum)\b[^;{}]*?\)\s*(" + IDENT + r")\s*[;=]")

# v1model.p4 (p4c main) marks these @deprecated; p4c warns on every use (frontends/p4/deprecated.cpp).
DEPRECATED_CALLS = {
    "recirculate": r"\brecirculate\s*\(",
    "resubmit": r"\bresubmit\s*\(",
    "clone3": r"\bclone3\s*\(",
    "Checksum16": r"\bChecksum16\b",
    "mark_to_drop()": r"\bmark_to_drop\s*\(\s*\)",
}


# ----------------------------------------------------------------------------------------------
# The program text as p4c's passes see it
# ----------------------------------------------------------------------------------------------
def user_text(path: Path = GATEWAY, extra: str = "") -> str:
    """Preprocessed program, keeping only lines from the project's files (p4c does not warn
    about system headers). `extra` is appended as if it were more user source."""
    text = preprocess(str(path), include_dirs=[str(P4SRC / "include"), str(P4INCLUDE)])
    keep, lines = False, []
    for line in text.splitlines():
        marker = re.match(r'#\s*\d+\s+"([^"]+)"', line)
        if marker:
            name = marker.group(1)
            keep = not name.startswith("<") and P4INCLUDE.resolve() not in Path(name).resolve().parents
            continue
        if keep and not line.startswith("#"):
            lines.append(line)
    return strip_comments("\n".join(lines) + "\n" + extra)


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def block_after(text: str, start: int) -> tuple[str, int]:
    """The text inside the first {...} at or after `start`, and the index after its '}'."""
    open_at = text.index("{", start)
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:i], i + 1
    raise ValueError("unbalanced braces")


def control_body(text: str, name: str) -> str:
    m = re.search(r"\bcontrol\s+" + name + r"\s*\(", text)
    assert m, f"control {name} not found"
    body, _ = block_after(text, m.end())
    return body


def v1switch_blocks(text: str) -> list[str]:
    """The six block names given to V1Switch(...) main, in order."""
    m = re.search(r"\bV1Switch\s*\((.*?)\)\s*main\s*;", text, flags=re.S)
    assert m, "no V1Switch(...) main"
    return re.findall(r"(" + IDENT + r")\s*\(\s*\)", m.group(1))


def count_uses(text: str, name: str) -> int:
    return len(re.findall(r"(?<![\w.])" + re.escape(name) + r"\b", text))


# ----------------------------------------------------------------------------------------------
# The rules, each returning the problems it finds (empty = p4c would say nothing)
# ----------------------------------------------------------------------------------------------
def unused_declarations(text: str) -> list[str]:
    """frontends/p4/unusedDeclarations.cpp (WarnAboutUnusedDeclarations): constants, typedefs,
    actions, tables, extern instances and local variables that nothing references."""
    patterns = {
        "constant": r"\bconst\s+" + TYPE + r"\s+(" + IDENT + r")\s*=",
        "typedef": r"\btypedef\s+" + TYPE + r"\s+(" + IDENT + r")\s*;",
        "action": r"\baction\s+(" + IDENT + r")\s*\(",
        "table": r"\btable\s+(" + IDENT + r")\s*\{",
        "instance": INSTANCE,
        "local": r"(?:^|[;{}])\s*" + TYPE + r"\s+(" + IDENT + r")\s*=",
    }
    problems = []
    for kind, pattern in patterns.items():
        for name in sorted(set(re.findall(pattern, text, flags=re.M))):
            if name in ("const", "return"):
                continue
            if count_uses(text, name) < 2:
                problems.append(f"{kind} '{name}' is unused")
    return problems


def unused_action_parameters(text: str) -> list[str]:
    """unusedDeclarations.cpp (parameters of actions) and backends/bmv2/common/action.cpp
    ("Unused action parameter")."""
    problems = []
    for m in re.finditer(r"\baction\s+(" + IDENT + r")\s*\(([^)]*)\)", text):
        body, _ = block_after(text, m.end())
        for param in filter(None, (p.strip() for p in m.group(2).split(","))):
            pname = param.split()[-1]
            if count_uses(body, pname) == 0:
                problems.append(f"action {m.group(1)}: parameter '{pname}' is unused")
    return problems


def deprecated_externs(text: str) -> list[str]:
    """v1model.p4's @deprecated externs (frontends/p4/deprecated.cpp warns on each use)."""
    return [f"deprecated {name}" for name, pat in DEPRECATED_CALLS.items() if re.search(pat, text)]


def tables_applied_once(text: str) -> list[str]:
    """Each table applied exactly once: never (unusedDeclarations.cpp "table ... is unused") or
    more than once with different successors (backends/bmv2/common/controlFlowGraph.cpp,
    "table ... has multiple successors"; BMv2 JSON has one pipeline node per table)."""
    problems = []
    for name in re.findall(r"\btable\s+(" + IDENT + r")\s*\{", text):
        n = len(re.findall(r"\b" + name + r"\s*\.\s*apply\s*\(", text))
        if n != 1:
            problems.append(f"table {name} applied {n} times")
    return problems


def field_list_rules(text: str) -> list[str]:
    """backends/bmv2/simple_switch/simpleSwitch.cpp: a *_preserving_field_list index must be an
    integer constant tagged on some user metadata field with @field_list(<integer literal>)
    ("no user metadata fields tagged with @field_list", "Annotation must be a constant
    integer"); recirculate_preserving_field_list only in the egress control ("can only be
    invoked in egress")."""
    problems = []
    tagged = set()
    for args in re.findall(r"@field_list\s*\(([^)]*)\)", text):
        for a in (x.strip() for x in args.split(",")):
            if not re.fullmatch(r"\d+", a):
                problems.append(f"@field_list({a}): not an integer literal")
            else:
                tagged.add(int(a))
    for m in re.finditer(r"\b(recirculate|resubmit|clone)_preserving_field_list\s*\(([^;]*)\)\s*;", text):
        index = m.group(2).split(",")[-1].strip()
        if not re.fullmatch(r"\d+", index) or int(index) not in tagged:
            problems.append(f"{m.group(1)}_preserving_field_list({index}): no @field_list({index})")
    egress = control_body(text, v1switch_blocks(text)[3])
    calls_everywhere = len(re.findall(r"\brecirculate_preserving_field_list\s*\(", text))
    calls_in_egress = len(re.findall(r"\brecirculate_preserving_field_list\s*\(", egress))
    if calls_everywhere != calls_in_egress:
        problems.append("recirculate_preserving_field_list outside the egress control")
    return problems


def checksum_controls(text: str) -> list[str]:
    """simpleSwitch.cpp convertChecksum: the verify/compute controls hold only calls to
    verify_checksum(_with_payload) / update_checksum(_with_payload) ("Only calls to ...
    allowed"), and their field lists hold only fields and constants ("Computations are not
    supported in ...")."""
    blocks = v1switch_blocks(text)
    problems = []
    for name, call in ((blocks[1], "verify_checksum"), (blocks[4], "update_checksum")):
        apply_body, _ = block_after(control_body(text, name), 0)
        for stmt in filter(None, (s.strip() for s in apply_body.split(";"))):
            if not re.match(call + r"(_with_payload)?\s*\(", stmt):
                problems.append(f"{name}: statement other than {call}: {stmt[:40]}")
                continue
            field_list = re.search(r"\{(.*)\}", stmt, flags=re.S)
            for item in (x.strip() for x in (field_list.group(1) if field_list else "").split(",")):
                if item and not re.fullmatch(r"(\d+w)?\d+|[\w.]+(\[\d+\])?(\.\w+)*", item):
                    problems.append(f"{name}: computation in the field list: {item}")
    return problems


def parser_rules(text: str) -> list[str]:
    """Every state ends in a transition (frontends/p4/createBuiltins.cpp: "implicit transition
    to reject"); no explicit reject (backends/bmv2/common/parser.cpp: "Explicit transition to
    reject not supported on this target"); nothing after `default` in a select
    (midend/simplifySelectCases.cpp: "unreachable")."""
    problems = []
    for m in re.finditer(r"\bstate\s+(" + IDENT + r")\s*", text):
        body, _ = block_after(text, m.end())
        if "transition" not in body:
            problems.append(f"state {m.group(1)}: no transition")
        if re.search(r"\breject\b", body):
            problems.append(f"state {m.group(1)}: transition to reject")
        for cases in re.findall(r"select\s*\(.*?\)\s*\{(.*?)\}", body, flags=re.S):
            labels = [c.split(":")[0].strip() for c in cases.split(";") if c.strip()]
            if "default" in labels and labels[-1] != "default":
                problems.append(f"state {m.group(1)}: case after default is unreachable")
    return problems


def constants_fit(text: str) -> list[str]:
    """ir/expression.cpp: "value does not fit in W bits" for a literal wider than its type."""
    problems = []
    for width, name, value in re.findall(
            r"\bconst\s+bit<(\d+)>\s+(" + IDENT + r")\s*=\s*(0x[0-9A-Fa-f]+|\d+)\s*;", text):
        if int(value, 0) >= 1 << int(width):
            problems.append(f"const {name} = {value} does not fit in bit<{width}>")
    return problems


def shadowing(text: str) -> list[str]:
    """frontends/common/resolveReferences/resolveReferences.cpp (CheckShadowing): an action
    parameter or a local variable named like a declaration of an enclosing scope ("'x' shadows
    'y'"; a local named like a parameter is an error)."""
    outer = set(re.findall(r"\b(?:const\s+" + TYPE + r"|typedef\s+" + TYPE + r"|header|struct|"
                           r"control|parser|action|table)\s+(" + IDENT + r")", text))
    outer |= set(re.findall(INSTANCE, text))
    outer |= {"hdr", "meta", "standard_metadata", "packet"}
    problems = []
    for m in re.finditer(r"\baction\s+(" + IDENT + r")\s*\(([^)]*)\)", text):
        for param in filter(None, (p.strip() for p in m.group(2).split(","))):
            if param.split()[-1] in outer:
                problems.append(f"action {m.group(1)}: parameter '{param.split()[-1]}' shadows")
    for name in re.findall(r"(?:^|[;{}])\s*" + TYPE + r"\s+(" + IDENT + r")\s*=", text, flags=re.M):
        if name in outer:
            problems.append(f"local '{name}' shadows")
    return problems


RULES = [unused_declarations, unused_action_parameters, deprecated_externs, tables_applied_once,
         field_list_rules, checksum_controls, parser_rules, constants_fit, shadowing]


@pytest.fixture(scope="module")
def gateway_text() -> str:
    return user_text()


# ----------------------------------------------------------------------------------------------
# The gateway passes every rule
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rule", RULES, ids=[r.__name__ for r in RULES])
def test_p4c_rule_holds_for_gateway(rule, gateway_text):
    assert rule(gateway_text) == []


def test_header_widths_byte_multiples_in_emitted_json():
    # backends/bmv2/common/header.cpp: a header's fields must total a multiple of 8 bits.
    doc = compile_file(str(GATEWAY))
    types = {t["name"]: t for t in doc["header_types"]}
    for h in doc["headers"]:
        if h["metadata"]:
            continue
        bits = sum(f[1] for f in types[h["header_type"]]["fields"])
        assert bits % 8 == 0, (h["name"], bits)


def test_field_list_preserved_fields_are_loop_state_in_emitted_json():
    # the recirculation field list (FL_RECIRC) carries exactly the loop state MyEgress needs
    doc = compile_file(str(GATEWAY))
    [fl] = doc["field_lists"]
    assert sorted(e["value"][1].split(".")[-1] for e in fl["elements"]) == ["loops_left",
                                                                            "recirc_port"]
    assert fl["id"] != 0      # id 0 never recirculates on simple_switch


# ----------------------------------------------------------------------------------------------
# Negative controls: each checker reports an injected defect
# ----------------------------------------------------------------------------------------------
INJECTED = {
    unused_declarations: ("const bit<8> NEVER_USED = 1;", "constant 'NEVER_USED' is unused"),
    deprecated_externs: ("control X(inout standard_metadata_t s) { apply { recirculate(s); } }",
                         "deprecated recirculate"),
    constants_fit: ("const bit<4> TOO_WIDE = 16;", "does not fit"),
}


@pytest.mark.parametrize("rule", list(INJECTED), ids=[r.__name__ for r in INJECTED])
def test_p4c_rule_reports_injected_defect(rule, gateway_text):
    extra, expected = INJECTED[rule]
    assert any(expected in p for p in rule(gateway_text + "\n" + extra + "\n"))


def test_unused_action_parameter_reported_when_body_ignores_it(gateway_text):
    text = gateway_text.replace("action drop_ttl() {", "action drop_ttl(bit<8> why) {")
    assert unused_action_parameters(text) == ["action drop_ttl: parameter 'why' is unused"]


def test_tables_applied_once_reported_when_applied_twice(gateway_text):
    text = gateway_text.replace("ipv4_lpm.apply();", "ipv4_lpm.apply(); ipv4_lpm.apply();")
    assert tables_applied_once(text) == ["table ipv4_lpm applied 2 times"]


def test_field_list_rules_reported_when_index_untagged_or_in_ingress(gateway_text):
    untagged = gateway_text.replace("recirculate_preserving_field_list(1)",
                                    "recirculate_preserving_field_list(2)")
    assert any("no @field_list(2)" in p for p in field_list_rules(untagged))
    ingress = gateway_text.replace("set_out_index();",
                                   "set_out_index(); recirculate_preserving_field_list(1);", 1)
    assert "recirculate_preserving_field_list outside the egress control" in field_list_rules(ingress)


def test_checksum_controls_reported_when_statement_not_a_checksum_call(gateway_text):
    text = re.sub(r"(control\s+MyComputeChecksum[^{]*\{\s*apply\s*\{)",
                  r"\1 meta.tcp_modified = 0;", gateway_text)
    assert any("statement other than update_checksum" in p for p in checksum_controls(text))


def test_parser_rules_reported_when_state_has_no_transition(gateway_text):
    text = gateway_text.replace("transition accept;\n    }\n}", "\n    }\n}", 1)
    assert any("no transition" in p for p in parser_rules(text))


def test_shadowing_reported_when_local_named_like_register(gateway_text):
    text = gateway_text.replace("bit<32> qlen = 0;", "bit<32> port_qlen = 0;", 1)
    assert "local 'port_qlen' shadows" in shadowing(text)
