"""Name resolution, type checking and constant folding (P4_16 spec sections 6-14).

One pass over the declarations in order -- P4 requires declaration before use (spec 6.4),
except that parser states may name states declared later in the same parser. The pass sets
the fields documented in `ast.py` (`.type`, `.folded`, `.decl`, call `.kind`...).

Typing rules that matter for the back end (spec 8):
 * the only implicit conversion is an `int` (literal or `int`-typed constant) becoming the
   bit<W>/int<W> type its context requires (spec 8.9.2); the converted expression gets that
   type and its `.folded` value is reduced into range. Two fixed-width operands must have
   exactly the same type; a mismatch is an error naming both types.
 * shifts: the right operand is unsigned or a non-negative `int`; the result has the left type.
 * `++` needs fixed-width operands; the result is bit<W1+W2> (int<...> if the left is signed).
 * casts: bit<W> <-> int<W>, between widths of the same signedness, bool <-> bit<1>,
   `int` -> any fixed width, serializable enum <-> its underlying type (spec 8.10).

Constructs outside the compiler's subset are refused here with the construct's name:
"<construct> is not supported". The list is in `tests/toolchain/compiler/frontend`.
"""
from __future__ import annotations

import copy

from typing import Optional

from . import ast as A
from .entry_priorities import check_entry_priorities
from . import constfold as F
from . import types as T
from ..diagnostics import Diagnostics, Pos

MAX_WIDTH = 1 << 16          # bits; far beyond any header, small enough to fold quickly
MAX_STACK = 4096             # header stack elements (each becomes a BMv2 header instance)
TABLE_PROPERTIES = {"key", "actions", "default_action", "entries", "size", "counters", "meters",
                    "support_timeout", "implementation", "idle_timeout_with_auto_delete",
                    "largest_priority_wins", "priority_delta"}     # the last two: spec 14.2.1.4
HEADER_METHODS = {"isValid", "setValid", "setInvalid", "minSizeInBits", "minSizeInBytes"}
PACKET_BUILTINS = {"extract", "lookahead", "advance", "length", "emit"}


class _Stop(Exception):
    """Abandon checking of the current expression/statement after an error was reported."""


class Scope:
    __slots__ = ("names", "parent")

    def __init__(self, parent: Optional["Scope"] = None):
        self.names: dict = {}
        self.parent = parent

    def lookup(self, name: str):
        s = self
        while s is not None:
            d = s.names.get(name)
            if d is not None:
                return d
            s = s.parent
        return None

    def local(self, name: str):
        return self.names.get(name)


class Ctx:
    """Where we are: kind is "top", "parser", "state", "control", "action", "apply"."""
    __slots__ = ("kind", "scope", "control", "parser", "action", "function", "loop")

    def __init__(self, kind, scope, control=None, parser=None, action=None, function=None,
                 loop=False):
        self.kind = kind
        self.scope = scope
        self.control = control
        self.parser = parser
        self.action = action
        self.function = function       # (FunctionDecl, return P4Type) inside a function body
        self.loop = loop               # inside a for loop's body: break/continue allowed

    def child(self, kind=None, scope=None, **kw):
        c = Ctx(kind or self.kind, scope or Scope(self.scope), self.control, self.parser,
                self.action, self.function, self.loop)
        for k, v in kw.items():
            setattr(c, k, v)
        return c


def _non_header_leaf(t: T.Struct):
    """The first member type of struct t (searched recursively) that a header cannot hold."""
    for ft in t.fields.values():
        if isinstance(ft, T.Struct):
            bad = _non_header_leaf(ft)
            if bad is not None:
                return bad
        elif not (isinstance(ft, T.Bits) or ft == T.BOOL or
                  (isinstance(ft, T.Enum) and ft.underlying is not None)):
            return ft
    return None


def check_program(program: A.Program, diags: Diagnostics, *, require_main: bool = True) -> None:
    Checker(program, diags).run(require_main)
    diags.raise_if_errors()


class Checker:
    def __init__(self, program: A.Program, diags: Diagnostics):
        self.program = program
        self.diags = diags
        self.top = Scope()
        self.errors: list = []            # names in order
        self.error_members: dict = {}
        self.error_decl: Optional[A.ErrorDecl] = None
        self.match_kinds: dict = {}
        self.match_kind_decl: Optional[A.MatchKindDecl] = None
        self.type_vars: list = []         # stack of {name: TypeVar}
        self.lookahead_fields: list = []  # `pkt.lookahead<H>().f` nodes, lowered at the end
        self.parser_ifs = False           # an if statement in a parser state, lowered at the end
        self.accept_state = A.ParserState(Pos("<builtin>", 0, 0), "accept", [], None, True)
        self.reject_state = A.ParserState(Pos("<builtin>", 0, 0), "reject", [], None, True)

    # ------------------------------------------------------------ reporting
    def err(self, pos, msg: str):
        self.diags.error(pos, msg)
        raise _Stop()

    def refuse(self, pos, construct: str):
        self.err(pos, f"{construct} is not supported")

    def warn(self, pos, msg: str):
        self.diags.warning(pos, msg)

    def guarded(self, fn, *args):
        try:
            return fn(*args)
        except _Stop:
            return None

    # ------------------------------------------------------------ program
    def run(self, require_main: bool) -> None:
        ctx = Ctx("top", self.top)
        for d in self.program.decls:
            self.guarded(self.declare_top, d, ctx)
        self.type_annotation_literals(ctx)
        if self.lookahead_fields:
            from .lowering import lower_lookahead_fields
            lower_lookahead_fields(self.program, self.lookahead_fields)
        if self.parser_ifs and not self.diags.error_count:
            from .lowering import lower_parser_ifs
            lower_parser_ifs(self.program)
        if not self.diags.error_count:
            from .lowering import inline_struct_constants
            inline_struct_constants(self.program)
        self.program.errors = list(self.errors)
        self.program.match_kinds = set(self.match_kinds)
        self.program.scope = self.top.names
        main = self.top.local("main")
        if isinstance(main, A.Instantiation):
            self.program.main = main
        elif require_main:
            self.diags.error(self.program.pos, "the program has no 'main' package instantiation "
                                               "(e.g. V1Switch(...) main;)")

    def type_annotation_literals(self, ctx: Ctx) -> None:
        """Literal annotation arguments (@name("x"), @field_list(1), @priority(10)) get their
        types too, so every Expr in the tree is typed; names in annotations stay unresolved."""
        for n in self.program.all_annotations:
            if isinstance(n, A.Annotation):
                for a in list(n.args) + list(n.kv.values()):
                    if isinstance(a, (A.IntLit, A.StringLit, A.BoolLit)) or (
                            isinstance(a, A.UnaryExpr) and isinstance(a.operand, A.IntLit)):
                        self.guarded(self.check_expr, a, ctx)
                    elif n.name == "field_list":
                        # field list ids: constants or serializable enum members, which p4c
                        # evaluates (its issue1001-1-bmv2 sample), resolved at top level
                        self.guarded(self.check_expr, a, ctx)

    @staticmethod
    def visible_names(scope: Scope) -> set:
        names = set()
        while scope is not None:
            names.update(scope.names)
            scope = scope.parent
        return names

    def define(self, scope: Scope, name: str, decl, pos) -> None:
        prev = scope.local(name)
        if prev is not None:
            if isinstance(decl, A.MethodDecl) and decl.is_function and isinstance(prev, list):
                prev.append(decl)
                return
            self.err(pos, f"'{name}' is already declared (at {prev_pos(prev)})")
        scope.names[name] = [decl] if isinstance(decl, A.MethodDecl) and decl.is_function else decl

    def declare_top(self, d, ctx: Ctx) -> None:
        if isinstance(d, A.ErrorDecl):
            return self.declare_errors(d)
        if isinstance(d, A.MatchKindDecl):
            return self.declare_match_kinds(d)
        if isinstance(d, (A.ConstDecl, A.TypedefDecl, A.ActionDecl, A.MethodDecl,
                          A.ParserTypeDecl, A.ControlTypeDecl, A.PackageTypeDecl)):
            # declared even when its check fails: uses then stop quietly (UNKNOWN type)
            # instead of cascading into "'x' is not declared" errors
            self.define(self.top, d.name, d, d.pos)
        if isinstance(d, A.ConstDecl):
            self.check_const(d, ctx)
        elif isinstance(d, A.TypedefDecl):
            d.p4type = T.UNKNOWN
            d.p4type = self.resolve_type(d.type_ref, ctx)
        elif isinstance(d, (A.HeaderDecl, A.StructDecl, A.HeaderUnionDecl)):
            self.define(self.top, d.name, d, d.pos)
            self.check_struct_like(d, ctx)
            return
        elif isinstance(d, A.EnumDecl):
            self.define(self.top, d.name, d, d.pos)
            self.check_enum(d, ctx)
            return
        elif isinstance(d, A.ExternDecl):
            self.define(self.top, d.name, d, d.pos)
            self.check_extern(d, ctx)
            return
        elif isinstance(d, A.MethodDecl):
            self.check_extern_function(d, ctx)
        elif isinstance(d, (A.ParserTypeDecl, A.ControlTypeDecl, A.PackageTypeDecl)):
            self.check_block_type(d, ctx)
        elif isinstance(d, A.ParserDecl):
            self.define(self.top, d.name, d, d.pos)
            self.check_parser(d, ctx)
            return
        elif isinstance(d, A.ControlDecl):
            self.define(self.top, d.name, d, d.pos)
            self.check_control(d, ctx)
            return
        elif isinstance(d, A.ActionDecl):
            self.check_action(d, ctx)
        elif isinstance(d, A.Instantiation):
            self.define(self.top, d.name, d, d.pos)
            self.check_instantiation(d, ctx)
            return
        elif isinstance(d, A.FunctionDecl):
            self.define(self.top, d.name, d, d.pos)     # so calls are refused by name too
            if not d.inlined:
                self.refuse(d.pos, f"generic function '{d.name}'")
            else:
                self.check_function(d, ctx)
        elif isinstance(d, A.VarDecl):
            return           # the parser already reported it
        else:
            self.refuse(d.pos, f"top-level declaration '{type(d).__name__}'")

    def declare_errors(self, d: A.ErrorDecl) -> None:
        if self.error_decl is None:
            self.error_decl = d
            self.top.names["error"] = d
        for m in d.members:
            if m.name in self.error_members:
                self.diags.error(m.pos, f"error.{m.name} is already declared")
                continue
            m.code = len(self.errors)
            self.errors.append(m.name)
            self.error_members[m.name] = m

    def declare_match_kinds(self, d: A.MatchKindDecl) -> None:
        if self.match_kind_decl is None:
            self.match_kind_decl = d
            self.top.names["match_kind"] = d
        for m in d.members:
            if m.name in self.match_kinds:
                self.diags.error(m.pos, f"match_kind {m.name} is already declared")
                continue
            self.match_kinds[m.name] = m
            # match kinds are also plain names (`exact` in a key)
            self.top.names.setdefault(m.name, m)

    # ------------------------------------------------------------ types
    def lookup_type_var(self, name: str):
        for frame in reversed(self.type_vars):
            if name in frame:
                return frame[name]
        return None

    def resolve_type(self, r: A.TypeRef, ctx: Ctx) -> T.P4Type:
        t = self._resolve_type(r, ctx)
        r.resolved = t
        return t

    def _resolve_type(self, r: A.TypeRef, ctx: Ctx) -> T.P4Type:
        if isinstance(r, A.InferredTypeRef):
            return r.resolved if r.resolved is not None else T.UNKNOWN
        if isinstance(r, A.BitsTypeRef):
            w = self.const_int(r.width, ctx, "a width")
            kind = "int" if r.signed else "bit"
            if w == 0:
                self.refuse(r.pos, f"{kind}<0>")
            if w < 0:
                self.err(r.pos, f"width {w} of {kind}<> must be positive")
            if w > MAX_WIDTH:
                self.err(r.pos, f"width {w} of {kind}<> is too large (at most {MAX_WIDTH})")
            return T.Bits(w, r.signed)
        if isinstance(r, A.BaseTypeRef):
            return {"bool": T.BOOL, "error": T.ERROR, "match_kind": T.MATCH_KIND,
                    "string": T.STRING, "void": T.VOID, "int": T.INT, "_": T.DONTCARE}[r.name]
        if isinstance(r, A.VarbitTypeRef):
            w = self.const_int(r.width, ctx, "a width")
            return T.Varbit(w)
        if isinstance(r, A.StackTypeRef):
            elem = self.resolve_type(r.element, ctx)
            size = self.const_int(r.size, ctx, "a header stack size")
            if not isinstance(elem, (T.Header, T.HeaderUnion)):
                if isinstance(elem, (T.Bits, T.Varbit)) or elem == T.BOOL:
                    # p4c's front end takes any element type (spec 1.2.5 arrays); its BMv2 back
                    # end has header stacks only and stops on a bit<W> array field of a
                    # header with a compiler bug ("nested stack")
                    self.refuse(r.pos, f"an array of {elem} (BMv2 has arrays of headers and "
                                "header unions only; p4c-bm2-ss stops on such an array in a "
                                "header with a compiler bug, 'nested stack')")
                self.err(r.pos, f"header stack elements must be headers, not {elem}")
            if size < 1:
                self.err(r.pos, f"header stack size must be positive, not {size}")
            if size > MAX_STACK:
                self.err(r.pos, f"header stack size {size} is too large (at most {MAX_STACK})")
            return T.Stack(elem, size)
        if isinstance(r, A.TupleTypeRef):
            return T.Tuple(self.resolve_type(e, ctx) for e in r.elements)
        if isinstance(r, A.NamedTypeRef):
            return self.resolve_named_type(r, ctx)
        self.err(r.pos, "unknown type syntax")

    def resolve_named_type(self, r: A.NamedTypeRef, ctx: Ctx) -> T.P4Type:
        tv = None if r.is_global else self.lookup_type_var(r.name)
        if tv is not None:
            return tv
        d = (self.top if r.is_global else ctx.scope).lookup(r.name)
        if d is None:
            self.err(r.pos, f"unknown type '{r.name}'")
        if isinstance(d, A.TypedefDecl):
            base = d.p4type
            if r.args:
                self.err(r.pos, f"type '{r.name}' takes no type arguments")
            return base if base is not None else T.UNKNOWN
        base = getattr(d, "p4type", None)
        if base is None or not isinstance(base, T.P4Type):
            if isinstance(d, A.ErrorDecl):
                return T.ERROR
            if isinstance(d, A.MatchKindDecl):
                return T.MATCH_KIND
            self.err(r.pos, f"'{r.name}' is not a type")
        params = getattr(base, "type_params", ())
        if r.args:
            if len(r.args) != len(params):
                self.err(r.pos, f"type '{r.name}' takes {len(params)} type arguments, "
                                f"{len(r.args)} given")
            return T.Specialized(base, [self.resolve_type(a, ctx) for a in r.args])
        return base

    def const_int(self, e: A.Expr, ctx: Ctx, what: str) -> int:
        self.check_expr(e, ctx)
        if not isinstance(e.folded, int) or isinstance(e.folded, bool):
            self.err(e.pos, f"{what} must be a compile-time integer constant")
        return e.folded

    # ------------------------------------------------------------ type declarations
    def check_struct_like(self, d, ctx: Ctx) -> None:
        cls = {A.HeaderDecl: T.Header, A.StructDecl: T.Struct,
               A.HeaderUnionDecl: T.HeaderUnion}[type(d)]
        t = cls(d.name, d)
        d.p4type = t
        kind = t.kind
        if d.type_params:
            self.refuse(d.pos, f"generic {kind} '{d.name}'")
        for f in d.fields:
            ft = self.guarded(self.resolve_type, f.type_ref, ctx)
            if ft is None:
                continue
            f.p4type = ft
            if f.name in t.fields:
                self.diags.error(f.pos, f"duplicate field '{f.name}' in {kind} '{d.name}'")
                continue
            if kind == "header":
                if isinstance(ft, T.Varbit):
                    # BMv2 keeps one variable-length field per header (its header type has
                    # one "*" field and a max_length); p4c's back end refuses a second one
                    if any(isinstance(x, T.Varbit) for x in t.fields.values()):
                        self.refuse(f.pos, f"a second varbit field '{f.name}' in header "
                                           f"'{d.name}' (BMv2 holds one per header)")
                elif isinstance(ft, T.Struct):
                    # spec 7.2.2: a struct of bit<W>, int<W>, bool, serializable enums (and
                    # such structs); the mid end flattens it as p4c's FlattenHeaders
                    bad = _non_header_leaf(ft)
                    if bad is not None:
                        self.diags.error(f.pos, f"header field '{f.name}' of struct type {ft} "
                                                f"holds a {bad}; a struct inside a header may "
                                                f"hold only bit<W>, int<W>, bool, serializable "
                                                f"enums and such structs")
                elif not (isinstance(ft, T.Bits) or ft == T.BOOL or
                          (isinstance(ft, T.Enum) and ft.underlying is not None)):
                    self.diags.error(f.pos, f"header field '{f.name}' has type {ft}; header "
                                            f"fields must be bit<W>, int<W>, bool or a "
                                            f"serializable enum")
            elif isinstance(d, A.HeaderUnionDecl):
                if not isinstance(ft, T.Header):        # spec 7.2.4
                    self.diags.error(f.pos, f"header_union '{d.name}': member '{f.name}' has "
                                            f"type {ft}; union members must be headers")
            else:
                # a varbit field is supported in the metadata struct (the mid end refuses
                # it elsewhere, with its position)
                if isinstance(ft, (T.Extern, T.Specialized, T.ParserType)) or \
                        ft in (T.STRING, T.VOID, T.INT, T.MATCH_KIND):
                    self.diags.error(f.pos, f"struct field '{f.name}' cannot have type {ft}")
            t.fields[f.name] = ft

    def check_enum(self, d: A.EnumDecl, ctx: Ctx) -> None:
        underlying = None
        if d.underlying is not None:
            underlying = self.resolve_type(d.underlying, ctx)
            if not isinstance(underlying, T.Bits):
                self.err(d.underlying.pos, f"enum '{d.name}': underlying type must be bit<W> "
                                           f"or int<W>, not {underlying}")
        t = T.Enum(d.name, d, underlying)
        d.p4type = t
        for i, m in enumerate(d.members):
            m.enum = d
            if m.name in t.members:
                self.diags.error(m.pos, f"duplicate member '{m.name}' in enum '{d.name}'")
                continue
            if underlying is None:
                if m.init is not None:
                    self.diags.error(m.pos, f"enum '{d.name}' has no underlying type; its "
                                            f"members cannot have values")
                m.value = i
            else:
                if m.init is None:
                    self.diags.error(m.pos, f"member '{m.name}' of serializable enum "
                                            f"'{d.name}' needs a value")
                    m.value = 0
                else:
                    v = self.guarded(self.const_int, m.init, ctx, "an enum value")
                    if v is None:
                        continue
                    self.coerce(m.init, underlying, ctx, "enum value")
                    m.value = m.init.folded
            t.members[m.name] = m.value

    def check_const(self, d: A.ConstDecl, ctx: Ctx) -> None:
        d.p4type = T.UNKNOWN
        t = self.resolve_type(d.type_ref, ctx)
        if isinstance(t, T.Struct):
            # spec 10.1: a constant of struct type; p4c folds `C.f` and inlines C's value at
            # each use of the whole constant (as its front end's ConstantFolding does)
            self.check_expr(d.value, ctx, expected=t)
            self.coerce(d.value, t, ctx, f"constant '{d.name}'")
            self.struct_constant_fields(d.value, t, d.name)
            d.fields = list(t.fields)
            d.p4type = t
            return
        if isinstance(t, (T.StructLike, T.Tuple, T.Stack)):
            self.refuse(d.pos, f"constant '{d.name}' of type {t} (only scalar and struct "
                               "constants)")
        self.check_expr(d.value, ctx, expected=t)
        self.coerce(d.value, t, ctx, f"constant '{d.name}'")
        if d.value.folded is None and not self.is_constant_member(d.value):
            self.err(d.value.pos, f"the value of constant '{d.name}' is not a compile-time "
                                  f"constant")
        d.folded = d.value.folded
        d.p4type = t

    def struct_constant_fields(self, value: A.Expr, t: T.Struct, name: str) -> dict:
        """Check that a struct constant's value is `{...}` or `{f = ...}` (nested likewise)
        with compile-time known scalars; {field: value expression}."""
        if isinstance(value, A.StructInitExpr):
            items = dict(value.fields)
        elif isinstance(value, A.ListExpr):
            items = dict(zip(t.fields, value.items))
        else:
            self.refuse(value.pos, f"the value of struct constant '{name}' other than a "
                                   "{...} expression")
        out = {}
        for f, ft in t.fields.items():
            v = items[f]
            if isinstance(ft, T.Struct):
                out[f] = self.struct_constant_fields(v, ft, name)
            elif not (isinstance(ft, (T.Bits, T.Enum)) or ft in (T.BOOL, T.ERROR)):
                self.refuse(v.pos, f"field '{f}' of type {ft} in struct constant '{name}'")
            elif v.folded is None:
                self.err(v.pos, f"field '{f}' of constant '{name}' is not a compile-time "
                                f"constant")
            else:
                out[f] = v
        return out

    @staticmethod
    def is_constant_member(e) -> bool:
        return isinstance(e, A.MemberExpr) and e.kind in ("enum", "error")

    # ------------------------------------------------------------ externs and block types
    def with_type_params(self, names, owner):
        frame = {n: T.TypeVar(n, owner) for n in names}
        self.type_vars.append(frame)
        return frame

    def method_signature(self, m: A.MethodDecl, ctx: Ctx) -> T.Method:
        frame = self.with_type_params(m.type_params, m)
        try:
            params = self.param_list(m.params, ctx)
            ret = self.resolve_type(m.return_type, ctx) if m.return_type is not None else T.VOID
            sig = T.Method(m.name, [frame[n] for n in m.type_params], params, ret, m)
        finally:
            self.type_vars.pop()
        m.signature = sig
        return sig

    def param_list(self, params, ctx: Ctx) -> list:
        out = []
        for i, p in enumerate(params):
            t = self.resolve_type(p.type_ref, ctx)
            p.p4type = t
            p.index = i
            if p.default is not None:
                self.check_expr(p.default, ctx, expected=t)
                self.coerce(p.default, t, ctx, f"default of parameter '{p.name}'")
            optional = p.default is not None or A.annotation(p, "optional") is not None
            out.append(T.Param(p.name, p.direction, t, p, optional))
        return out

    def check_extern(self, d: A.ExternDecl, ctx: Ctx) -> None:
        t = T.Extern(d.name, d)
        d.p4type = t
        frame = self.with_type_params(d.type_params, d)
        t.type_params = tuple(frame[n] for n in d.type_params)
        try:
            for m in d.methods:
                m.extern = d
                sig = self.guarded(self.method_signature, m, ctx)
                if sig is None:
                    continue
                if m.return_type is None:
                    t.constructors.append(sig)
                else:
                    t.methods.setdefault(m.name, []).append(sig)
        finally:
            self.type_vars.pop()

    def check_extern_function(self, d: A.MethodDecl, ctx: Ctx) -> None:
        self.method_signature(d, ctx)

    def check_block_type(self, d, ctx: Ctx) -> None:
        cls = {A.ParserTypeDecl: T.ParserType, A.ControlTypeDecl: T.ControlType,
               A.PackageTypeDecl: T.PackageType}[type(d)]
        t = cls(d.name, d)
        frame = self.with_type_params(d.type_params, d)
        try:
            t.type_params = tuple(frame[n] for n in d.type_params)
            t.params = self.param_list(d.params, ctx)
        finally:
            self.type_vars.pop()
        d.p4type = t

    # ------------------------------------------------------------ instantiations
    def check_instantiation(self, d: A.Instantiation, ctx: Ctx) -> None:
        t = self.resolve_type(d.type_ref, ctx)
        d.p4type = t
        base = T.strip_specialization(t)
        d.decl_type = getattr(base, "decl", None)
        if isinstance(base, T.Extern):
            if base.name == "Checksum16":
                # declared (deprecated) by v1model.p4; BMv2 has no such extern and p4c's
                # BMv2 back end refuses it
                self.refuse(d.pos, "extern Checksum16 (deprecated in v1model.p4; BMv2 has no "
                                   "such extern: use verify_checksum/update_checksum)")
            self.check_extern_ctor(d, base, t, ctx)
            return
        if isinstance(base, T.PackageType):
            if ctx.kind != "top":
                self.err(d.pos, "packages can only be instantiated at top level")
            self.check_package_args(d, base, ctx)
            return
        if isinstance(base, (T.ParserType, T.ControlType)):
            if isinstance(base, T.ControlType):
                # the others were inlined before checking (inline_controls.py)
                self.refuse(d.pos, f"instance '{d.name}' of control '{base.name}' applied "
                                   "more than once while it has tables or extern instances")
            # the others were inlined before checking (inline_parsers.py)
            self.refuse(d.pos, f"instance '{d.name}' of parser '{base.name}' with constructor "
                               "arguments or non-variable header arguments")
        self.err(d.pos, f"cannot instantiate type {t}")

    def check_extern_ctor(self, d: A.Instantiation, base: T.Extern, t, ctx: Ctx) -> None:
        ctors = [c for c in base.constructors if self.arity_ok(c.params, len(d.args))]
        if not ctors:
            self.err(d.pos, f"extern {base.name} has no constructor taking {len(d.args)} "
                            f"arguments")
        if base.type_params and not isinstance(t, T.Specialized):
            self.err(d.pos, f"extern {base.name} needs type arguments: "
                            f"{base.name}<{', '.join(tp.name for tp in base.type_params)}>")
        bindings = t.bindings if isinstance(t, T.Specialized) else {}
        sig = ctors[0]
        for a, p in zip(d.args, sig.params):
            pt = T.substitute(p.type, bindings)
            self.check_expr(a, ctx, expected=pt)
            self.coerce(a, pt, ctx, f"argument '{p.name}' of {base.name}")
            if a.folded is None and not self.is_constant_member(a):
                self.err(a.pos, f"constructor argument '{p.name}' of {base.name} must be a "
                                f"compile-time constant")

    def check_package_args(self, d: A.Instantiation, pkg: T.PackageType, ctx: Ctx) -> None:
        if d.args and all(isinstance(a, A.Argument) and a.name for a in d.args):
            order = self.named_order(d.args, pkg.params)      # V1Switch(p = P(), ...)
            if order is None:
                self.err(d.pos, f"package {pkg.name}: the argument names do not match its "
                                f"parameters ({', '.join(p.name for p in pkg.params)})")
            d.args = order
        if len(d.args) != len(pkg.params):
            self.err(d.pos, f"package {pkg.name} takes {len(pkg.params)} arguments, "
                            f"{len(d.args)} given")
        bindings: dict = {}
        for a, p in zip(d.args, pkg.params):
            if not (isinstance(a, A.MethodCallExpr) and isinstance(a.callee, A.PathExpr)):
                self.err(a.pos, f"argument '{p.name}' of package {pkg.name} must be a "
                                f"parser or control instantiation like MyParser()")
            block = ctx.scope.lookup(a.callee.name)
            if not isinstance(block, (A.ParserDecl, A.ControlDecl)):
                self.err(a.pos, f"'{a.callee.name}' is not a parser or control")
            if a.args:
                self.refuse(a.pos, "constructor arguments of parsers and controls")
            a.kind = "constructor"
            a.method = block
            a.callee.decl = block
            a.type = block.p4type
            a.callee.type = block.p4type
            self.match_block(a, block, p, bindings)

    def match_block(self, a, block, p: T.Param, bindings: dict) -> None:
        want = T.strip_specialization(p.type)
        have = block.p4type
        kind_ok = (isinstance(want, T.ControlType) and isinstance(have, T.ControlType)) or \
                  (type(want) is T.ParserType and type(have) is T.ParserType)
        if not kind_ok:
            have_kind = "control" if isinstance(have, T.ControlType) else "parser"
            want_kind = "control" if isinstance(want, T.ControlType) else "parser"
            self.err(a.pos, f"'{block.name}' is a {have_kind} but parameter '{p.name}' needs a "
                            f"{want_kind} of type {want.name}")
        if len(want.params) != len(have.params):
            self.err(a.pos, f"'{block.name}' has {len(have.params)} parameters but "
                            f"{want.name} has {len(want.params)}")
        spec_bindings = p.type.bindings if isinstance(p.type, T.Specialized) else {}
        for wp, hp in zip(want.params, have.params):
            wt = T.substitute(wp.type, spec_bindings)
            if wp.direction != hp.direction:
                self.err(hp.decl.pos, f"parameter '{hp.name}' of '{block.name}' must be "
                                      f"'{wp.direction or 'directionless'}' as in {want.name}")
            self.unify(wt, hp.type, bindings, hp.decl.pos, f"parameter '{hp.name}' of "
                                                          f"'{block.name}'")

    def unify(self, want: T.P4Type, have: T.P4Type, bindings: dict, pos, what: str) -> None:
        if isinstance(want, T.TypeVar):
            bound = bindings.get(want)
            if bound is None:
                bindings[want] = have
                return
            want = bound
        if want != have and not (want is T.UNKNOWN or have is T.UNKNOWN):
            self.err(pos, f"{what} has type {have}, expected {want}")

    # ------------------------------------------------------------ parsers
    def block_params(self, d, ctx: Ctx, scope: Scope) -> list:
        params = self.param_list(d.params, ctx)
        for p in d.params:
            self.define(scope, p.name, p, p.pos)
        return params

    def check_parser(self, d: A.ParserDecl, ctx: Ctx) -> None:
        t = T.ParserType(d.name, d)
        d.p4type = t
        if d.type_params:
            self.refuse(d.pos, f"generic parser '{d.name}'")
        if d.ctor_params:
            self.diags.error(d.ctor_params[0].pos, f"parser '{d.name}' with constructor "
                                                   f"parameters is not supported")
        pctx = ctx.child("parser", parser=d)
        t.params = self.block_params(d, pctx, pctx.scope)
        for p in d.params:
            if p.direction == "" and not self.is_packet_type(p.p4type):
                self.diags.error(p.pos, f"parser parameter '{p.name}' needs a direction")
        for loc in d.locals:
            self.guarded(self.check_local, loc, pctx)
        states = {}
        for s in d.states:
            if s.name in ("accept", "reject"):
                self.diags.error(s.pos, f"state '{s.name}' is predefined and cannot be declared")
                continue
            if s.name in states:
                self.diags.error(s.pos, f"state '{s.name}' is already declared")
                continue
            states[s.name] = s
            if pctx.scope.local(s.name) is not None:
                self.diags.error(s.pos, f"'{s.name}' is already declared")
        if "start" not in states:
            self.diags.error(d.pos, f"parser '{d.name}' has no 'start' state")
        sscope = Scope(pctx.scope)
        sscope.names.update(states)
        sscope.names["accept"] = self.accept_state
        sscope.names["reject"] = self.reject_state
        for s in d.states:
            sctx = pctx.child("state", Scope(sscope))
            for st in s.stmts:
                self.guarded(self.check_stmt, st, sctx)
            self.guarded(self.check_transition, s, sctx)

    @staticmethod
    def is_packet_type(t) -> bool:
        return isinstance(t, T.Extern) and t.name in ("packet_in", "packet_out")

    def check_transition(self, s: A.ParserState, ctx: Ctx) -> None:
        tr = s.transition
        if isinstance(tr, A.PathExpr):
            self.resolve_state(tr, ctx)
            return
        sel: A.SelectExpr = tr
        types = []
        for e in sel.exprs:
            self.check_expr(e, ctx)
            if e.type == T.INT:
                self.err(e.pos, "select expression has no fixed width (cast the constant)")
            if not self.is_matchable(e.type):
                self.err(e.pos, f"cannot select on a value of type {e.type}")
            types.append(e.type)
        sel.type = T.STATE
        for case in sel.cases:
            self.guarded(self.check_keyset, case.keyset, sel.exprs, ctx, case.pos,
                         "select expression")
            self.guarded(self.resolve_state, case.state, ctx)

    def resolve_state(self, p: A.PathExpr, ctx: Ctx) -> None:
        d = ctx.scope.lookup(p.name)
        if not isinstance(d, A.ParserState):
            self.err(p.pos, f"unknown parser state '{p.name}'")
        p.decl = d
        p.type = T.STATE

    @staticmethod
    def is_matchable(t) -> bool:
        return isinstance(t, T.Bits) or t in (T.BOOL, T.ERROR) or isinstance(t, T.Enum)

    def check_keyset(self, keyset: list, exprs: list, ctx: Ctx, pos, what: str) -> None:
        """One keyset element per expression; `default`/`_` alone cover everything, and a
        value_set of a struct covers a tuple of expressions field by field (spec 12.11)."""
        if len(keyset) == 1 and isinstance(keyset[0], (A.DefaultExpr, A.DontCareExpr)):
            keyset[0].type = T.DONTCARE
            return
        if len(keyset) == 1 and len(exprs) > 1 and isinstance(keyset[0], A.PathExpr):
            vs = ctx.scope.lookup(keyset[0].name)
            if isinstance(vs, A.ValueSetDecl) and isinstance(vs.p4type.element, T.Struct):
                have = list(vs.p4type.element.fields.values())
                if have != [e.type for e in exprs]:
                    self.err(keyset[0].pos, f"value_set '{vs.name}' has fields of types "
                                            f"{', '.join(map(str, have))}; the {what} has "
                                            f"{', '.join(str(e.type) for e in exprs)}")
                keyset[0].decl, keyset[0].type = vs, vs.p4type
                return
        if len(keyset) != len(exprs):
            self.err(pos, f"keyset has {len(keyset)} elements but the {what} has {len(exprs)}")
        for k, e in zip(keyset, exprs):
            self.check_keyset_element(k, e.type, ctx)

    def check_keyset_element(self, k: A.Expr, t: T.P4Type, ctx: Ctx) -> None:
        if isinstance(k, (A.DefaultExpr, A.DontCareExpr)):
            k.type = T.DONTCARE
            return
        if isinstance(k, A.MaskExpr):
            for part in (k.value, k.mask):
                self.check_expr(part, ctx, expected=t)
                # an int mask (or value) of a serializable enum is a value of its
                # underlying type (p4c accepts `E.A &&& 0xF`)
                want = t.underlying if (isinstance(t, T.Enum) and t.underlying is not None
                                        and part.type == T.INT) else t
                self.coerce(part, want, ctx, "keyset mask")
                self.require_constant(part, "a mask keyset")
            k.type = T.SetType(t)
            return
        if isinstance(k, A.RangeExpr):
            for part in (k.lo, k.hi):
                self.check_expr(part, ctx, expected=t)
                self.coerce(part, t, ctx, "keyset range")
                self.require_constant(part, "a range keyset")
            k.type = T.SetType(t)
            return
        if isinstance(k, A.PathExpr):
            d = ctx.scope.lookup(k.name)
            if isinstance(d, A.ValueSetDecl):
                k.decl = d
                k.type = d.p4type
                elem = d.p4type.element
                if isinstance(elem, T.Struct) and list(elem.fields.values()) == [t]:
                    return                 # a one-field struct matches one expression
                if elem != t:
                    self.err(k.pos, f"value_set '{d.name}' has elements of type "
                                    f"{d.p4type.element}, the select expression is {t}")
                return
        self.check_expr(k, ctx, expected=t)
        self.coerce(k, t, ctx, "keyset value")
        self.require_constant(k, "a keyset")

    def require_constant(self, e: A.Expr, where: str) -> None:
        if e.folded is None and not self.is_constant_member(e):
            self.err(e.pos, f"{where} must be a compile-time constant")

    # ------------------------------------------------------------ controls
    def check_control(self, d: A.ControlDecl, ctx: Ctx) -> None:
        t = T.ControlType(d.name, d)
        d.p4type = t
        if d.type_params:
            self.refuse(d.pos, f"generic control '{d.name}'")
        if d.ctor_params and not d.inlined_only:
            self.diags.error(d.ctor_params[0].pos, f"control '{d.name}' with constructor "
                                                   f"parameters is not supported")
        cctx = ctx.child("control", control=d)
        if d.ctor_params and d.inlined_only:
            # its instances were inlined with their arguments; the declaration itself is
            # checked with the parameters as values of their types
            self.param_list(d.ctor_params, cctx)
            for p in d.ctor_params:
                self.define(cctx.scope, p.name, p, p.pos)
        t.params = self.block_params(d, cctx, cctx.scope)
        # directionless parameters (spec 6.8: compile-time values, extern instances) are
        # substituted where the control is inlined; a control given to the package with
        # one does not match the architecture's control type, which has directions
        for loc in d.locals:
            self.guarded(self.check_local, loc, cctx)
        actx = cctx.child("apply", Scope(cctx.scope))
        for st in d.body.stmts:
            self.guarded(self.check_stmt, st, actx)

    def check_local(self, loc, ctx: Ctx) -> None:
        if not isinstance(loc, A.VarDecl):
            self.define(ctx.scope, loc.name, loc, loc.pos)
        if isinstance(loc, A.ActionDecl):
            self.check_action(loc, ctx)
        elif isinstance(loc, A.TableDecl):
            self.check_table(loc, ctx)
        elif isinstance(loc, A.VarDecl):
            self.check_var(loc, ctx)
            return
        elif isinstance(loc, A.ConstDecl):
            self.check_const(loc, ctx)
        elif isinstance(loc, A.Instantiation):
            self.check_instantiation(loc, ctx)
        elif isinstance(loc, A.ValueSetDecl):
            et = self.resolve_type(loc.element, ctx)
            if not self.is_matchable(et) and not isinstance(et, T.Struct):
                self.err(loc.pos, f"value_set element type {et} is not a bit<W> type")
            loc.p4type = T.SetType(et)
            self.const_int(loc.size, ctx, "a value_set size")
            if ctx.kind != "parser":
                self.err(loc.pos, "value_set can only be declared in a parser")
        else:
            self.refuse(loc.pos, f"local declaration '{type(loc).__name__}'")

    def check_var(self, d: A.VarDecl, ctx: Ctx) -> None:
        d.p4type = T.UNKNOWN
        try:
            if isinstance(d.type_ref, A.InferredTypeRef):
                # a temporary of the front end: typed by its initialiser (or a model)
                model = d.init if d.init is not None else d.type_ref.like
                d.type_ref.resolved = self.check_expr(model, ctx)
            t = self.resolve_type(d.type_ref, ctx)
            d.p4type = t
            if t in (T.VOID, T.STRING, T.INT, T.MATCH_KIND) or isinstance(
                    t, (T.Extern, T.Specialized, T.ParserType)):
                d.p4type = T.UNKNOWN
                self.err(d.pos, f"variable '{d.name}' cannot have type {t}")
            if d.init is not None:
                self.check_expr(d.init, ctx, expected=t)
                self.coerce(d.init, t, ctx, f"initializer of '{d.name}'")
        finally:
            # the initializer cannot see the variable itself (spec 6.7)
            self.define(ctx.scope, d.name, d, d.pos)

    def check_action(self, d: A.ActionDecl, ctx: Ctx) -> None:
        d.control = ctx.control
        actx = ctx.child("action", action=d)
        params = self.param_list(d.params, actx)
        seen_data = False
        for p in d.params:
            self.define(actx.scope, p.name, p, p.pos)
            if p.direction == "":
                seen_data = True
            elif seen_data:
                self.diags.error(p.pos, f"action '{d.name}': directional parameter '{p.name}' "
                                        f"must come before the action data parameters")
        d.signature = T.Method(d.name, [], params, T.VOID, d)
        for st in d.body.stmts:
            self.guarded(self.check_stmt, st, actx)

    def check_function(self, d: A.FunctionDecl, ctx: Ctx) -> None:
        """The declaration of an inlined function (spec 10.x): its calls were inlined and are
        checked where they are; checking the body here too reports its errors even when it
        is never called (as p4c does) and types the declaration for the mid end's readers."""
        rt = self.resolve_type(d.return_type, ctx)
        fctx = ctx.child("function", function=(d, rt))
        d.signature = T.Method(d.name, [], self.param_list(d.params, fctx), rt, d)
        for p in d.params:
            self.define(fctx.scope, p.name, p, p.pos)
        for st in d.body.stmts:
            self.guarded(self.check_stmt, st, fctx)

    def check_function_return(self, s: A.ReturnStmt, ctx: Ctx) -> None:
        d, rt = ctx.function
        if rt is T.VOID:
            if s.value is not None:
                self.err(s.pos, f"function '{d.name}' returns void; return takes no value")
            return
        if s.value is None:
            self.err(s.pos, f"function '{d.name}' must return a value of type {rt}")
        self.check_expr(s.value, ctx, expected=rt)
        self.coerce(s.value, rt, ctx, f"return value of function '{d.name}'")

    # ---- tables
    def check_table(self, d: A.TableDecl, ctx: Ctx) -> None:
        d.control = ctx.control
        d.p4type = T.Table(d.name, d)
        seen = set()
        for p in d.properties:
            if p.name in seen:
                self.diags.error(p.pos, f"table '{d.name}': property '{p.name}' appears twice")
            seen.add(p.name)
            if p.name not in TABLE_PROPERTIES:
                # p4c warns and ignores it (testdata junk-prop-bmv2.p4)
                self.warn(p.pos, f"table '{d.name}': unknown table property '{p.name}' is "
                                 f"ignored" + did_you_mean(p.name, TABLE_PROPERTIES))
                continue
        actions_prop = d.prop("actions")
        if actions_prop is None:
            self.diags.error(d.pos, f"table '{d.name}' has no 'actions' property")
        listed = {}
        if actions_prop is not None:
            for ar in actions_prop.actions:
                a = self.guarded(self.resolve_action_ref, ar, ctx, d)
                if a is None:
                    continue
                directional = [p for p in a.params if p.direction]
                if ar.prelude:
                    # computations of bound arguments with function calls
                    # (inline_functions.py): statements in the control's scope
                    pctx = ctx.child("apply", Scope(ctx.scope))
                    for st in ar.prelude:
                        self.guarded(self.check_stmt, st, pctx)
                if ar.args or directional:
                    self.guarded(self.check_bound_args, ar, a, d, ctx)
                for p in a.params:
                    if p.direction:
                        continue
                    elif not (isinstance(self.value_type(p.p4type), T.Bits)
                              or p.p4type == T.BOOL):
                        self.diags.error(p.pos, f"action data parameter '{p.name}' of "
                                                f"'{a.name}' has type {p.p4type}; the control "
                                                f"plane supplies only bit<W>, int<W> and bool")
                if a.name in listed:
                    self.diags.error(ar.pos, f"table '{d.name}': action '{a.name}' is listed "
                                             f"twice")
                listed[a.name] = a
        for p in d.properties:
            if p.name == "key":
                self.guarded(self.check_key, d, p, ctx)
            elif p.name == "default_action":
                self.guarded(self.check_default_action, d, p, listed, ctx)
            elif p.name == "entries":
                self.guarded(self.check_entries, d, p, listed, ctx)
            elif p.name in ("size",):
                self.guarded(self.const_int, p.value, ctx, f"table '{d.name}': size")
                if p.value.folded is not None and p.value.folded < 0:
                    self.diags.error(p.pos, f"table '{d.name}': size must not be negative")
            elif p.name == "implementation":
                self.guarded(self.check_implementation, d, p, ctx)
            elif p.name in ("counters", "meters"):
                self.guarded(self.check_direct_resource, d, p, ctx)
            elif p.name in ("support_timeout", "idle_timeout_with_auto_delete",
                            "largest_priority_wins"):
                self.guarded(self.check_bool_property, d, p, ctx)
            elif p.name == "priority_delta":
                self.guarded(self.const_int, p.value, ctx, f"table '{d.name}': priority_delta")
                if isinstance(p.value.folded, int) and p.value.folded <= 0:
                    self.diags.error(p.pos, f"table '{d.name}': priority_delta must be positive")

    def resolve_action_ref(self, ar: A.ActionRef, ctx: Ctx, table) -> A.ActionDecl:
        scope = self.top if ar.name.is_global else ctx.scope
        a = scope.lookup(ar.name.name)
        if a is None:
            self.err(ar.name.pos, f"table '{table.name}': action '{ar.name.name}' is not "
                                  f"declared")
        if not isinstance(a, A.ActionDecl):
            self.err(ar.name.pos, f"table '{table.name}': '{ar.name.name}' is not an action")
        if a.signature is None:
            raise _Stop()          # the action itself failed to check: already reported
        ar.action = a
        ar.name.decl = a
        ar.name.type = a.signature
        return a

    def check_key(self, d: A.TableDecl, p: A.KeyProperty, ctx: Ctx) -> None:
        lpm = 0
        for k in p.elements:
            try:
                self.check_expr(k.expr, ctx)
                if not self.is_matchable(k.expr.type):
                    self.err(k.expr.pos, f"table '{d.name}': key of type {k.expr.type} cannot "
                                         f"be matched")
                if k.expr.type == T.INT:
                    self.err(k.expr.pos, f"table '{d.name}': key has no fixed width")
                if k.match_kind not in self.match_kinds:
                    self.err(k.match_kind_pos or k.pos, f"unknown match kind '{k.match_kind}'"
                             + did_you_mean(k.match_kind, self.match_kinds))
                if k.match_kind in ("lpm", "range") and not isinstance(
                        self.value_type(k.expr.type), T.Bits):
                    article = "an" if k.match_kind == "lpm" else "a"
                    self.err(k.expr.pos, f"table '{d.name}': {article} {k.match_kind} key must "
                                         f"be bit<W>, not {k.expr.type}")
                if k.match_kind == "lpm":
                    lpm += 1
                    if lpm > 1:
                        self.err(k.pos, f"table '{d.name}' has more than one lpm key")
            except _Stop:
                pass

    def check_bound_args(self, ar: A.ActionRef, a: A.ActionDecl, table, ctx) -> None:
        """`actions = { a(hdr.x); }` (spec 14.2.1.2): the actions list binds the action's
        directional parameters, in order; the control plane supplies the rest."""
        directional = [p for p in a.params if p.direction]
        if len(ar.args) != len(directional):
            self.err(ar.pos, f"table '{table.name}': action '{a.name}' has "
                             f"{len(directional)} directional parameter(s) "
                             f"({', '.join(p.name for p in directional) or 'none'}), which the "
                             f"actions list must bind; {len(ar.args)} argument(s) given")
        self.check_directional_args(ar.args, directional, a, ctx)

    def check_directional_args(self, args, params, a: A.ActionDecl, ctx) -> None:
        for arg, p in zip(args, params):
            self.check_expr(arg, ctx, expected=p.p4type)
            if p.direction in ("out", "inout"):
                self.check_writable(arg, ctx)
                if arg.type != p.p4type:
                    self.err(arg.pos, f"argument '{p.name}' of action '{a.name}' has type "
                                      f"{arg.type}, expected {p.p4type}")
            else:
                self.coerce(arg, p.p4type, ctx, f"argument '{p.name}' of action '{a.name}'")

    def check_action_args(self, ar: A.ActionRef, a: A.ActionDecl, table, ctx, what: str,
                          constant: bool) -> None:
        data = [p for p in a.params if p.direction == ""]
        directional = [p for p in a.params if p.direction]
        if directional and ar.has_parens and len(ar.args) == len(a.params):
            # spec 14.2.1.3: a default or entry action repeats the bound arguments first
            self.check_directional_args(ar.args[:len(directional)], directional, a, ctx)
            ar = copy.copy(ar)
            ar.args = ar.args[len(directional):]
        if not ar.has_parens and data:
            self.err(ar.pos, f"table '{table.name}': {what} '{a.name}' needs arguments for "
                             f"its parameters ({', '.join(p.name for p in data)})")
        if len(ar.args) != len(data):
            self.err(ar.pos, f"table '{table.name}': {what} '{a.name}' takes {len(data)} "
                             f"arguments, {len(ar.args)} given")
        for arg, p in zip(ar.args, data):
            self.check_expr(arg, ctx, expected=p.p4type)
            self.coerce(arg, p.p4type, ctx, f"argument '{p.name}' of action '{a.name}'")
            if constant:
                self.require_constant(arg, f"argument '{p.name}' of {what} '{a.name}'")

    def check_default_action(self, d: A.TableDecl, p: A.DefaultActionProperty, listed,
                             ctx: Ctx) -> None:
        ar = p.action
        a = self.resolve_action_ref(ar, ctx, d)
        if listed and a.name not in listed:
            self.err(ar.pos, f"table '{d.name}': default action '{a.name}' is not in the "
                             f"table's actions list")
        self.check_action_args(ar, a, d, ctx, "default action", constant=False)

    def check_entries(self, d: A.TableDecl, p: A.EntriesProperty, listed, ctx: Ctx) -> None:
        # `entries` without const (spec 14.2.1.4: initial entries the control plane may
        # change) are written into the JSON exactly as const ones: BMv2 has no flag for it
        keys = d.key
        if not keys:
            self.err(p.pos, f"table '{d.name}' has entries but no key")
        for e in p.entries:
            if (len(keys) == 1 and len(e.keyset) == 1 and isinstance(e.keyset[0], A.ListExpr)
                    and len(e.keyset[0].items) == 1):
                # `{ v }` for a one-field key: a one-element list is its element (p4c
                # accepts it, its action-two-params sample)
                e.keyset = [e.keyset[0].items[0]]
            try:
                self.check_keyset(e.keyset, [k.expr for k in keys], ctx, e.pos, "table key")
                if len(e.keyset) == len(keys):
                    for k, ks in zip(keys, e.keyset):
                        self.check_entry_key(d, k, ks)
                a = self.resolve_action_ref(e.action, ctx, d)
                if a.name not in listed:
                    self.err(e.action.pos, f"table '{d.name}': entry action '{a.name}' is not "
                                           f"in the table's actions list")
                self.check_action_args(e.action, a, d, ctx, "entry action", constant=True)
                if e.priority is not None:
                    self.const_int(e.priority, ctx, "an entry priority")
            except _Stop:
                pass
        if all(e.priority is None or isinstance(e.priority.folded, int) for e in p.entries):
            largest, delta = self.priority_properties(d, ctx)
            check_entry_priorities(d, p, largest_wins=largest, delta=delta,
                                   error=self.diags.error, warn=self.warn)

    def priority_properties(self, d: A.TableDecl, ctx: Ctx) -> tuple:
        """(largest_priority_wins, priority_delta) of a table, defaults true and 1."""
        largest, delta = d.prop("largest_priority_wins"), d.prop("priority_delta")
        if largest is not None:
            self.guarded(self.check_bool_property, d, largest, ctx)
        if delta is not None:
            self.guarded(self.const_int, delta.value, ctx, f"table '{d.name}': priority_delta")
        wins = largest.value.folded if largest is not None else True
        step = delta.value.folded if delta is not None else 1
        return (wins if isinstance(wins, bool) else True,
                step if isinstance(step, int) and step > 0 else 1)

    def check_entry_key(self, d: A.TableDecl, k: A.KeyElement, ks: A.Expr) -> None:
        """What an entry may say for each match kind (spec 14.2.1.4 and BMv2's match types):
        exact and optional take values (optional also `_`), lpm a value, a prefix mask or
        `_`, ternary a value, any mask or `_`, range a value, a range or `_`."""
        mk = k.match_kind
        key = expr_text(k.expr)
        if isinstance(ks, (A.DontCareExpr, A.DefaultExpr)):
            if mk == "exact":
                self.err(ks.pos, f"table '{d.name}': '_' is not allowed for the exact key {key}")
            return
        if isinstance(ks, A.MaskExpr):
            if mk not in ("ternary", "lpm"):
                self.err(ks.pos, f"table '{d.name}': a mask is not allowed for the {mk} key "
                                 f"{key}")
            if mk == "lpm" and isinstance(ks.mask.folded, int):
                width = k.expr.type.width_bits or 0
                m = ks.mask.folded & ((1 << width) - 1)
                ones = bin(m).count("1")
                if m != ((1 << width) - 1) ^ ((1 << (width - ones)) - 1):
                    self.err(ks.mask.pos, f"table '{d.name}': mask {ks.mask.folded:#x} of the "
                                          f"lpm key {key} is not a prefix")
        elif isinstance(ks, A.RangeExpr) and mk != "range":
            self.err(ks.pos, f"table '{d.name}': a range is not allowed for the {mk} key {key}")

    def check_direct_resource(self, d: A.TableDecl, p: A.ExprProperty, ctx: Ctx) -> None:
        v = p.value
        if (p.name == "counters" and isinstance(v, A.MethodCallExpr)
                and isinstance(v.callee, A.PathExpr) and v.callee.name == "direct_counter"
                and isinstance(self.top.lookup("direct_counter"), A.ExternDecl)):
            # `counters = direct_counter(CounterType.packets)`: an anonymous direct counter
            # of this table (p4c names it after the property, "counter" without @name)
            if len(v.args) != 1:
                self.err(v.pos, f"table '{d.name}': direct_counter takes 1 argument, "
                                f"{len(v.args)} given")
            arg = v.args[0].expr if isinstance(v.args[0], A.Argument) else v.args[0]
            self.check_expr(arg, ctx)
            if getattr(arg.type, "name", None) != "CounterType":
                self.err(arg.pos, f"table '{d.name}': direct_counter takes a CounterType")
            v.kind = "constructor"
            v.type = T.VOID
            v.callee.type = T.VOID
            v.callee.decl = self.top.lookup("direct_counter")
            return
        self.check_expr(p.value, ctx)
        want = "direct_counter" if p.name == "counters" else "direct_meter"
        inst = p.value.decl if isinstance(p.value, A.PathExpr) else None
        if not isinstance(inst, A.Instantiation) or \
                T.strip_specialization(inst.p4type).name != want:
            self.err(p.value.pos, f"table '{d.name}': '{p.name}' must name a {want} instance")

    @staticmethod
    def implementation_kind(d: A.TableDecl, ctx: Ctx = None):
        """"action_profile" / "action_selector" when the table has such an implementation."""
        p = d.prop("implementation")
        v = getattr(p, "value", None)
        if isinstance(v, A.PathExpr):
            inst = v.decl or (ctx.scope.lookup(v.name) if ctx is not None else None)
            if not isinstance(inst, A.Instantiation):
                return None
            t = inst.type_ref
            return t.name if isinstance(t, A.NamedTypeRef) else None
        if isinstance(v, A.MethodCallExpr) and isinstance(v.callee, A.PathExpr):
            return v.callee.name
        return None

    IMPLEMENTATION_ARGS = {"action_profile": 1, "action_selector": 3}

    def check_implementation(self, d: A.TableDecl, p: A.ExprProperty, ctx: Ctx) -> None:
        """`implementation = ap;` naming a v1model action_profile/action_selector instance,
        or `implementation = action_profile(size)` / `action_selector(algo, size, width)`."""
        v = p.value
        what = f"table '{d.name}': 'implementation'"
        if isinstance(v, A.PathExpr):
            self.check_expr(v, ctx)
            if self.implementation_kind(d, ctx) not in self.IMPLEMENTATION_ARGS:
                self.err(v.pos, f"{what} must name an action_profile or action_selector "
                                f"instance")
            return
        kind = self.implementation_kind(d)
        if kind not in self.IMPLEMENTATION_ARGS:
            self.err(getattr(v, "pos", p.pos), f"{what} must be an action_profile or "
                                               f"action_selector")
        if len(v.args) != self.IMPLEMENTATION_ARGS[kind]:
            n = self.IMPLEMENTATION_ARGS[kind]
            self.err(v.pos, f"{what}: {kind} takes {n} argument{'s' if n > 1 else ''}, "
                            f"{len(v.args)} given")
        args = [a.expr if isinstance(a, A.Argument) else a for a in v.args]
        if kind == "action_selector":
            self.check_expr(args[0], ctx)
            if getattr(args[0].type, "name", None) != "HashAlgorithm":
                self.err(args[0].pos, f"{what}: the first argument is a HashAlgorithm")
            args = args[1:]
        for a in args:
            self.const_int(a, ctx, f"an {kind} size")
        v.kind = "constructor"
        v.type = T.VOID
        v.callee.type = T.VOID
        v.callee.decl = self.top.lookup(kind)

    def check_bool_property(self, d, p, ctx: Ctx) -> None:
        self.check_expr(p.value, ctx)
        if p.value.type != T.BOOL or p.value.folded is None:
            self.err(p.value.pos, f"table '{d.name}': '{p.name}' must be true or false")

    # ------------------------------------------------------------ statements
    def check_stmt(self, s: A.Stmt, ctx: Ctx) -> None:
        if isinstance(s, A.AssignStmt):
            self.check_expr(s.lhs, ctx)
            self.check_writable(s.lhs, ctx)
            self.check_expr(s.rhs, ctx, expected=s.lhs.type)
            self.coerce(s.rhs, s.lhs.type, ctx, "assignment")
        elif isinstance(s, A.CallStmt):
            self.check_expr(s.call, ctx)
        elif isinstance(s, A.IfStmt):
            if ctx.kind == "state":
                self.parser_ifs = True     # split into states after checking (lowering.py)
            self.check_expr(s.cond, ctx)
            if s.cond.type != T.BOOL:
                self.err(s.cond.pos, f"if condition has type {s.cond.type}, expected bool")
            self.guarded(self.check_stmt, s.then, ctx.child())
            if s.other is not None:
                self.guarded(self.check_stmt, s.other, ctx.child())
        elif isinstance(s, A.BlockStmt):
            bctx = ctx.child()
            for st in s.stmts:
                self.guarded(self.check_stmt, st, bctx)
        elif isinstance(s, A.VarDecl):
            self.check_var(s, ctx)
        elif isinstance(s, A.ConstDecl):
            self.define(ctx.scope, s.name, s, s.pos)
            self.check_const(s, ctx)
        elif isinstance(s, A.SwitchStmt):
            self.check_switch(s, ctx)
        elif isinstance(s, A.ReturnStmt) and ctx.function is not None:
            self.check_function_return(s, ctx)
        elif isinstance(s, A.ReturnStmt):
            if ctx.kind == "state":
                self.err(s.pos, "return is not allowed in a parser state")
            if s.value is not None:
                self.err(s.pos, "return with a value is only allowed in functions")
        elif isinstance(s, A.ExitStmt):
            if ctx.kind == "state":
                self.err(s.pos, "exit is not allowed in a parser state")
        elif isinstance(s, A.EmptyStmt):
            pass
        elif isinstance(s, A.ForStmt):
            self.check_for(s, ctx)
        elif isinstance(s, (A.BreakStmt, A.ContinueStmt)):
            if not ctx.loop:
                word = "break" if isinstance(s, A.BreakStmt) else "continue"
                self.err(s.pos, f"{word} is only allowed inside a for loop")
        else:
            self.refuse(s.pos, f"statement '{type(s).__name__}'")

    def check_for(self, s: A.ForStmt, ctx: Ctx) -> None:
        """Spec 12.9: the init declarations are visible in the condition, the updates and the
        body; the body has a scope of its own. Parsers loop with states instead."""
        if ctx.kind in ("state", "parser"):
            self.err(s.pos, "for loops are not allowed in a parser (use parser states)")
        lctx = ctx.child()
        for st in s.init:
            self.guarded(self.check_stmt, st, lctx)
        if s.cond is not None:
            self.check_expr(s.cond, lctx)
            if s.cond.type != T.BOOL:
                self.err(s.cond.pos, f"for loop condition has type {s.cond.type}, expected bool")
        for st in s.updates:
            self.guarded(self.check_stmt, st, lctx)
        self.guarded(self.check_stmt, s.body, lctx.child(loop=True))

    def check_switch(self, s: A.SwitchStmt, ctx: Ctx) -> None:
        if ctx.kind in ("state", "action"):
            where = "a parser state" if ctx.kind == "state" else "an action"
            self.err(s.pos, f"switch is not allowed in {where}")
        self.check_expr(s.expr, ctx)
        t = s.expr.type
        seen = set()
        if isinstance(t, T.ActionEnum):
            s.on_action_run = True
            s.table = t.table.decl
            names = {ar.action.name: ar.action for ar in s.table.actions if ar.action is not None}
            for c in s.cases:
                for lab in c.labels:
                    if isinstance(lab, A.DefaultExpr):
                        lab.type = T.DONTCARE
                        key = "default"
                    elif isinstance(lab, A.PathExpr) and lab.name in names:
                        lab.decl = names[lab.name]
                        lab.type = t
                        key = lab.name
                    else:
                        self.diags.error(lab.pos, f"switch label is not an action of table "
                                                  f"'{s.table.name}'")
                        continue
                    if key in seen:
                        self.diags.error(lab.pos, f"duplicate switch label '{key}'")
                    seen.add(key)
        else:
            if not (isinstance(t, T.Bits) or isinstance(t, T.Enum) or t == T.ERROR):
                self.err(s.expr.pos, f"cannot switch on a value of type {t}")
            for c in s.cases:
                for lab in c.labels:
                    if isinstance(lab, A.DefaultExpr):
                        lab.type = T.DONTCARE
                        continue
                    try:
                        self.check_expr(lab, ctx, expected=t)
                        self.coerce(lab, t, ctx, "switch label")
                        self.require_constant(lab, "a switch label")
                        key = lab.folded if lab.folded is not None else id(lab.decl)
                        if key in seen:
                            self.diags.error(lab.pos, "duplicate switch label")
                        seen.add(key)
                    except _Stop:
                        pass
        for c in s.cases:
            if c.body is not None:
                self.guarded(self.check_stmt, c.body, ctx.child())

    def check_writable(self, e: A.Expr, ctx: Ctx) -> None:
        if isinstance(e, A.PathExpr):
            d = e.decl
            if isinstance(d, A.VarDecl):
                return
            if isinstance(d, A.Param):
                if d.direction in ("out", "inout"):
                    return
                if d.direction == "in":
                    self.err(e.pos, f"cannot write to '{e.name}': it is an 'in' parameter")
                self.err(e.pos, f"cannot write to '{e.name}': action data parameters are "
                                f"read-only")
            if isinstance(d, A.ConstDecl):
                self.err(e.pos, f"cannot assign to constant '{e.name}'")
            self.err(e.pos, f"'{e.name}' cannot be assigned to")
        if isinstance(e, A.MemberExpr) and e.kind in ("field", "stack"):
            if e.kind == "stack" and e.member != "next":
                self.err(e.pos, f"cannot write to '.{e.member}' of a header stack")
            return self.check_writable(e.expr, ctx)
        if isinstance(e, (A.IndexExpr, A.SliceExpr)):
            return self.check_writable(e.expr, ctx)
        self.err(e.pos, "this expression cannot be assigned to")

    # ------------------------------------------------------------ expressions
    def check_expr(self, e: A.Expr, ctx: Ctx, expected: Optional[T.P4Type] = None) -> T.P4Type:
        if e.type is not None:
            return e.type
        m = getattr(self, "expr_" + type(e).__name__, None)
        if m is None:
            self.refuse(e.pos, f"expression '{type(e).__name__}'")
        t = m(e, ctx, expected)
        if t is None or t is T.UNKNOWN:
            raise _Stop()          # depends on a declaration that failed: already reported
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
                             f"{F.wrap(e.value, t)}")
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
        d = (self.top if e.is_global else ctx.scope).lookup(e.name)
        if d is None:
            self.err(e.pos, f"'{e.name}' is not declared"
                     + did_you_mean(e.name, self.visible_names(ctx.scope)))
        e.decl = d
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
            d = (self.top if base.is_global else ctx.scope).lookup(base.name)
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
            from .lowering import struct_constant_member
            leaf = struct_constant_member(e)
            if leaf is not None:
                e.folded = leaf.folded            # C.f of a struct constant C
            if isinstance(base, A.MethodCallExpr) and base.builtin == "lookahead":
                self.lookahead_fields.append(e)
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
        itype = self.value_type(self.check_expr(e.index, ctx))
        i = e.index.folded
        if i is None:
            # a run-time index (P4_16 spec 8.18): lowered to BMv2's dereference_header_stack;
            # an index past the end is a run-time error of the target, not of the compiler
            if not isinstance(itype, T.Bits):
                self.err(e.index.pos, f"a header stack index must be bit<W> or int, not {itype}")
            return bt.element
        if not 0 <= i < bt.size:
            self.err(e.index.pos, f"header stack index {i} out of range 0..{bt.size - 1}")
        e.folded_index = i
        if e.index.type == T.INT:
            self.retype_int(e.index, T.Bits(32))
        return bt.element

    def check_tuple_index(self, e: A.IndexExpr, bt: T.Tuple, ctx):
        """t[i] with a compile-time constant i (spec 8.12: tuple elements by index)."""
        i = self.const_int(e.index, ctx, "a tuple index")
        if not 0 <= i < len(bt.elements):
            self.err(e.index.pos, f"tuple index {i} out of range 0..{len(bt.elements) - 1}")
        e.folded_index = i
        if e.index.type == T.INT:
            self.retype_int(e.index, T.Bits(32))
        return bt.elements[i]

    def expr_SliceExpr(self, e: A.SliceExpr, ctx, expected):
        bt = self.value_type(self.check_expr(e.expr, ctx))
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
                self.err(e.pos, f"slice [{lo} +: {w}] out of range for {bt}")
            hi = lo + w - 1
        else:
            hi = self.const_int(e.hi, ctx, "a slice bound")
            lo = self.const_int(e.lo, ctx, "a slice bound")
        if not 0 <= lo <= hi < bt.width:
            self.err(e.pos, f"slice [{hi}:{lo}] out of range for {bt}")
        e.hi_value, e.lo_value = hi, lo
        if e.expr.folded is not None:
            e.folded = F.slice_(e.expr.folded, hi, lo)
        return T.Bits(hi - lo + 1)

    @staticmethod
    def value_type(t):
        """Spec 8.11.2: a serializable enum converts implicitly to its underlying type in
        arithmetic, shifts, concatenation and comparisons."""
        if isinstance(t, T.Enum) and t.underlying is not None:
            return t.underlying
        return t

    def expr_UnaryExpr(self, e: A.UnaryExpr, ctx, expected):
        t = self.value_type(self.check_expr(e.operand, ctx, expected))
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
        lt = self.value_type(self.check_expr(e.left, ctx))
        rt = self.value_type(self.check_expr(e.right, ctx))
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
                from .lowering import lower_aggregate_equality, NotAPath
                try:
                    lower_aggregate_equality(e, t)
                except NotAPath:
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
            self.retype_int(e.right, T.Bits(max(8, e.right.folded.bit_length())))
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
            self.err(e.pos, f"illegal cast of {e.expr.folded} to bool (only 0 and 1)")
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
                return Checker.cast_allowed(src.underlying, dst)
            return False
        if dst == T.BOOL:
            return (isinstance(src, T.Bits) and src.width == 1 and not src.signed) or \
                src == T.INT
        if isinstance(dst, T.Enum) and dst.underlying is not None:
            return src == T.INT or (isinstance(src, T.Bits) and
                                     Checker.cast_allowed(src, dst.underlying))
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

    # ---- calls
    def expr_MethodCallExpr(self, e: A.MethodCallExpr, ctx, expected):
        e.type_args = [self.resolve_type(r, ctx) for r in e.type_arg_refs]
        callee = e.callee
        if isinstance(callee, A.MemberExpr):
            return self.check_member_call(e, callee, ctx, expected)
        if isinstance(callee, A.PathExpr):
            d = (self.top if callee.is_global else ctx.scope).lookup(callee.name)
            if isinstance(d, A.ActionDecl) and d is ctx.action:
                # a declaration is not visible inside itself (p4c's ResolutionContext::lookup
                # drops the enclosing declaration; recursion is not allowed anyway): in
                # `action hash() { hash(...); }` the call is v1model's hash (p4c's issue1541)
                d = self._lookup_outside(ctx.scope, d, callee.name)
            if d is None:
                self.err(callee.pos, f"'{callee.name}' is not declared"
                         + did_you_mean(callee.name, self.visible_names(ctx.scope)))
            callee.decl = d
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

    @staticmethod
    def _lookup_outside(scope: Scope, decl, name: str):
        """`name` looked up from outside the scope that declares `decl`."""
        while scope is not None and scope.names.get(name) is not decl:
            scope = scope.parent
        return scope.parent.lookup(name) if scope is not None and scope.parent else None

    def check_member_call(self, e, callee: A.MemberExpr, ctx, expected):
        recv = callee.expr
        name = callee.member
        # tables, parser/control instances: t.apply()
        if isinstance(recv, A.PathExpr):
            d = (self.top if recv.is_global else ctx.scope).lookup(recv.name)
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
            raise _Stop()          # the action itself failed to check: already reported
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
        self.warn(start_pos(e), f"value {v} does not fit in {target}; it is truncated to "
                                f"{F.wrap(v, target)}")

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


def did_you_mean(name: str, candidates) -> str:
    """' (did you mean 'x'?)' for a close match among candidates, else ''."""
    import difflib
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""


def prev_pos(prev) -> str:
    if isinstance(prev, list):
        prev = prev[0]
    return str(getattr(prev, "pos", "?"))


def start_pos(e) -> Pos:
    """Where an expression starts in the source (its leftmost token)."""
    while True:
        if isinstance(e, (A.MemberExpr, A.IndexExpr, A.SliceExpr)):
            e = e.expr
        elif isinstance(e, A.BinaryExpr):
            e = e.left
        elif isinstance(e, A.TernaryExpr):
            e = e.cond
        elif isinstance(e, A.MethodCallExpr):
            e = e.callee
        else:
            return e.pos
