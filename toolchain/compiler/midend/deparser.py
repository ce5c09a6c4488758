"""Deparser lowering: the emit() calls, in order, as the BMv2 deparser's header order.

BMv2 emits every valid header of `order` (JSON_format.md "deparsers"), which is what a
sequence of unconditional `emit` calls means; a stack emits all its elements, a struct its
members in declaration order.
"""
from __future__ import annotations

from ..frontend import ast
from . import ir
from .context import Context, construct_name, source_info
from .controls import block_env, flat_statements
from .expressions import ExprLowering, describe
from .storage import HeaderPlace, StackPlace, StructPlace, UnionPlace, UnionStackPlace
from .unsupported import Unsupported


class LowerDeparser:
    name = "LowerDeparser"

    def run(self, ctx: Context) -> None:
        decl = ctx.blocks.deparser
        exprs = ExprLowering(ctx, block_env(ctx, decl.params))
        order: list = []
        for s in flat_statements(decl.body.stmts):
            if not (isinstance(s, ast.CallStmt) and s.call.builtin == "emit"):
                raise Unsupported(s.pos, "the deparser may only contain emit() calls, not "
                                         f"{construct_name(s)}")
            self._emit(ctx, exprs.place(s.call.args[0]), order, s.call.args[0])
        ctx.out.deparsers.append(ir.Deparser("deparser", order, source_info(decl, decl.name)))

    def _emit(self, ctx, place, order: list, arg) -> None:
        if isinstance(place, HeaderPlace):
            order.append(place.instance)
        elif isinstance(place, StackPlace):
            order.extend(place.elements)
        elif isinstance(place, UnionStackPlace):
            for u in place.elements():
                order.extend(m.instance for m in u.members())
        elif isinstance(place, UnionPlace):
            # the members in declaration order; at most one is valid, so at most one is
            # emitted (spec 8.20; p4c's deparser does the same)
            order.extend(m.instance for m in place.members())
        elif isinstance(place, StructPlace) and place.kind == "headers":
            for name in place.type.fields:
                self._emit(ctx, ctx.storage.member(place, name, arg.pos), order, arg)
        else:
            raise Unsupported(arg.pos, f"cannot emit {describe(arg)}")
