"""Values between the Thrift API's wire forms and the target's: byte strings, handles, keys.

BMv2 carries match keys, action data and value-set values as big-endian byte strings
(``BmMatchParam``, ``BmActionData``), handles as i32 (an unsigned 32-bit handle above
2**31 travels negative) and register values as i64.
"""

from __future__ import annotations

from ..bm_sim.tables import MatchParam
from ..runtime import OpError

__all__ = ["u32", "i32", "i64", "key_bytes", "data_bytes", "match_params", "wire_match_key"]


def u32(v: int) -> int:
    return v & 0xFFFFFFFF


def i32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def i64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def key_bytes(v: int, width: int) -> bytes:
    """A key value in its field's bytes, as BMv2 stores and returns match keys."""
    return v.to_bytes(max(1, (width + 7) // 8), "big")


def data_bytes(v: int) -> bytes:
    """Action data as BMv2 returns it (Data::get_string): the fewest bytes holding it, at
    least one."""
    return v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big")


def _value(raw: bytes | None, width: int) -> int:
    # BMv2's match units take a key only in its field's byte width (BAD_MATCH_KEY otherwise)
    if raw is None or len(raw) != max(1, (width + 7) // 8):
        raise OpError("table", "BAD_MATCH_KEY")
    return int.from_bytes(raw, "big")


_KIND = {0: "exact", 1: "lpm", 2: "ternary", 3: "valid", 4: "range"}


def match_params(table, params) -> list[MatchParam]:
    """``BmMatchParams`` for ``table``: one per key field, each of the field's match type."""
    if len(params) != len(table.keys):
        raise OpError("table", "BAD_MATCH_KEY")
    out = []
    for p, k in zip(params, table.keys):
        kind = _KIND.get(p.type)
        # an optional key travels as a ternary one (BMv2 has no optional BmMatchParamType)
        if kind != ("ternary" if k.match_type == "optional" else k.match_type):
            raise OpError("table", "BAD_MATCH_KEY")
        out.append(_param(kind, p, k))
    return out


def _param(kind: str, p, k) -> MatchParam:
    w = k.width
    if kind == "exact" and p.exact is not None:
        return MatchParam("exact", _value(p.exact.key, w))
    if kind == "lpm" and p.lpm is not None:
        return MatchParam("lpm", _value(p.lpm.key, w), p.lpm.prefix_length)
    if kind == "ternary" and p.ternary is not None:
        return MatchParam(k.match_type, _value(p.ternary.key, w), _value(p.ternary.mask, w))
    if kind == "valid" and p.valid is not None:
        return MatchParam("valid", int(bool(p.valid.key)))
    if kind == "range" and p.range is not None:
        return MatchParam("range", _value(p.range.start, w), _value(p.range.end_, w))
    raise OpError("table", "BAD_MATCH_KEY")


def wire_match_key(std, table, match: list[MatchParam]) -> list:
    """An entry's key as ``BmMatchParams`` (``std``: the bm_runtime.standard.ttypes module)."""
    out = []
    for m, k in zip(match, table.keys):
        w = k.width
        if m.kind == "lpm":
            out.append(std.BmMatchParam(type=1, lpm=std.BmMatchParamLPM(key_bytes(m.a, w), m.b)))
        elif m.kind in ("ternary", "optional"):
            out.append(std.BmMatchParam(type=2, ternary=std.BmMatchParamTernary(
                key_bytes(m.a, w), key_bytes(m.b, w))))
        elif m.kind == "range":
            out.append(std.BmMatchParam(type=4, range=std.BmMatchParamRange(
                key_bytes(m.a, w), key_bytes(m.b, w))))
        elif m.kind == "valid":
            out.append(std.BmMatchParam(type=3, valid=std.BmMatchParamValid(bool(m.a))))
        else:
            out.append(std.BmMatchParam(type=0, exact=std.BmMatchParamExact(key_bytes(m.a, w))))
    return out
