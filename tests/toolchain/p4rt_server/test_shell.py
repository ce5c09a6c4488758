"""p4runtime-shell (the P4 community's P4Runtime client) against rdtcp-switch: the pipeline
pushed by `setup`, then tables, counters, meters, action profiles, multicast and clone
sessions, digests and packet I/O in its own API; and the kit's programs and the RD-TCP
gateway installed over P4Runtime with an entry in each of their tables."""
from __future__ import annotations

import sys

import pytest

from .conftest import CPU_PORT, REPO, frame

sh = pytest.importorskip("p4runtime_sh.shell")
# p4runtime-shell imports IPython, which puts IPython/extensions on sys.path: its `tests`
# package would then shadow this repository's (tests.toolchain... imports of later modules)
sys.path[:] = [p for p in sys.path if not p.rstrip("/").endswith("IPython/extensions")]
if "tests" in sys.modules and "IPython" in (getattr(sys.modules["tests"], "__file__", "") or ""):
    del sys.modules["tests"]


@pytest.fixture
def shell(switch, artifacts):
    _, info_path, js = artifacts
    sh.setup(device_id=0, grpc_addr=switch.grpc_addr, election_id=(0, 1),
             config=sh.FwdPipeConfig(str(info_path), str(js)), verbose=False)
    yield sh
    sh.teardown()


def test_shell_session(shell):
    te = sh.TableEntry("SwIngress.fwd")(action="SwIngress.set_port")
    te.match["hdr.ethernet.dst"] = "00:00:00:00:00:02"
    te.action["port"] = "5"
    te.insert()
    got = list(sh.TableEntry("SwIngress.fwd").read())
    assert len(got) == 1 and got[0].action["port"] is not None
    te.action["port"] = "6"
    te.modify()
    acl = sh.TableEntry("SwIngress.acl")(action="SwIngress.acl_mark")
    acl.match["hdr.ipv4.src"] = "10.0.0.0&&&255.0.0.0"
    acl.match["hdr.ipv4.dst"] = "1..9"
    acl.action["tos"] = "16"
    acl.priority = 7
    acl.insert()
    assert [e.priority for e in sh.TableEntry("SwIngress.acl").read()] == [7]
    lpm = sh.TableEntry("SwIngress.routes")
    assert list(lpm.read()) == []
    # counters, direct counters, meters
    c = sh.CounterEntry("SwIngress.port_in")
    c.index = 3
    c.packet_count, c.byte_count = 4, 400
    c.modify()
    one = sh.CounterEntry("SwIngress.port_in")
    one.index = 3
    (cell,) = list(one.read())
    assert (cell.packet_count, cell.byte_count) == (4, 400)
    m = sh.MeterEntry("SwIngress.port_meter")
    m.index = 1
    m.cir, m.cburst, m.pir, m.pburst = 100, 10, 200, 20
    m.modify()
    dc = [x for x in sh.DirectCounterEntry("SwIngress.fwd_hits").read()]
    assert len(dc) == 1
    # action profile member and group, an ecmp entry on the group
    mbr = sh.ActionProfileMember("SwIngress.ecmp_sel")(member_id=1, action="SwIngress.set_nexthop")
    mbr.action["port"] = str(CPU_PORT)
    mbr.action["dmac"] = "00:00:00:00:00:bb"
    mbr.insert()
    grp = sh.ActionProfileGroup("SwIngress.ecmp_sel")(group_id=1)
    grp.add(1)
    grp.insert()
    ecmp = sh.TableEntry("SwIngress.ecmp")
    ecmp.match["hdr.ipv4.dst"] = "10.0.0.2"
    ecmp.group_id = 1
    ecmp.insert()
    assert len(list(sh.ActionProfileGroup("SwIngress.ecmp_sel").read())) == 1
    # multicast and clone sessions
    mc = sh.MulticastGroupEntry(9).add(CPU_PORT, 1).add(CPU_PORT, 2)
    mc.insert()
    assert len(list(sh.MulticastGroupEntry(9).read())) == 1
    cs = sh.CloneSessionEntry(3).add(CPU_PORT)
    cs.insert()
    # packet I/O: a PacketOut through the tables, flooded to group 9 -> two PacketIns
    flood = sh.TableEntry("SwIngress.fwd")(action="SwIngress.flood")
    flood.match["hdr.ethernet.dst"] = "00:00:00:00:00:09"
    flood.action["group"] = "9"
    flood.insert()
    sniffer = sh.PacketIn()
    p = sh.PacketOut(frame(dst=b"\x00\x00\x00\x00\x00\x09"))
    p.metadata["egress_port"] = "0"
    p.send()
    got = []
    deadline = 10.0
    while len(got) < 2 and deadline > 0:
        got += list(sniffer.sniff(timeout=1))
        deadline -= 1
    assert len(got) == 2
    assert all(g.packet.payload == frame(dst=b"\x00\x00\x00\x00\x00\x09") for g in got)
    # digests
    d = sh.DigestEntry("learn_t")
    d.max_timeout_ns, d.max_list_size, d.ack_timeout_ns = 0, 1, 1000000000
    d.insert()
    lists = sh.DigestList()
    p = sh.PacketOut(frame(src=b"\x00\x00\x00\x00\x00\x42"))
    p.metadata["egress_port"] = "0"
    p.send()
    # the source learned by the flooded packet may come first: it was sampled before the
    # configuration and goes out with the list's buffer
    sources = [d.struct.members[0].bitstring for dl in lists.sniff(timeout=3)
               for d in dl.digest.data]
    assert b"\x42" in sources
    te.delete()
    assert list(sh.TableEntry("SwIngress.fwd").read()) != []       # the flood entry stays


def _compiled(tmp_path, source):
    from toolchain.compiler.driver import main
    js, info = tmp_path / "p.json", tmp_path / "p.p4info.txtpb"
    assert main([str(source), "-o", str(js), "--p4runtime-files", str(info)]) == 0
    return info, js


@pytest.mark.parametrize("program", ["lpm_forward", "flow_hash_register", "action_arith",
                                     "recirculate_clone", "label_stack", "epdn_option",
                                     "parser_select_verify", "gateway"])
def test_kit_programs_and_the_gateway_over_p4runtime(switch, tmp_path, program):
    src = REPO / "p4src" / "rdtcp.p4" if program == "gateway" else \
        REPO / "tests" / "data" / "p4-kit" / f"{program}.p4"
    info, js = _compiled(tmp_path, src)
    sh.setup(device_id=0, grpc_addr=switch.grpc_addr, election_id=(0, 1),
             config=sh.FwdPipeConfig(str(info), str(js)), verbose=False)
    try:
        tables = {o.preamble.id: o for _, o in sh.context.get_objs(sh.P4Type.table)}
        for t in tables.values():
            name = t.preamble.name
            if t.is_const_table:
                assert list(sh.TableEntry(name).read()) is not None
                continue
            refs = [r for r in t.action_refs if r.scope != 2]     # not @defaultonly
            action = sh.context.get_name_from_id(refs[0].id)
            te = sh.TableEntry(name)(action=action)
            for f in t.match_fields:
                if f.match_type == f.EXACT:
                    te.match[f.name] = "1"
                elif f.match_type == f.LPM:
                    te.match[f.name] = "0/1" if f.bitwidth > 1 else "1/1"
            for p in sh.context.get_obj(sh.P4Type.action, action).params:
                te.action[p.name] = "1"
            if any(f.match_type in (f.TERNARY, f.RANGE, f.OPTIONAL) for f in t.match_fields):
                te.priority = 1
            te.insert()
            assert len(list(sh.TableEntry(name).read())) == 1
    finally:
        sh.teardown()
