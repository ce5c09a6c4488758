"""Expression lowering: typed AST expressions -> mid-end IR expressions and places.

Names resolve through an environment (declaration node -> binding): block parameters bind to
struct places (headers, metadata, standard metadata), locals to `scalars` fields, action
parameters to runtime data (`ParamRef`) or, when an action is inlined at a direct call, to the
caller's argument expressions. Compile-time constants (the checker's `.folded`) become `Const`.
"""
from __future__ import annotations

from typing import Optional

from ..frontend import ast, types as T
from . import ir
from .context import Context, ir_type
from .storage import (HeaderPlace, HeaderStructPlace, StackPlace, StructPlace, UnionPlace,
                      UnionStackPlace, header_field_name, header_leaves)
from .unsupported import Unsupported

BINARY_OPS = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "|+|", "|-|", "++",
              "==", "!=", "<", "<=", ">", ">=", "&&", "||"}


class Env:
    """Bindings of declarations (keyed by identity) to places or IR expressions."""

    def __init__(self, parent: Optional["Env"] = None):
        self.parent = parent
        self._b: dict = {}

    def bind(self, decl, value) -> None:
        self._b[id(decl)] = (decl, value)

    def lookup(self, decl):
        env = self
        while env is not None:
            hit = env._b.get(id(decl))
            if hit is not None:
                return hit[1]
            env = env.parent
        return None

    def child(self) -> "Env":
        return Env(self)


def const_of(e: ast.Expr, t: Optional[ir.Type] = None) -> ir.Const:
    """The Const for a folded expression; literals of the spec's `int` type get the width of
    their value (they only reach the back end as shift amounts and similar)."""
    value = e.folded
    if t is None:
        if e.type is T.INT or isinstance(e.type, T.IntLiteralType):
            t = ir.Bits(max(1, int(value).bit_length()))
        else:
            t = ir_type(e.type, e.pos)
    if isinstance(t, ir.BoolType):
        return ir.Const(1 if value else 0, t)
    return ir.Const(int(value), t)


def describe(e) -> str:
    """Source-like text of an expression, for table key names (p4c: "hdr.ipv4.dstAddr")."""
    if isinstance(e, ast.PathExpr):
        return e.name
    if isinstance(e, ast.MemberExpr):
        return f"{describe(e.expr)}.{e.member}"
    if isinstance(e, ast.IndexExpr):
        return f"{describe(e.expr)}[{describe(e.index)}]"
    if isinstance(e, ast.IntLit):
        return e.text or str(e.value)
    if isinstance(e, ast.SliceExpr):
        if e.plus:      # p4c's front end folds [L +: W] into [L+W-1:L]; key names show that
            if e.hi_value is not None:
                return f"{describe(e.expr)}[{e.hi_value}:{e.lo_value}]"
            return f"{describe(e.expr)}[{describe(e.lo)}+:{describe(e.hi)}]"
        return f"{describe(e.expr)}[{describe(e.hi)}:{describe(e.lo)}]"
    if isinstance(e, ast.MethodCallExpr) and e.builtin == "isValid":
        return f"{describe(e.receiver)}.$valid$"
    if isinstance(e, ast.BinaryExpr):
        return f"{describe(e.left)} {e.op} {describe(e.right)}"
    if isinstance(e, ast.CastExpr):
        return f"({getattr(e.type, 'name', '?')}){describe(e.expr)}"
    return type(e).__name__


class ExprLowering:
    def __init__(self, ctx: Context, env: Env, in_parser: bool = False):
        self.ctx = ctx
        self.env = env
        self.in_parser = in_parser

    # ---------------------------------------------------------------- places
    def place(self, e: ast.Expr):
        """What an l-value path denotes: a place or an IR expression (a scalar field)."""
        if isinstance(e, ast.PathExpr):
            bound = self.env.lookup(e.decl)
            if bound is None:
                raise Unsupported(e.pos, f"{e.name} cannot be used here")
            return bound
        if isinstance(e, ast.MemberExpr):
            return self._member_place(e)
        if isinstance(e, ast.IndexExpr):
            base = self.place(e.expr)
            if isinstance(base, UnionStackPlace):
                index = e.folded_index if e.folded_index is not None else e.index.folded
                if not isinstance(index, int) or not 0 <= index < base.type.size:
                    raise Unsupported(e.pos, "a header union stack can only be indexed by a "
                                             "constant inside its bounds")
                return base.element(index)
            if isinstance(base, StructPlace) and isinstance(e.expr.type, T.Tuple):
                # a tuple local is a struct of fields f0, f1, ... (statements.declare)
                return self.ctx.storage.member(base, f"f{e.folded_index}", e.pos)
            if not isinstance(base, StackPlace):
                raise Unsupported(e.pos, "indexing is only supported on header stacks")
            index = e.folded_index if e.folded_index is not None else e.index.folded
            if not isinstance(index, int):
                return DynamicElement(base, self.lower(e.index))
            if not 0 <= index < len(base.elements):
                raise Unsupported(e.pos, f"index {index} is outside the stack {base.name}"
                                         f"[{len(base.elements)}]")
            return HeaderPlace(base.elements[index], base.type.element)
        return self.lower(e)

    def _member_place(self, e: ast.MemberExpr):
        if e.kind in ("enum", "error"):
            return self.lower(e)
        inner = e.expr
        if (self.in_parser and isinstance(inner, ast.MethodCallExpr)
                and inner.builtin == "lookahead" and isinstance(inner.type, T.Header)):
            return self._lookahead_field(inner.type, e)
        base = self.place(e.expr)
        if isinstance(base, StructPlace):
            if e.member not in base.type.fields:
                raise Unsupported(e.pos, f"no field {e.member} in {base.type.name}")
            return self.ctx.storage.member(base, e.member, e.pos)
        if isinstance(base, HeaderPlace):
            ftype = base.type.fields.get(e.member)
            if ftype is None:
                raise Unsupported(e.pos, f"no field {e.member} in {base.type.name}")
            if isinstance(ftype, T.Struct):
                return HeaderStructPlace(base.instance, base.type, (e.member,), ftype)
            return ir.FieldRef(base.instance, header_field_name(base.type, (e.member,)),
                               ir_type(ftype, e.pos))
        if isinstance(base, HeaderStructPlace):
            if e.member not in base.type.fields:
                raise Unsupported(e.pos, f"no field {e.member} in {base.type.name}")
            return base.member(e.member, e.pos)
        if isinstance(base, UnionPlace):
            if e.member not in base.type.fields:
                raise Unsupported(e.pos, f"no member {e.member} in {base.type.name}")
            return base.member(e.member)
        if isinstance(base, StackPlace):
            return self._stack_member(base, e)
        if isinstance(base, UnionStackPlace):
            return self._union_stack_member(base, e)
        if isinstance(base, (UnionStackNext, UnionStackLast)):
            if e.member not in base.stack.type.element.fields:
                raise Unsupported(e.pos, f"no member {e.member} in "
                                         f"{base.stack.type.element.name}")
            return (UnionStackNextMember if isinstance(base, UnionStackNext)
                    else UnionStackLastMember)(base.stack, e.member)
        if isinstance(base, UnionStackLastMember):
            return self._union_stack_last_field(base, e)
        if isinstance(base, UnionStackNextMember):
            raise Unsupported(e.pos, f"{describe(e)}: a member of a header union stack's "
                                     ".next can only be extracted into")
        if isinstance(base, StackLast):
            ftype = base.stack.type.element.fields.get(e.member)
            name = header_field_name(base.stack.type.element, (e.member,))
            return ir.StackLastField(base.stack.name, name, ir_type(ftype, e.pos))
        if isinstance(base, DynamicElement):
            leaves = header_leaves(base.stack.type.element)
            for offset, (path, name, ftype) in enumerate(leaves):
                if path == (e.member,):
                    return ir.StackElementField(base.stack.name, base.index, name, offset,
                                                ir_type(ftype, e.pos))
            raise Unsupported(e.pos, f"member {e.member} of {base.stack.type.element.name} "
                                     f"here is not supported")
        if isinstance(base, StackNext):
            # p4c's BMv2 back end refuses it too: "<stack>.next uninitialized: next field
            # read" (ExpressionConverter, for any field of a stack's next element)
            raise Unsupported(e.pos, f"a field of a header stack's next element "
                                     f"({describe(e)}) is not supported: .next names the "
                                     f"element not extracted yet, and BMv2 has no reference to "
                                     f"it (p4c-bm2-ss also refuses it, 'next field read'); "
                                     f"use .last after the extract")
        raise Unsupported(e.pos, f"member {e.member} of {describe(e.expr)} is not supported")

    def header_member(self, place: HeaderPlace, name: str, pos):
        """Field `name` of a header: a FieldRef, or a HeaderStructPlace for a struct field."""
        ftype = place.type.fields[name]
        if isinstance(ftype, T.Struct):
            return HeaderStructPlace(place.instance, place.type, (name,), ftype)
        return ir.FieldRef(place.instance, header_field_name(place.type, (name,)),
                           ir_type(ftype, pos))

    def _lookahead_field(self, header: T.Header, e: ast.MemberExpr) -> ir.Lookahead:
        """lookahead<H>().f: the bits of f, at f's offset inside H, without consuming them."""
        offset = 0
        for name, ftype in header.fields.items():
            if name == e.member:
                return ir.Lookahead(ir_type(ftype, e.pos), offset)
            offset += ftype.width_bits
        raise Unsupported(e.pos, f"no field {e.member} in {header.name}")

    def _stack_member(self, base: StackPlace, e: ast.MemberExpr):
        if e.member == "size":
            return ir.Const(len(base.elements), ir.Bits(32))
        if e.member == "last":
            # parser: BMv2 stack_field; elsewhere the element at last_stack_index
            return StackLast(base) if self.in_parser else DynamicElement(base, None)
        if e.member == "next" and self.in_parser:
            return StackNext(base)
        if e.member == "lastIndex":
            return ir.StackLastIndex(base.name, ir.Bits(32))
        raise Unsupported(e.pos, f"header stack member .{e.member} is not supported here")

    def _union_stack_member(self, base: UnionStackPlace, e: ast.MemberExpr):
        """`.next`/`.last` (parser only, as p4c's type checker), `.lastIndex` (BMv2
        last_stack_index of the header_union_stack), `.size`."""
        if e.member == "next" and self.in_parser:
            return UnionStackNext(base)
        if e.member == "last" and self.in_parser:
            return UnionStackLast(base)
        if e.member == "lastIndex":
            return ir.StackLastIndex(base.path, ir.Bits(32), union=True)
        if e.member == "size":
            return ir.Const(base.type.size, ir.Bits(32))
        raise Unsupported(e.pos, f"header union stack member .{e.member} is not supported here")

    def _union_stack_last_field(self, base: "UnionStackLastMember", e: ast.MemberExpr):
        """u.last.m.f: BMv2's union_stack_field [u, m, f], wrapped so that only a select key
        (which unwraps it) can use it: it is not an IR expression anywhere else."""
        htype = base.stack.type.element.fields[base.member]
        ftype = htype.fields.get(e.member)
        if ftype is None:
            raise Unsupported(e.pos, f"no field {e.member} in {htype.name}")
        if isinstance(ftype, (T.Struct, T.Varbit)):
            raise Unsupported(e.pos, f"{describe(e)}: a {ftype} field of a header union "
                                     "stack's .last member is not supported")
        return UnionStackLastFieldRef(ir.UnionStackLastField(
            base.stack.path, base.member, header_field_name(htype, (e.member,)),
            ir_type(ftype, e.pos)))

    def lvalue(self, e: ast.Expr) -> ir.FieldRef:
        p = self.place(e)
        if not isinstance(p, (ir.FieldRef, ir.StackElementField)):
            raise Unsupported(e.pos, f"cannot assign to {describe(e)}")
        return p

    # ---------------------------------------------------------------- r-values
    def lower(self, e: ast.Expr) -> ir.Expr:
        if getattr(e, "folded", None) is not None and not isinstance(e.type, (T.Header, T.Struct)):
            return const_of(e)
        method = getattr(self, "_" + type(e).__name__, None)
        if method is None:
            raise Unsupported(e.pos, f"expression {type(e).__name__} is not supported here")
        return method(e)

    def _IntLit(self, e: ast.IntLit) -> ir.Expr:
        t = ir.Bits(e.width, e.signed) if e.width else ir.Bits(max(1, e.value.bit_length()))
        if isinstance(e.type, T.Bits):
            t = ir_type(e.type)
        return ir.Const(e.value, t)

    def _BoolLit(self, e: ast.BoolLit) -> ir.Expr:
        return ir.Const(1 if e.value else 0, ir.BOOL)

    def _PathExpr(self, e: ast.PathExpr) -> ir.Expr:
        bound = self.env.lookup(e.decl)
        if isinstance(bound, ir.Expr):
            return bound
        if isinstance(e.decl, ast.ConstDecl) and e.decl.folded is not None:
            return const_of(e, ir_type(e.type, e.pos))
        raise Unsupported(e.pos, f"{e.name} cannot be used as a value here")

    def _MemberExpr(self, e: ast.MemberExpr) -> ir.Expr:
        if e.kind == "error":
            return ir.Const(e.decl.code, ir.Bits(32))
        if e.kind == "enum":
            return ir.Const(e.decl.value, ir_type(e.type, e.pos))
        p = self._member_place(e)
        if isinstance(p, UnionStackLastFieldRef):
            # BMv2 reads the last union's field only as a transition key (JSON_format.md
            # "union_stack_field"); it has no expression form
            raise Unsupported(e.pos, f"{describe(e)}: a field of a header union stack's "
                                     ".last member can only be a select key")
        if isinstance(p, ir.Expr):
            return p
        raise Unsupported(e.pos, f"{describe(e)} is not a scalar value")

    def _IndexExpr(self, e: ast.IndexExpr) -> ir.Expr:
        if isinstance(e.expr.type, T.Tuple):
            p = self.place(e)                 # a scalar element of a tuple local
            if isinstance(p, ir.Expr):
                return p
        raise Unsupported(e.pos, f"{describe(e)} is a header, not a scalar value")

    def _SliceExpr(self, e: ast.SliceExpr) -> ir.Expr:
        hi, lo = e.hi_value, e.lo_value
        return ir.Slice(self.lower(e.expr), hi, lo, ir.Bits(hi - lo + 1))

    def _UnaryExpr(self, e: ast.UnaryExpr) -> ir.Expr:
        x = self.lower(e.operand)
        if e.op == "+":
            return x
        op = {"!": "!", "~": "~", "-": "neg"}[e.op]
        return ir.Unary(op, x, ir_type(e.type, e.pos))

    def _BinaryExpr(self, e: ast.BinaryExpr) -> ir.Expr:
        if e.op not in BINARY_OPS:
            raise Unsupported(e.pos, f"operator {e.op} is not supported")
        # varbit values compare as numbers (BMv2 loads a "*" field as data; spec 7.1.6.5)
        if e.op in ("==", "!=") and not (_is_scalar(e.left.type) or
                                         isinstance(e.left.type, T.Varbit)):
            raise Unsupported(e.pos, f"comparing values of type {e.left.type} is not supported")
        left, right = self.lower(e.left), self.lower(e.right)
        return ir.Binary(e.op, left, right, ir_type(e.type, e.pos))

    def _TernaryExpr(self, e: ast.TernaryExpr) -> ir.Expr:
        return ir.Mux(self.lower(e.cond), self.lower(e.then), self.lower(e.other),
                      ir_type(e.type, e.pos))

    def _CastExpr(self, e: ast.CastExpr) -> ir.Expr:
        return ir.Cast(self.lower(e.expr), ir_type(e.type, e.pos))

    def _MethodCallExpr(self, e: ast.MethodCallExpr) -> ir.Expr:
        if e.builtin == "isValid":
            p = self.place(e.receiver)
            if isinstance(p, UnionPlace):
                # spec 8.20: a union is valid when one of its members is
                cond = None
                for m in p.members():
                    v = ir.ValidRef(m.instance)
                    cond = v if cond is None else ir.Binary("||", cond, v, ir.BOOL)
                return cond
            element = stack_element_arg(p)
            if element is not None:
                return ir.ElementValid(element)
            if not isinstance(p, HeaderPlace):
                raise Unsupported(e.pos, "isValid() is only supported on headers")
            return ir.ValidRef(p.instance)
        if e.builtin == "lookahead" and self.in_parser:
            t = e.type
            if not isinstance(t, T.Bits):
                raise Unsupported(e.pos, "lookahead is only supported for bit<W> types")
            return ir.Lookahead(ir_type(t))
        if e.kind == "table_apply":
            raise Unsupported(e.pos, "a table's apply() result may only be used as "
                                     "`if (t.apply().hit)` / `.miss` or in a switch")
        raise Unsupported(e.pos, f"call of {describe(e.callee)} is not supported in an expression")


class DynamicElement:
    """stack[i] with i known at run time (index None: stack.last outside a parser)."""

    def __init__(self, stack: StackPlace, index):
        self.stack = stack
        self.index = index


class StackLast:
    """`stack.last` inside a parser (its fields are BMv2 stack_field references)."""

    def __init__(self, stack: StackPlace):
        self.stack = stack


def stack_element_arg(place):
    """The header operand of a whole stack element known only at run time (stack[i] with i
    a run-time value, stack.last), or None for any other place."""
    if isinstance(place, DynamicElement):
        return ir.StackElementArg(place.stack.name, place.index)
    if isinstance(place, StackLast):
        return ir.StackElementArg(place.stack.name, None)
    return None


class StackNext:
    """`stack.next` inside a parser (the target of an extract)."""

    def __init__(self, stack: StackPlace):
        self.stack = stack


class UnionStackNext:
    """`u.next` of a header union stack inside a parser (its members are extract targets)."""

    def __init__(self, stack: UnionStackPlace):
        self.stack = stack


class UnionStackLast:
    """`u.last` of a header union stack inside a parser."""

    def __init__(self, stack: UnionStackPlace):
        self.stack = stack


class UnionStackNextMember:
    """`u.next.m`: the target of an extract into the next union (BMv2 "union_stack")."""

    def __init__(self, stack: UnionStackPlace, member: str):
        self.stack = stack
        self.member = member


class UnionStackLastMember:
    """`u.last.m`: member m of the last union extracted (its fields: select keys)."""

    def __init__(self, stack: UnionStackPlace, member: str):
        self.stack = stack
        self.member = member


class UnionStackLastFieldRef:
    """`u.last.m.f`: holds the ir.UnionStackLastField a parser select key uses."""

    def __init__(self, field: ir.UnionStackLastField):
        self.field = field


def _is_scalar(t) -> bool:
    return isinstance(t, (T.Bits, T.BoolType, T.Enum)) or t is T.ERROR or t is T.INT
