"""Scopes: what a name means where it is used (P4_16 spec 6.4, declaration before use).

Shared by name resolution (`resolve.py`), which builds the scopes, and the type checker,
which reads what resolution found. `Abandon` stops the checking of the current declaration,
statement or expression once an error in it was reported (one error per construct, as the
messages that would follow are consequences of the first).
"""
from __future__ import annotations

import difflib
from typing import Optional


class Abandon(Exception):
    """Abandon the current declaration, statement or expression: its error is reported."""


class Scope:
    """Names declared in one block, with the enclosing block's scope as parent."""
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

    def visible_names(self) -> set:
        """Every name visible here (for suggestions in messages)."""
        names: set = set()
        s = self
        while s is not None:
            names.update(s.names)
            s = s.parent
        return names


def did_you_mean(name: str, candidates) -> str:
    """' (did you mean 'x'?)' for a close match among candidates, else ''."""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""


def prev_pos(prev) -> str:
    """Where an earlier declaration is (the first of an overload list)."""
    if isinstance(prev, list):
        prev = prev[0]
    return str(getattr(prev, "pos", "?"))
