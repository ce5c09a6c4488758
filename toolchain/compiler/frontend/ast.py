"""The typed AST of a P4_16 program: what the front end produces and the mid end consumes.

Produced by `toolchain.compiler.frontend.parse_and_check(path, include_dirs=(), defines=None)
-> (Program, list[Diagnostic])` (raises `diagnostics.CompileError` on errors).

Every node is a slotted dataclass whose first field is `pos` (a `diagnostics.Pos`: file, line,
col of the original source, after mapping the preprocessor's line markers). Fields set by the
checker are keyword-only with default None and are listed as "checker:" below.

WHAT THE BACK END MAY RELY ON after a successful `parse_and_check`:

 * Expressions: every `Expr` has `.type` (a `types.P4Type`, never None, never a typedef).
   Integer literals whose width was inferred from context have `.type` = that `Bits` and the
   literal's `.value` is already reduced into range (two's complement for int<W>, i.e. the
   spec's value of the cast, stored as a Python int in [-(2^(W-1)), 2^(W-1)) for signed and
   [0, 2^W) for unsigned). A compile-time-known expression has `.folded` = its value
   (int, or bool for bool type) -- e.g. `const` references, `8w3 + 1`, enum members (the
   underlying value, or for a plain enum its index) and error members (their code). An expression with `.folded` set should be emitted as that
   constant (of its `.type`). Implicit casts the spec allows (8.11.2) are made explicit:
   where an `int` meets bit<W>/int<W> the `int` subtree gets that type (truncated, with a
   warning, if it does not fit); a serializable enum is usable as its underlying type (its
   `.type` stays the `Enum`; treat `Enum` with `.underlying` as that `Bits`). Nothing else is
   converted implicitly (width mismatches are errors). An `int` stays `types.INT` only where
   a generic extern parameter was bound by nothing else (e.g. `hash(..., 0, data, 1024)`);
   it is always `.folded` then.
 * Names: every `PathExpr` has `.decl` = the declaration node it names (ConstDecl, VarDecl,
   Param, ActionDecl, TableDecl, Instantiation, ParserState, ValueSetDecl, MethodDecl for extern
   functions, HeaderDecl/StructDecl/EnumDecl/ExternDecl... for type names used as values such as
   `error`, `MeterType`). `error` and `match_kind` paths have `.decl` = the Program's
   `ErrorDecl`/`MatchKindDecl` (the first one; members of all such declarations are merged).
   `MemberExpr.decl` is the member's declaration: FieldDecl (header/struct field),
   EnumMember, ErrorMember (for `error.X`), MethodDecl (extern method) or TableDecl (for
   the callee of `t.apply()`), and None for built-in members; `MemberExpr.kind` says which:
   "field", "enum", "error", "method", "builtin" (callee of isValid()/push_front()/...),
   "stack" (.next/.last/.lastIndex/.size of a header stack), "apply_result" (.hit/.miss/
   .action_run of `t.apply()`).
 * Calls: every `MethodCallExpr` has `.kind`:
     "extern_method"   obj.m(...) on an extern instance; `.receiver` = obj expr, `.method` = MethodDecl
     "extern_function" f(...) for a top-level extern function; `.method` = MethodDecl
     "action"          a direct action call a(...); `.method` = ActionDecl
     "function"        a call of a P4 function; only inside the (never lowered) bodies
                       of FunctionDecls: every other call was inlined before checking
     "table_apply"     t.apply(); `.receiver` = PathExpr of the table
     ("apply"           p.apply(...) on a sub-parser/sub-control: refused by the checker)
     "template_apply"  c.apply(...) on a control-typed constructor parameter, only inside
                       the (never lowered) body of a control whose instances were all
                       inlined (ControlDecl.inlined_only)
     "builtin"         `.builtin` in {"isValid","setValid","setInvalid","push_front",
                       "pop_front","extract","emit","lookahead","advance","verify",
                       "minSizeInBits","minSizeInBytes"}; isValid/setValid/... have `.receiver`
                       = the header expression. packet_in/packet_out methods are
                       "extern_method" on the core externs AND have `.builtin` set.
     "constructor"     X(...) in an instantiation argument (package main's parser/control args)
   A compile-time-known call (`h.minSizeInBytes()`) has `.folded` like any expression.
   `.type_args` holds the resolved P4Types of explicit or inferred type arguments
   (`.bindings`: TypeVar -> P4Type). Arguments are `.args` (Expr list) in declaration order
   of the chosen overload; `.params` = that overload's `types.Param` list.
 * Declarations: HeaderDecl/StructDecl/HeaderUnionDecl/EnumDecl/ExternDecl have `.p4type`.
   VarDecl/ConstDecl/Param/Instantiation have `.p4type`. ConstDecl has `.folded`.
   TableDecl has typed properties (KeyProperty, ActionsProperty, DefaultActionProperty,
   EntriesProperty, ExprProperty) and convenience accessors.
 * Lowered by the front end (lowering.py): `pkt.lookahead<H>().f` is replaced by
   `pkt.lookahead<bit<N>>()[w-1:0]` (N = offset of f in H + its width w), cast back to the
   field's type if that is not bit<w>. The mid end never sees a field of a header lookahead.
   `a == b` / `a != b` on headers, structs or header stacks is rewritten in place (the
   BinaryExpr keeps its identity) into bool expressions over isValid() and the fields, so
   `==`/`!=` operands are always scalars.
   An `if` in a parser state is split into states (`s` ends with `select(cond) { true:
   s_true; default: s_false; }`, both continue in `s_join`), so parser states never contain
   IfStmt or BlockStmt.
 * Program.main is the `Instantiation` named `main` (the package); its args are
   MethodCallExpr with kind "constructor" whose `.method` is the ParserDecl/ControlDecl.
 * Parser states: `SelectCase.state.decl` / `ParserState.transition.decl` is the target
   ParserState; accept/reject are ParserState nodes with `.builtin` True.
 * Statements in a control's apply block, actions and parser states are checked where they
   are; `ast.walk(node)` iterates a subtree (syntax children only).
 * Program.scope: top-level name -> declaration; overloaded extern functions (e.g.
   `mark_to_drop`, `log_msg`) map to a list of MethodDecl.
 * Program.errors: list of error names in declaration order (their codes are their indices).
 * Program.match_kinds: set of match kind names.
 * Annotations: `.annotations` (list of Annotation) on declarations and fields; use
   `annotation(node, "name")` to find one and `name_annotation(node)` for `@name("...")`.

Rules for changing this file: only ADD nodes or fields (keyword-only with defaults), never
rename or remove without a note here.
"""
from __future__ import annotations

import copy

from dataclasses import dataclass, field, fields as dc_fields
from typing import Any, Optional

from ..diagnostics import Pos


def _checker(default=None):
    """A field the type checker fills in; not compared, not shown in repr."""
    return field(default=default, kw_only=True, compare=False, repr=False)


@dataclass(slots=True)
class Node:
    pos: Pos


# ================================================================ annotations

@dataclass(slots=True)
class Annotation(Node):
    """@name or @name(args). `args` are parsed expressions when the body parses as an
    expression list (the usual case: @name("x"), @field_list(1), @priority(10)), `kv` for
    `@a(k = v, ...)`, and `body` is the raw token text in every case."""
    name: str
    args: list = field(default_factory=list)
    body: str = ""
    kv: dict = field(default_factory=dict)


def annotation(node, name: str) -> Optional[Annotation]:
    for a in getattr(node, "annotations", None) or ():
        if a.name == name:
            return a
    return None


def name_annotation(node) -> Optional[str]:
    """The string of @name("...") on a node, or None."""
    a = annotation(node, "name")
    if a is not None and a.args and isinstance(a.args[0], StringLit):
        return a.args[0].value
    return None


# ================================================================ type syntax

@dataclass(slots=True)
class TypeRef(Node):
    """Base of written types; checker sets `.resolved` (a types.P4Type)."""
    resolved: Any = _checker()


@dataclass(slots=True)
class BitsTypeRef(TypeRef):
    """bit<W>, int<W>, bit (= bit<1>); width is an expression (folded by the checker)."""
    width: Optional["Expr"]
    signed: bool = False


@dataclass(slots=True)
class VarbitTypeRef(TypeRef):
    width: "Expr"


@dataclass(slots=True)
class BaseTypeRef(TypeRef):
    """bool, error, match_kind, string, void, int (infinite precision), _ (dontcare)."""
    name: str


@dataclass(slots=True)
class NamedTypeRef(TypeRef):
    """A type name, possibly specialized: `headers_t`, `register<bit<32>>`, `.T` (global).
    resolution: `.decl` = the declaration it names (None for a type variable)."""
    name: str
    args: list = field(default_factory=list)     # TypeRef list
    is_global: bool = False
    decl: Any = _checker()


@dataclass(slots=True)
class InferredTypeRef(TypeRef):
    """Never written in P4: the type of a variable made by the front end itself
    (inline_functions.py), taken by the checker (`.resolved`) from its initialiser, or
    when it has none from `like`, an expression that is type-checked but never evaluated."""
    like: Optional["Expr"] = None


@dataclass(slots=True)
class StackTypeRef(TypeRef):
    element: TypeRef
    size: "Expr"


@dataclass(slots=True)
class TupleTypeRef(TypeRef):
    elements: list


# ================================================================ expressions

@dataclass(slots=True)
class Expr(Node):
    type: Any = _checker()       # types.P4Type after checking
    folded: Any = _checker()     # compile-time value (int | bool) or None


@dataclass(slots=True)
class IntLit(Expr):
    """An integer literal. width None = infinite-precision `int` (until the checker infers a
    width from context). `text` is the literal as written."""
    value: int
    width: Optional[int] = None
    signed: bool = False
    text: str = ""


@dataclass(slots=True)
class BoolLit(Expr):
    value: bool


@dataclass(slots=True)
class StringLit(Expr):
    value: str


@dataclass(slots=True)
class PathExpr(Expr):
    """A name: `x`, `.x` (top-level). checker: `.decl` = the declaration it names."""
    name: str
    is_global: bool = False
    decl: Any = _checker()


@dataclass(slots=True)
class MemberExpr(Expr):
    """expr.member; `pos` is where the whole expression starts, `member_pos` where the member
    name is. checker: `.decl` (member declaration) and `.kind` (see module doc)."""
    expr: Expr
    member: str
    decl: Any = _checker()
    kind: Optional[str] = _checker()
    member_pos: Optional[Pos] = field(default=None, kw_only=True, compare=False, repr=False)


@dataclass(slots=True)
class IndexExpr(Expr):
    """stack[i]; checker: `.folded_index` when i is compile-time known."""
    expr: Expr
    index: Expr
    folded_index: Optional[int] = _checker()


@dataclass(slots=True)
class SliceExpr(Expr):
    """e[hi:lo]; checker sets `.hi_value`/`.lo_value` (ints; the spec requires constants).
    `plus`: written e[lo +: hi] (spec 1.2.5: `hi` is then the width W, `lo` the base L); the
    checker requires both compile-time known (as p4c's BMv2 back end) and sets the same
    `.hi_value` = L+W-1 / `.lo_value` = L, so later passes see a plain slice."""
    expr: Expr
    hi: Expr
    lo: Expr
    plus: bool = False
    hi_value: Optional[int] = _checker()
    lo_value: Optional[int] = _checker()


@dataclass(slots=True)
class UnaryExpr(Expr):
    op: str          # "!", "~", "-", "+"
    operand: Expr


@dataclass(slots=True)
class BinaryExpr(Expr):
    """op in * / % + - |+| |-| << >> < <= > >= == != & ^ | ++ && ||. checker: for << and >>,
    `.int_amount` is True when the amount was an `int` (spec 8.5: it keeps no width)."""
    op: str
    left: Expr
    right: Expr
    int_amount: bool = _checker(False)


@dataclass(slots=True)
class TernaryExpr(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(slots=True)
class CastExpr(Expr):
    """(T) e"""
    type_ref: TypeRef
    expr: Expr


@dataclass(slots=True)
class MethodCallExpr(Expr):
    """callee<type_args>(args). See module doc for the checker's fields."""
    callee: Expr
    type_arg_refs: list = field(default_factory=list)      # TypeRef list as written
    args: list = field(default_factory=list)               # Expr list (Argument for named)
    kind: Optional[str] = _checker()
    builtin: Optional[str] = _checker()
    receiver: Optional[Expr] = _checker()
    method: Any = _checker()
    params: Any = _checker()
    type_args: Any = _checker()
    bindings: Any = _checker()


@dataclass(slots=True)
class Argument(Expr):
    """A named argument `name = expr` (refused by the checker for now) or `_` placeholders."""
    name: Optional[str]
    expr: Expr


@dataclass(slots=True)
class ListExpr(Expr):
    """{a, b, c}: a list/tuple expression (hash data, field lists, struct initialisers)."""
    items: list


@dataclass(slots=True)
class StructInitExpr(Expr):
    """{f = a, g = b}"""
    fields: list          # list of (name, Expr)


@dataclass(slots=True)
class DefaultExpr(Expr):
    """`default` in select cases, entries and switch labels."""


@dataclass(slots=True)
class DontCareExpr(Expr):
    """`_` in keysets (and as an `out` argument)."""


@dataclass(slots=True)
class MaskExpr(Expr):
    """value &&& mask (keysets only)."""
    value: Expr
    mask: Expr


@dataclass(slots=True)
class RangeExpr(Expr):
    """lo .. hi (keysets only)."""
    lo: Expr
    hi: Expr


@dataclass(slots=True)
class TypeNameExpr(Expr):
    """A type used where an expression is expected: `bit<8>` in a call's type argument
    position is a TypeRef, but `error`, `MeterType` in `MeterType.bytes` parse as PathExpr.
    This node is used for e.g. `(bit<8>)` lookups in `lookahead<bit<8>>()` keysets; rare."""
    type_ref: TypeRef


# ================================================================ statements

@dataclass(slots=True)
class Stmt(Node):
    pass


@dataclass(slots=True)
class AssignStmt(Stmt):
    lhs: Expr
    rhs: Expr


@dataclass(slots=True)
class CallStmt(Stmt):
    call: MethodCallExpr


@dataclass(slots=True)
class IfStmt(Stmt):
    cond: Expr
    then: Stmt
    other: Optional[Stmt] = None


@dataclass(slots=True)
class SwitchCase(Node):
    """labels: list of Expr (PathExpr of an action name for action_run switches, constant
    expressions for value switches, DefaultExpr). body None = fall through to the next case."""
    labels: list
    body: Optional["BlockStmt"]


@dataclass(slots=True)
class SwitchStmt(Stmt):
    """checker: `.on_action_run` True for `switch (t.apply().action_run)`; `.table` the
    TableDecl then."""
    expr: Expr
    cases: list
    on_action_run: bool = _checker(False)
    table: Any = _checker()


@dataclass(slots=True)
class ReturnStmt(Stmt):
    value: Optional[Expr] = None


@dataclass(slots=True)
class ExitStmt(Stmt):
    pass


@dataclass(slots=True)
class BlockStmt(Stmt):
    stmts: list
    annotations: list = field(default_factory=list)


@dataclass(slots=True)
class EmptyStmt(Stmt):
    pass


@dataclass(slots=True)
class ForStmt(Stmt):
    """`for (init; cond; updates) body` (P4_16 1.2.4+, spec 12.9). `init` and `updates` are
    lists of VarDecl / AssignStmt / CallStmt; `cond` None means true. Allowed in actions,
    functions and apply blocks, not in parsers; the mid end compiles it to jumps in an action
    body, as p4c's BMv2 back end does (ActionConverter, ForStatement)."""
    init: list
    cond: Optional[Expr]
    updates: list
    body: Stmt


@dataclass(slots=True)
class BreakStmt(Stmt):
    """`break;` inside a for loop: continues after the innermost loop."""


@dataclass(slots=True)
class ContinueStmt(Stmt):
    """`continue;` inside a for loop: runs the innermost loop's updates, then its condition."""


# ================================================================ declarations

@dataclass(slots=True)
class Decl(Stmt):
    """Declarations can appear as statements (VarDecl, ConstDecl in blocks)."""
    name: str
    annotations: list = field(default_factory=list, kw_only=True)


@dataclass(slots=True)
class ConstDecl(Decl):
    """checker: `.folded` for a scalar constant; for a struct-typed one (p4c inlines its value
    at each use) `.fields` lists its field names; uses of the whole constant (or a nested
    struct in it) are replaced by copies of (part of) `.value` after checking
    (lowering.inline_struct_constants), scalar fields `C.f` are folded."""
    type_ref: TypeRef
    value: Expr
    p4type: Any = _checker()
    folded: Any = _checker()
    fields: Any = _checker()


@dataclass(slots=True)
class VarDecl(Decl):
    type_ref: TypeRef
    init: Optional[Expr] = None
    p4type: Any = _checker()


@dataclass(slots=True)
class TypedefDecl(Decl):
    """typedef T name; or (is_newtype) type T name;"""
    type_ref: TypeRef
    is_newtype: bool = False
    p4type: Any = _checker()


@dataclass(slots=True)
class FieldDecl(Decl):
    type_ref: TypeRef
    p4type: Any = _checker()


@dataclass(slots=True)
class HeaderDecl(Decl):
    fields: list                       # FieldDecl
    type_params: list = field(default_factory=list)
    p4type: Any = _checker()


@dataclass(slots=True)
class StructDecl(Decl):
    fields: list
    type_params: list = field(default_factory=list)
    p4type: Any = _checker()


@dataclass(slots=True)
class HeaderUnionDecl(Decl):
    fields: list
    type_params: list = field(default_factory=list)
    p4type: Any = _checker()


@dataclass(slots=True)
class EnumMember(Decl):
    """checker: `.value` int (underlying value, or index for plain enums); `.enum` EnumDecl."""
    init: Optional[Expr] = None
    value: Optional[int] = _checker()
    enum: Any = _checker()


@dataclass(slots=True)
class EnumDecl(Decl):
    underlying: Optional[TypeRef]      # None for `enum E { A, B }`
    members: list                      # EnumMember
    p4type: Any = _checker()


@dataclass(slots=True)
class ErrorMember(Decl):
    """checker: `.code` = index in Program.errors."""
    code: Optional[int] = _checker()


@dataclass(slots=True)
class ErrorDecl(Decl):
    members: list                      # ErrorMember; name is "error"


@dataclass(slots=True)
class MatchKindMember(Decl):
    pass


@dataclass(slots=True)
class MatchKindDecl(Decl):
    members: list                      # MatchKindMember; name is "match_kind"


@dataclass(slots=True)
class Param(Decl):
    """direction: "in" | "out" | "inout" | "" (directionless: action data / constructor)."""
    direction: str
    type_ref: TypeRef
    default: Optional[Expr] = None
    p4type: Any = _checker()
    index: int = _checker(0)


@dataclass(slots=True)
class MethodDecl(Decl):
    """An extern method, extern constructor (return_type None, name == extern name), or a
    top-level extern function (`extern void f(...)`; `is_function` True).
    checker: `.signature` (types.Method), `.extern` (the ExternDecl or None)."""
    return_type: Optional[TypeRef]
    type_params: list                  # names
    params: list                       # Param
    is_abstract: bool = False
    is_function: bool = False
    signature: Any = _checker()
    extern: Any = _checker()


@dataclass(slots=True)
class ExternDecl(Decl):
    type_params: list                  # names
    methods: list                      # MethodDecl (constructors included)
    p4type: Any = _checker()


@dataclass(slots=True)
class FunctionDecl(Decl):
    """A P4 function with a body (spec 10.x). Non-generic functions are inlined at their
    calls before checking (inline_functions.py) and marked `.inlined`; the mid end never
    sees a call. Generic ones are refused by the checker."""
    return_type: TypeRef
    type_params: list
    params: list
    body: BlockStmt
    inlined: bool = field(default=False, kw_only=True, compare=False, repr=False)
    # set by inline_functions.py when every call was inlined before checking
    signature: Any = _checker()       # types.Method, for calls inside function bodies


@dataclass(slots=True)
class ParserTypeDecl(Decl):
    """`parser P<H>(...);` without a body (architecture declarations)."""
    type_params: list
    params: list
    p4type: Any = _checker()


@dataclass(slots=True)
class ControlTypeDecl(Decl):
    type_params: list
    params: list
    p4type: Any = _checker()


@dataclass(slots=True)
class PackageTypeDecl(Decl):
    type_params: list
    params: list
    p4type: Any = _checker()


@dataclass(slots=True)
class ActionDecl(Decl):
    """checker: `.signature` (types.Method); `.control` the enclosing ControlDecl or None."""
    params: list
    body: BlockStmt
    signature: Any = _checker()
    control: Any = _checker()


@dataclass(slots=True)
class Instantiation(Decl):
    """`T<args>(ctor args) name;` e.g. `register<bit<32>>(1024) r;`, `V1Switch(...) main;`.
    checker: `.p4type` (types.Specialized/Extern/ParserType/... ), `.decl_type` the type's
    declaration node (ExternDecl, ParserDecl, ControlDecl, PackageTypeDecl)."""
    type_ref: TypeRef
    args: list
    p4type: Any = _checker()
    decl_type: Any = _checker()


@dataclass(slots=True)
class ValueSetDecl(Decl):
    """`value_set<T>(size) name;` (parser value sets, spec 12.11)."""
    element: TypeRef
    size: Expr
    p4type: Any = _checker()


# ---- parsers

@dataclass(slots=True)
class SelectCase(Node):
    """keyset: list of Expr, one per select expression (or a single DefaultExpr/DontCareExpr
    covering all). `state` is a PathExpr whose `.decl` is the ParserState (or the builtin
    accept/reject states, which are ParserState nodes the checker creates, with
    `.builtin` True)."""
    keyset: list
    state: PathExpr


@dataclass(slots=True)
class SelectExpr(Expr):
    exprs: list
    cases: list


@dataclass(slots=True)
class ParserState(Decl):
    """transition: a PathExpr (direct transition), a SelectExpr, or None (only for the
    builtin accept/reject states)."""
    stmts: list
    transition: Optional[Expr]
    builtin: bool = False


@dataclass(slots=True)
class ParserDecl(Decl):
    type_params: list
    params: list
    ctor_params: list
    locals: list           # VarDecl, ConstDecl, Instantiation, ValueSetDecl
    states: list           # ParserState
    p4type: Any = _checker()


# ---- controls and tables

@dataclass(slots=True)
class KeyElement(Node):
    expr: Expr
    match_kind: str
    annotations: list = field(default_factory=list)
    match_kind_pos: Optional[Pos] = None


@dataclass(slots=True)
class ActionRef(Node):
    """An action in a table's `actions`, `default_action` or an entry: name and arguments.
    checker: `.action` the ActionDecl.
    `.prelude` (set by inline_functions.py, in the actions list only): statements in the
    control's scope that run when the action is invoked, before its body; they compute the
    bound arguments that contained function calls, now control-local variables."""
    name: PathExpr
    args: list = field(default_factory=list)
    has_parens: bool = False
    annotations: list = field(default_factory=list)
    prelude: list = field(default_factory=list, kw_only=True)
    action: Any = _checker()


@dataclass(slots=True)
class TableProperty(Node):
    name: str
    is_const: bool = False
    annotations: list = field(default_factory=list, kw_only=True)


@dataclass(slots=True)
class KeyProperty(TableProperty):
    elements: list = field(default_factory=list)     # KeyElement


@dataclass(slots=True)
class ActionsProperty(TableProperty):
    actions: list = field(default_factory=list)      # ActionRef


@dataclass(slots=True)
class DefaultActionProperty(TableProperty):
    action: Optional[ActionRef] = None


@dataclass(slots=True)
class Entry(Node):
    """A (const) entry: keyset (one Expr per key element), action, optional priority (from
    `priority = N :` or an `@priority(N)` annotation); `is_const` for a `const` entry."""
    keyset: list
    action: ActionRef
    priority: Optional[Expr] = None
    annotations: list = field(default_factory=list)
    is_const: bool = field(default=False, kw_only=True)


@dataclass(slots=True)
class EntriesProperty(TableProperty):
    entries: list = field(default_factory=list)


@dataclass(slots=True)
class ExprProperty(TableProperty):
    """size, counters, meters, implementation, support_timeout, ... = value"""
    value: Optional[Expr] = None


@dataclass(slots=True)
class TableDecl(Decl):
    properties: list
    p4type: Any = _checker()
    control: Any = _checker()

    def prop(self, name: str) -> Optional[TableProperty]:
        for p in self.properties:
            if p.name == name:
                return p
        return None

    @property
    def key(self) -> list:
        p = self.prop("key")
        return p.elements if p is not None else []

    @property
    def actions(self) -> list:
        p = self.prop("actions")
        return p.actions if p is not None else []

    @property
    def default_action(self) -> Optional[DefaultActionProperty]:
        return self.prop("default_action")

    @property
    def entries(self) -> Optional[EntriesProperty]:
        return self.prop("entries")


@dataclass(slots=True)
class ControlDecl(Decl):
    type_params: list
    params: list
    ctor_params: list
    locals: list           # VarDecl, ConstDecl, Instantiation, ActionDecl, TableDecl
    body: BlockStmt
    p4type: Any = _checker()
    inlined_only: bool = field(default=False, kw_only=True, compare=False, repr=False)
    # set by inline_controls.py: a control with constructor parameters whose every
    # instance was inlined (with its arguments substituted); checked as a template only


# ================================================================ program

@dataclass(slots=True)
class Program(Node):
    decls: list
    errors: list = _checker(None)          # error names, code = index
    match_kinds: Any = _checker(None)      # set of names
    main: Optional[Instantiation] = _checker()
    scope: Any = _checker()                # top-level name -> decl (for the mid end)
    all_annotations: list = field(default_factory=list, kw_only=True, compare=False,
                                  repr=False)  # every Annotation node, in source order

    def find(self, kind, name: Optional[str] = None):
        """The declarations of a node class (optionally with a given name), in order."""
        return [d for d in self.decls if isinstance(d, kind) and (name is None or d.name == name)]


# ================================================================ traversal

_CHECKER_FIELDS = frozenset({"type", "folded", "decl", "kind", "builtin", "receiver", "method",
                             "params", "type_args", "bindings", "resolved", "p4type", "signature",
                             "extern", "action", "control", "table", "enum", "scope", "main",
                             "errors", "match_kinds", "decl_type", "value", "code", "index",
                             "folded_index", "hi_value", "lo_value", "on_action_run",
                             "all_annotations", "member_pos", "int_amount"})


_CHILD_FIELDS: dict = {}


def _child_fields(cls) -> tuple:
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dc_fields(cls)
                      if not (f.kw_only and f.name in _CHECKER_FIELDS)
                      and f.name not in ("pos", "match_kind_pos"))
        _CHILD_FIELDS[cls] = names
    return names


def children(node) -> list:
    """The syntax children of a node (nodes written in the source, in field order); values the
    checker filled in (`.decl`, `.type`, ...) are not children."""
    out = []
    for name in _child_fields(type(node)):
        v = getattr(node, name)
        if isinstance(v, Node):
            out.append(v)
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, Node):
                    out.append(x)
                elif isinstance(x, tuple):          # StructInitExpr fields (name, expr)
                    out.extend(y for y in x if isinstance(y, Node))
        elif isinstance(v, dict):
            out.extend(x for x in v.values() if isinstance(x, Node))
    return out


def copy_syntax(node):
    """A deep copy of a subtree's syntax that shares what the checker filled in (`.decl`,
    `.type`, ...) with the original: a copy of a checked default value keeps naming the same
    declarations and types (types compare by identity)."""
    memo: dict = {}
    for n in walk(node):
        own = set(_child_fields(type(n)))
        for f in dc_fields(n):
            if f.name in own:
                continue
            v = getattr(n, f.name, None)
            if v is not None and not isinstance(v, (str, int, float, bool)):
                memo[id(v)] = v
    return copy.deepcopy(node, memo)


def walk(node):
    """All nodes of a subtree, parents before children (iterative: deep trees are fine)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(children(n)))
