"""P4 types as P4Info's P4DataTypeSpec, and the named types they use in P4TypeInfo.

P4Runtime specification §7.2 ("P4Info type specs"): a bit<W>/int<W>/varbit/bool is spelt out
in place; a struct, header, header union, enum, serializable enum, new type (`type T N;`)
or the error type is a reference by name, its definition going once into the program's
`type_info` map. A `@p4runtime_translation("uri", W | string)` on a new type makes it a
translated type: the controller sees it as W bits (or a string) and the target translates
(spec §8.4.5).

The checker resolves a new type to the type it wraps; the name survives in the written
type (`ast.NamedTypeRef.decl` is the `TypedefDecl` with `is_newtype`), so every function
here takes the written type where there is one.
"""
from __future__ import annotations

import re
from typing import Optional

from ..frontend import ast, types as T

__all__ = ["TypeSpecs", "newtype_of", "TypeSpecError"]

# @p4runtime_translation("uri", 32) / ("uri", bit<32>) / ("uri", string)
_TRANSLATION = re.compile(r'"((?:[^"\\]|\\.)*)"\s*,\s*(?:(\d+|0[xX][0-9a-fA-F]+)|bit\s*<\s*(\d+)\s*>|'
                          r'string|"[^"]*")')


class TypeSpecError(Exception):
    """A type P4Info cannot describe; the message names it."""


def _typedef_chain(ref):
    """The TypedefDecls a written type goes through (outermost first)."""
    out = []
    while isinstance(ref, ast.NamedTypeRef) and isinstance(ref.decl, ast.TypedefDecl):
        out.append(ref.decl)
        ref = ref.decl.type_ref
    return out


def newtype_of(ref) -> Optional[ast.TypedefDecl]:
    """The new type (`type T N;`) a written type names, through typedefs, or None."""
    for d in _typedef_chain(ref):
        if d.is_newtype:
            return d
    return None


def translation(decl: ast.TypedefDecl):
    """(uri, sdn bitwidth or None for a string) of a @p4runtime_translation, else None."""
    a = ast.annotation(decl, "p4runtime_translation")
    if a is None:
        return None
    m = _TRANSLATION.fullmatch(a.body.strip())
    if m is None:
        raise TypeSpecError(f"{decl.name}: @p4runtime_translation takes a URI string and a "
                            "width (N or bit<N>) or string")
    uri = m.group(1).encode().decode("unicode_escape")
    width = m.group(2) or m.group(3)
    return uri, (int(width, 0) if width else None)


class TypeSpecs:
    """Fills a P4TypeInfo message while converting types; ``annotate(msg, node, skip)`` is
    the builder's annotation writer (new types carry their annotations)."""

    def __init__(self, type_info, errors: list, annotate, pb):
        self.info = type_info
        self.errors = errors          # the Program's error names (for the error type)
        self.annotate = annotate
        self.pb = pb                  # the p4types_pb2 module

    # -- widths as P4Info states them ---------------------------------------------------------
    def width(self, t, ref=None) -> int:
        """The bitwidth P4Info gives a value of type ``t`` (written ``ref``): a translated
        type's controller width (0 for a string), 0 for error, else the type's width."""
        nt = newtype_of(ref)
        if nt is not None:
            tr = translation(nt)
            if tr is not None:
                return tr[1] or 0
        if t is T.ERROR:
            return 0
        if t is T.BOOL:
            return 1
        w = t.width_bits
        if w is None:
            raise TypeSpecError(f"type {t.name} has no fixed width")
        return w

    def type_name(self, ref) -> Optional[str]:
        """The new type's name for a P4NamedType field (type_name), registering it."""
        nt = newtype_of(ref)
        if nt is None:
            return None
        self._newtype(nt)
        return nt.name

    def note(self, t, ref=None) -> None:
        """Register the named types a value of type ``t`` uses (p4c records those of every
        match field, action parameter and packet metadata field)."""
        self.spec(t, ref)

    # -- conversion ---------------------------------------------------------------------------
    def spec(self, t, ref=None):
        pb = self.pb
        s = pb.P4DataTypeSpec()
        nt = newtype_of(ref)
        if nt is not None:
            self._newtype(nt)
            s.new_type.name = nt.name
            return s
        if isinstance(t, T.Bits):
            (s.bitstring.int if t.signed else s.bitstring.bit).bitwidth = t.width
        elif isinstance(t, T.Varbit):
            s.bitstring.varbit.max_bitwidth = t.max_width
        elif t is T.BOOL:
            s.bool.SetInParent()
        elif t is T.ERROR:
            s.error.SetInParent()
            if not self.info.HasField("error"):
                self.info.error.members.extend(self.errors)
        elif isinstance(t, T.Enum):
            if t.underlying is not None:
                s.serializable_enum.name = t.name
                self._serializable_enum(t)
            else:
                getattr(s, "enum").name = t.name
                self._enum(t)
        elif isinstance(t, T.Header):
            s.header.name = t.name
            self._header(t)
        elif isinstance(t, T.HeaderUnion):
            s.header_union.name = t.name
            self._union(t)
        elif isinstance(t, T.Struct):
            s.struct.name = t.name
            self._struct(t)
        elif isinstance(t, T.Stack):
            el = t.element
            if isinstance(el, T.HeaderUnion):
                s.header_union_stack.header_union.name = el.name
                s.header_union_stack.size = t.size
                self._union(el)
            else:
                s.header_stack.header.name = el.name
                s.header_stack.size = t.size
                self._header(el)
        elif isinstance(t, T.Tuple):
            refs = list(getattr(ref, "elements", None) or [None] * len(t.elements))
            for e, r in zip(t.elements, refs):
                s.tuple.members.add().CopyFrom(self.spec(e, r))
        else:
            raise TypeSpecError(f"type {t.name} cannot be described in P4Info")
        return s

    @staticmethod
    def _field_refs(t) -> dict:
        decl = getattr(t, "decl", None)
        return {f.name: f.type_ref for f in getattr(decl, "fields", None) or []
                if isinstance(f, ast.FieldDecl)}

    def _struct(self, t) -> None:
        if t.name in self.info.structs:
            return
        entry = self.info.structs[t.name]     # reserved first: a recursive use stops here
        refs = self._field_refs(t)
        for name, ft in t.fields.items():
            m = entry.members.add()
            m.name = name
            m.type_spec.CopyFrom(self.spec(ft, refs.get(name)))

    def _header(self, t) -> None:
        if t.name in self.info.headers:
            return
        entry = self.info.headers[t.name]
        for name, ft in _flat_fields(t):
            m = entry.members.add()
            m.name = name
            if isinstance(ft, T.Bits):
                (m.type_spec.int if ft.signed else m.type_spec.bit).bitwidth = ft.width
            elif isinstance(ft, T.Varbit):
                m.type_spec.varbit.max_bitwidth = ft.max_width
            elif isinstance(ft, T.Enum) and ft.underlying is not None:
                m.type_spec.bit.bitwidth = ft.underlying.width
            elif ft is T.BOOL:
                m.type_spec.bit.bitwidth = 1
            else:
                raise TypeSpecError(f"header {t.name}: field {name} is not a bit string")

    def _union(self, t) -> None:
        if t.name in self.info.header_unions:
            return
        entry = self.info.header_unions[t.name]
        for name, ft in t.fields.items():
            m = entry.members.add()
            m.name = name
            m.header.name = ft.name
            self._header(ft)

    def _enum(self, t) -> None:
        if t.name in self.info.enums:
            return
        entry = self.info.enums[t.name]
        for name in t.members:
            entry.members.add().name = name

    def _serializable_enum(self, t) -> None:
        if t.name in self.info.serializable_enums:
            return
        entry = self.info.serializable_enums[t.name]
        w = t.underlying.width
        entry.underlying_type.bitwidth = w
        for name, value in t.members.items():
            m = entry.members.add()
            m.name = name
            m.value = (value & ((1 << w) - 1)).to_bytes((w + 7) // 8, "big")

    def _newtype(self, decl: ast.TypedefDecl) -> None:
        if decl.name in self.info.new_types:
            return
        entry = self.info.new_types[decl.name]
        self.annotate(entry, decl, skip=("p4runtime_translation",))
        tr = translation(decl)
        inner = decl.type_ref
        # the type the new type wraps, itself possibly a new type
        if tr is not None:
            if not isinstance(decl.p4type, T.Bits):
                raise TypeSpecError(f"{decl.name}: P4Runtime requires the underlying type of a "
                                    "type with @p4runtime_translation to be bit<W>")
            entry.translated_type.uri = tr[0]
            if tr[1] is None:
                entry.translated_type.sdn_string.SetInParent()
            else:
                entry.translated_type.sdn_bitwidth = tr[1]
            return
        underlying = decl.p4type
        inner_nt = newtype_of(inner)
        while inner_nt is not None:       # p4c describes the innermost non-new type
            inner = inner_nt.type_ref
            inner_nt = newtype_of(inner)
        entry.original_type.CopyFrom(self.spec(underlying, inner))


def _flat_fields(t, prefix: str = ""):
    """A header's fields, struct-typed fields flattened as p4c's FlattenHeader names them
    (`outer_inner`)."""
    for name, ft in t.fields.items():
        if isinstance(ft, T.Struct):
            yield from _flat_fields(ft, f"{prefix}{name}_")
        else:
            yield f"{prefix}{name}", ft
