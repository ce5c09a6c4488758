"""Statements (P4_16 spec 11-13): assignments and what can be written, calls, if, blocks,
local declarations, switch (on a table's action_run or on values), return, exit, for loops
with break and continue."""
from __future__ import annotations

from .. import ast as A
from .. import types as T
from ..scopes import Abandon
from .base import Ctx, TypingBase


class StatementTyping(TypingBase):
    """Statements in parser states, actions, functions and apply blocks."""

    # ------------------------------------------------------------ statements
    def check_stmt(self, s: A.Stmt, ctx: Ctx) -> None:
        if isinstance(s, A.AssignStmt):
            self.check_expr(s.lhs, ctx)
            self.check_writable(s.lhs, ctx)
            self.check_expr(s.rhs, ctx, expected=s.lhs.type)
            self.coerce(s.rhs, s.lhs.type, ctx, "assignment")
        elif isinstance(s, A.CallStmt):
            self.check_expr(s.call, ctx)
        elif isinstance(s, A.IfStmt):
            self.check_expr(s.cond, ctx)
            if s.cond.type != T.BOOL:
                self.err(s.cond.pos, f"if condition has type {s.cond.type}, expected bool")
            self.guarded(self.check_stmt, s.then, ctx.child())
            if s.other is not None:
                self.guarded(self.check_stmt, s.other, ctx.child())
        elif isinstance(s, A.BlockStmt):
            bctx = ctx.child()
            for st in s.stmts:
                self.guarded(self.check_stmt, st, bctx)
        elif isinstance(s, A.VarDecl):
            self.check_var(s, ctx)
        elif isinstance(s, A.ConstDecl):
            self.check_const(s, ctx)
        elif isinstance(s, A.SwitchStmt):
            self.check_switch(s, ctx)
        elif isinstance(s, A.ReturnStmt) and ctx.function is not None:
            self.check_function_return(s, ctx)
        elif isinstance(s, A.ReturnStmt):
            if ctx.kind == "state":
                self.err(s.pos, "return is not allowed in a parser state")
            if s.value is not None:
                self.err(s.pos, "return with a value is only allowed in functions")
        elif isinstance(s, A.ExitStmt):
            if ctx.kind == "state":
                self.err(s.pos, "exit is not allowed in a parser state")
        elif isinstance(s, A.EmptyStmt):
            pass
        elif isinstance(s, A.ForStmt):
            self.check_for(s, ctx)
        elif isinstance(s, (A.BreakStmt, A.ContinueStmt)):
            if not ctx.loop:
                word = "break" if isinstance(s, A.BreakStmt) else "continue"
                self.err(s.pos, f"{word} is only allowed inside a for loop")
        else:
            self.refuse(s.pos, f"statement '{type(s).__name__}'")

    def check_for(self, s: A.ForStmt, ctx: Ctx) -> None:
        """Spec 12.9: the init declarations are visible in the condition, the updates and the
        body; the body has a scope of its own. Parsers loop with states instead."""
        if ctx.kind in ("state", "parser"):
            self.err(s.pos, "for loops are not allowed in a parser (use parser states)")
        lctx = ctx.child()
        for st in s.init:
            self.guarded(self.check_stmt, st, lctx)
        if s.cond is not None:
            self.check_expr(s.cond, lctx)
            if s.cond.type != T.BOOL:
                self.err(s.cond.pos, f"for loop condition has type {s.cond.type}, expected bool")
        for st in s.updates:
            self.guarded(self.check_stmt, st, lctx)
        self.guarded(self.check_stmt, s.body, lctx.child(loop=True))

    def check_switch(self, s: A.SwitchStmt, ctx: Ctx) -> None:
        if ctx.kind in ("state", "action"):
            where = "a parser state" if ctx.kind == "state" else "an action"
            self.err(s.pos, f"switch is not allowed in {where}")
        self.check_expr(s.expr, ctx)
        t = s.expr.type
        seen = set()
        if isinstance(t, T.ActionEnum):
            s.on_action_run = True
            s.table = t.table.decl
            names = {ar.action.name: ar.action for ar in s.table.actions if ar.action is not None}
            for c in s.cases:
                for lab in c.labels:
                    if isinstance(lab, A.DefaultExpr):
                        lab.type = T.DONTCARE
                        key = "default"
                    elif isinstance(lab, A.PathExpr) and lab.name in names:
                        lab.decl = names[lab.name]
                        lab.type = t
                        key = lab.name
                    else:
                        self.diags.error(lab.pos, f"switch label is not an action of table "
                                                  f"'{s.table.name}'")
                        continue
                    if key in seen:
                        self.diags.error(lab.pos, f"duplicate switch label '{key}'")
                    seen.add(key)
        else:
            if not (isinstance(t, T.Bits) or isinstance(t, T.Enum) or t == T.ERROR):
                self.err(s.expr.pos, f"cannot switch on a value of type {t}")
            for c in s.cases:
                for lab in c.labels:
                    if isinstance(lab, A.DefaultExpr):
                        lab.type = T.DONTCARE
                        continue
                    try:
                        self.check_expr(lab, ctx, expected=t)
                        self.coerce(lab, t, ctx, "switch label")
                        self.require_constant(lab, "a switch label")
                        key = lab.folded if lab.folded is not None else id(lab.decl)
                        if key in seen:
                            self.diags.error(lab.pos, "duplicate switch label")
                        seen.add(key)
                    except Abandon:
                        pass
        for c in s.cases:
            if c.body is not None:
                self.guarded(self.check_stmt, c.body, ctx.child())

    def check_writable(self, e: A.Expr, ctx: Ctx) -> None:
        if isinstance(e, A.PathExpr):
            d = e.decl
            if isinstance(d, A.VarDecl):
                return
            if isinstance(d, A.Param):
                if d.direction in ("out", "inout"):
                    return
                if d.direction == "in":
                    self.err(e.pos, f"cannot write to '{e.name}': it is an 'in' parameter")
                self.err(e.pos, f"cannot write to '{e.name}': action data parameters are "
                                f"read-only")
            if isinstance(d, A.ConstDecl):
                self.err(e.pos, f"cannot assign to constant '{e.name}'")
            self.err(e.pos, f"'{e.name}' cannot be assigned to")
        if isinstance(e, A.MemberExpr) and e.kind in ("field", "stack"):
            if e.kind == "stack" and e.member != "next":
                self.err(e.pos, f"cannot write to '.{e.member}' of a header stack")
            return self.check_writable(e.expr, ctx)
        if isinstance(e, (A.IndexExpr, A.SliceExpr)):
            return self.check_writable(e.expr, ctx)
        self.err(e.pos, "this expression cannot be assigned to")
