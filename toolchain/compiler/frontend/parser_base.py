"""The parser's token stream: looking at, taking and expecting tokens, syntax errors and
recovery; the grammar's constant tables. `SyntaxParser` (parser.py) is built on it."""
from __future__ import annotations

from typing import Optional

from ..deep import MAX_DEPTH, too_deep
from ..diagnostics import Diagnostics, Pos
from .lexer import Token


class _SyntaxError(Exception):
    """A syntax error was reported: recover at the next `;` or `}`."""


# binary operator -> precedence (higher binds tighter)
BINARY_PREC = {
    "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4,
    "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
    "++": 9, "+": 9, "-": 9, "|+|": 9, "|-|": 9, "*": 10, "/": 10, "%": 10,
}
TERNARY_PREC = 0

BASE_TYPES = {"bool", "error", "match_kind", "string", "void"}
DIRECTIONS = {"in", "out", "inout"}


class TokenStream:
    """Tokens with a cursor, and the names the grammar needs to know while parsing."""

    def __init__(self, tokens: list, diags: Diagnostics):
        self.toks = tokens
        self.i = 0
        self.diags = diags
        self.type_names: set = set()
        self.scoped_type_params: list = []
        self.all_annotations: list = []
        self.depth = 0                 # nested unary(), statement(), type_ref() calls

    def nested(self, parse):
        """parse(), one level deeper; past MAX_DEPTH (deep.py) the program is refused here,
        before the recursion could exhaust the stack."""
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                self.diags.fatal(self.tok.pos, too_deep())
            return parse()
        finally:
            self.depth -= 1

    # ------------------------------------------------------------ token helpers
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else self.toks[-1]

    def at(self, text: str) -> bool:
        t = self.toks[self.i]
        return t.text == text and t.kind in ("op", "kw")

    def at_id(self, text: Optional[str] = None) -> bool:
        t = self.toks[self.i]
        return t.kind == "id" and (text is None or t.text == text)

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def accept(self, text: str) -> Optional[Token]:
        if self.at(text):
            return self.advance()
        return None

    def expect(self, text: str, what: str = "") -> Token:
        if self.at(text):
            return self.advance()
        pos = self.tok.pos
        if text == ";" and self.i > 0:
            # like gcc: a missing ';' is reported right after the token it should follow
            prev = self.toks[self.i - 1]
            if prev.pos.line != pos.line or prev.pos.file != pos.file:
                pos = Pos(prev.pos.file, prev.pos.line, prev.pos.col + len(prev.text))
        self.error(pos, f"expected '{text}'{' ' + what if what else ''}, found "
                        f"{self._describe(self.tok)}")

    def _describe(self, t: Token) -> str:
        return "end of file" if t.kind == "eof" else f"'{t.text}'"

    def error(self, pos: Pos, message: str):
        self.diags.error(pos, message)
        raise _SyntaxError()

    def name(self, what: str = "a name") -> Token:
        """An identifier; a few keywords are allowed as names, as in p4c's `nonTypeName`."""
        t = self.tok
        if t.kind == "id" or (t.kind == "kw" and t.text in ("apply", "state", "type", "key",
                                                                "entries", "actions", "priority",
                                                                "list")):
            return self.advance()
        self.error(t.pos, f"expected {what}, found {self._describe(t)}")

    def is_type_name(self, t: Token) -> bool:
        if t.kind != "id":
            return False
        if t.text in self.type_names:
            return True
        return any(t.text in s for s in self.scoped_type_params)

    def skip_to_recovery(self) -> None:
        """After an error: skip to just past the next ';' or to a '}' at this level."""
        depth = 0
        while self.tok.kind != "eof":
            t = self.advance()
            if t.kind != "op":
                continue
            if t.text in "({[":
                depth += 1
            elif t.text in ")]":
                depth -= 1
            elif t.text == "}":
                depth -= 1
                if depth <= 0:
                    return
            elif t.text == ";" and depth <= 0:
                return
