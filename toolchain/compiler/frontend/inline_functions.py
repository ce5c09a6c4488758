"""Inline P4 functions (spec 10.x "Functions") before type checking, as p4c's
`InlineFunctions` + `RemoveReturns` do, so that no function call reaches the checker or the
mid end.

Each call `f(a, b)` becomes, at the point where it is evaluated (spec 8.x: left to right,
calls in an expression are hoisted in evaluation order in front of the statement that
contains them; the right operand of `&&` / `||` only when it is evaluated, spec 8.5):

    R f_retval_N;                      // only for a non-void function
    {
        T1 f_x_N = a;                  // copy-in: in, inout and directionless (spec 6.8)
        T2 f_y_N;                      // out: uninitialised
        bool f_returned_N = false;     // only when a `return` is not the last statement
        <body, params renamed, `return e;` -> `f_retval_N = e; f_returned_N = true;`,
         statements after a possible return guarded by `if (!f_returned_N)`>
        a = f_x_N;  b = f_y_N;         // copy-out: inout and out, also after a return
    }

and the call expression is replaced by `f_retval_N`. A struct or header argument that is a
variable or field is substituted for its parameter instead of copied (a function sees only
its parameters, so nothing can tell the two apart) unless another argument shares its
variable. Header stacks and unions are always passed that way (the mid end keeps no local
copies of them), so their arguments must be variables or fields.

The same hoisting serves two more cases p4c handles in its SideEffectOrdering: a left operand
read before a call on its right is kept in a temporary (typed by the checker from its
initialiser, `InferredTypeRef`), and `t.apply().hit`/`.miss` inside a larger expression
becomes `bool r; if (t.apply().hit) r = true; else r = false;` where it is evaluated.

The pass works on the parsed tree before checking, so the checker types, casts and checks the
inlined code like any other. Generic functions (`T max<T>(...)`) are left in place; the
checker refuses them by name. A call is refused when the block it is inlined into declares
a name the function's body uses as a global (there it would resolve to the block's own)."""
from __future__ import annotations

import copy
from itertools import count

from ..diagnostics import CompileError, Diagnostics
from . import ast as A

MAX_DEPTH = 64          # nested calls; P4 forbids recursion, this catches it cleanly


class _Captured(Exception):
    """A capture was reported: stop inlining in this block."""


class FunctionInliner:
    def __init__(self, program: A.Program, diags: Diagnostics):
        self.program = program
        self.diags = diags
        self.functions: dict = {}
        for d in program.decls:
            if isinstance(d, A.FunctionDecl) and not d.type_params:
                self.functions.setdefault(d.name, []).append(d)
        self.aggregate_types = self._aggregate_type_names(program)
        # values our mid end keeps no local copies of: passed by reference always
        self.uncopyable = _type_names_of(program, (A.HeaderUnionDecl,))
        # values passed by reference unless another argument shares their variable
        self.shareable = _type_names_of(program, (A.StructDecl, A.HeaderDecl))
        self.counter = count()
        self.depth = 0
        self._used_names = None       # computed on first use: most programs need none
        self._const_names = None
        self.changed = False          # whether anything was inlined or hoisted
        self.block_names: set = set()  # names declared in the block being rewritten

    @property
    def used_names(self) -> set:
        """Every name declared or referenced: fresh names avoid them."""
        if self._used_names is None:
            self._used_names = {n.name for n in A.walk(self.program)
                                if isinstance(n, (A.PathExpr, A.Decl))}
        return self._used_names

    @property
    def const_names(self) -> set:
        """Names of constants anywhere (reading one needs no temporary) and of enum/error
        types, whose members are written as paths too."""
        if self._const_names is None:
            self._const_names = {n.name for n in A.walk(self.program)
                                 if isinstance(n, (A.ConstDecl, A.EnumDecl, A.ErrorDecl))
                                 } | {"error"}
        return self._const_names

    # ------------------------------------------------------------ entry
    def run(self) -> None:
        # also without functions: `t.apply().hit` inside a larger expression is hoisted too
        for d in self.program.decls:
            if not isinstance(d, (A.ActionDecl, A.ControlDecl, A.ParserDecl)):
                continue
            # names the block declares (its parameters, locals, actions' parameters...)
            self.block_names = {n.name for n in A.walk(d)
                                if n is not d and isinstance(n, A.Decl)} \
                if self.functions else set()
            try:
                self._inline_in(d)
            except _Captured:
                pass                  # reported; the rest of this block is left as it is
        for fs in self.functions.values():
            for f in fs:
                f.inlined = True

    def _inline_in(self, d) -> None:
        if isinstance(d, A.ActionDecl):
            self._action(d)
        elif isinstance(d, A.ControlDecl):
            moved: dict = {}
            for local in list(d.locals):
                if isinstance(local, A.ActionDecl):
                    self._action(local)
                elif isinstance(local, A.TableDecl):
                    self._move_call_keys(d, local, moved)
                    self._move_call_bound_args(d, local)
            d.body.stmts = self._local_initialisers(d) + self.block(d.body.stmts)
            if moved:
                d.body.stmts = self._key_preludes(d.body.stmts, moved)
        else:
            prologue = self._local_initialisers(d)
            for state in d.states:
                self._state(state)
            start = next((st for st in d.states if st.name == "start"), None)
            if prologue and start is not None:
                # parser-level variables are initialised when parsing starts (the mid end
                # puts the remaining initialisers in front of these)
                start.stmts = prologue + start.stmts

    def _move_call_keys(self, d: A.ControlDecl, t: A.TableDecl, moved: dict) -> None:
        """A key with a function call is evaluated when the table is applied: as p4c's
        SideEffectOrdering does, its value goes into a control-local variable (typed from the
        key, never evaluated there) that is assigned before every apply of the table, and the
        key becomes that variable. The key keeps its control-plane name from @name, which
        p4c requires of such a key (TableKeyNames: "Complex key expression requires a @name
        annotation")."""
        for k in t.key:
            if not _contains_call(k.expr, self.functions):
                continue
            if A.name_annotation(k) is None:
                self.diags.error(k.expr.pos, f"table '{t.name}': a key with a function call "
                                             "needs a @name annotation (its control-plane "
                                             "name)")
                continue
            if _is_hit_test(k.expr):
                # `other.apply().hit` as a key (p4c's issue2362-bmv2): the other table is
                # applied where the key is computed, before each apply of this one
                type_ref = A.BaseTypeRef(k.pos, "bool")
            elif any(_is_hit_test(n) for n in A.walk(k.expr)):
                self.diags.error(k.expr.pos, f"table '{t.name}': a key may be a table's "
                                             "apply().hit as a whole, not inside an expression")
                continue
            else:
                type_ref = A.InferredTypeRef(k.pos, like=copy.deepcopy(k.expr))
            var = self.fresh("key")
            decl = A.VarDecl(k.pos, var, type_ref)
            d.locals.insert(d.locals.index(t), decl)
            moved.setdefault(t.name, []).append((var, k.expr))
            k.expr = A.PathExpr(k.expr.pos, var)

    def _move_call_bound_args(self, d: A.ControlDecl, t: A.TableDecl) -> None:
        """`actions = { a(f(x)); }`: an argument bound to an `in` parameter in the actions
        list is evaluated each time the table invokes the action, before its body (spec
        14.2.1.2; p4c's RemoveActionParameters turns it into an assignment at the start of
        the action's body, and then inlines the call there: p4c's testdata issue2266.p4,
        issue2321.p4). The argument becomes a control-local variable (typed from the
        argument, never evaluated there) and the action reference keeps, as its `prelude`,
        the inlined statements computing it, in argument order; they are checked and lowered
        in the control's scope (where the argument's names resolve), not the action's."""
        for ar in t.actions:
            if not any(_contains_call(a, self.functions) for a in ar.args):
                continue
            action = self._action_decl(d, ar.name)
            if action is None:
                continue                  # the checker reports the unknown action
            directional = [p for p in action.params if p.direction]
            for k, arg in enumerate(ar.args):
                if not _contains_call(arg, self.functions):
                    continue
                p = directional[k] if k < len(directional) else None
                if p is None:
                    continue              # the checker reports the argument count
                if p.direction != "in":
                    raise CompileError.at(arg.pos, f"table '{t.name}': a function call in the "
                                                   f"argument bound to {p.direction} parameter "
                                                   f"'{p.name}' of action '{action.name}' is "
                                                   "not supported")
                var = self.fresh("bound")
                decl = A.VarDecl(arg.pos, var, A.InferredTypeRef(arg.pos, like=copy.deepcopy(arg)))
                d.locals.insert(d.locals.index(t), decl)
                ar.prelude.extend(self.stmt(A.AssignStmt(arg.pos, A.PathExpr(arg.pos, var), arg)))
                ar.args[k] = A.PathExpr(arg.pos, var)

    def _action_decl(self, d: A.ControlDecl, name: A.PathExpr):
        """The action a table's actions list names: the control's own, else a global one."""
        if not name.is_global:
            for local in d.locals:
                if isinstance(local, A.ActionDecl) and local.name == name.name:
                    return local
        return next((x for x in self.program.decls
                     if isinstance(x, A.ActionDecl) and x.name == name.name), None)

    def _key_preludes(self, stmts: list, moved: dict) -> list:
        """`stmts` with each apply of a table in `moved` preceded by the computation of its
        moved keys (inlined like any other statement), in nested blocks too."""
        out: list = []
        for s in stmts:
            for table in _tables_applied_by(s, moved):
                for var, expr in moved[table]:
                    out.extend(self.stmt(A.AssignStmt(s.pos, A.PathExpr(s.pos, var),
                                                      copy.deepcopy(expr))))
            self._key_preludes_inside(s, moved)
            out.append(s)
        return out

    def _key_preludes_inside(self, s, moved: dict) -> None:
        if isinstance(s, A.BlockStmt):
            s.stmts = self._key_preludes(s.stmts, moved)
        elif isinstance(s, A.IfStmt):
            s.then = self._key_preludes_sub(s.then, moved)
            if s.other is not None:
                s.other = self._key_preludes_sub(s.other, moved)
        elif isinstance(s, A.SwitchStmt):
            for case in s.cases:
                if case.body is not None:
                    case.body.stmts = self._key_preludes(case.body.stmts, moved)

    def _key_preludes_sub(self, s, moved: dict):
        if isinstance(s, A.BlockStmt):
            s.stmts = self._key_preludes(s.stmts, moved)
            return s
        stmts = self._key_preludes([s], moved)
        return stmts[0] if len(stmts) == 1 else A.BlockStmt(s.pos, stmts)

    def _local_initialisers(self, d) -> list:
        """Control- or parser-local variables initialised with a function call: the
        initialisers run when the block is applied (spec 15.x), so from the first one with a
        call on they become assignments at the start of the apply block (of the start state),
        in declaration order."""
        prologue: list = []
        for local in d.locals:
            if not (isinstance(local, A.VarDecl) and local.init is not None):
                continue
            if not prologue and not _contains_call(local.init, self.functions):
                continue
            pre: list = []
            init = self.hoist(local.init, pre)
            local.init = None
            prologue += pre + [A.AssignStmt(local.pos, A.PathExpr(local.pos, local.name), init)]
        return prologue

    def _action(self, a: A.ActionDecl) -> None:
        a.body.stmts = self.block(a.body.stmts)

    def _state(self, state: A.ParserState) -> None:
        stmts = self.block(state.stmts)
        if isinstance(state.transition, A.SelectExpr):
            pre: list = []
            state.transition.exprs = [self.hoist(e, pre) for e in state.transition.exprs]
            stmts.extend(pre)
        state.stmts = stmts

    # ------------------------------------------------------------ refusals
    @staticmethod
    def _aggregate_type_names(program) -> set:
        """Type names whose values are structs, header stacks or unions (not copied)."""
        names = {d.name for d in program.decls
                 if isinstance(d, (A.StructDecl, A.HeaderUnionDecl))}
        changed = True
        while changed:         # typedefs of those, to any depth
            changed = False
            for d in program.decls:
                if (isinstance(d, A.TypedefDecl) and d.name not in names
                        and _is_aggregate_ref(d.type_ref, names)):
                    names.add(d.name)
                    changed = True
        return names

    def _free_names(self, f: A.FunctionDecl) -> dict:
        """Names the body of `f` uses that it does not declare: name -> first use."""
        own = {p.name for p in f.params} | {n.name for n in A.walk(f.body)
                                             if isinstance(n, A.Decl)}
        out: dict = {}
        for n in A.walk(f.body):
            if isinstance(n, A.PathExpr) and not n.is_global and n.name not in own:
                out.setdefault(n.name, n)
        return out

    def _check_capture(self, f: A.FunctionDecl, call) -> None:
        """Inlined code is checked in the caller's scope: a global name the body uses must not
        be redeclared by the block the call is in, or it would silently mean the block's
        own declaration there."""
        for name, use in self._free_names(f).items():
            if name in self.block_names:
                self.diags.error(use.pos, f"function '{f.name}' uses '{name}', which the block "
                                          f"calling it on line {call.pos.line} redeclares; inlining it "
                                          "there is not supported (rename one)")
                raise _Captured()

    # ------------------------------------------------------------ statements
    def block(self, stmts: list) -> list:
        out: list = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s) -> list:
        """The statements replacing `s`: hoisted function bodies, then `s` rewritten."""
        pre: list = []
        if isinstance(s, A.BlockStmt):
            s.stmts = self.block(s.stmts)
        elif isinstance(s, A.IfStmt):
            if not _is_hit_condition(s.cond):     # `if (t.apply().hit)`: the mid end's form
                s.cond = self.hoist(s.cond, pre)
            s.then = self._sub(s.then)
            if s.other is not None:
                s.other = self._sub(s.other)
        elif isinstance(s, A.AssignStmt):
            # `x op= e` was parsed as `x = x op e` with a copy of x; a call inside x runs once
            compound = isinstance(s.rhs, A.BinaryExpr) and s.rhs.left == s.lhs
            s.lhs = self.hoist(s.lhs, pre)
            if compound:
                s.rhs.left = copy.deepcopy(s.lhs)
            s.rhs = self.hoist(s.rhs, pre)
        elif isinstance(s, A.CallStmt):
            self._dont_care_extract(s.call, pre)
            f = self._function_of(s.call)
            if f is not None:
                self._inline(s.call, f, pre, want_value=False)
                return pre
            self._hoist_children(s.call, pre)
        elif isinstance(s, A.VarDecl):
            if s.init is not None:
                s.init = self.hoist(s.init, pre)
        elif isinstance(s, A.ReturnStmt):
            if s.value is not None:
                s.value = self.hoist(s.value, pre)
        elif isinstance(s, A.SwitchStmt):
            s.expr = self.hoist(s.expr, pre)
            for case in s.cases:
                if case.body is not None:
                    case.body.stmts = self.block(case.body.stmts)
        elif isinstance(s, A.ForStmt):
            self._for(s, pre)
        return pre + [s]

    def _for(self, s: A.ForStmt, pre: list) -> None:
        """Calls in the init part run once (their hoisted code stays in the init list, in
        the loop's scope) and those of an update run with it; the condition is evaluated
        before every iteration, so a function call there cannot be hoisted out of it."""
        s.init = [x for st in s.init for x in self.stmt(st)]
        if s.cond is not None:
            cond_pre: list = []
            s.cond = self.hoist(s.cond, cond_pre)
            if cond_pre:
                raise CompileError.at(s.cond.pos, "a function call in a for loop's condition "
                                                  "is not supported")
        s.updates = [x for st in s.updates for x in self.stmt(st)]
        s.body = self._sub(s.body)

    def _dont_care_extract(self, call, pre: list) -> None:
        """`pkt.extract<H>(_)` (spec 6.7 don't-care out argument): the header goes into a
        fresh local of type H that nothing reads, so its bytes are only consumed."""
        c = call.callee
        if (isinstance(c, A.MemberExpr) and c.member == "extract" and call.type_arg_refs
                and len(call.args) == 1 and isinstance(call.args[0], A.DontCareExpr)):
            tmp = self.fresh("unused")
            pre.append(A.VarDecl(call.pos, tmp, copy.deepcopy(call.type_arg_refs[0])))
            call.args[0] = A.PathExpr(call.args[0].pos, tmp)

    def _sub(self, s):
        """A sub-statement (if branch): one statement, a block when hoisting added some."""
        out = self.stmt(s)
        return out[0] if len(out) == 1 else A.BlockStmt(s.pos, out)

    # ------------------------------------------------------------ expressions
    def _function_of(self, call) -> A.FunctionDecl | None:
        if not (isinstance(call, A.MethodCallExpr) and isinstance(call.callee, A.PathExpr)):
            return None
        candidates = self.functions.get(call.callee.name)
        if not candidates:
            return None
        fits = [f for f in candidates if len(f.params) == len(call.args)
                or len([p for p in f.params if p.default is None]) <= len(call.args)
                <= len(f.params)]
        if len(fits) != 1:
            raise CompileError.at(call.pos, f"no unique function '{call.callee.name}' takes "
                                            f"{len(call.args)} arguments")
        return fits[0]

    def hoist(self, e, pre: list):
        """`e` with every function call replaced by its result variable; the calls' code is
        appended to `pre` in evaluation order."""
        if not isinstance(e, A.Expr) or not _contains_call(e, self.functions):
            return e
        if isinstance(e, A.MethodCallExpr):
            f = self._function_of(e)
            if f is not None:
                return self._inline(e, f, pre, want_value=True)
        if _is_hit_test(e):
            return self._hoist_hit(e, pre)
        if isinstance(e, A.BinaryExpr) and e.op in ("&&", "||") \
                and _contains_call(e.right, self.functions):
            return self._short_circuit(e, pre)
        if (isinstance(e, A.BinaryExpr) and _contains_call(e.right, self.functions)
                and not _contains_call(e.left, self.functions) and self._reads_state(e.left)):
            # the left operand is evaluated first (spec 8.x): keep its value before the
            # call can change it (p4c's SideEffectOrdering)
            tmp = self.fresh("tmp")
            pre.append(A.VarDecl(e.pos, tmp, A.InferredTypeRef(e.pos), e.left))
            e.left = A.PathExpr(e.left.pos, tmp)
            e.right = self.hoist(e.right, pre)
            return e
        if isinstance(e, A.TernaryExpr) and (_contains_call(e.then, self.functions)
                                             or _contains_call(e.other, self.functions)):
            return self._conditional(e, pre)
        if isinstance(e, (A.ListExpr, A.StructInitExpr)):
            self._keep_items_before_calls(e, pre)
        self._hoist_children(e, pre)
        return e

    def _keep_items_before_calls(self, e, pre: list) -> None:
        """`{x, f(x)}`: the items are evaluated left to right (spec 8.12), so an item that
        reads state before a later item's call is kept in a temporary first (as the left
        operand of a binary operator is)."""
        named = isinstance(e, A.StructInitExpr)
        items = [v for _, v in e.fields] if named else list(e.items)
        calls = [_contains_call(x, self.functions) for x in items]
        for k, x in enumerate(items):
            if (not calls[k] and any(calls[k + 1:]) and self._reads_state(x)
                    and not isinstance(x, (A.ListExpr, A.StructInitExpr))):
                tmp = self.fresh("tmp")
                pre.append(A.VarDecl(x.pos, tmp, A.InferredTypeRef(x.pos), x))
                items[k] = A.PathExpr(x.pos, tmp)
        if named:
            e.fields = [(n, v) for (n, _), v in zip(e.fields, items)]
        else:
            e.items = items

    def _hoist_children(self, e, pre: list) -> None:
        for name in A._child_fields(type(e)):
            v = getattr(e, name)
            if isinstance(v, A.Expr):
                setattr(e, name, self.hoist(v, pre))
            elif isinstance(v, list):
                new = []
                for x in v:
                    if isinstance(x, A.Expr):
                        new.append(self.hoist(x, pre))
                    elif isinstance(x, tuple):
                        new.append(tuple(self.hoist(y, pre) if isinstance(y, A.Expr) else y
                                         for y in x))
                    else:
                        new.append(x)
                setattr(e, name, new)

    def _hoist_hit(self, e: A.MemberExpr, pre: list):
        """`t.apply().hit` inside a larger expression (spec 14.2.2): the table is applied
        where the expression is evaluated, `bool r; if (t.apply().hit) { r = true; } else
        { r = false; }` (the form the mid end turns into a table's hit/miss branches)."""
        pos = e.pos
        tmp = self.fresh("hit")
        pre.append(A.VarDecl(pos, tmp, A.BaseTypeRef(pos, "bool")))
        pre.append(A.IfStmt(pos, e,
                            A.AssignStmt(pos, A.PathExpr(pos, tmp), A.BoolLit(pos, True)),
                            A.AssignStmt(pos, A.PathExpr(pos, tmp), A.BoolLit(pos, False))))
        return A.PathExpr(pos, tmp)

    def _conditional(self, e: A.TernaryExpr, pre: list):
        """`c ? f(x) : y` -> `T t; if (c) { t = f(x); } else { t = y; }`: only the chosen
        branch runs (spec 8.x). T is the return type of a branch that is a direct call."""
        pos = e.pos
        typed = next((self._function_of(b) for b in (e.then, e.other)
                      if self._function_of(b) is not None), None)
        if typed is not None:
            type_ref = copy.deepcopy(typed.return_type)
        elif _is_hit_test(e.then) or _is_hit_test(e.other):
            type_ref = A.BaseTypeRef(pos, "bool")
        elif not (_contains_call(e.then, self.functions)
                  and _contains_call(e.other, self.functions)):
            # the type of the branch without calls (checked, never evaluated)
            plain = e.other if _contains_call(e.then, self.functions) else e.then
            type_ref = A.InferredTypeRef(pos, like=copy.deepcopy(plain))
        else:
            raise CompileError.at(pos, "a function call nested inside a branch of `?:` is not "
                                       "supported; use an if statement")
        cond = self.hoist(e.cond, pre)
        tmp = self.fresh("tmp")
        pre.append(A.VarDecl(pos, tmp, type_ref))
        branches = []
        for b in (e.then, e.other):
            inner: list = []
            value = self.hoist(b, inner)
            inner.append(A.AssignStmt(pos, A.PathExpr(pos, tmp), value))
            branches.append(A.BlockStmt(pos, inner))
        pre.append(A.IfStmt(pos, cond, branches[0], branches[1]))
        return A.PathExpr(pos, tmp)

    def _reads_state(self, e) -> bool:
        """Whether `e` may read a variable (a name that is not a constant, or a call)."""
        return any((isinstance(n, A.PathExpr) and n.name not in self.const_names)
                   or isinstance(n, A.MethodCallExpr) for n in A.walk(e))

    def _short_circuit(self, e: A.BinaryExpr, pre: list):
        """`a && f()` -> `bool t = a; if (t) { t = f(); }` (the call runs only when the
        spec evaluates it); `||` tests `!t`."""
        pos = e.pos
        left = self.hoist(e.left, pre)
        tmp = self.fresh("tmp")
        pre.append(A.VarDecl(pos, tmp, A.BaseTypeRef(pos, "bool"), left))
        inner: list = []
        right = self.hoist(e.right, inner)
        inner.append(A.AssignStmt(pos, A.PathExpr(pos, tmp), right))
        cond = A.PathExpr(pos, tmp) if e.op == "&&" else A.UnaryExpr(pos, "!", A.PathExpr(pos, tmp))
        pre.append(A.IfStmt(pos, cond, A.BlockStmt(pos, inner)))
        return A.PathExpr(pos, tmp)

    # ------------------------------------------------------------ inlining one call
    def fresh(self, base: str) -> str:
        self.changed = True
        while True:
            name = f"{base}_{next(self.counter)}"
            if name not in self.used_names:
                self.used_names.add(name)
                return name

    def _inline(self, call: A.MethodCallExpr, f: A.FunctionDecl, pre: list, *, want_value):
        if self.depth >= MAX_DEPTH:
            raise CompileError.at(call.pos, f"function '{f.name}' calls itself (directly or "
                                            "not); recursion is not allowed (spec 10.x)")
        pos = call.pos
        self.changed = True
        self._check_capture(f, call)
        args = self._bind_args(call, f)
        args = [(p, self.hoist(a, pre) if a is not None else None) for p, a in args]
        void = isinstance(f.return_type, A.BaseTypeRef) and f.return_type.name == "void"
        if want_value and void:
            raise CompileError.at(pos, f"function '{f.name}' returns void; it has no value")
        retval = None
        if not void:
            retval = self.fresh(f"{f.name}_retval")
            pre.append(A.VarDecl(pos, retval, copy.deepcopy(f.return_type)))
        body = copy.deepcopy(f.body)
        copy_in, copy_out, renames = [], [], {}
        for p, a in args:
            if _is_aggregate_ref(p.type_ref, self.uncopyable):
                if not _is_lvalue(a):
                    raise CompileError.at(a.pos, f"argument for {p.name} of '{f.name}' must "
                                                 "be a variable or field (it is a header "
                                                 "stack or union)")
                renames[p.name] = a
                continue
            if (_is_aggregate_ref(p.type_ref, self.shareable) and _is_lvalue(a)
                    and not any(o is not a and _root_name(o) == _root_name(a)
                                for _, o in args)):
                # a function sees only its parameters: with no other argument sharing the
                # variable, the argument itself behaves exactly as its copy would
                renames[p.name] = a
                continue
            name = self.fresh(f"{f.name}_{p.name}")
            renames[p.name] = A.PathExpr(pos, name)
            init = a if p.direction in ("", "in", "inout") else None
            copy_in.append(A.VarDecl(p.pos, name, copy.deepcopy(p.type_ref), init))
            if p.direction in ("out", "inout"):
                copy_out.append(A.AssignStmt(pos, copy.deepcopy(a), A.PathExpr(pos, name)))
        body = substitute(body, renames)
        stmts = self._remove_returns(body.stmts, retval, f, pos)
        block = A.BlockStmt(pos, copy_in + stmts + copy_out)
        self.depth += 1
        try:
            pre.extend(self.stmt(block))      # calls inside the inlined body
        finally:
            self.depth -= 1
        return A.PathExpr(pos, retval) if retval is not None else None

    def _bind_args(self, call, f) -> list:
        """(param, argument expr or None) in parameter order; named arguments by name,
        missing ones from the parameter's default value."""
        named = any(isinstance(a, A.Argument) and a.name for a in call.args)
        if named:
            by_name = {a.name: a.expr for a in call.args if isinstance(a, A.Argument)}
            unknown = set(by_name) - {p.name for p in f.params}
            if unknown:
                raise CompileError.at(call.pos, f"function '{f.name}' has no parameter "
                                                f"'{sorted(unknown)[0]}'")
            values = [by_name.get(p.name) for p in f.params]
        else:
            values = [a.expr if isinstance(a, A.Argument) else a for a in call.args]
            values += [None] * (len(f.params) - len(values))
        out = []
        for p, v in zip(f.params, values):
            if v is None and p.default is not None:
                v = copy.deepcopy(p.default)
            if v is None and p.direction != "out":
                raise CompileError.at(call.pos, f"no argument for parameter '{p.name}' of "
                                                f"function '{f.name}'")
            if v is None:
                raise CompileError.at(call.pos, f"no argument for out parameter '{p.name}' of "
                                                f"function '{f.name}'")
            out.append((p, v))
        return out

    def _remove_returns(self, stmts: list, retval, f, pos) -> list:
        """`return e;` -> assignments; a flag guards what follows a return that may run
        (p4c's RemoveReturns). No flag when the only return ends the body."""
        returns = [n for n in A.walk(A.BlockStmt(pos, stmts)) if isinstance(n, A.ReturnStmt)]
        if retval is not None and not returns:
            raise CompileError.at(f.pos, f"function '{f.name}' must return a value")
        if not returns:
            return stmts
        if len(returns) == 1 and stmts and stmts[-1] is returns[0]:
            return stmts[:-1] + self._return_assign(stmts[-1], retval, None)
        flag = self.fresh(f"{f.name}_returned")
        decl = A.VarDecl(pos, flag, A.BaseTypeRef(pos, "bool"), A.BoolLit(pos, False))
        out, _ = self._rr_list(stmts, retval, flag)
        return [decl] + out

    def _return_assign(self, r: A.ReturnStmt, retval, flag) -> list:
        out = []
        if r.value is not None:
            if retval is None:
                raise CompileError.at(r.pos, "a void function cannot return a value")
            out.append(A.AssignStmt(r.pos, A.PathExpr(r.pos, retval), r.value))
        if flag is not None:
            out.append(A.AssignStmt(r.pos, A.PathExpr(r.pos, flag), A.BoolLit(r.pos, True)))
        return out

    def _rr_list(self, stmts: list, retval, flag, in_loop: bool = False):
        """In a loop body (in_loop) a return also breaks out of the loop, and a statement
        that may have returned is followed by `if (flag) break;` (nested loops)."""
        out: list = []
        for i, s in enumerate(stmts):
            if isinstance(s, A.ReturnStmt):
                out += self._return_assign(s, retval, flag)
                if in_loop:
                    out.append(A.BreakStmt(s.pos))
                return out, True                      # the rest is unreachable
            s2, may_return = self._rr_stmt(s, retval, flag, in_loop)
            out.append(s2)
            if may_return and in_loop:
                p = s.pos
                out.append(A.IfStmt(p, A.PathExpr(p, flag), A.BreakStmt(p)))
            if may_return:
                rest, _ = self._rr_list(stmts[i + 1:], retval, flag, in_loop)
                if rest:
                    p = s.pos
                    out.append(A.IfStmt(p, A.UnaryExpr(p, "!", A.PathExpr(p, flag)),
                                        A.BlockStmt(p, rest)))
                return out, True
        return out, False

    def _rr_stmt(self, s, retval, flag, in_loop: bool = False):
        if isinstance(s, A.ReturnStmt):
            out = self._return_assign(s, retval, flag)
            return A.BlockStmt(s.pos, out + ([A.BreakStmt(s.pos)] if in_loop else [])), True
        if isinstance(s, A.BlockStmt):
            s.stmts, r = self._rr_list(s.stmts, retval, flag, in_loop)
            return s, r
        if isinstance(s, A.IfStmt):
            s.then, r1 = self._rr_stmt(s.then, retval, flag, in_loop)
            r2 = False
            if s.other is not None:
                s.other, r2 = self._rr_stmt(s.other, retval, flag, in_loop)
            return s, r1 or r2
        if isinstance(s, A.SwitchStmt):
            r = False
            for case in s.cases:
                if case.body is not None:
                    case.body.stmts, rc = self._rr_list(case.body.stmts, retval, flag, in_loop)
                    r = r or rc
            return s, r
        if isinstance(s, A.ForStmt):
            s.body, r = self._rr_stmt(s.body, retval, flag, True)
            return s, r
        return s, False


# ---------------------------------------------------------------- helpers

def _is_aggregate_ref(r, aggregate_names: set) -> bool:
    """A stack type, or a name in `aggregate_names`."""
    if isinstance(r, A.StackTypeRef):
        return True
    return isinstance(r, A.NamedTypeRef) and r.name in aggregate_names


def _type_names_of(program, kinds) -> set:
    """Names of the declarations of `kinds` and of typedefs of them, to any depth."""
    names = {d.name for d in program.decls if isinstance(d, kinds)}
    changed = True
    while changed:
        changed = False
        for d in program.decls:
            if (isinstance(d, A.TypedefDecl) and d.name not in names
                    and isinstance(d.type_ref, A.NamedTypeRef) and d.type_ref.name in names):
                names.add(d.name)
                changed = True
    return names


def _root_name(e):
    while isinstance(e, (A.MemberExpr, A.IndexExpr, A.SliceExpr)):
        e = e.expr
    return e.name if isinstance(e, A.PathExpr) else None


def _is_lvalue(e) -> bool:
    if isinstance(e, A.PathExpr):
        return True
    if isinstance(e, A.MemberExpr):
        return _is_lvalue(e.expr)
    if isinstance(e, A.IndexExpr):
        return _is_lvalue(e.expr) and isinstance(e.index, A.IntLit)
    return False


def complete_arguments(call: A.MethodCallExpr, params: list) -> None:
    """Put an apply's arguments in parameter order: named arguments (`y = 1`, spec 6.8.1)
    moved to their parameter, omitted ones with a default value (spec 6.8.2) filled with a
    copy of it. Left as written when that is impossible (an unknown name, a missing argument
    without default, a named and a positional one for the same parameter): the checker
    reports those."""
    named = {a.name: a.expr for a in call.args if isinstance(a, A.Argument) and a.name}
    positional = [a for a in call.args if not (isinstance(a, A.Argument) and a.name)]
    if len(positional) > len(params) or not set(named) <= {p.name for p in params[len(positional):]}:
        return
    args = list(positional)
    for p in params[len(positional):]:
        if p.name in named:
            args.append(named[p.name])
        elif p.default is not None:
            args.append(copy.deepcopy(p.default))
        else:
            return
    call.args = args


def _tables_applied_by(s, moved: dict) -> list:
    """Names in `moved` of the tables `s` itself applies: `t.apply();`, `if (t.apply().hit)`,
    `switch (t.apply().action_run)` (nested statements are looked at on their own)."""
    own = (s.call if isinstance(s, A.CallStmt) else s.cond if isinstance(s, A.IfStmt)
           else s.expr if isinstance(s, A.SwitchStmt) else None)
    if own is None:
        return []
    names = []
    for n in A.walk(own):
        if (isinstance(n, A.MethodCallExpr) and isinstance(n.callee, A.MemberExpr)
                and n.callee.member == "apply" and isinstance(n.callee.expr, A.PathExpr)
                and n.callee.expr.name in moved and n.callee.expr.name not in names):
            names.append(n.callee.expr.name)
    return names


def _contains_call(e, functions: dict) -> bool:
    """A call of one of `functions`, or a table's `apply().hit`/`.miss`, inside `e`."""
    for n in A.walk(e):
        if (isinstance(n, A.MethodCallExpr) and isinstance(n.callee, A.PathExpr)
                and n.callee.name in functions) or _is_hit_test(n):
            return True
    return False


def _is_hit_test(e) -> bool:
    """`x.apply().hit` / `.miss` (only a table's apply result has those members)."""
    return (isinstance(e, A.MemberExpr) and e.member in ("hit", "miss")
            and isinstance(e.expr, A.MethodCallExpr) and not e.expr.args
            and isinstance(e.expr.callee, A.MemberExpr) and e.expr.callee.member == "apply")


def _is_hit_condition(e) -> bool:
    """An if condition the mid end applies the table for directly: `[!]t.apply().hit`."""
    while isinstance(e, A.UnaryExpr) and e.op == "!":
        e = e.operand
    return _is_hit_test(e)


def substitute(node, renames: dict):
    """Replace references (PathExpr by name) to the keys of `renames` with copies of their
    values, respecting scopes: an action's parameters and a block's local declarations
    shadow a renamed name from their declaration on."""
    if not renames:
        return node
    if isinstance(node, A.PathExpr) and not node.is_global and node.name in renames:
        return copy.deepcopy(renames[node.name])
    if isinstance(node, (A.ActionDecl, A.FunctionDecl)):
        shadowed = {p.name for p in node.params}
        renames = {k: v for k, v in renames.items() if k not in shadowed}
    if isinstance(node, A.BlockStmt):
        out = []
        for st in node.stmts:
            out.append(substitute(st, renames))
            if isinstance(st, A.Decl) and st.name in renames:
                renames = {k: v for k, v in renames.items() if k != st.name}
        node.stmts = out
        return node
    if isinstance(node, A.ForStmt):
        # a declaration in the init part shadows from there on, as in a block
        init = []
        for st in node.init:
            init.append(substitute(st, renames))
            if isinstance(st, A.Decl) and st.name in renames:
                renames = {k: v for k, v in renames.items() if k != st.name}
        node.init = init
        if node.cond is not None:
            node.cond = substitute(node.cond, renames)
        node.updates = [substitute(st, renames) for st in node.updates]
        node.body = substitute(node.body, renames)
        return node
    for name in A._child_fields(type(node)):
        v = getattr(node, name)
        if isinstance(v, A.Node):
            setattr(node, name, substitute(v, renames))
        elif isinstance(v, list):
            setattr(node, name, [
                substitute(x, renames) if isinstance(x, A.Node)
                else tuple(substitute(y, renames) if isinstance(y, A.Node) else y for y in x)
                if isinstance(x, tuple) else x
                for x in v])
    return node


def relist_annotations(program: A.Program) -> None:
    """Copied declarations carry copies of their annotations: list them all again."""
    program.all_annotations = [n for n in A.walk(program) if isinstance(n, A.Annotation)]


class InstanceInliningPass:
    """Pass: inline the instances ``inliner`` (a sub-control or sub-parser inliner class) finds,
    with the names and return removal of the function inliner left in ``ctx.inliner``; the
    annotations listed again when anything was copied."""
    name = ""
    inliner: type

    def run(self, ctx) -> None:
        self.inliner(ctx.program, ctx.diags, ctx.inliner).run()
        if ctx.inliner.changed:
            relist_annotations(ctx.program)


class InlineFunctions:
    """Pass: inline every call of a non-generic function (see the module doc). The inliner
    stays in `ctx.inliner`: the control and parser inlining passes take fresh names from it
    (names in the JSON continue one numbering) and its removal of returns."""
    name = "InlineFunctions"

    def run(self, ctx) -> None:
        ctx.inliner = FunctionInliner(ctx.program, ctx.diags)
        ctx.inliner.run()
        if ctx.inliner.changed:
            relist_annotations(ctx.program)
