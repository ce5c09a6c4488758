"""Expressions and statements as p4c prints them in its messages (p4c's `dbprint`: operands
parenthesized by precedence, constants in decimal without their width, casts as `(bit<W>)e`).

Messages that repeat one of p4c's quote the construct the way p4c does, so a user who knows
p4c's output recognises it: `meta.a << 320 - ((bit<16>)meta.n << 5): shift amount limited to 8
bits on this target`.
"""
from __future__ import annotations

from . import ast as A
from . import types as T

# p4c's ir/dbprint.h precedences (higher binds tighter)
POSTFIX, PREFIX, COND, LOW = 15, 14, 3, 1
BINARY = {"*": 13, "/": 13, "%": 13, "+": 12, "-": 12, "|+|": 12, "|-|": 12, "++": 12,
          "<<": 11, ">>": 11, "&": 10, "^": 9, "|": 8, "<": 7, "<=": 7, ">": 7, ">=": 7,
          "==": 6, "!=": 6, "&&": 5, "||": 4}


def type_text(t) -> str:
    if isinstance(t, T.Bits):
        return f"{'int' if t.signed else 'bit'}<{t.width}>"
    if t == T.BOOL:
        return "bool"
    return str(getattr(t, "name", t))


def p4_text(e, prec: int = LOW) -> str:
    """`e` as p4c prints it where the context binds at `prec` (constant expressions folded,
    as p4c's front end folds them)."""
    folded = getattr(e, "folded", None)
    if isinstance(folded, int) and not isinstance(folded, bool):
        return str(folded)
    if isinstance(e, A.IntLit):
        return str(e.value)
    if isinstance(e, A.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, A.StringLit):
        return '"' + e.value + '"'
    if isinstance(e, A.PathExpr):
        return ("." if e.is_global else "") + e.name
    if isinstance(e, A.MemberExpr):
        return f"{p4_text(e.expr, POSTFIX)}.{e.member}"
    if isinstance(e, A.IndexExpr):
        return f"{p4_text(e.expr, POSTFIX)}[{p4_text(e.index)}]"
    if isinstance(e, A.SliceExpr):
        hi = e.hi_value if e.hi_value is not None else p4_text(e.hi)
        lo = e.lo_value if e.lo_value is not None else p4_text(e.lo)
        return f"{p4_text(e.expr, POSTFIX)}[{hi}:{lo}]"
    if isinstance(e, A.UnaryExpr):
        return _paren(f"{e.op}{p4_text(e.operand, PREFIX)}", prec > PREFIX)
    if isinstance(e, A.CastExpr):
        return _paren(f"({type_text(e.type)}){p4_text(e.expr, PREFIX)}", prec > PREFIX)
    if isinstance(e, A.BinaryExpr):
        p = BINARY.get(e.op, LOW)
        return _paren(f"{p4_text(e.left, p)} {e.op} {p4_text(e.right, p + 1)}", prec > p)
    if isinstance(e, A.TernaryExpr):
        return _paren(f"{p4_text(e.cond, COND + 1)} ? {p4_text(e.then)} : "
                      f"{p4_text(e.other, COND)}", prec > COND)
    if isinstance(e, A.MethodCallExpr):
        args = ", ".join(p4_text(a) for a in e.args)
        return _paren(f"{p4_text(e.callee, POSTFIX)}({args})", prec > POSTFIX)
    if isinstance(e, A.Argument):
        return (f"{e.name} = " if e.name else "") + p4_text(e.expr)
    if isinstance(e, A.ListExpr):
        return "{" + ", ".join(p4_text(x) for x in e.items) + "}"
    return type(e).__name__


def stmt_text(s) -> str:
    """A statement as p4c prints it (its toString: no trailing ';')."""
    if isinstance(s, A.AssignStmt):
        return f"{p4_text(s.lhs)} = {p4_text(s.rhs)}"
    if isinstance(s, A.CallStmt):
        return p4_text(s.call)
    if isinstance(s, A.ExitStmt):
        return "exit"
    if isinstance(s, A.ReturnStmt):
        return "return"
    return type(s).__name__


def _paren(text: str, yes: bool) -> str:
    return f"({text})" if yes else text
