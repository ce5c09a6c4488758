"""Tables (P4_16 spec 14.2): properties, keys and match kinds, the actions list with bound
arguments, default actions, entries with their priorities (entry_priorities.py), direct
counters and meters, action profiles and selectors."""
from __future__ import annotations

import copy

from .. import ast as A
from .. import types as T
from ..entry_priorities import check_entry_priorities
from ..scopes import Abandon, did_you_mean
from ..p4text import p4_text
from .base import TABLE_PROPERTIES, Ctx, TypingBase, expr_text, report_pos, value_type


def unnamed_key_part(e):
    """The part of a key expression that p4c's TableKeyNames cannot name, or None: a key
    without @name is named after its text, which p4c builds only from names, members, array
    indices, constants, slices, `&` and isValid() (frontends/p4/tableKeyNames.cpp); anything
    else (an arithmetic result, a cast, a concatenation) needs an explicit @name. The first
    such part in p4c's order (children first, left to right)."""
    named: dict = {}                 # id -> the part has a name
    stack = [(e, False)]
    while stack:
        n, children_done = stack.pop()
        if not children_done:
            stack.append((n, True))
            stack.extend((c, False) for c in reversed(A.children(n)) if isinstance(c, A.Expr))
            continue
        if isinstance(n, (A.PathExpr, A.IntLit)):
            named[id(n)] = True
        elif isinstance(n, (A.MemberExpr, A.SliceExpr, A.Argument)):
            named[id(n)] = named.get(id(n.expr), False)
        elif isinstance(n, A.IndexExpr):
            named[id(n)] = named.get(id(n.expr), False) and named.get(id(n.index), False)
        elif isinstance(n, A.BinaryExpr) and n.op == "&":
            named[id(n)] = named.get(id(n.left), False) and named.get(id(n.right), False)
        elif isinstance(n, A.MethodCallExpr) and n.builtin == "isValid" and not n.args:
            named[id(n)] = named.get(id(n.callee), False)
        else:
            return n
    return None


class TableTyping(TypingBase):
    """Tables and the actions they name."""

    # ---- tables
    def check_table(self, d: A.TableDecl, ctx: Ctx) -> None:
        d.control = ctx.control
        d.p4type = T.Table(d.name, d)
        seen = set()
        for p in d.properties:
            if p.name in seen:
                self.diags.error(p.pos, f"table '{d.name}': property '{p.name}' appears twice")
            seen.add(p.name)
            if p.name not in TABLE_PROPERTIES:
                # p4c warns and ignores it (testdata junk-prop-bmv2.p4)
                self.warn(p.pos, f"table '{d.name}': unknown table property '{p.name}' is "
                                 f"ignored" + did_you_mean(p.name, TABLE_PROPERTIES))
                continue
        actions_prop = d.prop("actions")
        if actions_prop is None:
            self.diags.error(d.pos, f"table '{d.name}' has no 'actions' property")
        listed = {}
        if actions_prop is not None:
            for ar in actions_prop.actions:
                a = self.guarded(self.resolve_action_ref, ar, ctx, d)
                if a is None:
                    continue
                directional = [p for p in a.params if p.direction]
                if ar.prelude:
                    # computations of bound arguments with function calls
                    # (inline_functions.py): statements in the control's scope
                    pctx = ctx.child("apply")
                    for st in ar.prelude:
                        self.guarded(self.check_stmt, st, pctx)
                if ar.args or directional:
                    self.guarded(self.check_bound_args, ar, a, d, ctx)
                for p in a.params:
                    if p.direction:
                        continue
                    elif not (isinstance(value_type(p.p4type), T.Bits)
                              or p.p4type == T.BOOL):
                        self.diags.error(p.pos, f"action data parameter '{p.name}' of "
                                                f"'{a.name}' has type {p.p4type}; the control "
                                                f"plane supplies only bit<W>, int<W> and bool")
                if a.name in listed:
                    self.diags.error(ar.pos, f"table '{d.name}': action '{a.name}' is listed "
                                             f"twice")
                listed[a.name] = a
        for p in d.properties:
            if p.name == "key":
                self.guarded(self.check_key, d, p, ctx)
            elif p.name == "default_action":
                self.guarded(self.check_default_action, d, p, listed, ctx)
            elif p.name == "entries":
                self.guarded(self.check_entries, d, p, listed, ctx)
            elif p.name in ("size",):
                self.guarded(self.const_int, p.value, ctx, f"table '{d.name}': size")
                if p.value.folded is not None and p.value.folded < 0:
                    self.diags.error(p.pos, f"table '{d.name}': size must not be negative")
            elif p.name == "implementation":
                self.guarded(self.check_implementation, d, p, ctx)
            elif p.name in ("counters", "meters"):
                self.guarded(self.check_direct_resource, d, p, ctx)
            elif p.name in ("support_timeout", "idle_timeout_with_auto_delete",
                            "largest_priority_wins"):
                self.guarded(self.check_bool_property, d, p, ctx)
            elif p.name == "priority_delta":
                self.guarded(self.const_int, p.value, ctx, f"table '{d.name}': priority_delta")
                if isinstance(p.value.folded, int) and p.value.folded <= 0:
                    self.diags.error(p.pos, f"table '{d.name}': priority_delta must be positive")

    def resolve_action_ref(self, ar: A.ActionRef, ctx: Ctx, table) -> A.ActionDecl:
        a = self.resolved(ar.name)
        if not isinstance(a, A.ActionDecl):
            self.err(ar.name.pos, f"table '{table.name}': '{ar.name.name}' is not an action")
        if a.signature is None:
            raise Abandon()          # the action itself failed to check: already reported
        ar.action = a
        ar.name.decl = a
        ar.name.type = a.signature
        return a

    def check_key(self, d: A.TableDecl, p: A.KeyProperty, ctx: Ctx) -> None:
        lpm = 0
        for k in p.elements:
            try:
                self.check_expr(k.expr, ctx)
                if not self.is_matchable(k.expr.type):
                    self.err(k.expr.pos, f"table '{d.name}': key of type {k.expr.type} cannot "
                                         f"be matched")
                if k.expr.type == T.INT:
                    self.err(k.expr.pos, f"table '{d.name}': key has no fixed width")
                if k.match_kind not in self.match_kinds:
                    self.err(k.match_kind_pos or k.pos, f"unknown match kind '{k.match_kind}'"
                             + did_you_mean(k.match_kind, self.match_kinds))
                if k.match_kind in ("lpm", "range") and not isinstance(
                        value_type(k.expr.type), T.Bits):
                    article = "an" if k.match_kind == "lpm" else "a"
                    self.err(k.expr.pos, f"table '{d.name}': {article} {k.match_kind} key must "
                                         f"be bit<W>, not {k.expr.type}")
                if k.match_kind == "lpm":
                    lpm += 1
                    if lpm > 1:
                        self.err(k.pos, f"table '{d.name}' has more than one lpm key")
                if A.name_annotation(k) is None:
                    complex_part = unnamed_key_part(k.expr)
                    if complex_part is not None:
                        self.err(report_pos(complex_part), f"{p4_text(complex_part)}: Complex key "
                                                          f"expression requires a @name "
                                                          f"annotation")
            except Abandon:
                pass

    def check_bound_args(self, ar: A.ActionRef, a: A.ActionDecl, table, ctx) -> None:
        """`actions = { a(hdr.x); }` (spec 14.2.1.2): the actions list binds the action's
        directional parameters, in order; the control plane supplies the rest."""
        directional = [p for p in a.params if p.direction]
        if len(ar.args) != len(directional):
            self.err(ar.pos, f"table '{table.name}': action '{a.name}' has "
                             f"{len(directional)} directional parameter(s) "
                             f"({', '.join(p.name for p in directional) or 'none'}), which the "
                             f"actions list must bind; {len(ar.args)} argument(s) given")
        self.check_directional_args(ar.args, directional, a, ctx)

    def check_directional_args(self, args, params, a: A.ActionDecl, ctx) -> None:
        for arg, p in zip(args, params):
            self.check_expr(arg, ctx, expected=p.p4type)
            if p.direction in ("out", "inout"):
                self.check_writable(arg, ctx)
                if arg.type != p.p4type:
                    self.err(arg.pos, f"argument '{p.name}' of action '{a.name}' has type "
                                      f"{arg.type}, expected {p.p4type}")
            else:
                self.coerce(arg, p.p4type, ctx, f"argument '{p.name}' of action '{a.name}'")

    def check_action_args(self, ar: A.ActionRef, a: A.ActionDecl, table, ctx, what: str,
                          constant: bool) -> None:
        data = [p for p in a.params if p.direction == ""]
        directional = [p for p in a.params if p.direction]
        if directional and ar.has_parens and len(ar.args) == len(a.params):
            # spec 14.2.1.3: a default or entry action repeats the bound arguments first
            self.check_directional_args(ar.args[:len(directional)], directional, a, ctx)
            ar = copy.copy(ar)
            ar.args = ar.args[len(directional):]
        if not ar.has_parens and data:
            self.err(ar.pos, f"table '{table.name}': {what} '{a.name}' needs arguments for "
                             f"its parameters ({', '.join(p.name for p in data)})")
        if len(ar.args) != len(data):
            self.err(ar.pos, f"table '{table.name}': {what} '{a.name}' takes {len(data)} "
                             f"arguments, {len(ar.args)} given")
        for arg, p in zip(ar.args, data):
            self.check_expr(arg, ctx, expected=p.p4type)
            self.coerce(arg, p.p4type, ctx, f"argument '{p.name}' of action '{a.name}'")
            if constant:
                self.require_constant(arg, f"argument '{p.name}' of {what} '{a.name}'")

    @staticmethod
    def listed_with(d: A.TableDecl, action: A.ActionDecl, annotation: str) -> bool:
        """The table's actions list names `action` with @annotation (spec 14.2.1.2:
        @defaultonly, @tableonly)."""
        return any(ar.action is action and A.annotation(ar, annotation) is not None
                   for ar in d.actions)

    def check_default_action(self, d: A.TableDecl, p: A.DefaultActionProperty, listed,
                             ctx: Ctx) -> None:
        ar = p.action
        a = self.resolve_action_ref(ar, ctx, d)
        if listed and a.name not in listed:
            self.err(ar.pos, f"table '{d.name}': default action '{a.name}' is not in the "
                             f"table's actions list")
        if self.listed_with(d, a, "tableonly"):
            self.err(p.pos, "default_action: Action marked with tableonly used as default "
                            "action")
        self.check_action_args(ar, a, d, ctx, "default action", constant=False)

    def check_entries(self, d: A.TableDecl, p: A.EntriesProperty, listed, ctx: Ctx) -> None:
        # `entries` without const (spec 14.2.1.4: initial entries the control plane may
        # change) are written into the JSON exactly as const ones: BMv2 has no flag for it
        keys = d.key
        if not keys:
            self.err(p.pos, f"table '{d.name}' has entries but no key")
        for e in p.entries:
            if (len(keys) == 1 and len(e.keyset) == 1 and isinstance(e.keyset[0], A.ListExpr)
                    and len(e.keyset[0].items) == 1):
                # `{ v }` for a one-field key: a one-element list is its element (p4c
                # accepts it, its action-two-params sample)
                e.keyset = [e.keyset[0].items[0]]
            try:
                self.check_keyset(e.keyset, [k.expr for k in keys], ctx, e.pos, "table key")
                if len(e.keyset) == len(keys):
                    for k, ks in zip(keys, e.keyset):
                        self.check_entry_key(d, k, ks)
                a = self.resolve_action_ref(e.action, ctx, d)
                if a.name not in listed:
                    self.err(e.action.pos, f"table '{d.name}': entry action '{a.name}' is not "
                                           f"in the table's actions list")
                if self.listed_with(d, a, "defaultonly"):
                    self.err(e.pos, "Entry: Action marked with defaultonly used in table")
                self.check_action_args(e.action, a, d, ctx, "entry action", constant=True)
                if e.priority is not None:
                    self.const_int(e.priority, ctx, "an entry priority")
            except Abandon:
                pass
        if all(e.priority is None or isinstance(e.priority.folded, int) for e in p.entries):
            largest, delta = self.priority_properties(d, ctx)
            check_entry_priorities(d, p, largest_wins=largest, delta=delta,
                                   error=self.diags.error, warn=self.warn)

    def priority_properties(self, d: A.TableDecl, ctx: Ctx) -> tuple:
        """(largest_priority_wins, priority_delta) of a table, defaults true and 1."""
        largest, delta = d.prop("largest_priority_wins"), d.prop("priority_delta")
        if largest is not None:
            self.guarded(self.check_bool_property, d, largest, ctx)
        if delta is not None:
            self.guarded(self.const_int, delta.value, ctx, f"table '{d.name}': priority_delta")
        wins = largest.value.folded if largest is not None else True
        step = delta.value.folded if delta is not None else 1
        return (wins if isinstance(wins, bool) else True,
                step if isinstance(step, int) and step > 0 else 1)

    def check_entry_key(self, d: A.TableDecl, k: A.KeyElement, ks: A.Expr) -> None:
        """What an entry may say for each match kind (spec 14.2.1.4 and BMv2's match types):
        exact and optional take values (optional also `_`), lpm a value, a prefix mask or
        `_`, ternary a value, any mask or `_`, range a value, a range or `_`."""
        mk = k.match_kind
        key = expr_text(k.expr)
        if isinstance(ks, (A.DontCareExpr, A.DefaultExpr)):
            if mk == "exact":
                self.err(ks.pos, f"table '{d.name}': '_' is not allowed for the exact key {key}")
            return
        if isinstance(ks, A.MaskExpr):
            if mk not in ("ternary", "lpm"):
                self.err(ks.pos, f"table '{d.name}': a mask is not allowed for the {mk} key "
                                 f"{key}")
            if mk == "lpm" and isinstance(ks.mask.folded, int):
                width = k.expr.type.width_bits or 0
                m = ks.mask.folded & ((1 << width) - 1)
                ones = bin(m).count("1")
                if m != ((1 << width) - 1) ^ ((1 << (width - ones)) - 1):
                    self.err(ks.mask.pos, f"table '{d.name}': mask {ks.mask.folded:#x} of the "
                                          f"lpm key {key} is not a prefix")
        elif isinstance(ks, A.RangeExpr) and mk != "range":
            self.err(ks.pos, f"table '{d.name}': a range is not allowed for the {mk} key {key}")

    def check_direct_resource(self, d: A.TableDecl, p: A.ExprProperty, ctx: Ctx) -> None:
        v = p.value
        if (p.name == "counters" and isinstance(v, A.MethodCallExpr)
                and isinstance(v.callee, A.PathExpr) and v.callee.name == "direct_counter"
                and isinstance(self.top.get("direct_counter"), A.ExternDecl)):
            # `counters = direct_counter(CounterType.packets)`: an anonymous direct counter
            # of this table (p4c names it after the property, "counter" without @name)
            if len(v.args) != 1:
                self.err(v.pos, f"table '{d.name}': direct_counter takes 1 argument, "
                                f"{len(v.args)} given")
            arg = v.args[0].expr if isinstance(v.args[0], A.Argument) else v.args[0]
            self.check_expr(arg, ctx)
            if getattr(arg.type, "name", None) != "CounterType":
                self.err(arg.pos, f"table '{d.name}': direct_counter takes a CounterType")
            v.kind = "constructor"
            v.type = T.VOID
            v.callee.type = T.VOID
            v.callee.decl = self.top.get("direct_counter")
            return
        self.check_expr(p.value, ctx)
        want = "direct_counter" if p.name == "counters" else "direct_meter"
        inst = p.value.decl if isinstance(p.value, A.PathExpr) else None
        if not isinstance(inst, A.Instantiation) or \
                T.strip_specialization(inst.p4type).name != want:
            self.err(p.value.pos, f"table '{d.name}': '{p.name}' must name a {want} instance")

    @staticmethod
    def implementation_kind(d: A.TableDecl):
        """"action_profile" / "action_selector" when the table has such an implementation."""
        p = d.prop("implementation")
        v = getattr(p, "value", None)
        if isinstance(v, A.PathExpr):
            inst = v.decl
            if not isinstance(inst, A.Instantiation):
                return None
            t = inst.type_ref
            return t.name if isinstance(t, A.NamedTypeRef) else None
        if isinstance(v, A.MethodCallExpr) and isinstance(v.callee, A.PathExpr):
            return v.callee.name
        return None

    IMPLEMENTATION_ARGS = {"action_profile": 1, "action_selector": 3}

    def check_implementation(self, d: A.TableDecl, p: A.ExprProperty, ctx: Ctx) -> None:
        """`implementation = ap;` naming a v1model action_profile/action_selector instance,
        or `implementation = action_profile(size)` / `action_selector(algo, size, width)`."""
        v = p.value
        what = f"table '{d.name}': 'implementation'"
        if isinstance(v, A.PathExpr):
            self.check_expr(v, ctx)
            if self.implementation_kind(d) not in self.IMPLEMENTATION_ARGS:
                self.err(v.pos, f"{what} must name an action_profile or action_selector "
                                f"instance")
            return
        kind = self.implementation_kind(d)
        if kind not in self.IMPLEMENTATION_ARGS:
            self.err(getattr(v, "pos", p.pos), f"{what} must be an action_profile or "
                                               f"action_selector")
        if len(v.args) != self.IMPLEMENTATION_ARGS[kind]:
            n = self.IMPLEMENTATION_ARGS[kind]
            self.err(v.pos, f"{what}: {kind} takes {n} argument{'s' if n > 1 else ''}, "
                            f"{len(v.args)} given")
        args = [a.expr if isinstance(a, A.Argument) else a for a in v.args]
        if kind == "action_selector":
            self.check_expr(args[0], ctx)
            if getattr(args[0].type, "name", None) != "HashAlgorithm":
                self.err(args[0].pos, f"{what}: the first argument is a HashAlgorithm")
            args = args[1:]
        for a in args:
            self.const_int(a, ctx, f"an {kind} size")
        v.kind = "constructor"
        v.type = T.VOID
        v.callee.type = T.VOID
        v.callee.decl = self.top.get(kind)

    def check_bool_property(self, d, p, ctx: Ctx) -> None:
        self.check_expr(p.value, ctx)
        if p.value.type != T.BOOL or p.value.folded is None:
            self.err(p.value.pos, f"table '{d.name}': '{p.name}' must be true or false")
