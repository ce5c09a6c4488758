"""State shared by the mid-end passes of one compilation."""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Optional

from ..diagnostics import Diagnostics, Pos
from ..frontend import ast, types as T
from . import ir
from .names import Counter, NameGenerator
from .scalars import ScalarAllocator
from .unsupported import Unsupported

P4INCLUDE = Path(__file__).resolve().parent.parent / "p4include"


def ir_type(t, pos: Optional[Pos] = None) -> ir.Type:
    """The BMv2 representation of a P4 scalar type."""
    if isinstance(t, T.Bits):
        return ir.Bits(t.width, t.signed)
    if isinstance(t, T.BoolType):
        return ir.BOOL
    if isinstance(t, T.Enum):
        # serializable enums are their underlying type; plain enums are 32-bit codes, as
        # errors are (p4c gives both 32 bits in BMv2 JSON)
        return ir.Bits(t.underlying.width, t.underlying.signed) if t.underlying else ir.Bits(32)
    if t is T.ERROR:
        return ir.Bits(32)
    if isinstance(t, T.Varbit):
        return ir.Varbit(t.max_width)
    raise Unsupported(pos, f"values of type {t} are not supported by the BMv2 back end")


STATEMENT_NAMES = {"IfStmt": "an if statement", "AssignStmt": "an assignment",
                   "SwitchStmt": "a switch statement", "VarDecl": "a variable declaration",
                   "ConstDecl": "a constant declaration", "ExitStmt": "exit",
                   "ReturnStmt": "return", "CallStmt": "a call"}


_labels = count()


def fresh_label(base: str) -> ir.Label:
    """A jump target no other label of the compilation has."""
    return ir.Label(f"{base}_{next(_labels)}")


def folded_int(e: ast.Expr, what: str) -> int:
    """The compile-time integer value of `e` (folded by the checker), else a refusal."""
    v = getattr(e, "folded", None)
    if not isinstance(v, int) or isinstance(v, bool):
        raise Unsupported(e.pos, f"{what} must be a compile-time constant")
    return v


def construct_name(stmt) -> str:
    """How an error message names a statement ("an if statement", "a call of f")."""
    name = type(stmt).__name__
    call = getattr(stmt, "call", None)
    if call is not None:
        callee = getattr(call, "callee", None)
        member = getattr(callee, "member", None) or getattr(callee, "name", None)
        if member:
            return f"a call of {member}"
    return STATEMENT_NAMES.get(name, name)


def source_info(node, fragment: str = "") -> Optional[ir.SourceInfo]:
    pos = getattr(node, "pos", None)
    if pos is None or pos.line == 0:
        return None
    return ir.SourceInfo(Path(pos.file).name, pos.line, pos.col, fragment)


def is_library_node(node) -> bool:
    """Declared in the project's core.p4 / v1model.p4 (not part of the user's program)."""
    pos = getattr(node, "pos", None)
    return pos is not None and Path(pos.file).resolve().parent == P4INCLUDE


@dataclass
class Blocks:
    """The six V1Switch blocks (ast declarations)."""
    parser: ast.ParserDecl
    verify: ast.ControlDecl
    ingress: ast.ControlDecl
    egress: ast.ControlDecl
    compute: ast.ControlDecl
    deparser: ast.ControlDecl


@dataclass
class Context:
    program: ast.Program
    diags: Diagnostics
    out: ir.Program
    blocks: Optional[Blocks] = None
    storage: object = None                  # storage.Storage
    scalars: ScalarAllocator = field(default_factory=ScalarAllocator)
    action_names: NameGenerator = field(default_factory=NameGenerator)
    node_counter: Counter = field(default_factory=Counter)
    calc_names: NameGenerator = field(default_factory=NameGenerator)
    # ActionDecl (by id) -> JSON action name, for actions used by tables
    action_json_names: dict = field(default_factory=dict)
    action_copies: dict = field(default_factory=dict)    # JSON action name -> copies made
    # extern Instantiation (by id) -> (kind, JSON name)
    extern_instances: dict = field(default_factory=dict)
    # direct meter JSON name -> MeterArray (result_target is filled by action lowering)
    direct_meters: dict = field(default_factory=dict)
    field_list_ids: dict = field(default_factory=dict)   # @field_list index -> FieldList
    empty_field_list: Optional[int] = None

    @property
    def program_base(self) -> str:
        """p4c names synthetic actions after the program file: `lpm_forward34`."""
        return Path(self.out.program_name).stem

    def error(self, pos, message: str) -> None:
        self.diags.error(pos, message)

    def empty_field_list_id(self) -> int:
        """clone() without a field list still names one (p4c emits an empty list "fl")."""
        if self.empty_field_list is None:
            used = {fl.id for fl in self.out.field_lists} | set(self.field_list_ids)
            fid = max(used, default=0) + 1
            fl = ir.FieldList(fid, "fl", [])
            self.out.field_lists.append(fl)
            self.field_list_ids[fid] = fl       # an index with no fields may share it
            self.empty_field_list = fid
        return self.empty_field_list
