"""Unique names in p4c's style: the first use of a base keeps it, later ones get _0, _1, ..."""
from __future__ import annotations


class NameGenerator:
    def __init__(self, taken=()):
        self._taken = set(taken)
        self._next = {}

    def reserve(self, name: str) -> None:
        self._taken.add(name)

    def fresh(self, base: str) -> str:
        if base not in self._taken:
            self._taken.add(base)
            return base
        n = self._next.get(base, 0)
        while f"{base}_{n}" in self._taken:
            n += 1
        self._next[base] = n + 1
        name = f"{base}_{n}"
        self._taken.add(name)
        return name


class Counter:
    """node_N numbering shared by all pipelines (conditional names are global in BMv2)."""

    def __init__(self, start: int = 0):
        self.value = start

    def take(self) -> int:
        v = self.value
        self.value += 1
        return v
