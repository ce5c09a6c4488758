"""A running rdtcp-switch with its P4Runtime server (no interfaces, no root), the test
program's P4Info and BMv2 JSON, and a small client over the plain p4runtime stubs."""
from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SWITCH_P4 = REPO / "tests" / "data" / "p4runtime" / "p4rt_switch.p4"
CPU_PORT = 64

grpc = pytest.importorskip("grpc")
from p4.v1 import p4runtime_pb2 as pb, p4runtime_pb2_grpc as pb_grpc  # noqa: E402


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory):
    """(P4Info message, P4Info text path, JSON path) of the test program."""
    from toolchain.compiler.driver import main
    from toolchain.compiler.p4info import parse_p4info
    d = tmp_path_factory.mktemp("p4rt")
    js, info = d / "sw.json", d / "sw.p4info.txtpb"
    assert main([str(SWITCH_P4), "-o", str(js), "--p4runtime-files", str(info)]) == 0
    return parse_p4info(info.read_bytes(), "text"), info, js


class SwitchProc:
    def __init__(self, args):
        self.proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main",
                                      *args], cwd=REPO, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.grpc_addr = self.thrift_port = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"rdtcp-switch exited: {self.proc.stderr.read()}")
            if line.startswith("P4Runtime server was started on "):
                self.grpc_addr = line.split()[-1]
            if line.startswith("Control server was started on "):
                self.thrift_port = int(line.rsplit(":", 1)[1])
                return
        raise RuntimeError("rdtcp-switch did not start")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def switch():
    """rdtcp-switch --no-p4 with P4Runtime on a free port and CPU port 64."""
    sw = SwitchProc(["--no-p4", "--thrift-port", "0", "--", "--grpc-server-addr",
                     "127.0.0.1:0", "--cpu-port", str(CPU_PORT)])
    yield sw
    sw.stop()


class Client:
    """One controller: a channel, a stream (arbitration first) and helpers by name."""

    def __init__(self, addr: str, election: int = 1, *, device_id: int = 0, role: str = ""):
        self.channel = grpc.insecure_channel(addr)
        self.stub = pb_grpc.P4RuntimeStub(self.channel)
        self.election, self.device_id, self.role = election, device_id, role
        self.out: queue.Queue = queue.Queue()
        self.inbox: queue.Queue = queue.Queue()
        self.info = None
        first = pb.StreamMessageRequest()
        a = first.arbitration
        a.device_id = device_id
        a.election_id.low = election
        if role:
            a.role.name = role
        self.out.put(first)
        self.stream = self.stub.StreamChannel(iter(self.out.get, None))
        self.error = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        try:
            for msg in self.stream:
                self.inbox.put(msg)
        except grpc.RpcError as e:
            self.error = e
            self.inbox.put(e)

    def next(self, kind: str, timeout: float = 5.0):
        """The next stream message of ``kind`` (arbitration, packet, digest,
        idle_timeout_notification, error); TimeoutError when none comes in time."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind} message")
            try:
                msg = self.inbox.get(timeout=left)
            except queue.Empty:
                raise TimeoutError(f"no {kind} message") from None
            if isinstance(msg, grpc.RpcError):
                raise msg
            if msg.WhichOneof("update") == kind:
                return getattr(msg, kind)

    def close(self):
        self.out.put(None)
        self.channel.close()

    # -- requests -----------------------------------------------------------------------------
    def _election(self, req):
        req.device_id = self.device_id
        req.election_id.low = self.election
        if self.role:
            req.role = self.role
        return req

    def set_pipeline(self, info, json_path, action=pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT,
                     json_bytes=None):
        req = self._election(pb.SetForwardingPipelineConfigRequest(action=action))
        req.config.p4info.CopyFrom(info)
        req.config.p4_device_config = json_bytes if json_bytes is not None else \
            Path(json_path).read_bytes()
        req.config.cookie.cookie = 7
        self.stub.SetForwardingPipelineConfig(req)
        self.info = info

    def write(self, *updates, atomicity=0):
        req = self._election(pb.WriteRequest(atomicity=atomicity))
        for kind, entity in updates:
            u = req.updates.add(type=getattr(pb.Update, kind))
            u.entity.CopyFrom(entity)
        return self.stub.Write(req, timeout=10)

    def read(self, entity) -> list:
        req = pb.ReadRequest(device_id=self.device_id)
        req.entities.add().CopyFrom(entity)
        return [e for r in self.stub.Read(req, timeout=10) for e in r.entities]

    # -- names --------------------------------------------------------------------------------
    def id(self, kind: str, name: str) -> int:
        for x in getattr(self.info, kind):
            if x.preamble.name == name or x.preamble.alias == name:
                return x.preamble.id
        raise KeyError(name)

    def table_entry(self, table, matches=(), action=None, params=(), priority=0, **kw):
        e = pb.Entity()
        te = e.table_entry
        te.table_id = self.id("tables", table)
        t = next(x for x in self.info.tables if x.preamble.id == te.table_id)
        fields = {f.name: f for f in t.match_fields}
        for name, spec in matches:
            f = fields[name]
            fm = te.match.add(field_id=f.id)
            kind = {2: "exact", 3: "lpm", 4: "ternary", 5: "range", 6: "optional"}[f.match_type]
            if kind == "exact":
                fm.exact.value = spec
            elif kind == "lpm":
                fm.lpm.value, fm.lpm.prefix_len = spec
            elif kind == "ternary":
                fm.ternary.value, fm.ternary.mask = spec
            elif kind == "range":
                fm.range.low, fm.range.high = spec
            else:
                fm.optional.value = spec
        if action is not None:
            aid = self.id("actions", action)
            te.action.action.action_id = aid
            a = next(x for x in self.info.actions if x.preamble.id == aid)
            pids = {p.name: p.id for p in a.params}
            for name, value in params:
                te.action.action.params.add(param_id=pids[name], value=value)
        te.priority = priority
        for k, v in kw.items():
            setattr(te, k, v)
        return e

    def packet_out(self, payload: bytes, egress_port: int = 0):
        msg = pb.StreamMessageRequest()
        msg.packet.payload = payload
        msg.packet.metadata.add(metadata_id=1, value=egress_port.to_bytes(2, "big"))
        self.out.put(msg)


def write_error(e) -> list:
    """The p4.v1.Error of each update of a failed Write (its status details)."""
    from google.rpc import status_pb2
    md = dict(e.trailing_metadata() or ())
    st = status_pb2.Status()
    st.ParseFromString(md["grpc-status-details-bin"])
    out = []
    for d in st.details:
        err = pb.Error()
        d.Unpack(err)
        out.append(err)
    return out


@pytest.fixture
def client_factory(switch):
    made = []

    def make(election=1, **kw):
        c = Client(switch.grpc_addr, election, **kw)
        made.append(c)
        return c
    yield make
    for c in made:
        c.close()


@pytest.fixture
def primary(client_factory, artifacts):
    """A primary controller with the test program installed."""
    c = client_factory(1)
    assert c.next("arbitration").status.code == 0
    info, _, js = artifacts
    c.set_pipeline(info, js)
    return c


def frame(dst=b"\x00\x00\x00\x00\x00\x02", src=b"\x00\x00\x00\x00\x00\x01", ether=0x9000,
          payload=b"hello") -> bytes:
    return dst + src + ether.to_bytes(2, "big") + payload
