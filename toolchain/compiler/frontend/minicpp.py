"""A small C preprocessor in Python, used when no system `cpp` is installed.

p4c runs the system C preprocessor, and so does the front end whenever one is on PATH (see
`preprocess.py`). On a machine with Python alone (a slim container) this module keeps the
compiler working: it implements the part of C99 section 6.10 that P4 programs use --
`#include "f"` / `<f>`, object-like and function-like `#define` (with `#` stringizing and
`##` pasting), `#undef`, `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` with `defined`
and integer expressions, `#error`, `#warning`, `#line`, and `#pragma` (passed through). Output
has the same shape as cpp's: text with `# N "file"` line markers. Comments become blanks of
the same length, so columns stay exact on lines without macros.
"""
from __future__ import annotations

import os
import re

from ..diagnostics import CompileError, Diagnostic, Pos

_TOKEN = re.compile(r"""
    (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>\d[\w.]*)
  | (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<ws>\s+)
  | (?P<op>\#\#|\#|&&|\|\||<<|>>|<=|>=|==|!=|.)
""", re.VERBOSE | re.DOTALL)

_DIRECTIVE = re.compile(r"\s*#\s*(\w*)\s*(.*)$", re.DOTALL)
MAX_INCLUDE_DEPTH = 200
_RESYNC = object()

# Macro expansion is bounded: a macro whose body names another several times, nested a dozen
# levels, expands to more text than memory holds (cpp would write it out until the disk is
# full). The preprocessed program may be at most MAX_PREPROCESSED_BYTES (8 MiB; the gateway
# is 45 KiB), macros may nest MAX_EXPANSION_DEPTH
# deep, and expanding costs at most MAX_EXPANSION_WORK token copies in all (each level copies
# what the levels under it produced), which bounds the time as well.
MAX_PREPROCESSED_BYTES = 8 << 20
MAX_EXPANSION_DEPTH = 200
MAX_EXPANSION_WORK = 8_000_000


def too_large_message() -> str:
    return (f"preprocessor: the preprocessed program exceeds {MAX_PREPROCESSED_BYTES >> 20} MiB "
            f"(a macro that expands to too much text?)")


class _TooMuch(Exception):
    """Expansion went past a bound; carries the message."""


class Macro:
    __slots__ = ("name", "params", "body", "variadic")

    def __init__(self, name, params, body, variadic=False):
        self.name = name
        self.params = params      # None for object-like macros
        self.body = body          # token list
        self.variadic = variadic


def _tokens(text: str) -> list:
    return [m.group() for m in _TOKEN.finditer(text)]


def _strip_comments(text: str, file: str) -> str:
    """Replace comments by blanks of the same size (newlines kept), outside string literals."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                line = text.count("\n", 0, i) + 1
                raise CompileError.at(Pos(file, line, 1), "unterminated comment")
            j += 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


class MiniCpp:
    def __init__(self, include_dirs=(), defines=None):
        self.include_dirs = [str(d) for d in include_dirs]
        self.macros: dict = {}
        self.out: list = []
        self.out_bytes = 0        # characters in self.out so far
        self.work = 0             # tokens copied by macro expansion so far
        self.depth = 0
        for name, value in (defines or {}).items():
            self.macros[name] = Macro(name, None, _tokens("1" if value is None else str(value)))

    # ------------------------------------------------------------ files
    def run(self, path: str) -> str:
        self.process_file(path)
        return "\n".join(self.out) + "\n"

    def error(self, file, line, message):
        raise CompileError([Diagnostic("error", Pos(file, line, 1), "preprocessor: " + message)])

    def process_file(self, path: str) -> None:
        try:
            # bytes that are not UTF-8 pass through as lone surrogates: the lexer names the
            # first one with its position, unless it is in a comment (dropped, as by cpp)
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                raw = f.read()
        except OSError as e:
            raise CompileError.at(None, f"{path}: {e.strerror}")
        raw = raw.lstrip("\ufeff").replace("\r\n", "\n")      # BOM, DOS line ends
        text = _strip_comments(raw, path)
        self.out.append(f'# 1 "{path}"')
        lines = text.split("\n")
        stack: list = []          # [taking, any_branch_taken, in_else]
        i = 0
        while i < len(lines):
            start = i
            line = lines[i]
            while line.endswith("\\") and i + 1 < len(lines):      # line splicing
                i += 1
                line = line[:-1] + lines[i]
            i += 1
            active = all(s[0] for s in stack)
            m = _DIRECTIVE.match(line) if line.lstrip().startswith("#") else None
            if m is None:
                text = self.expand_line(line, path, start + 1) if active else ""
                self.out_bytes += len(text) + 1
                if self.out_bytes > MAX_PREPROCESSED_BYTES:
                    self.error(path, start + 1, too_large_message()[len("preprocessor: "):])
                self.out.append(text)
            else:
                result = self.directive(m.group(1), m.group(2).strip(), stack, active, path,
                                        start + 1)
                if result is _RESYNC:
                    self.out.append(f'# {i + 1} "{path}"')
                else:
                    self.out.append(result or "")
            self.out.extend([""] * (i - start - 1))
        if stack:
            self.error(path, len(lines), "unterminated #if")

    def find_include(self, name: str, quoted: bool, current: str):
        dirs = ([os.path.dirname(current) or "."] if quoted else []) + self.include_dirs
        for d in dirs:
            p = os.path.join(d, name)
            if os.path.isfile(p):
                return p
        return None

    # ------------------------------------------------------------ directives
    def directive(self, name, rest, stack, active, path, line):
        """Handle one directive. Returns the text that stands for its line (None: a blank
        line), or _RESYNC after an #include, when a line marker must follow."""
        if name in ("if", "ifdef", "ifndef"):
            if not active:
                stack.append([False, True, False])
                return None
            if name == "if":
                cond = self.eval_condition(rest, path, line)
            else:
                ident = rest.split()[0] if rest.split() else ""
                if not ident:
                    self.error(path, line, f"#{name} needs a macro name")
                cond = (ident in self.macros) == (name == "ifdef")
            stack.append([cond, cond, False])
            return None
        if name in ("elif", "else", "endif"):
            if not stack:
                self.error(path, line, f"#{name} without #if")
            top = stack[-1]
            parent_active = all(s[0] for s in stack[:-1])
            if name == "endif":
                stack.pop()
            elif name == "else":
                if top[2]:
                    self.error(path, line, "#else after #else")
                top[0] = parent_active and not top[1]
                top[1] = top[1] or top[0]
                top[2] = True
            else:
                if top[2]:
                    self.error(path, line, "#elif after #else")
                take = parent_active and not top[1] and self.eval_condition(rest, path, line)
                top[0] = take
                top[1] = top[1] or take
            return None
        if not active:
            return None
        if name == "define":
            self.define(rest, path, line)
        elif name == "undef":
            self.macros.pop(rest.split()[0] if rest else "", None)
        elif name == "include":
            self.include(rest, path, line)
            return _RESYNC
        elif name == "error":
            self.error(path, line, f"#error {rest}")
        elif name == "warning":
            pass                              # cpp prints it; nothing to compile
        elif name == "line":
            parts = rest.split()
            if parts and parts[0].isdigit():
                fname = parts[1].strip('"') if len(parts) > 1 else path
                self.out.append(f'# {int(parts[0]) - 1} "{fname}"')
        elif name == "pragma":
            return f"#pragma {rest}"
        elif name == "":
            pass                              # a lone '#' is a null directive
        else:
            self.error(path, line, f"invalid preprocessing directive #{name}")
        return None

    def include(self, rest, path, line) -> None:
        rest = self.expand_line(rest, path, line).strip() if not rest[:1] in '"<' else rest
        m = re.match(r'"([^"]+)"|<([^>]+)>', rest)
        if not m:
            self.error(path, line, f"#include expects \"FILENAME\" or <FILENAME>: {rest}")
        name = m.group(1) or m.group(2)
        found = self.find_include(name, m.group(1) is not None, path)
        if found is None:
            raise CompileError([Diagnostic("error", Pos(path, line, 1),
                                           f"preprocessor: {name}: No such file or directory")])
        if self.depth >= MAX_INCLUDE_DEPTH:
            self.error(path, line, "#include nested too deeply")
        self.depth += 1
        self.process_file(found)
        self.depth -= 1

    def define(self, rest, path, line) -> None:
        m = re.match(r"([A-Za-z_]\w*)(\()?", rest)
        if not m:
            self.error(path, line, "macro names must be identifiers")
        name = m.group(1)
        if m.group(2):
            close = rest.find(")", m.end())
            if close < 0:
                self.error(path, line, f"missing ')' in the parameters of macro {name}")
            params = [p.strip() for p in rest[m.end():close].split(",") if p.strip()]
            variadic = bool(params) and params[-1] == "..."
            if variadic:
                params[-1] = "__VA_ARGS__"
            body = rest[close + 1:].strip()
            self.macros[name] = Macro(name, params, _tokens(body), variadic)
        else:
            self.macros[name] = Macro(name, None, _tokens(rest[m.end():].strip()))

    # ------------------------------------------------------------ expansion
    def expand_line(self, line: str, path, line_no) -> str:
        if not any(t in self.macros for t in re.findall(r"[A-Za-z_]\w*", line)):
            return line                        # fast path: keeps columns exact
        try:
            toks = self.expand(_tokens(line), frozenset(), path, line_no)
            if sum(map(len, toks)) + self.out_bytes > MAX_PREPROCESSED_BYTES:
                raise _TooMuch(too_large_message()[len("preprocessor: "):])
            return "".join(toks)
        except _TooMuch as e:
            self.error(path, line_no, str(e))

    def _copied(self, toks: list, name: str) -> list:
        """Count the tokens one level of expansion copies (the bound on the work)."""
        self.work += len(toks)
        if self.work > MAX_EXPANSION_WORK:
            raise _TooMuch(f"macro expansion too large: expanding {name} copies more than "
                           f"{MAX_EXPANSION_WORK:,} tokens (a macro that names another many "
                           f"times, nested?)")
        return toks

    def expand(self, toks: list, hide: frozenset, path, line_no) -> list:
        if len(hide) > MAX_EXPANSION_DEPTH:
            raise _TooMuch(f"macro expansion nested more than {MAX_EXPANSION_DEPTH} levels deep")
        out = []
        i = 0
        while i < len(toks):
            t = toks[i]
            mac = self.macros.get(t)
            if mac is None or t in hide:
                out.append(t)
                i += 1
                continue
            if mac.params is None:
                out.extend(self._copied(self.expand(list(mac.body), hide | {t}, path, line_no), t))
                i += 1
                continue
            j = i + 1
            while j < len(toks) and toks[j].isspace():
                j += 1
            if j >= len(toks) or toks[j] != "(":
                out.append(t)                  # a function-like macro name without arguments
                i += 1
                continue
            args, j = self.collect_args(toks, j, path, line_no, t)
            body = self._copied(self.substitute(mac, args, hide | {t}, path, line_no), t)
            out.extend(self._copied(self.expand(body, hide | {t}, path, line_no), t))
            i = j
        return out

    def collect_args(self, toks, j, path, line_no, name):
        depth = 0
        args, cur = [], []
        while j < len(toks):
            t = toks[j]
            j += 1
            if t == "(":
                depth += 1
                if depth == 1:
                    continue
            elif t == ")":
                depth -= 1
                if depth == 0:
                    args.append(cur)
                    return args, j
            elif t == "," and depth == 1:
                args.append(cur)
                cur = []
                continue
            cur.append(t)
        self.error(path, line_no, f"unterminated argument list invoking macro {name}")

    def substitute(self, mac: Macro, args, hide, path, line_no) -> list:
        params = mac.params
        if args == [[]] and not params:
            args = []
        if mac.variadic and len(args) >= len(params):
            args = args[:len(params) - 1] + [sum(([*a, ","] for a in args[len(params) - 1:]),
                                                  [])[:-1]]
        if len(args) != len(params):
            self.error(path, line_no, f"macro {mac.name} takes {len(params)} arguments, "
                                      f"{len(args)} given")
        binding = {p: [t for t in a] for p, a in zip(params, args)}
        body = [t for t in mac.body]
        out = []
        i = 0
        while i < len(body):
            t = body[i]
            if t == "#" and i + 1 < len(body):
                k = i + 1
                while k < len(body) and body[k].isspace():
                    k += 1
                if k < len(body) and body[k] in binding:
                    text = "".join(binding[body[k]]).strip()
                    out.append('"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"')
                    i = k + 1
                    continue
            if t == "##":
                while out and out[-1].isspace():
                    out.pop()
                k = i + 1
                while k < len(body) and body[k].isspace():
                    k += 1
                if k < len(body):
                    nxt = binding.get(body[k], [body[k]])
                    nxt = [x for x in nxt if not x.isspace()] or [""]
                    left = out.pop() if out else ""
                    out.extend(_tokens(left + nxt[0]) + nxt[1:])
                    i = k + 1
                    continue
                i += 1
                continue
            if t in binding:
                pasted_next = any(body[k] == "##" for k in range(i + 1, len(body))
                                  if not all(x.isspace() for x in body[i + 1:k]))
                if pasted_next:
                    out.extend(self._copied(binding[t], mac.name))
                else:
                    out.extend(self._copied(self.expand(list(binding[t]), hide - {mac.name},
                                                        path, line_no), mac.name))
                i += 1
                continue
            out.append(t)
            i += 1
        return out

    # ------------------------------------------------------------ #if expressions
    def eval_condition(self, text: str, path, line) -> bool:
        # `defined X` / `defined(X)` before expansion (C99 6.10.1p1)
        def repl(m):
            return "1" if (m.group(1) or m.group(2)) in self.macros else "0"
        text = re.sub(r"\bdefined\s*(?:\(\s*(\w+)\s*\)|(\w+))", repl, text)
        toks = [t for t in self.expand(_tokens(text), frozenset(), path, line)
                if not t.isspace()]
        toks = ["0" if re.match(r"[A-Za-z_]", t) else t for t in toks]   # unknown names are 0
        try:
            value, pos = _CondParser(toks).parse()
        except (ValueError, IndexError, ZeroDivisionError) as e:
            self.error(path, line, f"bad #if expression '{text.strip()}': {e}")
        return value != 0


class _CondParser:
    """Integer expressions of #if (C99 6.10.1), by precedence climbing."""
    BIN = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7,
           "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}

    def __init__(self, toks):
        self.toks = toks
        self.i = 0

    def parse(self):
        v = self.expr(0)
        if self.i != len(self.toks):
            raise ValueError(f"unexpected '{self.toks[self.i]}'")
        return v, self.i

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def expr(self, min_prec):
        left = self.unary()
        while True:
            op = self.peek()
            if op == "?" and min_prec == 0:
                self.i += 1
                a = self.expr(0)
                if self.peek() != ":":
                    raise ValueError("expected ':'")
                self.i += 1
                b = self.expr(0)
                left = a if left else b
                continue
            prec = self.BIN.get(op)
            if prec is None or prec < min_prec:
                return left
            self.i += 1
            right = self.expr(prec + 1)
            left = self.apply(op, left, right)

    @staticmethod
    def apply(op, a, b):
        if op in ("<<", ">>") and not 0 <= b < 64:
            raise ValueError(f"shift count {b} out of range")    # C: undefined for intmax_t
        if op in ("/", "%"):
            if b == 0:
                raise ZeroDivisionError("division by zero")
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return q if op == "/" else a - q * b
        return {"||": lambda: int(bool(a or b)), "&&": lambda: int(bool(a and b)),
                "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b,
                "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
                ">": lambda: int(a > b), "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
                "<<": lambda: a << b, ">>": lambda: a >> b, "+": lambda: a + b,
                "-": lambda: a - b, "*": lambda: a * b}[op]()

    def unary(self):
        t = self.peek()
        if t is None:
            raise ValueError("missing operand")
        self.i += 1
        if t == "(":
            v = self.expr(0)
            if self.peek() != ")":
                raise ValueError("expected ')'")
            self.i += 1
            return v
        if t == "!":
            return int(not self.unary())
        if t == "~":
            return ~self.unary()
        if t == "-":
            return -self.unary()
        if t == "+":
            return self.unary()
        m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)[uUlL]*", t)
        if m:
            s = m.group(1)
            return int(s, 16) if s[:2].lower() == "0x" else (int(s, 8) if s.startswith("0")
                                                             else int(s))
        if re.fullmatch(r"'(\\.|[^'])'", t):
            return ord(t[1:-1].encode().decode("unicode_escape"))
        raise ValueError(f"unexpected '{t}'")


def preprocess_builtin(path: str, *, include_dirs=(), defines=None) -> str:
    return MiniCpp(include_dirs, defines).run(path)
