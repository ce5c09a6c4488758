"""Deparser compilation (JSON "deparsers"): emit valid headers in order, then the payload."""

from __future__ import annotations

import struct

from ..errors import LoadError
from .codegen import CodeGen, FunctionBuilder
from .parser import byte_chunks, struct_codes, varbit_layout
from .phv import HeaderInfo, Layout

__all__ = ["compile_deparser"]


def _emit_varbit_header(fb: FunctionBuilder, h: HeaderInfo) -> None:
    """A header with a varbit field: its size depends on the field's current length."""
    L = f"F[{h.len_slot}]"
    parts = [f"(F[{h.base + k}] << ({shift}))" for k, shift, _ in varbit_layout(h, L)]
    fb.emit(f"if F[{h.valid_slot}]: out += ({' | '.join(parts)}).to_bytes(({L} + {h.nbits}) // 8, 'big')")


def _emit_struct_header(fb: FunctionBuilder, gen: CodeGen, h: HeaderInfo) -> None:
    """``out += pack(...)`` with one precompiled ``struct`` per header: each byte-aligned chunk
    of fields becomes one or more struct codes (a 48-bit MAC is an I and an H)."""
    fmt, args, pre = "!", [], []
    for chunk in byte_chunks(h):
        nbytes = sum(w for _, w in chunk) // 8
        codes = struct_codes(nbytes)
        fmt += "".join(c for c, _ in codes)
        if len(chunk) == 1:
            value = f"F[{h.base + chunk[0][0]}]"
        else:
            parts, shift = [], nbytes * 8
            for k, w in chunk:
                shift -= w
                parts.append(f"(F[{h.base + k}] << {shift})" if shift else f"F[{h.base + k}]")
            value = "(" + " | ".join(parts) + ")"
        if len(codes) == 1:
            args.append(value)
            continue
        tmp = fb.tmp("d")
        pre.append(f"{tmp} = {value}")
        shift = nbytes * 8
        for _, size in codes:
            shift -= size * 8
            src = f"({tmp} >> {shift})" if shift else tmp
            args.append(f"{src} & {(1 << (size * 8)) - 1}" if shift + size * 8 < nbytes * 8 else src)
    pack = gen.const(struct.Struct(fmt).pack, "K")
    fb.emit(f"if F[{h.valid_slot}]:")
    fb.indent()
    fb.emit_all(pre)
    fb.emit(f"out += {pack}({', '.join(args)})")
    fb.dedent()


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
        _emit_struct_header(fb, gen, h)
    fb.emit("return out + P.payload")
    gen.add(fb)
