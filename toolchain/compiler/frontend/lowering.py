"""The lowering passes: rewrites of the checked AST into forms the mid end handles, each run
after type checking (PASSES in __init__.py), in this order:

 * LowerAggregateEquality: `a == b` / `a != b` on headers, structs or header stacks becomes
   a bool expression over validity and the scalar members (spec 8.16-8.18), in place.
 * LowerLookaheadFields: `pkt.lookahead<H>().f` (a field of a header read ahead, as the P4
   tutorials' calculator does) becomes `pkt.lookahead<bit<N>>()[w-1:0]`, with N = the
   field's bit offset in H plus its width w: lookahead reads the packet's first N bits
   most-significant first, so the field is the low w bits. A signed, bool or enum field
   gets a cast back to its type.
 * LowerParserIfs: an `if` in a parser state is split into states (p4c's RemoveParserIfs).
 * InlineStructConstants: each use of a struct constant as a whole value becomes a copy of
   its value (the checker folded `C.f` for its scalar fields).

Every node a lowering makes is typed exactly as the checker would type it.
"""
from __future__ import annotations

from . import ast as A
from . import types as T


def field_offset(header: T.Header, name: str) -> tuple:
    """(bit offset from the start of the header, width) of field `name`."""
    offset = 0
    for fname, ftype in header.fields.items():
        width = ftype.width_bits
        if fname == name:
            return offset, width
        offset += width
    raise KeyError(name)


def _int(pos, value: int) -> A.IntLit:
    lit = A.IntLit(pos, value, None, False, str(value))
    lit.type, lit.folded = T.INT, value
    return lit


def lowered_field(e: A.MemberExpr) -> A.Expr:
    call: A.MethodCallExpr = e.expr
    header: T.Header = call.type
    offset, width = field_offset(header, e.member)
    n = offset + width
    bits_n = T.Bits(n)
    ref = A.BitsTypeRef(call.pos, _int(call.pos, n), False)
    ref.resolved = bits_n
    call.type_arg_refs = [ref]
    call.type_args = [bits_n]
    call.bindings = {tv: bits_n for tv in (call.bindings or {})}
    call.type = bits_n
    sl = A.SliceExpr(e.pos, call, _int(e.pos, width - 1), _int(e.pos, 0))
    sl.hi_value, sl.lo_value = width - 1, 0
    sl.type = T.Bits(width)
    if e.type == sl.type:
        return sl
    ref = A.NamedTypeRef(e.pos, e.type.name)
    ref.resolved = e.type
    cast = A.CastExpr(e.pos, ref, sl)
    cast.type = e.type
    return cast


def replace_child(parent, old, new) -> bool:
    for name in A._child_fields(type(parent)):
        v = getattr(parent, name)
        if v is old:
            setattr(parent, name, new)
            return True
        if isinstance(v, list):
            for i, x in enumerate(v):
                if x is old:
                    v[i] = new
                    return True
                if isinstance(x, tuple) and old in x:
                    v[i] = tuple(new if y is old else y for y in x)
                    return True
    return False


def is_lookahead_field(n) -> bool:
    """A checked `pkt.lookahead<H>().f`."""
    return (isinstance(n, A.MemberExpr) and n.kind == "field"
            and isinstance(n.expr, A.MethodCallExpr) and n.expr.builtin == "lookahead")


def lower_lookahead_fields(program: A.Program, nodes: list) -> None:
    targets = {id(n): n for n in nodes}
    stack = [program]
    while stack:
        parent = stack.pop()
        for child in list(A.children(parent)):
            if id(child) in targets:
                replace_child(parent, child, lowered_field(child))
            else:
                stack.append(child)


# ---------------------------------------------------------------- if statements in parsers

def _flatten(stmts: list) -> list:
    """Blocks inside a parser state run in order; their declarations are resolved already,
    so the statements can be spliced into the state."""
    out = []
    for s in stmts:
        if isinstance(s, A.BlockStmt):
            out.extend(_flatten(s.stmts))
        else:
            out.append(s)
    return out


def _state_ref(pos, state: A.ParserState) -> A.PathExpr:
    p = A.PathExpr(pos, state.name)
    p.decl, p.type = state, T.STATE
    return p


class _ParserIfLowering:
    """`state s { A; if (c) B else C; D; transition t; }` becomes
    `s { A; transition select(c) { true: s_true; default: s_false; } }`,
    `s_true { B; transition s_join; }`, `s_false { C; transition s_join; }` and
    `s_join { D; transition t; }` -- the rewrite p4c's front end makes (RemoveParserIfs)."""

    def __init__(self, parser: A.ParserDecl):
        self.parser = parser
        self.names = {s.name for s in parser.states}

    def fresh(self, base: str) -> str:
        name, n = base, 1
        while name in self.names:
            n += 1
            name = f"{base}_{n}"
        self.names.add(name)
        return name

    def run(self) -> None:
        out = []
        for s in self.parser.states:
            out.extend(self.split(s))
        self.parser.states = out

    def split(self, state: A.ParserState) -> list:
        stmts = _flatten(state.stmts)
        k = next((i for i, s in enumerate(stmts) if isinstance(s, A.IfStmt)), None)
        if k is None:
            state.stmts = stmts
            return [state]
        if_stmt = stmts[k]
        pos = if_stmt.pos
        join = A.ParserState(pos, self.fresh(f"{state.name}_join"), stmts[k + 1:],
                             state.transition)
        yes = A.ParserState(pos, self.fresh(f"{state.name}_true"), [if_stmt.then],
                            _state_ref(pos, join))
        no = A.ParserState(pos, self.fresh(f"{state.name}_false"),
                           [if_stmt.other] if if_stmt.other is not None else [],
                           _state_ref(pos, join))
        true = A.BoolLit(pos, True)
        true.type, true.folded = T.BOOL, True
        default = A.DefaultExpr(pos)
        default.type = T.DONTCARE
        select = A.SelectExpr(pos, [if_stmt.cond],
                              [A.SelectCase(pos, [true], _state_ref(pos, yes)),
                               A.SelectCase(pos, [default], _state_ref(pos, no))])
        select.type = T.STATE
        state.stmts = stmts[:k]
        state.transition = select
        return [state] + self.split(yes) + self.split(no) + self.split(join)


def lower_parser_ifs(program: A.Program) -> None:
    for d in program.decls:
        if isinstance(d, A.ParserDecl) and any(
                isinstance(n, A.IfStmt) for s in d.states for n in A.walk(s)):
            _ParserIfLowering(d).run()


# ---------------------------------------------------------------- struct constants

def _field_value(value: A.Expr, name: str):
    """The expression a checked `{...}` / `{f = ...}` struct value gives field `name`."""
    if isinstance(value, A.StructInitExpr):
        return dict(value.fields).get(name)
    if isinstance(value, A.ListExpr) and isinstance(value.type, T.StructLike):
        names = list(value.type.fields)
        return value.items[names.index(name)] if name in names else None
    return None


def struct_constant_member(e):
    """For C, `C.f`, `C.s.f` on a struct constant C: the checked value expression it stands
    for (a struct value for C or a nested struct, else a folded scalar); None otherwise."""
    names = []
    while isinstance(e, A.MemberExpr):
        names.append(e.member)
        e = e.expr
    if not (isinstance(e, A.PathExpr) and isinstance(e.decl, A.ConstDecl)
            and e.decl.fields is not None):
        return None
    value = e.decl.value
    for n in reversed(names):
        value = _field_value(value, n)
        if value is None:
            return None
    return value


def inline_struct_constants(program: A.Program) -> None:
    """Each use of a struct constant, or of a nested struct in one, as a whole value becomes
    a copy of its value expression (p4c's front end inlines constants the same way); the
    checker folded `C.f` for scalar fields."""
    for parent in list(A.walk(program)):
        if isinstance(parent, A.ConstDecl) or (
                isinstance(parent, (A.PathExpr, A.MemberExpr))
                and struct_constant_member(parent) is not None):
            continue
        for child in list(A.children(parent)):
            if not isinstance(child, (A.PathExpr, A.MemberExpr)):
                continue
            value = struct_constant_member(child)
            if value is not None and isinstance(value.type, T.Struct):
                copy = A.copy_syntax(value)
                copy.pos = child.pos
                replace_child(parent, child, copy)


# ---------------------------------------------------------------- == on headers and structs

class NotAPath(ValueError):
    """An operand of aggregate == that is not a variable, field or stack element."""


def is_path(e: A.Expr) -> bool:
    """Whether a checked expression is a variable, a field or a constant-index stack element
    (what aggregate == can compare: the lowering reads its members)."""
    try:
        _clone_path(e)
    except NotAPath:
        return False
    return True


def _clone_path(e: A.Expr) -> A.Expr:
    """A fresh copy of a checked l-value path (x, x.f, x[2]) sharing its declarations."""
    if isinstance(e, A.PathExpr):
        c = A.PathExpr(e.pos, e.name, e.is_global)
        c.decl = e.decl
    elif isinstance(e, A.MemberExpr) and e.kind in ("field", "stack"):
        c = A.MemberExpr(e.pos, _clone_path(e.expr), e.member, member_pos=e.member_pos)
        c.decl, c.kind = e.decl, e.kind
    elif isinstance(e, A.IndexExpr) and e.folded_index is not None:
        c = A.IndexExpr(e.pos, _clone_path(e.expr), _int(e.index.pos, e.folded_index))
        c.index.type = e.index.type
        c.folded_index = e.folded_index
    else:
        raise NotAPath(e.pos)
    c.type = e.type
    return c


def _bool_op(pos, op, left, right) -> A.BinaryExpr:
    b = A.BinaryExpr(pos, op, left, right)
    b.type = T.BOOL
    return b


def _not(pos, e) -> A.UnaryExpr:
    u = A.UnaryExpr(pos, "!", e)
    u.type = T.BOOL
    return u


def _is_valid(pos, h: A.Expr) -> A.MethodCallExpr:
    callee = A.MemberExpr(pos, h, "isValid")
    callee.kind, callee.type = "builtin", T.VOID
    call = A.MethodCallExpr(pos, callee, [], [])
    call.kind, call.builtin, call.receiver, call.type = "builtin", "isValid", h, T.BOOL
    call.params, call.type_args, call.bindings = [], [], {}
    return call


def _member(pos, base: A.Expr, name: str, ftype, decl) -> A.MemberExpr:
    m = A.MemberExpr(pos, base, name, member_pos=pos)
    m.kind, m.decl, m.type = "field", decl, ftype
    leaf = struct_constant_member(m)
    if leaf is not None:
        m.folded = leaf.folded                   # a field of a struct constant
    return m


def _all(pos, terms: list) -> A.Expr:
    if not terms:
        t = A.BoolLit(pos, True)
        t.type, t.folded = T.BOOL, True
        return t
    out = terms[0]
    for t in terms[1:]:
        out = _bool_op(pos, "&&", out, t)
    return out


def _equal(pos, a: A.Expr, b: A.Expr, t) -> A.Expr:
    """a == b for values of type t (spec 8.16-8.18): headers are equal when both are invalid
    or both valid with equal fields; structs and stacks when all members are equal."""
    if isinstance(t, T.Stack):
        terms = []
        for i in range(t.size):
            ea = A.IndexExpr(pos, _clone_path(a), _int(pos, i))
            eb = A.IndexExpr(pos, _clone_path(b), _int(pos, i))
            for x in (ea, eb):
                x.type, x.folded_index = t.element, i
                x.index.type = T.Bits(32)
            terms.append(_equal(pos, ea, eb, t.element))
        return _all(pos, terms)
    if isinstance(t, (T.Header, T.Struct)):
        fields = _all(pos, [
            _equal(pos, _member(pos, _clone_path(a), f.name, ft, f),
                   _member(pos, _clone_path(b), f.name, ft, f), ft)
            for f, ft in zip(t.decl.fields, t.fields.values())])
        if isinstance(t, T.Struct):
            return fields
        va, vb = _is_valid(pos, _clone_path(a)), _is_valid(pos, _clone_path(b))
        both_invalid = _bool_op(pos, "&&", _not(pos, va),
                                _not(pos, _is_valid(pos, _clone_path(b))))
        both_valid = _bool_op(pos, "&&", _bool_op(pos, "&&", _is_valid(pos, _clone_path(a)),
                                                  vb), fields)
        return _bool_op(pos, "||", both_invalid, both_valid)
    return _bool_op(pos, "==", a, b)


def lower_aggregate_equality(e: A.BinaryExpr, t) -> None:
    """Rewrite `a == b` / `a != b` on headers, structs or stacks in place into a bool
    expression over their scalar members (what p4c's front end does before BMv2)."""
    _clone_path(e.left), _clone_path(e.right)          # both must be paths
    tree = _equal(e.pos, e.left, e.right, t)
    if e.op == "!=":
        false = A.BoolLit(e.pos, False)
        false.type, false.folded = T.BOOL, False
        e.op, e.left, e.right = "==", tree, false        # !(tree) as tree == false
    elif isinstance(tree, A.BinaryExpr):
        e.op, e.left, e.right = tree.op, tree.left, tree.right
    else:
        true = A.BoolLit(e.pos, True)
        true.type, true.folded = T.BOOL, True
        e.op, e.left, e.right = "&&", tree, true
    e.type = T.BOOL


def is_aggregate_comparison(n) -> bool:
    """A checked `a == b` / `a != b` whose operands are headers, structs or stacks."""
    return (isinstance(n, A.BinaryExpr) and n.op in ("==", "!=")
            and isinstance(n.left.type, (T.Header, T.Struct, T.Stack)))


# ---------------------------------------------------------------- the passes

class LowerAggregateEquality:
    name = "LowerAggregateEquality"

    def run(self, ctx) -> None:
        for n in [n for n in A.walk(ctx.program) if is_aggregate_comparison(n)]:
            lower_aggregate_equality(n, n.left.type)


class LowerLookaheadFields:
    name = "LowerLookaheadFields"

    def run(self, ctx) -> None:
        nodes = [n for n in A.walk(ctx.program) if is_lookahead_field(n)]
        if nodes:
            lower_lookahead_fields(ctx.program, nodes)


class LowerParserIfs:
    name = "LowerParserIfs"

    def run(self, ctx) -> None:
        lower_parser_ifs(ctx.program)


class InlineStructConstants:
    name = "InlineStructConstants"

    def run(self, ctx) -> None:
        inline_struct_constants(ctx.program)
