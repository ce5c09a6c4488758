"""The P4Runtime gRPC service (p4.v1.P4Runtime): Write, Read, SetForwardingPipelineConfig,
GetForwardingPipelineConfig, Capabilities and StreamChannel.

gRPC runs each call on a thread of its pool; the switch's state belongs to the switch's own
thread, so every call that touches it is handed over (``executor.run``) and runs there between
packets. Errors follow the specification's §12: a call that fails as a whole ends with its
status code and a one-line message; a Write whose updates fail ends with UNKNOWN and, in the
status details (`grpc-status-details-bin`, a google.rpc.Status), one p4.v1.Error per update
in order, OK for those that were applied (CONTINUE_ON_ERROR: the others still are).
Atomicity ROLLBACK_ON_ERROR and DATAPLANE_ATOMIC are UNIMPLEMENTED, as in simple_switch_grpc.
"""
from __future__ import annotations

import logging
import queue
import threading

import grpc

from .arbitration import Arbiter, Stream, election_key
from .errors import Code, P4RTError

__all__ = ["P4RuntimeService", "API_VERSION"]

log = logging.getLogger("rdtcp-switch")

API_VERSION = "1.4.0"
STREAM_QUEUE = 4096                # responses waiting for a slow stream before it is cut off


def _abort(context, e: P4RTError):
    context.abort(e.code, e.message)


def _write_failure(context, errors, pb) -> None:
    from google.protobuf import any_pb2
    from google.rpc import status_pb2
    status = status_pb2.Status(code=Code.UNKNOWN.value[0], message="Write failure.")
    for e in errors:
        err = pb.Error()
        if e is None:
            err.canonical_code = 0
        else:
            err.canonical_code = e.code.value[0]
            err.message = e.message
        detail = any_pb2.Any()
        detail.Pack(err)
        status.details.append(detail)
    first = next(e for e in errors if e is not None)
    context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
    context.abort(Code.UNKNOWN, f"Write failure: {first.message}" if len(errors) == 1
                  else f"Write failure: {sum(e is not None for e in errors)} of "
                       f"{len(errors)} updates failed (first: {first.message})")


def _role(request) -> str:
    if request.role:
        return request.role
    return f"#{request.role_id}" if request.role_id else ""


class P4RuntimeService:
    """``device``: device.Device; ``executor.run(fn, *args)`` runs on the switch's thread;
    ``packets``: the packet I/O (packet_io.PacketIO) or None."""

    def __init__(self, device, executor, device_id: int, pb, packets=None):
        self.device, self.executor, self.device_id, self.pb = device, executor, device_id, pb
        self.arbiter = Arbiter(device_id, pb)
        self.packets = packets

    # -- helpers ------------------------------------------------------------------------------
    def _run(self, context, fn, *args):
        try:
            return self.executor.run(fn, *args)
        except P4RTError as e:
            _abort(context, e)

    def _check_device(self, context, device_id: int) -> None:
        if device_id != self.device_id:
            context.abort(Code.NOT_FOUND, f"device id {device_id} is not this switch's "
                                          f"({self.device_id})")

    def _check_primary(self, context, request) -> None:
        election = election_key(request.election_id) if request.HasField("election_id") else None
        if not self.arbiter.is_primary(_role(request), election):
            context.abort(Code.PERMISSION_DENIED, "not the primary controller of its role (its "
                                                  "election id is not the highest of an open "
                                                  "stream)")

    # -- RPCs ---------------------------------------------------------------------------------
    def Write(self, request, context):
        self._check_device(context, request.device_id)
        self._check_primary(context, request)
        if request.atomicity != 0:
            context.abort(Code.UNIMPLEMENTED, "only CONTINUE_ON_ERROR atomicity")
        errors = self._run(context, self.device.write, list(request.updates))
        if any(e is not None for e in errors):
            _write_failure(context, errors, self.pb)
        return self.pb.WriteResponse()

    def Read(self, request, context):
        self._check_device(context, request.device_id)
        responses = self._run(context, self.device.read, list(request.entities))
        yield from responses or [self.pb.ReadResponse()]

    def SetForwardingPipelineConfig(self, request, context):
        self._check_device(context, request.device_id)
        self._check_primary(context, request)
        self._run(context, self.device.set_pipeline, request.action, request.config)
        return self.pb.SetForwardingPipelineConfigResponse()

    def GetForwardingPipelineConfig(self, request, context):
        self._check_device(context, request.device_id)
        cfg = self._run(context, self.device.get_config, request.response_type)
        return self.pb.GetForwardingPipelineConfigResponse(config=cfg)

    def Capabilities(self, request, context):
        return self.pb.CapabilitiesResponse(p4runtime_api_version=API_VERSION)

    def StreamChannel(self, request_iterator, context):
        out: queue.Queue = queue.Queue(STREAM_QUEUE)

        def send(resp) -> None:
            try:
                out.put_nowait(resp)
            except queue.Full:       # a client that stopped reading loses its stream
                out.queue.clear()
                out.put_nowait(("abort", Code.RESOURCE_EXHAUSTED, "stream not read: closed"))

        stream = Stream(send)
        reader = threading.Thread(target=self._read_stream, name="p4rt-stream",
                                  args=(request_iterator, stream, send), daemon=True)
        context.add_callback(lambda: self.arbiter.leave(stream))
        reader.start()
        try:
            while context.is_active():
                try:
                    item = out.get(timeout=0.5)
                except queue.Empty:
                    continue
                if item is None:
                    return
                if isinstance(item, tuple):
                    context.abort(item[1], item[2])
                yield item
        finally:
            self.arbiter.leave(stream)

    def _read_stream(self, requests, stream: Stream, send) -> None:
        try:
            for msg in requests:
                if msg is None:
                    send(("abort", Code.INVALID_ARGUMENT, "malformed StreamMessageRequest"))
                    return
                which = msg.WhichOneof("update")
                if which == "arbitration":
                    err = self.arbiter.update(stream, msg.arbitration)
                    if err is not None:
                        send(("abort", getattr(Code, err[0]), err[1]))
                        return
                elif stream.role is None:
                    send(("abort", Code.FAILED_PRECONDITION,
                          "the first message of a stream must be an arbitration update"))
                    return
                elif which == "packet":
                    self._packet_out(stream, msg.packet, send)
                elif which == "digest_ack":
                    self._digest_ack(stream, msg.digest_ack, send)
                else:
                    self._stream_error(send, Code.UNIMPLEMENTED, f"stream message {which}")
        except grpc.RpcError:
            pass                     # the client went away: the callback cleans up
        except Exception:            # noqa: BLE001 - a bug ends this stream, not the switch
            log.exception("P4Runtime stream failed")
            send(("abort", Code.INTERNAL, "internal error in the stream"))
        finally:
            self.arbiter.leave(stream)
            send(None)

    def _stream_error(self, send, code, message: str, packet=None, ack=None) -> None:
        resp = self.pb.StreamMessageResponse()
        resp.error.canonical_code = code.value[0]
        resp.error.message = message
        if packet is not None:
            resp.error.packet_out.packet_out.CopyFrom(packet)
        if ack is not None:
            resp.error.digest_list_ack.digest_list_ack.CopyFrom(ack)
        send(resp)

    def _packet_out(self, stream: Stream, packet, send) -> None:
        if self.arbiter.primaries(stream.role) is not stream:
            self._stream_error(send, Code.PERMISSION_DENIED, "PacketOut from a stream that is "
                                                             "not the primary", packet=packet)
            return
        if self.packets is None:
            self._stream_error(send, Code.UNIMPLEMENTED, "this switch has no CPU port",
                               packet=packet)
            return
        try:
            self.packets.packet_out(packet)
        except P4RTError as e:
            self._stream_error(send, e.code, e.message, packet=packet)

    def _digest_ack(self, stream: Stream, ack, send) -> None:
        if self.packets is None:
            return
        try:
            self.executor.run(self.packets.digest_ack, ack)
        except P4RTError as e:
            self._stream_error(send, e.code, e.message, ack=ack)
