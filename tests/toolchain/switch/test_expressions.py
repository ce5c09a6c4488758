"""JSON expression ops as p4c emits them, executed through the switch (widths 1..128)."""

import pytest

from toolchain.switch import SimpleSwitch

from .jsonkit import E, F, X, assign, frame, pack, program, unpack

WIDTHS = [1, 8, 16, 32, 48, 64, 128]


def run(fields, primitives, values, **kw):
    sw = SimpleSwitch(program(fields, primitives, **kw))
    out = sw.process(0, frame(pack(fields, values)))
    assert len(out) == 1, out
    return unpack(fields, out[0][1][14:])


def wrap_fields(w):
    return [["a", w, False], ["b", w, False], ["r", w, False], ["pad", (-3 * w) % 8, False]] \
        if (3 * w) % 8 else [["a", w, False], ["b", w, False], ["r", w, False]]


@pytest.mark.parametrize("w", WIDTHS)
def test_addition_wraps_at_width(w):
    m = (1 << w) - 1
    fields = wrap_fields(w)
    r = run(fields, [assign("h", "r", E("&", E("+", F("h", "a"), F("h", "b")), X(m)))], {"a": m, "b": 1 if w > 1 else 1})
    assert r["r"] == 0


@pytest.mark.parametrize("w", WIDTHS)
def test_subtraction_wraps_below_zero(w):
    m = (1 << w) - 1
    fields = wrap_fields(w)
    r = run(fields, [assign("h", "r", E("&", E("-", F("h", "a"), F("h", "b")), X(m)))], {"a": 0, "b": 1})
    assert r["r"] == m


@pytest.mark.parametrize("w", WIDTHS)
def test_multiplication_truncates_to_width(w):
    m = (1 << w) - 1
    fields = wrap_fields(w)
    r = run(fields, [assign("h", "r", E("&", E("*", F("h", "a"), F("h", "b")), X(m)))], {"a": m, "b": m})
    assert r["r"] == (m * m) & m


@pytest.mark.parametrize("w", WIDTHS)
def test_assignment_truncates_without_explicit_mask(w):
    fields = wrap_fields(w)
    r = run(fields, [assign("h", "r", E("+", F("h", "a"), F("h", "b")))], {"a": (1 << w) - 1, "b": 2})
    assert r["r"] == ((1 << w) + 1) & ((1 << w) - 1)


@pytest.mark.parametrize("w", [8, 16, 32, 64])
def test_shift_left_drops_high_bits_and_shift_right_is_logical(w):
    m = (1 << w) - 1
    fields = wrap_fields(w)
    prims = [assign("h", "r", E("&", E("<<", F("h", "a"), X(w - 1)), X(m))),
             assign("h", "b", E(">>", F("h", "a"), X(1)))]
    r = run(fields, prims, {"a": 3})
    assert r["r"] == 1 << (w - 1)
    assert r["b"] == 1


def test_shift_by_a_field_amount():
    fields = [["a", 8, False], ["n", 8, False], ["r", 32, False]]
    r = run(fields, [assign("h", "r", E("&", E("<<", F("h", "a"), F("h", "n")), X(0xFFFFFFFF)))], {"a": 3, "n": 31})
    assert r["r"] == 0x80000000


SIGNED = [["c", 8, True], ["d", 8, True], ["r", 8, True], ["u", 8, False]]


def test_signed_field_reads_are_sign_extended():
    r = run(SIGNED, [assign("h", "u", E("?", X(1), X(0), E("<", F("h", "c"), X(0))))], {"c": -3})
    assert r["u"] == 1


def test_signed_arithmetic_shift_right():
    # p4c: int<8> c >> 2  ->  two_comp_mod(c >> 2, 8)
    r = run(SIGNED, [assign("h", "r", E("two_comp_mod", E(">>", F("h", "c"), X(2)), X(8)))], {"c": -100})
    assert r["r"] == -25


def test_two_comp_mod_wraps_signed_overflow():
    r = run(SIGNED, [assign("h", "r", E("two_comp_mod", E("+", F("h", "c"), F("h", "d")), X(8)))], {"c": 100, "d": 100})
    assert r["r"] == 200 - 256


@pytest.mark.parametrize("c, d, want", [(100, 100, 127), (-100, -100, -128), (5, -3, 2)])
def test_signed_saturating_add(c, d, want):
    r = run(SIGNED, [assign("h", "r", E("sat_cast", E("+", F("h", "c"), F("h", "d")), X(8)))], {"c": c, "d": d})
    assert r["r"] == want


@pytest.mark.parametrize("a, b, op, want", [(200, 100, "+", 255), (10, 20, "-", 0), (20, 10, "-", 10)])
def test_unsigned_saturating_ops(a, b, op, want):
    fields = [["a", 8, False], ["b", 8, False], ["r", 8, False]]
    r = run(fields, [assign("h", "r", E("usat_cast", E(op, F("h", "a"), F("h", "b")), X(8)))], {"a": a, "b": b})
    assert r["r"] == want


def test_signed_compare_between_signed_fields():
    r = run(SIGNED, [assign("h", "u", E("?", X(1), X(0), E("<", F("h", "c"), F("h", "d"))))], {"c": -1, "d": 1})
    assert r["u"] == 1


def test_slice_and_concatenation_as_p4c_lowers_them():
    fields = [["a", 8, False], ["b", 8, False], ["f", 32, False], ["cat", 16, False], ["sl", 8, False]]
    prims = [assign("h", "cat", E("|", E("&", E("<<", E("&", F("h", "b"), X(0xFFFF)), X(8)), X(0xFFFF)),
                                  E("&", E("&", F("h", "a"), X(0xFFFF)), X(0xFF)))),
             assign("h", "sl", E("&", E("&", E(">>", F("h", "f"), X(12)), X(0xFFFFFFFF)), X(0xFF)))]
    r = run(fields, prims, {"a": 0x12, "b": 0x34, "f": 0x12345678})
    assert r["cat"] == 0x3412 and r["sl"] == 0x45


def test_bitwise_not_xor_or_and_with_mask():
    fields = [["a", 8, False], ["b", 8, False], ["n", 8, False], ["x", 8, False], ["o", 8, False]]
    prims = [assign("h", "n", E("&", E("~", None, F("h", "a")), X(0xFF))),
             assign("h", "x", E("^", F("h", "a"), F("h", "b"))),
             assign("h", "o", E("|", F("h", "a"), F("h", "b")))]
    r = run(fields, prims, {"a": 0x0F, "b": 0x3C})
    assert (r["n"], r["x"], r["o"]) == (0xF0, 0x33, 0x3F)


def test_division_and_modulo_by_zero_yield_zero():
    fields = [["a", 8, False], ["b", 8, False], ["q", 8, False], ["m", 8, False]]
    prims = [assign("h", "q", E("/", F("h", "a"), F("h", "b"))), assign("h", "m", E("%", F("h", "a"), F("h", "b")))]
    assert run(fields, prims, {"a": 17, "b": 5})["q"] == 3
    r = run(fields, prims, {"a": 17, "b": 0})
    assert (r["q"], r["m"]) == (0, 0)


def test_boolean_ops_d2b_b2d_not_and_or():
    fields = [["a", 8, False], ["b", 8, False], ["r1", 8, False], ["r2", 8, False], ["r3", 8, False]]
    prims = [assign("h", "r1", E("b2d", None, E("and", E("d2b", None, F("h", "a")), E("not", None, E("d2b", None, F("h", "b")))))),
             assign("h", "r2", E("b2d", None, E("or", E("==", F("h", "a"), X(0)), E("!=", F("h", "b"), X(0))))),
             assign("h", "r3", E("b2d", None, E(">=", F("h", "a"), F("h", "b"))))]
    r = run(fields, prims, {"a": 2, "b": 0})
    assert (r["r1"], r["r2"], r["r3"]) == (1, 0, 1)


def test_valid_op_and_valid_field():
    fields = [["r1", 8, False], ["r2", 8, False]]
    prims = [assign("h", "r1", E("b2d", None, E("valid", None, {"type": "header", "value": "h"}))),
             assign("h", "r2", E("b2d", None, E("d2b", None, F("eth", "$valid$"))))]
    r = run(fields, prims, {})
    assert (r["r1"], r["r2"]) == (1, 1)


def test_action_parameters_as_runtime_data_and_local():
    fields = [["a", 8, False], ["r", 8, False]]
    prog = program(fields)
    prog["actions"].append({"name": "setr", "id": 2, "runtime_data": [{"name": "k", "bitwidth": 8}],
                            "primitives": [assign("h", "r", E("&", E("+", F("h", "a"), {"type": "local", "value": 0}), X(0xFF)))]})
    t = prog["pipelines"][0]["tables"][0]
    t["next_tables"] = {"set_port": "t2"}
    t["base_default_next"] = "t2"
    prog["pipelines"][0]["tables"].append({
        "name": "t2", "id": 5, "key": [{"match_type": "exact", "name": "hdr.h.a", "target": ["h", "a"], "mask": None}],
        "match_type": "exact", "type": "simple", "max_size": 16, "with_counters": False, "support_timeout": False,
        "direct_meters": None, "action_ids": [2], "actions": ["setr"], "base_default_next": None,
        "next_tables": {"setr": None}, "default_entry": {"action_id": 2, "action_const": False,
                                                         "action_data": ["0x1"], "action_entry_const": False}})
    sw = SimpleSwitch(prog)
    sw.cli("table_add t2 setr 5 => 250")
    out = sw.process(0, frame(pack(fields, {"a": 5})))
    assert unpack(fields, out[0][1][14:])["r"] == 255
    out = sw.process(0, frame(pack(fields, {"a": 6})))
    assert unpack(fields, out[0][1][14:])["r"] == 7


def test_jump_if_zero_lowering_of_if_inside_action():
    fields = [["a", 8, False], ["r", 8, False]]
    # if (a == 1) r = 10; else r = 20;
    prims = [{"op": "_jump_if_zero", "parameters": [E("==", F("h", "a"), X(1)), X(4)]},
             assign("h", "r", X(10)),
             {"op": "_jump", "parameters": [X(5)]},
             {"op": "no_op", "parameters": []},
             assign("h", "r", X(20))]
    # the switch's first primitive (egress_spec) shifts indices by one: build the action by hand
    prog = program(fields)
    prog["actions"][0]["primitives"] = prims + [assign("standard_metadata", "egress_spec", X(1))]
    sw = SimpleSwitch(prog)
    assert unpack(fields, sw.process(0, frame(pack(fields, {"a": 1})))[0][1][14:])["r"] == 10
    assert unpack(fields, sw.process(0, frame(pack(fields, {"a": 2})))[0][1][14:])["r"] == 20


def test_wide_128_bit_values_round_trip():
    fields = [["a", 128, False], ["r", 128, False]]
    big = (1 << 128) - 2
    r = run(fields, [assign("h", "r", E("&", E("+", F("h", "a"), X(3)), X((1 << 128) - 1)))], {"a": big})
    assert r["r"] == 1


def test_b2d_and_ternary_conditions_compare_with_zero_as_truth_tests():
    fields = [["a", 8, False], ["r1", 8, False], ["r2", 8, False], ["r3", 8, False]]
    prims = [assign("h", "r1", E("b2d", None, E("!=", F("h", "a"), X(0)))),
             assign("h", "r2", E("b2d", None, E("==", F("h", "a"), X(0)))),
             assign("h", "r3", E("?", X(7), X(9), cond=E("or", E("==", F("h", "a"), X(0)),
                                                          E("not", None, E("d2b", None, F("h", "a"))))))]
    assert [run(fields, prims, {"a": a})[k] for a in (0, 5) for k in ("r1", "r2", "r3")] == [0, 1, 7, 1, 0, 9]


@pytest.mark.parametrize("a, b, want", [(200, 100, 255), (10, 20, 30), (0, 0, 0), (128, 127, 255)])
def test_nested_unsigned_saturating_casts_keep_their_own_values(a, b, want):
    # usat(usat(a + b) + usat(a - b)): each cast holds its operand in a temporary of its own
    fields = [["a", 8, False], ["b", 8, False], ["r", 8, False]]
    inner = E("+", E("usat_cast", E("+", F("h", "a"), F("h", "b")), X(8)),
              E("usat_cast", E("-", F("h", "a"), F("h", "b")), X(8)))
    r = run(fields, [assign("h", "r", E("usat_cast", inner, X(8)))], {"a": a, "b": b})
    assert r["r"] == want


def test_header_operand_wrapped_in_an_expression_node_is_unwrapped():
    # BMv2's build_expression accepts a header node inside an expression wrapper
    wrapped = {"type": "expression", "value": {"type": "header", "value": "h"}}
    sw = SimpleSwitch(program([["a", 8, False], ["b", 8, False]],
                              [{"op": "add_header", "parameters": [wrapped]}]))
    (_, data), = sw.process(0, frame(b"xy", ether_type=0x0800))
    assert data == frame(b"\x00\x00xy", ether_type=0x0800)
