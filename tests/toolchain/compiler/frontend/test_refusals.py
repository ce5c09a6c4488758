"""Every construct outside the compiler's subset is refused with file:line:col and the
construct's name -- never silently mistranslated.

Line numbers: the helper programs put the user's declarations on line 13 and the ingress
control's body on line 15 (see conftest.program_text); parser bodies start on line 14."""
from __future__ import annotations

import pytest

from .conftest import parser_program, program_text

INGRESS_REFUSALS = [
    ("generic_struct", "apply { }", "struct G<T> { T f; }\n",
     "prog.p4:13:1: generic struct 'G' is not supported"),
    ("two_varbit_fields", "apply { }", "header opt_t { varbit<32> a; varbit<32> b; }\n",
     "prog.p4:13:30: a second varbit field 'b' in header 'opt_t' (BMv2 holds one per header) "
     "is not supported"),
    ("generic_function", "apply { }", "bit<8> f<T>(in T x) { return 8w1; }\n",
     "prog.p4:13:1: generic function 'f' is not supported"),
    ("signed_division", "apply { meta.s = meta.s / 8s2; }", "",
     "prog.p4:15:25: '/' on signed values is not supported"),
    ("signed_modulo", "apply { meta.s = meta.s % 8s2; }", "",
     "prog.p4:15:25: '%' on signed values is not supported"),
    ("header_equality_of_expressions",
     "apply { if ((meta.flag ? hdr.ethernet : hdr.ethernet) == hdr.ethernet) { } }", "",
     "prog.p4:15:55: '==' on ethernet_t values that are not variables or fields is not "
     "supported"),
    ("named_constructor_arguments", "register<bit<32>>(size = 8) r; apply { }",
     "", "prog.p4:15:19: named argument 'size' here is not supported"),
    ("header_constant", "apply { }", "const ethernet_t M = { 1, 2, 3 };\n",
     "prog.p4:13:1: constant 'M' of type ethernet_t (only scalar and struct constants) is "
     "not supported"),
    ("plus_slice_runtime_base", "apply { meta.c = meta.a[meta.c +: 8]; }", "",
     "prog.p4:15:25: a slice e[L +: W] with a run-time base L (p4c's BMv2 back end takes only "
     "a compile-time L) is not supported"),
    ("checksum16", "Checksum16() ck; apply { }", "",
     "prog.p4:15:1: extern Checksum16 (deprecated in v1model.p4; BMv2 has no such extern: use "
     "verify_checksum/update_checksum) is not supported"),
    ("bit_array_in_header", "apply { }", "header a_t { bit<8>[4] arr; }\n",
     "prog.p4:13:14: an array of bit<8> (BMv2 has arrays of headers and header unions only; "
     "p4c-bm2-ss stops on such an array in a header with a compiler bug, 'nested stack') is "
     "not supported"),
    ("bit_array_in_header_c_style", "apply { }", "header a_t { bit<8> arr[4]; }\n",
     "prog.p4:13:24: an array of bit<8> (BMv2 has arrays of headers and header unions only; "
     "p4c-bm2-ss stops on such an array in a header with a compiler bug, 'nested stack') is "
     "not supported"),
    ("generic_function_call", "apply { meta.c = f(meta.c); }", "bit<8> f<T>(in T x) { return 8w1; }\n",
     "prog.p4:13:1: generic function 'f' is not supported"),
    ("bit_zero", "apply { }", "header z_t { bit<0> nothing; }\n",
     "prog.p4:13:14: bit<0> is not supported"),
    ("for_in_loop", "apply { for (bit<8> i in 1 .. 4) { meta.c = i; } }", "",
     "prog.p4:15:9: for-in loop is not supported (BMv2 does not support for-in loops)"),
    ("constructor_call_in_apply", "apply { I(); }", "",
     "prog.p4:15:9: constructor call 'I(...)' here is not supported"),
]


@pytest.mark.parametrize("name,ingress,body,message", INGRESS_REFUSALS,
                         ids=[c[0] for c in INGRESS_REFUSALS])
def test_refusal_in_control_names_construct_and_position(ingress_errors, name, ingress, body,
                                                         message):
    errs = ingress_errors(ingress, body)
    assert errs[0] == message
    assert "is not supported" in message


def test_refusal_sub_control_with_table_applied_twice(errors_of):
    text = program_text("control Sub(inout meta_t m) { table t { key = { m.c: exact; } "
                        "actions = { NoAction; } } apply { t.apply(); } }\n",
                        ingress="apply { sub.apply(meta); sub.apply(meta); }")
    text = text.replace("inout standard_metadata_t sm) {\napply",
                        "inout standard_metadata_t sm) {\n    Sub() sub;\napply")
    assert errors_of(text)[0] == (
        "prog.p4:16:5: instance 'sub' of control 'Sub' applied more than once while it has "
        "tables or extern instances is not supported")


def test_refusal_control_constructor_parameters(errors_of):
    text = program_text("", ingress="apply { }").replace(
        "inout standard_metadata_t sm) {\napply", "inout standard_metadata_t sm)(bit<8> k) {\napply")
    assert errors_of(text) == [
        "prog.p4:14:81: control 'I' with constructor parameters is not supported"]


PARSER_REFUSALS = [
    ("push_front_in_parser",
     "state start { hdr.labels.push_front(1); transition accept; }",
     "prog.p4:15:15: header stack push_front in a parser is not supported"),
    ("packet_length",
     "state start { meta.a = pkt.length(); transition accept; }",
     "prog.p4:15:24: packet_in.length() is not supported"),
]


@pytest.mark.parametrize("name,states,message", PARSER_REFUSALS,
                         ids=[c[0] for c in PARSER_REFUSALS])
def test_refusal_in_parser_names_construct_and_position(errors_of, name, states, message):
    assert errors_of(parser_program(states)) == [message]


def test_refusal_sub_parser_with_constructor_arguments(errors_of):
    body = ("parser Sub(packet_in pkt, out headers_t hdr)(bit<8> k) { state start { "
            "transition accept; } }\n")
    text = parser_program("Sub(8w1) sub;\nstate start { sub.apply(pkt, hdr); "
                          "transition accept; }", body=body)
    errs = errors_of(text)
    assert errs[0] == "prog.p4:13:46: parser 'Sub' with constructor parameters is not supported"
    assert ("prog.p4:16:1: instance 'sub' of parser 'Sub' with constructor arguments or "
            "non-variable header arguments is not supported") in errs


def test_header_union_has_only_is_valid(ingress_errors):
    # spec 8.20: members are made valid one by one; the union itself only has isValid()
    errs = ingress_errors("apply { }", body="header_union U { ethernet_t e; ipv4_t i; }\n"
                                            "struct S { U u; }\n"
                                            "action a(inout S s) { s.u.setValid(); }\n")
    assert errs == ["prog.p4:15:27: a header_union has no method 'setValid'"]


def test_header_union_members_must_be_headers(ingress_errors):
    errs = ingress_errors("apply { }", body="header_union U { ethernet_t e; bit<8> x; }\n")
    assert errs == ["prog.p4:13:32: header_union 'U': member 'x' has type bit<8>; union "
                    "members must be headers"]


def test_several_refusals_are_reported_together(ingress_errors):
    errs = ingress_errors("apply { meta.s = meta.s / 8s2; meta.s = meta.s % 8s3; }",
                          body="struct G<T> { T f; }\n")
    assert len(errs) == 3
    assert all("is not supported" in e for e in errs)


def test_refusal_generic_control(errors_of):
    text = program_text("control G<T>(inout T x) { apply { } }\n", ingress="apply { }")
    assert errors_of(text) == ["prog.p4:13:1: generic control 'G' is not supported"]


def test_refusal_generic_parser(errors_of):
    text = program_text("parser G<T>(packet_in p, out T x) { state start { transition accept; } }"
                        "\n", ingress="apply { }")
    assert errors_of(text) == ["prog.p4:13:1: generic parser 'G' is not supported"]


def test_calls_of_a_refused_function_are_refused_by_name(ingress_errors):
    errs = ingress_errors("apply { meta.c = f(meta.c); }",
                          body="bit<8> f<T>(in T x) { return 8w1; }\n")
    assert errs == ["prog.p4:13:1: generic function 'f' is not supported",
                    "prog.p4:16:18: function call 'f' is not supported"]
