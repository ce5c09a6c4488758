"""Checksum converter: verify_checksum / update_checksum (and *_with_payload) calls.

Each call is a named calculation (externs.calculations) plus a `checksums` entry that says
where the result goes, whether BMv2 verifies it after parsing and/or updates it before
deparsing, and under which condition (JSON_format.md, "checksums").
"""
from __future__ import annotations

from ..midend import ir
from . import expressions as ex
from .source_info import attach


def checksums(program: ir.Program) -> list:
    out = []
    for i, c in enumerate(program.checksums):
        obj = attach({"name": c.name, "id": i}, c.source)
        obj.update({
            "target": [c.target.header, c.target.field],
            "type": "generic",
            "calculation": c.calculation,
            "verify": c.verify,
            "update": c.update,
            "if_cond": None if c.cond is None else ex.condition(c.cond),
        })
        out.append(obj)
    return out
