"""Deparser compilation (JSON "deparsers"): emit valid headers in order, then the payload."""

from __future__ import annotations

from ..errors import LoadError
from .codegen import CodeGen, FunctionBuilder
from .phv import HeaderInfo, Layout

__all__ = ["compile_deparser", "pack_expression"]


def pack_expression(h: HeaderInfo, base: int | None = None) -> str:
    """Python source of the header's bits as one integer (fields stored unsigned in F)."""
    base = h.base if base is None else base
    parts, shift = [], h.nbits
    for k, (_, width, _) in enumerate(h.fields):
        shift -= width
        parts.append(f"(F[{base + k}] << {shift})" if shift else f"F[{base + k}]")
    return " | ".join(parts) if parts else "0"


def compile_deparser(d: dict, layout: Layout, gen: CodeGen, fname: str) -> None:
    if d.get("primitives"):
        ops = sorted({p.get("op", "?") for p in d["primitives"]})
        raise LoadError(f"deparser primitives are not supported: {', '.join(ops)}")
    fb = FunctionBuilder(f"{fname}(F, P)")
    fb.emit("out = b''")
    for name in d.get("order", []):
        h = layout.header(name)
        if h.nbits % 8:
            raise LoadError(f"header {name!r} is {h.nbits} bits, not a whole number of bytes (deparser)")
        fb.emit(f"if F[{h.valid_slot}]: out += ({pack_expression(h)}).to_bytes({h.nbytes}, 'big')")
    fb.emit("return out + P.payload")
    gen.add(fb)
