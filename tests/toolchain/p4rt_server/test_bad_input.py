"""Bad input to the P4Runtime server: malformed protobufs, unknown ids, wrong widths, a client
that vanishes mid-stream, and a seeded fuzz of Write requests. Each gets a gRPC error as the
P4Runtime specification prescribes; the switch keeps forwarding and serving the others."""
from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import time

import pytest

from .conftest import CPU_PORT, Client, frame, grpc, pb, write_error

MAC2 = b"\x00\x00\x00\x00\x00\x02"
FUZZ_CASES = 3000


def _raw(channel, method: str):
    return channel.unary_unary(f"/p4.v1.P4Runtime/{method}", request_serializer=None,
                               response_deserializer=None)


def _still_forwards(c: Client) -> None:
    c.packet_out(frame(payload=b"alive"), egress_port=CPU_PORT)
    assert c.next("packet", timeout=10).payload == frame(payload=b"alive")


def test_malformed_protobufs(primary, switch):
    for method in ("Write", "Read", "SetForwardingPipelineConfig", "Capabilities"):
        for garbage in (b"\xff\xff\xff", b"\x0a\xff\xff\xff\xff\x0f", b"\x22\x05abc"):
            with pytest.raises(grpc.RpcError) as e:
                _raw(primary.channel, method)(garbage, timeout=10)
            assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "malformed" in e.value.details()
    # many in a row (gRPC's own deserializer leaked a worker thread per malformed request)
    for _ in range(100):
        with pytest.raises(grpc.RpcError):
            _raw(primary.channel, "Write")(b"\xff\xff\xff", timeout=10)
    bad_stream = primary.channel.stream_stream("/p4.v1.P4Runtime/StreamChannel",
                                               request_serializer=None,
                                               response_deserializer=None)
    with pytest.raises(grpc.RpcError) as e:
        for _ in bad_stream(iter([b"\xff\xff\xff"]), timeout=10):
            pass
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert switch.alive()
    _still_forwards(primary)


def test_unknown_ids_and_wrong_widths(primary):
    c = primary
    cases = []
    e = c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port", [("port", b"\x01")])
    e.table_entry.table_id = 0x02abcdef
    cases.append((e, grpc.StatusCode.NOT_FOUND))
    e = c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port", [("port", b"\x01")])
    e.table_entry.match[0].field_id = 9
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))
    e = c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port", [("port", b"\x02\x00")])
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))          # 512 in a 9-bit parameter
    e = c.table_entry("fwd", [("hdr.ethernet.dst", b"\x01" * 7)], "set_port", [("port", b"\x01")])
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))
    e = c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port", [])
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))          # a parameter missing
    e = c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)] * 2, "set_port", [("port", b"\x01")])
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))          # a match field twice
    e = c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port", [("port", b"\x01")] * 2)
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))          # a parameter twice
    e = c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_nexthop",
                      [("port", b"\x01"), ("dmac", b"\x01")])
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))          # not the table's action
    e = c.table_entry("routes", [("hdr.ipv4.dst", (b"\x0a\x00\x00\x01", 8))])
    e.table_entry.action.action_profile_member_id = 1
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))          # bits past the prefix
    e = c.table_entry("acl", [("hdr.ipv4.src", (b"\x01", b"\x00"))], "NoAction", priority=1)
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))          # a zero mask given
    e = c.table_entry("acl", [("hdr.ipv4.dst", (b"\x09", b"\x01"))], "NoAction", priority=1)
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))          # low above high
    e = pb.Entity()
    e.counter_entry.counter_id = 0x12000001
    cases.append((e, grpc.StatusCode.NOT_FOUND))
    e = pb.Entity()
    e.register_entry.register_id = c.id("registers", "last_len")
    e.register_entry.data.bitstring = b"\x01\x00\x00\x00\x00"
    cases.append((e, grpc.StatusCode.INVALID_ARGUMENT))          # 40 bits into 32
    for entity, code in cases:
        kind = "MODIFY" if entity.WhichOneof("entity") != "table_entry" else "INSERT"
        with pytest.raises(grpc.RpcError) as err:
            c.write((kind, entity))
        (detail,) = write_error(err.value)
        assert detail.canonical_code == code.value[0], (entity, detail)
        assert detail.message and "\n" not in detail.message
    with pytest.raises(grpc.RpcError) as err:
        c.read(pb.Entity(table_entry=pb.TableEntry(table_id=0x02abcdef)))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as err:
        c.stub.Write(pb.WriteRequest(device_id=5), timeout=10)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as err:                   # no election id
        c.stub.Write(pb.WriteRequest(device_id=0), timeout=10)
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_a_client_that_vanishes_mid_stream(client_factory, artifacts, switch):
    backup = client_factory(1)
    backup.next("arbitration")
    script = textwrap.dedent(f"""
        import queue, sys, time, grpc
        from p4.v1 import p4runtime_pb2 as pb, p4runtime_pb2_grpc as pbg
        stub = pbg.P4RuntimeStub(grpc.insecure_channel("{switch.grpc_addr}"))
        q = queue.Queue()
        r = pb.StreamMessageRequest(); r.arbitration.election_id.low = 50
        q.put(r)
        half = pb.StreamMessageRequest(); half.packet.payload = b"x" * 100
        for m in stub.StreamChannel(iter(q.get, None)):
            print("primary", m.arbitration.status.code, flush=True)
            q.put(half)
            time.sleep(60)
    """)
    gone = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert gone.stdout.readline().split() == ["primary", "0"]
        assert backup.next("arbitration").status.code == 6
        gone.kill()                                   # no goodbye: the connection just drops
        gone.wait()
        assert backup.next("arbitration", timeout=15).status.code == 0
    finally:
        if gone.poll() is None:
            gone.kill()
    info, _, js = artifacts
    backup.set_pipeline(info, js)
    _still_forwards(backup)
    assert switch.alive()


def _updates(c: Client) -> list:
    """Valid updates of every kind, the material the fuzz mutates."""
    ents = [c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port", [("port", b"\x01")]),
            c.table_entry("acl", [("hdr.ipv4.src", (b"\x0a\x00\x00\x00", b"\xff\x00\x00\x00")),
                                  ("hdr.ipv4.dst", (b"\x01", b"\x09"))], "acl_mark",
                          [("tos", b"\x10")], priority=5),
            c.table_entry("fwd", action="set_port", params=[("port", b"\x07")],
                          is_default_action=True)]
    m = pb.Entity()
    m.action_profile_member.action_profile_id = c.id("action_profiles", "ecmp_sel")
    m.action_profile_member.member_id = 3
    m.action_profile_member.action.action_id = c.id("actions", "set_nexthop")
    m.action_profile_member.action.params.add(param_id=1, value=b"\x01")
    m.action_profile_member.action.params.add(param_id=2, value=b"\x02")
    ents.append(m)
    g = pb.Entity()
    g.action_profile_group.action_profile_id = m.action_profile_member.action_profile_id
    g.action_profile_group.group_id = 4
    g.action_profile_group.members.add(member_id=3, weight=1)
    ents.append(g)
    r = pb.Entity()
    r.register_entry.register_id = c.id("registers", "last_len")
    r.register_entry.index.index = 3
    r.register_entry.data.bitstring = b"\x05"
    ents.append(r)
    mt = pb.Entity()
    mt.meter_entry.meter_id = c.id("meters", "port_meter")
    mt.meter_entry.config.cir, mt.meter_entry.config.pir = 10, 20
    ents.append(mt)
    mg = pb.Entity()
    mg.packet_replication_engine_entry.multicast_group_entry.multicast_group_id = 3
    mg.packet_replication_engine_entry.multicast_group_entry.replicas.add(egress_port=1)
    ents.append(mg)
    return [pb.Update(type=t, entity=e) for e in ents for t in (1, 2, 3)]


def _mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        i = rng.randrange(len(b) + 1)
        if op == 0 and b:
            b[min(i, len(b) - 1)] = rng.randrange(256)
        elif op == 1:
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 2 and b:
            del b[i:i + rng.randint(1, 8)]
        elif op == 3:
            b = b[:i]
        elif op == 4 and b:                          # a varint or length pushed to its limit
            b[min(i, len(b) - 1)] = 0xff
        else:
            b += rng.choice([b"\x10\x00", b"\x18\xff\xff\xff\xff\x0f", b"\x22\x00"])
    return bytes(b)


def test_fuzz_write_requests(primary, switch):
    """Seeded mutations of valid Write requests' updates (the election id kept, so they reach
    the entity code): every answer is OK or a gRPC status; an UNKNOWN one is a Write failure
    with per-update details, never an exception escaping the server; no call hangs."""
    c = primary
    rng = random.Random(20240935)
    head = pb.WriteRequest(device_id=0)
    head.election_id.low = c.election
    head_bytes = head.SerializeToString()
    material = [u.SerializeToString() for u in _updates(c)]
    write = _raw(c.channel, "Write")
    outcomes: dict = {}
    slowest = 0.0
    for _ in range(FUZZ_CASES):
        body = b""
        for _ in range(rng.randint(1, 3)):
            u = rng.choice(material)
            if rng.random() < 0.8:
                u = _mutate(rng, u)
            body += b"\x22" + _varint(len(u)) + u          # field 4: updates
        t0 = time.monotonic()
        try:
            write(head_bytes + body, timeout=10)
            outcomes["OK"] = outcomes.get("OK", 0) + 1
        except grpc.RpcError as e:
            code = e.code()
            assert code != grpc.StatusCode.DEADLINE_EXCEEDED, "a Write hung"
            if code == grpc.StatusCode.UNKNOWN:
                assert write_error(e), e.details()        # details, not an escaped exception
            outcomes[code.name] = outcomes.get(code.name, 0) + 1
        slowest = max(slowest, time.monotonic() - t0)
    assert sum(outcomes.values()) == FUZZ_CASES and outcomes.get("OK", 0) > 0
    assert slowest < 5, slowest
    assert switch.alive()
    _still_forwards(c)
    c.write(("INSERT", c.table_entry("fwd", [("hdr.ethernet.dst", b"\x00\x00\x00\x00\x00\x99")],
                                     "set_port", [("port", b"\x01")])))


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7f
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)
