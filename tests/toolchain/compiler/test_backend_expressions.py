"""Back-end expression lowering checked against P4_16 arithmetic (spec §8.6-8.9: bit<W> is
modulo 2^W, int<W> two's complement, |+| / |-| saturate) at widths 1..128."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from toolchain.compiler.backend import expressions as ex
from toolchain.compiler.midend import ir
from .bmv2_eval import evaluate

WIDTHS = [1, 8, 16, 32, 48, 64, 128]


def signed_value(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def run(expr: ir.Expr, a: int, b: int) -> int:
    return evaluate(ex.data(expr), {("h", "a"): a, ("h", "b"): b})


def operands(t: ir.Bits):
    return ir.FieldRef("h", "a", t), ir.FieldRef("h", "b", t)


def p4_binary(op: str, a: int, b: int, t: ir.Bits) -> int:
    """Reference semantics of P4_16 binary operators on two values of type t."""
    w = t.width
    raw = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}.get(op)
    if op in ("|+|", "|-|"):
        r = a + b if op == "|+|" else a - b
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t.signed else (0, (1 << w) - 1)
        return min(max(r, lo), hi)
    return signed_value(raw, w) if t.signed else raw & ((1 << w) - 1)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(WIDTHS), st.sampled_from(["+", "-", "*", "&", "|", "^", "|+|", "|-|"]),
       st.integers(min_value=0), st.integers(min_value=0))
def test_unsigned_binary_wraps_at_width(width, op, a, b):
    t = ir.Bits(width)
    a &= t.mask
    b &= t.mask
    assert run(ir.Binary(op, *operands(t), t), a, b) == p4_binary(op, a, b, t)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([w for w in WIDTHS if w >= 2]),
       st.sampled_from(["+", "-", "*", "|+|", "|-|"]), st.integers(), st.integers())
def test_signed_binary_wraps_in_twos_complement(width, op, a, b):
    t = ir.Bits(width, signed=True)
    a, b = signed_value(a, width), signed_value(b, width)
    assert run(ir.Binary(op, *operands(t), t), a, b) == p4_binary(op, a, b, t)


@pytest.mark.parametrize("width", WIDTHS)
def test_shift_left_drops_high_bits(width):
    t = ir.Bits(width)
    e = ir.Binary("<<", ir.FieldRef("h", "a", t), ir.Const(1, ir.Bits(8)), t)
    assert run(e, t.mask, 0) == (t.mask << 1) & t.mask


def test_signed_shift_right_is_arithmetic():
    t = ir.Bits(8, signed=True)
    e = ir.Binary(">>", ir.FieldRef("h", "a", t), ir.Const(2, ir.Bits(8)), t)
    assert run(e, -100, 0) == -25


def test_negation_wraps_unsigned():
    t = ir.Bits(16)
    assert run(ir.Unary("neg", ir.FieldRef("h", "a", t), t), 1, 0) == 0xFFFF


def test_complement_stays_in_width():
    t = ir.Bits(48)
    assert run(ir.Unary("~", ir.FieldRef("h", "a", t), t), 0, 0) == (1 << 48) - 1


def test_slice_of_signed_value_takes_bit_pattern():
    t = ir.Bits(8, signed=True)
    e = ir.Slice(ir.FieldRef("h", "a", t), 7, 4, ir.Bits(4))
    assert run(e, -1, 0) == 0xF


def test_concat_of_signed_left_keeps_pattern():
    lt, rt = ir.Bits(8, signed=True), ir.Bits(8)
    e = ir.Binary("++", ir.FieldRef("h", "a", lt), ir.FieldRef("h", "b", rt), ir.Bits(16, True))
    assert run(e, -2, 0x01) == signed_value(0xFE01, 16)


@pytest.mark.parametrize("src,dst,value,expected", [
    (ir.Bits(16), ir.Bits(8), 0x1234, 0x34),
    (ir.Bits(8, True), ir.Bits(8), -1, 0xFF),
    (ir.Bits(8), ir.Bits(8, True), 0xFF, -1),
    (ir.Bits(8, True), ir.Bits(16, True), -3, -3),
    (ir.Bits(8), ir.Bits(64), 0xAB, 0xAB),
    (ir.Bits(128), ir.Bits(1), (1 << 127) | 1, 1),
])
def test_cast_truncates_or_extends(src, dst, value, expected):
    assert run(ir.Cast(ir.FieldRef("h", "a", src), dst), value, 0) == expected


def test_bool_field_is_converted_with_d2b():
    node = ex.condition(ir.FieldRef("h", "a", ir.BOOL))
    assert node["value"]["op"] == "d2b"


def test_hexstr_pads_to_bytes_and_signs():
    assert ex.hexstr(1, 9) == "0x0001"
    assert ex.hexstr(-1, 8) == "-0x01"
