"""PHV layout: every field of every header lives in one flat Python list, ``F``.

A packet's whole header vector is ``F = layout.template[:]`` (one C-level list copy). Each
header owns a contiguous run of slots, its fields in declaration order followed by one
validity slot (``$valid$``); each header stack and each header union stack owns one extra
slot holding its ``next`` index. Generated code indexes ``F`` with constants, which is the
fastest field access CPython offers. Values are stored unsigned (two's complement for signed
fields) and sign-extended when read, as BMv2's ``Field`` does for signed fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import LoadError

__all__ = ["HeaderInfo", "StackInfo", "UnionStackInfo", "Layout"]


@dataclass
class HeaderInfo:
    name: str
    id: int
    type_name: str
    fields: list[tuple[str, int, bool]]   # (name, width, signed)
    base: int                              # slot of the first field
    metadata: bool
    stack: str | None = None
    index: int = 0
    varbit: int | None = None     # index of the varbit field; its length (bits) is the last field
    union_siblings: tuple[int, ...] = ()   # valid slots of the other members of its header union

    @property
    def valid_slot(self) -> int:
        return self.base + len(self.fields)

    @property
    def len_slot(self) -> int | None:
        """Slot holding the current length in bits of the varbit field (None without one)."""
        return None if self.varbit is None else self.base + len(self.fields) - 1

    @property
    def packet_fields(self) -> list[tuple[int, str, int, bool]]:
        """(index, name, width, signed) of the fields on the wire (the varbit's width is its max)."""
        n = len(self.fields) - (1 if self.varbit is not None else 0)
        return [(k, *self.fields[k]) for k in range(n)]

    @property
    def nbits(self) -> int:
        """Bits of the fixed-width fields (a varbit field adds its current length on the wire)."""
        return sum(w for k, _, w, _ in self.packet_fields if k != self.varbit)

    @property
    def nbytes(self) -> int:
        return (self.nbits + 7) // 8

    def field_offset(self, fname: str) -> int:
        for i, (n, _, _) in enumerate(self.fields):
            if n == fname:
                return i
        if fname == "$valid$":
            return len(self.fields)
        raise KeyError(fname)


@dataclass
class StackInfo:
    name: str
    id: int
    type_name: str
    elements: list[HeaderInfo]
    next_slot: int

    @property
    def size(self) -> int:
        return len(self.elements)


@dataclass
class UnionStackInfo:
    """A header union stack (JSON "header_union_stacks"): element i is the header union
    ``unions[i]``, its member headers in the order of the union type's members (BMv2 finds a
    member by its offset in the union type, HeaderUnionType::get_header_offset)."""
    name: str
    id: int
    union_type: str
    member_names: list[str]
    unions: list[list[HeaderInfo]]
    next_slot: int

    @property
    def size(self) -> int:
        return len(self.unions)

    def member_elements(self, member: str) -> list[HeaderInfo]:
        """Member ``member`` of every element, element 0 first."""
        if member not in self.member_names:
            raise LoadError(f"header union stack {self.name!r}: union type {self.union_type!r} "
                            f"has no member {member!r}")
        k = self.member_names.index(member)
        return [u[k] for u in self.unions]


@dataclass
class Layout:
    headers: dict[str, HeaderInfo] = field(default_factory=dict)
    headers_by_id: dict[int, HeaderInfo] = field(default_factory=dict)
    stacks: dict[str, StackInfo] = field(default_factory=dict)
    widths: list[int] = field(default_factory=list)
    signed: list[bool] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)
    unions: dict[str, list[HeaderInfo]] = field(default_factory=dict)
    unions_by_id: dict[int, list[HeaderInfo]] = field(default_factory=dict)
    union_types: dict[str, list[str]] = field(default_factory=dict)   # type -> member names
    union_stacks: dict[str, UnionStackInfo] = field(default_factory=dict)

    @classmethod
    def from_json(cls, j: dict) -> "Layout":
        lay = cls()
        types = {t["name"]: t for t in j.get("header_types", [])}
        for h in j.get("headers", []):
            lay._add_header(h, types)
        for s in j.get("header_stacks", []):
            lay._add_stack(s)
        for t in j.get("header_union_types", []):
            lay.union_types[t["name"]] = [m[0] for m in t.get("headers", [])]
        for u in j.get("header_unions", []):
            lay._add_union(u)
        for s in j.get("header_union_stacks", []):
            lay._add_union_stack(s)
        for alias, target in j.get("field_aliases", []):
            lay.aliases[alias] = (target[0], target[1])
        return lay

    def _add_header(self, h: dict, types: dict) -> None:
        ht = types.get(h["header_type"])
        if ht is None:
            raise LoadError(f"header {h['name']!r}: unknown header_type {h['header_type']!r}")
        fields, varbit = self._fields(ht)
        info = HeaderInfo(h["name"], h["id"], ht["name"], fields, len(self.widths), bool(h.get("metadata")),
                          varbit=varbit)
        for name, width, signed in fields:
            self.widths.append(width)
            self.signed.append(signed)
            self.names.append(f"{h['name']}.{name}")
        self.widths.append(1)      # $valid$
        self.signed.append(False)
        self.names.append(f"{h['name']}.$valid$")
        self.headers[info.name] = info
        self.headers_by_id[info.id] = info

    @staticmethod
    def _fields(ht: dict) -> tuple[list[tuple[str, int, bool]], int | None]:
        """The header type's fields; a varbit field ("*") gets the width left by the type's
        max_length, and a hidden last field ``$varbit_len$`` holds its current length."""
        fields, varbit = [], None
        if ht.get("length_exp") is not None:
            raise LoadError(f"header type {ht['name']!r}: a varbit length expression "
                            "('length_exp', P4_14) is not supported: p4c writes extract_VL")
        for f in ht["fields"]:
            name, width = f[0], f[1]
            signed = bool(f[2]) if len(f) > 2 else False
            if len(f) > 3 and f[3]:
                raise LoadError(f"header type {ht['name']!r}: field {name!r} is saturating "
                                "(P4_14's field attribute) and this target does not saturate stores")
            if width == "*":
                if varbit is not None:
                    raise LoadError(f"header type {ht['name']!r}: more than one varbit field")
                varbit = len(fields)
                width = 0
            elif not isinstance(width, int):
                raise LoadError(f"header type {ht['name']!r}: field {name!r} has width {width!r}")
            fields.append((name, width, signed))
        if varbit is not None:
            if not isinstance(ht.get("max_length"), int):
                raise LoadError(f"header type {ht['name']!r}: varbit field without 'max_length'")
            fixed = sum(w for _, w, _ in fields)
            name, _, signed = fields[varbit]
            fields[varbit] = (name, ht["max_length"] * 8 - fixed, signed)
            fields.append(("$varbit_len$", 32, False))
        return fields, varbit

    def _add_stack(self, s: dict) -> None:
        elems = []
        for i, hid in enumerate(s["header_ids"]):
            h = self.headers_by_id.get(hid)
            if h is None:
                raise LoadError(f"header stack {s['name']!r}: unknown header id {hid}")
            h.stack, h.index = s["name"], i
            elems.append(h)
        slot = len(self.widths)
        self.widths.append(32)
        self.signed.append(False)
        self.names.append(f"{s['name']}.$next$")
        self.stacks[s["name"]] = StackInfo(s["name"], s["id"], s["header_type"], elems, slot)

    def _add_union(self, u: dict) -> None:
        """A header union: its members are ordinary headers, at most one of them valid."""
        members = []
        for hid in u["header_ids"]:
            h = self.headers_by_id.get(hid)
            if h is None:
                raise LoadError(f"header union {u['name']!r}: unknown header id {hid}")
            members.append(h)
        for h in members:
            h.union_siblings = tuple(o.valid_slot for o in members if o is not h)
        self.unions[u["name"]] = members
        self.unions_by_id[u["id"]] = members

    def _add_union_stack(self, s: dict) -> None:
        """A stack of header unions and its ``next`` index slot (BMv2 resets it to 0 for
        every packet, as a header stack's)."""
        name = s["name"]
        members = self.union_types.get(s["union_type"])
        if members is None:
            raise LoadError(f"header union stack {name!r}: unknown union_type {s['union_type']!r}")
        unions = []
        for uid in s["header_union_ids"]:
            u = self.unions_by_id.get(uid)
            if u is None:
                raise LoadError(f"header union stack {name!r}: unknown header union id {uid}")
            if len(u) != len(members):
                raise LoadError(f"header union stack {name!r}: union id {uid} has {len(u)} "
                                f"members, its type {s['union_type']!r} {len(members)}")
            unions.append(u)
        # the generated parser lays every element's member k out as element 0's
        for u in unions[1:]:
            for k, h in enumerate(u):
                if h.type_name != unions[0][k].type_name:
                    raise LoadError(f"header union stack {name!r}: member {members[k]!r} has "
                                    f"header type {h.type_name!r} in one element and "
                                    f"{unions[0][k].type_name!r} in another")
        slot = len(self.widths)
        self.widths.append(32)
        self.signed.append(False)
        self.names.append(f"{name}.$next$")
        self.union_stacks[name] = UnionStackInfo(name, s["id"], s["union_type"], members, unions,
                                                 slot)

    def union(self, name: str) -> list[HeaderInfo]:
        members = self.unions.get(name)
        if members is None:
            raise LoadError(f"unknown header union {name!r}")
        return members

    def union_stack(self, name: str) -> UnionStackInfo:
        us = self.union_stacks.get(name)
        if us is None:
            raise LoadError(f"unknown header union stack {name!r}")
        return us

    # -- lookups ----------------------------------------------------------------------------
    def header(self, name: str) -> HeaderInfo:
        h = self.headers.get(name)
        if h is None:
            raise LoadError(f"unknown header {name!r}")
        return h

    def stack(self, name: str) -> StackInfo:
        s = self.stacks.get(name)
        if s is None:
            raise LoadError(f"unknown header stack {name!r}")
        return s

    def slot(self, hname: str, fname: str) -> int:
        """The F index of ``hname.fname`` (``$valid$`` is the validity slot)."""
        if hname not in self.headers and f"{hname}.{fname}" in self.aliases:
            hname, fname = self.aliases[f"{hname}.{fname}"]
        h = self.header(hname)
        try:
            return h.base + h.field_offset(fname)
        except KeyError:
            raise LoadError(f"unknown field {hname}.{fname}") from None

    def has_field(self, hname: str, fname: str) -> bool:
        h = self.headers.get(hname)
        return h is not None and any(n == fname for n, _, _ in h.fields)

    def metadata_slots(self) -> list[int]:
        out = []
        for h in self.headers.values():
            if h.metadata:
                out.extend(range(h.base, h.valid_slot + 1))
        return out

    @property
    def nslots(self) -> int:
        return len(self.widths)

    def template(self) -> list[int]:
        """A fresh PHV: all fields zero, headers invalid, metadata headers valid (as BMv2)."""
        t = [0] * self.nslots
        for h in self.headers.values():
            if h.metadata:
                t[h.valid_slot] = 1
        return t
