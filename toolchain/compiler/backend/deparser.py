"""Deparser converter: the order in which valid headers are emitted."""
from __future__ import annotations

from ..midend import ir
from .source_info import attach


def deparsers(program: ir.Program) -> list:
    out = []
    for i, d in enumerate(program.deparsers):
        obj = {"name": d.name, "id": i}
        attach(obj, d.source)
        obj["order"] = list(d.order)
        obj["primitives"] = []
        out.append(obj)
    return out
