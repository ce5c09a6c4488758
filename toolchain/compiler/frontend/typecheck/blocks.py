"""Parsers, controls and what they declare (P4_16 spec 12-14): parameters, parser states
and their transitions with select keysets, local variables, actions and functions.

Parser states and their names were resolved before (`resolve.py`): a transition's target
is a state; here keysets are checked against the types they select on.
"""
from __future__ import annotations

from .. import ast as A
from .. import types as T
from ..scopes import Abandon
from .base import Ctx, TypingBase


class BlockTyping(TypingBase):
    """Parsers, keysets, controls, local declarations, actions and functions."""

    # ------------------------------------------------------------ parsers
    def check_parser(self, d: A.ParserDecl, ctx: Ctx) -> None:
        t = T.ParserType(d.name, d)
        d.p4type = t
        if d.type_params:
            self.refuse(d.pos, f"generic parser '{d.name}'")
        if d.ctor_params:
            self.diags.error(d.ctor_params[0].pos, f"parser '{d.name}' with constructor "
                                                   f"parameters is not supported")
        pctx = ctx.child("parser", parser=d)
        t.params = self.param_list(d.params, pctx)
        for p in d.params:
            if p.direction == "" and not self.is_packet_type(p.p4type):
                self.diags.error(p.pos, f"parser parameter '{p.name}' needs a direction")
        for loc in d.locals:
            self.guarded(self.check_local, loc, pctx)
        for s in d.states:
            sctx = pctx.child("state")
            for st in s.stmts:
                self.guarded(self.check_stmt, st, sctx)
            self.guarded(self.check_transition, s, sctx)
        self.check_parser_ends(d)

    def check_parser_ends(self, d: A.ParserDecl) -> None:
        """A parser must be able to end (p4c's SimplifyParsers): accept or reject reachable
        from start, by transitions (a state without one goes to reject)."""
        start = next((s for s in d.states if s.name == "start"), None)
        if start is None:
            return
        reached, todo = set(), [start]
        while todo:
            s = todo.pop()
            if not isinstance(s, A.ParserState) or id(s) in reached:
                continue
            reached.add(id(s))
            if s.builtin or s.name in ("accept", "reject"):
                continue
            tr = s.transition
            targets = [tr] if isinstance(tr, A.PathExpr) else \
                [c.state for c in getattr(tr, "cases", [])]
            for t in targets:
                if t.name in ("accept", "reject"):
                    reached.add(t.name)
                else:
                    todo.append(t.decl)
        if "accept" not in reached and "reject" not in reached:
            self.diags.error(d.pos, f"parser {d.name}: Parser never reaches accept or reject "
                                    f"state")
        elif "accept" not in reached:
            self.warn(d.pos, f"accept state in parser {d.name} is unreachable")

    @staticmethod
    def is_packet_type(t) -> bool:
        return isinstance(t, T.Extern) and t.name in ("packet_in", "packet_out")

    def check_transition(self, s: A.ParserState, ctx: Ctx) -> None:
        tr = s.transition
        if isinstance(tr, A.PathExpr):
            tr.type = T.STATE
            return
        sel: A.SelectExpr = tr
        types = []
        for e in sel.exprs:
            self.check_expr(e, ctx)
            if e.type == T.INT:
                self.err(e.pos, "select expression has no fixed width (cast the constant)")
            if not self.is_matchable(e.type):
                self.err(e.pos, f"cannot select on a value of type {e.type}")
            types.append(e.type)
        sel.type = T.STATE
        for case in sel.cases:
            self.guarded(self.check_keyset, case.keyset, sel.exprs, ctx, case.pos,
                         "select expression")
            case.state.type = T.STATE

    @staticmethod
    def is_matchable(t) -> bool:
        return isinstance(t, T.Bits) or t in (T.BOOL, T.ERROR) or isinstance(t, T.Enum)

    def check_keyset(self, keyset: list, exprs: list, ctx: Ctx, pos, what: str) -> None:
        """One keyset element per expression; `default`/`_` alone cover everything, and a
        value_set of a struct covers a tuple of expressions field by field (spec 12.11)."""
        if len(keyset) == 1 and isinstance(keyset[0], (A.DefaultExpr, A.DontCareExpr)):
            keyset[0].type = T.DONTCARE
            return
        if len(keyset) == 1 and len(exprs) > 1 and isinstance(keyset[0], A.PathExpr):
            vs = keyset[0].decl
            if isinstance(vs, A.ValueSetDecl) and vs.p4type is None:
                raise Abandon()           # its declaration failed: reported there
            if isinstance(vs, A.ValueSetDecl) and isinstance(vs.p4type.element, T.Struct):
                have = list(vs.p4type.element.fields.values())
                if have != [e.type for e in exprs]:
                    self.err(keyset[0].pos, f"value_set '{vs.name}' has fields of types "
                                            f"{', '.join(map(str, have))}; the {what} has "
                                            f"{', '.join(str(e.type) for e in exprs)}")
                keyset[0].decl, keyset[0].type = vs, vs.p4type
                return
        if len(keyset) != len(exprs):
            self.err(pos, f"keyset has {len(keyset)} elements but the {what} has {len(exprs)}")
        for k, e in zip(keyset, exprs):
            self.check_keyset_element(k, e.type, ctx)

    def check_keyset_element(self, k: A.Expr, t: T.P4Type, ctx: Ctx) -> None:
        if isinstance(k, (A.DefaultExpr, A.DontCareExpr)):
            k.type = T.DONTCARE
            return
        if isinstance(k, A.MaskExpr):
            for part in (k.value, k.mask):
                self.check_expr(part, ctx, expected=t)
                # an int mask (or value) of a serializable enum is a value of its
                # underlying type (p4c accepts `E.A &&& 0xF`)
                want = t.underlying if (isinstance(t, T.Enum) and t.underlying is not None
                                        and part.type == T.INT) else t
                self.coerce(part, want, ctx, "keyset mask")
                self.require_constant(part, "a mask keyset")
            k.type = T.SetType(t)
            return
        if isinstance(k, A.RangeExpr):
            for part in (k.lo, k.hi):
                self.check_expr(part, ctx, expected=t)
                self.coerce(part, t, ctx, "keyset range")
                self.require_constant(part, "a range keyset")
            k.type = T.SetType(t)
            return
        if isinstance(k, A.PathExpr):
            d = k.decl
            if isinstance(d, A.ValueSetDecl) and d.p4type is None:
                raise Abandon()           # its declaration failed: reported there
            if isinstance(d, A.ValueSetDecl):
                k.decl = d
                k.type = d.p4type
                elem = d.p4type.element
                if isinstance(elem, T.Struct) and list(elem.fields.values()) == [t]:
                    return                 # a one-field struct matches one expression
                if elem != t:
                    self.err(k.pos, f"value_set '{d.name}' has elements of type "
                                    f"{d.p4type.element}, the select expression is {t}")
                return
        self.check_expr(k, ctx, expected=t)
        self.coerce(k, t, ctx, "keyset value")
        self.require_constant(k, "a keyset")

    def require_constant(self, e: A.Expr, where: str) -> None:
        if e.folded is None and not self.is_constant_member(e):
            self.err(e.pos, f"{where} must be a compile-time constant")

    # ------------------------------------------------------------ controls
    def check_control(self, d: A.ControlDecl, ctx: Ctx) -> None:
        t = T.ControlType(d.name, d)
        d.p4type = t
        if d.type_params:
            self.refuse(d.pos, f"generic control '{d.name}'")
        if d.ctor_params and not d.inlined_only:
            self.diags.error(d.ctor_params[0].pos, f"control '{d.name}' with constructor "
                                                   f"parameters is not supported")
        cctx = ctx.child("control", control=d)
        if d.ctor_params and d.inlined_only:
            # its instances were inlined with their arguments; the declaration itself is
            # checked with the parameters as values of their types
            self.param_list(d.ctor_params, cctx)
        t.params = self.param_list(d.params, cctx)
        # directionless parameters (spec 6.8: compile-time values, extern instances) are
        # substituted where the control is inlined; a control given to the package with
        # one does not match the architecture's control type, which has directions
        for loc in d.locals:
            self.guarded(self.check_local, loc, cctx)
        actx = cctx.child("apply")
        for st in d.body.stmts:
            self.guarded(self.check_stmt, st, actx)

    def check_local(self, loc, ctx: Ctx) -> None:
        if isinstance(loc, A.ActionDecl):
            self.check_action(loc, ctx)
        elif isinstance(loc, A.TableDecl):
            self.check_table(loc, ctx)
        elif isinstance(loc, A.VarDecl):
            self.check_var(loc, ctx)
            return
        elif isinstance(loc, A.ConstDecl):
            self.check_const(loc, ctx)
        elif isinstance(loc, A.Instantiation):
            self.check_instantiation(loc, ctx)
        elif isinstance(loc, A.ValueSetDecl):
            et = self.resolve_type(loc.element, ctx)
            if not self.is_matchable(et) and not isinstance(et, T.Struct):
                self.err(loc.pos, f"value_set element type {et} is not a bit<W> type")
            loc.p4type = T.SetType(et)
            self.const_int(loc.size, ctx, "a value_set size")
            if ctx.kind != "parser":
                self.err(loc.pos, "value_set can only be declared in a parser")
        else:
            self.refuse(loc.pos, f"local declaration '{type(loc).__name__}'")

    def check_var(self, d: A.VarDecl, ctx: Ctx) -> None:
        d.p4type = T.UNKNOWN              # uses of a variable that fails stop quietly
        if isinstance(d.type_ref, A.InferredTypeRef):
            # a temporary of the front end: typed by its initialiser (or a model)
            model = d.init if d.init is not None else d.type_ref.like
            d.type_ref.resolved = self.check_expr(model, ctx)
        t = self.resolve_type(d.type_ref, ctx)
        d.p4type = t
        if t in (T.VOID, T.STRING, T.INT, T.MATCH_KIND) or isinstance(
                t, (T.Extern, T.Specialized, T.ParserType)):
            d.p4type = T.UNKNOWN
            self.err(d.pos, f"variable '{d.name}' cannot have type {t}")
        if d.init is not None:
            self.check_expr(d.init, ctx, expected=t)
            self.coerce(d.init, t, ctx, f"initializer of '{d.name}'")

    def check_action(self, d: A.ActionDecl, ctx: Ctx) -> None:
        d.control = ctx.control
        actx = ctx.child("action", action=d)
        params = self.param_list(d.params, actx)
        seen_data = False
        for p in d.params:
            if p.direction == "":
                seen_data = True
            elif seen_data:
                self.diags.error(p.pos, f"action '{d.name}': directional parameter '{p.name}' "
                                        f"must come before the action data parameters")
        d.signature = T.Method(d.name, [], params, T.VOID, d)
        for st in d.body.stmts:
            self.guarded(self.check_stmt, st, actx)

    def check_function(self, d: A.FunctionDecl, ctx: Ctx) -> None:
        """The declaration of an inlined function (spec 10.x): its calls were inlined and are
        checked where they are; checking the body here too reports its errors even when it
        is never called (as p4c does) and types the declaration for the mid end's readers."""
        rt = self.resolve_type(d.return_type, ctx)
        fctx = ctx.child("function", function=(d, rt))
        d.signature = T.Method(d.name, [], self.param_list(d.params, fctx), rt, d)
        for st in d.body.stmts:
            self.guarded(self.check_stmt, st, fctx)

    def check_function_return(self, s: A.ReturnStmt, ctx: Ctx) -> None:
        d, rt = ctx.function
        if rt is T.VOID:
            if s.value is not None:
                self.err(s.pos, f"function '{d.name}' returns void; return takes no value")
            return
        if s.value is None:
            self.err(s.pos, f"function '{d.name}' must return a value of type {rt}")
        self.check_expr(s.value, ctx, expected=rt)
        self.coerce(s.value, rt, ctx, f"return value of function '{d.name}'")
