"""P4Runtime ids and aliases, as p4c's control-plane generator assigns them.

P4Runtime specification §6.3 ("Id allocation"): an id is 32 bits, its most significant byte
the object's type (the `P4Ids.Prefix` values of p4info.proto) and the low 24 bits free for the
compiler. p4c fills them with the Jenkins one-at-a-time hash of the object's fully qualified
name, and resolves collisions by linear probing of the hash (so the prefix byte never
changes); names are hashed in sorted order so that probing is deterministic. An `@id(N)`
annotation fixes an object's id: N may carry the type's prefix or leave it to be added, and
the id is reserved before any hash is taken.

Aliases (spec §6.4): the shortest dot-separated suffix of the name that no other object of the
program (of any type) shares, e.g. `ipv4_lpm` for `MyIngress.ipv4_lpm`.

Members of an object (match fields, action parameters, packet metadata fields) are numbered
from 1 in declaration order, each `@id` honoured and the numbering skipping ids that are
taken (spec §6.3: ids local to their object).
"""
from __future__ import annotations

from typing import Iterable, Optional

__all__ = ["Prefix", "jenkins_one_at_a_time", "SymbolTable", "member_ids", "IdError"]


class Prefix:
    """p4info.proto's P4Ids.Prefix: the top byte of an id by object type."""
    ACTION = 0x01
    TABLE = 0x02
    VALUE_SET = 0x03
    CONTROLLER_HEADER = 0x04
    ACTION_PROFILE = 0x11
    COUNTER = 0x12
    DIRECT_COUNTER = 0x13
    METER = 0x14
    DIRECT_METER = 0x15
    REGISTER = 0x16
    DIGEST = 0x17


class IdError(Exception):
    """An @id the P4Runtime rules refuse; the message names it."""


def jenkins_one_at_a_time(data: bytes) -> int:
    """Bob Jenkins' one-at-a-time hash, 32 bits."""
    h = 0
    for byte in data:
        h = (h + byte) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    h = (h + (h << 15)) & 0xFFFFFFFF
    return h


class SymbolTable:
    """Every P4Runtime object of a program by type and name; ids once `assign()` has run."""

    def __init__(self):
        self._fixed: dict[int, dict[str, Optional[int]]] = {}   # prefix -> name -> @id or None
        self._names: set[str] = set()
        self._ids: dict[tuple[int, str], int] = {}
        self._taken: set[int] = set()
        self.errors: list[str] = []

    def add(self, prefix: int, name: str, given: Optional[int] = None) -> None:
        """Record an object (a second record of the same type and name is the same object).
        ``given``: the value of its @id annotation."""
        table = self._fixed.setdefault(prefix, {})
        if name in table:
            return
        self._names.add(name)
        if given is None:
            table[name] = None
            return
        if not 0 <= given <= 0xFFFFFFFF:
            raise IdError(f"{name}: @id should be an unsigned 32-bit integer")
        top = given >> 24
        if top and top != prefix:
            raise IdError(f"{name}: @id {given:#x} has the wrong 8-bit prefix "
                          f"({top:#04x}, this object's is {prefix:#04x})")
        full = given | (prefix << 24)
        if full in self._taken:
            raise IdError(f"@id {full} is assigned to multiple declarations")
        self._taken.add(full)
        table[name] = full

    def assign(self) -> None:
        """Hash every name without an @id (p4c: per type in prefix order, names sorted)."""
        for prefix in sorted(self._fixed):
            for name, given in self._fixed[prefix].items():
                if given is not None:
                    self._ids[(prefix, name)] = given
            for name in sorted(n for n, g in self._fixed[prefix].items() if g is None):
                h = jenkins_one_at_a_time(name.encode())
                start = h
                while True:
                    candidate = (prefix << 24) | (h & 0xFFFFFF)
                    if candidate not in self._taken:
                        break
                    h = (h + 1) & 0xFFFFFFFF
                    if h == start:
                        raise IdError(f"no id left to give {name}")
                self._taken.add(candidate)
                self._ids[(prefix, name)] = candidate

    def id(self, prefix: int, name: str) -> int:
        return self._ids[(prefix, name)]

    def has(self, prefix: int, name: str) -> bool:
        return name in self._fixed.get(prefix, {})

    def alias(self, name: str) -> str:
        """The shortest suffix of ``name`` (whole components) no other name ends with."""
        parts = name.split(".")
        others = [n.split(".") for n in self._names if n != name]
        for k in range(1, len(parts) + 1):
            tail = parts[-k:]
            if not any(o[-k:] == tail for o in others if len(o) >= k):
                return ".".join(tail)
        return name


def member_ids(given: Iterable[Optional[int]]) -> list[int]:
    """Ids of an object's members in order: each @id kept, the others 1, 2, ... by position,
    moving past ids taken (p4c's FieldIdAllocator). Raises IdError for 0 or a repeated id."""
    given = list(given)
    taken: set[int] = set()
    for g in given:
        if g is None:
            continue
        if g == 0:
            raise IdError("0 is not a valid @id value")
        if g in taken:
            raise IdError(f"@id {g} is used multiple times")
        taken.add(g)
    out, index = [], 1
    for g in given:
        if g is not None:
            out.append(g)
            index += 1
            continue
        while index in taken:
            index += 1
        out.append(index)
        taken.add(index)
    return out
