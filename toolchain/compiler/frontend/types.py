"""P4_16 types as the type checker computes them (P4_16 spec section 7, "P4 data types").

After `parse_and_check`, every expression node has `.type` set to one of these classes, every
`TypeRef` syntax node has `.resolved` set, and typedef/`type` names are gone: a `typedef
bit<9> PortId_t` field simply has type `Bits(9)`. (A `type` declaration -- the spec's new
type -- is treated like a typedef: programs that are valid P4 mean the same; we accept a few
programs p4c would reject for a missing cast.)

Identity rules the back end may rely on:
 * `Bits`, `Varbit`, `Stack`, `Tuple` and the singletons compare by value (`Bits(8) == Bits(8)`).
 * Named types (`Header`, `Struct`, `HeaderUnion`, `Enum`, `Extern`, `ParserType`,
   `ControlType`, `PackageType`) compare by identity of their declaration: `t.decl` is the AST
   declaration node, `t.name` its name. Their members are available in declaration order.
 * `Specialized(base, args)` is a generic extern/parser/control/package type with its type
   arguments bound, e.g. `register<bit<32>>` = `Specialized(Extern(register), (Bits(32),))`.
   `Instantiation.type` of `register<bit<32>>(1024) r;` is that specialized type.

Literal typing: an integer literal without a width prefix has type `INT` (the spec's
arbitrary-precision `int`); the checker gives it the width of the other operand where the
spec allows the implicit cast (spec 8.9.2 / 8.11) and then its `.type` is that `Bits`.
A compile-time-known expression also has `.folded` (an int or bool) set, and the back end
should emit such an expression as the constant `.folded` of type `.type`.

Generic extern functions: a type variable bound only by `int` arguments stays `INT` (e.g.
`hash(..., 0, data, 1024)` gives the base and max arguments type `int` with `.folded` set);
v1model's primitives take such arguments as plain numbers.

Serializable enums (`enum bit<16> E {...}`): expressions of that enum type have `.type` =
the `Enum` (its `.underlying` is the bit type) and, for members, `.folded` = the member's value;
they convert implicitly to the underlying type (spec 8.3), so the back end can treat an
`Enum` with an underlying type exactly as that `Bits`. Members of plain enums have `.folded` =
their index (also `MemberExpr.decl.value`); error members `.folded` = their code.
"""
from __future__ import annotations

from typing import Optional

MAX_WIDTH = 1 << 16          # bits of bit<W>/int<W>; far beyond any header, small enough to fold


class P4Type:
    """Base of all types. `name` is what error messages print."""
    __slots__ = ()

    @property
    def name(self) -> str:  # pragma: no cover - overridden
        return type(self).__name__

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<{self.name}>"

    # ---- categories used by the checker and the back end
    @property
    def is_bits(self) -> bool:
        return False

    @property
    def width_bits(self) -> Optional[int]:
        """Fixed width in bits of a serializable type, None otherwise (spec 7.2.2)."""
        return None


class _Singleton(P4Type):
    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    @property
    def name(self) -> str:
        return self._name


class Bits(P4Type):
    """bit<W> (signed=False) or int<W> (signed=True), W >= 1."""
    __slots__ = ("width", "signed")

    def __init__(self, width: int, signed: bool = False):
        self.width = width
        self.signed = signed

    @property
    def name(self) -> str:
        return f"{'int' if self.signed else 'bit'}<{self.width}>"

    @property
    def is_bits(self) -> bool:
        return True

    @property
    def width_bits(self) -> int:
        return self.width

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1

    def __eq__(self, other) -> bool:
        return isinstance(other, Bits) and other.width == self.width and other.signed == self.signed

    def __hash__(self) -> int:
        return hash(("bits", self.width, self.signed))


class Varbit(P4Type):
    """varbit<W>: parsed and typed; header fields of this type are refused by the back end."""
    __slots__ = ("max_width",)

    def __init__(self, max_width: int):
        self.max_width = max_width

    @property
    def name(self) -> str:
        return f"varbit<{self.max_width}>"

    def __eq__(self, other) -> bool:
        return isinstance(other, Varbit) and other.max_width == self.max_width

    def __hash__(self) -> int:
        return hash(("varbit", self.max_width))


class IntLiteralType(_Singleton):
    """The spec's `int`: arbitrary precision, compile-time only."""
    __slots__ = ()


class BoolType(_Singleton):
    __slots__ = ()

    @property
    def width_bits(self) -> int:
        return 1


INT = IntLiteralType("int")
BOOL = BoolType("bool")
STRING = _Singleton("string")
VOID = _Singleton("void")
DONTCARE = _Singleton("_")          # the type of `_` and `default` in keysets
ERROR = _Singleton("error")          # all error constants; members listed in Program.errors
MATCH_KIND = _Singleton("match_kind")
STATE = _Singleton("state")          # a parser state name (accept/reject/user states)
UNKNOWN = _Singleton("<unknown>")    # after an error; suppresses follow-up errors


class Named(P4Type):
    """A type introduced by a declaration; compares by identity."""
    __slots__ = ("decl", "_name")

    def __init__(self, name: str, decl):
        self._name = name
        self.decl = decl

    @property
    def name(self) -> str:
        return self._name


class StructLike(Named):
    """header / struct / header_union: ordered fields (name -> type)."""
    __slots__ = ("fields",)
    kind = "struct"

    def __init__(self, name: str, decl, fields: Optional[dict] = None):
        super().__init__(name, decl)
        self.fields: dict[str, P4Type] = fields if fields is not None else {}

    def field(self, name: str) -> Optional[P4Type]:
        return self.fields.get(name)

    @property
    def width_bits(self) -> Optional[int]:
        total = 0
        for t in self.fields.values():
            w = t.width_bits
            if w is None:
                return None
            total += w
        return total


class Struct(StructLike):
    __slots__ = ()
    kind = "struct"


class Header(StructLike):
    __slots__ = ()
    kind = "header"


class HeaderUnion(StructLike):
    __slots__ = ()
    kind = "header_union"


class Enum(Named):
    """enum E { A, B } (underlying None) or enum bit<8> E { A = 1 } (serializable, spec 7.2.1).

    `members` maps member name -> value (int for serializable enums, index otherwise)."""
    __slots__ = ("underlying", "members")

    def __init__(self, name: str, decl, underlying: Optional[Bits] = None):
        super().__init__(name, decl)
        self.underlying = underlying
        self.members: dict[str, int] = {}

    @property
    def width_bits(self) -> Optional[int]:
        return self.underlying.width if self.underlying is not None else None


class Stack(P4Type):
    """A header stack h[N] (spec 8.18)."""
    __slots__ = ("element", "size")

    def __init__(self, element: P4Type, size: int):
        self.element = element
        self.size = size

    @property
    def name(self) -> str:
        return f"{self.element.name}[{self.size}]"

    @property
    def width_bits(self) -> Optional[int]:
        w = self.element.width_bits
        return None if w is None else w * self.size

    def __eq__(self, other) -> bool:
        return isinstance(other, Stack) and other.element == self.element and other.size == self.size

    def __hash__(self) -> int:
        return hash(("stack", id(self.element), self.size))


class Tuple(P4Type):
    """tuple<...> and the type of a list expression `{a, b}` (spec 8.12)."""
    __slots__ = ("elements",)

    def __init__(self, elements):
        self.elements = tuple(elements)

    @property
    def name(self) -> str:
        return "tuple<" + ", ".join(e.name for e in self.elements) + ">"

    def __eq__(self, other) -> bool:
        return isinstance(other, Tuple) and other.elements == self.elements

    def __hash__(self) -> int:
        return hash(("tuple", self.elements))

    @property
    def width_bits(self) -> Optional[int]:
        total = 0
        for t in self.elements:
            w = t.width_bits
            if w is None:
                return None
            total += w
        return total


class TypeVar(Named):
    """A type parameter of a generic declaration (`T` in `extern register<T>`); decl is the
    declaring node."""
    __slots__ = ()


class Param:
    """A parameter of a method, action, parser, control or package type."""
    __slots__ = ("name", "direction", "type", "decl", "has_default")

    def __init__(self, name: str, direction: str, type_: P4Type, decl=None, has_default=False):
        self.name = name
        self.direction = direction      # "in" | "out" | "inout" | "" (directionless)
        self.type = type_
        self.decl = decl
        self.has_default = has_default

    def __repr__(self) -> str:
        return f"{self.direction + ' ' if self.direction else ''}{self.type} {self.name}"


class Method(P4Type):
    """The type of an extern method, extern function, action, or P4 function.
    `decl` is the AST node (MethodDecl / ActionDecl / FunctionDecl)."""
    __slots__ = ("_name", "type_params", "params", "return_type", "decl")

    def __init__(self, name, type_params, params, return_type, decl=None):
        self._name = name
        self.type_params: tuple = tuple(type_params)
        self.params: list[Param] = list(params)
        self.return_type: P4Type = return_type
        self.decl = decl

    @property
    def name(self) -> str:
        return self._name


class Extern(Named):
    """extern X<T...> { X(...); R m(...); }: constructors and (overloaded) methods by name."""
    __slots__ = ("type_params", "constructors", "methods")

    def __init__(self, name: str, decl):
        super().__init__(name, decl)
        self.type_params: tuple = ()
        self.constructors: list[Method] = []
        self.methods: dict[str, list[Method]] = {}


class ParserType(Named):
    """A parser type or parser declaration: its apply parameters (and constructor params)."""
    __slots__ = ("type_params", "params", "ctor_params")

    def __init__(self, name, decl):
        super().__init__(name, decl)
        self.type_params: tuple = ()
        self.params: list[Param] = []
        self.ctor_params: list[Param] = []


class ControlType(ParserType):
    __slots__ = ()


class PackageType(ParserType):
    __slots__ = ()


class Specialized(P4Type):
    """A generic named type with type arguments bound (register<bit<32>>, V1Switch<H, M>)."""
    __slots__ = ("base", "args")

    def __init__(self, base: Named, args):
        self.base = base
        self.args = tuple(args)

    @property
    def name(self) -> str:
        return f"{self.base.name}<" + ", ".join(a.name for a in self.args) + ">"

    @property
    def bindings(self) -> dict:
        return {tv: a for tv, a in zip(self.base.type_params, self.args)}

    def __eq__(self, other) -> bool:
        return isinstance(other, Specialized) and other.base is self.base and other.args == self.args

    def __hash__(self) -> int:
        return hash(("spec", id(self.base), self.args))


class Table(Named):
    """A table instance; `t.apply()` has type `ApplyResult(table)`."""
    __slots__ = ()


class ApplyResult(P4Type):
    """Result of table.apply(): members hit/miss (bool) and action_run (ActionEnum)."""
    __slots__ = ("table",)

    def __init__(self, table):
        self.table = table

    @property
    def name(self) -> str:
        return f"apply_result({self.table.name})"


class ActionEnum(P4Type):
    """The type of `t.apply().action_run`: switch labels are the table's action names."""
    __slots__ = ("table",)

    def __init__(self, table):
        self.table = table

    @property
    def name(self) -> str:
        return f"action_list({self.table.name})"


class SetType(P4Type):
    """A keyset (`a &&& m`, `a .. b`) or a value_set<T>: matches values of `element`."""
    __slots__ = ("element",)

    def __init__(self, element: P4Type):
        self.element = element

    @property
    def name(self) -> str:
        return f"set<{self.element.name}>"


# ---------------------------------------------------------------- helpers

def is_header_like(t: P4Type) -> bool:
    return isinstance(t, (Header, HeaderUnion))


def strip_specialization(t: P4Type) -> P4Type:
    return t.base if isinstance(t, Specialized) else t


def substitute(t: P4Type, bindings: dict) -> P4Type:
    """Replace type variables by their bound types (bindings: TypeVar -> P4Type)."""
    if isinstance(t, TypeVar):
        return bindings.get(t, t)
    if isinstance(t, Stack):
        return Stack(substitute(t.element, bindings), t.size)
    if isinstance(t, Tuple):
        return Tuple(substitute(e, bindings) for e in t.elements)
    if isinstance(t, Specialized):
        return Specialized(t.base, (substitute(a, bindings) for a in t.args))
    return t
