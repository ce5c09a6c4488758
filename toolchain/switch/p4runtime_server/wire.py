"""Register and counter cells in protobuf's wire format, written and read by hand.

A controller reads a register or counter array whole (the gateway's EPDN table: 65,536
cells); with protobuf's pure-Python implementation (the one p4runtime-shell's pinned
protobuf 3.20 has on Python 3.11) every cell costs four message objects, over 100 us each, on
both sides. These functions encode and decode exactly those entities (p4runtime.proto's field
numbers, fixed by the specification), about fifty times faster; everything else goes
through the generated classes.

    Entity         register_entry = 11, counter_entry = 7
    RegisterEntry  register_id = 1, index = 2 (Index: index = 1), data = 3 (P4Data: bitstring = 1)
    CounterEntry   counter_id = 1, index = 2, data = 3 (CounterData: byte_count = 1, packet_count = 2)
    ReadResponse   entities = 1
"""
from __future__ import annotations

__all__ = ["register_entity", "counter_entity", "read_response", "decode_cells"]

_LEN, _VARINT = 2, 0


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num: int, payload: bytes) -> bytes:
    return _varint((num << 3) | _LEN) + _varint(len(payload)) + payload


def _uint(num: int, value: int) -> bytes:
    return _varint(num << 3) + _varint(value) if value else b""


def register_entity(register_id: int, index: int, value_bytes: bytes) -> bytes:
    body = (_uint(1, register_id) + _field(2, _uint(1, index))
            + _field(3, _field(1, value_bytes)))
    return _field(11, body)


def counter_entity(counter_id: int, index: int, packets: int, nbytes: int) -> bytes:
    body = (_uint(1, counter_id) + _field(2, _uint(1, index))
            + _field(3, _uint(1, nbytes) + _uint(2, packets)))
    return _field(7, body)


def read_response(entities: list[bytes]) -> bytes:
    """A serialized ReadResponse holding the serialized entities."""
    return b"".join(_field(1, e) for e in entities)


def _read_varint(b: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        byte = b[i]
        i += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, i
        shift += 7
        if shift > 70:
            raise ValueError("varint too long")


def _fields(b: bytes):
    """(field number, wire type, value) of a message's fields (varints and length-delimited)."""
    i, n = 0, len(b)
    while i < n:
        tag, i = _read_varint(b, i)
        num, wt = tag >> 3, tag & 7
        if wt == _VARINT:
            v, i = _read_varint(b, i)
        elif wt == _LEN:
            ln, i = _read_varint(b, i)
            v, i = b[i:i + ln], i + ln
            if i > n:
                raise ValueError("truncated field")
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        yield num, wt, v


def decode_cells(response: bytes) -> list[tuple[str, int, int, tuple]]:
    """(kind, id, index, value) of each register or counter entity of a serialized
    ReadResponse: value (int,) for a register, (packets, bytes) for a counter. ValueError
    for anything else."""
    out = []
    for num, wt, ent in _fields(response):
        if num != 1 or wt != _LEN:
            continue
        for kind_num, _, body in _fields(ent):
            kind = {11: "register", 7: "counter"}.get(kind_num)
            if kind is None:
                raise ValueError(f"not a register or counter entity (field {kind_num})")
            oid = index = 0
            value: tuple = (0,) if kind == "register" else (0, 0)
            for f, _, v in _fields(body):
                if f == 1:
                    oid = v
                elif f == 2:
                    index = next((x for g, _, x in _fields(v) if g == 1), 0)
                elif f == 3 and kind == "register":
                    bits = next((x for g, _, x in _fields(v) if g == 1), b"")
                    value = (int.from_bytes(bits, "big"),)
                elif f == 3:
                    d = dict((g, x) for g, _, x in _fields(v))
                    value = (d.get(2, 0), d.get(1, 0))
            out.append((kind, oid, index, value))
    return out
