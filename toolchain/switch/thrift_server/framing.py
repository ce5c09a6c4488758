"""Where one Thrift call ends in a client's byte stream, found as the bytes arrive.

simple_switch's transports are unframed (buffered transport, binary protocol): a call carries
no length, so its end is found by reading its structure. ``MessageScanner`` walks the binary
protocol's encoding (the message header, then the argument struct field by field) without
building anything, and keeps its place between reads: every byte is looked at once, and a
string's bytes not at all (its end is an offset), so finding a call's end takes time linear
in its size, however many reads it arrives in.

It also bounds what the call may make the processor allocate, before the processor runs. The
limits are those BMv2's own calls can need (``LIMITS``, documented in the README's
Reliability section); a call beyond them is refused as BMv2's Thrift server refuses a call it
cannot read (TConnectedClient logs the exception and closes the connection): ``FrameError``,
and the server drops the client. BMv2's C++ Thrift (0.14 and later, ``TConfiguration``)
bounds a message at 100 MB and nesting at 64 levels; the element count of a container it
bounds only through the message's bytes, which let a list of 10^8 empty structs through in
100 MB (an object each to build): here the elements and fields of a call are bounded as
well.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

__all__ = ["FrameError", "FrameLimits", "LIMITS", "MessageScanner"]

_I32 = struct.Struct("!i")
_I16 = struct.Struct("!h")
VERSION_MASK = -65536            # 0xffff0000 as a signed i32
VERSION_1 = -2147418112          # 0x80010000 as a signed i32

# the binary protocol's types (thrift.Thrift.TType)
STOP, BOOL, BYTE, DOUBLE, I16, I32, I64 = 0, 2, 3, 4, 6, 8, 10
STRING, STRUCT, MAP, SET, LIST, UUID = 11, 12, 13, 14, 15, 16
FIXED = {BOOL: 1, BYTE: 1, DOUBLE: 8, I16: 2, I32: 4, I64: 8, UUID: 16}
CONTAINERS = {MAP, SET, LIST}
KNOWN = set(FIXED) | {STRING, STRUCT} | CONTAINERS

# the scanner's stack frames: [kind, ...]
_HEADER, _VALUE, _SKIP, _STRUCT, _SEQ, _MAP = range(6)


@dataclass(frozen=True)
class FrameLimits:
    """What one call may carry.

    ``message``: bytes of one call. BMv2's largest argument is bm_load_new_config's JSON, a
    whole program: 64 MiB holds any p4c output this project has seen many times over.
    ``string``: bytes of one string or binary (the JSON again). ``name``: bytes of the call's
    name ("standard:bm_mt_indirect_ws_set_default_group" is 45). ``items``: the elements of
    every list, set and map of one call and the fields of every struct, together: what the
    processor builds or steps over one by one, a few microseconds each. A call's lists are
    its key fields, its action's parameters, a meter's rates and a learn message's sample ids
    (BMv2 puts 16 in one message unless told otherwise), with a few fields each: hundreds of
    items. ``depth``: nested structs and containers, Thrift's own recursion limit."""

    message: int = 64 << 20
    string: int = 64 << 20
    name: int = 256
    items: int = 1 << 14
    depth: int = 64


LIMITS = FrameLimits()


class FrameError(Exception):
    """The bytes are not a Thrift call this server reads, or exceed a limit; one line."""


class MessageScanner:
    """Finds the end of the call that starts at offset 0 of a growing buffer.

    ``feed(buf)`` returns the call's length once ``buf`` holds all of it, else None (call it
    again when more has arrived: it resumes where it stopped). FrameError for bytes that are
    not a call, or a call beyond ``limits``. ``reset()`` before the next call.
    """

    __slots__ = ("limits", "pos", "stack", "items", "depth")

    def __init__(self, limits: FrameLimits = LIMITS):
        self.limits = limits
        self.reset()

    def reset(self) -> None:
        self.pos = 0
        self.stack: list[list] = [[_HEADER]]
        self.items = 0
        self.depth = 0

    def feed(self, buf) -> int | None:
        n = len(buf)
        stack = self.stack
        pos = self.pos
        try:
            while stack:
                top = stack[-1]
                kind = top[0]
                if kind == _SKIP:                       # the rest of a string
                    if n < top[1]:
                        return None
                    pos = top[1]
                    stack.pop()
                elif kind == _VALUE:
                    t = top[1]
                    size = FIXED.get(t)
                    if size is not None:
                        if n < pos + size:
                            return None
                        pos += size
                        stack.pop()
                    elif t == STRING:
                        if n < pos + 4:
                            return None
                        length = _I32.unpack_from(buf, pos)[0]
                        self._check_string(length, self.limits.string, pos + 4)
                        pos += 4
                        top[0], top[1] = _SKIP, pos + length
                    elif t == STRUCT:
                        self._enter()
                        top[0] = _STRUCT
                    elif t == MAP:
                        if n < pos + 6:
                            return None
                        kt, vt = buf[pos], buf[pos + 1]
                        count = _I32.unpack_from(buf, pos + 2)[0]
                        self._check_container(count, (kt, vt))
                        pos += 6
                        self._enter()
                        stack[-1] = [_MAP, kt, vt, 2 * count]
                    else:                               # LIST or SET
                        if n < pos + 5:
                            return None
                        et = buf[pos]
                        count = _I32.unpack_from(buf, pos + 1)[0]
                        self._check_container(count, (et,))
                        pos += 5
                        self._enter()
                        size = FIXED.get(et)
                        if size is not None:            # fixed-size elements: skip them at once
                            self.depth -= 1
                            top[0], top[1] = _SKIP, pos + size * count
                            self._check_end(top[1])
                        else:
                            stack[-1] = [_SEQ, et, count]
                elif kind == _STRUCT:
                    if n < pos + 1:
                        return None
                    t = buf[pos]
                    if t == STOP:
                        pos += 1
                        self.depth -= 1
                        stack.pop()
                        continue
                    if n < pos + 3:
                        return None
                    self._check_type(t)
                    self._count(1)
                    pos += 3
                    stack.append([_VALUE, t])
                elif kind == _SEQ:
                    if top[2] == 0:
                        self.depth -= 1
                        stack.pop()
                    else:
                        top[2] -= 1
                        stack.append([_VALUE, top[1]])
                elif kind == _MAP:
                    if top[3] == 0:
                        self.depth -= 1
                        stack.pop()
                    else:
                        top[3] -= 1
                        stack.append([_VALUE, top[1] if top[3] % 2 else top[2]])
                else:                                   # _HEADER
                    if n < pos + 8:
                        return None
                    version = _I32.unpack_from(buf, pos)[0]
                    if version >= 0 or version & VERSION_MASK != VERSION_1:
                        raise FrameError("no binary-protocol version header (0x8001)")
                    length = _I32.unpack_from(buf, pos + 4)[0]
                    self._check_string(length, self.limits.name, pos + 8)
                    if n < pos + 8 + length + 4:
                        return None
                    pos += 8 + length + 4               # version, name, seqid
                    stack[-1] = [_VALUE, STRUCT]        # the arguments
            return pos
        finally:
            self.pos = pos
            if stack and n > self.limits.message:   # not over, and already past the limit
                raise FrameError(f"a call of more than {self.limits.message} bytes")

    def _check_end(self, end: int) -> None:
        if end > self.limits.message:
            raise FrameError(f"a call of more than {self.limits.message} bytes")

    def _check_string(self, length: int, limit: int, start: int) -> None:
        if length < 0:
            raise FrameError(f"a string of negative length {length}")
        if length > limit:
            raise FrameError(f"a string of {length} bytes (at most {limit})")
        self._check_end(start + length)

    def _check_type(self, t: int) -> None:
        if t not in KNOWN:
            raise FrameError(f"unknown type {t}")

    def _check_container(self, count: int, types: tuple) -> None:
        for t in types:
            self._check_type(t)
        if count < 0:
            raise FrameError(f"a container of negative size {count}")
        self._count(count * len(types))

    def _count(self, items: int) -> None:
        self.items += items
        if self.items > self.limits.items:
            raise FrameError(f"more than {self.limits.items} container elements and struct "
                             "fields in one call")

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > self.limits.depth:
            raise FrameError(f"structs and containers nested more than {self.limits.depth} "
                             "deep")
