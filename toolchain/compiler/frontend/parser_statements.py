"""Statements (spec 11-13, grammar appendix): blocks, assignments and compound assignments,
calls, if, switch, for loops (C-style; `for (x in ...)` is refused), return, exit, local
declarations."""
from __future__ import annotations

import copy
from typing import Optional

from . import ast as A
from .parser_base import TokenStream, _SyntaxError


class StatementParser(TokenStream):
    """Statements; declarations and expressions come from SyntaxParser (parser.py)."""

    # ------------------------------------------------------------ statements
    def block(self, pos, annos=None) -> A.BlockStmt:
        self.expect("{", "to open a block")
        stmts = []
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.error(self.tok.pos, "unterminated block, expected '}'")
            try:
                stmts.append(self.statement())
            except _SyntaxError:
                self.skip_to_recovery()
        self.expect("}")
        return A.BlockStmt(pos, stmts, annos or [])

    def statement(self, in_parser: bool = False) -> A.Stmt:
        return self.nested(lambda: self._statement(in_parser))

    def _statement(self, in_parser: bool) -> A.Stmt:
        annos = self.annotations()
        t = self.tok
        pos = t.pos
        if t.kind == "op":
            if t.text == "{":
                return self.block(pos, annos)
            if t.text == ";":
                self.advance()
                return A.EmptyStmt(pos)
        if t.kind == "kw":
            k = t.text
            if k == "if":
                self.advance()
                self.expect("(")
                cond = self.expression()
                self.expect(")")
                then = self.statement()
                other = None
                if self.accept("else"):
                    other = self.statement()
                return A.IfStmt(pos, cond, then, other)
            if k == "switch":
                return self.switch_stmt()
            if k == "return":
                self.advance()
                value = None if self.at(";") else self.expression()
                self.expect(";")
                return A.ReturnStmt(pos, value)
            if k == "exit":
                self.advance()
                self.expect(";")
                return A.ExitStmt(pos)
            if k == "const":
                return self.const_decl(annos)
            if k in ("bit", "int", "varbit", "bool", "tuple") or (
                    k == "error" and self.peek().kind == "id"):
                return self.type_led_declaration(annos, top_level=False)
        if self.is_type_name(t) and self.peek().text not in (".", "(") or (
                self.is_type_name(t) and self.peek().text == "(" and self._instantiation_ahead()):
            return self.type_led_declaration(annos, top_level=False)
        if t.kind == "id" and t.text == "for" and self.peek().text == "(":
            if self._for_in_ahead():
                # p4c's BMv2 back end refuses them too (CheckUnsupported: ForInStatement)
                self.skip_for_loop()
                self.diags.error(pos, "for-in loop is not supported (BMv2 does not support "
                                      "for-in loops)")
                return A.EmptyStmt(pos)
            return self.for_stmt()
        if t.kind == "id" and t.text in ("break", "continue") and self.peek().text == ";":
            self.advance()
            self.advance()
            return A.BreakStmt(pos) if t.text == "break" else A.ContinueStmt(pos)
        # assignment or call
        lhs = self.expression()
        if self.at("="):
            self.advance()
            rhs = self.expression()
            self.expect(";")
            return A.AssignStmt(pos, lhs, rhs)
        op = self.compound_assignment()
        if op is not None:
            # `x op= e` means `x = x op e` (P4 1.2.4); the target is a side-effect-free
            # l-value, so evaluating it twice is the same as once
            rhs = self.expression()
            self.expect(";")
            return A.AssignStmt(pos, lhs, A.BinaryExpr(t.pos, op, copy.deepcopy(lhs), rhs))
        self.expect(";")
        if not isinstance(lhs, A.MethodCallExpr):
            self.diags.error(pos, "expression statement must be a call or an assignment")
            return A.EmptyStmt(pos)
        return A.CallStmt(pos, lhs)

    COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "&=": "&", "|=": "|",
                "^=": "^", "<<=": "<<", "|+|=": "|+|", "|-|=": "|-|", "++=": "++"}

    def compound_assignment(self) -> Optional[str]:
        """The operator of a compound assignment at the current token, consumed; or None."""
        t = self.tok
        if t.kind == "op" and t.text in self.COMPOUND:
            self.advance()
            return self.COMPOUND[t.text]
        nxt = self.peek()
        if t.text == ">" and nxt.text == ">=" and nxt.glued:
            self.advance()
            self.advance()
            return ">>"
        return None

    def _for_in_ahead(self) -> bool:
        """`for (T x in e)` / `for (x in e)`: an `in` before the first `;` inside the parens."""
        depth, k = 0, 1
        while True:
            t = self.peek(k)
            if t.kind == "eof":
                return False
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
                if depth == 0:
                    return False
            elif depth == 1 and t.kind == "op" and t.text == ";":
                return False
            elif depth == 1 and t.kind == "kw" and t.text == "in":
                return True
            k += 1

    def for_stmt(self) -> A.ForStmt:
        """`for (init, ...; cond; update, ...) statement` (spec 12.9)."""
        pos = self.advance().pos
        self.expect("(")
        init = self._for_list(";")
        self.expect(";")
        cond = None if self.at(";") else self.expression()
        self.expect(";")
        updates = self._for_list(")")
        self.expect(")")
        return A.ForStmt(pos, init, cond, updates, self.statement())

    def _for_list(self, end: str) -> list:
        out = []
        while not self.at(end):
            out.append(self._for_simple())
            if not self.accept(","):
                break
        return out

    def _for_simple(self) -> A.Stmt:
        """One element of a for loop's init/update list: a declaration with an initializer,
        an assignment (plain or compound) or a call, without its `;`."""
        t = self.tok
        pos = t.pos
        if (t.kind == "kw" and t.text in ("bit", "int", "varbit", "bool", "tuple")) or (
                self.is_type_name(t) and self.peek().text not in (".", "(")):
            tr = self.type_ref()
            nm = self.name("a variable name")
            init = self.expression() if self.accept("=") else None
            return A.VarDecl(pos, nm.text, tr, init)
        lhs = self.expression()
        if self.accept("="):
            return A.AssignStmt(pos, lhs, self.expression())
        op = self.compound_assignment()
        if op is not None:
            rhs = self.expression()
            return A.AssignStmt(pos, lhs, A.BinaryExpr(t.pos, op, copy.deepcopy(lhs), rhs))
        if not isinstance(lhs, A.MethodCallExpr):
            self.diags.error(pos, "a for loop's init and update parts take declarations, "
                                  "assignments and calls")
            return A.EmptyStmt(pos)
        return A.CallStmt(pos, lhs)

    def skip_for_loop(self) -> None:
        """`for (...) stmt` (P4 1.2.5): skipped so the rest of the program is still checked."""
        self.advance()
        self._balanced("(", ")")
        if self.at("{"):
            self._balanced("{", "}")
        else:
            while not self.at(";") and self.tok.kind != "eof":
                self.advance()
            self.accept(";")

    def _instantiation_ahead(self) -> bool:
        """`T(args) name;` (instantiation) vs `T(args);` (call of a constructor: invalid)."""
        depth = 0
        j = self.i + 1
        while j < len(self.toks):
            t = self.toks[j]
            if t.text == "(":
                depth += 1
            elif t.text == ")":
                depth -= 1
                if depth == 0:
                    return self.toks[j + 1].kind == "id"
            elif t.kind == "eof":
                return False
            j += 1
        return False

    def switch_stmt(self) -> A.SwitchStmt:
        pos = self.expect("switch").pos
        self.expect("(")
        e = self.expression()
        self.expect(")")
        self.expect("{")
        cases = []
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.error(self.tok.pos, "unterminated switch")
            cpos = self.tok.pos
            if self.at("default"):
                label = A.DefaultExpr(self.advance().pos)
            else:
                label = self.expression()
            self.expect(":")
            body = None
            if self.at("{"):
                body = self.block(self.tok.pos)
            cases.append(A.SwitchCase(cpos, [label], body))
        self.expect("}")
        return A.SwitchStmt(pos, e, cases)
