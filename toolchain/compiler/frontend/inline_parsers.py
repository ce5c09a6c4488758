"""Inline sub-parsers (spec 13.x "Parser invocation" / "Sub-parsers") into the parser that
instantiates them, before type checking, as p4c's `InlineParsers` does (BMv2 has one parse
graph and no calls between parsers).

A state `s { a; sub.apply(pkt, hdr, x); b; transition T; }` becomes

    s       { a; copy-in; transition sub_start_N; }
    sub_<state>_N ...   the sub-parser's states, renamed; `accept` -> s_after_N,
                        `reject` stays the parser's reject
    s_after_N { copy-out; b; transition T; }

and each apply gets its own copy of the sub-parser's states (p4c inlines every invocation
separately). Parameters as for sub-controls, by the same function (inline_controls.py's
`bind_apply`): the packet, headers and structs by reference, scalars copied in and out through
parser-local variables. The sub-parser's own local variables become locals of the caller,
renamed. `P.apply(...)` on a parser type (direct type invocation, spec 16.2) applies an
instance `P() P;` added here."""
from __future__ import annotations

import copy

from ..diagnostics import Diagnostics
from . import ast as A
from .inline_controls import bind_apply, declare_direct_instances
from .inline_functions import (FunctionInliner, InstanceInliningPass, complete_arguments,
                               substitute)

BUILTIN_STATES = ("accept", "reject")


class ParserInliner:
    def __init__(self, program: A.Program, diags: Diagnostics, names: FunctionInliner):
        self.program = program
        self.diags = diags
        self.names = names
        self.parsers = {d.name: d for d in program.decls
                        if isinstance(d, A.ParserDecl) and not d.type_params}
        self.by_reference = names.aggregate_types | {
            d.name for d in program.decls if isinstance(d, A.HeaderDecl)} | {"packet_in"}

    def run(self) -> None:
        # callees are declared first: each is free of sub-parsers when inlined into the next
        for d in self.program.decls:
            if isinstance(d, A.ParserDecl):
                self.inline_into(d)

    def inline_into(self, caller: A.ParserDecl) -> None:
        self._direct_invocations(caller)
        instances = {l.name: l for l in caller.locals if self._inlinable_instance(l, caller)}
        if not instances:
            return
        pending = list(caller.states)
        while pending:
            state = pending.pop(0)
            for k, st in enumerate(state.stmts):
                inst = _applied_instance(st, instances)
                if inst is None:
                    continue
                new_states = self._split(caller, state, k, inst)
                if new_states is None:
                    break                   # left for the checker to refuse
                i = caller.states.index(state)
                caller.states[i + 1:i + 1] = new_states
                pending = [new_states[-1]] + pending    # the rest of the split state
                break
        applied = {n for n in instances if any(_applied_instance(st, {n: instances[n]})
                                               for s in caller.states for st in s.stmts)}
        # inlined, or never applied (dropped, as p4c does); an apply left behind (one that
        # could not be inlined) keeps its instance for the checker to refuse
        caller.locals = [l for l in caller.locals
                         if not (isinstance(l, A.Instantiation) and l.name in instances
                                 and l.name not in applied)]

    def _direct_invocations(self, caller: A.ParserDecl) -> None:
        # every such apply is then inlined separately
        declare_direct_instances(caller, [st for state in caller.states for st in state.stmts],
                                 self.parsers)

    def _inlinable_instance(self, local, caller: A.ParserDecl) -> bool:
        if not isinstance(local, A.Instantiation) or local.args:
            return False
        r = local.type_ref
        callee = self.parsers.get(r.name) if isinstance(r, A.NamedTypeRef) else None
        # a parser instantiating itself is refused by name resolution (a self-reference)
        return (callee is not None and callee is not caller and not callee.ctor_params
                and not r.args)

    def _split(self, caller, state: A.ParserState, k: int, inst: A.Instantiation):
        callee = self.parsers[inst.type_ref.name]
        call = state.stmts[k].call
        complete_arguments(call, callee.params)
        if len(call.args) != len(callee.params) or any(
                isinstance(a, A.Argument) and a.name for a in call.args):
            return None
        pos = call.pos
        k = self._hoist_state_locals(caller, state, k)
        call = state.stmts[k].call
        after = self.names.fresh(f"{state.name}_after_{inst.name}")
        renames: dict = {"accept": A.PathExpr(pos, after)}
        for st in callee.states:
            renames[st.name] = A.PathExpr(st.pos, self.names.fresh(f"{inst.name}_{st.name}"))
        new_locals = []
        for local in callee.locals:
            new = copy.deepcopy(local)
            new.name = self.names.fresh(f"{inst.name}_{local.name}")
            renames[local.name] = A.PathExpr(local.pos, new.name)
            new_locals.append(new)
        bound = bind_apply(self.names, inst.name, callee.params, call.args, new_locals, pos,
                           renames, caller.locals, self.by_reference)
        if bound is None:
            return None
        copy_in, inits, copy_out = bound
        copies = []
        for st in callee.states:
            new = copy.deepcopy(st)
            new.name = renames[st.name].name
            new.stmts = [substitute(x, renames) for x in new.stmts]
            if st.name == "start":
                new.stmts = inits + new.stmts
            new.transition = substitute(new.transition, renames) \
                if new.transition is not None else None
            copies.append(new)
        rest = A.ParserState(pos, after, copy_out + state.stmts[k + 1:], state.transition)
        state.stmts = state.stmts[:k] + copy_in
        state.transition = A.PathExpr(pos, renames["start"].name) if "start" in renames \
            else A.PathExpr(pos, "reject")
        return copies + [rest]


    def _hoist_state_locals(self, caller, state: A.ParserState, k: int) -> int:
        """Variables the state declares before the apply at stmts[k] become (renamed)
        variables of the parser: the statements after the apply move to another state,
        where they must still be visible. An initialiser becomes an assignment in place.
        Returns the apply's new index."""
        renames: dict = {}
        before = []
        for st in state.stmts[:k]:
            if renames:
                st = substitute(st, renames)
            if isinstance(st, A.VarDecl):
                new = self.names.fresh(f"{state.name}_{st.name}")
                caller.locals.append(A.VarDecl(st.pos, new, copy.deepcopy(st.type_ref)))
                renames[st.name] = A.PathExpr(st.pos, new)
                if st.init is not None:
                    before.append(A.AssignStmt(st.pos, A.PathExpr(st.pos, new), st.init))
                continue
            before.append(st)
        if renames:
            state.stmts = before + [substitute(x, renames) for x in state.stmts[k:]]
            if state.transition is not None:
                state.transition = substitute(state.transition, renames)
        return len(before)


def _applied_instance(st, instances: dict):
    """The instance `st` applies (`sub.apply(...);`), if it is one of `instances`."""
    if not isinstance(st, A.CallStmt):
        return None
    c = st.call.callee
    if (isinstance(c, A.MemberExpr) and c.member == "apply" and isinstance(c.expr, A.PathExpr)
            and c.expr.name in instances):
        return instances[c.expr.name]
    return None


class InlineParsers(InstanceInliningPass):
    """Pass: inline sub-parser instances (see the module doc), after InlineControls."""
    name = "InlineParsers"
    inliner = ParserInliner
