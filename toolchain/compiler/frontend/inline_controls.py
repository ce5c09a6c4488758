"""Inline sub-controls (spec 15.x "Control blocks", 16 "Control block instantiation") into
the control that instantiates them, before type checking, as p4c's `InlineControls`
does for BMv2 (which has one pipeline per control block and no calls between them).

    control Sub(inout headers_t h, inout bit<8> x) { table t {...} apply { t.apply(); } }
    control Outer(...) {
        Sub() s;
        apply { s.apply(hdr, meta.v); }
    }

becomes, in Outer:

    bit<8> s_x_N;                                   // a copy for a scalar parameter
    @name("s.t") table s_t_N {...h -> hdr, x -> s_x_N...}
    apply { { s_x_N = meta.v; t-body...; meta.v = s_x_N; } }

Names: every table, action and extern instance of the sub-control keeps its control-plane
name under the instance's name, as p4c gives it (`Outer.s.t`, from `@name("s.t")`; an
`@name` it already had is prefixed the same way, a global `@name(".x")` is kept).
Parameters: a header, struct, stack or union argument (an l-value) is substituted for the
parameter; a scalar is copied in (in, inout, directionless) and out (out, inout) through a
control-local variable (spec 6.8). A `return` in the sub-control's apply block ends only the
inlined block (a flag, as for functions); `exit` keeps its meaning (spec 12.x).

Inlined: instances without constructor arguments or with value arguments (substituted),
or given other instances of the caller for control-typed constructor parameters (spec 16.1:
`Count() c; Then(c) t1; Then(c) t2;`; `c` is inlined where the inlined t1 and t2 apply it);
applied once or never (dropped), or applied several times when they have no tables (each apply
its own copy of the code; extern instances are declared once and shared, as one BMv2 object).
`C.apply(...)` on a control type (direct type invocation) applies an instance `C() C;`.
Anything else (a constructor call as an argument, a table applied from two places, instances
in parsers) is left to the checker, which refuses it by name."""
from __future__ import annotations

import copy

from ..diagnostics import Diagnostics
from . import ast as A
from .inline_functions import (FunctionInliner, InstanceInliningPass, complete_arguments,
                               substitute, _is_lvalue, _is_aggregate_ref)

CONTROL_PLANE_LOCALS = (A.TableDecl, A.ActionDecl, A.Instantiation)


class ControlInliner:
    def __init__(self, program: A.Program, diags: Diagnostics, names: FunctionInliner):
        self.program = program
        self.diags = diags
        self.names = names          # fresh names and return removal, shared with functions
        self.controls = {d.name: d for d in program.decls
                         if isinstance(d, A.ControlDecl) and not d.type_params}
        self.by_reference = names.aggregate_types | {
            d.name for d in program.decls if isinstance(d, A.HeaderDecl)}
        # named types a constructor argument may have: typedefs and enums
        self.value_types = {d.name for d in program.decls
                            if isinstance(d, (A.TypedefDecl, A.EnumDecl))}
        # control types (`control ct(inout bit<16> x);`) and controls: the types of a
        # constructor parameter that takes a control instance (spec 16.1)
        self.extern_types = {d.name for d in program.decls if isinstance(d, A.ExternDecl)}
        self.control_types = {d.name for d in program.decls
                              if isinstance(d, A.ControlTypeDecl)} | set(self.controls)

    def run(self) -> None:
        # callees are declared before their callers (spec 7.x: declare before use), so each
        # control is already free of sub-controls when it is inlined into the next
        self.inlined_with_args: set = set()
        self.not_inlined: set = set()
        for d in self.program.decls:
            if isinstance(d, A.ControlDecl):
                self.inline_into(d)
        # a control also given to the package (main) is not only a template
        for d in self.program.decls:
            if isinstance(d, A.Instantiation):
                self.not_inlined.update(n.name for a in d.args for n in A.walk(a)
                                        if isinstance(n, A.PathExpr))
        for name in self.inlined_with_args - self.not_inlined:
            self.controls[name].inlined_only = True
        # a control with constructor parameters that nothing instantiates is only a
        # declaration (a template): checked as one, like the inlined ones
        used = {l.type_ref.name for d in self.program.decls
                for l in getattr(d, "locals", ()) or ()
                if isinstance(l, A.Instantiation) and isinstance(l.type_ref, A.NamedTypeRef)}
        for name, d in self.controls.items():
            if d.ctor_params and name not in used and name not in self.not_inlined:
                d.inlined_only = True

    # ------------------------------------------------------------ one caller
    def inline_into(self, caller: A.ControlDecl) -> None:
        """Inline the caller's instances until none is left to inline. An instance given to
        another one as a constructor argument waits until that one is inlined: its applies
        appear only then. Instances never applied are dropped at the end (as p4c)."""
        self._direct_invocations(caller)
        progress = True
        while progress:
            progress = False
            for inst in [l for l in caller.locals if self._inlinable_instance(l, caller)]:
                if inst in caller.locals and not self._is_argument(inst, caller):
                    progress |= self._inline_all_applies(caller, inst)
        for inst in [l for l in caller.locals if self._inlinable_instance(l, caller)]:
            if not self._is_argument(inst, caller) and not self._calls(caller, inst):
                caller.locals.remove(inst)      # never applied: nothing to inline (as p4c)

    @staticmethod
    def _calls(caller, inst) -> list:
        return [s for s in A.walk(caller.body)
                if isinstance(s, A.CallStmt) and _applies(s.call, inst.name)]

    @staticmethod
    def _is_argument(inst, caller) -> bool:
        """Another instance of the caller takes `inst` as a constructor argument."""
        return any(isinstance(l, A.Instantiation) and l is not inst and any(
            isinstance(n, A.PathExpr) and n.name == inst.name for a in l.args for n in A.walk(a))
            for l in caller.locals)

    def _inline_all_applies(self, caller, inst) -> bool:
        """Inline every apply of `inst`; True when it was inlined (and removed)."""
        calls = self._calls(caller, inst)
        if not calls:
            return False
        callee = self.controls[inst.type_ref.name]
        if len(calls) > 1 and any(isinstance(l, A.TableDecl) for l in callee.locals):
            return False            # one table applied from two places: refused
        # extern instances are shared by all the applies (one BMv2 object), named under the
        # instance as for a single apply; actions and variables get a copy per apply
        shared = {}
        if len(calls) > 1:
            shared = self._shared_externs(caller, inst, callee)
        ok = all(self._inline_instance(caller, inst, c, named=len(calls) == 1, shared=shared)
                 for c in calls)
        if ok:
            caller.locals.remove(inst)
            if callee.ctor_params:
                self.inlined_with_args.add(callee.name)
        elif callee.ctor_params:
            self.not_inlined.add(callee.name)
        return ok

    def _shared_externs(self, caller, inst, callee) -> dict:
        renames = {}
        i = caller.locals.index(inst)
        for local in callee.locals:
            if isinstance(local, A.Instantiation):
                new = copy.deepcopy(local)
                new.name = self.names.fresh(f"{inst.name}_{local.name}")
                _prefix_name(new, inst.name, local.name)
                renames[local.name] = A.PathExpr(local.pos, new.name)
                caller.locals.insert(i, new)
                i += 1
        return renames

    def _direct_invocations(self, caller: A.ControlDecl) -> None:
        declare_direct_instances(caller, [s for s in A.walk(caller.body)
                                          if isinstance(s, A.CallStmt)], self.controls)

    def _inlinable_instance(self, local, caller=None) -> bool:
        """An instance of a user control: without constructor parameters, or with value
        parameters (bit<W>, int<W>, bool, ...) given positionally, which are substituted,
        or control-typed parameters given an instance of the caller (spec 16.1)."""
        if not isinstance(local, A.Instantiation):
            return False
        r = local.type_ref
        callee = self.controls.get(r.name) if isinstance(r, A.NamedTypeRef) else None
        if callee is None or r.args or len(local.args) != len(callee.ctor_params):
            return False
        if callee is caller:
            return False        # a control instantiating itself: refused by name resolution
        return all(self._value_type(p.type_ref) or self._instance_argument(p, a, caller)
                   for p, a in zip(callee.ctor_params, local.args)) and not any(
            isinstance(a, A.Argument) and a.name for a in local.args)

    def _instance_argument(self, param, arg, caller) -> bool:
        """A control-typed constructor parameter given a control instance of the caller."""
        r = param.type_ref
        if caller is None or not (isinstance(r, A.NamedTypeRef) and not r.args
                                  and r.name in self.control_types):
            return False
        arg = arg.expr if isinstance(arg, A.Argument) else arg
        return isinstance(arg, A.PathExpr) and any(
            isinstance(l, A.Instantiation) and l.name == arg.name
            and isinstance(l.type_ref, A.NamedTypeRef) and l.type_ref.name in self.controls
            for l in caller.locals)

    def _by_substitution(self, p, a) -> bool:
        """A directionless apply parameter (spec 6.8: a compile-time known value or an
        object instance) given an extern instance of the caller, a literal, or given to a
        parameter of type `int`: the argument itself replaces the parameter (there is no
        variable to copy an extern into, and a copy would lose a value's constness)."""
        r = p.type_ref
        if isinstance(r, A.NamedTypeRef) and r.name in self.extern_types:
            return isinstance(a, A.PathExpr)
        if isinstance(r, A.BaseTypeRef) and r.name == "int":
            return True
        return isinstance(a, (A.IntLit, A.BoolLit))

    def _substituted(self, p, a):
        """The expression that replaces directionless parameter `p` given argument `a`, or
        None when `a` is copied in (see _by_substitution)."""
        if not (p.direction == "" and self._by_substitution(p, a)):
            return None
        if isinstance(a, A.IntLit) and not (isinstance(p.type_ref, A.BaseTypeRef)
                                            and p.type_ref.name == "int"):
            return A.CastExpr(a.pos, copy.deepcopy(p.type_ref), a)   # keeps its type
        return a

    def _value_type(self, r) -> bool:
        if isinstance(r, (A.BitsTypeRef, A.BaseTypeRef)):
            return True
        return isinstance(r, A.NamedTypeRef) and not r.args and r.name in self.value_types

    def _inline_instance(self, caller, inst: A.Instantiation, call_stmt: A.CallStmt, *,
                         named: bool, shared: dict = None) -> bool:
        """Inline one apply of `inst`; False (nothing changed) when it cannot be.
        `named`: give the copies control-plane names under the instance's name (the only
        apply of the instance); an instance applied several times (no tables or externs)
        gets a fresh copy of its actions and variables per apply, as p4c does."""
        callee = self.controls[inst.type_ref.name]
        call = call_stmt.call
        complete_arguments(call, callee.params)
        if len(call.args) != len(callee.params) or any(
                isinstance(a, A.Argument) and a.name for a in call.args):
            return False            # the checker reports the mismatch
        pos = call.pos
        # constructor arguments (compile-time values) replace their parameters
        renames: dict = {p.name: (a.expr if isinstance(a, A.Argument) else a)
                         for p, a in zip(callee.ctor_params, inst.args)}
        renames.update(shared or {})
        new_locals: list = []
        # the callee's locals, renamed into the caller's namespace
        local_copies = []
        for local in callee.locals:
            if shared and local.name in shared:
                continue                    # one instance for all applies (_shared_externs)
            new = copy.deepcopy(local)
            if isinstance(new, A.TableDecl):
                _name_keys(new)
            new.name = self.names.fresh(f"{inst.name}_{local.name}")
            if named and isinstance(local, CONTROL_PLANE_LOCALS):
                _prefix_name(new, inst.name, local.name)
            renames[local.name] = A.PathExpr(local.pos, new.name)
            local_copies.append(new)
        # parameters: by reference for aggregates and headers, else through a copy
        bound = bind_apply(self.names, inst.name, callee.params, call.args, local_copies, pos,
                           renames, new_locals, self.by_reference,
                           substituted=self._substituted, aggregate_values=True)
        if bound is None:
            return False            # refused by the checker
        copy_in, inits, copy_out = bound
        body = substitute(copy.deepcopy(callee.body), renames)
        stmts = self.names._remove_returns(body.stmts, None, callee, pos)
        block = A.BlockStmt(pos, copy_in + inits + stmts + copy_out)
        _replace_stmt(caller.body, call_stmt, block)
        i = caller.locals.index(inst)
        caller.locals[i:i] = new_locals
        return True


def declare_direct_instances(caller, stmts, types: dict) -> None:
    """`T.apply(...)` among ``stmts`` on a control or parser type of ``types`` without
    constructor parameters (spec 16.2, direct type invocation) applies an instance of its own:
    declared in ``caller`` as `T() T;` (p4c names it after the type), for the inliner to take
    like any instance. An apply it cannot take (the caller itself, constructor parameters, a
    local or parameter of that name, wrong arguments) is left as written, for the checker to
    refuse."""
    applies: dict = {}
    for s in stmts:
        c = s.call.callee if isinstance(s, A.CallStmt) else None
        if (isinstance(c, A.MemberExpr) and c.member == "apply"
                and isinstance(c.expr, A.PathExpr) and c.expr.name in types):
            applies.setdefault(c.expr.name, []).append(s.call)
    for name, calls in applies.items():
        callee = types[name]
        for c in calls:
            complete_arguments(c, callee.params)
        named = any(getattr(l, "name", None) == name for l in caller.locals) or any(
            p.name == name for p in caller.params + caller.ctor_params)
        if (callee is caller or callee.ctor_params or named
                or any(len(c.args) != len(callee.params) for c in calls)):
            continue
        pos = calls[0].callee.expr.pos
        caller.locals.append(A.Instantiation(pos, name, A.NamedTypeRef(pos, name), []))


def bind_apply(names: FunctionInliner, instance: str, params, args, block_locals, pos,
               renames: dict, new_locals: list, by_reference, *, substituted=None,
               aggregate_values: bool = False):
    """Bind the parameters of one inlined apply of a sub-control or sub-parser to its
    arguments, as spec 6.8 passes them, and move the block's variables to the caller.

    A parameter becomes, in `renames`: what `substituted(p, a)` returns, when not None (a
    compile-time value); the argument itself for a header, struct, stack or union (by
    reference; `aggregate_values`: an aggregate value passed to a directionless or `in`
    parameter is copied in instead); else a fresh variable named after `instance`, appended
    to `new_locals`, copied in (in, inout, directionless) and out (out, inout). Then
    `block_locals` (the block's variables, already renamed), with `renames` applied, are
    appended to `new_locals` without their initialisers.

    Returns (copy_in, inits, copy_out), the statements to run before the block, at its start
    and after it: the block's variables are initialised when it is applied, after the
    copy-in, as their initialisers may read its parameters. None when an aggregate passed by
    reference is not an l-value: that apply is left for the checker to refuse."""
    copy_in, copy_out = [], []
    for p, a in zip(params, args):
        a = a.expr if isinstance(a, A.Argument) else a
        value = substituted(p, a) if substituted is not None else None
        if value is not None:
            renames[p.name] = value
            continue
        if _is_aggregate_ref(p.type_ref, by_reference) and (
                not aggregate_values or _is_lvalue(a) or p.direction not in ("", "in")):
            if not _is_lvalue(a):
                return None
            renames[p.name] = a
            continue
        tmp = names.fresh(f"{instance}_{p.name}")
        new_locals.append(A.VarDecl(p.pos, tmp, copy.deepcopy(p.type_ref)))
        renames[p.name] = A.PathExpr(pos, tmp)
        if p.direction in ("", "in", "inout"):
            copy_in.append(A.AssignStmt(pos, A.PathExpr(pos, tmp), a))
        if p.direction in ("out", "inout"):
            copy_out.append(A.AssignStmt(pos, copy.deepcopy(a), A.PathExpr(pos, tmp)))
    inits = []
    for local in (substitute(l, renames) for l in block_locals):
        if isinstance(local, A.VarDecl) and local.init is not None:
            inits.append(A.AssignStmt(local.pos, A.PathExpr(local.pos, local.name),
                                      local.init))
            local.init = None
        new_locals.append(local)
    return copy_in, inits, copy_out


def _applies(call, instance_name: str) -> bool:
    c = call.callee
    return (isinstance(c, A.MemberExpr) and c.member == "apply"
            and isinstance(c.expr, A.PathExpr) and c.expr.name == instance_name)


def _prefix_name(decl, instance: str, original: str) -> None:
    """`@name("inst.x")` as p4c names an inlined control's table, action or instance."""
    given = A.name_annotation(decl)
    if given is not None and given.startswith("."):
        return
    full = f"{instance}.{given if given is not None else original}"
    decl.annotations = [a for a in decl.annotations if a.name != "name"]
    decl.annotations.append(A.Annotation(decl.pos, "name", [A.StringLit(decl.pos, full)],
                                         f'"{full}"'))


def _name_keys(table: A.TableDecl) -> None:
    """Keys keep the names of the expressions written in the sub-control (p4c names a key
    after its source text before inlining: `eth.dst`, not the caller's `hdr.ethernet.dst`)."""
    for prop in table.properties:
        for k in getattr(prop, "elements", None) or getattr(prop, "keys", None) or ():
            if isinstance(k, A.KeyElement) and A.name_annotation(k) is None:
                text = _source_text(k.expr)
                if text is not None:
                    k.annotations.append(A.Annotation(k.pos, "name", [A.StringLit(k.pos, text)],
                                                      f'"{text}"'))


def _source_text(e):
    """The text p4c gives a key expression, for the shapes keys have; None otherwise."""
    if isinstance(e, A.PathExpr):
        return e.name
    if isinstance(e, A.MemberExpr):
        inner = _source_text(e.expr)
        return None if inner is None else f"{inner}.{e.member}"
    if isinstance(e, A.IndexExpr) and isinstance(e.index, A.IntLit):
        inner = _source_text(e.expr)
        return None if inner is None else f"{inner}[{e.index.value}]"
    if (isinstance(e, A.MethodCallExpr) and isinstance(e.callee, A.MemberExpr)
            and e.callee.member == "isValid" and not e.args):
        inner = _source_text(e.callee.expr)
        return None if inner is None else f"{inner}.$valid$"
    if isinstance(e, A.SliceExpr) and isinstance(e.hi, A.IntLit) and isinstance(e.lo, A.IntLit):
        inner = _source_text(e.expr)
        hi = e.lo.value + e.hi.value - 1 if e.plus else e.hi.value   # [L +: W]: folded by p4c
        return None if inner is None else f"{inner}[{hi}:{e.lo.value}]"
    return None


def _replace_stmt(root, old, new) -> None:
    """Put `new` where the statement `old` is, anywhere under `root`."""
    for n in A.walk(root):
        for name in A._child_fields(type(n)):
            v = getattr(n, name)
            if v is old:
                setattr(n, name, new)
                return
            if isinstance(v, list):
                for i, x in enumerate(v):
                    if x is old:
                        v[i] = new
                        return
    raise AssertionError("statement to replace not found")   # callers found it by walking


class InlineControls(InstanceInliningPass):
    """Pass: inline sub-control instances (see the module doc), after InlineFunctions."""
    name = "InlineControls"
    inliner = ControlInliner
