"""What p4c-bm2-ss refuses in valid P4_16 is refused here too (frontend/bmv2_target.py and the
p4c front-end rules in typecheck/), and what it accepts is accepted.

The refusals themselves, one program per class with p4c's message at p4c's line, are golden
files in tests/toolchain/programs/errors (test_refusals.py runs them). Each class of p4c's own
error tests that this front end once accepted has one of ours there, written for this suite
(p4c's testdata is for reading, not copied): P4C_ERROR_TESTS maps them. Here: the limits'
edges (what p4c's passes remove before its back end checks, so p4c accepts it), the
portability warnings for p4c 1.2.4, and --Werror.
"""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError
from toolchain.compiler.driver import main
from toolchain.compiler.frontend import parse_and_check
from toolchain.compiler.pipeline import compile_program

from ..conftest import PROGRAMS
from .conftest import program_text

ERRORS = PROGRAMS / "errors"

# p4c's error test (testdata/p4_16_errors, p4_16_bmv_errors) -> our program of the same class
P4C_ERROR_TESTS = {
    "init-entries-error3-bmv2": "refuse_entry_priority_overflow",
    "issue1580": "refuse_defaultonly_in_entry",              # and refuse_tableonly_default
    "issue2354": "refuse_int_param_direction",               # and refuse_int_action_param
    "issue2373": "refuse_parser_never_ends",
    "key-name": "refuse_complex_key_without_name",
    "issue1167-bmv2": "refuse_direct_meter_never_read",
    "issue1829-1-bmv2": "refuse_direct_meter_never_read",
    "issue1829-3-bmv2": "refuse_direct_meter_without_table",
}

META = "struct wide_t { bit<512> w; bit<16> n16; bit<8> n8; }\n"


def _compile(tmp_path, ingress: str, body: str = META):
    path = tmp_path / "prog.p4"
    path.write_text(program_text(body, ingress=ingress))
    return parse_and_check(path)


def _errors(tmp_path, ingress: str, body: str = META) -> list:
    with pytest.raises(CompileError) as e:
        _compile(tmp_path, ingress, body)
    return [(d.pos.line, d.message) for d in e.value.errors]


@pytest.mark.parametrize("p4c_test,ours", sorted(P4C_ERROR_TESTS.items()))
def test_each_p4c_error_class_has_a_refusal_program(p4c_test, ours):
    assert (ERRORS / f"{ours}.p4").is_file() and (ERRORS / f"{ours}.stderr").is_file()


# ---------------------------------------------------------------- shifts (p4c lower.cpp)
@pytest.mark.parametrize("stmt", [
    "wide_t v = {0, 0, 3}; v.w = v.w << v.n8;",            # a bit<8> amount: up to 255
    "wide_t v = {0, 0, 3}; v.w = v.w << 256;",              # an int amount up to 2^8
    "wide_t v = {0, 5, 3}; v.w = v.w << 16w0;",             # by 0: folded away
    "meta.a = 32w1 << 16w3;",                               # constant: folded
    "meta.c = (meta.a >> 16w4)[7:0];",                      # under a slice: folded into it
    "meta.c = (meta.a << 16w4)[7:0];",
    "wide_t v = {0, 0, 3}; v.w = (v.w << 200) >> 100;",     # opposite directions: not merged
])
def test_shifts_bmv2_takes_are_accepted(tmp_path, stmt):
    _compile(tmp_path, f"apply {{ {stmt} }}")


@pytest.mark.parametrize("stmt,message", [
    ("wide_t v = {0, 0, 3}; v.w = v.w << v.n16;",
     "v.w << v.n16: shift amount limited to 8 bits on this target"),
    ("meta.a = meta.a >> 16w3;", "meta.a >> 3: shift amount limited to 8 bits on this target"),
    ("wide_t v = {0, 0, 3}; v.w = v.w << 257;",
     "v.w << 257: shift amount limited to 256 on this target"),
    # p4c's StrengthReduction merges same-direction int shifts before the back end checks
    ("wide_t v = {0, 0, 3}; v.w = (v.w << 200) << 100;",
     "v.w << 300: shift amount limited to 256 on this target"),
    # ... and makes a multiplication by 2^k a shift by k
    ("wide_t v = {0, 0, 3}; v.w = v.w * (512w1 << 300);",
     "v.w << 300: shift amount limited to 256 on this target"),
    # a slice takes the shift only when it reads bits the shift kept
    ("wide_t v = {0, 0, 3}; meta.a = (v.w >> 16w500)[31:0];",
     "v.w >> 500: shift amount limited to 8 bits on this target"),
])
def test_shifts_bmv2_cannot_take_are_refused_on_their_line(tmp_path, stmt, message):
    ingress = f"apply {{\n{stmt}\n}}"
    errors = _errors(tmp_path, ingress)
    line = program_text(META, ingress=ingress).splitlines().index(stmt) + 1
    assert errors[0] == (line, message)


def test_a_shift_in_an_inlined_control_is_reported_once_where_it_is_written(tmp_path):
    body = META + """
control Sub(inout headers_t hdr, inout meta_t meta) {
    action widen() {
        meta.a = meta.a << (bit<16>)meta.c;
    }
    apply { widen(); }
}
"""
    errors = _errors(tmp_path, "Sub() sub;\napply { sub.apply(hdr, meta); }", body)
    assert len(errors) == 1
    line = program_text(body, ingress="").splitlines().index(
        "        meta.a = meta.a << (bit<16>)meta.c;") + 1
    assert errors[0] == (line, "meta.a << (bit<16>)meta.c: shift amount limited to 8 bits on "
                               "this target")


# ---------------------------------------------------------------- parser externs
@pytest.mark.parametrize("stmt", ["verify(hdr.ethernet.etherType != 0, error.NoMatch);",
                                  'log_msg("eth");', "assert(true);",
                                  "hdr.ipv4.setInvalid();"])
def test_parser_statements_bmv2_runs_are_accepted(tmp_path, stmt):
    text = program_text(META, ingress="apply { }").replace(
        "state start { pkt.extract(hdr.ethernet); transition accept; }",
        f"state start {{ pkt.extract(hdr.ethernet); {stmt} transition accept; }}")
    path = tmp_path / "prog.p4"
    path.write_text(text)
    parse_and_check(path)


# ---------------------------------------------------------------- portability to p4c 1.2.4
PREDICATED = """register<bit<8>>(4) r;
action a() {
    if (meta.c == 1) {
        r.write(0, 1);
    }
}
apply { a(); }"""


def test_a_call_under_an_if_in_an_action_warns_for_p4c_1_2_4(tmp_path):
    _, warnings = _compile(tmp_path, PREDICATED)
    assert [w.message for w in warnings] == [
        "r.write: Conditional execution in actions unsupported on this target (p4c 1.2.4; p4c "
        "1.2.5 and later accept it)"]


@pytest.mark.parametrize("action", [
    # a return under an if puts what follows under one too (p4c's RemoveReturns)
    "action a() { if (meta.c == 1) { return; } r.write(0, 1); }",
    "action a() { if (meta.c == 1) { exit; } }",
])
def test_what_p4c_1_2_4_predicates_and_refuses_warns(tmp_path, action):
    _, warnings = _compile(tmp_path, f"register<bit<8>>(4) r;\n{action}\napply {{ a(); }}")
    assert len(warnings) == 1 and "Conditional execution in actions" in warnings[0].message


@pytest.mark.parametrize("action", [
    "action a() { if (meta.c == 1) { meta.a = 2; } else { meta.b = 3; } r.write(0, 1); }",
    "action b() { meta.a = 1; }\naction a() { if (meta.c == 1) { b(); } r.write(0, 1); }",
    "action a() { r.write(0, 1); return; }",
])
def test_what_p4c_1_2_4_predicates_without_calls_does_not_warn(tmp_path, action):
    _, warnings = _compile(tmp_path, f"register<bit<8>>(4) r;\n{action}\napply {{ a(); }}")
    assert warnings == []


def test_werror_makes_every_warning_an_error(tmp_path, capsys):
    path = tmp_path / "prog.p4"
    path.write_text(program_text("", ingress=PREDICATED))
    out = tmp_path / "prog.json"
    assert main([str(path), "-o", str(out)]) == 0
    assert main([str(path), "-o", str(out), "--Werror"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1].endswith("error: r.write: Conditional execution in actions unsupported on "
                            "this target (p4c 1.2.4; p4c 1.2.5 and later accept it)")
    with pytest.raises(CompileError):
        compile_program(path, werror=True)


def test_a_direct_counter_no_table_names_is_ignored_with_a_warning(tmp_path):
    _, warnings = _compile(tmp_path, "direct_counter(CounterType.packets) c;\napply { }")
    assert [w.message for w in warnings] == ["c: Direct counter not used; ignoring"]


def test_a_constant_shift_past_the_width_warns_as_p4c_does(tmp_path):
    _, warnings = _compile(tmp_path, "apply { meta.c = meta.c << 8; meta.a = meta.a >> 31; }")
    assert [w.message for w in warnings] == ["meta.c << 8: shifting value with 8 bits by 8"]
