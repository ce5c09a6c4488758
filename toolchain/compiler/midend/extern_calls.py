"""Calls of v1model's extern functions and of extern objects' methods, lowered to BMv2
primitives (p4c's ExternConverter): hash, random, clone, resubmit, recirculate, digest,
truncate, assert, assume and log_msg; register, counter and meter methods; and the field lists
and calculation inputs those primitives name."""
from __future__ import annotations

from pathlib import Path

from ..frontend import ast, types as T
from . import externs, ir
from .context import Context, folded_int, ir_type
from .expressions import ExprLowering, describe
from .storage import HeaderPlace, HeaderStructPlace, StructPlace, UnionPlace, header_leaves
from .unsupported import Unsupported


def enum_member_name(e: ast.Expr) -> str:
    if isinstance(e, ast.MemberExpr) and e.kind == "enum":
        return e.member
    raise Unsupported(e.pos, f"expected an enum constant, got {describe(e)}")


class ExternCallLowering:
    """The primitives of one extern function or extern method call."""

    def __init__(self, ctx: Context, exprs: ExprLowering):
        self.ctx = ctx
        self.exprs = exprs

    def extern_function(self, c: ast.MethodCallExpr, src) -> list:
        name = c.method.name
        handler = getattr(self, "_fn_" + name, None)
        if handler is None:
            decl_file = getattr(getattr(c.method, "pos", None), "file", "") or ""
            if Path(decl_file).name in ("core.p4", "v1model.p4"):
                raise Unsupported(c.pos, f"extern function {name} is not supported")
            # p4c-bm2-ss: "unknown extern function" (ExternConverter::convertExternFunction),
            # unless --emit-externs, which emits a primitive of that name that simple_switch
            # runs only with a module giving it (--load-modules; p4c's extern-funcs-bmv2)
            raise Unsupported(c.pos, f"user-defined extern function {name} is not supported: "
                                     "BMv2 (simple_switch) has no primitive for it, and p4c-bm2-ss "
                                     "rejects it too ('unknown extern function') unless given "
                                     "--emit-externs, whose JSON then needs a simple_switch "
                                     "module implementing it (--load-modules)")
        return handler(c, src)

    def _fn_static_assert(self, c, src):
        return []                   # checked (and true) at compile time: nothing to run

    def _fn_mark_to_drop(self, c, src):
        return [externs.mark_to_drop(src)]

    def _fn_hash(self, c, src):
        dst, algo, base, data, max_ = c.args
        algo_name = enum_member_name(algo)
        pre, inputs = self.calc_inputs(data)
        calc = self.ctx.calc_names.fresh("calc")
        self.ctx.out.calculations.append(ir.Calculation(calc, algo_name, inputs, src))
        return pre + [externs.hash_call(self.exprs.lvalue(dst), self.exprs.lower(base), calc,
                                        self.exprs.lower(max_), src)]

    def _fn_random(self, c, src):
        dst, lo, hi = c.args
        return [externs.random_call(self.exprs.lvalue(dst), self.exprs.lower(lo),
                                    self.exprs.lower(hi), src)]

    def _fn_resubmit_preserving_field_list(self, c, src):
        return [externs.resubmit(self.field_list(c.args[0]), src)]

    def _fn_recirculate_preserving_field_list(self, c, src):
        return [externs.recirculate(self.field_list(c.args[0]), src)]

    def _fn_clone(self, c, src):
        kind = enum_member_name(c.args[0])
        return [externs.clone(kind, self.exprs.lower(c.args[1]), self.ctx.empty_field_list_id(),
                              src)]

    def _fn_clone_preserving_field_list(self, c, src):
        kind = enum_member_name(c.args[0])
        return [externs.clone(kind, self.exprs.lower(c.args[1]), self.field_list(c.args[2]),
                              src)]

    def _fn_resubmit(self, c, src):
        return [externs.resubmit(self.data_field_list(c.args[0]), src)]

    def _fn_recirculate(self, c, src):
        return [externs.recirculate(self.data_field_list(c.args[0]), src)]

    def _fn_clone3(self, c, src):
        kind = enum_member_name(c.args[0])
        return [externs.clone(kind, self.exprs.lower(c.args[1]),
                              self.data_field_list(c.args[2]), src)]

    def _fn_digest(self, c, src):
        """digest(receiver, data): the digest carries the values at the call (v1model.p4),
        but simple_switch reads a learn list's fields only at the end of ingress; so, as
        p4c does, the data is copied into scalar temporaries at the call and the learn
        list names those."""
        fields = self.field_refs(c.args[1], "digest data")
        copies, temps = [], []
        for f in fields:
            tmp = self.ctx.scalars.temp("tmp", f.type)
            copies.append(ir.Primitive("assign", [tmp, f], src))
            temps.append(tmp)
        lid = len(self.ctx.out.learn_lists) + 1
        dtype = c.args[1].type
        name = dtype.name if isinstance(dtype, T.Struct) else f"digest_{lid}"
        self.ctx.out.learn_lists.append(ir.LearnList(lid, name, temps))
        return copies + [externs.digest(self.exprs.lower(c.args[0]), lid, src)]

    def field_refs(self, data: ast.Expr, what: str) -> list:
        """The metadata/header fields named by a list or struct expression."""
        items = data.items if isinstance(data, ast.ListExpr) else [data]
        out = []
        for item in items:
            p = self.exprs.place(item)
            if isinstance(p, ir.FieldRef):
                out.append(p)
            elif isinstance(p, StructPlace):
                out.extend(self._struct_fields(p, item.pos))
            elif isinstance(p, HeaderPlace):
                out.extend(ir.FieldRef(p.instance, n, ir_type(t, item.pos))
                           for _, n, t in header_leaves(p.type))
            else:
                raise Unsupported(item.pos, f"{what} must name fields; "
                                            f"{describe(item)} is not a field")
        return out

    def _struct_fields(self, place: StructPlace, pos) -> list:
        out = []
        for name in place.type.fields:
            m = self.ctx.storage.member(place, name, pos)
            if isinstance(m, ir.FieldRef):
                out.append(m)
            elif isinstance(m, StructPlace):
                out.extend(self._struct_fields(m, pos))
            else:
                raise Unsupported(pos, "field lists of headers inside structs are not supported")
        return out

    def data_field_list(self, data: ast.Expr) -> int:
        """A field list for the deprecated resubmit/recirculate/clone3 data argument."""
        fields = self.field_refs(data, "the preserved data")
        used = {fl.id for fl in self.ctx.out.field_lists}
        fid = max(used, default=0) + 1
        fl = ir.FieldList(fid, f"field_list{fid}", fields)
        self.ctx.field_list_ids[fid] = fl
        self.ctx.out.field_lists.append(fl)
        return fid

    def _fn_truncate(self, c, src):
        return [externs.truncate(self.exprs.lower(c.args[0]), src)]

    def _fn_assert(self, c, src):
        return [externs.assertion("assert", self.exprs.lower(c.args[0]), src)]

    def _fn_assume(self, c, src):
        return [externs.assertion("assume", self.exprs.lower(c.args[0]), src)]

    def _fn_log_msg(self, c, src):
        msg = c.args[0]
        if not isinstance(msg, ast.StringLit):
            raise Unsupported(c.pos, "log_msg needs a string literal")
        text, values = msg.value, []
        if len(c.args) > 1:
            data = c.args[1]
            items = data.items if isinstance(data, ast.ListExpr) else [data]
            if any(isinstance(x.type, T.StructLike) for x in items):
                text, values = self._log_msg_flattened(text, items)
            else:
                values = [self.exprs.lower(x) for x in items]
        return [externs.log_msg(text, values, src)]

    def _log_msg_flattened(self, text: str, items: list):
        """log_msg with a struct or header among its values: BMv2 logs only integral values,
        so p4c's FlattenLogMsg (midend/flattenLogMsg.cpp) replaces the value's `{}` with
        "(f1:{},f2:{},...)" (a nested struct as "s:(...)") and logs its fields in order."""
        out, values, rest = "", [], text
        for x in items:
            n = rest.find("{}")
            if n >= 0:
                out, rest = out + rest[:n], rest[n + 2:]
            if isinstance(x.type, T.StructLike):
                out += self._log_fields(self.exprs.place(x), x.pos, values)
            else:
                out += "{}"
                values.append(self.exprs.lower(x))
        return out + rest, values

    def _log_fields(self, place, pos, values: list) -> str:
        """"(name:{},...)" for the fields of a struct, header or union place, appending
        the field values to `values`."""
        if isinstance(place, HeaderPlace):
            member = lambda n: self.exprs.header_member(place, n, pos)   # noqa: E731
        elif isinstance(place, StructPlace):
            member = lambda n: self.ctx.storage.member(place, n, pos)    # noqa: E731
        elif isinstance(place, (HeaderStructPlace, UnionPlace)):
            member = (lambda n: place.member(n, pos)) if isinstance(place, HeaderStructPlace) \
                else place.member
        else:
            raise Unsupported(pos, "log_msg can log a header or struct only when it is a "
                                   "variable or field")
        parts = []
        for name in place.type.fields:
            m = member(name)
            if isinstance(m, ir.Expr):
                values.append(m)
                parts.append(f"{name}:{{}}")
            else:
                parts.append(f"{name}:" + self._log_fields(m, pos, values))
        return "(" + ",".join(parts) + ")"

    def field_list(self, arg: ast.Expr) -> int:
        index = folded_int(arg, "a field list index")
        if index not in self.ctx.field_list_ids:
            fl = ir.FieldList(index, f"field_list{index}", [])
            self.ctx.field_list_ids[index] = fl
            self.ctx.out.field_lists.append(fl)
        return index

    def calc_inputs(self, data: ast.Expr, flatten: bool = False) -> tuple[list, list]:
        """Inputs of a hash/checksum calculation: fields and constants as they are (BMv2
        calculations take fields, hexstr with bitwidth, headers or payload). Other expressions
        are computed into temporaries by the statements returned first; with `flatten` (the
        checksum controls, where no statement can run) a concatenation `a ++ b` becomes the
        inputs of a then those of b, and a cast widening an unsigned value `(bit<W>)x` becomes
        W - w zero bits then x's inputs: a calculation hashes the bits of its inputs laid end
        to end, so both denote the same bit string."""
        items = data.items if isinstance(data, ast.ListExpr) else [data]
        pre, inputs = [], []
        for item in items:
            self._calc_input(item, flatten, pre, inputs)
        return pre, inputs

    def _calc_input(self, item: ast.Expr, flatten: bool, pre: list, inputs: list) -> None:
        if getattr(item, "folded", None) is not None and isinstance(item.type, T.Bits):
            inputs.append(self.exprs.lower(item))
            return
        if flatten and isinstance(item, ast.BinaryExpr) and item.op == "++":
            self._calc_input(item.left, flatten, pre, inputs)
            self._calc_input(item.right, flatten, pre, inputs)
            return
        if flatten and isinstance(item, ast.CastExpr) and isinstance(item.type, T.Bits) \
                and isinstance(item.expr.type, T.Bits) and not item.expr.type.signed \
                and item.expr.type.width <= item.type.width:
            extra = item.type.width - item.expr.type.width
            if extra:
                inputs.append(ir.Const(0, ir.Bits(extra)))
            self._calc_input(item.expr, flatten, pre, inputs)
            return
        p = self.exprs.place(item)
        if isinstance(p, HeaderPlace):
            inputs.extend(ir.FieldRef(p.instance, n, ir_type(t, item.pos))
                          for _, n, t in header_leaves(p.type))
        elif isinstance(p, (ir.FieldRef, ir.Const)) and not isinstance(p.type, ir.BoolType):
            inputs.append(p)
        elif isinstance(p, ir.Expr):
            tmp = self.ctx.scalars.temp("tmp", p.type if not isinstance(p.type, ir.BoolType)
                                        else ir.Bits(1))
            pre.append(ir.Primitive("assign", [tmp, p]))
            inputs.append(tmp)
        else:
            raise Unsupported(item.pos, f"{describe(item)} cannot be hashed")

    # -- extern object methods
    def extern_method(self, c: ast.MethodCallExpr, src) -> list:
        recv = c.receiver
        decl = getattr(recv, "decl", None)
        info = self.ctx.extern_instances.get(id(decl))
        if info is None:
            raise Unsupported(c.pos, f"method {describe(c.callee)} is not supported here")
        kind, name = info
        method = c.method.name
        if kind == "register" and method == "read":
            return [externs.register_read(self.exprs.lvalue(c.args[0]), name,
                                          self.exprs.lower(c.args[1]), src)]
        if kind == "register" and method == "write":
            return [externs.register_write(name, self.exprs.lower(c.args[0]),
                                           self.exprs.lower(c.args[1]), src)]
        if kind == "counter" and method == "count":
            return [externs.counter_count(name, self.exprs.lower(c.args[0]), src)]
        if kind == "direct_counter" and method == "count":
            return []                       # BMv2 counts direct counters on every hit
        if kind == "meter" and method == "execute_meter":
            return [externs.meter_execute(name, self.exprs.lower(c.args[0]),
                                          self.exprs.lvalue(c.args[1]), src)]
        if kind == "direct_meter" and method == "read":
            meter = self.ctx.direct_meters[name]
            meter.result_target = self.exprs.lvalue(c.args[0])
            return []                       # BMv2 writes the colour when the table hits
        raise Unsupported(c.pos, f"{kind}.{method} is not supported")
