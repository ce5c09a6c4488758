"""Calculations (JSON "calculations") and checksums (JSON "checksums").

A calculation serialises its inputs into one byte buffer and runs a hash algorithm on it.
As BMv2's ``BufBuilder`` does, field bits are concatenated without padding between them;
a buffer that does not end on a byte boundary is padded with zero bits at the end, and
fields of packet headers that are not valid are skipped.
``{"type": "payload"}`` appends the packet's payload: the bytes the parser did not
extract (this is how ``update_checksum_with_payload`` covers TCP data and options).

Checksums run per simple_switch: ``verify`` ones after the parser (a mismatch sets
``standard_metadata.checksum_error``), ``update`` ones just before the deparser, in order.
"""

from __future__ import annotations

import struct

from ..errors import LoadError
from .codegen import CodeGen, FunctionBuilder
from .expressions import ExprCompiler
from .hash_algos import KNOWN_ALGORITHMS
from .phv import Layout

__all__ = ["compile_calculation", "compile_checksums"]


def _input_parts(inputs: list, layout: Layout, expr: ExprCompiler):
    """[(source, width, validity slot or None)] of the non-payload inputs, and whether the
    payload is appended. A field of a packet header carries its header's validity slot."""
    parts: list[tuple[str, int, int | None]] = []
    payload = False
    for e in inputs:
        t, v = e.get("type"), e.get("value")
        if payload:
            raise LoadError("calculation input after 'payload' is not supported")
        if t == "field":
            slot = layout.slot(v[0], v[1])
            h = layout.header(v[0]) if v[0] in layout.headers else None
            valid = h.valid_slot if h is not None and not h.metadata and v[1] != "$valid$" else None
            width = layout.widths[slot]
            if h is not None and h.varbit is not None and slot == h.base + h.varbit:
                width = f"F[{h.len_slot}]"          # a varbit field counts with its current length
            parts.append((f"F[{slot}]", width, valid))
        elif t == "hexstr":
            width = e.get("bitwidth")
            if width is None:
                raise LoadError("calculation input hexstr without 'bitwidth'")
            parts.append((str(int(v, 16) & ((1 << width) - 1)), int(width), None))
        elif t == "header":
            h = layout.header(v)
            for k, _, width, _ in h.packet_fields:
                width = f"F[{h.len_slot}]" if k == h.varbit else width
                parts.append((f"F[{h.base + k}]", width, None if h.metadata else h.valid_slot))
        elif t == "expression":
            width = e.get("bitwidth")
            if width is None:
                raise LoadError("calculation input expression without 'bitwidth'")
            parts.append((f"(({expr.value(e)}) & {(1 << width) - 1})", int(width), None))
        elif t == "payload":
            payload = True
        else:
            raise LoadError(f"unsupported calculation input type {t!r}")
    return parts, payload


def _static_value(parts) -> tuple[str, int]:
    """(source of the inputs as one integer, padded to whole bytes; its size in bytes)."""
    total = sum(w for _, w, _ in parts)
    pad = (-total) % 8
    code, shift = [], total + pad
    for src, width, _ in parts:
        shift -= width
        code.append(f"({src} << {shift})" if shift else src)
    return ("(" + " | ".join(code) + ")" if code else "(0)"), (total + pad) // 8


_STRUCT_CODES = {8: "B", 16: "H", 32: "I", 64: "Q"}


def _struct_pack(parts, gen: CodeGen) -> str | None:
    """Source of the inputs serialised by one ``struct`` pack (big-endian), when every input
    is 8, 16, 32 or 64 bits wide (then the buffer needs no padding and each value is within its
    width, as the PHV keeps every field); None otherwise."""
    codes = [_STRUCT_CODES.get(width) if isinstance(width, int) else None for _, width, _ in parts]
    if not codes or None in codes:
        return None
    pack = gen.const(struct.Struct(">" + "".join(codes)).pack, "K")
    return f"{pack}({', '.join(src for src, _, _ in parts)})"


def _emit_general(fb: FunctionBuilder, parts, call) -> None:
    """Build the buffer field by field, skipping invalid headers (widths may be dynamic)."""
    fb.emit("b = n = 0")
    for src, width, valid in parts:
        stmt = f"w = {width}; b = (b << w) | ({src} & ((1 << w) - 1)); n += w" if isinstance(width, str) \
            else f"b = (b << {width}) | {src}; n += {width}"
        fb.emit(f"if F[{valid}]: {stmt}" if valid is not None else stmt)
    fb.emit("pad = -n % 8")
    fb.emit(f"return {call('(b << pad)', '(n + pad) // 8')}")


def _folded_sum(parts, nbytes: int, *, conditional: bool = False) -> str:
    """A small integer congruent (mod 0xFFFF) to the inputs serialised on ``nbytes`` bytes
    (an odd buffer padded with one zero byte), zero exactly when the buffer is all zeros.

    ``conditional``: each run of fields of one optional header counts only while the header
    is valid (BufBuilder leaves invalid headers out); correct when every such run is a whole
    number of 16-bit words (``_runs_keep_word_alignment``), so that leaving it out moves no
    other field off its position modulo 16."""
    shift = nbytes * 8 + (8 if nbytes & 1 else 0)
    terms: list[str] = []
    run_valid, run_terms = None, []

    def close_run() -> None:
        if run_terms:
            body = " + ".join(run_terms)
            terms.append(f"(({body}) if F[{run_valid}] else 0)" if conditional and run_valid is not None
                         else body)

    for src, width, valid in parts:
        if valid != run_valid:
            close_run()
            run_valid, run_terms = valid, []
        shift -= width
        r = shift % 16
        run_terms.append(f"({src} << {r})" if r else src)
    close_run()
    return "(" + " + ".join(terms) + ")" if terms else "0"


def _emit_folded_csum(fb: FunctionBuilder, parts, nbytes: int) -> None:
    """``return csum16`` of the inputs, as ``_csum16_int(_folded_sum(conditional=True), 2)``
    computes it, written as statements: a run of an optional header is added only when the
    header is valid (``if F[v]: s += ...``) instead of adding a 0 for it (on CPython every
    such ``+ 0`` allocates an int: ten IPv4 option words cost ten), and csum16_int's two
    lines are inlined (no call)."""
    shift = nbytes * 8 + (8 if nbytes & 1 else 0)
    runs: list[tuple[int | None, list[str]]] = []
    for src, width, valid in parts:
        if not runs or runs[-1][0] != valid:
            runs.append((valid, []))
        shift -= width
        r = shift % 16
        runs[-1][1].append(f"({src} << {r})" if r else src)
    first = True
    for valid, terms in runs:
        body = " + ".join(terms)
        if first:
            fb.emit(f"s = {body}" if valid is None else f"s = ({body}) if F[{valid}] else 0")
            first = False
        else:
            fb.emit(f"s += {body}" if valid is None else f"if F[{valid}]: s += {body}")
    # csum16_int(s, 2): the ones'-complement sum is s mod 0xFFFF, 0xFFFF for a non-zero
    # multiple (hash_algos.csum16_int); the checksum is its complement
    fb.emit("r = s % 65535")
    fb.emit("if not r and s: r = 65535")
    fb.emit("return ~r & 65535")


def _runs_keep_word_alignment(parts) -> bool:
    """Whether every run of consecutive fields of one optional header is a multiple of 16 bits."""
    run_valid, run_width = None, 0
    for _, width, valid in parts + [(None, 0, None)]:
        if valid != run_valid:
            if run_valid is not None and run_width % 16:
                return False
            run_valid, run_width = valid, 0
        run_width += width
    return True


# calculation function name -> (statements, result expression) of a body that checksums may
# write in place of the call (filled by compile_calculation for the folded csum16 form)
InlineBodies = dict


def compile_calculation(c: dict, layout: Layout, gen: CodeGen, expr: ExprCompiler, fname: str,
                        inline_bodies: InlineBodies | None = None) -> None:
    """``fname(F, P) -> int``: the hash of the calculation's inputs (algorithm ``_H<id>``).

    As BMv2's BufBuilder, fields of packet headers that are not valid are left out of the
    buffer (a checksum over an optional header covers it only when it is present). The
    generated code has a fast path for the common case where every such header is valid.
    csum16 is computed straight from the integer, without serialising it.
    """
    algo = c.get("algo")
    if algo not in KNOWN_ALGORITHMS:
        raise LoadError(f"unsupported hash algorithm {algo!r} (calculation {c.get('name')!r})")
    fb = FunctionBuilder(f"{fname}(F, P)")
    parts, payload = _input_parts(c.get("input", []), layout, expr)
    tail = ", P.payload" if payload else ""

    def call(value: str, nbytes: str) -> str:
        if algo == "csum16":
            return f"_csum16_int({value}, {nbytes}{tail})"
        buf = f"{value}.to_bytes({nbytes}, 'big')"
        return f"_H{c['id']}({buf}{' + P.payload' if payload else ''})"

    valids = sorted({v for _, _, v in parts if v is not None})
    if any(isinstance(w, str) for _, w, _ in parts):
        _emit_general(fb, parts, call)       # a varbit's width is known only per packet
        gen.add(fb)
        return
    value, nbytes = _static_value(parts)
    fast = call(value, str(nbytes))
    packed = _struct_pack(parts, gen)
    if packed is not None and algo != "csum16":
        # the same bytes without building a wide integer first (the 5-tuple of a flow hash is
        # 104 bits: a long integer on both interpreters, and an allocation per shift)
        fast = f"_H{c['id']}({packed}{' + P.payload' if payload else ''})"
    if algo == "csum16" and not (nbytes & 1 and payload):
        # 2^16 == 1 (mod 0xFFFF): each field only needs its shift modulo 16, and the small
        # sum is congruent to the whole buffer (the odd-length pad byte included)
        fast = f"_csum16_int({_folded_sum(parts, nbytes)}, 2{tail})"
    if valids and algo == "csum16" and not payload and _runs_keep_word_alignment(parts):
        # optional headers (e.g. IPv4 options) drop out of the sum without a slow path
        _emit_folded_csum(fb, parts, nbytes)
        if inline_bodies is not None:
            body = [line[4:] for line in fb.lines]
            assert body[-1].startswith("return ")
            inline_bodies[fname] = (body[:-1], body[-1][len("return "):])
    elif valids:
        fb.emit(f"if {' and '.join(f'F[{v}]' for v in valids)}:")
        fb.emit(f"    return {fast}")
        _emit_general(fb, parts, call)
    else:
        fb.emit(f"return {fast}")
    gen.add(fb)


def compile_checksums(checksums: list, calc_names: dict[str, str], layout: Layout, gen: CodeGen,
                      expr: ExprCompiler, verify_name: str, update_name: str,
                      inline_bodies: InlineBodies | None = None) -> None:
    """``verify_name(F, P)`` and ``update_name(F, P)``: every checksum in order. A calculation
    with an inlinable body (``inline_bodies``) is written in place of its call, which saves
    a Python call per checksum and packet (the IPv4 header checksum is verified and updated
    on every packet of the gateway)."""
    inline_bodies = inline_bodies or {}
    n_inlined = [0]

    def emit(fb: FunctionBuilder, cond: str, calc: str, then) -> None:
        """``if cond``: compute calc's value, then the statement ``then(value source)``."""
        body = inline_bodies.get(calc)
        if body is None:
            # on lines of their own: ``then`` may itself be an if statement (verify)
            fb.emit(f"if {cond}:")
            fb.indent()
            fb.emit(then(f"{calc}(F, P)"))
            fb.dedent()
            return
        n_inlined[0] += 1
        lines, result = body
        value = f"_ck{n_inlined[0]}"
        fb.emit(f"if {cond}:")
        fb.indent()
        fb.emit_all(lines)
        fb.emit(f"{value} = {result}")
        fb.emit(then(value))
        fb.dedent()

    verify = FunctionBuilder(f"{verify_name}(F, P)")
    update = FunctionBuilder(f"{update_name}(F, P)")
    err_slot = layout.slot("standard_metadata", "checksum_error") \
        if layout.has_field("standard_metadata", "checksum_error") else None
    for ck in checksums:
        if ck.get("type", "generic") == "ipv4":
            raise LoadError(f"checksum {ck.get('name')!r}: type 'ipv4' (BMv2's built-in IPv4 "
                            "header checksum, which P4_14 compilers wrote) is not supported")
        if ck.get("type", "generic") != "generic":
            raise LoadError(f"unsupported checksum type {ck.get('type')!r}")
        calc = calc_names.get(ck.get("calculation"))
        if calc is None:
            raise LoadError(f"checksum {ck.get('name')!r}: unknown calculation {ck.get('calculation')!r}")
        tgt = ck["target"]
        slot = layout.slot(tgt[0], tgt[1])
        mask = (1 << layout.widths[slot]) - 1
        cond = expr.condition(ck["if_cond"]) if ck.get("if_cond") else "True"
        if ck.get("verify", True) and err_slot is not None:
            emit(verify, cond, calc, lambda v: f"if ({v} & {mask}) != F[{slot}]: F[{err_slot}] = 1")
        if ck.get("update", True):
            emit(update, cond, calc, lambda v: f"F[{slot}] = {v} & {mask}")
    gen.add(verify)
    gen.add(update)
