"""Expressions (spec 8, grammar appendix) by precedence climbing: a left-deep chain of
operators is read in a loop, not by recursion; prefix operators, casts, calls with type
arguments, members, indices and slices; select expressions and keysets of parser states and
table entries (`&&&` masks and `..` ranges are looser than every other operator)."""
from __future__ import annotations

from . import ast as A
from ..diagnostics import CompileError
from .parser_base import BINARY_PREC, TERNARY_PREC, TokenStream, _SyntaxError


class ExpressionParser(TokenStream):
    """Expressions, select expressions and keysets."""

    def select_expr(self) -> A.SelectExpr:
        pos = self.expect("select").pos
        self.expect("(")
        exprs = [] if self.at(")") else [self.expression()]
        while self.accept(","):
            exprs.append(self.expression())
        self.expect(")")
        self.expect("{")
        cases = []
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.error(self.tok.pos, "unterminated select")
            cpos = self.tok.pos
            keyset = self.keyset_expression()
            self.expect(":")
            st = self.name("a state name")
            self.expect(";")
            cases.append(A.SelectCase(cpos, keyset, A.PathExpr(st.pos, st.text)))
        self.expect("}")
        return A.SelectExpr(pos, exprs, cases)

    def keyset_expression(self) -> list:
        """`k`, `(k1, k2)`, `default`, `_`, with &&& and .. in each element."""
        if self.at("(") and self._paren_is_tuple_keyset():
            self.advance()
            items = [self.simple_keyset()]
            while self.accept(","):
                items.append(self.simple_keyset())
            self.expect(")")
            return items
        return [self.simple_keyset()]

    def _paren_is_tuple_keyset(self) -> bool:
        """`(a, b)` or `(a)` followed by ':' is a tuple keyset; `(a + b) &&& m` is not."""
        depth = 0
        for j in range(self.i, len(self.toks)):
            t = self.toks[j]
            if t.kind == "eof":
                return False
            if t.kind != "op":
                continue
            if t.text in "([{":
                depth += 1
            elif t.text in ")]}":
                depth -= 1
                if depth == 0:
                    return self.toks[j + 1].text == ":"
            elif t.text == "," and depth == 1:
                return True
        return False

    def simple_keyset(self) -> A.Expr:
        t = self.tok
        if self.at("default"):
            self.advance()
            return A.DefaultExpr(t.pos)
        if t.kind == "id" and t.text == "_":
            self.advance()
            return A.DontCareExpr(t.pos)
        e = self.expression()
        if self.at("&&&"):
            self.advance()
            return A.MaskExpr(t.pos, e, self.expression())
        if self.at(".."):
            self.advance()
            return A.RangeExpr(t.pos, e, self.expression())
        return e

    # ------------------------------------------------------------ expressions
    def expression(self, min_prec: int = 0) -> A.Expr:
        left = self.unary()
        while True:
            t = self.tok
            if t.kind != "op":
                break
            op = t.text
            if op == "?" and min_prec <= TERNARY_PREC:
                self.advance()
                then = self.expression()
                self.expect(":", "in '?:'")
                other = self.expression(TERNARY_PREC)
                left = A.TernaryExpr(t.pos, left, then, other)
                continue
            if op == ">" and self._is_shift_right():
                op = ">>"
            elif op == ">" and self.peek().text == ">=" and self.peek().glued:
                break                      # `x >>= e`: a compound assignment follows
            prec = BINARY_PREC.get(op)
            if prec is None or prec < min_prec:
                break
            self.advance()
            if op == ">>":
                self.advance()
            right = self.expression(prec + 1)
            left = A.BinaryExpr(t.pos, op, left, right)
        return left

    def _is_shift_right(self) -> bool:
        a, b = self.tok, self.peek()
        return b.kind == "op" and b.text == ">" and b.glued

    def unary(self) -> A.Expr:
        return self.nested(self._unary)

    def _unary(self) -> A.Expr:
        t = self.tok
        if t.kind == "op":
            if t.text in ("!", "~", "-", "+"):
                self.advance()
                operand = self.unary()
                if t.text == "-" and isinstance(operand, A.IntLit) and operand.width is None:
                    operand.value = -operand.value
                    operand.pos = t.pos
                    operand.text = "-" + operand.text
                    return operand
                return A.UnaryExpr(t.pos, t.text, operand)
            if t.text == "(" and self._is_cast():
                self.advance()
                tr = self.type_ref()
                self.expect(")")
                return A.CastExpr(t.pos, tr, self.unary())
        return self.postfix(self.primary())

    def _is_cast(self) -> bool:
        nxt = self.peek()
        if nxt.kind == "kw" and nxt.text in ("bit", "int", "varbit", "bool", "tuple"):
            return True
        if self.is_type_name(nxt) and self.peek(2).text in (")", "<", "["):
            return True
        return False

    def primary(self) -> A.Expr:
        t = self.tok
        pos = t.pos
        k = t.kind
        if k == "int":
            self.advance()
            v, w, s = t.value
            return A.IntLit(pos, v, w, s, t.text)
        if k == "id":
            self.advance()
            if t.text == "_":
                return A.DontCareExpr(pos)
            return A.PathExpr(pos, t.text)
        if k == "str":
            self.advance()
            return A.StringLit(pos, t.value)
        if k == "kw":
            if t.text in ("true", "false"):
                self.advance()
                return A.BoolLit(pos, t.text == "true")
            if t.text in ("error", "apply", "state", "key", "entries", "actions", "type",
                          "priority", "list"):
                self.advance()
                return A.PathExpr(pos, t.text)
            if t.text in ("bit", "int", "varbit", "bool"):
                tr = self.type_ref()
                return A.TypeNameExpr(pos, tr)
        if k == "op":
            if t.text == "(":
                self.advance()
                e = self.expression()
                self.expect(")")
                return e
            if t.text == "{":
                return self.brace_expression()
            if t.text == "." and self.peek().kind == "id":
                self.advance()
                nm = self.advance()
                return A.PathExpr(pos, nm.text, True)
        self.error(pos, f"expected an expression, found {self._describe(t)}")

    def brace_expression(self) -> A.Expr:
        pos = self.expect("{").pos
        if self.accept("}"):
            return A.ListExpr(pos, [])
        if self.tok.kind == "id" and self.peek().text == "=" and self.peek(2).text != "=":
            fields = []
            while not self.at("}"):
                nm = self.name("a field name")
                self.expect("=")
                fields.append((nm.text, self.expression()))
                if not self.accept(","):
                    break
            self.expect("}")
            return A.StructInitExpr(pos, fields)
        items = [self.expression()]
        while self.accept(","):
            if self.at("}"):
                break
            items.append(self.expression())
        self.expect("}")
        return A.ListExpr(pos, items)

    def postfix(self, e: A.Expr) -> A.Expr:
        while True:
            t = self.tok
            if t.kind != "op":
                return e
            if t.text == ".":
                self.advance()
                nm = self.name("a member name")
                e = A.MemberExpr(e.pos, e, nm.text, member_pos=nm.pos)
            elif t.text == "[":
                self.advance()
                first = self.expression()
                if self.accept(":"):
                    lo = self.expression()
                    self.expect("]")
                    e = A.SliceExpr(e.pos, e, first, lo)
                elif self.accept("+:"):              # e[L +: W] (spec 1.2.5)
                    width = self.expression()
                    self.expect("]")
                    e = A.SliceExpr(e.pos, e, width, first, plus=True)
                else:
                    self.expect("]")
                    e = A.IndexExpr(e.pos, e, first)
            elif t.text == "(":
                args = self.arguments()
                e = A.MethodCallExpr(e.pos, e, [], args)
            elif t.text == "<" and self._generic_call_ahead():
                self.advance()
                targs = self.type_arg_list()
                self.expect_close_angle()
                args = self.arguments()
                e = A.MethodCallExpr(e.pos, e, targs, args)
            else:
                return e

    def _generic_call_ahead(self) -> bool:
        """At '<': is this `f<types>(`? Try to parse type arguments without reporting."""
        if not self.starts_type(self.peek()):
            return False
        save_i, save_items = self.i, len(self.diags.items)
        try:
            self.advance()
            self.type_arg_list()
            ok = self.at(">") and self.peek().text == "("
        except (_SyntaxError, CompileError):
            ok = False
        self.i = save_i
        del self.diags.items[save_items:]
        return ok

    def arguments(self) -> list:
        self.expect("(")
        args = []
        if self.accept(")"):
            return args
        while True:
            t = self.tok
            if t.kind == "id" and self.peek().text == "=" and self.peek(2).text != "=":
                self.advance()
                self.advance()
                args.append(A.Argument(t.pos, t.text, self.expression()))
            else:
                args.append(self.expression())
            if not self.accept(","):
                break
        self.expect(")")
        return args
