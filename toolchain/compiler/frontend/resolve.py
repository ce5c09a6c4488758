"""Name resolution: every name written in the program -> the declaration it means (p4c's
ResolveReferences).

P4 requires declaration before use (spec 6.4), except that parser states may name states
declared later in the same parser; a declaration is not visible inside itself where p4c's
lookup skips it (an action calling `hash(...)` inside `action hash()` calls v1model's hash).
The pass walks the declarations in order, building the scopes as it goes, and sets:

 * `PathExpr.decl` for every name used as a value, a callee, a table's action, a parser
   state (the builtin accept/reject states included) or a value set in a keyset;
 * `NamedTypeRef.decl` for every type name (None for the type variables of generic
   declarations, which the type checker binds);
 * `Program.scope` (top-level name -> declaration; overloaded extern functions map to a list
   of MethodDecl), `Program.errors` (error names, numbered in declaration order: `.code`) and
   `Program.match_kinds`.

It reports names that are declared twice or never, each where it is written. Names that only
a type gives meaning to (fields, methods, enum and error members, the labels of a switch on
`action_run`) are the type checker's (`typecheck/`), which reads what this pass found. The
walk visits what the type checker checks, in its order, and stops a statement at its first
error as the type checker would, so the two passes report a program's errors as one would.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..diagnostics import Diagnostics, Pos
from . import ast as A
from .scopes import Abandon, Scope, did_you_mean, prev_pos


@dataclass
class _Where:
    """The scope a name is looked up in and what encloses it (kinds as the type checker's:
    "top", "parser", "state", "control", "apply", "action", "function")."""
    kind: str
    scope: Scope
    action: Optional[A.ActionDecl] = None
    in_function: bool = False

    def child(self, kind: Optional[str] = None, **kw) -> "_Where":
        w = _Where(kind or self.kind, Scope(self.scope), self.action, self.in_function)
        for k, v in kw.items():
            setattr(w, k, v)
        return w


class NameResolver:
    def __init__(self, program: A.Program, diags: Diagnostics):
        self.program = program
        self.diags = diags
        self.top = Scope()
        self.error_decl: Optional[A.ErrorDecl] = None
        self.match_kind_decl: Optional[A.MatchKindDecl] = None
        self.errors: list = []           # error names in declaration order
        self.error_members: dict = {}    # name -> ErrorMember
        self.match_kinds: dict = {}      # name -> MatchKindMember
        self.type_params: list = []      # stack of sets of type variable names
        self.declaring: list = []        # the type declarations being resolved, outermost first
        self.accept_state = A.ParserState(Pos("<builtin>", 0, 0), "accept", [], None, True)
        self.reject_state = A.ParserState(Pos("<builtin>", 0, 0), "reject", [], None, True)

    # ------------------------------------------------------------ reporting
    def err(self, pos, msg: str):
        self.diags.error(pos, msg)
        raise Abandon()

    def guarded(self, fn, *args):
        try:
            return fn(*args)
        except Abandon:
            return None

    # ------------------------------------------------------------ program
    def run(self) -> None:
        where = _Where("top", self.top)
        for d in self.program.decls:
            self.guarded(self.declare_top, d, where)
        self.annotation_names(where)
        self.program.errors = list(self.errors)
        self.program.match_kinds = set(self.match_kinds)
        self.program.scope = self.top.names

    def annotation_names(self, where: _Where) -> None:
        """@field_list(...) arguments name constants or serializable enum members (p4c's
        issue1001-1-bmv2 sample), seen from the top level once every declaration is in."""
        for n in self.program.all_annotations:
            if isinstance(n, A.Annotation) and n.name == "field_list":
                for a in list(n.args) + list(n.kv.values()):
                    self.guarded(self.expr, a, where)

    def define(self, scope: Scope, name: str, decl, pos) -> None:
        prev = scope.local(name)
        if prev is not None:
            if isinstance(decl, A.MethodDecl) and decl.is_function and isinstance(prev, list):
                prev.append(decl)
                return
            self.err(pos, f"'{name}' is already declared (at {prev_pos(prev)})")
        scope.names[name] = [decl] if isinstance(decl, A.MethodDecl) and decl.is_function else decl

    def declare_top(self, d, w: _Where) -> None:
        if isinstance(d, A.ErrorDecl):
            return self.declare_errors(d)
        if isinstance(d, A.MatchKindDecl):
            return self.declare_match_kinds(d)
        if isinstance(d, (A.ConstDecl, A.TypedefDecl, A.ActionDecl, A.MethodDecl,
                          A.ParserTypeDecl, A.ControlTypeDecl, A.PackageTypeDecl,
                          A.HeaderDecl, A.StructDecl, A.HeaderUnionDecl, A.EnumDecl,
                          A.ExternDecl, A.ParserDecl, A.ControlDecl, A.Instantiation,
                          A.FunctionDecl)):
            # declared before its own body is resolved: a use inside it finds it (a control
            # instantiating itself is refused by the checker, not reported as undeclared)
            self.define(self.top, d.name, d, d.pos)
        self.declaring.append(d)
        try:
            self.declaration(d, w)
        finally:
            self.declaring.pop()

    def declaration(self, d, w: _Where) -> None:
        if isinstance(d, A.ConstDecl):
            self.const(d, w)
        elif isinstance(d, A.TypedefDecl):
            self.type_ref(d.type_ref, w)
        elif isinstance(d, (A.HeaderDecl, A.StructDecl, A.HeaderUnionDecl)):
            if not d.type_params:              # generic ones are refused by the checker
                for f in d.fields:
                    self.guarded(self.type_ref, f.type_ref, w)
        elif isinstance(d, A.EnumDecl):
            self.enum(d, w)
        elif isinstance(d, A.ExternDecl):
            self.extern(d, w)
        elif isinstance(d, A.MethodDecl):
            self.method_signature(d, w)
        elif isinstance(d, (A.ParserTypeDecl, A.ControlTypeDecl, A.PackageTypeDecl)):
            with _TypeParams(self, d.type_params):
                self.params(d.params, w)
        elif isinstance(d, A.ParserDecl):
            self.parser(d, w)
        elif isinstance(d, A.ControlDecl):
            self.control(d, w)
        elif isinstance(d, A.ActionDecl):
            self.action(d, w)
        elif isinstance(d, A.Instantiation):
            self.instantiation(d, w)
        elif isinstance(d, A.FunctionDecl) and d.inlined:
            self.function(d, w)                # generic functions are refused by the checker

    def declare_errors(self, d: A.ErrorDecl) -> None:
        if self.error_decl is None:
            self.error_decl = d
            self.top.names["error"] = d
        members = self.error_members
        for m in d.members:
            if m.name in members:
                self.diags.error(m.pos, f"error.{m.name} is already declared")
                continue
            m.code = len(self.errors)          # errors are numbered in declaration order
            self.errors.append(m.name)
            members[m.name] = m

    def declare_match_kinds(self, d: A.MatchKindDecl) -> None:
        if self.match_kind_decl is None:
            self.match_kind_decl = d
            self.top.names["match_kind"] = d
        kinds = self.match_kinds
        for m in d.members:
            if m.name in kinds:
                self.diags.error(m.pos, f"match_kind {m.name} is already declared")
                continue
            kinds[m.name] = m
            # match kinds are also plain names (`exact` in a key)
            self.top.names.setdefault(m.name, m)

    # ------------------------------------------------------------ types
    def type_ref(self, r: A.TypeRef, w: _Where) -> None:
        if isinstance(r, (A.BitsTypeRef, A.VarbitTypeRef)):
            if r.width is not None:
                self.expr(r.width, w)
        elif isinstance(r, A.StackTypeRef):
            self.type_ref(r.element, w)
            self.expr(r.size, w)
        elif isinstance(r, A.TupleTypeRef):
            for e in r.elements:
                self.type_ref(e, w)
        elif isinstance(r, A.NamedTypeRef):
            self.named_type(r, w)

    def named_type(self, r: A.NamedTypeRef, w: _Where) -> None:
        if not r.is_global and any(r.name in frame for frame in self.type_params):
            return                             # a type variable: the checker binds it
        d = (self.top if r.is_global else w.scope).lookup(r.name)
        if d is None:
            self.err(r.pos, f"unknown type '{r.name}'")
        if d in self.declaring and isinstance(d, SELF_REFERABLE):
            # a struct holding itself, a control instantiating itself: p4c's
            # ResolveReferences refuses a type named inside its own declaration
            self.err(r.pos, f"'{r.name}' names the {_kind(d)} being declared: "
                            f"self-referencing types are not supported")
        r.decl = d
        for a in r.args:
            self.type_ref(a, w)

    def params(self, params: list, w: _Where) -> None:
        for p in params:
            self.type_ref(p.type_ref, w)
            if p.default is not None:
                self.expr(p.default, w)

    def define_params(self, params: list, w: _Where) -> None:
        self.params(params, w)
        self.define_names(params, w)

    def define_names(self, params: list, w: _Where) -> None:
        for p in params:
            self.define(w.scope, p.name, p, p.pos)

    # ------------------------------------------------------------ declarations
    def const(self, d: A.ConstDecl, w: _Where) -> None:
        self.type_ref(d.type_ref, w)
        self.expr(d.value, w)

    def enum(self, d: A.EnumDecl, w: _Where) -> None:
        if d.underlying is None:
            return                             # a plain enum's members have no values
        self.type_ref(d.underlying, w)
        for m in d.members:
            if m.init is not None:
                self.guarded(self.expr, m.init, w)

    def extern(self, d: A.ExternDecl, w: _Where) -> None:
        with _TypeParams(self, d.type_params):
            for m in d.methods:
                self.guarded(self.method_signature, m, w)

    def method_signature(self, m: A.MethodDecl, w: _Where) -> None:
        with _TypeParams(self, m.type_params):
            self.params(m.params, w)
            if m.return_type is not None:
                self.type_ref(m.return_type, w)

    def instantiation(self, d: A.Instantiation, w: _Where) -> None:
        self.type_ref(d.type_ref, w)
        if isinstance(getattr(d.type_ref, "decl", None), A.PackageTypeDecl):
            self.package_args(d, w)
            return
        for a in d.args:
            self.expr(a, w)

    def package_args(self, d: A.Instantiation, w: _Where) -> None:
        """`V1Switch(P(), ...)`: each argument names a parser or control; the checker says
        what is wrong with one that does not (it may be undeclared)."""
        for a in d.args:
            a = a.expr if isinstance(a, A.Argument) else a
            if isinstance(a, A.MethodCallExpr) and isinstance(a.callee, A.PathExpr):
                a.callee.decl = w.scope.lookup(a.callee.name)

    # ------------------------------------------------------------ parsers
    def parser(self, d: A.ParserDecl, w: _Where) -> None:
        if d.type_params:
            return                             # refused by the checker
        pw = w.child("parser")
        self.define_names(d.ctor_params, pw)      # refused by the checker, but declared
        self.define_params(d.params, pw)
        for loc in d.locals:
            self.guarded(self.local, loc, pw)
        states = self.parser_states(d, pw)
        sscope = Scope(pw.scope)
        sscope.names.update(states)
        sscope.names["accept"] = self.accept_state
        sscope.names["reject"] = self.reject_state
        for s in d.states:
            sw = _Where("state", Scope(sscope), pw.action, pw.in_function)
            for st in s.stmts:
                self.guarded(self.stmt, st, sw)
            self.guarded(self.transition, s, sw)

    def parser_states(self, d: A.ParserDecl, pw: _Where) -> dict:
        """The parser's states by name: visible in all of its states (spec 12.x)."""
        states: dict = {}
        for s in d.states:
            if s.name in ("accept", "reject"):
                self.diags.error(s.pos, f"state '{s.name}' is predefined and cannot be declared")
                continue
            if s.name in states:
                self.diags.error(s.pos, f"state '{s.name}' is already declared")
                continue
            states[s.name] = s
            if pw.scope.local(s.name) is not None:
                self.diags.error(s.pos, f"'{s.name}' is already declared")
        if "start" not in states:
            self.diags.error(d.pos, f"parser '{d.name}' has no 'start' state")
        return states

    def transition(self, s: A.ParserState, w: _Where) -> None:
        tr = s.transition
        if isinstance(tr, A.PathExpr):
            self.state_ref(tr, w)
            return
        for e in tr.exprs:
            self.expr(e, w)
        for case in tr.cases:
            self.guarded(self.keyset, case.keyset, tr.exprs, w)
            self.guarded(self.state_ref, case.state, w)

    def state_ref(self, p: A.PathExpr, w: _Where) -> None:
        d = w.scope.lookup(p.name)
        if not isinstance(d, A.ParserState):
            self.err(p.pos, f"unknown parser state '{p.name}'")
        p.decl = d

    def keyset(self, keyset: list, exprs: list, w: _Where) -> None:
        if len(keyset) == 1 and isinstance(keyset[0], (A.DefaultExpr, A.DontCareExpr)):
            return
        if len(keyset) == 1 and len(exprs) > 1 and isinstance(keyset[0], A.PathExpr):
            # a value_set of a struct covers a tuple of expressions (spec 12.11); anything
            # else there is a keyset of the wrong size, which the checker reports
            keyset[0].decl = w.scope.lookup(keyset[0].name)
            return
        if len(keyset) != len(exprs):
            return                             # the checker reports the size
        for k in keyset:
            self.keyset_element(k, w)

    def keyset_element(self, k: A.Expr, w: _Where) -> None:
        if isinstance(k, (A.DefaultExpr, A.DontCareExpr)):
            return
        if isinstance(k, A.MaskExpr):
            self.expr(k.value, w)
            self.expr(k.mask, w)
        elif isinstance(k, A.RangeExpr):
            self.expr(k.lo, w)
            self.expr(k.hi, w)
        elif isinstance(k, A.PathExpr) and isinstance(w.scope.lookup(k.name), A.ValueSetDecl):
            k.decl = w.scope.lookup(k.name)
        else:
            self.expr(k, w)

    # ------------------------------------------------------------ controls
    def control(self, d: A.ControlDecl, w: _Where) -> None:
        if d.type_params:
            return                             # refused by the checker
        cw = w.child("control")
        if d.inlined_only:
            # its instances were inlined with their arguments; the declaration itself is
            # checked with the parameters as values of their types
            self.define_params(d.ctor_params, cw)
        else:
            self.define_names(d.ctor_params, cw)  # refused by the checker, but declared
        self.define_params(d.params, cw)
        for loc in d.locals:
            self.guarded(self.local, loc, cw)
        aw = cw.child("apply")
        for st in d.body.stmts:
            self.guarded(self.stmt, st, aw)

    def local(self, loc, w: _Where) -> None:
        if not isinstance(loc, A.VarDecl):
            self.define(w.scope, loc.name, loc, loc.pos)
        if isinstance(loc, A.ActionDecl):
            self.action(loc, w)
        elif isinstance(loc, A.TableDecl):
            self.table(loc, w)
        elif isinstance(loc, A.VarDecl):
            self.var(loc, w)
        elif isinstance(loc, A.ConstDecl):
            self.const(loc, w)
        elif isinstance(loc, A.Instantiation):
            self.instantiation(loc, w)
        elif isinstance(loc, A.ValueSetDecl):
            self.type_ref(loc.element, w)
            self.expr(loc.size, w)

    def var(self, d: A.VarDecl, w: _Where) -> None:
        try:
            if isinstance(d.type_ref, A.InferredTypeRef):
                # a temporary of the front end: typed by its initialiser (or a model)
                self.expr(d.init if d.init is not None else d.type_ref.like, w)
            self.type_ref(d.type_ref, w)
            if d.init is not None:
                self.expr(d.init, w)
        finally:
            # the initializer cannot see the variable itself (spec 6.7)
            self.define(w.scope, d.name, d, d.pos)

    def action(self, d: A.ActionDecl, w: _Where) -> None:
        aw = w.child("action", action=d)
        self.define_params(d.params, aw)
        for st in d.body.stmts:
            self.guarded(self.stmt, st, aw)

    def function(self, d: A.FunctionDecl, w: _Where) -> None:
        self.type_ref(d.return_type, w)
        fw = w.child("function", in_function=True)
        self.define_params(d.params, fw)
        for st in d.body.stmts:
            self.guarded(self.stmt, st, fw)

    # ---- tables
    def table(self, d: A.TableDecl, w: _Where) -> None:
        actions = d.prop("actions")
        if actions is not None:
            for ar in actions.actions:
                if self.guarded(self.action_ref, ar, w, d) is None:
                    continue
                if ar.prelude:
                    # computations of bound arguments with function calls (inline_functions)
                    pw = w.child("apply")
                    for st in ar.prelude:
                        self.guarded(self.stmt, st, pw)
                self.guarded(self.exprs, ar.args, w)
        for p in d.properties:
            if p.name == "key":
                for k in p.elements:
                    self.guarded(self.expr, k.expr, w)
            elif p.name == "default_action":
                self.guarded(self.action_call, p.action, w, d)
            elif p.name == "entries":
                self.guarded(self.entries, d, p, w)
            elif p.name == "implementation":
                self.guarded(self.implementation, p, w)
            elif p.name == "counters" and self.is_anonymous_counter(p.value):
                self.guarded(self.exprs, [a.expr if isinstance(a, A.Argument) else a
                                          for a in p.value.args[:1]], w)
            elif p.name in ("size", "counters", "meters", "support_timeout",
                            "idle_timeout_with_auto_delete", "largest_priority_wins",
                            "priority_delta"):
                self.guarded(self.expr, p.value, w)

    def action_ref(self, ar: A.ActionRef, w: _Where, table) -> bool:
        scope = self.top if ar.name.is_global else w.scope
        a = scope.lookup(ar.name.name)
        if a is None:
            self.err(ar.name.pos, f"table '{table.name}': action '{ar.name.name}' is not "
                                  f"declared")
        ar.name.decl = a
        return True

    def action_call(self, ar: A.ActionRef, w: _Where, table) -> None:
        self.action_ref(ar, w, table)
        self.exprs(ar.args, w)

    def entries(self, d: A.TableDecl, p: A.EntriesProperty, w: _Where) -> None:
        keys = d.key
        if not keys:
            return                             # the checker reports it
        for e in p.entries:
            try:
                self.keyset(e.keyset, [k.expr for k in keys], w)
                self.action_call(e.action, w, d)
                if e.priority is not None:
                    self.expr(e.priority, w)
            except Abandon:
                pass

    def implementation(self, p: A.ExprProperty, w: _Where) -> None:
        """An action_profile/action_selector instance, or one constructed in place (whose
        callee the checker resolves: only those two externs are allowed)."""
        v = p.value
        if isinstance(v, A.MethodCallExpr):
            self.exprs([a.expr if isinstance(a, A.Argument) else a for a in v.args], w)
        else:
            self.expr(v, w)

    def is_anonymous_counter(self, v) -> bool:
        """`counters = direct_counter(...)`: a direct counter of its own (checker)."""
        return (isinstance(v, A.MethodCallExpr) and isinstance(v.callee, A.PathExpr)
                and v.callee.name == "direct_counter"
                and isinstance(self.top.lookup("direct_counter"), A.ExternDecl))

    # ------------------------------------------------------------ statements
    def stmt(self, s: A.Stmt, w: _Where) -> None:
        if isinstance(s, A.AssignStmt):
            self.expr(s.lhs, w)
            self.expr(s.rhs, w)
        elif isinstance(s, A.CallStmt):
            self.expr(s.call, w)
        elif isinstance(s, A.IfStmt):
            self.expr(s.cond, w)
            self.guarded(self.stmt, s.then, w.child())
            if s.other is not None:
                self.guarded(self.stmt, s.other, w.child())
        elif isinstance(s, A.BlockStmt):
            bw = w.child()
            for st in s.stmts:
                self.guarded(self.stmt, st, bw)
        elif isinstance(s, A.VarDecl):
            self.var(s, w)
        elif isinstance(s, A.ConstDecl):
            self.define(w.scope, s.name, s, s.pos)
            self.const(s, w)
        elif isinstance(s, A.SwitchStmt):
            self.switch(s, w)
        elif isinstance(s, A.ReturnStmt):
            if s.value is not None and w.in_function:
                self.expr(s.value, w)
        elif isinstance(s, A.ForStmt):
            self.for_stmt(s, w)

    def for_stmt(self, s: A.ForStmt, w: _Where) -> None:
        if w.kind in ("state", "parser"):
            return                             # refused by the checker
        lw = w.child()
        for st in s.init:
            self.guarded(self.stmt, st, lw)
        if s.cond is not None:
            self.expr(s.cond, lw)
        for st in s.updates:
            self.guarded(self.stmt, st, lw)
        self.guarded(self.stmt, s.body, lw.child())

    def switch(self, s: A.SwitchStmt, w: _Where) -> None:
        if w.kind in ("state", "action"):
            return                             # refused by the checker
        self.expr(s.expr, w)
        # `switch (t.apply().action_run)`: the labels are the table's actions (checker)
        on_action_run = (isinstance(s.expr, A.MemberExpr) and s.expr.member == "action_run"
                         and isinstance(s.expr.expr, A.MethodCallExpr))
        for c in s.cases:
            for lab in c.labels:
                if not on_action_run and not isinstance(lab, A.DefaultExpr):
                    self.guarded(self.expr, lab, w)
        for c in s.cases:
            if c.body is not None:
                self.guarded(self.stmt, c.body, w.child())

    # ------------------------------------------------------------ expressions
    def exprs(self, items: list, w: _Where) -> None:
        for e in items:
            self.expr(e, w)

    def expr(self, e: A.Expr, w: _Where) -> None:
        """Resolve the names in e, in the order the type checker checks its parts."""
        if isinstance(e, A.PathExpr):
            self.path(e, w)
        elif isinstance(e, A.MemberExpr):
            self.expr(e.expr, w)
        elif isinstance(e, A.MethodCallExpr):
            self.call(e, w)
        elif isinstance(e, A.BinaryExpr):
            self.expr(e.left, w)
            self.expr(e.right, w)
        elif isinstance(e, A.UnaryExpr):
            self.expr(e.operand, w)
        elif isinstance(e, A.TernaryExpr):
            self.expr(e.cond, w)
            self.expr(e.then, w)
            self.expr(e.other, w)
        elif isinstance(e, A.CastExpr):
            self.type_ref(e.type_ref, w)
            self.expr(e.expr, w)
        elif isinstance(e, A.IndexExpr):
            self.expr(e.expr, w)
            self.expr(e.index, w)
        elif isinstance(e, A.SliceExpr):
            self.expr(e.expr, w)
            self.exprs([e.lo, e.hi] if e.plus else [e.hi, e.lo], w)
        elif isinstance(e, A.ListExpr):
            self.exprs(e.items, w)
        elif isinstance(e, A.StructInitExpr):
            self.exprs([v for _, v in e.fields], w)
        # literals name nothing; `default`, `&&&`, `..`, named arguments, types and select
        # outside their places are errors the checker reports before looking inside

    def path(self, e: A.PathExpr, w: _Where) -> None:
        d = (self.top if e.is_global else w.scope).lookup(e.name)
        if d is None:
            self.err(e.pos, f"'{e.name}' is not declared"
                     + did_you_mean(e.name, w.scope.visible_names()))
        e.decl = d

    def call(self, e: A.MethodCallExpr, w: _Where) -> None:
        for r in e.type_arg_refs:
            self.type_ref(r, w)
        callee = e.callee
        if isinstance(callee, A.MemberExpr):
            self.expr(callee.expr, w)
        elif isinstance(callee, A.PathExpr):
            self.callee(callee, w)
            if isinstance(callee.decl, (A.ParserDecl, A.ControlDecl, A.ExternDecl)) or (
                    isinstance(callee.decl, A.FunctionDecl) and not callee.decl.inlined):
                return                         # the checker refuses the call as a whole
        else:
            return                             # the checker: "cannot be called"
        self.exprs([a.expr if isinstance(a, A.Argument) else a for a in e.args], w)

    def callee(self, callee: A.PathExpr, w: _Where) -> None:
        d = (self.top if callee.is_global else w.scope).lookup(callee.name)
        if isinstance(d, A.ActionDecl) and d is w.action:
            # a declaration is not visible inside itself (p4c's ResolutionContext::lookup
            # drops the enclosing declaration; recursion is not allowed anyway): in
            # `action hash() { hash(...); }` the call is v1model's hash (p4c's issue1541)
            d = self.lookup_outside(w.scope, d, callee.name)
        if d is None:
            self.err(callee.pos, f"'{callee.name}' is not declared"
                     + did_you_mean(callee.name, w.scope.visible_names()))
        callee.decl = d

    @staticmethod
    def lookup_outside(scope: Scope, decl, name: str):
        """`name` looked up from outside the scope that declares `decl`."""
        while scope is not None and scope.names.get(name) is not decl:
            scope = scope.parent
        return scope.parent.lookup(name) if scope is not None and scope.parent else None


# declarations that make a type, and what messages call them
SELF_REFERABLE = (A.HeaderDecl, A.StructDecl, A.HeaderUnionDecl, A.EnumDecl, A.TypedefDecl,
                  A.ExternDecl, A.ParserDecl, A.ControlDecl, A.ParserTypeDecl,
                  A.ControlTypeDecl, A.PackageTypeDecl)
_KINDS = {A.HeaderDecl: "header", A.StructDecl: "struct", A.HeaderUnionDecl: "header_union",
          A.EnumDecl: "enum", A.TypedefDecl: "typedef", A.ExternDecl: "extern",
          A.ParserDecl: "parser", A.ControlDecl: "control", A.ParserTypeDecl: "parser type",
          A.ControlTypeDecl: "control type", A.PackageTypeDecl: "package type"}


def _kind(d) -> str:
    return _KINDS[type(d)]


class _TypeParams:
    """The type variables of a generic declaration are in scope inside it."""

    def __init__(self, resolver: NameResolver, names):
        self.resolver = resolver
        self.names = set(names)

    def __enter__(self):
        self.resolver.type_params.append(self.names)

    def __exit__(self, *exc):
        self.resolver.type_params.pop()
        return False


class ResolveNames:
    """Pass: every name -> its declaration (see the module doc)."""
    name = "ResolveNames"

    def run(self, ctx) -> None:
        NameResolver(ctx.program, ctx.diags).run()
