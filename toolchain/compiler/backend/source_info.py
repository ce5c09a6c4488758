"""The optional `source_info` object p4c attaches to JSON objects (used by BMv2 logs only)."""
from __future__ import annotations

from ..midend import ir


def attach(obj: dict, source: ir.SourceInfo | None) -> dict:
    if source is not None:
        obj["source_info"] = {
            "filename": source.filename,
            "line": source.line,
            "column": source.column,
            "source_fragment": source.fragment,
        }
    return obj
