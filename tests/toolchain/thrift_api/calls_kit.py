"""The bytes a Thrift client sends for one call, as simple_switch_CLI sends them (the
multiplexed binary protocol of BMv2's services), for the tests and bench/bench_thrift_frames.py
to feed the switch's Thrift server."""

from __future__ import annotations

from bm_runtime.standard import Standard
from thrift.protocol import TBinaryProtocol, TMultiplexedProtocol
from thrift.transport import TTransport


def encoded(service: str, client_cls, method: str, *args) -> bytes:
    """One call of ``method`` of ``client_cls`` (a generated service module, ``Standard``,
    ``SimplePreLAG``, ...) multiplexed as ``service``."""
    buf = TTransport.TMemoryBuffer()
    proto = TMultiplexedProtocol.TMultiplexedProtocol(TBinaryProtocol.TBinaryProtocol(buf),
                                                      service)
    getattr(client_cls.Client(proto), "send_" + method)(*args)
    return buf.getvalue()


def std_call(method: str, *args) -> bytes:
    """One call of the ``standard`` service."""
    return encoded("standard", Standard, method, *args)
