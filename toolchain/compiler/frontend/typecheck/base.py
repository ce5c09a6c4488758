"""What every part of the type checker shares: where checking is, how errors stop it, the
limits and names it knows, and small helpers for messages."""
from __future__ import annotations

from ...diagnostics import Diagnostics, Pos
from .. import ast as A
from .. import types as T
from ..scopes import Abandon

MAX_STACK = 4096             # header stack elements (each becomes a BMv2 header instance)
TABLE_PROPERTIES = {"key", "actions", "default_action", "entries", "size", "counters", "meters",
                    "support_timeout", "implementation", "idle_timeout_with_auto_delete",
                    "largest_priority_wins", "priority_delta"}     # the last two: spec 14.2.1.4
HEADER_METHODS = {"isValid", "setValid", "setInvalid", "minSizeInBits", "minSizeInBytes"}
PACKET_BUILTINS = {"extract", "lookahead", "advance", "length", "emit"}


class Ctx:
    """Where checking is: kind is "top", "parser", "state", "control", "action", "apply" or
    "function"; the enclosing control, parser, action and function; inside a loop or not."""
    __slots__ = ("kind", "control", "parser", "action", "function", "loop")

    def __init__(self, kind, control=None, parser=None, action=None, function=None,
                 loop=False):
        self.kind = kind
        self.control = control
        self.parser = parser
        self.action = action
        self.function = function       # (FunctionDecl, return P4Type) inside a function body
        self.loop = loop               # inside a for loop's body: break/continue allowed

    def child(self, kind=None, **kw) -> "Ctx":
        c = Ctx(kind or self.kind, self.control, self.parser, self.action, self.function,
                self.loop)
        for k, v in kw.items():
            setattr(c, k, v)
        return c


class TypingBase:
    """State and reporting shared by the type checker's parts (typecheck/__init__.py)."""

    def __init__(self, program: A.Program, diags: Diagnostics):
        self.program = program
        self.diags = diags
        self.top: dict = program.scope    # top-level names (resolve.py)
        # error and match_kind members declared so far (their declarations may be several)
        self.error_members: dict = {}
        self.match_kinds: dict = {}
        self.type_vars: list = []         # stack of {name: TypeVar}

    def err(self, pos, msg: str):
        self.diags.error(pos, msg)
        raise Abandon()

    def refuse(self, pos, construct: str):
        self.err(pos, f"{construct} is not supported")

    def warn(self, pos, msg: str):
        self.diags.warning(pos, msg)

    def guarded(self, fn, *args):
        try:
            return fn(*args)
        except Abandon:
            return None

    @staticmethod
    def resolved(node):
        """The declaration name resolution found for a PathExpr/NamedTypeRef."""
        d = node.decl
        if d is None:
            raise AssertionError(f"{node.pos}: '{node.name}' was not resolved")
        return d


def non_header_leaf(t: T.Struct):
    """The first member type of struct t (searched recursively) that a header cannot hold."""
    for ft in t.fields.values():
        if isinstance(ft, T.Struct):
            bad = non_header_leaf(ft)
            if bad is not None:
                return bad
        elif not (isinstance(ft, T.Bits) or ft == T.BOOL or
                  (isinstance(ft, T.Enum) and ft.underlying is not None)):
            return ft
    return None


def expr_text(e) -> str:
    """Source-like text of a key expression, for messages."""
    if isinstance(e, A.PathExpr):
        return e.name
    if isinstance(e, A.MemberExpr):
        return f"{expr_text(e.expr)}.{e.member}"
    if isinstance(e, A.IndexExpr):
        return f"{expr_text(e.expr)}[{e.folded_index}]"
    if isinstance(e, A.SliceExpr):
        return f"{expr_text(e.expr)}[{e.hi_value}:{e.lo_value}]"
    if isinstance(e, A.MethodCallExpr):
        return f"{expr_text(e.callee)}()"
    return "(expression)"


def left_operand(e):
    """The next node down an expression's left side (the one its source text starts with), or
    None at a leaf."""
    if isinstance(e, (A.MemberExpr, A.IndexExpr, A.SliceExpr)):
        return e.expr
    if isinstance(e, A.BinaryExpr):
        return e.left
    if isinstance(e, A.TernaryExpr):
        return e.cond
    if isinstance(e, A.MethodCallExpr):
        return e.callee
    return None


def start_pos(e) -> Pos:
    """Where an expression starts in the source (its leftmost token)."""
    while (left := left_operand(e)) is not None:
        e = left
    return e.pos


def report_pos(e) -> Pos:
    """Where p4c reports an expression: where it starts. In code an inlined block or action
    brought in, its leftmost operand may be an argument it was given, positioned at the call:
    the start is then the last node down the left side still in the expression's own place,
    so every copy of the code reports at one position."""
    best = e.pos
    while True:
        e = left_operand(e)
        if e is None or e.pos.file != best.file or e.pos.line > best.line:
            return best
        best = e.pos


def value_type(t):
    """Spec 8.11.2: a serializable enum converts implicitly to its underlying type in
    arithmetic, shifts, concatenation and comparisons."""
    if isinstance(t, T.Enum) and t.underlying is not None:
        return t.underlying
    return t
