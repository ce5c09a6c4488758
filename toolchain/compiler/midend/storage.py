"""Storage allocation: where every P4 value lives in BMv2 (header instances and `scalars`).

* The parser's `out H hdr` struct: each header field becomes a header instance named after the
  field ("ipv4"), each stack `h[N]` N instances "h[0]".."h[N-1]" plus a header stack; nested
  structs are flattened with dotted names.
* The user metadata struct: each scalar field becomes a field of `scalars` named
  "<struct type>.<field>" (p4c: "meta_t.tcp_len"); `@field_list(N)` fields go to field list N.
  Headers, header stacks and unions in it become instances (and stacks) named by that path.
* `standard_metadata_t` is the "standard_metadata" instance; its `@alias` fields give the
  JSON `field_aliases`.
Places (`HeaderPlace`, `StackPlace`, `StructPlace`) are what a P4 l-value path denotes before
it reaches a scalar field.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..frontend import ast, types as T
from . import ir
from .context import Context, ir_type
from .scalars import SCALARS, SCALARS_TYPE
from .unsupported import Unsupported

STANDARD_METADATA = "standard_metadata"


@dataclass(frozen=True)
class HeaderPlace:
    instance: str
    type: T.Header


@dataclass(frozen=True)
class StackPlace:
    name: str
    type: T.Stack
    elements: tuple


@dataclass(frozen=True)
class UnionPlace:
    """A header_union value: member m is the header instance "<path>.<m>"."""
    path: str
    type: T.HeaderUnion

    def member(self, name: str) -> "HeaderPlace":
        return HeaderPlace(f"{self.path}.{name}", self.type.fields[name])

    def members(self) -> list:
        return [self.member(n) for n in self.type.fields]


@dataclass(frozen=True)
class UnionStackPlace:
    """A stack of header_unions `U[n] u`: element i is the union "u[i]" (constant indices;
    the members are plain header instances, "u[0].h1"); in a parser also `u.next.m` (an
    extract target) and `u.last.m.f` (a select key)."""
    path: str
    type: T.Stack

    def element(self, i: int) -> UnionPlace:
        return UnionPlace(f"{self.path}[{i}]", self.type.element)

    def elements(self) -> list:
        return [self.element(i) for i in range(self.type.size)]


@dataclass(frozen=True)
class StructPlace:
    """A struct value: `kind` "headers" (members are instances), "meta" (members are scalars
    fields), "std" (the standard metadata instance), or "local" (a struct-typed local
    variable or argument copy: header members are instances, scalar members `scalars`
    fields, both named "<prefix>.<member>"; see allocate_local_struct)."""
    kind: str
    prefix: str
    type: T.Struct


@dataclass
class Storage:
    headers_type: Optional[T.Struct] = None
    meta_type: Optional[T.Struct] = None
    header_types: dict = field(default_factory=dict)      # type name -> ir.HeaderType
    # header instance of a union member -> the instances of the other members (spec 8.20:
    # making one member valid makes the others invalid)
    union_siblings: dict = field(default_factory=dict)

    def member(self, place: StructPlace, name: str, pos):
        """The place or field a struct member denotes."""
        ftype = place.type.fields[name]
        if place.kind == "std":
            return ir.FieldRef(STANDARD_METADATA, name, ir_type(ftype, pos))
        path = f"{place.prefix}.{name}" if place.prefix else name
        if place.kind == "local":
            return self._local_member(path, ftype, pos)
        if place.kind == "headers":
            if isinstance(ftype, T.Header):
                return HeaderPlace(path, ftype)
            if isinstance(ftype, T.Stack) and isinstance(ftype.element, T.HeaderUnion):
                return UnionStackPlace(path, ftype)
            if isinstance(ftype, T.Stack):
                return StackPlace(path, ftype, tuple(f"{path}[{i}]" for i in range(ftype.size)))
            if isinstance(ftype, T.Struct):
                return StructPlace("headers", path, ftype)
            if isinstance(ftype, T.HeaderUnion):
                return UnionPlace(path, ftype)
            if headers_scalar_type(ftype):
                return ir.FieldRef(SCALARS, self.headers_scalar_name(path), ir_type(ftype, pos))
            raise Unsupported(pos, f"field {name} of the headers struct is a {ftype}; "
                                   "only headers, header stacks, structs and scalars are "
                                   "supported there")
        if isinstance(ftype, T.Struct):
            return StructPlace("meta", path, ftype)
        if isinstance(ftype, T.Header):       # its own instance (AllocateStorage._metadata)
            return HeaderPlace(path, ftype)
        if isinstance(ftype, T.Stack) and isinstance(ftype.element, T.Header):
            return StackPlace(path, ftype, tuple(f"{path}[{i}]" for i in range(ftype.size)))
        if isinstance(ftype, T.HeaderUnion):
            return UnionPlace(path, ftype)
        if isinstance(ftype, T.Stack):
            raise Unsupported(pos, "header union stacks inside the metadata struct are not "
                                   "supported")
        if isinstance(ftype, T.Varbit):     # its own instance (AllocateStorage._metadata)
            return ir.FieldRef(path, VARBIT_LOCAL_FIELD, ir.Varbit(ftype.max_width))
        return ir.FieldRef(SCALARS, path, ir_type(ftype, pos))


    def headers_scalar_name(self, path: str) -> str:
        """The `scalars` field of a scalar member of the headers struct: p4c's HeaderConverter
        treats it as a scalar local named after the struct type ("headers.index")."""
        return f"{self.headers_type.name}.{path}"

    @staticmethod
    def _local_member(path: str, ftype, pos):
        if isinstance(ftype, T.Header):
            return HeaderPlace(path, ftype)
        if isinstance(ftype, T.Stack) and isinstance(ftype.element, T.HeaderUnion):
            return UnionStackPlace(path, ftype)
        if isinstance(ftype, T.Stack):
            return StackPlace(path, ftype, tuple(f"{path}[{i}]" for i in range(ftype.size)))
        if isinstance(ftype, T.Struct):
            return StructPlace("local", path, ftype)
        if isinstance(ftype, T.HeaderUnion):
            return UnionPlace(path, ftype)
        return ir.FieldRef(SCALARS, path, ir_type(ftype, pos))


def headers_scalar_type(t) -> bool:
    """A scalar type p4c's BMv2 back end accepts in the headers struct (it stores such a field
    in `scalars`, header.cpp addTypesAndInstances): bit<W>, int<W>, bool, error, and enums
    (bit<W> after p4c's mid end)."""
    return isinstance(t, (T.Bits, T.BoolType, T.Enum)) or t is T.ERROR


def allocate_local_struct(ctx: Context, base: str, t: T.Struct, pos) -> StructPlace:
    """Storage for a struct-typed local variable (or a copy of a struct argument): p4c
    flattens such a struct into one variable per member (its midend's NestedStructs /
    FlattenHeaders); here headers become header instances, stacks header stacks and
    scalars `scalars` fields, all under a fresh prefix."""
    prefix = _fresh_storage_name(ctx, base)
    _allocate_members(ctx, prefix, t, pos)
    return StructPlace("local", prefix, t)


def allocate_local_header(ctx: Context, base: str, t: T.Header) -> HeaderPlace:
    """A header-typed local variable or argument copy: its own (metadata=false) instance."""
    name = _fresh_storage_name(ctx, base)
    _add_header_type(ctx, t)
    ctx.out.headers.append(ir.HeaderInstance(name, t.name, False))
    return HeaderPlace(name, t)


def _fresh_storage_name(ctx: Context, base: str) -> str:
    """A name no header instance, stack, union, union stack or `scalars` field (or prefix of
    one) uses yet."""
    out = ctx.out
    taken = ({h.name for h in out.headers} | {s.name for s in out.stacks}
             | {u.name for u in out.header_unions} | {s.name for s in out.header_union_stacks})
    scalar_names = [f[0] for f in ctx.scalars.fields]
    while True:
        name = ctx.action_names.fresh(base)
        if name not in taken and not any(n == name or n.startswith((name + ".", name + "["))
                                         for n in scalar_names + list(taken)):
            return name


def allocate_local_union(ctx: Context, base: str, t: T.HeaderUnion) -> UnionPlace:
    """A header_union-typed local variable: a (metadata=false) header instance per member,
    "<name>.<member>", and the header_union over them (as a union in the headers struct)."""
    name = _fresh_storage_name(ctx, base)
    _add_union_instances(ctx, name, t)
    return UnionPlace(name, t)


def allocate_local_union_stack(ctx: Context, base: str, t: T.Stack) -> UnionStackPlace:
    """A local stack of header unions: the unions "<name>[i]" and the header_union_stack."""
    name = _fresh_storage_name(ctx, base)
    _add_union_stack_instances(ctx, name, t)
    return UnionStackPlace(name, t)


def _add_union_instances(ctx: Context, path: str, t: T.HeaderUnion) -> None:
    for m, mt in t.fields.items():
        _add_header_type(ctx, mt)
        ctx.out.headers.append(ir.HeaderInstance(f"{path}.{m}", mt.name, False))
    AllocateStorage._union(ctx, ctx.storage, path, t)


def _add_union_stack_instances(ctx: Context, path: str, t: T.Stack) -> None:
    elements = [f"{path}[{i}]" for i in range(t.size)]
    for e in elements:
        _add_union_instances(ctx, e, t.element)
    ctx.out.header_union_stacks.append(ir.HeaderUnionStack(path, t.element.name, elements))


def allocate_local_stack(ctx: Context, base: str, t: T.Stack) -> StackPlace:
    """A header-stack-typed local variable: its own instances and header stack."""
    if not isinstance(t.element, T.Header):
        raise Unsupported(None, f"local variables of type {t} are not supported")
    name = _fresh_storage_name(ctx, base)
    _add_header_type(ctx, t.element)
    elements = [f"{name}[{i}]" for i in range(t.size)]
    for e in elements:
        ctx.out.headers.append(ir.HeaderInstance(e, t.element.name, False))
    ctx.out.stacks.append(ir.HeaderStack(name, t.element.name, elements))
    return StackPlace(name, t, tuple(elements))


def _add_header_type(ctx: Context, t: T.Header) -> None:
    if t.name not in ctx.storage.header_types:
        ht = header_type(t, getattr(t.decl, "pos", None))
        ctx.storage.header_types[t.name] = ht
        ctx.out.header_types.append(ht)


def _allocate_members(ctx: Context, prefix: str, t: T.Struct, pos) -> None:
    for name, ftype in t.fields.items():
        path = f"{prefix}.{name}"
        where = field_pos(t, name, pos)
        if isinstance(ftype, T.Header):
            _add_header_type(ctx, ftype)
            ctx.out.headers.append(ir.HeaderInstance(path, ftype.name, False))
        elif isinstance(ftype, T.Stack) and isinstance(ftype.element, T.Header):
            _add_header_type(ctx, ftype.element)
            elements = [f"{path}[{i}]" for i in range(ftype.size)]
            for e in elements:
                ctx.out.headers.append(ir.HeaderInstance(e, ftype.element.name, False))
            ctx.out.stacks.append(ir.HeaderStack(path, ftype.element.name, elements))
        elif isinstance(ftype, T.Struct):
            _allocate_members(ctx, path, ftype, where)
        elif isinstance(ftype, T.HeaderUnion):
            _add_union_instances(ctx, path, ftype)
        elif isinstance(ftype, T.Stack) and isinstance(ftype.element, T.HeaderUnion):
            _add_union_stack_instances(ctx, path, ftype)
        elif isinstance(ftype, (T.Stack, T.Varbit)):
            raise Unsupported(where, f"local variables with a {ftype} member are not supported")
        else:
            ctx.scalars.add(path, ir_type(ftype, where))


def field_pos(t, name: str, default):
    """Where field `name` of struct/header type t is declared (for error messages)."""
    for fdecl in getattr(t.decl, "fields", ()) or ():
        if fdecl.name == name:
            return fdecl.pos
    return default


_LEAVES: dict = {}


def header_leaves(t: T.Header) -> list:
    """[(path, BMv2 field name, P4 type)] of a header's scalar fields in order. A header
    with struct-typed fields (spec 7.2.2) is flattened as p4c's FlattenHeaders does it: the
    field at path .row.e becomes "_row_e<n>", n counting the header's fields (every field
    of such a header is renamed, "_x3"); other headers keep their field names."""
    leaves = _LEAVES.get(t)
    if leaves is None:
        flat = any(isinstance(ft, T.Struct) for ft in t.fields.values())
        leaves = []
        _collect_leaves(t, (), flat, leaves)
        _LEAVES[t] = leaves
    return leaves


def _collect_leaves(t: T.StructLike, prefix: tuple, flat: bool, out: list) -> None:
    for name, ftype in t.fields.items():
        path = prefix + (name,)
        if isinstance(ftype, T.Struct):
            _collect_leaves(ftype, path, flat, out)
        else:
            out.append((path, "_" + "_".join(path) + str(len(out)) if flat else name, ftype))


def header_field_name(t: T.Header, path: tuple) -> Optional[str]:
    """The BMv2 field name of the scalar at `path` in header type t (None: not a leaf)."""
    for p, name, _ in header_leaves(t):
        if p == path:
            return name
    return None


def header_type_fields(t: T.Header, pos) -> list:
    """[(name, width, signed)]; a varbit field is listed with its maximum width."""
    out = []
    for path, name, ftype in header_leaves(t):
        it = ir_type(ftype, field_pos(t, path[0], pos))
        out.append((name, it.width, bool(it.signed)))
    return out


def header_type(t: T.Header, pos) -> ir.HeaderType:
    varbits = [n for _, n, ft in header_leaves(t) if isinstance(ft, T.Varbit)]
    return ir.HeaderType(t.name, header_type_fields(t, pos), varbits[0] if varbits else None)


@dataclass(frozen=True)
class HeaderStructPlace:
    """A struct-typed field of a header (`hdr.h.row`): its members are fields of the
    header's instance under their flattened names (header_leaves)."""
    instance: str
    header: T.Header
    path: tuple
    type: T.Struct

    def member(self, name: str, pos):
        path = self.path + (name,)
        ftype = self.type.fields[name]
        if isinstance(ftype, T.Struct):
            return HeaderStructPlace(self.instance, self.header, path, ftype)
        return ir.FieldRef(self.instance, header_field_name(self.header, path),
                           ir_type(ftype, pos))


# A varbit-typed local variable lives in a metadata instance of its own, whose header type
# has the one varbit field "field" (p4c's BMv2 back end does the same, header.cpp: a header
# holds at most one varbit field, so they cannot share `scalars`).
VARBIT_LOCAL_TYPE = "$varbit{}"
VARBIT_LOCAL_FIELD = "field"


def allocate_local_varbit(ctx: Context, base: str, t: T.Varbit) -> ir.FieldRef:
    return _varbit_instance(ctx, _fresh_storage_name(ctx, base), t)


def _varbit_instance(ctx: Context, name: str, t: T.Varbit) -> ir.FieldRef:
    """A metadata instance `name` holding one varbit value: the field `name.field`."""
    type_name = VARBIT_LOCAL_TYPE.format(t.max_width)
    if type_name not in ctx.storage.header_types:
        ht = ir.HeaderType(type_name, [(VARBIT_LOCAL_FIELD, t.max_width, False)],
                           VARBIT_LOCAL_FIELD)
        ctx.storage.header_types[type_name] = ht
        ctx.out.header_types.append(ht)
    ctx.out.headers.append(ir.HeaderInstance(name, type_name, True))
    return ir.FieldRef(name, VARBIT_LOCAL_FIELD, ir.Varbit(t.max_width))


class AllocateStorage:
    """Pass: header types and instances, stacks, scalars for metadata, standard metadata."""
    name = "AllocateStorage"

    def run(self, ctx: Context) -> None:
        parser = ctx.blocks.parser
        params = parser.params
        if len(params) != 4:
            raise Unsupported(parser.pos, "the V1Switch parser must have 4 parameters")
        st = Storage(headers_type=params[1].p4type, meta_type=params[2].p4type)
        ctx.storage = st
        std_type = params[3].p4type
        self._standard_metadata(ctx, std_type, parser.pos)
        self._headers(ctx, st, parser.pos)
        self._metadata(ctx, st.meta_type, st.meta_type.name, parser.pos)

    def _add_type(self, ctx: Context, t: T.Header, pos) -> None:
        if t.name in (SCALARS_TYPE, STANDARD_METADATA):
            raise Unsupported(getattr(t.decl, "pos", pos), f"a header type named {t.name} "
                                                           "would clash with BMv2's own type")
        if t.name not in ctx.storage.header_types:
            ht = header_type(t, pos)
            ctx.storage.header_types[t.name] = ht
            ctx.out.header_types.append(ht)

    def _standard_metadata(self, ctx: Context, t: T.Struct, pos) -> None:
        # the scalars header type comes first, as p4c writes it; its fields are final later
        ctx.out.header_types.append(ir.HeaderType(SCALARS_TYPE, []))
        ctx.out.headers.append(ir.HeaderInstance(SCALARS, SCALARS_TYPE, True))
        fields = [(n, ir_type(ft, pos).width, False) for n, ft in t.fields.items()]
        total = sum(w for _, w, _ in fields)
        if total % 8:
            fields.append(("_padding", 8 - total % 8, False))
        ctx.out.header_types.append(ir.HeaderType(STANDARD_METADATA, fields))
        ctx.out.headers.append(ir.HeaderInstance(STANDARD_METADATA, STANDARD_METADATA, True))
        for fdecl in t.decl.fields:
            alias = ast.annotation(fdecl, "alias")
            if alias is not None and alias.args and isinstance(alias.args[0], ast.StringLit):
                ctx.out.field_aliases.append((alias.args[0].value, (STANDARD_METADATA, fdecl.name)))

    def _headers(self, ctx: Context, st: Storage, pos) -> None:
        if not isinstance(st.headers_type, T.Struct):
            raise Unsupported(ctx.blocks.parser.params[1].pos,
                              "the parser's headers parameter must be a struct")
        plain, stacks, unions, scalars = [], [], [], []
        self._collect(st.headers_type, "", plain, stacks, pos, unions, scalars)
        for path, t, where in scalars:      # bit<W>, int<W>, bool, error, enum members
            ctx.scalars.add(st.headers_scalar_name(path), ir_type(t, where))
        for path, _ in plain + stacks:
            if path in (SCALARS, STANDARD_METADATA):
                raise Unsupported(field_pos(st.headers_type, path, pos), f"a header named {path} would clash with the BMv2 "
                                       "instance of the same name; rename the field")
        for path, t in plain:
            self._add_type(ctx, t, pos)
            ctx.out.headers.append(ir.HeaderInstance(path, t.name, False))
        for path, t in unions:
            self._union(ctx, st, path, t)
        # stacks after the other headers, in field order, as p4c's HeaderConverter adds
        # them (addHeaderStacks)
        for path, t in stacks:
            if isinstance(t.element, T.HeaderUnion):
                self._union_stack(ctx, st, path, t, pos)
                continue
            self._add_type(ctx, t.element, pos)
            elements = [f"{path}[{i}]" for i in range(t.size)]
            for e in elements:
                ctx.out.headers.append(ir.HeaderInstance(e, t.element.name, False))
            ctx.out.stacks.append(ir.HeaderStack(path, t.element.name, elements))

    def _union_stack(self, ctx: Context, st: Storage, path: str, t: T.Stack, pos) -> None:
        """A stack of header unions: element i is the union "u[i]" with member instances
        "u[i].m", then the stack itself (JSON "header_union_stacks"), as p4c names them."""
        elements = [f"{path}[{i}]" for i in range(t.size)]
        for e in elements:
            for m, mt in t.element.fields.items():
                self._add_type(ctx, mt, pos)
                ctx.out.headers.append(ir.HeaderInstance(f"{e}.{m}", mt.name, False))
            self._union(ctx, st, e, t.element)
        ctx.out.header_union_stacks.append(ir.HeaderUnionStack(path, t.element.name, elements))

    @staticmethod
    def _union(ctx: Context, st: Storage, path: str, t: T.HeaderUnion) -> None:
        if not any(u.name == t.name for u in ctx.out.header_union_types):
            ctx.out.header_union_types.append(ir.HeaderUnionType(
                t.name, [(m, mt.name) for m, mt in t.fields.items()]))
        members = [(m, f"{path}.{m}") for m in t.fields]
        ctx.out.header_unions.append(ir.HeaderUnion(path, t.name, members))
        for _, inst in members:
            st.union_siblings[inst] = [i for _, i in members if i != inst]

    def _collect(self, t: T.Struct, prefix: str, plain: list, stacks: list, pos,
                 unions: list, scalars: list) -> None:
        for name, ftype in t.fields.items():
            path = f"{prefix}.{name}" if prefix else name
            pos = field_pos(t, name, pos)
            if isinstance(ftype, T.Header):
                plain.append((path, ftype))
            elif isinstance(ftype, T.Stack) and isinstance(ftype.element, T.Header):
                stacks.append((path, ftype))
            elif isinstance(ftype, T.Struct):
                self._collect(ftype, path, plain, stacks, pos, unions, scalars)
            elif isinstance(ftype, T.HeaderUnion):
                # each member an ordinary header instance "u.h1", as p4c names them
                for m, mt in ftype.fields.items():
                    plain.append((f"{path}.{m}", mt))
                unions.append((path, ftype))
            elif isinstance(ftype, T.Stack) and isinstance(ftype.element, T.HeaderUnion):
                # a union per element ("u[0]"); constant indices, .next/.last in a parser
                # (UnionStackPlace); allocated with the header stacks (_union_stack)
                stacks.append((path, ftype))
            elif headers_scalar_type(ftype):
                scalars.append((path, ftype, pos))
            else:
                raise Unsupported(pos, f"field {path} of the headers struct has type {ftype}; "
                                       "only headers, header stacks, structs and scalars may "
                                       "appear there")

    def _metadata(self, ctx: Context, t, prefix: str, pos) -> None:
        if not isinstance(t, T.Struct):
            raise Unsupported(ctx.blocks.parser.params[2].pos,
                              "the user metadata parameter must be a struct")
        for fdecl in t.decl.fields:
            ftype = t.fields[fdecl.name]
            path = f"{prefix}.{fdecl.name}"
            if isinstance(ftype, T.Struct):
                self._metadata(ctx, ftype, path, pos)
                continue
            if isinstance(ftype, T.Header):
                # a header kept in metadata: an ordinary (metadata=false) instance, so it
                # has a validity bit; never emitted unless the deparser names it
                self._add_type(ctx, ftype, fdecl.pos)
                ctx.out.headers.append(ir.HeaderInstance(path, ftype.name, False))
                continue
            if isinstance(ftype, T.Stack) and isinstance(ftype.element, T.Header):
                # a header stack kept in metadata: instances and a stack, as in the headers
                self._add_type(ctx, ftype.element, fdecl.pos)
                elements = [f"{path}[{i}]" for i in range(ftype.size)]
                for e in elements:
                    ctx.out.headers.append(ir.HeaderInstance(e, ftype.element.name, False))
                ctx.out.stacks.append(ir.HeaderStack(path, ftype.element.name, elements))
                continue
            if isinstance(ftype, T.HeaderUnion):
                for m, mt in ftype.fields.items():
                    self._add_type(ctx, mt, fdecl.pos)
                    ctx.out.headers.append(ir.HeaderInstance(f"{path}.{m}", mt.name, False))
                self._union(ctx, ctx.storage, path, ftype)
                continue
            if isinstance(ftype, T.Stack):
                raise Unsupported(fdecl.pos, "header union stacks inside the metadata struct "
                                             "are not supported")
            if isinstance(ftype, T.Varbit):
                # its own metadata instance, as a varbit local's (p4c, header.cpp: a header
                # holds one varbit field, so it cannot live in `scalars`)
                _varbit_instance(ctx, path, ftype)
                continue
            ref = ctx.scalars.add(path, ir_type(ftype, fdecl.pos))
            for ann in fdecl.annotations:
                if ann.name == "field_list":
                    for arg in ann.args:
                        self._add_to_field_list(ctx, arg, ref, fdecl.pos)

    def _add_to_field_list(self, ctx: Context, arg, ref: ir.FieldRef, pos) -> None:
        index = getattr(arg, "folded", None)
        if index is None and isinstance(arg, ast.IntLit):
            index = arg.value
        if index is None and isinstance(arg, ast.PathExpr):
            # annotation bodies are not type-checked: resolve a constant's name ourselves
            decl = (ctx.program.scope or {}).get(arg.name)
            index = getattr(decl, "folded", None)
        member = getattr(arg, "decl", None)
        if index is None and isinstance(member, ast.EnumMember) \
                and member.enum is not None and member.enum.underlying is not None:
            # a serializable enum's member, `@field_list(FieldLists.CLONE)` (p4c evaluates
            # the annotation as an expression: its issue1001-1-bmv2 sample)
            index = member.value
        if not isinstance(index, int) or isinstance(index, bool):
            raise Unsupported(pos, "@field_list takes integer constants or members of an "
                                   "enum with an underlying bit<W> type")
        fl = ctx.field_list_ids.get(index)
        if fl is None:
            fl = ir.FieldList(index, f"field_list{index}", [])
            ctx.field_list_ids[index] = fl
            ctx.out.field_lists.append(fl)
        fl.fields.append(ref)

