"""Expressions (P4_16 spec 8): literals, names, members, indices and slices, operators with
constant folding (constfold.py), casts, lists and structure initializers.

Typing rules that matter for the back end (spec 8):
 * the only implicit conversion is an `int` (literal or `int`-typed constant) becoming the
   bit<W>/int<W> type its context requires (spec 8.9.2); the converted expression gets that
   type and its `.folded` value is reduced into range. Two fixed-width operands must have
   exactly the same type; a mismatch is an error naming both types.
 * shifts: the right operand is unsigned or a non-negative `int`; the result has the left type.
 * `++` needs fixed-width operands; the result is bit<W1+W2> (int<...> if the left is signed).
 * casts: bit<W> <-> int<W>, between widths of the same signedness, bool <-> bit<1>,
   `int` -> any fixed width, serializable enum <-> its underlying type (spec 8.10).
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from .. import constfold as F
from .. import types as T
from ..lowering import is_path, struct_constant_member
from ..p4text import p4_text
from ..scopes import Abandon, did_you_mean
from .base import HEADER_METHODS, Ctx, TypingBase, value_type


class ExpressionTyping(TypingBase):
    """Every expression but calls (calls.py)."""

    # ------------------------------------------------------------ expressions
    def check_expr(self, e: A.Expr, ctx: Ctx, expected: Optional[T.P4Type] = None) -> T.P4Type:
        if e.type is not None:
            return e.type
        m = getattr(self, "expr_" + type(e).__name__, None)
        if m is None:
            self.refuse(e.pos, f"expression '{type(e).__name__}'")
        t = m(e, ctx, expected)
        if t is None or t is T.UNKNOWN:
            raise Abandon()         # depends on a declaration that failed: already reported
        e.type = t
        return t

    def expr_IntLit(self, e: A.IntLit, ctx, expected):
        if e.width is None:
            e.folded = e.value
            return T.INT
        t = T.Bits(e.width, e.signed)
        limit = 1 << (e.width - 1 if e.signed else e.width)
        if e.value >= limit:
            # like p4c (IR::Constant::handleOverflow): warn and keep the low W bits
            self.warn(e.pos, f"{e.text}: value does not fit in {t}; it is truncated to "
                             f"{F.text(F.wrap(e.value, t))}")
        e.value = F.wrap(e.value, t)
        e.folded = e.value
        return t

    def expr_BoolLit(self, e, ctx, expected):
        e.folded = e.value
        return T.BOOL

    def expr_StringLit(self, e, ctx, expected):
        return T.STRING

    def expr_DontCareExpr(self, e, ctx, expected):
        return expected if expected is not None else T.DONTCARE

    def expr_DefaultExpr(self, e, ctx, expected):
        self.err(e.pos, "'default' is only allowed in select cases, entries and switch labels")

    def expr_MaskExpr(self, e, ctx, expected):
        self.err(e.pos, "'&&&' is only allowed in keysets")

    def expr_RangeExpr(self, e, ctx, expected):
        self.err(e.pos, "'..' is only allowed in keysets")

    def expr_Argument(self, e, ctx, expected):
        # calls reorder named arguments before checking them; anywhere else they are refused
        self.refuse(e.pos, f"named argument '{e.name}' here")

    def expr_TypeNameExpr(self, e, ctx, expected):
        self.err(e.pos, "a type is not a value here")

    def expr_PathExpr(self, e: A.PathExpr, ctx, expected):
        d = self.resolved(e)
        if isinstance(d, list):            # overloaded extern functions
            return T.Method(e.name, [], [], T.VOID, d)
        if isinstance(d, A.ConstDecl):
            e.folded = d.folded
            if isinstance(d.value, A.MemberExpr) and d.value.kind in ("enum", "error"):
                e.decl = d
            return d.p4type
        if isinstance(d, (A.VarDecl, A.Param)):
            return d.p4type
        if isinstance(d, A.Instantiation):
            return d.p4type
        if isinstance(d, A.TableDecl):
            return d.p4type
        if isinstance(d, A.ActionDecl):
            return d.signature
        if isinstance(d, A.MatchKindMember):
            return T.MATCH_KIND
        if isinstance(d, (A.ErrorDecl, A.MatchKindDecl, A.EnumDecl, A.HeaderDecl, A.StructDecl,
                          A.ExternDecl, A.ParserDecl, A.ControlDecl, A.TypedefDecl,
                          A.PackageTypeDecl, A.ParserTypeDecl, A.ControlTypeDecl)):
            return T.VOID if isinstance(d, (A.ErrorDecl, A.MatchKindDecl)) else \
                (getattr(d, "p4type", None) or T.VOID)
        if isinstance(d, A.ParserState):
            self.err(e.pos, f"parser state '{e.name}' is not a value")
        if isinstance(d, A.ValueSetDecl):
            self.err(e.pos, f"value_set '{e.name}' can only be used as a select keyset")
        self.err(e.pos, f"'{e.name}' is not a value")

    def expr_MemberExpr(self, e: A.MemberExpr, ctx, expected):
        base = e.expr
        # type-level members: error.X, Enum.X
        if isinstance(base, A.PathExpr):
            d = base.decl
            if isinstance(d, A.ErrorDecl):
                base.decl, base.type = d, T.ERROR
                m = self.error_members.get(e.member)
                if m is None:
                    self.err(e.member_pos or e.pos, f"error.{e.member} is not declared"
                             + did_you_mean(e.member, self.error_members))
                e.decl, e.kind = m, "error"
                e.folded = m.code          # errors are numbered in declaration order
                return T.ERROR
            if isinstance(d, A.TypedefDecl) and isinstance(d.p4type, T.Enum):
                d = d.p4type.decl
            if isinstance(d, A.EnumDecl):
                base.decl, base.type = d, d.p4type
                m = next((m for m in d.members if m.name == e.member), None)
                if m is None:
                    self.err(e.member_pos or e.pos, f"enum '{d.name}' has no member "
                                                    f"'{e.member}'"
                             + did_you_mean(e.member, [x.name for x in d.members]))
                e.decl, e.kind = m, "enum"
                e.folded = m.value         # the underlying value, or the index (plain enum)
                return d.p4type
        bt = self.check_expr(base, ctx)
        if isinstance(bt, T.StructLike):
            ft = bt.fields.get(e.member)
            if ft is None:
                if isinstance(bt, T.Header) and e.member in HEADER_METHODS:
                    self.err(e.member_pos or e.pos,
                             f"'{e.member}' is a method: call it as {e.member}()")
                self.err(e.member_pos or e.pos, f"{bt.kind} {bt.name} has no field "
                                                f"'{e.member}'" + did_you_mean(e.member,
                                                                              bt.fields))
            e.decl = next(f for f in bt.decl.fields if f.name == e.member)
            leaf = struct_constant_member(e)
            if leaf is not None:
                e.folded = leaf.folded            # C.f of a struct constant C
            e.kind = "field"
            return ft
        if isinstance(bt, T.Stack):
            e.kind = "stack"
            if e.member in ("next", "last", "lastIndex") and ctx.kind != "state":
                # spec 8.18, as p4c's type checker: parser-only members
                self.err(e.pos, f"'.{e.member}' of a header stack can only be used in a "
                                f"parser")
            if e.member in ("next", "last"):
                return bt.element
            if e.member == "lastIndex":
                return T.Bits(32)
            if e.member == "size":
                e.folded = bt.size
                return T.Bits(32)
            self.err(e.member_pos or e.pos, f"header stack has no member '{e.member}'")
        if isinstance(bt, T.ApplyResult):
            e.kind = "apply_result"
            if e.member in ("hit", "miss"):
                return T.BOOL
            if e.member == "action_run":
                return T.ActionEnum(bt.table)
            self.err(e.member_pos or e.pos, f"table apply result has no member '{e.member}' "
                                            f"(hit, miss, "
                            f"action_run)")
        self.err(e.member_pos or e.pos, f"a value of type {bt} has no member '{e.member}'")

    def expr_IndexExpr(self, e: A.IndexExpr, ctx, expected):
        bt = self.check_expr(e.expr, ctx)
        if isinstance(bt, T.Tuple):
            return self.check_tuple_index(e, bt, ctx)
        if not isinstance(bt, T.Stack):
            self.err(e.pos, f"cannot index a value of type {bt}")
        itype = value_type(self.check_expr(e.index, ctx))
        i = e.index.folded
        if i is None:
            # a run-time index (P4_16 spec 8.18): lowered to BMv2's dereference_header_stack;
            # an index past the end is a run-time error of the target, not of the compiler
            if not isinstance(itype, T.Bits):
                self.err(e.index.pos, f"a header stack index must be bit<W> or int, not {itype}")
            return bt.element
        if not 0 <= i < bt.size:
            self.err(e.index.pos, f"header stack index {F.text(i)} out of range 0..{bt.size - 1}")
        e.folded_index = i
        if e.index.type == T.INT:
            self.retype_int(e.index, T.Bits(32))
        return bt.element

    def check_tuple_index(self, e: A.IndexExpr, bt: T.Tuple, ctx):
        """t[i] with a compile-time constant i (spec 8.12: tuple elements by index)."""
        i = self.const_int(e.index, ctx, "a tuple index")
        if not 0 <= i < len(bt.elements):
            self.err(e.index.pos, f"tuple index {F.text(i)} out of range 0..{len(bt.elements) - 1}")
        e.folded_index = i
        if e.index.type == T.INT:
            self.retype_int(e.index, T.Bits(32))
        return bt.elements[i]

    def expr_SliceExpr(self, e: A.SliceExpr, ctx, expected):
        bt = value_type(self.check_expr(e.expr, ctx))
        if not isinstance(bt, T.Bits):
            if bt == T.INT:
                self.err(e.pos, "cannot slice a value without a fixed width (cast it first)")
            self.err(e.pos, f"cannot slice a value of type {bt}")
        if e.plus:
            # Spec 1.2.5 8.6: e[L +: W], W compile-time known; L may be a run-time value, but
            # p4c's BMv2 back end handles only a compile-time L (its front end folds it into
            # e[L+W-1:L]; a run-time L reaches the back end unconverted).
            self.check_expr(e.lo, ctx)
            if not isinstance(e.lo.folded, int) or isinstance(e.lo.folded, bool):
                self.refuse(e.lo.pos, "a slice e[L +: W] with a run-time base L (p4c's BMv2 "
                            "back end takes only a compile-time L)")
            lo = e.lo.folded
            w = self.const_int(e.hi, ctx, "the width of a slice")
            if lo < 0 or w <= 0 or lo + w > bt.width:
                self.err(e.pos, f"slice [{F.text(lo)} +: {F.text(w)}] out of range for {bt}")
            hi = lo + w - 1
        else:
            hi = self.const_int(e.hi, ctx, "a slice bound")
            lo = self.const_int(e.lo, ctx, "a slice bound")
        if not 0 <= lo <= hi < bt.width:
            self.err(e.pos, f"slice [{F.text(hi)}:{F.text(lo)}] out of range for {bt}")
        e.hi_value, e.lo_value = hi, lo
        if e.expr.folded is not None:
            e.folded = F.slice_(e.expr.folded, hi, lo)
        return T.Bits(hi - lo + 1)

    def expr_UnaryExpr(self, e: A.UnaryExpr, ctx, expected):
        t = value_type(self.check_expr(e.operand, ctx, expected))
        if e.op == "!":
            if t != T.BOOL:
                self.err(e.pos, f"'!' needs a bool operand, not {t}")
        elif e.op == "~":
            if not isinstance(t, T.Bits):
                self.err(e.pos, f"'~' needs a bit<W> or int<W> operand, not {t}")
        else:
            if not (isinstance(t, T.Bits) or t == T.INT):
                self.err(e.pos, f"unary '{e.op}' needs a numeric operand, not {t}")
        if e.operand.folded is not None:
            e.folded = F.unary(e.op, e.operand.folded, t)
        return t

    def expr_BinaryExpr(self, e: A.BinaryExpr, ctx, expected):
        op = e.op
        lt = value_type(self.check_expr(e.left, ctx))
        rt = value_type(self.check_expr(e.right, ctx))
        if op in ("&&", "||"):
            for side, st in ((e.left, lt), (e.right, rt)):
                if st != T.BOOL:
                    self.err(side.pos, f"'{op}' needs bool operands, not {st}")
            self.fold_binary(e, T.BOOL, T.BOOL)
            return T.BOOL
        if op in ("<<", ">>"):
            return self.check_shift(e, lt, rt)
        if op == "++":
            for side, st in ((e.left, lt), (e.right, rt)):
                if not isinstance(st, T.Bits):
                    self.err(side.pos, f"'++' needs bit<W> or int<W> operands, not {st}"
                             + (" (give the constant a width, e.g. 8w1)" if st == T.INT else ""))
            t = T.Bits(lt.width + rt.width, lt.signed)
            self.fold_binary(e, t, lt)
            return t
        t = self.unify_operands(e, lt, rt, ctx)
        if op in ("==", "!="):
            if isinstance(t, (T.Header, T.Struct, T.Stack)):
                # compared member by member after checking (LowerAggregateEquality)
                if not (is_path(e.left) and is_path(e.right)):
                    self.refuse(e.pos, f"'{op}' on {t} values that are not variables or fields")
                return T.BOOL
            if isinstance(t, (T.StructLike, T.Tuple)):
                self.refuse(e.pos, f"'{op}' on {t}")
            # varbit values compare with == and != only (spec 7.1.6.5)
            if not (isinstance(t, (T.Bits, T.Enum, T.Varbit)) or t in (T.INT, T.BOOL, T.ERROR)):
                self.err(e.pos, f"cannot compare values of type {t}")
            self.fold_binary(e, T.BOOL, t)
            return T.BOOL
        if op in ("<", "<=", ">", ">="):
            if not (isinstance(t, T.Bits) or t == T.INT):
                self.err(e.pos, f"'{op}' needs numeric operands, not {t}")
            self.fold_binary(e, T.BOOL, t)
            return T.BOOL
        if not (isinstance(t, T.Bits) or t == T.INT):
            self.err(e.pos, f"'{op}' needs bit<W> or int<W> operands, not {t}")
        if op in ("&", "|", "^") and t == T.INT and (e.left.folded < 0 or e.right.folded < 0):
            self.err(e.pos, f"'{op}' on a negative int constant (give it a width, e.g. "
                            f"32w5 & -3)")
        if op in ("/", "%") and isinstance(t, T.Bits) and t.signed:
            self.refuse(e.pos, f"'{op}' on signed values")
        if op in ("/", "%") and e.right.folded == 0:
            self.err(e.right.pos, "division by zero")
        if op in ("|+|", "|-|") and t == T.INT:
            self.err(e.pos, f"'{op}' needs operands with a fixed width")
        self.fold_binary(e, t, t)
        return t

    def fold_binary(self, e: A.BinaryExpr, t, operand_type) -> None:
        a, b = e.left.folded, e.right.folded
        if a is None or b is None:
            return
        try:
            e.folded = F.binary(e.op, a, b, t, operand_type)
        except F.FoldError as ex:
            self.err(e.pos, str(ex))

    def unify_operands(self, e, lt, rt, ctx) -> T.P4Type:
        """Same type on both sides; an `int` side takes the other side's fixed width."""
        if lt == T.INT and rt != T.INT:
            self.coerce(e.left, rt, ctx, f"left operand of '{e.op}'")
            return rt
        if rt == T.INT and lt != T.INT:
            self.coerce(e.right, lt, ctx, f"right operand of '{e.op}'")
            return lt
        if isinstance(lt, T.Enum) and lt.underlying is not None and lt.underlying == rt:
            return rt                     # spec 8.3: serializable enum -> underlying type
        if isinstance(rt, T.Enum) and rt.underlying is not None and rt.underlying == lt:
            return lt
        if lt != rt:
            self.err(e.pos, f"'{e.op}': operands have different types {lt} and {rt}"
                     + (" (cast one of them)" if isinstance(lt, T.Bits) and
                        isinstance(rt, T.Bits) else ""))
        return lt

    def check_shift(self, e: A.BinaryExpr, lt, rt) -> T.P4Type:
        if not (isinstance(lt, T.Bits) or lt == T.INT):
            self.err(e.left.pos, f"cannot shift a value of type {lt}")
        if isinstance(rt, T.Bits):
            if rt.signed:
                self.err(e.right.pos, f"shift amount must be unsigned, not {rt}")
        elif rt == T.INT:
            if e.right.folded < 0:
                self.err(e.right.pos, "shift amount must not be negative")
        else:
            self.err(e.right.pos, f"shift amount has type {rt}, expected bit<W>")
        if lt == T.INT and e.right.folded is None:
            self.err(e.pos, "shift of a constant without a width by a variable amount")
        if rt == T.INT:
            # a constant shift amount keeps its value; give it a width that holds it
            e.int_amount = True
            self.retype_int(e.right, T.Bits(max(8, e.right.folded.bit_length())))
        amount = e.right.folded
        if isinstance(lt, T.Bits) and isinstance(amount, int) and amount >= lt.width:
            # every bit shifted out: p4c's TypeInference warns (WARN_OVERFLOW)
            self.warn(e.pos, f"{p4_text(e)}: shifting value with {lt.width} bits by {amount}")
        self.fold_binary(e, lt, lt)
        return lt

    def expr_TernaryExpr(self, e: A.TernaryExpr, ctx, expected):
        ct = self.check_expr(e.cond, ctx)
        if ct != T.BOOL:
            self.err(e.cond.pos, f"condition of '?:' has type {ct}, expected bool")
        tt = self.check_expr(e.then, ctx, expected)
        ot = self.check_expr(e.other, ctx, expected)
        if tt == T.INT and ot == T.INT:
            if e.cond.folded is None:
                if isinstance(expected, T.Bits):
                    self.coerce(e.then, expected, ctx, "'?:' branch")
                    self.coerce(e.other, expected, ctx, "'?:' branch")
                    return expected
                self.err(e.pos, "'?:' with constants on both sides needs a width (cast one)")
            e.folded = e.then.folded if e.cond.folded else e.other.folded
            return T.INT
        if tt == T.INT:
            self.coerce(e.then, ot, ctx, "'?:' branch")
            tt = ot
        elif ot == T.INT:
            self.coerce(e.other, tt, ctx, "'?:' branch")
        elif tt != ot:
            self.err(e.pos, f"'?:' branches have different types {tt} and {ot}")
        if e.cond.folded is not None:
            chosen = e.then if e.cond.folded else e.other
            e.folded = chosen.folded
        return tt

    def expr_CastExpr(self, e: A.CastExpr, ctx, expected):
        dst = self.resolve_type(e.type_ref, ctx)
        src = self.check_expr(e.expr, ctx, dst)
        if src == T.INT and dst == T.BOOL and e.expr.folded not in (0, 1):
            self.err(e.pos, f"illegal cast of {F.text(e.expr.folded)} to bool (only 0 and 1)")
        if not self.cast_allowed(src, dst):
            hint = ""
            if isinstance(src, T.Bits) and isinstance(dst, T.Bits):
                hint = " (change the width and the signedness in two casts)"
            self.err(e.pos, f"illegal cast from {src} to {dst}{hint}")
        if src == T.INT and isinstance(dst, T.Bits):
            self.check_literal_fits(e.expr, dst)
        if e.expr.folded is not None and not isinstance(dst, T.Enum):
            e.folded = F.cast(e.expr.folded, src, dst)
        elif isinstance(dst, T.Enum) and e.expr.folded is not None:
            e.folded = F.wrap(e.expr.folded, dst.underlying)
        return dst

    @staticmethod
    def cast_allowed(src, dst) -> bool:
        if src == dst:
            return True
        if isinstance(dst, T.Bits):
            if src == T.INT:
                return True
            if isinstance(src, T.Bits):
                return src.width == dst.width or src.signed == dst.signed
            if src == T.BOOL:
                return dst.width == 1 and not dst.signed
            if isinstance(src, T.Enum) and src.underlying is not None:
                return ExpressionTyping.cast_allowed(src.underlying, dst)
            return False
        if dst == T.BOOL:
            return (isinstance(src, T.Bits) and src.width == 1 and not src.signed) or \
                src == T.INT
        if isinstance(dst, T.Enum) and dst.underlying is not None:
            return src == T.INT or (isinstance(src, T.Bits) and
                                     ExpressionTyping.cast_allowed(src, dst.underlying))
        return False

    def expr_ListExpr(self, e: A.ListExpr, ctx, expected):
        elems = []
        exp_elems = expected.elements if isinstance(expected, T.Tuple) else None
        exp_fields = list(expected.fields.values()) if isinstance(expected, T.StructLike) else None
        for i, it in enumerate(e.items):
            want = None
            if exp_elems is not None and i < len(exp_elems):
                want = exp_elems[i]
            elif exp_fields is not None and i < len(exp_fields):
                want = exp_fields[i]
            elems.append(self.check_expr(it, ctx, want))
        return T.Tuple(elems)

    def expr_StructInitExpr(self, e: A.StructInitExpr, ctx, expected):
        if not isinstance(expected, T.StructLike):
            self.err(e.pos, "a structure initializer {f = v, ...} needs a struct or header "
                            "type from its context")
        names = [n for n, _ in e.fields]
        if sorted(names) != sorted(expected.fields):
            self.err(e.pos, f"initializer fields {', '.join(names)} do not match "
                            f"{expected.kind} {expected.name}")
        for n, v in e.fields:
            ft = expected.fields[n]
            self.check_expr(v, ctx, ft)
            self.coerce(v, ft, ctx, f"field '{n}'")
        return expected

    def expr_SelectExpr(self, e, ctx, expected):
        self.err(e.pos, "select is only allowed as a parser transition")
