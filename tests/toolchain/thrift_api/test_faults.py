"""Clients that send garbage, stop mid-call or call what does not exist: the switch logs them,
drops only that connection and goes on serving everyone else."""

from __future__ import annotations

import socket
import struct

from controller.drivers import ThriftDriver
from tests.toolchain.switch.tables_kit import table_prog


def _still_serves(port: int) -> None:
    d = ThriftDriver(port)
    try:
        assert d.run(["table_num_entries MyIngress.t"]) == ["0"]
    finally:
        d.close()


def _message(name: str, body: bytes = b"\x00", seqid: int = 1) -> bytes:
    """A strict binary-protocol CALL: version|type, name, seqid, then ``body``."""
    raw = name.encode()
    return struct.pack("!iI", -0x7FFF0000 | 1, len(raw)) + raw + struct.pack("!i", seqid) + body


def _send(port: int, data: bytes, *, read: bool = True) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        if not read:
            return b""
        s.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def test_garbage_bytes_drop_only_that_client(start_switch):
    sw = start_switch(table_prog([("exact", "a")]))
    held = ThriftDriver(sw.port)                  # a client connected throughout
    for junk in (b"hello switch\n", b"\xff" * 64, b"\x80\x01\x00\x01\x7f\xff\xff\xff",
                 _message("standard:bm_mt_get_num_entries", b"\x0f\x00\x01\x0b\x7f\xff\xff\xff")):
        assert _send(sw.port, junk) == b""       # no answer: the connection is closed
    assert held.run(["table_add t setr 5 => 7"])[0].endswith("handle 0")
    held.close()
    _still_serves_entries(sw.port)
    assert sw.alive()
    assert "not a Thrift call" in sw.stop()


def _still_serves_entries(port: int) -> None:
    d = ThriftDriver(port)
    try:
        assert d.run(["table_num_entries MyIngress.t"]) == ["1"]
    finally:
        d.close()


def test_disconnect_mid_call_loses_only_that_call(start_switch):
    sw = start_switch(table_prog([("exact", "a")]))
    whole = _message("standard:bm_mt_get_num_entries",
                     b"\x08\x00\x01\x00\x00\x00\x00" + b"\x0b\x00\x02\x00\x00\x00\x0bMyIngress.t" + b"\x00")
    for cut in (3, 10, len(whole) - 1):
        _send(sw.port, whole[:cut], read=False)   # half a message, then gone
    reply = _send(sw.port, whole)                 # the whole one is answered
    assert reply and b"bm_mt_get_num_entries" in reply
    _still_serves(sw.port)
    assert sw.alive()


def test_unknown_service_and_method(start_switch):
    sw = start_switch(table_prog([("exact", "a")]))
    assert _send(sw.port, _message("nosuch:bm_reset_state")) == b""     # as BMv2: hang up
    reply = _send(sw.port, _message("standard:bm_no_such_call"))
    assert b"Unknown function" in reply                                 # TApplicationException
    _still_serves(sw.port)
    assert sw.alive()
