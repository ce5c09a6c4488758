"""The P4Runtime server of a switch: gRPC on HOST:PORT, calls run on the switch's thread.

    server = P4RuntimeServer(slot, "127.0.0.1:0", device_id=0, cpu_port=peer)
    server.start()                      # server.port: the port bound
    ...
    server.stop()

``slot`` is what the server acts on: ``slot.sw`` the running switch (a SimpleSwitch, or
``NullSwitch`` before the first pipeline), ``slot.replace(sw, json_text)`` installs another
one, ``slot.now_us()`` the switch's clock. ``executor`` runs a function on the switch's thread:
``LoopExecutor`` for the switch process (its selectors loop runs the calls between packets),
``LockExecutor`` where the caller's thread may act on the switch under a lock (tests).
"""
from __future__ import annotations

import concurrent.futures
import queue
import socket
import threading
from typing import Optional

from netbase.packet_socket import SocketPairPort
from netbase.wakeup import Wakeup

from .device import Device
from .errors import Code, P4RTError
from .packet_io import PacketIO
from .service import P4RuntimeService

__all__ = ["P4RuntimeServer", "LoopExecutor", "LockExecutor", "CpuPort", "SwitchSlot",
           "parse_address", "P4RuntimeUnavailable", "CALL_TIMEOUT_S"]

CALL_TIMEOUT_S = 30.0               # a call the switch's thread has not run by then: UNAVAILABLE
MAX_MESSAGE = 64 * 1024 * 1024      # bytes of one gRPC message (a BMv2 JSON of the largest
#                                     programs fits; protobuf's own limit is 2 GiB)
GRPC_WORKERS = 16


class P4RuntimeUnavailable(Exception):
    """The gRPC or P4Runtime packages are missing, or the address cannot be bound."""


def modules():
    """(grpc, p4runtime_pb2, p4runtime_pb2_grpc); P4RuntimeUnavailable names what is missing."""
    try:
        import grpc
        from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
    except ImportError as e:
        raise P4RuntimeUnavailable(f"the P4Runtime server needs the grpcio, protobuf and "
                                   f"p4runtime packages (pip install p4runtime grpcio): {e}") \
            from None
    return grpc, p4runtime_pb2, p4runtime_pb2_grpc


def parse_address(text: str) -> tuple[str, int]:
    """HOST:PORT (an IPv6 host in brackets); ValueError with a one-line message."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--grpc-server-addr {text!r}: expected HOST:PORT")
    return host.strip("[]"), int(port)


class CpuPort(SocketPairPort):
    """The CPU port: the switch's end of a datagram socket pair (the server holds the
    other). A frame the controller's end cannot take is dropped and counted, never blocks
    the switch."""

    def __init__(self, port: int):
        super().__init__(port, ifname="cpu")
        self.peer.setblocking(False)
        for s in (self.sock, self.peer):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)

    def send(self, frame: bytes) -> bool:
        try:
            self.sock.send(frame)
        except OSError:
            self.tx_errors += 1
            return False
        self.tx_packets += 1
        return True


class SwitchSlot:
    """The running switch of a ControlHost (and of the process's loop, when there is one)."""

    def __init__(self, host, proc=None):
        self.host, self.proc = host, proc

    @property
    def sw(self):
        return self.host.sw

    def now_us(self) -> int:
        return self.host.now_us()

    def replace(self, sw, json_text: str) -> None:
        """Run ``sw`` at once: the Thrift API, the P4Runtime API and the data path."""
        self.host.sw = self.host.running = sw
        self.host.config_text = json_text
        if self.proc is not None:
            old, self.proc.sw = self.proc.sw, sw
            del old


class LockExecutor:
    """Runs each call on the caller's thread under one lock."""

    def __init__(self):
        self.lock = threading.Lock()

    def run(self, fn, *args):
        with self.lock:
            return fn(*args)


class LoopExecutor:
    """Hands calls to a selectors loop: ``attach(sel)`` registers its wake-up socket with the
    data ``("call", self.run_pending)``; the loop calls ``run_pending()`` when it is readable."""

    def __init__(self, timeout: float = CALL_TIMEOUT_S):
        self.calls: queue.SimpleQueue = queue.SimpleQueue()
        self.wakeup = Wakeup()
        self.timeout = timeout
        self.thread: Optional[threading.Thread] = None
        self.closed = False

    def attach(self, sel) -> None:
        import selectors
        sel.register(self.wakeup.reader, selectors.EVENT_READ, ("call", self.run_pending))

    def run(self, fn, *args):
        if threading.current_thread() is self.thread:
            return fn(*args)                 # already on the switch's thread
        if self.closed:
            raise P4RTError(Code.UNAVAILABLE, "the switch is stopping")
        fut: concurrent.futures.Future = concurrent.futures.Future()
        self.calls.put((fut, fn, args))
        self.wakeup.wake()
        try:
            return fut.result(self.timeout)
        except concurrent.futures.TimeoutError:
            raise P4RTError(Code.UNAVAILABLE, "the switch did not answer in time") from None

    def run_pending(self) -> None:
        self.thread = threading.current_thread()
        self.wakeup.drain()
        while True:
            try:
                fut, fn, args = self.calls.get_nowait()
            except queue.Empty:
                return
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn(*args))
            except BaseException as e:      # noqa: BLE001 - handed back to the caller
                fut.set_exception(e)

    def close(self) -> None:
        self.closed = True
        while True:
            try:
                fut, _, _ = self.calls.get_nowait()
            except queue.Empty:
                break
            fut.set_exception(P4RTError(Code.UNAVAILABLE, "the switch is stopping"))
        self.wakeup.close()


class P4RuntimeServer:
    def __init__(self, slot, address: str, *, executor=None, device_id: int = 0,
                 cpu_port: Optional[CpuPort] = None, seed: int = 0):
        grpc, pb, _ = modules()
        self.grpc, self.pb = grpc, pb
        self.host_name, port = parse_address(address)
        self.executor = executor or LockExecutor()
        self.device = Device(slot, pb, seed=seed)
        self.cpu_port = cpu_port
        self.service = P4RuntimeService(self.device, self.executor, device_id, pb)
        if cpu_port is not None:
            self.service.packets = PacketIO(self.device, cpu_port.peer, self.service.arbiter,
                                            self.executor, pb)
        self.server = grpc.server(
            concurrent.futures.ThreadPoolExecutor(max_workers=GRPC_WORKERS,
                                                  thread_name_prefix="p4rt"),
            options=[("grpc.max_receive_message_length", MAX_MESSAGE),
                     ("grpc.max_send_message_length", MAX_MESSAGE),
                     ("grpc.so_reuseport", 0)])
        self.server.add_generic_rpc_handlers((self._handlers(grpc, pb),))
        target = f"[{self.host_name}]:{port}" if ":" in self.host_name else \
            f"{self.host_name}:{port}"
        try:
            self.port = self.server.add_insecure_port(target)
        except RuntimeError as e:
            raise P4RuntimeUnavailable(f"cannot listen for P4Runtime on {address}: {e}") \
                from None
        if not self.port:
            raise P4RuntimeUnavailable(f"cannot listen for P4Runtime on {address} (in use?)")

    def _handlers(self, grpc, pb):
        """The service's methods, each parsing its own request: gRPC's deserializer would
        answer a malformed protobuf with INTERNAL (and grpcio leaks a worker thread each
        time, so a client sending garbage could stall the server); here it is
        INVALID_ARGUMENT, as for any other bad request."""
        svc = self.service

        def parse(kind, data, context):
            msg = getattr(pb, kind)()
            try:
                msg.ParseFromString(data)
            except Exception:            # noqa: BLE001 - protobuf's DecodeError and kin
                context.abort(Code.INVALID_ARGUMENT, f"malformed {kind} (not a protobuf of "
                                                     "that message)")
            return msg

        def unary(name, kind, streaming=False):
            fn = getattr(svc, name)
            if streaming:                # Read: messages, or ReadResponses serialized by hand
                return grpc.unary_stream_rpc_method_handler(
                    lambda data, ctx: fn(parse(kind, data, ctx), ctx),
                    response_serializer=lambda m: m if isinstance(m, bytes)
                    else m.SerializeToString())
            return grpc.unary_unary_rpc_method_handler(
                lambda data, ctx: fn(parse(kind, data, ctx), ctx),
                response_serializer=lambda m: m.SerializeToString())

        def stream(data_iter, ctx):
            def messages():          # None for a malformed message: the stream ends on it
                for data in data_iter:
                    msg = pb.StreamMessageRequest()
                    try:
                        msg.ParseFromString(data)
                    except Exception:    # noqa: BLE001 - protobuf's DecodeError and kin
                        msg = None
                    yield msg
            return svc.StreamChannel(messages(), ctx)

        methods = {
            "Write": unary("Write", "WriteRequest"),
            "Read": unary("Read", "ReadRequest", streaming=True),
            "SetForwardingPipelineConfig": unary("SetForwardingPipelineConfig",
                                                 "SetForwardingPipelineConfigRequest"),
            "GetForwardingPipelineConfig": unary("GetForwardingPipelineConfig",
                                                 "GetForwardingPipelineConfigRequest"),
            "Capabilities": unary("Capabilities", "CapabilitiesRequest"),
            "StreamChannel": grpc.stream_stream_rpc_method_handler(
                stream, response_serializer=lambda m: m.SerializeToString()),
        }
        return grpc.method_handlers_generic_handler("p4.v1.P4Runtime", methods)

    @property
    def address(self) -> str:
        return f"{self.host_name}:{self.port}"

    def start(self) -> None:
        self.server.start()
        if self.service.packets is not None:
            self.service.packets.start()

    def stop(self, grace: float = 0.5) -> None:
        if self.service.packets is not None:
            self.service.packets.stop()
        self.server.stop(grace).wait(grace + 2)
