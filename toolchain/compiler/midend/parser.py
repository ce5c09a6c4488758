"""Parser lowering: parser states -> BMv2 parse states.

Statements become parser ops (extract, set, verify, advance, primitive); `select` keys must be
fields in BMv2, so other key expressions (lookahead, slices, ...) are first `set` into a
`scalars` temporary, as p4c does; ranges are expanded into value/mask pairs (ranges.py)
because BMv2 transitions only match value/mask.
"""
from __future__ import annotations

import dataclasses
from itertools import product

from ..frontend import ast, types as T
from . import externs, ir
from .context import Context, construct_name, folded_int, ir_type, source_info
from .controls import block_env, control_name, qualified_name
from .expressions import StackNext, UnionStackLastFieldRef, UnionStackNextMember, describe
from .ranges import range_to_masks
from .statements import StmtLowering
from .storage import HeaderPlace, StackPlace, StructPlace, header_leaves
from .unsupported import Unsupported

ACCEPT, REJECT = "accept", "reject"


class ParserLowering:
    def __init__(self, ctx: Context, decl: ast.ParserDecl):
        self.ctx = ctx
        self.decl = decl
        self.env = block_env(ctx, decl.params)
        self.stmts = StmtLowering(ctx, self.env, in_parser=True)
        self.exprs = self.stmts.exprs
        self.value_sets: dict = {}        # id(ValueSetDecl) -> its JSON name

    def run(self) -> None:
        init_ops = []
        for local in self.decl.locals:
            if isinstance(local, ast.VarDecl):
                # parser-level variables are initialised when parsing starts
                init_ops.extend(op for p in self.stmts.declare(local) for op in self._set_from(p))
            elif isinstance(local, ast.ValueSetDecl):
                self._value_set(local)
            elif isinstance(local, ast.Instantiation):
                raise Unsupported(local.pos, "instantiations inside a parser are not supported")
        states = [self._state(s) for s in self.decl.states if not s.builtin]
        for state in states:
            if state.name == "start":
                state.ops[:0] = init_ops
        self.ctx.out.parsers.append(ir.Parser("parser", "start", states))

    def _value_set(self, d: ast.ValueSetDecl) -> None:
        """A parser value set, named as p4c names it ("MyParser.pvs")."""
        element = d.p4type.element
        width = element.width_bits
        if not width:
            raise Unsupported(d.pos, f"value_set '{d.name}' of {element} (no fixed width)")
        size = folded_int(d.size, "a value_set size")
        name = qualified_name(d, control_name(self.decl))
        self.value_sets[id(d)] = name
        self.ctx.out.parse_vsets.append(ir.ParseValueSet(name, width, size))

    def _state(self, s: ast.ParserState) -> ir.ParseState:
        state = ir.ParseState(s.name, source=source_info(s, s.name))
        for stmt in s.stmts:
            state.ops.extend(self._op(stmt))
        self._transition(s.transition, state)
        return state

    # ------------------------------------------------------------ statements
    def _op(self, s) -> list:
        if isinstance(s, ast.CallStmt):
            return self._call(s.call)
        if isinstance(s, ast.AssignStmt):
            if _is_header_lookahead(s.rhs):
                return self._lookahead_header(self.exprs.place(s.lhs), s.rhs)
            if isinstance(s.lhs.type, (T.Header, T.Stack, T.Struct, T.HeaderUnion)):
                # headers, stacks, structs: the assignment primitives of actions, run as
                # parser ops (assign_header, assign_header_stack, member-wise sets)
                items = self.stmts.assignments.assign(s.lhs, s.rhs, source_info(s))
                return [op for p in items if isinstance(p, ir.Primitive)
                        for op in self._set_from(p)]
            pre: list = []
            value = self._hoist(self.exprs.lower(s.rhs), pre, top=True)
            return pre + [ir.ParserOp("set", [self.exprs.lvalue(s.lhs), value])]
        if isinstance(s, ast.VarDecl):
            if isinstance(s.p4type, T.Header) and _is_header_lookahead(s.init):
                return self._lookahead_header(self.stmts.declare_header(s), s.init)
            if isinstance(s.p4type, T.Struct) and _is_header_lookahead(s.init):
                init, s.init = s.init, None        # declare the struct, then fill it
                ops = [op for p in self.stmts.declare(s) for op in self._set_from(p)]
                return ops + self._lookahead_header(self.exprs.env.lookup(s), init)
            return [op for p in self.stmts.declare(s) for op in self._set_from(p)]
        if isinstance(s, (ast.ConstDecl, ast.EmptyStmt)):
            return []
        if isinstance(s, ast.BlockStmt):
            return [op for x in s.stmts for op in self._op(x)]
        if isinstance(s, ast.IfStmt):
            raise Unsupported(s.pos, "if statements inside parser states are not supported")
        raise Unsupported(s.pos, f"{construct_name(s)} is not supported in a parser state")

    def _lookahead_header(self, place, call: ast.MethodCallExpr) -> list:
        """x = pkt.lookahead<T>() for a header or struct T: every field from the bits ahead,
        in declaration order, and every header in it made valid (p4c's ExpandLookahead does
        the same through one bit<N> lookahead and slices of it)."""
        ops: list = []
        self._lookahead_into(place, call.pos, 0, ops)
        return ops

    def _lookahead_into(self, place, pos, offset: int, ops: list) -> int:
        """Append the ops filling `place` from the bits at `offset`; the offset after it."""
        if isinstance(place, HeaderPlace):
            # valid first: BMv2's add_header zeroes the fields of a header it makes valid
            ops.append(ir.ParserOp("primitive", [ir.Primitive(
                "add_header", [ir.HeaderArg(place.instance)])]))
            for _, name, ftype in header_leaves(place.type):
                offset = self._lookahead_leaf(ir.FieldRef(place.instance, name,
                                                          ir_type(ftype, pos)), offset, ops)
            return offset
        if isinstance(place, StackPlace):
            for element in place.elements:
                offset = self._lookahead_into(HeaderPlace(element, place.type.element), pos,
                                              offset, ops)
            return offset
        if isinstance(place, StructPlace):
            for name in place.type.fields:
                offset = self._lookahead_into(self.ctx.storage.member(place, name, pos), pos,
                                              offset, ops)
            return offset
        if isinstance(place, ir.FieldRef):
            return self._lookahead_leaf(place, offset, ops)
        raise Unsupported(pos, "lookahead of a struct is supported into headers, header "
                               "stacks and bit<W>/bool fields only")

    @staticmethod
    def _lookahead_leaf(field: ir.FieldRef, offset: int, ops: list) -> int:
        bits = field.type if not isinstance(field.type, ir.BoolType) else ir.Bits(1)
        ops.append(ir.ParserOp("set", [field, ir.Lookahead(bits, offset)]))
        return offset + bits.width

    def _set_from(self, prim: ir.Primitive) -> list:
        # a varbit copy too is a parser `set`, as p4c writes it (ParserConverter's
        # jsonAssignment has no assign_VL case)
        if prim.op in ("assign", "assign_VL"):
            pre: list = []
            dst, value = prim.args
            value = self._hoist(value, pre, top=True)
            return pre + [ir.ParserOp("set", [dst, value])]
        return [ir.ParserOp("primitive", [prim])]

    def _hoist(self, e, pre: list, top: bool = False):
        """BMv2 accepts a lookahead only as a whole `set` source or a select key, not inside
        an expression: nested lookaheads are first `set` into temporaries."""
        if isinstance(e, ir.Lookahead):
            if top:
                return e
            tmp = self.ctx.scalars.temp("tmp", e.type)
            pre.append(ir.ParserOp("set", [tmp, e]))
            return tmp
        if not isinstance(e, ir.Expr) or not dataclasses.is_dataclass(e):
            return e
        changes = {f.name: self._hoist(getattr(e, f.name), pre)
                   for f in dataclasses.fields(e) if isinstance(getattr(e, f.name), ir.Expr)}
        return dataclasses.replace(e, **changes) if changes else e

    def _call(self, c: ast.MethodCallExpr) -> list:
        if c.builtin == "extract":
            return self._extract(c)
        if c.builtin == "advance":
            pre: list = []
            amount = self._hoist(self.exprs.lower(c.args[0]), pre)
            if isinstance(amount, ir.Const) and amount.value % 8:
                raise Unsupported(c.pos, "advance() by a number of bits that is not a "
                                         "multiple of 8 is not supported by BMv2")
            return pre + [ir.ParserOp("advance", [amount])]
        if c.builtin == "verify" or (c.kind == "extern_function" and c.method.name == "verify"):
            pre = []
            cond = self._hoist(self.exprs.lower(c.args[0]), pre)
            # the error may be any expression of type error: BMv2's loader builds it as an
            # arithmetic expression (P4Objects::init_parsers, "verify"), so a variable works
            err = self.exprs.lower(c.args[1])
            if not isinstance(err, ir.Const):
                err = self._hoist(err, pre)
            return pre + [ir.ParserOp("verify", [cond, err.value if isinstance(err, ir.Const)
                                                 else err])]
        if c.builtin == "lookahead":
            return self._bare_lookahead(c)
        return [ir.ParserOp("primitive", [p]) for p in self.stmts.call(c)
                if isinstance(p, ir.Primitive)]

    def _extract(self, c: ast.MethodCallExpr) -> list:
        """extract(h) -> `extract`; extract(h, bits) -> `extract_VL` with the varbit field's
        length in bits as an expression (spec 12.8.2; JSON_format.md "extract_VL")."""
        pre: list = []
        args = []
        if len(c.args) == 2:
            args.append(self._hoist(self.exprs.lower(c.args[1]), pre))
        op = "extract_VL" if args else "extract"
        target = self.exprs.place(c.args[0])
        if isinstance(target, HeaderPlace):
            # a union member: extracting it makes the other members invalid (spec 8.20)
            return pre + [ir.ParserOp(op, [ir.HeaderArg(target.instance)] + args)] + [
                ir.ParserOp("primitive", [externs.set_valid(other, False, source_info(c))])
                for other in self.ctx.storage.union_siblings.get(target.instance, ())]
        if isinstance(target, StackNext):
            return pre + [ir.ParserOp(op, [ir.StackArg(target.stack.name)] + args)]
        if isinstance(target, UnionStackNextMember):
            # BMv2 makes the member's union siblings invalid itself (the union is in the JSON;
            # which union is known only at run time), as p4c's JSON relies on
            return pre + [ir.ParserOp(op, [ir.UnionStackArg(target.stack.path, target.member)]
                                      + args)]
        raise Unsupported(c.pos, f"cannot extract into {describe(c.args[0])}")

    def _bare_lookahead(self, c: ast.MethodCallExpr) -> list:
        """`pkt.lookahead<T>();` with the result unused still checks that T's bits are in the
        packet: BMv2 raises PacketTooShort on a short lookahead (as p4c's JSON does it, via
        a `set` of the bits into a temporary)."""
        width = getattr(c.type, "width_bits", None)
        if not width:
            raise Unsupported(c.pos, "lookahead of a type without a fixed width is not supported")
        t = ir_type(T.Bits(width), c.pos)
        return [ir.ParserOp("set", [self.ctx.scalars.temp("tmp", t), ir.Lookahead(t)])]

    # ------------------------------------------------------------ transitions
    def _next(self, path: ast.PathExpr):
        name = path.name if isinstance(path, ast.PathExpr) else None
        if name == REJECT:
            # as p4c: BMv2 has no reject state; the packet goes on to ingress, parser_error
            # unchanged (use verify(false, error.X) to record an error)
            self.ctx.diags.warning(path.pos, "explicit transition to reject is not supported "
                                             "by BMv2; it ends parsing like accept")
            return None
        if name == ACCEPT:
            return None
        return name

    def _transition(self, t, state: ir.ParseState) -> None:
        if t is None:
            state.transitions.append(ir.Transition(None, None, None))
            return
        if isinstance(t, ast.PathExpr):
            state.transitions.append(ir.Transition(None, None, self._next(t)))
            return
        if not isinstance(t, ast.SelectExpr):
            raise Unsupported(t.pos, "unsupported transition")
        widths = []
        for e in t.exprs:
            key = self._key(e, state)
            state.key.append(key)
            widths.append(key.type.width)
        state.key_widths = widths
        for case in t.cases:
            self._case(case, widths, state)

    def _key(self, e: ast.Expr, state: ir.ParseState) -> ir.Expr:
        p = self.exprs.place(e)
        if isinstance(p, UnionStackLastFieldRef):
            # u.last.m.f: a union_stack_field key (JSON_format.md; BMv2 reads it nowhere else)
            if isinstance(p.field.type, ir.BoolType):
                raise Unsupported(e.pos, f"{describe(e)}: a bool field of a header union "
                                         "stack's .last member as a select key is not supported")
            return p.field
        if isinstance(p, (ir.FieldRef, ir.StackLastField)) and not isinstance(p.type, ir.BoolType):
            return p
        value = self.exprs.lower(e) if not isinstance(p, ir.Expr) else p
        value = self._hoist(value, state.ops, top=True)
        t = value.type if not isinstance(value.type, ir.BoolType) else ir.Bits(1)
        tmp = self.ctx.scalars.temp("tmp", t)
        state.ops.append(ir.ParserOp("set", [tmp, value]))
        return tmp

    def _case(self, case: ast.SelectCase, widths: list, state: ir.ParseState) -> None:
        nxt = self._next(case.state)
        ks = case.keyset
        if len(ks) == 1 and isinstance(ks[0], ast.DefaultExpr) or (
                len(ks) == 1 and isinstance(ks[0], ast.DontCareExpr) and len(widths) > 1):
            state.transitions.append(ir.Transition(None, None, nxt))
            return
        vs = getattr(ks[0], "decl", None) if len(ks) == 1 else None
        if isinstance(ks[0], ast.PathExpr) and isinstance(vs, ast.ValueSetDecl):
            # the whole keyset is a value set (for several keys, one of struct type): the
            # transition matches the values the control plane put in it (pvs_add)
            state.transitions.append(ir.Transition(None, None, nxt,
                                                   value_set=self.value_sets[id(vs)]))
            return
        if len(ks) != len(widths):
            raise Unsupported(case.pos, f"select case has {len(ks)} values for "
                                        f"{len(widths)} keys")
        per_key = [self._keyset(k, w) for k, w in zip(ks, widths)]
        for combo in product(*per_key):
            values = [v for v, _ in combo]
            masks = [m for _, m in combo]
            exact = all(m == (1 << w) - 1 for m, w in zip(masks, widths))
            if all(m == 0 for m in masks):
                state.transitions.append(ir.Transition(None, None, nxt))
                return
            state.transitions.append(ir.Transition(values, None if exact else masks, nxt))

    def _keyset(self, k, width: int) -> list:
        full = (1 << width) - 1
        if isinstance(k, (ast.DefaultExpr, ast.DontCareExpr)):
            return [(0, 0)]
        if isinstance(k, ast.MaskExpr):
            v, m = folded_int(k.value, "a select value") & full, folded_int(k.mask, "a mask") & full
            return [(v & m, m)]
        if isinstance(k, ast.RangeExpr):
            lo, hi = folded_int(k.lo, "a range bound"), folded_int(k.hi, "a range bound")
            return range_to_masks(lo & full, hi & full, width)
        if isinstance(k, ast.PathExpr) and isinstance(getattr(k, "decl", None), ast.ValueSetDecl):
            # BMv2 matches a value set against the whole key only (p4c: combine())
            raise Unsupported(k.pos, "a parser value set as one component of a select keyset "
                                     "is not supported (BMv2 matches a value set against the "
                                     "whole key)")
        v = getattr(k, "folded", None)
        if isinstance(v, bool):
            v = int(v)
        if not isinstance(v, int):
            raise Unsupported(k.pos, "select case values must be compile-time constants")
        return [(v & full, full)]


def _is_header_lookahead(e) -> bool:
    """A lookahead of a header or of a struct (spec 12.8.3: any fixed-width type)."""
    return (isinstance(e, ast.MethodCallExpr) and e.builtin == "lookahead"
            and isinstance(e.type, (T.Header, T.Struct)))


class LowerParser:
    name = "LowerParser"

    def run(self, ctx: Context) -> None:
        ParserLowering(ctx, ctx.blocks.parser).run()
