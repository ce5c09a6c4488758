"""Allocation of the `scalars` metadata header: user metadata, locals and temporaries.

p4c puts every non-header value a program keeps (the metadata struct's fields, local
variables, compiler temporaries) into one metadata header instance "scalars" of type
"scalars_0". BMv2 headers must be a whole number of bytes, so a final `_padding_N` field
rounds the type up (as in the kit's JSON).
"""
from __future__ import annotations

from . import ir
from .names import NameGenerator
from .unsupported import Unsupported

SCALARS = "scalars"
SCALARS_TYPE = "scalars_0"


class ScalarAllocator:
    def __init__(self):
        self.fields: list[tuple[str, int, bool]] = []
        self._names = NameGenerator()

    @staticmethod
    def _check_scalar(name: str, t: ir.Type) -> None:
        # a varbit value needs a header instance of its own (storage.allocate_local_varbit):
        # `scalars` is one fixed-width header
        if isinstance(t, ir.Varbit):
            raise Unsupported(None, f"a varbit value in '{name}' (metadata fields, parameters "
                                    f"and temporaries of varbit type) is not supported")

    def add(self, name: str, t: ir.Type) -> ir.FieldRef:
        """A field with exactly this name (metadata fields: "meta_t.x")."""
        self._check_scalar(name, t)
        self._names.reserve(name)
        self.fields.append((name, t.width, bool(getattr(t, "signed", False))))
        return ir.FieldRef(SCALARS, name, t)

    def temp(self, base: str, t: ir.Type) -> ir.FieldRef:
        """A fresh field named after base (tmp, tmp_0, key_0, ...)."""
        self._check_scalar(base, t)
        name = self._names.fresh(base)
        self.fields.append((name, t.width, bool(getattr(t, "signed", False))))
        return ir.FieldRef(SCALARS, name, t)

    def header_type(self) -> ir.HeaderType:
        fields = list(self.fields)
        total = sum(w for _, w, _ in fields)
        if total % 8:
            fields.append((self._names.fresh("_padding"), 8 - total % 8, False))
        return ir.HeaderType(SCALARS_TYPE, fields)
