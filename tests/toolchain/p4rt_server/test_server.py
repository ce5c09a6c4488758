"""rdtcp-switch's P4Runtime server, driven by the plain p4runtime stubs: the pipeline, the
arbitration, every entity kind, packet I/O and digests, with forwarding seen as PacketIns
(the test program sends a PacketOut for port 0 through its tables)."""
from __future__ import annotations

import subprocess

import pytest

from .conftest import CPU_PORT, grpc, pb, write_error, frame

MAC2 = b"\x00\x00\x00\x00\x00\x02"


def ipv4(dst: bytes, src: bytes = b"\x0a\x00\x00\x01", ttl: int = 64, proto: int = 6) -> bytes:
    hdr = bytes([0x45, 0, 0, 20, 0, 0, 0, 0, ttl, proto, 0, 0]) + src + dst
    return frame(ether=0x0800, payload=hdr)


def _code(e) -> grpc.StatusCode:
    return e.value.code()


# -- pipeline ---------------------------------------------------------------------------------
def test_no_pipeline_until_one_is_set(client_factory, artifacts):
    c = client_factory(1)
    assert c.next("arbitration").status.code == 0
    info, _, js = artifacts
    c.info = info
    with pytest.raises(grpc.RpcError) as e:
        c.write(("INSERT", c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port",
                                         [("port", b"\x01")])))
    assert _code(e) == grpc.StatusCode.FAILED_PRECONDITION
    cfg = c.stub.GetForwardingPipelineConfig(pb.GetForwardingPipelineConfigRequest())
    assert not cfg.config.HasField("p4info")
    # VERIFY changes nothing; VERIFY_AND_SAVE then COMMIT installs
    c.set_pipeline(info, js, action=pb.SetForwardingPipelineConfigRequest.VERIFY)
    assert not c.stub.GetForwardingPipelineConfig(
        pb.GetForwardingPipelineConfigRequest()).config.HasField("p4info")
    c.set_pipeline(info, js, action=pb.SetForwardingPipelineConfigRequest.VERIFY_AND_SAVE)
    req = c._election(pb.SetForwardingPipelineConfigRequest(
        action=pb.SetForwardingPipelineConfigRequest.COMMIT))
    c.stub.SetForwardingPipelineConfig(req)
    got = c.stub.GetForwardingPipelineConfig(pb.GetForwardingPipelineConfigRequest(
        response_type=pb.GetForwardingPipelineConfigRequest.ALL)).config
    assert got.p4info == info and got.p4_device_config == js.read_bytes()
    assert got.cookie.cookie == 7
    only = c.stub.GetForwardingPipelineConfig(pb.GetForwardingPipelineConfigRequest(
        response_type=pb.GetForwardingPipelineConfigRequest.COOKIE_ONLY)).config
    assert not only.HasField("p4info") and not only.p4_device_config and only.cookie.cookie == 7
    assert c.stub.Capabilities(pb.CapabilitiesRequest()).p4runtime_api_version.startswith("1.")


def test_disagreeing_pipelines_are_refused_and_the_old_one_stays(primary, artifacts):
    info, _, js = artifacts
    primary.write(("INSERT", primary.table_entry("fwd", [("hdr.ethernet.dst", MAC2)],
                                                 "set_port", [("port", b"\x05")])))
    bad = type(info)()
    bad.CopyFrom(info)
    next(t for t in bad.tables if t.preamble.name == "SwIngress.fwd").match_fields[0].bitwidth = 32
    with pytest.raises(grpc.RpcError) as e:
        primary.set_pipeline(bad, js)
    assert _code(e) == grpc.StatusCode.INVALID_ARGUMENT
    assert "disagree" in e.value.details() and "SwIngress.fwd" in e.value.details()
    for garbage in (b"{not json", b"\xff\xfe", b'{"__meta__": {"version": [3, 0]}}'):
        with pytest.raises(grpc.RpcError) as e:
            primary.set_pipeline(info, js, json_bytes=garbage)
        assert _code(e) == grpc.StatusCode.INVALID_ARGUMENT
    assert len(primary.read(primary.table_entry("fwd"))) == 1      # still installed


def test_reconcile_keeps_state_for_the_same_program(primary, artifacts):
    info, _, js = artifacts
    primary.write(("INSERT", primary.table_entry("fwd", [("hdr.ethernet.dst", MAC2)],
                                                 "set_port", [("port", b"\x05")])))
    primary.set_pipeline(info, js, action=pb.SetForwardingPipelineConfigRequest.RECONCILE_AND_COMMIT)
    assert len(primary.read(primary.table_entry("fwd"))) == 1
    primary.set_pipeline(info, js)                          # VERIFY_AND_COMMIT: a new switch
    assert primary.read(primary.table_entry("fwd")) == []


# -- arbitration ------------------------------------------------------------------------------
def test_arbitration(client_factory, artifacts):
    low = client_factory(5)
    assert low.next("arbitration").status.code == 0          # alone: primary
    high = client_factory(9)
    assert high.next("arbitration").status.code == 0
    demoted = low.next("arbitration")
    assert demoted.status.code == 6 and demoted.election_id.low == 9   # ALREADY_EXISTS
    info, _, js = artifacts
    with pytest.raises(grpc.RpcError) as e:
        low.set_pipeline(info, js)
    assert _code(e) == grpc.StatusCode.PERMISSION_DENIED
    high.set_pipeline(info, js)
    low.info = info
    with pytest.raises(grpc.RpcError) as e:
        low.write(("INSERT", low.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port",
                                             [("port", b"\x01")])))
    assert _code(e) == grpc.StatusCode.PERMISSION_DENIED
    assert low.read(low.table_entry("fwd")) == []            # reads are anyone's
    twin = client_factory(9)                                 # an election id already held
    with pytest.raises(grpc.RpcError) as e:
        twin.next("arbitration")
    assert _code(e) == grpc.StatusCode.INVALID_ARGUMENT
    other = client_factory(1, device_id=3)
    with pytest.raises(grpc.RpcError) as e:
        other.next("arbitration")
    assert _code(e) == grpc.StatusCode.NOT_FOUND
    high.close()                                             # the primary vanishes
    assert low.next("arbitration", timeout=10).status.code == 0
    low.write(("INSERT", low.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port",
                                         [("port", b"\x01")])))


def test_roles_have_their_own_primary(client_factory, artifacts):
    a = client_factory(1)
    b = client_factory(1, role="acl-app")
    assert a.next("arbitration").status.code == 0
    assert b.next("arbitration").status.code == 0


# -- tables -----------------------------------------------------------------------------------
def test_table_entries_of_every_match_kind(primary, switch):
    c = primary
    c.write(("INSERT", c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port",
                                     [("port", b"\x00\x05")], controller_metadata=42)),
            ("INSERT", c.table_entry("acl", [("hdr.ipv4.src", (b"\x0a\x00\x00\x00", b"\xff\x00\x00\x00")),
                                             ("hdr.ipv4.dst", (b"\x01", b"\xff")),
                                             ("hdr.ipv4.protocol", b"\x06")],
                                     "acl_mark", [("tos", b"\x10")], priority=10)),
            ("INSERT", c.table_entry("acl", [("hdr.ipv4.protocol", b"\x11")], "NoAction",
                                     priority=3)))
    fwd = c.read(c.table_entry("fwd"))
    assert len(fwd) == 1
    te = fwd[0].table_entry
    assert te.match[0].exact.value == b"\x02"              # canonical: no leading zeros
    assert te.action.action.params[0].value == b"\x05"
    assert te.controller_metadata == 42
    acl = sorted((e.table_entry for e in c.read(c.table_entry("acl"))), key=lambda t: t.priority)
    assert [t.priority for t in acl] == [3, 10]
    assert len(acl[1].match) == 3 and acl[1].match[0].ternary.mask == b"\xff\x00\x00\x00"
    assert len(acl[0].match) == 1                            # wildcards left out
    # one entry by key, then modify and delete it
    one = c.read(c.table_entry("acl", [("hdr.ipv4.protocol", b"\x11")], priority=3))
    assert len(one) == 1
    c.write(("MODIFY", c.table_entry("acl", [("hdr.ipv4.protocol", b"\x11")], "acl_mark",
                                     [("tos", b"\x01")], priority=3)))
    c.write(("DELETE", c.table_entry("acl", [("hdr.ipv4.protocol", b"\x11")], priority=3)))
    assert len(c.read(c.table_entry("acl"))) == 1
    # the Thrift API sees the same switch: the real simple_switch_CLI counts the entries
    out = subprocess.run(["simple_switch_CLI", "--thrift-port", str(switch.thrift_port)],
                         input="table_num_entries SwIngress.fwd\n", capture_output=True,
                         text=True, timeout=60).stdout
    assert "1" in out.split("RuntimeCmd:")[1]
    every = c.read(pb.Entity(table_entry=pb.TableEntry()))
    assert len(every) == 2


def test_write_errors_per_update(primary):
    c = primary
    good = c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port", [("port", b"\x01")])
    with pytest.raises(grpc.RpcError) as e:
        c.write(("INSERT", good), ("INSERT", good),
                ("INSERT", c.table_entry("fwd", [("hdr.ethernet.dst", b"\x01" * 7)], "set_port",
                                         [("port", b"\x01")])),
                ("INSERT", c.table_entry("fwd", [("hdr.ethernet.dst", b"\x03")], "drop")),
                ("INSERT", c.table_entry("acl", [("hdr.ipv4.protocol", b"\x06")], "NoAction")),
                ("DELETE", c.table_entry("fwd", [("hdr.ethernet.dst", b"\x09")])))
    assert _code(e) == grpc.StatusCode.UNKNOWN
    errs = write_error(e.value)
    codes = [grpc.StatusCode.OK.value[0], grpc.StatusCode.ALREADY_EXISTS.value[0],
             grpc.StatusCode.INVALID_ARGUMENT.value[0], grpc.StatusCode.PERMISSION_DENIED.value[0],
             grpc.StatusCode.INVALID_ARGUMENT.value[0], grpc.StatusCode.NOT_FOUND.value[0]]
    assert [x.canonical_code for x in errs] == codes
    assert "7 bytes" in errs[2].message and "@defaultonly" in errs[3].message
    assert "priority" in errs[4].message
    assert len(c.read(c.table_entry("fwd"))) == 1            # the good one stays
    with pytest.raises(grpc.RpcError) as e:
        c.write(("INSERT", good), atomicity=pb.WriteRequest.ROLLBACK_ON_ERROR)
    assert _code(e) == grpc.StatusCode.UNIMPLEMENTED


def test_default_entries(primary):
    c = primary
    d = c.table_entry("fwd", is_default_action=True)
    (got,) = c.read(d)
    assert got.table_entry.action.action.action_id == c.id("actions", "SwIngress.drop")
    c.write(("MODIFY", c.table_entry("fwd", action="set_port", params=[("port", b"\x07")],
                                     is_default_action=True)))
    (got,) = c.read(d)
    assert got.table_entry.action.action.action_id == c.id("actions", "SwIngress.set_port")
    c.write(("MODIFY", c.table_entry("fwd", is_default_action=True)))     # back to drop()
    (got,) = c.read(d)
    assert got.table_entry.action.action.action_id == c.id("actions", "SwIngress.drop")
    with pytest.raises(grpc.RpcError) as e:               # @tableonly cannot be the default
        c.write(("MODIFY", c.table_entry("fwd", action="to_cpu", is_default_action=True)))
    assert write_error(e.value)[0].canonical_code == grpc.StatusCode.PERMISSION_DENIED.value[0]
    with pytest.raises(grpc.RpcError) as e:               # const default_action
        c.write(("MODIFY", c.table_entry("routes", action="set_nexthop",
                                         params=[("port", b"\x01"), ("dmac", b"\x01")],
                                         is_default_action=True)))
    assert write_error(e.value)[0].canonical_code == grpc.StatusCode.PERMISSION_DENIED.value[0]


# -- packets ----------------------------------------------------------------------------------
def test_packet_out_and_in(primary):
    c = primary
    c.packet_out(frame(), egress_port=CPU_PORT)              # straight back to the CPU port
    pkt = c.next("packet")
    assert pkt.payload == frame()
    assert [(m.metadata_id, m.value) for m in pkt.metadata] == [(1, b"\x40"), (2, b"\x00")]
    # through the tables: fwd sends MAC2 to the CPU port, counted by its direct counter
    c.write(("INSERT", c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "to_cpu")))
    c.packet_out(frame(payload=b"via fwd"))
    assert c.next("packet").payload == frame(payload=b"via fwd")
    (dc,) = c.read(pb.Entity(direct_counter_entry=pb.DirectCounterEntry(
        table_entry=c.table_entry("fwd").table_entry)))
    assert dc.direct_counter_entry.data.packet_count == 1
    (cnt,) = c.read(pb.Entity(counter_entry=pb.CounterEntry(
        counter_id=c.id("counters", "port_in"), index=pb.Index(index=CPU_PORT))))
    assert cnt.counter_entry.data.packet_count == 2
    (reg,) = c.read(pb.Entity(register_entry=pb.RegisterEntry(
        register_id=c.id("registers", "last_len"), index=pb.Index(index=CPU_PORT))))
    assert int.from_bytes(reg.register_entry.data.bitstring, "big") == len(frame(payload=b"via fwd")) + 2


def test_multicast_and_clone_sessions(primary):
    c = primary
    mg = pb.Entity()
    g = mg.packet_replication_engine_entry.multicast_group_entry
    g.multicast_group_id = 7
    g.replicas.add(egress_port=CPU_PORT, instance=1)
    g.replicas.add(egress_port=CPU_PORT, instance=2)
    c.write(("INSERT", mg))
    (got,) = c.read(mg)
    assert len(got.packet_replication_engine_entry.multicast_group_entry.replicas) == 2
    c.write(("INSERT", c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "flood",
                                     [("group", b"\x07")])))
    c.packet_out(frame(payload=b"mc"))
    assert c.next("packet").payload == frame(payload=b"mc")
    assert c.next("packet").payload == frame(payload=b"mc")
    with pytest.raises(grpc.RpcError) as e:
        c.write(("INSERT", mg))
    assert write_error(e.value)[0].canonical_code == grpc.StatusCode.ALREADY_EXISTS.value[0]
    cs = pb.Entity()
    s = cs.packet_replication_engine_entry.clone_session_entry
    s.session_id = 5
    s.replicas.add(egress_port=CPU_PORT, instance=0)
    c.write(("INSERT", cs))
    c.write(("INSERT", c.table_entry("acl", [("hdr.ipv4.protocol", b"\x06")], "mirror",
                                     [("session", b"\x05")], priority=1)))
    c.write(("MODIFY", c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "to_cpu")))
    p = ipv4(b"\x0a\x00\x00\x02")
    c.packet_out(p)
    assert c.next("packet").payload[:14] == p[:14]           # the clone and the original
    assert c.next("packet").payload[:14] == p[:14]
    (got,) = c.read(cs)
    assert got.packet_replication_engine_entry.clone_session_entry.session_id == 5
    c.write(("DELETE", cs), ("DELETE", mg))
    assert c.read(mg) == []


def test_action_profiles_and_selectors(primary):
    c = primary
    ap, sel = c.id("action_profiles", "nexthops"), c.id("action_profiles", "ecmp_sel")
    nh = c.id("actions", "set_nexthop")

    def member(prof, mid, port, mac):
        e = pb.Entity()
        m = e.action_profile_member
        m.action_profile_id, m.member_id = prof, mid
        m.action.action_id = nh
        m.action.params.add(param_id=1, value=bytes([port]))
        m.action.params.add(param_id=2, value=mac)
        return e
    c.write(("INSERT", member(ap, 1, CPU_PORT, b"\xaa")),
            ("INSERT", member(sel, 10, CPU_PORT, b"\xbb")),
            ("INSERT", member(sel, 11, CPU_PORT, b"\xbb")))
    grp = pb.Entity()
    grp.action_profile_group.action_profile_id = sel
    grp.action_profile_group.group_id = 100
    grp.action_profile_group.members.add(member_id=10, weight=1)
    grp.action_profile_group.members.add(member_id=11, weight=1)
    c.write(("INSERT", grp))
    routes = c.table_entry("routes", [("hdr.ipv4.dst", (b"\x0a\x00\x00\x00", 8))])
    routes.table_entry.action.action_profile_member_id = 1
    ecmp = c.table_entry("ecmp", [("hdr.ipv4.dst", b"\x0a\x00\x00\x02")])
    ecmp.table_entry.action.action_profile_group_id = 100
    c.write(("INSERT", routes), ("INSERT", ecmp))
    (r,) = c.read(c.table_entry("routes"))
    assert r.table_entry.action.action_profile_member_id == 1
    (g,) = c.read(grp)
    assert sorted(m.member_id for m in g.action_profile_group.members) == [10, 11]
    c.packet_out(ipv4(b"\x0a\x00\x00\x09"))                   # routes -> member 1
    assert c.next("packet").payload[:6] == b"\x00" * 5 + b"\xaa"
    c.packet_out(ipv4(b"\x0a\x00\x00\x02", ttl=1))             # ecmp -> the group
    assert c.next("packet").payload[:6] == b"\x00" * 5 + b"\xbb"
    with pytest.raises(grpc.RpcError) as e:                  # in use by the group
        c.write(("DELETE", member(sel, 10, CPU_PORT, b"\xbb")))
    assert write_error(e.value)[0].canonical_code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    heavy = pb.Entity()
    heavy.CopyFrom(grp)
    heavy.action_profile_group.members[0].weight = 3
    with pytest.raises(grpc.RpcError) as e:
        c.write(("MODIFY", heavy))
    assert write_error(e.value)[0].canonical_code == grpc.StatusCode.UNIMPLEMENTED.value[0]
    members = c.read(pb.Entity(action_profile_member=pb.ActionProfileMember()))
    assert len(members) == 3


def test_meters_registers_counters_value_sets(primary):
    c = primary
    m = pb.Entity()
    m.meter_entry.meter_id = c.id("meters", "port_meter")
    m.meter_entry.index.index = 3
    m.meter_entry.config.cir, m.meter_entry.config.cburst = 1000, 10
    m.meter_entry.config.pir, m.meter_entry.config.pburst = 2000, 20
    c.write(("MODIFY", m))
    (got,) = c.read(m)
    cfg = got.meter_entry.config
    assert (cfg.cir, cfg.cburst, cfg.pir, cfg.pburst) == (1000, 10, 2000, 20)
    bad = pb.Entity()
    bad.CopyFrom(m)
    bad.meter_entry.config.cir = 5000
    with pytest.raises(grpc.RpcError) as e:
        c.write(("MODIFY", bad))
    assert write_error(e.value)[0].canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    reset = pb.Entity()
    reset.meter_entry.meter_id = m.meter_entry.meter_id
    reset.meter_entry.index.index = 3
    c.write(("MODIFY", reset))
    (got,) = c.read(m)
    assert not got.meter_entry.HasField("config")
    r = pb.Entity()
    r.register_entry.register_id = c.id("registers", "last_len")
    r.register_entry.index.index = 9
    r.register_entry.data.bitstring = b"\x01\x02"
    c.write(("MODIFY", r))
    (got,) = c.read(r)
    assert got.register_entry.data.bitstring == b"\x01\x02"
    assert len(c.read(pb.Entity(register_entry=pb.RegisterEntry(
        register_id=r.register_entry.register_id)))) == 128
    r.register_entry.index.index = 128
    with pytest.raises(grpc.RpcError) as e:
        c.write(("MODIFY", r))
    assert write_error(e.value)[0].canonical_code == grpc.StatusCode.OUT_OF_RANGE.value[0]
    cnt = pb.Entity()
    cnt.counter_entry.counter_id = c.id("counters", "port_in")
    cnt.counter_entry.index.index = 2
    cnt.counter_entry.data.packet_count, cnt.counter_entry.data.byte_count = 5, 500
    c.write(("MODIFY", cnt))
    (got,) = c.read(cnt)
    assert (got.counter_entry.data.packet_count, got.counter_entry.data.byte_count) == (5, 500)
    vs = pb.Entity()
    vs.value_set_entry.value_set_id = c.id("value_sets", "tagged_types")
    vs.value_set_entry.members.add().match.add(field_id=1).exact.value = b"\x88\xa8"
    c.write(("MODIFY", vs))
    (got,) = c.read(vs)
    assert got.value_set_entry.members[0].match[0].exact.value == b"\x88\xa8"


def test_digests(primary):
    c = primary
    d = pb.Entity()
    d.digest_entry.digest_id = c.id("digests", "learn_t")
    d.digest_entry.config.max_timeout_ns = 0
    d.digest_entry.config.max_list_size = 1
    d.digest_entry.config.ack_timeout_ns = 10**9
    c.write(("INSERT", d))
    c.packet_out(frame(src=b"\x00\x00\x00\x00\x00\x77"))
    dl = c.next("digest")
    assert dl.digest_id == d.digest_entry.digest_id
    (sample,) = dl.data
    assert [m.bitstring for m in sample.struct.members] == [b"\x77", b"\x40"]
    ack = pb.StreamMessageRequest()
    ack.digest_ack.digest_id, ack.digest_ack.list_id = dl.digest_id, dl.list_id
    c.out.put(ack)
    c.packet_out(frame(src=b"\x00\x00\x00\x00\x00\x77"))    # acknowledged: learned again
    assert c.next("digest").data[0].struct.members[0].bitstring == b"\x77"
    (got,) = c.read(d)
    assert got.digest_entry.config.max_list_size == 1


def test_idle_timeout_notifications(primary):
    c = primary
    src = b"\x00\x00\x00\x00\x00\x33"
    aged = c.table_entry("smac", [("hdr.ethernet.src", src)], "NoAction",
                         idle_timeout_ns=300_000_000)
    c.write(("INSERT", aged))
    note = c.next("idle_timeout_notification", timeout=10)
    (te,) = note.table_entry
    assert te.match[0].exact.value == b"\x33" and te.idle_timeout_ns == 300_000_000
    with pytest.raises(TimeoutError):                   # told once, not again while idle
        c.next("idle_timeout_notification", timeout=1)
    c.packet_out(frame(src=src))                         # a hit re-arms it
    assert c.next("idle_timeout_notification", timeout=10).table_entry[0].match[0].exact.value \
        == b"\x33"
    with pytest.raises(grpc.RpcError) as e:              # fwd has no support_timeout
        c.write(("INSERT", c.table_entry("fwd", [("hdr.ethernet.dst", MAC2)], "set_port",
                                         [("port", b"\x01")], idle_timeout_ns=10**9)))
    assert "idle timeouts" in write_error(e.value)[0].message


def test_one_shot_action_selector_programming(primary, switch):
    c = primary
    nh = c.id("actions", "set_nexthop")
    ecmp = c.table_entry("ecmp", [("hdr.ipv4.dst", b"\x0a\x00\x00\x07")])
    for mac in (b"\xc1", b"\xc2"):
        a = ecmp.table_entry.action.action_profile_action_set.action_profile_actions.add(weight=1)
        a.action.action_id = nh
        a.action.params.add(param_id=1, value=bytes([CPU_PORT]))
        a.action.params.add(param_id=2, value=mac)
    c.write(("INSERT", ecmp))
    (got,) = c.read(c.table_entry("ecmp"))
    assert len(got.table_entry.action.action_profile_action_set.action_profile_actions) == 2
    assert c.read(pb.Entity(action_profile_member=pb.ActionProfileMember())) == []   # hidden
    c.packet_out(ipv4(b"\x0a\x00\x00\x07", ttl=1))
    assert c.next("packet").payload[5:6] in (b"\xc1", b"\xc2")
    out = subprocess.run(["simple_switch_CLI", "--thrift-port", str(switch.thrift_port)],
                         input="act_prof_dump SwIngress.ecmp_sel\n", capture_output=True,
                         text=True, timeout=60).stdout
    assert out.count("Dumping member") == 2 and out.count("Dumping group") == 1
    c.write(("DELETE", c.table_entry("ecmp", [("hdr.ipv4.dst", b"\x0a\x00\x00\x07")])))
    out = subprocess.run(["simple_switch_CLI", "--thrift-port", str(switch.thrift_port)],
                         input="act_prof_dump SwIngress.ecmp_sel\n", capture_output=True,
                         text=True, timeout=60).stdout
    dump = out.split("RuntimeCmd:")[1]
    assert "MEMBERS" in dump and "GROUPS" in dump
    assert "Dumping member" not in dump and "Dumping group" not in dump   # gone with the entry


def test_translated_types_are_refused_by_name(primary, artifacts):
    info, _, js = artifacts
    bad = type(info)()
    bad.CopyFrom(info)
    a = next(x for x in bad.actions if x.preamble.name == "SwIngress.set_port")
    a.params[0].type_name.name = "PortId_t"
    bad.type_info.new_types["PortId_t"].translated_type.uri = "p4.org/psa/v1/PortId_t"
    bad.type_info.new_types["PortId_t"].translated_type.sdn_bitwidth = 32
    with pytest.raises(grpc.RpcError) as e:
        primary.set_pipeline(bad, js)
    assert _code(e) == grpc.StatusCode.UNIMPLEMENTED
    assert "SwIngress.set_port" in e.value.details() and "PortId_t" in e.value.details()
