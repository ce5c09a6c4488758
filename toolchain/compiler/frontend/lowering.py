"""Small rewrites of the checked AST into forms the mid end already handles.

`pkt.lookahead<H>().f` (a field of a header read ahead, as the P4 tutorials' calculator
does) becomes `pkt.lookahead<bit<N>>()[w-1:0]`, with N = the field's bit offset in H plus its
width w: lookahead reads the packet's first N bits most-significant first, so the field is
the low w bits. A signed, bool or enum field gets a cast back to its type. The result is
typed exactly as the checker would type it.
"""
from __future__ import annotations

from . import ast as A
from . import types as T


def field_offset(header: T.Header, name: str) -> tuple:
    """(bit offset from the start of the header, width) of field `name`."""
    offset = 0
    for fname, ftype in header.fields.items():
        width = ftype.width_bits
        if fname == name:
            return offset, width
        offset += width
    raise KeyError(name)


def _int(pos, value: int) -> A.IntLit:
    lit = A.IntLit(pos, value, None, False, str(value))
    lit.type, lit.folded = T.INT, value
    return lit


def lowered_field(e: A.MemberExpr) -> A.Expr:
    call: A.MethodCallExpr = e.expr
    header: T.Header = call.type
    offset, width = field_offset(header, e.member)
    n = offset + width
    bits_n = T.Bits(n)
    ref = A.BitsTypeRef(call.pos, _int(call.pos, n), False)
    ref.resolved = bits_n
    call.type_arg_refs = [ref]
    call.type_args = [bits_n]
    call.bindings = {tv: bits_n for tv in (call.bindings or {})}
    call.type = bits_n
    sl = A.SliceExpr(e.pos, call, _int(e.pos, width - 1), _int(e.pos, 0))
    sl.hi_value, sl.lo_value = width - 1, 0
    sl.type = T.Bits(width)
    if e.type == sl.type:
        return sl
    ref = A.NamedTypeRef(e.pos, e.type.name)
    ref.resolved = e.type
    cast = A.CastExpr(e.pos, ref, sl)
    cast.type = e.type
    return cast


def replace_child(parent, old, new) -> bool:
    for name in A._child_fields(type(parent)):
        v = getattr(parent, name)
        if v is old:
            setattr(parent, name, new)
            return True
        if isinstance(v, list):
            for i, x in enumerate(v):
                if x is old:
                    v[i] = new
                    return True
                if isinstance(x, tuple) and old in x:
                    v[i] = tuple(new if y is old else y for y in x)
                    return True
    return False


def lower_lookahead_fields(program: A.Program, nodes: list) -> None:
    targets = {id(n): n for n in nodes}
    stack = [program]
    while stack:
        parent = stack.pop()
        for child in list(A.children(parent)):
            if id(child) in targets:
                replace_child(parent, child, lowered_field(child))
            else:
                stack.append(child)
