"""Compile-time evaluation with P4_16 semantics (spec 8.5-8.7: wraparound modulo 2^W for
bit<W>, two's complement for int<W>, saturating |+| |-|, arbitrary precision for `int`).

Values are Python ints: bit<W> in [0, 2^W), int<W> in [-2^(W-1), 2^(W-1)), `int` up to
MAX_INT_BITS bits (arbitrary precision in the spec; a bound keeps a chain of products from
exhausting memory, far above any value a bit<W> can take); bool values are Python bools.
"""
from __future__ import annotations

from .types import BOOL, INT, MAX_WIDTH, Bits, P4Type


MAX_INT_SHIFT = 1 << 16      # keeps `1 << 99999999999` from exhausting memory
MAX_INT_BITS = 4 * MAX_WIDTH # bits of a compile-time `int` (see the module doc)
DECIMAL_BITS = 4000          # values this wide or narrower are written in decimal in messages


class FoldError(ValueError):
    """A constant expression that has no value (division by zero, negative shift...)."""


def text(value) -> str:
    """A value as messages write it: decimal, or hex when the decimal would be thousands of
    digits long (Python refuses to make those: sys.get_int_max_str_digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and \
            value.bit_length() > DECIMAL_BITS:
        digits = f"{value:#x}"
        return f"{digits[:12]}...{digits[-4:]} ({value.bit_length()} bits)"
    return str(value)


def _bounded(value: int, t: P4Type) -> int:
    if t == INT and value.bit_length() > MAX_INT_BITS:
        raise FoldError(f"a compile-time integer of {value.bit_length()} bits is too large (at "
                        f"most {MAX_INT_BITS})")
    return value


def wrap(value: int, t: P4Type) -> int:
    """Reduce an integer into the range of type t (spec 8.9.2 casts, 8.5 wraparound)."""
    if isinstance(t, Bits):
        v = value & t.mask
        if t.signed and v >> (t.width - 1):
            v -= 1 << t.width
        return v
    return value


def fits(value: int, t: Bits) -> bool:
    """Whether an int literal converts to t without losing its value; negative literals
    convert to bit<W> as two's complement (`bit<8> x = -1` is 255), as p4c accepts."""
    if t.signed:
        return -(1 << (t.width - 1)) <= value < (1 << (t.width - 1))
    return -(1 << (t.width - 1)) <= value < (1 << t.width) if t.width > 0 else value == 0


def _saturate(value: int, t: Bits) -> int:
    if t.signed:
        lo, hi = -(1 << (t.width - 1)), (1 << (t.width - 1)) - 1
    else:
        lo, hi = 0, t.mask
    return max(lo, min(hi, value))


def unary(op: str, v, t: P4Type):
    if op == "!":
        return not v
    if op == "-":
        return wrap(-v, t)
    if op == "+":
        return v
    if op == "~":
        if isinstance(t, Bits):
            return wrap(~v, t)
        raise FoldError("'~' needs a fixed width")
    raise FoldError(f"unknown operator {op}")


def binary(op: str, a, b, t: P4Type, left_type: P4Type):
    """Evaluate `a op b`; t is the result type, left_type the (common) operand type."""
    if op in ("==", "!="):
        return (a == b) == (op == "==")
    if op in ("<", "<=", ">", ">="):
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    if op == "&&":
        return a and b
    if op == "||":
        return a or b
    if op == "+":
        return _bounded(wrap(a + b, t), t)
    if op == "-":
        return _bounded(wrap(a - b, t), t)
    if op == "*":
        if t == INT and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
            raise FoldError(f"a compile-time integer of about {a.bit_length() + b.bit_length()} "
                            f"bits is too large (at most {MAX_INT_BITS})")   # not computed
        return _bounded(wrap(a * b, t), t)
    if op in ("/", "%"):
        if b == 0:
            raise FoldError("division by zero")
        if a < 0 or b < 0:
            raise FoldError("division of negative values is not defined")
        return wrap(a // b if op == "/" else a % b, t)
    if op == "|+|":
        return _saturate(a + b, t)
    if op == "|-|":
        return _saturate(a - b, t)
    if op == "&":
        return wrap(a & b, t)
    if op == "|":
        return wrap(a | b, t)
    if op == "^":
        return wrap(a ^ b, t)
    if op == "<<":
        if b < 0:
            raise FoldError("negative shift amount")
        if not isinstance(t, Bits) and b > MAX_INT_SHIFT:
            raise FoldError(f"shift of a compile-time integer by {text(b)} bits is too large")
        if isinstance(t, Bits) and b >= t.width:
            return 0
        return _bounded(wrap(a << b, t), t)
    if op == ">>":
        if b < 0:
            raise FoldError("negative shift amount")
        return wrap(a >> b, t)        # Python >> is arithmetic: right for int<W>, bit<W> >= 0
    if op == "++":
        rt = t
        assert isinstance(rt, Bits)
        lw = left_type.width
        rw = rt.width - lw
        return wrap(((a & ((1 << lw) - 1)) << rw) | (b & ((1 << rw) - 1)), t)
    raise FoldError(f"unknown operator {op}")


def cast(v, src: P4Type, dst: P4Type):
    if dst == BOOL:
        return bool(v)
    if src == BOOL:
        return int(v)
    if dst == INT:
        return v
    return wrap(v, dst)


def slice_(v: int, hi: int, lo: int) -> int:
    return (v >> lo) & ((1 << (hi - lo + 1)) - 1)
