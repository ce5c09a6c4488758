"""P4_16 lexer (spec section 6.3 "Lexical constructs").

Input is preprocessed text with cpp line markers (`# 12 "file.p4" 1`); each token carries the
file and line the marker says, so errors name the original file. cpp collapses runs of blanks
inside a line, so the column is recovered by finding the token's text in the original source
line (left to right); only tokens that come from a macro expansion keep an approximate column.

Integer literals (spec 6.3.3): decimal, 0x/0X hex, 0o/0O octal, 0b/0B binary, 0d decimal,
underscores anywhere after the first digit, and an optional width prefix `8w` (bit<8>) or
`8s` (int<8>): `8w5`, `16s0xff`, `32w0b1010_0000`. `>>` is never one token: the parser joins
two adjacent `>` so that `register<bit<32>>` closes two type argument lists (and `>>=` is
`>` followed by `>=`). Adjacent means adjacent in the preprocessed text (`Token.glued`), not
by recovered columns, which a macro expansion leaves approximate. Compound assignments (`+=`, `|+|=`, ..., P4 1.2.4) are single tokens.
"""
from __future__ import annotations

import math
import re

from ..diagnostics import Diagnostics, Pos
from .types import MAX_WIDTH

KEYWORDS = frozenset("""
abstract action apply bit bool const control default else enum error exit extern false header
header_union if in inout int match_kind out package parser return select state string struct
switch table transition true tuple type typedef varbit void value_set list
""".split())

# longest operators first
_OPS = ["|+|=", "|-|=", "<<=", "++=", "&&&", "|+|", "|-|", "...", "..", "+=", "-=", "*=", "/=",
        "%=", "&=", "|=", "^=", "<<", "<=", ">=", "==", "!=", "&&", "||", "++", "+:",
        "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "<", ">", "=", "?", ":", ";", ",",
        ".", "(", ")", "{", "}", "[", "]", "@"]

_TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<comment>//[^\n]*)
  | (?P<bcomment>/\*)
  | (?P<int>(?:\d+[ws])?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|\d[0-9_]*))
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<op>""" + "|".join(re.escape(o) for o in _OPS) + r""")
""", re.VERBOSE)

# what text never holds: control characters other than blanks, and the bytes that are not
# UTF-8 (decoded as lone surrogates, U+DC80-U+DCFF: preprocess.py reads with surrogateescape)
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1f\x7f\udc80-\udcff]")
# decimal digits int() converts in one call (CPython refuses longer strings: its conversion
# is quadratic, sys.get_int_max_str_digits)
_DIGITS_PER_STEP = 4000
_LINE_MARKER = re.compile(r'#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')
_INT_BODY = re.compile(r"(?:(\d+)([ws]))?(.*)", re.S)


class Token:
    __slots__ = ("kind", "value", "pos", "text", "glued")

    def __init__(self, kind: str, value, pos: Pos, text: str, glued: bool = False):
        self.kind = kind        # "id", "kw", "int", "str", "op", "eof"
        self.value = value      # identifier/keyword/op text, str value, or (value, width, signed)
        self.pos = pos
        self.text = text
        self.glued = glued      # starts where the previous token ended, on the same line

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r}, {self.pos})"


def parse_int_literal(text: str):
    """'8w0x1F' -> (31, 8, False); '5' -> (5, None, False); raises ValueError if malformed or
    wider than MAX_WIDTH bits (the widest bit<W>: no constant can need more)."""
    m = _INT_BODY.fullmatch(text)
    if m.group(1) and len(m.group(1)) > len(str(MAX_WIDTH)):
        raise ValueError(f"integer literal {_shown(text)}: its width is too large (at most "
                         f"{MAX_WIDTH})")
    width = int(m.group(1)) if m.group(1) else None
    if width is not None and width > MAX_WIDTH:
        raise ValueError(f"integer literal {_shown(text)}: width {width} is too large (at most "
                         f"{MAX_WIDTH})")
    signed = m.group(2) == "s"
    body = m.group(3).replace("_", "")
    base = 10
    if len(body) > 1 and body[0] == "0" and body[1] in "xXbBoOdD":
        base = {"x": 16, "b": 2, "o": 8, "d": 10}[body[1].lower()]
        body = body[2:]
    if not body:
        raise ValueError(f"malformed integer literal {text!r}")
    if len(body.lstrip("0")) * math.log2(base) > MAX_WIDTH + 4:      # bits, near enough
        raise ValueError(f"integer literal {_shown(text)} is too large: {len(body)} digits, "
                         f"more than the {MAX_WIDTH} bits of the widest bit<W>")
    return _int(body, base), width, signed


def _int(digits: str, base: int) -> int:
    if base != 10:
        return int(digits, base)          # power-of-two bases convert in linear time
    value = 0
    for i in range(0, len(digits), _DIGITS_PER_STEP):
        step = digits[i:i + _DIGITS_PER_STEP]
        value = value * 10 ** len(step) + int(step)
    return value


def _shown(text: str) -> str:
    """A literal as messages quote it: long ones by their ends."""
    return repr(text) if len(text) <= 40 else repr(text[:20] + "..." + text[-10:])


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "0": "\0"}


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), s)


class _SourceCache:
    """Original source lines, for column recovery."""

    def __init__(self):
        self._files: dict = {}

    def line(self, file: str, line: int):
        lines = self._files.get(file)
        if lines is None:
            try:
                with open(file, encoding="utf-8", errors="replace") as f:
                    lines = f.read().split("\n")
            except OSError:
                lines = []
            self._files[file] = lines
        if 0 < line <= len(lines):
            return lines[line - 1]
        return None


def _string_end(raw: str, i: int) -> int:
    """Index of the '"' closing a string literal whose text starts at raw[i], or -1."""
    n = len(raw)
    while i < n:
        if raw[i] == "\\":
            i += 2
        elif raw[i] == '"':
            return i
        else:
            i += 1
    return -1


def _check_other_tokens(tokens: list, diags: Diagnostics) -> list:
    """Characters that start no P4 token may appear only in the body of an unstructured
    annotation `@name( ... )` (spec 18.2: any tokens, with balanced parentheses); anywhere
    else they are an error."""
    out = []
    depth = 0
    for k, t in enumerate(tokens):
        if depth:
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
        elif (t.kind == "op" and t.text == "(" and k >= 2 and tokens[k - 2].kind == "op"
              and tokens[k - 2].text == "@" and tokens[k - 1].kind in ("id", "kw")):
            depth = 1
        if t.kind == "other":
            if depth:
                out.append(t)
            else:
                diags.error(t.pos, f"unexpected character {t.text!r}")
            continue
        out.append(t)
    return out


def tokenize(text: str, filename: str, diags: Diagnostics, *, recover_columns: bool = True):
    """Tokens of `text` (ending with an "eof" token). Lexical errors go to `diags`."""
    tokens: list = []
    append = tokens.append
    cache = _SourceCache() if recover_columns else None
    file = filename
    line_no = 0
    in_comment = False
    comment_pos = None
    raw = ""
    pending = None                     # a string literal continued on the next lines
    maybe_binary = _NOT_TEXT.search(text) is not None
    for raw in text.replace("\ufeff", " ").split("\n"):     # a BOM is a blank
        line_no += 1
        if pending is not None:
            m = _LINE_MARKER.match(raw.lstrip()) if raw.lstrip().startswith("#") else None
            if m:                      # cpp re-syncs line numbers even inside a string
                line_no = int(m.group(1)) - 1
                file = m.group(2)
                continue
            end = _string_end(raw, 0)
            if end < 0:
                pending[1].append(raw)
                continue
            str_pos, parts = pending
            pending = None
            body = "\n".join(parts + [raw[:end]])
            append(Token("str", _unescape(body), str_pos, '"' + body + '"'))
            orig = None
            cursor = 0
            i = end + 1
            n = len(raw)
            resumed = True
        else:
            resumed = False
        last_end = -1                      # where the line's previous token ended
        if not resumed and not in_comment and raw.lstrip().startswith("#"):
            m = _LINE_MARKER.match(raw.lstrip())
            if m:
                line_no = int(m.group(1)) - 1
                file = m.group(2)
                continue
            if raw.lstrip()[1:].lstrip().startswith("pragma"):
                # cpp passes #pragma through; p4c gives P4 meaning to none we support
                diags.warning(Pos(file, line_no, 1), f"ignoring {raw.strip()}")
                continue
            diags.error(Pos(file, line_no, 1), f"unexpected preprocessor directive: {raw.strip()}")
            continue
        if maybe_binary and not in_comment:
            bad = _NOT_TEXT.search(raw)
            if bad is not None:
                diags.fatal(Pos(file, line_no, bad.start() + 1), _not_text(bad.group()))
        if not resumed:
            orig = cache.line(file, line_no) if cache is not None else None
            if orig == raw:
                orig = None                # columns already exact
            cursor = 0                     # search position in the original line
            i = 0
            n = len(raw)
        if in_comment:
            end = raw.find("*/")
            if end < 0:
                continue
            in_comment = False
            i = end + 2
        while i < n:
            m = _TOKEN_RE.match(raw, i)
            if m is None:
                if raw[i] == '"':
                    # p4c's lexer lets a string literal run over several lines
                    pending = (Pos(file, line_no, i + 1), [raw[i + 1:]])
                    break
                # kept for annotation bodies, which may hold any tokens (reported below
                # when it is anywhere else)
                append(Token("other", raw[i], Pos(file, line_no, i + 1), raw[i]))
                i += 1
                continue
            kind = m.lastgroup
            tok_text = m.group()
            start = i
            i = m.end()
            if kind == "ws" or kind == "comment":
                continue
            if kind == "bcomment":
                end = raw.find("*/", i)
                if end < 0:
                    in_comment = True
                    comment_pos = Pos(file, line_no, start + 1)
                    break
                i = end + 2
                continue
            col = start + 1
            if orig is not None:
                found = orig.find(tok_text, cursor)
                if found >= 0:
                    col = found + 1
                    cursor = found + len(tok_text)
                else:
                    col = cursor + 1
            pos = Pos(file, line_no, col)
            if kind == "id":
                if tok_text in KEYWORDS:
                    append(Token("kw", tok_text, pos, tok_text))
                else:
                    append(Token("id", tok_text, pos, tok_text))
            elif kind == "op":
                append(Token("op", tok_text, pos, tok_text, start == last_end))
                last_end = i
                continue
            elif kind == "int":
                # an identifier glued to a number (`8wx`) is malformed
                if i < n and (raw[i].isalnum() or raw[i] == "_"):
                    while i < n and (raw[i].isalnum() or raw[i] == "_"):
                        i += 1
                    diags.error(pos, f"malformed integer literal {raw[start:i]!r}")
                    continue
                try:
                    value = parse_int_literal(tok_text)
                except ValueError as e:
                    diags.error(pos, str(e))
                    # a literal in its place keeps the parser from reporting the gap too
                    append(Token("int", (0, None, False), pos, "0"))
                    continue
                if value[1] is not None and value[1] == 0:
                    diags.error(pos, f"integer literal {tok_text!r}: width must be positive")
                    continue
                append(Token("int", value, pos, tok_text))
            else:  # str
                append(Token("str", _unescape(tok_text[1:-1]), pos, tok_text))
    if in_comment:
        diags.error(comment_pos, "unterminated comment")
    if pending is not None:
        diags.error(pending[0], "unterminated string literal")
    if any(t.kind == "other" for t in tokens):
        tokens = _check_other_tokens(tokens, diags)
        append = tokens.append
    append(Token("eof", "<end of file>", Pos(file, max(line_no, 1), len(raw) + 1),
                 "<end of file>"))
    return tokens


def _not_text(c: str) -> str:
    if "\udc80" <= c <= "\udcff":
        return (f"byte 0x{ord(c) - 0xdc00:02x} is not UTF-8: a P4 program is UTF-8 text (is this a "
                f"binary file?)")
    what = "a NUL byte" if c == "\x00" else f"control character 0x{ord(c):02x}"
    return f"{what}: a P4 program is text (is this a binary file?)"
