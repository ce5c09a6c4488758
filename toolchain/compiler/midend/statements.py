"""Statement lowering shared by actions, apply blocks and parser states: inside actions,
if/else, for, return and exit -> labels and jumps (BMv2 `_jump` / `_jump_if_zero`,
JSON_format.md "actions"); declarations; calls: builtin methods, direct action calls (the
action's body inlined with its arguments copied in and out). Two collaborators do the rest,
as p4c's BMv2 back end splits its ActionConverter and ExternConverter: assignments.py
(every `dst = value`) and extern_calls.py (extern functions and methods)."""
from __future__ import annotations

from ..frontend import ast, types as T
from . import externs, ir
from .assignments import AssignmentLowering, assign_primitive
from .context import Context, construct_name, folded_int, fresh_label, ir_type, source_info
from .expressions import Env, ExprLowering, describe, stack_element_arg
from .extern_calls import ExternCallLowering
from .storage import (HeaderPlace, StackPlace, StructPlace, UnionStackPlace,
                      allocate_local_header, allocate_local_stack, allocate_local_struct,
                      allocate_local_union, allocate_local_union_stack, allocate_local_varbit)
from .unsupported import Unsupported


class StmtLowering:
    """Lowers statements into a list of action items (primitives, labels, jumps)."""

    def __init__(self, ctx: Context, env: Env, *, in_parser: bool = False,
                 control_name: str = ""):
        self.ctx = ctx
        self.env = env
        self.exprs = ExprLowering(ctx, env, in_parser=in_parser)
        self.assignments = AssignmentLowering(ctx, self.exprs, in_parser=in_parser)
        self.extern_calls = ExternCallLowering(ctx, self.exprs)
        self.control_name = control_name
        self.in_parser = in_parser
        # exit inside an action body (P4_16 spec 12.x; p4c's RemoveActionParameters puts the
        # copy-out before every exit, its BMv2 back end then jumps to the end of the action):
        self.own_postamble: list = []     # this action's copy-out
        self.enclosing_exit: list = []    # copy-outs of the actions this one is inlined into
        self.exit_label = None            # end of the outermost action body
        self.loops: list = []             # (continue label, break label), innermost last

    # ------------------------------------------------------------ action bodies
    def action_body(self, stmts: list, postamble: list = ()) -> list:
        """The body's items, then `postamble` (a directly called action's copy-out), which a
        `return` reaches through the end label and an `exit` runs before exiting."""
        end = fresh_label("end")
        outermost = self.exit_label is None
        if outermost:
            # past this body's own copy-out, which an exit has already run: nothing runs
            # after an exit (BMv2's exit primitive only marks the packet)
            self.exit_label = fresh_label("exit")
        self.own_postamble = list(postamble)
        items: list = []
        self._block(stmts, items, end)
        items.append(end)
        items.extend(postamble)
        if outermost:
            items.append(self.exit_label)
        return items

    def _block(self, stmts: list, items: list, end: ir.Label) -> None:
        for s in stmts:
            self._stmt(s, items, end)

    def _stmt(self, s, items: list, end: ir.Label) -> None:
        if isinstance(s, ast.BlockStmt):
            self._block(s.stmts, items, end)
        elif isinstance(s, ast.IfStmt):
            self._if(s, items, end)
        elif isinstance(s, ast.ReturnStmt):
            items.append(ir.Jump(end))
        elif isinstance(s, ast.ExitStmt):
            # copy-out of this action and of every action it is inlined into first: BMv2's
            # exit only marks the packet, and the jump skips the rest of the whole action
            items.extend(self.own_postamble + self.enclosing_exit)
            items.append(externs.exit_(source_info(s, "exit")))
            items.append(ir.Jump(self.exit_label))
        elif isinstance(s, ast.SwitchStmt):
            raise Unsupported(s.pos, "switch statements are not allowed inside actions")
        elif isinstance(s, ast.ForStmt):
            self.lower_for(s, items, end)
        elif isinstance(s, (ast.BreakStmt, ast.ContinueStmt)):
            if not self.loops:
                raise Unsupported(s.pos, "break/continue outside a for loop")
            cont, brk = self.loops[-1]
            items.append(ir.Jump(brk if isinstance(s, ast.BreakStmt) else cont))
        else:
            items.extend(self.simple(s))

    def lower_for(self, s: ast.ForStmt, items: list, end) -> None:
        """for (init; cond; updates) body, as p4c's BMv2 back end writes it (ActionConverter,
        ForStatement): init; L_cond: _jump_if_zero(cond, L_end); body; L_update: updates;
        _jump(L_cond); L_end. `continue` jumps to L_update, `break` to L_end."""
        for st in s.init:
            self._stmt(st, items, end)
        cond_label, update_label, end_label = (fresh_label("for_cond"),
                                               fresh_label("for_update"), fresh_label("for_end"))
        items.append(cond_label)
        cond = self.exprs.lower(s.cond) if s.cond is not None else ir.Const(1, ir.BOOL)
        if isinstance(cond, ir.Const) and not cond.value:
            return                                   # never runs: only the init has effects
        if not isinstance(cond, ir.Const):
            items.append(ir.JumpIfFalse(cond, end_label))
        self.loops.append((update_label, end_label))
        try:
            self._stmt(s.body, items, end)
        finally:
            self.loops.pop()
        items.append(update_label)
        for st in s.updates:
            self._stmt(st, items, end)
        items.append(ir.Jump(cond_label))
        items.append(end_label)

    def _if(self, s: ast.IfStmt, items: list, end: ir.Label) -> None:
        cond = self.exprs.lower(s.cond)
        if isinstance(cond, ir.Const):             # decided at compile time
            chosen = s.then if cond.value else s.other
            if chosen is not None:
                self._stmt(chosen, items, end)
            return
        else_label, done = fresh_label("else"), fresh_label("endif")
        items.append(ir.JumpIfFalse(cond, else_label if s.other is not None else done))
        self._stmt(s.then, items, end)
        if s.other is not None:
            items.append(ir.Jump(done))
            items.append(else_label)
            self._stmt(s.other, items, end)
        items.append(done)

    # ------------------------------------------------------------ straight-line statements
    def simple(self, s) -> list:
        """Primitives for an assignment, call, or declaration (no control flow). A refusal
        raised without a position (storage allocation) gets the statement's."""
        try:
            return self._simple(s)
        except Unsupported as e:
            if e.pos is None:
                e.pos = s.pos
            raise

    def _simple(self, s) -> list:
        if isinstance(s, ast.AssignStmt):
            return self.assignments.assign(s.lhs, s.rhs, source_info(s, describe(s.lhs) + " = ..."))
        if isinstance(s, ast.CallStmt):
            return self.call(s.call)
        if isinstance(s, ast.VarDecl):
            return self.declare(s)
        if isinstance(s, ast.ConstDecl):
            return []                              # uses are folded by the checker
        if isinstance(s, ast.EmptyStmt):
            return []
        if isinstance(s, ast.BlockStmt):
            out = []
            for x in s.stmts:
                out.extend(self.simple(x))
            return out
        raise Unsupported(s.pos, f"{construct_name(s)} is not supported here")

    def declare(self, d: ast.VarDecl) -> list:
        t = d.p4type
        if isinstance(t, T.Header):
            place = self.declare_header(d)
            name = place.instance
            if d.init is None:
                return []
            if isinstance(d.init, (ast.ListExpr, ast.StructInitExpr)):
                return self.assignments.assign_members(place, d.init, source_info(d, d.name))
            value = self.exprs.place(d.init)
            element = stack_element_arg(value)       # stack[i] at run time, stack.last
            if element is None and not isinstance(value, HeaderPlace):
                raise Unsupported(d.init.pos, f"cannot initialise header {d.name} from "
                                              f"{describe(d.init)}")
            source = element if element is not None else ir.HeaderArg(value.instance)
            return [ir.Primitive("assign_header", [ir.HeaderArg(name), source],
                                 source_info(d, d.name))]
        if isinstance(t, T.Struct):
            place = allocate_local_struct(self.ctx, d.name, t, d.pos)
            self.env.bind(d, place)
            if d.init is None:
                return []
            src = source_info(d, d.name)
            if isinstance(d.init, (ast.ListExpr, ast.StructInitExpr)):
                return self.assignments.assign_members(place, d.init, src)
            return self.assignments.assign_place(place, d.init, src)
        if isinstance(t, T.Stack) and isinstance(t.element, T.Header):
            place = allocate_local_stack(self.ctx, d.name, t)
            self.env.bind(d, place)
            if d.init is None:
                return []
            return self.assignments.assign_place(place, d.init, source_info(d, d.name))
        if isinstance(t, T.Tuple):
            # a tuple is a struct with anonymous fields f0, f1, ... (p4c's EliminateTuples)
            fields = {f"f{i}": et for i, et in enumerate(t.elements)}
            place = allocate_local_struct(self.ctx, d.name, T.Struct(t.name, None, fields), d.pos)
            self.env.bind(d, place)
            if d.init is None:
                return []
            src = source_info(d, d.name)
            if isinstance(d.init, ast.ListExpr):
                return self.assignments.assign_members(place, d.init, src)
            return self.assignments.assign_place(place, d.init, src)
        if isinstance(t, T.HeaderUnion) or (isinstance(t, T.Stack)
                                            and isinstance(t.element, T.HeaderUnion)):
            # its own header instances, header_union (and header_union_stack), all invalid
            # at the start of each packet as p4c's locals are
            place = (allocate_local_union(self.ctx, d.name, t) if isinstance(t, T.HeaderUnion)
                     else allocate_local_union_stack(self.ctx, d.name, t))
            self.env.bind(d, place)
            if d.init is None:
                return []
            return self.assignments.assign(ast.PathExpr(d.pos, d.name, decl=d, type=t), d.init,
                               source_info(d, d.name))
        if isinstance(t, T.Stack):
            raise Unsupported(d.pos, f"local variables of type {t} are not supported")
        if isinstance(t, T.Varbit):
            ref = allocate_local_varbit(self.ctx, d.name, t)
        else:
            ref = self.ctx.scalars.temp(d.name, ir_type(t, d.pos))
        self.env.bind(d, ref)
        if d.init is not None:
            return [assign_primitive(ref, self.exprs.lower(d.init), source_info(d, d.name))]
        return []

    def declare_header(self, d: ast.VarDecl) -> HeaderPlace:
        """A header-typed local variable: its own (metadata=false) header instance."""
        place = allocate_local_header(self.ctx, d.name, d.p4type)
        self.env.bind(d, place)
        return place

    # ------------------------------------------------------------ calls
    def call(self, c: ast.MethodCallExpr) -> list:
        src = source_info(c, describe(c.callee))
        if c.builtin in ("setValid", "setInvalid"):
            p = self.exprs.place(c.receiver)
            element = stack_element_arg(p)
            if element is not None:     # stack[i] with i known at run time: one primitive
                return [ir.Primitive("add_header" if c.builtin == "setValid"
                                     else "remove_header", [element], src)]
            if not isinstance(p, HeaderPlace):
                raise Unsupported(c.pos, f"{c.builtin}() is only supported on headers")
            return self.assignments.set_valid(p, c.builtin == "setValid", src)
        if c.builtin in ("push_front", "pop_front"):
            p = self.exprs.place(c.receiver)
            n = folded_int(c.args[0], f"the argument of {c.builtin}")
            if isinstance(p, UnionStackPlace):
                # BMv2's push / pop shift whole unions of a header_union_stack
                return [ir.Primitive("push" if c.builtin == "push_front" else "pop",
                                     [ir.NamedArg("header_union_stack", p.path),
                                      ir.DataArg(n, 0)], src)]
            if not isinstance(p, StackPlace):
                raise Unsupported(c.pos, f"{c.builtin}() is only supported on header stacks")
            return [externs.stack_shift(p.name, n, c.builtin == "push_front", src)]
        if c.builtin == "isValid":
            return []
        if c.kind == "action":
            return self.inline_action(c)
        if c.kind == "extern_function":
            return self.extern_calls.extern_function(c, src)
        if c.kind == "extern_method":
            return self.extern_calls.extern_method(c, src)
        if c.kind == "table_apply":
            raise Unsupported(c.pos, "tables can only be applied in a control's apply block")
        if c.kind == "apply":
            raise Unsupported(c.pos, "applying a sub-parser or sub-control is not supported")
        raise Unsupported(c.pos, f"call of {describe(c.callee)} is not supported")

    def inline_action(self, c: ast.MethodCallExpr) -> list:
        """A direct action call: the action's body with its parameters bound to copies of
        the arguments (P4_16 spec 6.8: copy-in for in/inout, copy-out for out/inout, also
        on return and exit). A header or struct argument is bound to the argument itself
        when no copy can be told apart from it: the body (or an action it calls) never
        names the argument's variable and no other argument shares it."""
        action: ast.ActionDecl = c.method
        env = self.env.child()
        copy_in, copy_out = [], []
        for param, arg in zip(action.params, c.args):
            src = source_info(arg)
            if param.direction in ("out", "inout") and isinstance(arg, ast.SliceExpr):
                # a slice argument: a copy of its bits, written back into the slice
                tmp = self.ctx.scalars.temp(param.name, ir_type(param.p4type, param.pos))
                if param.direction == "inout":
                    copy_in.append(ir.Primitive("assign", [tmp, self.exprs.lower(arg)], src))
                copy_out.append(self.assignments.assign_slice_value(arg, tmp, src))
                env.bind(param, tmp)
                continue
            if param.direction == "inout" and not _names_decl(action, param) and (
                    _root_decl(arg) is not None and not _names_decl(action, _root_decl(arg))):
                # neither the parameter nor the argument's variable is used by the body:
                # the copy-in/copy-out would write back the value just read (p4c removes
                # it too, so e.g. an out-of-range h[i] argument is never accessed)
                continue
            if param.direction in ("out", "inout"):
                place = self.exprs.place(arg)
                if self.bind_field_copy(env, param, place, src, copy_in, copy_out):
                    continue
                if (isinstance(place, (HeaderPlace, StructPlace))
                        and _needs_copy(action, arg, c.args)):
                    tmp = self._aggregate_copy(param, place)
                    if param.direction == "inout":
                        copy_in.extend(self._copy(tmp, place, arg.pos, src))
                    elif isinstance(tmp, HeaderPlace):      # an out header starts invalid
                        copy_in.append(externs.set_valid(tmp.instance, False, src))
                    copy_out.extend(self._copy(place, tmp, arg.pos, src))
                    env.bind(param, tmp)
                else:
                    if param.direction == "out" and isinstance(place, HeaderPlace):
                        # bound to the argument itself: it starts invalid, as the copy would
                        copy_in.append(externs.set_valid(place.instance, False, src))
                    env.bind(param, place)
            elif isinstance(param.p4type, (T.Header, T.Struct)) and isinstance(
                    arg, (ast.ListExpr, ast.StructInitExpr)):
                # a list or struct expression argument: a copy built member by member
                tmp = self._aggregate_copy(param, _TypedPlace(param.p4type))
                copy_in.extend(self.assignments.assign_members(tmp, arg, src))
                env.bind(param, tmp)
            elif isinstance(param.p4type, (T.Header, T.Struct, T.Stack)):
                place = self.exprs.place(arg)
                if (isinstance(place, (HeaderPlace, StructPlace))
                        and _needs_copy(action, arg, c.args)):
                    tmp = self._aggregate_copy(param, place)
                    copy_in.extend(self._copy(tmp, place, arg.pos, src))
                    place = tmp
                env.bind(param, place)
            else:
                self.bind_in_value(env, param, arg, src, copy_in)
        inner = StmtLowering(self.ctx, env, in_parser=self.in_parser,
                             control_name=self.control_name)
        inner.enclosing_exit = self.own_postamble + self.enclosing_exit
        inner.exit_label = self.exit_label
        # return jumps to the body's end label, followed by the copy-out; exit runs it first
        return copy_in + inner.action_body(action.body.stmts, copy_out)

    def bind_field_copy(self, env: Env, param: ast.Param, place, src, copy_in: list,
                        copy_out: list) -> bool:
        """An out/inout parameter whose argument is a field (or a stack element's): bound to a
        copy (copied in for inout, out on return), so a write to the argument's own location
        inside the body is overwritten on return (spec 6.8). False, nothing done, for any other
        place."""
        if not isinstance(place, (ir.FieldRef, ir.StackElementField)):
            return False
        tmp = self.ctx.scalars.temp(param.name, place.type)
        if param.direction == "inout":
            copy_in.append(ir.Primitive("assign", [tmp, place], src))
        copy_out.append(ir.Primitive("assign", [place, tmp], src))
        env.bind(param, tmp)
        return True

    def bind_in_value(self, env: Env, param: ast.Param, arg, src, copy_in: list) -> None:
        """A scalar in-parameter: bound to the argument's value, a constant as it is, anything
        else copied in (spec 6.7: the body may change what the argument reads)."""
        value = self.exprs.lower(arg)
        if not isinstance(value, ir.Const):
            tmp = self.ctx.scalars.temp(param.name, value.type)
            copy_in.append(ir.Primitive("assign", [tmp, value], src))
            value = tmp
        env.bind(param, value)

    def _aggregate_copy(self, param: ast.Param, place):
        if isinstance(place.type, T.Header):
            return allocate_local_header(self.ctx, param.name, place.type)
        return allocate_local_struct(self.ctx, param.name, place.type, param.pos)

    def _copy(self, dst, src_place, pos, src) -> list:
        if isinstance(dst, HeaderPlace):
            return self.assignments.assign_header(dst, src_place, src, pos)
        return self.assignments.assign_struct(dst, src_place, pos, src)


class _TypedPlace:
    """Only a type: what _aggregate_copy needs to allocate a copy of a value with no place."""
    def __init__(self, t):
        self.type = t


def _root_decl(e):
    """The variable or parameter an l-value path starts from (h for h.eth.src)."""
    while isinstance(e, (ast.MemberExpr, ast.IndexExpr, ast.SliceExpr)):
        e = e.expr
    return e.decl if isinstance(e, ast.PathExpr) else None


def _names_decl(action: ast.ActionDecl, decl, seen=None) -> bool:
    """Does the action's body, or an action it calls directly, name `decl`?"""
    seen = set() if seen is None else seen
    if id(action) in seen:
        return False
    seen.add(id(action))
    for n in ast.walk(action.body):
        if isinstance(n, ast.PathExpr) and n.decl is decl:
            return True
        if (isinstance(n, ast.MethodCallExpr) and n.kind == "action"
                and _names_decl(n.method, decl, seen)):
            return True
    return False


def _needs_copy(action: ast.ActionDecl, arg, args) -> bool:
    """Whether binding a header/struct parameter to its argument could differ from the
    copy the spec prescribes: only when the same storage is reachable another way."""
    root = _root_decl(arg)
    if root is None:
        return True
    if any(a is not arg and _root_decl(a) is root for a in args):
        return True
    return _names_decl(action, root)
