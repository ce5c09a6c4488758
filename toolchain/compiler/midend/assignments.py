"""Assignments lowered to BMv2 primitives, as p4c's BMv2 back end writes them
(ActionConverter's jsonAssignment): scalars and slices, headers with their validity (a union
member's siblings made invalid), header stacks, unions and their stacks, structs member by
member, and lists or struct expressions assigned member by member."""
from __future__ import annotations

from ..frontend import ast
from . import externs, ir
from .context import Context, fresh_label
from .expressions import ExprLowering, describe, stack_element_arg
from .storage import (HeaderPlace, HeaderStructPlace, StackPlace, StructPlace, UnionPlace,
                      UnionStackPlace)
from .unsupported import Unsupported


def assign_primitive(dst: ir.Expr, value: ir.Expr, src) -> ir.Primitive:
    """dst = value: `assign`, or `assign_VL` for a varbit field, which copies the current
    length with the value (as p4c's ActionConverter::jsonAssignment)."""
    op = "assign_VL" if isinstance(dst.type, ir.Varbit) else "assign"
    return ir.Primitive(op, [dst, value], src)


class AssignmentLowering:
    """`dst = value` for every kind of place, as a list of primitives. `in_parser`: no jump
    exists there, so a copy into a union member relies on BMv2's own invalidation."""

    def __init__(self, ctx: Context, exprs: ExprLowering, *, in_parser: bool = False):
        self.ctx = ctx
        self.exprs = exprs
        self.in_parser = in_parser

    def assign(self, lhs: ast.Expr, rhs: ast.Expr, src) -> list:
        if isinstance(lhs, ast.SliceExpr):
            return [self._assign_slice(lhs, rhs, src)]
        target = self.exprs.place(lhs)
        if isinstance(target, (ir.FieldRef, ir.StackElementField)):
            # a field, or a field of stack[i] with i known at run time (access_field l-value)
            return [assign_primitive(target, self.exprs.lower(rhs), src)]
        if isinstance(rhs, (ast.ListExpr, ast.StructInitExpr)):
            return self.assign_members(target, rhs, src)
        if isinstance(target, HeaderPlace):
            value = self.exprs.place(rhs)
            if isinstance(value, HeaderPlace):
                return self.assign_header(target, value, src, lhs.pos)
        dynamic = self._assign_stack_element(lhs, target, rhs, src)
        if dynamic is not None:
            return dynamic
        if isinstance(target, UnionPlace):
            value = self.exprs.place(rhs)
            if isinstance(value, UnionPlace) and value.type == target.type:
                # member by member: validity copied exactly, so the union rule holds
                return [ir.Primitive("assign_header", [ir.HeaderArg(d.instance),
                                                       ir.HeaderArg(v.instance)], src)
                        for d, v in zip(target.members(), value.members())]
        if isinstance(target, StackPlace):
            value = self.exprs.place(rhs)
            if isinstance(value, StackPlace):
                return [ir.Primitive("assign_header_stack", [ir.StackArg(target.name),
                                                             ir.StackArg(value.name)], src)]
        if isinstance(target, UnionStackPlace):
            value = self.exprs.place(rhs)
            if isinstance(value, UnionStackPlace) and value.type == target.type:
                return [union_stack_copy(target, value, src)]
        if isinstance(target, StructPlace):
            value = self.exprs.place(rhs)
            if isinstance(value, HeaderStructPlace):
                return self._assign_struct_fields(target, value, lhs.pos, src)
            if isinstance(value, StructPlace):
                return self.assign_struct(target, value, lhs.pos, src)
        if isinstance(target, HeaderStructPlace):
            return self._assign_struct_fields(target, self.exprs.place(rhs), lhs.pos, src)
        raise Unsupported(lhs.pos, f"assignment to {describe(lhs)} from {describe(rhs)} "
                                   "is not supported")

    def _assign_stack_element(self, lhs, target, rhs, src):
        """h = stack[i] / stack[i] = h / h = stack.last with i a run-time value: one
        assign_header whose operand is a dereference_header_stack expression, as p4c writes
        it (BMv2 builds header operands from expressions, P4Objects::process_primitive_call).
        None when neither side is such an element."""
        if isinstance(target, (ir.FieldRef, ir.StackElementField)) or not (
                _names_stack_element(lhs) or _names_stack_element(rhs)):
            return None
        value = self.exprs.place(rhs)
        dst, val = stack_element_arg(target), stack_element_arg(value)
        if dst is None and val is None:
            return None
        if dst is None and isinstance(target, HeaderPlace):
            if self.ctx.storage.union_siblings.get(target.instance):
                return None
            dst = ir.HeaderArg(target.instance)
        if val is None and isinstance(value, HeaderPlace):
            val = ir.HeaderArg(value.instance)
        if dst is None or val is None:
            return None
        return [ir.Primitive("assign_header", [dst, val], src)]

    def assign_members(self, target, rhs, src) -> list:
        """h = {a, b} / s = {f = a, g = b}: member by member; a header also becomes valid
        (spec 8.12: a header assigned from a list is valid), valid first because BMv2's
        add_header zeroes the fields."""
        if isinstance(target, HeaderPlace):
            names, out = list(target.type.fields), self.set_valid(target, True, src)
            member = lambda n: self.exprs.header_member(target, n, rhs.pos)  # noqa: E731
        elif isinstance(target, StructPlace):
            names, out = list(target.type.fields), []
            member = lambda n: self.ctx.storage.member(target, n, rhs.pos)  # noqa: E731
        elif isinstance(target, HeaderStructPlace):
            names, out = list(target.type.fields), []
            member = lambda n: target.member(n, rhs.pos)                    # noqa: E731
        else:
            raise Unsupported(rhs.pos, "a list or struct expression can only be assigned to a "
                                       "header or struct")
        values = (list(zip(names, rhs.items)) if isinstance(rhs, ast.ListExpr)
                  else list(rhs.fields))
        if len(values) != len(names):
            raise Unsupported(rhs.pos, f"{len(values)} values for {len(names)} fields")
        for name, value in values:
            m = member(name)
            if isinstance(m, ir.FieldRef):
                out.append(assign_primitive(m, self.exprs.lower(value), src))
            elif isinstance(value, (ast.ListExpr, ast.StructInitExpr)):
                out.extend(self.assign_members(m, value, src))
            else:
                out.extend(self.assign_place(m, value, src))
        return out

    def assign_place(self, target, rhs, src) -> list:
        value = self.exprs.place(rhs)
        if isinstance(target, HeaderStructPlace) or isinstance(value, HeaderStructPlace):
            return self._assign_struct_fields(target, value, rhs.pos, src)
        if isinstance(target, HeaderPlace) and isinstance(value, HeaderPlace):
            return self.assign_header(target, value, src, rhs.pos)
        if isinstance(target, StructPlace) and isinstance(value, StructPlace):
            return self.assign_struct(target, value, rhs.pos, src)
        if isinstance(target, StackPlace) and isinstance(value, StackPlace):
            return [ir.Primitive("assign_header_stack", [ir.StackArg(target.name),
                                                         ir.StackArg(value.name)], src)]
        raise Unsupported(rhs.pos, f"cannot assign {describe(rhs)} here")

    # ------------------------------------------------------------ header validity
    def set_valid(self, h: HeaderPlace, valid: bool, src) -> list:
        """setValid/setInvalid; a union member made valid invalidates the other members
        (spec 8.20, as BMv2 does for the members of a JSON header_union)."""
        out = [externs.set_valid(h.instance, valid, src)]
        if valid:
            out += [externs.set_valid(o, False, src)
                    for o in self.ctx.storage.union_siblings.get(h.instance, ())]
        return out

    def assign_header(self, dst: HeaderPlace, value: HeaderPlace, src, pos) -> list:
        """dst = value (validity included); into a union member, the other members become
        invalid when the copy made it valid. BMv2 does that itself for a member of a JSON
        header_union (Header::mark_valid tells the union, which invalidates the member
        valid before), so in a parser, where no jump exists, the copy alone is emitted; in
        actions the invalidation is also spelled out."""
        out = [ir.Primitive("assign_header", [ir.HeaderArg(dst.instance),
                                              ir.HeaderArg(value.instance)], src)]
        siblings = self.ctx.storage.union_siblings.get(dst.instance, ())
        if siblings and not self.in_parser:
            skip = fresh_label("union")
            out.append(ir.JumpIfFalse(ir.ValidRef(dst.instance), skip))
            out += [externs.set_valid(o, False, src) for o in siblings]
            out.append(skip)
        return out

    def _assign_slice(self, lhs: ast.SliceExpr, rhs: ast.Expr, src) -> ir.Primitive:
        return self.assign_slice_value(lhs, self.exprs.lower(rhs), src)

    def assign_slice_value(self, lhs: ast.SliceExpr, rhs: ir.Expr, src) -> ir.Primitive:
        """f[hi:lo] = v  ->  f = (f & ~(m << lo)) | ((v & m) << lo), computed at f's width.
        A slice of a slice (`n[7:4][3:0]`) is the slice of n at the combined offsets."""
        hi, lo = lhs.hi_value, lhs.lo_value
        base = lhs.expr
        while isinstance(base, ast.SliceExpr):
            hi, lo = base.lo_value + hi, base.lo_value + lo
            base = base.expr
        field = self.exprs.lvalue(base)
        t = field.type
        if not isinstance(t, ir.Bits):
            raise Unsupported(lhs.pos, "slices of bool values cannot be assigned")
        part = ir.Bits(hi - lo + 1)
        ut = ir.Bits(t.width)
        keep = ir.Const(t.mask & ~(part.mask << lo), ut)
        bits = ir.Cast(field, ut) if t.signed else field
        value = ir.Cast(rhs, ut)
        placed = ir.Binary("<<", value, ir.Const(lo, ir.Bits(8)), ut) if lo else value
        combined = ir.Binary("|", ir.Binary("&", bits, keep, ut), placed, ut)
        return ir.Primitive("assign", [field, ir.Cast(combined, t) if t.signed else combined],
                            src)

    def _struct_member(self, place, name: str, pos):
        if isinstance(place, HeaderStructPlace):
            return place.member(name, pos)
        return self.ctx.storage.member(place, name, pos)

    def _assign_struct_fields(self, dst, value, pos, src) -> list:
        """A struct-typed header field copied from or to a struct (`hdr.h.row = meta.row`):
        scalar by scalar (the header field is flattened, header_leaves)."""
        if not (isinstance(dst, (HeaderStructPlace, StructPlace)) and
                isinstance(value, (HeaderStructPlace, StructPlace)) and dst.type == value.type):
            raise Unsupported(pos, "a struct-typed header field can only be copied from or to "
                                   "a value of the same struct type")
        out = []
        for name in dst.type.fields:
            d, v = self._struct_member(dst, name, pos), self._struct_member(value, name, pos)
            if isinstance(d, ir.FieldRef) and isinstance(v, ir.FieldRef):
                out.append(assign_primitive(d, v, src))
            else:
                out.extend(self._assign_struct_fields(d, v, pos, src))
        return out

    def assign_struct(self, dst: StructPlace, src_place: StructPlace, pos, src) -> list:
        out = []
        storage = self.ctx.storage
        for name in dst.type.fields:
            d = storage.member(dst, name, pos)
            s = storage.member(src_place, name, pos)
            if isinstance(d, ir.FieldRef):
                out.append(ir.Primitive("assign", [d, s], src))
            elif isinstance(d, HeaderPlace):
                out.append(ir.Primitive("assign_header", [ir.HeaderArg(d.instance),
                                                          ir.HeaderArg(s.instance)], src))
            elif isinstance(d, UnionPlace):       # every member: validity copied exactly
                out += [ir.Primitive("assign_header", [ir.HeaderArg(dm.instance),
                                                       ir.HeaderArg(sm.instance)], src)
                        for dm, sm in zip(d.members(), s.members())]
            elif isinstance(d, StructPlace):
                out.extend(self.assign_struct(d, s, pos, src))
            elif isinstance(d, StackPlace):
                out.append(ir.Primitive("assign_header_stack", [ir.StackArg(d.name),
                                                                ir.StackArg(s.name)], src))
            elif isinstance(d, UnionStackPlace):
                out.append(union_stack_copy(d, s, src))
            else:
                raise Unsupported(pos, f"struct assignment of member {name} is not supported")
        return out


def union_stack_copy(dst: UnionStackPlace, value: UnionStackPlace, src) -> ir.Primitive:
    """dst = value for stacks of header unions: BMv2's assign_union_stack (its next index,
    then assign_union element by element), as p4c writes it."""
    return ir.Primitive("assign_union_stack", [ir.NamedArg("header_union_stack", dst.path),
                                               ir.NamedArg("header_union_stack", value.path)],
                        src)


def _names_stack_element(e) -> bool:
    """`s[i]` or `s.last`: an expression that may denote a stack element."""
    return isinstance(e, ast.IndexExpr) or (isinstance(e, ast.MemberExpr) and e.member == "last")
