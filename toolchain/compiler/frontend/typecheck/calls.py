"""Calls (P4_16 spec 8.20, 9, 10): extern methods and functions with overloads, type
arguments inferred or given, named and default arguments; direct action calls; table
apply; header, header stack and packet built-ins; static_assert. Then the implicit
conversions every check ends with (spec 8.11): `coerce` an expression to the type its
context requires."""
from __future__ import annotations

from .. import ast as A
from .. import constfold as F
from .. import types as T
from ..scopes import Abandon, did_you_mean
from .base import HEADER_METHODS, PACKET_BUILTINS, TypingBase, start_pos


class CallTyping(TypingBase):
    """Calls and implicit conversions."""

    # ---- calls
    def expr_MethodCallExpr(self, e: A.MethodCallExpr, ctx, expected):
        e.type_args = [self.resolve_type(r, ctx) for r in e.type_arg_refs]
        callee = e.callee
        if isinstance(callee, A.MemberExpr):
            return self.check_member_call(e, callee, ctx, expected)
        if isinstance(callee, A.PathExpr):
            d = self.resolved(callee)
            if isinstance(d, list):
                callee.type = T.VOID
                return self.check_function_call(e, d, ctx, expected)
            if isinstance(d, A.ActionDecl):
                return self.check_action_call(e, d, ctx)
            if isinstance(d, (A.ParserDecl, A.ControlDecl, A.ExternDecl)):
                self.refuse(e.pos, f"constructor call '{callee.name}(...)' here")
            if isinstance(d, A.FunctionDecl) and d.signature is not None:
                return self.check_inlined_function_call(e, d, ctx)
            if isinstance(d, A.FunctionDecl):
                self.refuse(e.pos, f"function call '{callee.name}'")
            self.err(callee.pos, f"'{callee.name}' is not a function or action")
        self.err(e.pos, "this expression cannot be called")

    def check_member_call(self, e, callee: A.MemberExpr, ctx, expected):
        recv = callee.expr
        name = callee.member
        # tables, parser/control instances: t.apply()
        if isinstance(recv, A.PathExpr):
            d = recv.decl
            if isinstance(d, A.TableDecl):
                recv.decl, recv.type = d, d.p4type
                if name != "apply":
                    self.err(callee.member_pos or callee.pos,
                             f"table '{d.name}' has no method '{name}'")
                if ctx.kind != "apply":
                    self.err(e.pos, f"table '{d.name}' can only be applied in a control's "
                                    f"apply block"
                                    + (" (not in an action)" if ctx.kind == "action" else ""))
                if e.args:
                    self.err(e.pos, "table apply() takes no arguments")
                e.kind, e.receiver, e.method = "table_apply", recv, d
                callee.kind, callee.decl = "method", d
                callee.type = T.VOID
                return T.ApplyResult(d.p4type)
        rt = self.check_expr(recv, ctx)
        e.receiver = recv
        callee.kind = "builtin"
        if isinstance(rt, (T.Header, T.HeaderUnion)) and name in HEADER_METHODS:
            return self.check_header_method(e, callee, rt, ctx)
        if isinstance(rt, T.Stack) and name in ("push_front", "pop_front"):
            if ctx.kind == "state":
                self.refuse(e.pos, f"header stack {name} in a parser")
            self.check_writable(recv, ctx)
            if len(e.args) != 1:
                self.err(e.pos, f"{name} takes one argument (the count)")
            n = self.const_int(e.args[0], ctx, f"the count of {name}")
            if n < 1:
                self.err(e.args[0].pos, f"the count of {name} must be positive")
            if e.args[0].type == T.INT:
                self.retype_int(e.args[0], T.Bits(32))
            e.kind, e.builtin = "builtin", name
            callee.type = T.VOID
            return T.VOID
        base = T.strip_specialization(rt)
        if isinstance(base, T.Extern):
            overloads = base.methods.get(name)
            if not overloads:
                self.err(callee.member_pos or callee.pos,
                         f"extern {base.name} has no method '{name}'"
                         + did_you_mean(name, base.methods))
            bindings = dict(rt.bindings) if isinstance(rt, T.Specialized) else {}
            sig = self.pick_overload(e, overloads, f"method {base.name}.{name}")
            e.kind = "extern_method"
            e.method = sig.decl
            callee.kind, callee.decl = "method", sig.decl
            callee.type = sig
            self.warn_deprecated(e, sig)
            if base.name in ("packet_in", "packet_out") and name in PACKET_BUILTINS:
                e.builtin = name
                self.check_packet_method(e, base, name, ctx)
                result = self.bind_call(e, sig, bindings, ctx, expected)
                self.check_packet_types(e, name, result)
                return result
            return self.bind_call(e, sig, bindings, ctx, expected)
        if isinstance(rt, (T.ParserType, T.ControlType)) and name == "apply":
            if self.is_template_instance_apply(e, ctx):
                return T.VOID
            self.refuse(e.pos, "applying a sub-parser or sub-control")
        self.err(callee.member_pos or callee.pos, f"a value of type {rt} has no method '{name}'")

    def is_template_instance_apply(self, e, ctx) -> bool:
        """`c.apply(args)` on a control-typed constructor parameter inside a control whose
        instances were all inlined (inline_controls.py): the applies that run are the
        inlined copies, checked where they landed; here only the arguments are checked."""
        control = ctx.control
        receiver = e.callee.expr if isinstance(e.callee, A.MemberExpr) else None
        if not (control is not None and control.inlined_only and
                isinstance(receiver, A.PathExpr) and
                any(receiver.decl is p for p in control.ctor_params)):
            return False
        for a in e.args:
            self.check_expr(a.expr if isinstance(a, A.Argument) else a, ctx)
        e.kind = "template_apply"
        e.callee.type = T.VOID
        return True

    def check_header_method(self, e, callee, rt: T.Header, ctx):
        name = callee.member
        if e.args:
            self.err(e.pos, f"{name}() takes no arguments")
        e.kind, e.builtin = "builtin", name
        callee.type = T.VOID
        if name == "isValid":
            return T.BOOL
        if isinstance(rt, T.HeaderUnion) and name != "isValid":
            # spec 8.20: a union has isValid(); its members are made valid one by one
            self.err(callee.member_pos or callee.pos, f"a header_union has no method '{name}'")
        if name in ("minSizeInBits", "minSizeInBytes"):
            # a varbit field counts as empty (spec 8.17: the minimum size)
            bits = sum(0 if isinstance(t, T.Varbit) else (t.width_bits or 0)
                       for t in rt.fields.values())
            e.folded = bits if name == "minSizeInBits" else (bits + 7) // 8
            return T.INT
        self.check_writable(e.receiver, ctx)
        return T.VOID

    def check_packet_method(self, e, base, name, ctx) -> None:
        if name in ("extract", "lookahead", "advance") and ctx.kind != "state":
            self.err(e.pos, f"{base.name}.{name} can only be called in a parser state")
        if name == "length":
            self.refuse(e.pos, "packet_in.length()")
        if name == "emit" and ctx.kind not in ("apply",):
            self.err(e.pos, "packet_out.emit can only be called in a deparser's apply block")

    def check_extract_varbit(self, e, ht: T.Header) -> None:
        """Spec 12.8.2: a header with a varbit field is extracted with its length in bits
        as the second argument; a header without one takes the one-argument extract."""
        has_varbit = any(isinstance(t, T.Varbit) for t in ht.fields.values())
        if len(e.args) == 1 and has_varbit:
            self.err(e.pos, f"extract of header type {ht} needs the length in bits of its "
                            f"varbit field as a second argument")
        elif len(e.args) == 2 and not has_varbit:
            self.err(e.pos, f"extract with a length needs a header with a varbit field; "
                            f"{ht} has none")

    def check_packet_types(self, e, name, result) -> None:
        """extract() fills a header; emit() takes headers (or a stack or struct of them);
        lookahead<T>() reads a fixed-width type (spec 12.8, 15)."""
        if name == "extract" and e.args and not isinstance(e.args[0].type, T.Header):
            self.err(start_pos(e.args[0]), f"extract needs a header, not {e.args[0].type}")
        if name == "extract" and e.args and isinstance(e.args[0].type, T.Header):
            self.check_extract_varbit(e, e.args[0].type)
        if name == "emit" and e.args and not isinstance(
                e.args[0].type, (T.Header, T.Stack, T.Struct, T.HeaderUnion)):
            self.err(start_pos(e.args[0]), f"emit needs a header, a header stack or a struct "
                                           f"of headers, not {e.args[0].type}")
        if name == "lookahead" and not (isinstance(result, (T.Bits, T.Header)) or
                                        result == T.BOOL or
                                        (isinstance(result, T.Struct) and
                                         result.width_bits is not None)):
            self.err(e.pos, f"lookahead needs a fixed-width type, not {result}")

    def warn_deprecated(self, e, sig: T.Method) -> None:
        """Calls of declarations marked @deprecated("why") warn, as p4c does."""
        ann = A.annotation(sig.decl, "deprecated") if sig.decl is not None else None
        if ann is not None:
            why = ann.args[0].value if ann.args and isinstance(ann.args[0], A.StringLit) else ""
            self.warn(e.pos, f"{sig.name} is deprecated" + (f": {why}" if why else ""))

    def check_function_call(self, e, overloads: list, ctx, expected):
        sigs = [m.signature for m in overloads if m.signature is not None]
        name = overloads[0].name
        sig = self.pick_overload(e, sigs, f"function {name}")
        e.kind = "extern_function"
        e.method = sig.decl
        e.callee.decl = sig.decl
        e.callee.type = sig
        self.warn_deprecated(e, sig)
        if name == "verify":
            e.builtin = "verify"
            if ctx.kind != "state":
                self.err(e.pos, "verify can only be called in a parser state")
        result = self.bind_call(e, sig, {}, ctx, expected)
        if name == "static_assert" and len(overloads) and e.args:
            self.static_assert(e)
        return result

    def static_assert(self, e) -> None:
        """core.p4's static_assert(check[, message]): evaluated here; a false check stops the
        compilation with the message; the call is the constant true (spec 7.x, p4c)."""
        check = e.args[0].folded
        if not isinstance(check, bool):
            self.err(start_pos(e.args[0]), "static_assert needs a compile-time known condition")
        elif not check:
            msg = e.args[1] if len(e.args) > 1 else None
            text = msg.value if isinstance(msg, A.StringLit) and msg.value else "static assertion failed"
            self.err(e.pos, f"static_assert: {text}")
        e.builtin = "static_assert"
        e.folded = True

    @staticmethod
    def named_order(args: list, params: list):
        """Arguments given by name (`f(x = 1, y = 2)`, spec 8.20) in parameter order, or None
        if they do not fit `params`. Omitted parameters must have defaults and come last."""
        given = {a.name: a.expr for a in args}
        if len(given) != len(args) or not set(given) <= {p.name for p in params}:
            return None
        out = []
        for i, p in enumerate(params):
            if p.name in given:
                out.append(given[p.name])
            elif p.has_default and not any(q.name in given for q in params[i + 1:]):
                break
            elif p.has_default and getattr(p.decl, "default", None) is not None:
                # omitted before a named one: its default value (spec 6.8.2)
                out.append(A.copy_syntax(p.decl.default))
            else:
                return None
        return out

    def reorder_named(self, e, sigs: list, what: str):
        """Named arguments: the first signature they fit; `e.args` becomes positional."""
        if not all(isinstance(a, A.Argument) and a.name for a in e.args):
            self.err(e.pos, f"{what}: arguments must be all named or all positional")
        for sig in sigs:
            order = self.named_order(e.args, sig.params)
            if order is not None:
                e.args = order
                return sig
        names = ", ".join(a.name for a in e.args)
        known = {p.name for s in sigs for p in s.params}
        unknown = [a.name for a in e.args if a.name not in known]
        self.err(e.pos, f"{what} has no parameters matching the arguments {names}"
                 + (did_you_mean(unknown[0], known) if unknown else ""))

    def pick_overload(self, e, sigs: list, what: str) -> T.Method:
        if any(isinstance(a, A.Argument) for a in e.args):
            return self.reorder_named(e, sigs, what)
        fits = [s for s in sigs if self.arity_ok(s.params, len(e.args))]
        if not fits:
            counts = sorted({len(s.params) for s in sigs})
            self.err(e.pos, f"{what} takes {' or '.join(map(str, counts))} arguments, "
                            f"{len(e.args)} given")
        if len(fits) > 1:
            exact = [s for s in fits if len(s.params) == len(e.args)]
            fits = exact or fits
        return fits[0]

    @staticmethod
    def arity_ok(params, n: int) -> bool:
        required = sum(1 for p in params if not p.has_default)
        return required <= n <= len(params)

    def fill_defaults(self, e, params: list, ctx) -> None:
        """Omitted trailing parameters with a default value get a copy of it as argument, so
        that the mid end sees every argument (parameters that are only @optional stay
        absent)."""
        for p in params[len(e.args):]:
            default = p.decl.default if p.decl is not None else None
            if default is None:
                return
            e.args.append(A.copy_syntax(default))

    def bind_call(self, e, sig: T.Method, bindings: dict, ctx, expected) -> T.P4Type:
        """Infer type arguments, check each argument against its parameter."""
        self.fill_defaults(e, sig.params, ctx)
        if e.type_args:
            if len(e.type_args) != len(sig.type_params):
                self.err(e.pos, f"{sig.name} takes {len(sig.type_params)} type arguments, "
                                f"{len(e.type_args)} given")
            bindings.update(zip(sig.type_params, e.type_args))
        params = sig.params[:len(e.args)]
        # pass 1: arguments with a type of their own bind the type variables
        for a, p in zip(e.args, params):
            pt = T.substitute(p.type, bindings)
            at = self.check_expr(a, ctx, None if isinstance(pt, T.TypeVar) else pt)
            if isinstance(pt, T.TypeVar) and at not in (T.INT, T.DONTCARE) and \
                    not isinstance(a, A.ListExpr):
                bindings[pt] = at
        # pass 2: check and convert
        for a, p in zip(e.args, params):
            pt = T.substitute(p.type, bindings)
            what = f"argument '{p.name}' of {sig.name}"
            if isinstance(pt, T.TypeVar):
                if isinstance(a, A.ListExpr):
                    bindings[pt] = a.type
                    pt = a.type
                elif a.type == T.INT:
                    bindings[pt] = T.INT          # stays `int` (see types.py)
                    pt = T.INT
                else:
                    bindings[pt] = a.type
                    pt = a.type
            if p.direction in ("out", "inout"):
                if isinstance(a, A.DontCareExpr) and p.direction == "out":
                    a.type = pt
                    continue
                self.check_writable(a, ctx)
                if a.type != pt:
                    self.err(a.pos, f"{what} has type {a.type}, expected {pt}")
            else:
                self.coerce(a, pt, ctx, what)
        e.params = params
        e.bindings = bindings
        e.type_args = [bindings.get(tp, tp) for tp in sig.type_params]
        ret = T.substitute(sig.return_type, bindings)
        if isinstance(ret, T.TypeVar):
            self.err(e.pos, f"cannot infer the result type of {sig.name} (give it type "
                            f"arguments, e.g. lookahead<bit<32>>())")
        return ret

    def check_action_call(self, e, d: A.ActionDecl, ctx):
        if d.signature is None:
            raise Abandon()          # the action itself failed to check: already reported
        if ctx.kind == "state":
            self.err(e.pos, f"action '{d.name}' cannot be called from a parser")
        if any(isinstance(a, A.Argument) for a in e.args):
            self.reorder_named(e, [d.signature], f"action '{d.name}'")
        if self.arity_ok(d.signature.params, len(e.args)):
            self.fill_defaults(e, d.signature.params, ctx)
        if len(e.args) != len(d.params):
            self.err(e.pos, f"action '{d.name}' takes {len(d.params)} arguments, "
                            f"{len(e.args)} given")
        if ctx.action is d:
            self.err(e.pos, f"action '{d.name}' calls itself")
        e.kind, e.method = "action", d
        e.callee.type = d.signature
        for a, p in zip(e.args, d.params):
            self.check_expr(a, ctx, p.p4type)
            if p.direction in ("out", "inout"):
                self.check_writable(a, ctx)
                if a.type != p.p4type:
                    self.err(a.pos, f"argument '{p.name}' of action '{d.name}' has type "
                                    f"{a.type}, expected {p.p4type}")
            else:
                self.coerce(a, p.p4type, ctx, f"argument '{p.name}' of action '{d.name}'")
        e.params = d.signature.params
        return T.VOID

    def check_inlined_function_call(self, e, d: A.FunctionDecl, ctx):
        """A call left in a function's own body (its copies at the call sites are inlined):
        arguments checked against the parameters as for an action call (spec 6.8)."""
        sig = d.signature
        if any(isinstance(a, A.Argument) for a in e.args):
            self.reorder_named(e, [sig], f"function '{d.name}'")
        if self.arity_ok(sig.params, len(e.args)):
            self.fill_defaults(e, sig.params, ctx)
        if len(e.args) != len(d.params):
            self.err(e.pos, f"function '{d.name}' takes {len(d.params)} arguments, "
                            f"{len(e.args)} given")
        e.kind, e.method = "function", d
        e.callee.type = sig
        for a, p in zip(e.args, d.params):
            self.check_expr(a, ctx, p.p4type)
            if p.direction in ("out", "inout"):
                self.check_writable(a, ctx)
                if a.type != p.p4type:
                    self.err(a.pos, f"argument '{p.name}' of function '{d.name}' has type "
                                    f"{a.type}, expected {p.p4type}")
            else:
                self.coerce(a, p.p4type, ctx, f"argument '{p.name}' of function '{d.name}'")
        e.params = sig.params
        return sig.return_type

    # ------------------------------------------------------------ conversions
    def coerce(self, e: A.Expr, target: T.P4Type, ctx, what: str) -> None:
        """Make `e` have type `target` where the spec allows it implicitly, else error."""
        t = e.type
        if t == target or target is T.UNKNOWN or t is T.UNKNOWN:
            return
        if t == T.INT and isinstance(target, T.Bits):
            self.check_literal_fits(e, target)
            self.retype_int(e, target)
            return
        if isinstance(e, A.ListExpr) and isinstance(target, (T.StructLike, T.Tuple)):
            members = list(target.fields.values()) if isinstance(target, T.StructLike) \
                else list(target.elements)
            if len(members) != len(e.items):
                self.err(e.pos, f"{what}: list has {len(e.items)} elements, {target} has "
                                f"{len(members)}")
            for it, mt in zip(e.items, members):
                self.coerce(it, mt, ctx, what)
            e.type = target
            return
        if isinstance(t, T.Enum) and t.underlying is not None and t.underlying == target:
            return                        # spec 8.3: serializable enum -> underlying type
        if isinstance(target, T.TypeVar) or t == T.DONTCARE:
            return
        self.err(start_pos(e), f"{what}: type {t} does not match {target}"
                 + (" (cast it)" if isinstance(t, T.Bits) and isinstance(target, T.Bits) else ""))

    def check_literal_fits(self, e: A.Expr, target: T.Bits, warn_only: bool = True) -> None:
        """Spec 8.11: an `int` converted to bit<W>/int<W> is truncated; the compiler warns
        on overflow (`x | 0xFFF` for bit<8> x). Negative values into bit<W> are the usual
        two's complement idiom (`bit<8> x = -1`) and do not warn."""
        v = e.folded
        if v is None or F.fits(v, target):
            return
        self.warn(start_pos(e), f"value {F.text(v)} does not fit in {target}; it is truncated "
                                f"to {F.text(F.wrap(v, target))}")

    def retype_int(self, e: A.Expr, target: T.Bits) -> None:
        """An `int` subtree becomes `target`: literals get the width (spec 8.9.2); the whole
        subtree is constant, so `.folded` is reduced into range."""
        e.type = target
        if e.folded is not None:
            e.folded = F.wrap(e.folded, target)
        if isinstance(e, A.IntLit):
            e.value = e.folded
            e.width, e.signed = target.width, target.signed
        elif isinstance(e, A.BinaryExpr) and e.op not in ("<<", ">>"):
            self.retype_int(e.left, target)
            self.retype_int(e.right, target)
        elif isinstance(e, (A.BinaryExpr,)):
            self.retype_int(e.left, target)
        elif isinstance(e, A.UnaryExpr):
            self.retype_int(e.operand, target)
        elif isinstance(e, A.TernaryExpr):
            self.retype_int(e.then, target)
            self.retype_int(e.other, target)
