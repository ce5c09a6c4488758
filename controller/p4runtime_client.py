"""A small P4Runtime client: one switch, by P4Info names (what the p4lang tutorials'
`p4runtime_lib` and p4runtime-shell do, in one module the controller owns).

    c = P4RuntimeClient("127.0.0.1:9559", device_id=0, election_id=1)
    c.set_pipeline("build/rdtcp.p4info.txt", "build/rdtcp.json")   # or c.load_p4info() of the switch's
    c.table_add("MyIngress.ipv4_lpm", "MyIngress.ipv4_forward",
                {"hdr.ipv4.dst_addr": ("10.0.1.0", 24)}, {"dstAddr": "00:00:00:00:01:01", "port": 1})
    c.register_write("MyIngress.port_mtu", 1, 1500)
    c.close()

Values are ints, or text as the tutorials write them: "10.0.1.1" (IPv4), "00:00:00:00:01:01"
(MAC), "0x..." or decimal; a match is a value (exact, optional), (value, prefix length) for
LPM, (value, mask) for ternary, (low, high) for range. The client is the primary of its role
(it waits for the arbitration answer; P4RuntimeError when another holds a higher election id).
Errors are P4RuntimeError with the gRPC code and the server's message, per update for writes.
"""
from __future__ import annotations

import ipaddress
import queue
import threading
from pathlib import Path
from typing import Any, Iterable, Optional

__all__ = ["P4RuntimeClient", "P4RuntimeError", "encode_value", "load_p4info_file"]


class P4RuntimeError(RuntimeError):
    """A refused call: ``code`` the gRPC status name; ``errors`` (code, message) per update."""

    def __init__(self, message: str, code: str = "UNKNOWN", errors: list | None = None):
        super().__init__(message)
        self.code = code
        self.errors = errors or []


def _modules():
    try:
        import grpc
        from p4.config.v1 import p4info_pb2
        from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
    except ImportError as e:
        raise P4RuntimeError(f"P4Runtime needs the grpcio and p4runtime packages "
                             f"(pip install p4runtime grpcio): {e}") from None
    return grpc, p4info_pb2, p4runtime_pb2, p4runtime_pb2_grpc


def load_p4info_file(path) -> Any:
    """A P4Info message from a .txt/.txtpb (text), .json or .bin file."""
    _, p4info_pb2, _, _ = _modules()
    from google.protobuf import json_format, text_format
    path = Path(path)
    data = path.read_bytes()
    info = p4info_pb2.P4Info()
    try:
        if path.suffix == ".bin":
            info.ParseFromString(data)
        elif path.suffix == ".json":
            json_format.Parse(data.decode(), info)
        else:
            text_format.Parse(data.decode(), info)
    except Exception as e:  # noqa: BLE001 - protobuf's parse errors, UnicodeDecodeError
        raise P4RuntimeError(f"{path}: not a P4Info file ({type(e).__name__}: "
                             f"{str(e).splitlines()[0] if str(e) else ''})") from None
    return info


def encode_value(value, bitwidth: int, what: str) -> bytes:
    """A value as P4Runtime's byte string (canonical: no leading zero bytes)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise P4RuntimeError(f"{what}: {value!r} is not a number, address or string")
    if isinstance(value, str):
        text = value.strip()
        try:
            if text.count(".") == 3:
                value = int(ipaddress.IPv4Address(text))
            elif ":" in text and len(text.split(":")) == 6 and bitwidth == 48:
                value = int(text.replace(":", ""), 16)
            elif ":" in text:
                value = int(ipaddress.IPv6Address(text))
            else:
                value = int(text, 0)
        except ValueError:
            raise P4RuntimeError(f"{what}: cannot read {value!r} as a value") from None
    if value < 0 or value >> bitwidth:
        raise P4RuntimeError(f"{what}: {value} does not fit in {bitwidth} bits")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


class P4RuntimeClient:
    def __init__(self, address: str, *, device_id: int = 0, election_id: int = 1,
                 role: str = "", timeout: float = 10.0):
        grpc, self._p4info_pb2, self.pb, pb_grpc = _modules()
        self._grpc = grpc
        self.address, self.device_id, self.role = address, device_id, role
        self.election_id, self.timeout = election_id, timeout
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.P4RuntimeStub(self.channel)
        self.info = None
        self._out: queue.Queue = queue.Queue()
        self.inbox: queue.Queue = queue.Queue()
        first = self.pb.StreamMessageRequest()
        first.arbitration.device_id = device_id
        first.arbitration.election_id.high = election_id >> 64
        first.arbitration.election_id.low = election_id & ((1 << 64) - 1)
        if role:
            first.arbitration.role.name = role
        self._out.put(first)
        self._stream = self.stub.StreamChannel(iter(self._out.get, None))
        self._arbitration: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True,
                                        name=f"p4runtime-{address}")
        self._reader.start()
        try:
            answer = self._arbitration.get(timeout=timeout)
        except queue.Empty:
            self.close()
            raise P4RuntimeError(f"no P4Runtime server answers on {address} (waited "
                                 f"{timeout:g} s)", "UNAVAILABLE") from None
        if isinstance(answer, P4RuntimeError):
            self.close()
            raise answer
        if answer.status.code != 0:
            self.close()
            raise P4RuntimeError(f"{address}: not the primary controller (election id "
                                 f"{election_id}; the highest is {answer.election_id.low})",
                                 "PERMISSION_DENIED")

    def _read(self) -> None:
        try:
            for msg in self._stream:
                if msg.WhichOneof("update") == "arbitration":
                    self._arbitration.put(msg.arbitration)
                else:
                    self.inbox.put(msg)
        except self._grpc.RpcError as e:
            self._arbitration.put(P4RuntimeError(f"{self.address}: {e.details() or e.code().name}",
                                                 e.code().name))

    def close(self) -> None:
        self._out.put(None)
        self.channel.close()

    # -- errors -------------------------------------------------------------------------------
    def _call(self, fn, request, what: str):
        try:
            return fn(request, timeout=self.timeout)
        except self._grpc.RpcError as e:
            raise self._error(e, what) from None

    def _error(self, e, what: str) -> P4RuntimeError:
        errors = []
        md = dict(e.trailing_metadata() or ())
        raw = md.get("grpc-status-details-bin")
        if raw:
            from google.rpc import status_pb2
            st = status_pb2.Status()
            st.ParseFromString(raw)
            for d in st.details:
                err = self.pb.Error()
                if d.Unpack(err):
                    errors.append((self._grpc.StatusCode(_code_tuple(self._grpc, err.canonical_code))
                                   .name if err.canonical_code else "OK", err.message))
        failed = [f"{c}: {m}" for c, m in errors if c != "OK"]
        detail = "; ".join(failed) if failed else (e.details() or e.code().name)
        return P4RuntimeError(f"{what} on {self.address}: {detail}", e.code().name, errors)

    # -- pipeline -----------------------------------------------------------------------------
    def set_pipeline(self, p4info, bmv2_json, *, cookie: int = 0) -> None:
        """Install a P4Info (message or file) and a BMv2 JSON (path or bytes)."""
        info = p4info if not isinstance(p4info, (str, Path)) else load_p4info_file(p4info)
        data = bmv2_json if isinstance(bmv2_json, bytes) else Path(bmv2_json).read_bytes()
        req = self._election(self.pb.SetForwardingPipelineConfigRequest(
            action=self.pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT))
        req.config.p4info.CopyFrom(info)
        req.config.p4_device_config = data
        req.config.cookie.cookie = cookie
        self._call(self.stub.SetForwardingPipelineConfig, req, "SetForwardingPipelineConfig")
        self.info = info

    def load_p4info(self):
        """The P4Info of the pipeline the switch runs."""
        req = self.pb.GetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            response_type=self.pb.GetForwardingPipelineConfigRequest.P4INFO_AND_COOKIE)
        cfg = self._call(self.stub.GetForwardingPipelineConfig, req,
                         "GetForwardingPipelineConfig").config
        if not cfg.HasField("p4info"):
            raise P4RuntimeError(f"{self.address}: the switch runs no pipeline yet",
                                 "FAILED_PRECONDITION")
        self.info = cfg.p4info
        return self.info

    def _election(self, req):
        req.device_id = self.device_id
        req.election_id.high = self.election_id >> 64
        req.election_id.low = self.election_id & ((1 << 64) - 1)
        if self.role:
            req.role = self.role
        return req

    # -- names --------------------------------------------------------------------------------
    def _find(self, kind: str, name: str):
        if self.info is None:
            self.load_p4info()
        for x in getattr(self.info, kind):
            if x.preamble.name == name or x.preamble.alias == name:
                return x
        raise P4RuntimeError(f"the P4Info has no {kind[:-1].replace('_', ' ')} named {name!r}",
                             "NOT_FOUND")

    # -- writes -------------------------------------------------------------------------------
    def write(self, updates: Iterable[tuple[str, Any]]) -> None:
        """(INSERT | MODIFY | DELETE, Entity) pairs in one WriteRequest."""
        req = self._election(self.pb.WriteRequest())
        for kind, entity in updates:
            u = req.updates.add(type=getattr(self.pb.Update, kind))
            u.entity.CopyFrom(entity)
        if req.updates:
            self._call(self.stub.Write, req, "Write")

    def read(self, entity) -> list:
        req = self.pb.ReadRequest(device_id=self.device_id)
        req.entities.add().CopyFrom(entity)
        try:
            return [e for r in self.stub.Read(req, timeout=self.timeout) for e in r.entities]
        except self._grpc.RpcError as e:
            raise self._error(e, "Read") from None

    def table_entry(self, table: str, match: Optional[dict] = None, action: Optional[str] = None,
                    params: Optional[dict] = None, *, priority: int = 0,
                    default: bool = False):
        """An Entity holding a TableEntry built by names (see the module's doc for values)."""
        t = self._find("tables", table)
        e = self.pb.Entity()
        te = e.table_entry
        te.table_id = t.preamble.id
        te.priority = priority
        te.is_default_action = default
        fields = {f.name: f for f in t.match_fields}
        for name, value in (match or {}).items():
            f = fields.get(name)
            if f is None:
                raise P4RuntimeError(f"table {table} has no match field {name!r} "
                                     f"(it has {', '.join(fields) or 'none'})", "NOT_FOUND")
            what = f"{table} {name}"
            fm = te.match.add(field_id=f.id)
            kind = f.match_type
            if kind == f.EXACT:
                fm.exact.value = encode_value(value, f.bitwidth, what)
            elif kind == f.LPM:
                v, plen = _pair(value, what)
                fm.lpm.value = encode_value(v, f.bitwidth, what)
                fm.lpm.prefix_len = int(plen)
            elif kind == f.TERNARY:
                v, mask = _pair(value, what)
                fm.ternary.value = encode_value(v, f.bitwidth, what)
                fm.ternary.mask = encode_value(mask, f.bitwidth, what)
            elif kind == f.RANGE:
                lo, hi = _pair(value, what)
                fm.range.low = encode_value(lo, f.bitwidth, what)
                fm.range.high = encode_value(hi, f.bitwidth, what)
            else:
                fm.optional.value = encode_value(value, f.bitwidth, what)
        if action is not None:
            self._action(te.action.action, action, params or {})
        return e

    def _action(self, msg, action: str, params: dict) -> None:
        a = self._find("actions", action)
        msg.action_id = a.preamble.id
        known = {p.name: p for p in a.params}
        for name, value in params.items():
            p = known.get(name)
            if p is None:
                raise P4RuntimeError(f"action {action} has no parameter {name!r} (it has "
                                     f"{', '.join(known) or 'none'})", "NOT_FOUND")
            msg.params.add(param_id=p.id, value=encode_value(value, p.bitwidth,
                                                             f"{action} {name}"))

    def table_add(self, table: str, action: str, match: dict, params: dict | None = None, *,
                  priority: int = 0) -> None:
        self.write([("INSERT", self.table_entry(table, match, action, params,
                                                priority=priority))])

    def table_set_default(self, table: str, action: str, params: dict | None = None) -> None:
        self.write([("MODIFY", self.table_entry(table, None, action, params, default=True))])

    def table_clear(self, table: str) -> None:
        """Delete every entry of the table (read, then delete by key)."""
        entries = self.read(self.table_entry(table))
        dels = []
        for e in entries:
            e.table_entry.ClearField("action")
            dels.append(("DELETE", e))
        self.write(dels)

    def register_write(self, name: str, index: Optional[int], value) -> None:
        """One cell, or every cell when ``index`` is None."""
        r = self._find("registers", name)
        e = self.pb.Entity()
        e.register_entry.register_id = r.preamble.id
        if index is not None:
            e.register_entry.index.index = index
        width = r.type_spec.bitstring.bit.bitwidth or r.type_spec.bitstring.int.bitwidth
        e.register_entry.data.bitstring = encode_value(value, width, f"register {name}")
        self.write([("MODIFY", e)])

    def _read_cells(self, entity) -> list:
        """(kind, id, index, value) of register or counter cells, the answer decoded by hand
        (toolchain.switch.p4runtime_server.wire: whole arrays are read in one go)."""
        from toolchain.switch.p4runtime_server.wire import decode_cells
        req = self.pb.ReadRequest(device_id=self.device_id)
        req.entities.add().CopyFrom(entity)
        call = self.channel.unary_stream("/p4.v1.P4Runtime/Read",
                                         request_serializer=lambda m: m.SerializeToString(),
                                         response_deserializer=None)
        cells = []
        try:
            for raw in call(req, timeout=self.timeout):
                cells += decode_cells(raw)
        except self._grpc.RpcError as e:
            raise self._error(e, "Read") from None
        except ValueError as e:
            raise P4RuntimeError(f"Read on {self.address}: unexpected answer ({e})") from None
        return sorted(cells, key=lambda c: c[2])

    def register_read(self, name: str, index: Optional[int] = None) -> list[int]:
        r = self._find("registers", name)
        e = self.pb.Entity()
        e.register_entry.register_id = r.preamble.id
        if index is not None:
            e.register_entry.index.index = index
        return [c[3][0] for c in self._read_cells(e)]

    def counter_read(self, name: str, index: Optional[int] = None) -> list[tuple[int, int]]:
        c = self._find("counters", name)
        e = self.pb.Entity()
        e.counter_entry.counter_id = c.preamble.id
        if index is not None:
            e.counter_entry.index.index = index
        return [cell[3] for cell in self._read_cells(e)]

    def counter_reset(self, name: str) -> None:
        c = self._find("counters", name)
        e = self.pb.Entity()
        e.counter_entry.counter_id = c.preamble.id
        e.counter_entry.data.SetInParent()
        self.write([("MODIFY", e)])

    def multicast_group(self, group_id: int, replicas: Iterable[tuple[int, int]],
                        kind: str = "INSERT") -> None:
        """(egress port, instance) replicas."""
        e = self.pb.Entity()
        g = e.packet_replication_engine_entry.multicast_group_entry
        g.multicast_group_id = group_id
        for port, instance in replicas:
            g.replicas.add(egress_port=int(port), instance=int(instance))
        self.write([(kind, e)])

    def clone_session(self, session_id: int, replicas: Iterable[tuple[int, int]],
                      packet_length_bytes: int = 0, kind: str = "INSERT") -> None:
        e = self.pb.Entity()
        s = e.packet_replication_engine_entry.clone_session_entry
        s.session_id = session_id
        s.packet_length_bytes = packet_length_bytes
        for port, instance in replicas:
            s.replicas.add(egress_port=int(port), instance=int(instance))
        self.write([(kind, e)])


def _pair(value, what: str) -> tuple:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return value[0], value[1]
    raise P4RuntimeError(f"{what}: expected [value, prefix length | mask | high], got {value!r}")


def _code_tuple(grpc, number: int):
    for c in grpc.StatusCode:
        if c.value[0] == number:
            return c.value
    return grpc.StatusCode.UNKNOWN.value
