"""Deparser compilation (JSON "deparsers"): emit valid headers in order, then the payload."""

from __future__ import annotations

from ..errors import LoadError
from .codegen import CodeGen, FunctionBuilder
from .parser import varbit_layout
from .phv import HeaderInfo, Layout

__all__ = ["compile_deparser", "pack_expression"]


def _emit_varbit_header(fb: FunctionBuilder, h: HeaderInfo) -> None:
    """A header with a varbit field: its size depends on the field's current length."""
    L = f"F[{h.len_slot}]"
    parts = [f"(F[{h.base + k}] << ({shift}))" for k, shift, _ in varbit_layout(h, L)]
    fb.emit(f"if F[{h.valid_slot}]: out += ({' | '.join(parts)}).to_bytes(({L} + {h.nbits}) // 8, 'big')")


def pack_expression(h: HeaderInfo, base: int | None = None) -> str:
    """Python source of the header's bits as one integer (fields stored unsigned in F)."""
    base = h.base if base is None else base
    parts, shift = [], h.nbits
    for k, _, width, _ in h.packet_fields:
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
        if h.varbit is not None:
            _emit_varbit_header(fb, h)
            continue
        if h.nbits % 8:
            raise LoadError(f"header {name!r} is {h.nbits} bits, not a whole number of bytes (deparser)")
        fb.emit(f"if F[{h.valid_slot}]: out += ({pack_expression(h)}).to_bytes({h.nbytes}, 'big')")
    fb.emit("return out + P.payload")
    gen.add(fb)
