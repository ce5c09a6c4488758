"""Statement lowering shared by actions, apply blocks and parser states: assignments, extern
calls and builtin methods -> BMv2 primitives; inside actions, if/else and return -> labels and
jumps (BMv2 `_jump` / `_jump_if_zero`, JSON_format.md "actions")."""
from __future__ import annotations

from itertools import count
from pathlib import Path

from ..frontend import ast, types as T
from . import externs, ir
from .context import Context, construct_name, ir_type, source_info
from .expressions import Env, ExprLowering, describe, stack_element_arg
from .storage import (HeaderPlace, HeaderStructPlace, StackPlace, StructPlace, UnionPlace,
                      UnionStackPlace, allocate_local_union, allocate_local_union_stack,
                      allocate_local_header, header_leaves,
                      allocate_local_varbit,
                      allocate_local_stack, allocate_local_struct)
from .unsupported import Unsupported

_labels = count()


def assign_primitive(dst: ir.Expr, value: ir.Expr, src) -> ir.Primitive:
    """dst = value: `assign`, or `assign_VL` for a varbit field, which copies the current
    length with the value (as p4c's ActionConverter::jsonAssignment)."""
    op = "assign_VL" if isinstance(dst.type, ir.Varbit) else "assign"
    return ir.Primitive(op, [dst, value], src)


def _fresh_label(base: str) -> ir.Label:
    return ir.Label(f"{base}_{next(_labels)}")


def _folded_int(e: ast.Expr, what: str) -> int:
    v = getattr(e, "folded", None)
    if not isinstance(v, int) or isinstance(v, bool):
        raise Unsupported(e.pos, f"{what} must be a compile-time constant")
    return v


def enum_member_name(e: ast.Expr) -> str:
    if isinstance(e, ast.MemberExpr) and e.kind == "enum":
        return e.member
    raise Unsupported(e.pos, f"expected an enum constant, got {describe(e)}")


class StmtLowering:
    """Lowers statements into a list of action items (primitives, labels, jumps)."""

    def __init__(self, ctx: Context, env: Env, *, in_parser: bool = False,
                 control_name: str = ""):
        self.ctx = ctx
        self.env = env
        self.exprs = ExprLowering(ctx, env, in_parser=in_parser)
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
        end = _fresh_label("end")
        outermost = self.exit_label is None
        if outermost:
            # past this body's own copy-out, which an exit has already run: nothing runs
            # after an exit (BMv2's exit primitive only marks the packet)
            self.exit_label = _fresh_label("exit")
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
        cond_label, update_label, end_label = (_fresh_label("for_cond"),
                                               _fresh_label("for_update"), _fresh_label("for_end"))
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
        else_label, done = _fresh_label("else"), _fresh_label("endif")
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
            return self.assign(s.lhs, s.rhs, source_info(s, describe(s.lhs) + " = ..."))
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
                return self._assign_members(place, d.init, source_info(d, d.name))
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
                return self._assign_members(place, d.init, src)
            return self.assign_place(place, d.init, src)
        if isinstance(t, T.Stack) and isinstance(t.element, T.Header):
            place = allocate_local_stack(self.ctx, d.name, t)
            self.env.bind(d, place)
            if d.init is None:
                return []
            return self.assign_place(place, d.init, source_info(d, d.name))
        if isinstance(t, T.Tuple):
            # a tuple is a struct with anonymous fields f0, f1, ... (p4c's EliminateTuples)
            fields = {f"f{i}": et for i, et in enumerate(t.elements)}
            place = allocate_local_struct(self.ctx, d.name, T.Struct(t.name, None, fields), d.pos)
            self.env.bind(d, place)
            if d.init is None:
                return []
            src = source_info(d, d.name)
            if isinstance(d.init, ast.ListExpr):
                return self._assign_members(place, d.init, src)
            return self.assign_place(place, d.init, src)
        if isinstance(t, T.HeaderUnion) or (isinstance(t, T.Stack)
                                            and isinstance(t.element, T.HeaderUnion)):
            # its own header instances, header_union (and header_union_stack), all invalid
            # at the start of each packet as p4c's locals are
            place = (allocate_local_union(self.ctx, d.name, t) if isinstance(t, T.HeaderUnion)
                     else allocate_local_union_stack(self.ctx, d.name, t))
            self.env.bind(d, place)
            if d.init is None:
                return []
            return self.assign(ast.PathExpr(d.pos, d.name, decl=d, type=t), d.init,
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

    def assign(self, lhs: ast.Expr, rhs: ast.Expr, src) -> list:
        if isinstance(lhs, ast.SliceExpr):
            return [self._assign_slice(lhs, rhs, src)]
        target = self.exprs.place(lhs)
        if isinstance(target, (ir.FieldRef, ir.StackElementField)):
            # a field, or a field of stack[i] with i known at run time (access_field l-value)
            return [assign_primitive(target, self.exprs.lower(rhs), src)]
        if isinstance(rhs, (ast.ListExpr, ast.StructInitExpr)):
            return self._assign_members(target, rhs, src)
        if isinstance(target, HeaderPlace):
            value = self.exprs.place(rhs)
            if isinstance(value, HeaderPlace):
                return self.assign_header(target, value, src, lhs.pos)
        dynamic = self._assign_stack_element(lhs, target, rhs, src)
        if dynamic is not None:
            return dynamic
        if isinstance(target, UnionPlace):
            value = self.exprs.place(rhs)
            if isinstance(value, UnionPlace) and value.type == target.type:
                # member by member: validity copied exactly, so the union rule holds
                return [ir.Primitive("assign_header", [ir.HeaderArg(d.instance),
                                                       ir.HeaderArg(v.instance)], src)
                        for d, v in zip(target.members(), value.members())]
        if isinstance(target, StackPlace):
            value = self.exprs.place(rhs)
            if isinstance(value, StackPlace):
                return [ir.Primitive("assign_header_stack", [ir.StackArg(target.name),
                                                             ir.StackArg(value.name)], src)]
        if isinstance(target, UnionStackPlace):
            value = self.exprs.place(rhs)
            if isinstance(value, UnionStackPlace) and value.type == target.type:
                return [union_stack_copy(target, value, src)]
        if isinstance(target, StructPlace):
            value = self.exprs.place(rhs)
            if isinstance(value, HeaderStructPlace):
                return self._assign_struct_fields(target, value, lhs.pos, src)
            if isinstance(value, StructPlace):
                return self._assign_struct(target, value, lhs.pos, src)
        if isinstance(target, HeaderStructPlace):
            return self._assign_struct_fields(target, self.exprs.place(rhs), lhs.pos, src)
        raise Unsupported(lhs.pos, f"assignment to {describe(lhs)} from {describe(rhs)} "
                                   "is not supported")

    def _assign_stack_element(self, lhs, target, rhs, src):
        """h = stack[i] / stack[i] = h / h = stack.last with i a run-time value: one
        assign_header whose operand is a dereference_header_stack expression, as p4c writes
        it (BMv2 builds header operands from expressions, P4Objects::process_primitive_call).
        None when neither side is such an element."""
        if isinstance(target, (ir.FieldRef, ir.StackElementField)) or not (
                _names_stack_element(lhs) or _names_stack_element(rhs)):
            return None
        value = self.exprs.place(rhs)
        dst, val = stack_element_arg(target), stack_element_arg(value)
        if dst is None and val is None:
            return None
        if dst is None and isinstance(target, HeaderPlace):
            if self.ctx.storage.union_siblings.get(target.instance):
                return None
            dst = ir.HeaderArg(target.instance)
        if val is None and isinstance(value, HeaderPlace):
            val = ir.HeaderArg(value.instance)
        if dst is None or val is None:
            return None
        return [ir.Primitive("assign_header", [dst, val], src)]

    def _assign_members(self, target, rhs, src) -> list:
        """h = {a, b} / s = {f = a, g = b}: member by member; a header also becomes valid
        (spec 8.12: a header assigned from a list is valid), valid first because BMv2's
        add_header zeroes the fields."""
        if isinstance(target, HeaderPlace):
            names, out = list(target.type.fields), self.set_valid(target, True, src)
            member = lambda n: self.exprs.header_member(target, n, rhs.pos)  # noqa: E731
        elif isinstance(target, StructPlace):
            names, out = list(target.type.fields), []
            member = lambda n: self.ctx.storage.member(target, n, rhs.pos)  # noqa: E731
        elif isinstance(target, HeaderStructPlace):
            names, out = list(target.type.fields), []
            member = lambda n: target.member(n, rhs.pos)                    # noqa: E731
        else:
            raise Unsupported(rhs.pos, "a list or struct expression can only be assigned to a "
                                       "header or struct")
        values = (list(zip(names, rhs.items)) if isinstance(rhs, ast.ListExpr)
                  else list(rhs.fields))
        if len(values) != len(names):
            raise Unsupported(rhs.pos, f"{len(values)} values for {len(names)} fields")
        for name, value in values:
            m = member(name)
            if isinstance(m, ir.FieldRef):
                out.append(assign_primitive(m, self.exprs.lower(value), src))
            elif isinstance(value, (ast.ListExpr, ast.StructInitExpr)):
                out.extend(self._assign_members(m, value, src))
            else:
                out.extend(self.assign_place(m, value, src))
        return out

    def assign_place(self, target, rhs, src) -> list:
        value = self.exprs.place(rhs)
        if isinstance(target, HeaderStructPlace) or isinstance(value, HeaderStructPlace):
            return self._assign_struct_fields(target, value, rhs.pos, src)
        if isinstance(target, HeaderPlace) and isinstance(value, HeaderPlace):
            return self.assign_header(target, value, src, rhs.pos)
        if isinstance(target, StructPlace) and isinstance(value, StructPlace):
            return self._assign_struct(target, value, rhs.pos, src)
        if isinstance(target, StackPlace) and isinstance(value, StackPlace):
            return [ir.Primitive("assign_header_stack", [ir.StackArg(target.name),
                                                         ir.StackArg(value.name)], src)]
        raise Unsupported(rhs.pos, f"cannot assign {describe(rhs)} here")

    # ------------------------------------------------------------ header validity
    def set_valid(self, h: HeaderPlace, valid: bool, src) -> list:
        """setValid/setInvalid; a union member made valid invalidates the other members
        (spec 8.20, as BMv2 does for the members of a JSON header_union)."""
        out = [externs.set_valid(h.instance, valid, src)]
        if valid:
            out += [externs.set_valid(o, False, src)
                    for o in self.ctx.storage.union_siblings.get(h.instance, ())]
        return out

    def assign_header(self, dst: HeaderPlace, value: HeaderPlace, src, pos) -> list:
        """dst = value (validity included); into a union member, the other members become
        invalid when the copy made it valid. BMv2 does that itself for a member of a JSON
        header_union (Header::mark_valid tells the union, which invalidates the member
        valid before), so in a parser, where no jump exists, the copy alone is emitted; in
        actions the invalidation is also spelled out."""
        out = [ir.Primitive("assign_header", [ir.HeaderArg(dst.instance),
                                              ir.HeaderArg(value.instance)], src)]
        siblings = self.ctx.storage.union_siblings.get(dst.instance, ())
        if siblings and not self.in_parser:
            skip = _fresh_label("union")
            out.append(ir.JumpIfFalse(ir.ValidRef(dst.instance), skip))
            out += [externs.set_valid(o, False, src) for o in siblings]
            out.append(skip)
        return out

    def _assign_slice(self, lhs: ast.SliceExpr, rhs: ast.Expr, src) -> ir.Primitive:
        return self.assign_slice_value(lhs, self.exprs.lower(rhs), src)

    def assign_slice_value(self, lhs: ast.SliceExpr, rhs: ir.Expr, src) -> ir.Primitive:
        """f[hi:lo] = v  ->  f = (f & ~(m << lo)) | ((v & m) << lo), computed at f's width.
        A slice of a slice (`n[7:4][3:0]`) is the slice of n at the combined offsets."""
        hi, lo = lhs.hi_value, lhs.lo_value
        base = lhs.expr
        while isinstance(base, ast.SliceExpr):
            hi, lo = base.lo_value + hi, base.lo_value + lo
            base = base.expr
        field = self.exprs.lvalue(base)
        t = field.type
        if not isinstance(t, ir.Bits):
            raise Unsupported(lhs.pos, "slices of bool values cannot be assigned")
        part = ir.Bits(hi - lo + 1)
        ut = ir.Bits(t.width)
        keep = ir.Const(t.mask & ~(part.mask << lo), ut)
        bits = ir.Cast(field, ut) if t.signed else field
        value = ir.Cast(rhs, ut)
        placed = ir.Binary("<<", value, ir.Const(lo, ir.Bits(8)), ut) if lo else value
        combined = ir.Binary("|", ir.Binary("&", bits, keep, ut), placed, ut)
        return ir.Primitive("assign", [field, ir.Cast(combined, t) if t.signed else combined],
                            src)

    def _struct_member(self, place, name: str, pos):
        if isinstance(place, HeaderStructPlace):
            return place.member(name, pos)
        return self.ctx.storage.member(place, name, pos)

    def _assign_struct_fields(self, dst, value, pos, src) -> list:
        """A struct-typed header field copied from or to a struct (`hdr.h.row = meta.row`):
        scalar by scalar (the header field is flattened, header_leaves)."""
        if not (isinstance(dst, (HeaderStructPlace, StructPlace)) and
                isinstance(value, (HeaderStructPlace, StructPlace)) and dst.type == value.type):
            raise Unsupported(pos, "a struct-typed header field can only be copied from or to "
                                   "a value of the same struct type")
        out = []
        for name in dst.type.fields:
            d, v = self._struct_member(dst, name, pos), self._struct_member(value, name, pos)
            if isinstance(d, ir.FieldRef) and isinstance(v, ir.FieldRef):
                out.append(assign_primitive(d, v, src))
            else:
                out.extend(self._assign_struct_fields(d, v, pos, src))
        return out

    def _assign_struct(self, dst: StructPlace, src_place: StructPlace, pos, src) -> list:
        out = []
        storage = self.ctx.storage
        for name in dst.type.fields:
            d = storage.member(dst, name, pos)
            s = storage.member(src_place, name, pos)
            if isinstance(d, ir.FieldRef):
                out.append(ir.Primitive("assign", [d, s], src))
            elif isinstance(d, HeaderPlace):
                out.append(ir.Primitive("assign_header", [ir.HeaderArg(d.instance),
                                                          ir.HeaderArg(s.instance)], src))
            elif isinstance(d, UnionPlace):       # every member: validity copied exactly
                out += [ir.Primitive("assign_header", [ir.HeaderArg(dm.instance),
                                                       ir.HeaderArg(sm.instance)], src)
                        for dm, sm in zip(d.members(), s.members())]
            elif isinstance(d, StructPlace):
                out.extend(self._assign_struct(d, s, pos, src))
            elif isinstance(d, StackPlace):
                out.append(ir.Primitive("assign_header_stack", [ir.StackArg(d.name),
                                                                ir.StackArg(s.name)], src))
            elif isinstance(d, UnionStackPlace):
                out.append(union_stack_copy(d, s, src))
            else:
                raise Unsupported(pos, f"struct assignment of member {name} is not supported")
        return out

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
            return self.set_valid(p, c.builtin == "setValid", src)
        if c.builtin in ("push_front", "pop_front"):
            p = self.exprs.place(c.receiver)
            n = _folded_int(c.args[0], f"the argument of {c.builtin}")
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
            return self.extern_function(c, src)
        if c.kind == "extern_method":
            return self.extern_method(c, src)
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
                copy_out.append(self.assign_slice_value(arg, tmp, src))
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
                if isinstance(place, (ir.FieldRef, ir.StackElementField)):
                    # the body works on a copy, so a write to the argument's own location
                    # inside the body is overwritten on return
                    tmp = self.ctx.scalars.temp(param.name, place.type)
                    if param.direction == "inout":
                        copy_in.append(ir.Primitive("assign", [tmp, place], src))
                    copy_out.append(ir.Primitive("assign", [place, tmp], src))
                    env.bind(param, tmp)
                elif (isinstance(place, (HeaderPlace, StructPlace))
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
                copy_in.extend(self._assign_members(tmp, arg, src))
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
                value = self.exprs.lower(arg)
                if not isinstance(value, ir.Const):
                    # copy-in (spec 6.7): the body may change what the argument reads
                    tmp = self.ctx.scalars.temp(param.name, value.type)
                    copy_in.append(ir.Primitive("assign", [tmp, value], src))
                    value = tmp
                env.bind(param, value)
        inner = StmtLowering(self.ctx, env, in_parser=self.in_parser,
                             control_name=self.control_name)
        inner.enclosing_exit = self.own_postamble + self.enclosing_exit
        inner.exit_label = self.exit_label
        # return jumps to the body's end label, followed by the copy-out; exit runs it first
        return copy_in + inner.action_body(action.body.stmts, copy_out)

    def _aggregate_copy(self, param: ast.Param, place):
        if isinstance(place.type, T.Header):
            return allocate_local_header(self.ctx, param.name, place.type)
        return allocate_local_struct(self.ctx, param.name, place.type, param.pos)

    def _copy(self, dst, src_place, pos, src) -> list:
        if isinstance(dst, HeaderPlace):
            return self.assign_header(dst, src_place, src, pos)
        return self._assign_struct(dst, src_place, pos, src)

    # -- v1model extern functions
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
        index = _folded_int(arg, "a field list index")
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


def union_stack_copy(dst: UnionStackPlace, value: UnionStackPlace, src) -> ir.Primitive:
    """dst = value for stacks of header unions: BMv2's assign_union_stack (its next index,
    then assign_union element by element), as p4c writes it."""
    return ir.Primitive("assign_union_stack", [ir.NamedArg("header_union_stack", dst.path),
                                               ir.NamedArg("header_union_stack", value.path)],
                        src)


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


def _names_stack_element(e) -> bool:
    """`s[i]` or `s.last`: an expression that may denote a stack element."""
    return isinstance(e, ast.IndexExpr) or (isinstance(e, ast.MemberExpr) and e.member == "last")
