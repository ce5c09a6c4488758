"""The lowered program: what the mid end produces and the back end serialises.

Every object here corresponds one to one to an object of BMv2's JSON format
(behavioral-model docs/JSON_format.md): header types and instances, parse states, actions
as primitive lists, tables and conditionals, extern arrays, calculations and checksums.
What remains typed is the expression: each node carries its P4 type (`Bits` or `BOOL`), so
the back end can add the masks, `two_comp_mod`, `d2b`/`b2d` conversions BMv2 needs.
Names are final BMv2 names (header instance "ipv4", table "MyIngress.ipv4_lpm"); ids are
assigned by the back end.
"""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from typing import Optional, Union


# ---------------------------------------------------------------- types

@dataclass(frozen=True)
class Bits:
    """bit<width> (signed=False) or int<width> (signed=True)."""
    width: int
    signed: bool = False

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1


@dataclass(frozen=True)
class BoolType:
    width: int = 1
    signed: bool = False


BOOL = BoolType()


@dataclass(frozen=True)
class Varbit:
    """varbit<max_width> (spec 7.1.6.5): a header's variable-length field, BMv2 field "*".
    Its value and current length move together: extracted by `extract_VL`, copied by the
    `assign_VL` primitive, compared by == and != only. `width` is the maximum."""
    max_width: int
    signed: bool = False

    @property
    def width(self) -> int:
        return self.max_width


Type = Union[Bits, BoolType, Varbit]


# ---------------------------------------------------------------- expressions

class Expr:
    type: Type


@dataclass(frozen=True)
class Const(Expr):
    value: int           # the P4 value (negative allowed for int<W>)
    type: Type


@dataclass(frozen=True)
class FieldRef(Expr):
    """A field of a header instance; bool-typed fields are stored in 1 bit."""
    header: str
    field: str
    type: Type


@dataclass(frozen=True)
class ValidRef(Expr):
    """header.isValid()."""
    header: str
    type: Type = BOOL


@dataclass(frozen=True)
class ElementValid(Expr):
    """stack[i].isValid() with i known only at run time, or stack.last.isValid() outside a
    parser: BMv2's `valid` operation on a dereference_header_stack header operand."""
    element: "StackElementArg"
    type: Type = BOOL


@dataclass(frozen=True)
class StackLastField(Expr):
    """stack.last.field inside a parser (BMv2 "stack_field")."""
    stack: str
    field: str
    type: Type


@dataclass(frozen=True)
class UnionStackLastField(Expr):
    """stack.last.member.field of a header union stack, as a parser select key only (BMv2
    "union_stack_field", which JSON_format.md allows in a transition_key and nowhere else)."""
    stack: str
    member: str
    field: str
    type: Type


@dataclass(frozen=True)
class StackElementField(Expr):
    """stack[index].field with an index known only at run time, or stack.last.field outside a
    parser (index None): BMv2 access_field(dereference_header_stack(...), offset)."""
    stack: str
    index: Optional[Expr]
    field: str
    offset: int           # position of the field in the header type
    type: Type


@dataclass(frozen=True)
class ParamRef(Expr):
    """Action parameter number `index` (BMv2 runtime data)."""
    index: int
    type: Type


@dataclass(frozen=True)
class Unary(Expr):
    op: str              # "~", "neg", "!"
    operand: Expr
    type: Type


@dataclass(frozen=True)
class Binary(Expr):
    # arithmetic + - * / % << >> & | ^ |+| |-| ++ ; comparisons == != < <= > >= ; && ||
    op: str
    left: Expr
    right: Expr
    type: Type


@dataclass(frozen=True)
class Slice(Expr):
    operand: Expr
    hi: int
    lo: int
    type: Type


@dataclass(frozen=True)
class Cast(Expr):
    operand: Expr
    type: Type


@dataclass(frozen=True)
class Mux(Expr):
    cond: Expr
    then: Expr
    other: Expr
    type: Type


@dataclass(frozen=True)
class Lookahead(Expr):
    """W bits of the packet at `offset` bits past the parser's position, not consumed:
    lookahead<bit<W>>(), or a field of lookahead<H>() (parser `set` and keys only)."""
    type: Type
    offset: int = 0


# ---------------------------------------------------------------- primitive arguments

@dataclass(frozen=True)
class HeaderArg:
    name: str


@dataclass(frozen=True)
class StackArg:
    name: str


@dataclass(frozen=True)
class UnionStackArg:
    """An extract target `stack.next.member` of a header union stack (BMv2 extract type
    "union_stack", value [stack, member])."""
    stack: str
    member: str


@dataclass(frozen=True)
class StackElementArg:
    """A whole element of a stack as a header operand: stack[index] with the index known only
    at run time, or stack.last (index None). BMv2: the expression
    dereference_header_stack(stack, index | last_stack_index(stack)) (JSON_format.md)."""
    stack: str
    index: Optional[Expr]


@dataclass(frozen=True)
class StackLastIndex(Expr):
    """stack.lastIndex (P4_16 spec 8.18): BMv2's last_stack_index(stack), a bit<32>; of a
    header union stack when `union` (the operand is then a header_union_stack)."""
    stack: str
    type: Type
    union: bool = False


@dataclass(frozen=True)
class NamedArg:
    """A named object: register_array, counter_array, meter_array, calculation, extern."""
    kind: str
    name: str


@dataclass(frozen=True)
class StringArg:
    value: str


@dataclass(frozen=True)
class VectorArg:
    items: tuple


@dataclass(frozen=True)
class DataArg:
    """An integer primitive argument printed as a plain hexstr (field-list id, session)."""
    value: int
    width: int = 32


Arg = Union[Expr, HeaderArg, StackArg, NamedArg, StringArg, VectorArg, DataArg]


@dataclass
class SourceInfo:
    filename: str
    line: int
    column: int
    fragment: str


@dataclass
class Primitive:
    op: str
    args: list
    source: Optional[SourceInfo] = None


@dataclass
class Label:
    """A jump target inside an action body; the back end turns it into an index."""
    name: str


@dataclass
class Jump:
    target: Label


@dataclass
class JumpIfFalse:
    """Jump to target unless cond (a BOOL expression) holds: BMv2 `_jump_if_zero`."""
    cond: Expr
    target: Label


ActionItem = Union[Primitive, Label, Jump, JumpIfFalse]


# ---------------------------------------------------------------- program objects

@dataclass
class HeaderType:
    name: str
    fields: list          # [(name, width, signed)]; a varbit field's width is its maximum
    varbit: Optional[str] = None   # the name of the one varbit field, if any (BMv2 "*")


@dataclass
class HeaderInstance:
    name: str
    type_name: str
    metadata: bool


@dataclass
class HeaderUnion:
    """A header_union instance (JSON_format.md "header_unions"): its members are ordinary
    header instances ("u.h1", "u.h2"); at most one of them is valid at a time."""
    name: str
    type_name: str
    members: list         # [(member name, header instance name)] in declaration order


@dataclass
class HeaderUnionType:
    """JSON_format.md "header_union_types": member name -> header type name."""
    name: str
    members: list         # [(member name, header type name)]


@dataclass
class HeaderStack:
    name: str
    type_name: str
    elements: list        # header instance names, [0] first


@dataclass
class HeaderUnionStack:
    """JSON_format.md "header_union_stacks": a stack whose elements are header unions."""
    name: str
    type_name: str        # the header_union type
    elements: list        # header union names ("u[0]", ...), [0] first


@dataclass
class Transition:
    values: Optional[list]     # one int per key field; None = default (or a value set)
    masks: Optional[list]      # one int per key field, or None (exact)
    next_state: Optional[str]  # None = accept / end
    value_set: Optional[str] = None   # the keyset is this parser value set (BMv2 parse_vset)


@dataclass
class ParseValueSet:
    """value_set<T>(size) (spec 12.11): JSON_format.md "parse_vsets"."""
    name: str
    bitwidth: int         # of T (the sum of a struct's fields), as p4c's compressed_bitwidth
    size: int


@dataclass
class ParserOp:
    op: str               # extract, extract_VL, set, verify, advance, primitive
    args: list            # extract_VL: [HeaderArg | StackArg, Expr length in bits]


@dataclass
class ParseState:
    name: str
    ops: list = dc_field(default_factory=list)
    key: list = dc_field(default_factory=list)      # [Expr] fields / stack fields
    key_widths: list = dc_field(default_factory=list)
    transitions: list = dc_field(default_factory=list)
    source: Optional[SourceInfo] = None


@dataclass
class Parser:
    name: str
    init_state: str
    states: list


@dataclass
class Deparser:
    name: str
    order: list
    source: Optional[SourceInfo] = None


@dataclass
class RegisterArray:
    name: str
    size: int
    bitwidth: int
    source: Optional[SourceInfo] = None


@dataclass
class CounterArray:
    name: str
    size: int
    is_direct: bool
    binding: Optional[str] = None
    source: Optional[SourceInfo] = None


@dataclass
class MeterArray:
    name: str
    size: int
    type: str             # "bytes" | "packets"
    is_direct: bool
    binding: Optional[str] = None
    result_target: Optional[FieldRef] = None
    source: Optional[SourceInfo] = None


@dataclass
class Calculation:
    name: str
    algo: str
    inputs: list          # [Expr] (FieldRef or Const) or the string "payload"
    source: Optional[SourceInfo] = None


@dataclass
class FieldList:
    id: int
    name: str
    fields: list          # [FieldRef]


@dataclass
class LearnList:
    id: int
    name: str
    fields: list


# Several actions may share one JSON name (as in p4c's output: one copy per table binding its
# directional arguments differently, spec 14.2.1.2); inside the IR each copy is named
# "<json name>#<n>" so that tables, defaults and entries keep referring to their own copy.
ACTION_COPY_SEP = "#"


def json_action_name(name: str) -> str:
    """The JSON name of an IR action name (a copy's "#<n>" suffix removed)."""
    return name.partition(ACTION_COPY_SEP)[0]


@dataclass
class Action:
    name: str             # unique in the program; json_action_name() gives the JSON one
    params: list          # [(name, width)]
    body: list            # [ActionItem]
    source: Optional[SourceInfo] = None


@dataclass
class TableKey:
    match_type: str       # exact | lpm | ternary | range
    name: str             # as p4c prints it: "hdr.ipv4.dstAddr"
    target: Expr          # FieldRef or ValidRef
    mask: Optional[int] = None


@dataclass
class ActionCall:
    action: str
    data: list            # [int] action data
    widths: list          # [int] widths of the data


@dataclass
class Entry:
    keys: list            # [dict] already in BMv2 match_key form but with ints
    action: ActionCall
    priority: int


@dataclass
class Table:
    name: str
    keys: list
    actions: list         # action names
    size: int
    default: Optional[ActionCall]
    default_const: bool
    entries: Optional[list] = None
    next_tables: dict = dc_field(default_factory=dict)   # action name or __HIT__/__MISS__ -> node
    base_default_next: Optional[str] = None
    with_counters: bool = False
    support_timeout: bool = False
    direct_meters: Optional[str] = None
    source: Optional[SourceInfo] = None
    # "simple", or "indirect" / "indirect_ws" for a table whose `implementation` is an
    # action_profile / action_selector named `action_profile` (JSON_format.md "tables")
    type: str = "simple"
    action_profile: Optional[str] = None


@dataclass
class ActionProfile:
    """A pipeline's action profile (JSON_format.md "action_profiles"); a selector's inputs
    are the keys of match kind `selector` of the table using it."""
    name: str
    size: int
    selector_algo: Optional[str] = None
    selector_inputs: list = dc_field(default_factory=list)     # [FieldRef]
    source: Optional[SourceInfo] = None


@dataclass
class Conditional:
    name: str
    cond: Expr
    true_next: Optional[str]
    false_next: Optional[str]
    source: Optional[SourceInfo] = None


@dataclass
class Pipeline:
    name: str
    init: Optional[str]
    tables: list
    conditionals: list
    source: Optional[SourceInfo] = None
    action_profiles: list = dc_field(default_factory=list)   # [ActionProfile]


@dataclass
class Checksum:
    name: str
    target: FieldRef
    calculation: str
    verify: bool
    update: bool
    cond: Optional[Expr]
    source: Optional[SourceInfo] = None


@dataclass
class Program:
    program_name: str
    header_types: list = dc_field(default_factory=list)
    headers: list = dc_field(default_factory=list)
    stacks: list = dc_field(default_factory=list)
    # header unions, for the back end's "header_union_types"/"header_unions"/
    # "header_union_stacks" (a union stack extract needs them); the mid end also keeps the
    # one-valid-member rule with explicit setInvalid primitives where it knows the member
    header_union_types: list = dc_field(default_factory=list)
    header_unions: list = dc_field(default_factory=list)
    header_union_stacks: list = dc_field(default_factory=list)
    errors: list = dc_field(default_factory=list)       # [(name, value)]
    enums: list = dc_field(default_factory=list)        # [(name, [(member, value)])]
    parsers: list = dc_field(default_factory=list)
    parse_vsets: list = dc_field(default_factory=list)   # [ParseValueSet]
    deparsers: list = dc_field(default_factory=list)
    meters: list = dc_field(default_factory=list)
    counters: list = dc_field(default_factory=list)
    registers: list = dc_field(default_factory=list)
    calculations: list = dc_field(default_factory=list)
    field_lists: list = dc_field(default_factory=list)
    learn_lists: list = dc_field(default_factory=list)
    actions: list = dc_field(default_factory=list)
    pipelines: list = dc_field(default_factory=list)
    checksums: list = dc_field(default_factory=list)
    field_aliases: list = dc_field(default_factory=list)  # [(alias, (header, field))]
