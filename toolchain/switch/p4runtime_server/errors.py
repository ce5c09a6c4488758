"""P4Runtime errors: a gRPC status code and a one-line message (P4Runtime specification
§12 "Error reporting"), and the byte-string encoding of values (§8.3, "Bytestrings").

A value of a `bit<W>` field travels as a big-endian byte string. The canonical form has no
leading zero bytes (zero is one byte, 0x00); a server must also accept a string padded with
zero bytes up to ceil(W/8) (what p4c and the p4lang tutorials' tools send). A string longer
than that, or whose value needs more than W bits, is INVALID_ARGUMENT. Values this server
returns are canonical.
"""
from __future__ import annotations

import grpc

__all__ = ["P4RTError", "Code", "to_int", "to_bytes", "each_once"]

Code = grpc.StatusCode


class P4RTError(Exception):
    """An operation refused; ``code`` a grpc.StatusCode, str() the one-line message."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def to_int(data: bytes, bitwidth: int, what: str) -> int:
    """A byte string as the value of a ``bitwidth``-bit field; P4RTError if it does not fit."""
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise P4RTError(Code.INVALID_ARGUMENT, f"{what}: empty byte string")
    if len(data) > max(1, (bitwidth + 7) // 8):
        raise P4RTError(Code.INVALID_ARGUMENT,
                        f"{what}: {len(data)} bytes for a {bitwidth}-bit value")
    v = int.from_bytes(data, "big")
    if v >> bitwidth:
        raise P4RTError(Code.INVALID_ARGUMENT,
                        f"{what}: value {v:#x} does not fit in {bitwidth} bits")
    return v


def each_once(items, id_of, known: dict, owner: str, what: str, value,
              name_of=lambda info: info.name) -> dict:
    """{id: value(info, item)} of a message's repeated ``items`` (match fields, action
    parameters, packet metadata), each named by its id (``id_of(item)``) among ``known``
    ({id: info}, ``name_of(info)`` its name): INVALID_ARGUMENT for an id not there and for
    one given twice, as simple_switch_grpc refuses them."""
    out: dict = {}
    for item in items:
        i = id_of(item)
        info = known.get(i)
        if info is None:
            raise P4RTError(Code.INVALID_ARGUMENT, f"{owner}: no {what} with id {i}")
        if i in out:
            raise P4RTError(Code.INVALID_ARGUMENT,
                            f"{owner}: {what} {name_of(info)} given twice")
        out[i] = value(info, item)
    return out


def to_bytes(value: int, bitwidth: int | None = None) -> bytes:
    """The canonical byte string of a non-negative value (at least one byte)."""
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
