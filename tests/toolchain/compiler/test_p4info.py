"""P4Info from the front end (`rdtcp-p4c --p4runtime-files`): ids, names, aliases and every
kind of object as p4c-bm2-ss writes them, the three file formats, and bad @id annotations.

The ids asserted literally are the ones p4c gives these names (the p4lang tutorials' basic.p4
P4Info has them: MyIngress.ipv4_lpm 37375156, MyIngress.ipv4_forward 28792405,
MyIngress.drop 25652968, NoAction 21257015)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolchain.compiler import compile_file
from toolchain.compiler.diagnostics import CompileError
from toolchain.compiler.driver import main
from toolchain.compiler.frontend import parse_and_check
from toolchain.compiler.p4info import (P4InfoError, Prefix, build_p4info, jenkins_one_at_a_time,
                                       parse_p4info, serialize)
from toolchain.compiler.p4info.ids import SymbolTable, member_ids
from .conftest import KIT, KIT_PROGRAMS, REPO

SWITCH_P4 = REPO / "tests" / "data" / "p4runtime" / "p4rt_switch.p4"

BASIC = """
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_t { bit<64> a; bit<32> b; bit<32> srcAddr; bit<32> dstAddr; }
struct headers { ethernet_t ethernet; ipv4_t ipv4; }
struct metadata { }
parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    state start { packet.extract(hdr.ethernet); packet.extract(hdr.ipv4); transition accept; }
}
control MyVerifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    action drop() { mark_to_drop(standard_metadata); }
    action ipv4_forward(bit<48> dstAddr, bit<9> port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.dst = dstAddr;
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { ipv4_forward; drop; NoAction; }
        size = 1024;
        default_action = drop();
    }
    apply { if (hdr.ipv4.isValid()) { ipv4_lpm.apply(); } }
}
control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) { apply { } }
control MyComputeChecksum(inout headers hdr, inout metadata meta) { apply { } }
control MyDeparser(packet_out packet, in headers hdr) {
    apply { packet.emit(hdr.ethernet); packet.emit(hdr.ipv4); }
}
V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
"""


def _info(path: Path):
    program, _ = parse_and_check(str(path))
    return build_p4info(program)


def _write(tmp_path: Path, text: str, name: str = "prog.p4") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.fixture(scope="module")
def switch_info():
    return _info(SWITCH_P4)


def _by_name(items):
    return {x.preamble.name: x for x in items}


def test_jenkins_hash_gives_p4cs_ids(tmp_path):
    info = _info(_write(tmp_path, BASIC))
    ids = {a.preamble.name: a.preamble.id for a in info.actions}
    assert ids == {"MyIngress.ipv4_forward": 28792405, "MyIngress.drop": 25652968,
                   "NoAction": 21257015}
    (table,) = info.tables
    assert (table.preamble.id, table.preamble.name, table.preamble.alias) == \
        (37375156, "MyIngress.ipv4_lpm", "ipv4_lpm")
    assert [r.id for r in table.action_refs] == [28792405, 25652968, 21257015]
    assert table.initial_default_action.action_id == 25652968
    assert not table.const_default_action_id
    (key,) = table.match_fields
    assert (key.id, key.name, key.bitwidth, key.match_type) == (1, "hdr.ipv4.dstAddr", 32, 3)
    fwd = _by_name(info.actions)["MyIngress.ipv4_forward"]
    assert [(p.id, p.name, p.bitwidth) for p in fwd.params] == [(1, "dstAddr", 48), (2, "port", 9)]
    assert info.pkg_info.arch == "v1model"
    # the hash is the 32-bit one-at-a-time hash; the id keeps its low 24 bits under the prefix
    assert (Prefix.TABLE << 24) | (jenkins_one_at_a_time(b"MyIngress.ipv4_lpm") & 0xFFFFFF) \
        == 37375156


def test_collisions_probe_the_hash_and_at_id_is_reserved_first():
    t = SymbolTable()
    clash = (Prefix.ACTION << 24) | (jenkins_one_at_a_time(b"b.x") & 0xFFFFFF)
    t.add(Prefix.ACTION, "a.x", clash)          # @id taking b.x's hashed id
    t.add(Prefix.ACTION, "b.x")
    t.add(Prefix.TABLE, "t", 5)                 # @id without the prefix gets it
    t.assign()
    assert t.id(Prefix.ACTION, "a.x") == clash
    assert t.id(Prefix.ACTION, "b.x") == clash + 1
    assert t.id(Prefix.TABLE, "t") == (Prefix.TABLE << 24) | 5
    assert t.alias("a.x") == "a.x" and t.alias("t") == "t"
    assert member_ids([None, 1, None]) == [2, 1, 3]


def test_every_kind_of_object(switch_info):
    info = switch_info
    tables = _by_name(info.tables)
    assert list(tables) == ["SwIngress.smac", "SwIngress.fwd", "SwIngress.acl",
                            "SwIngress.routes", "SwIngress.ecmp"]
    for t in info.tables:
        assert t.preamble.id >> 24 == Prefix.TABLE
    actions = {a.preamble.id: a.preamble.name for a in info.actions}
    fwd = tables["SwIngress.fwd"]
    scopes = {actions[r.id]: (r.scope, list(r.annotations)) for r in fwd.action_refs}
    assert scopes["SwIngress.to_cpu"] == (1, ["@tableonly"])
    assert scopes["SwIngress.drop"] == (2, ["@defaultonly"])
    assert scopes["SwIngress.set_port"] == (0, [])
    assert fwd.size == 256
    smac = tables["SwIngress.smac"]
    assert smac.idle_timeout_behavior == 1             # NOTIFY_CONTROL (support_timeout)
    acl = tables["SwIngress.acl"]
    assert [(f.name, f.match_type) for f in acl.match_fields] == \
        [("hdr.ipv4.src", 4), ("hdr.ipv4.dst", 5), ("hdr.ipv4.protocol", 6)]
    # no default_action: NoAction, mutable and @defaultonly
    assert actions[acl.initial_default_action.action_id] == "NoAction"
    routes = tables["SwIngress.routes"]
    assert actions[routes.const_default_action_id] == "SwIngress.drop"
    ecmp = tables["SwIngress.ecmp"]
    assert [f.name for f in ecmp.match_fields] == ["hdr.ipv4.dst"]       # selector keys go
    profiles = _by_name(info.action_profiles)
    assert profiles["SwIngress.nexthops"].with_selector is False
    assert profiles["SwIngress.nexthops"].size == 64
    assert list(profiles["SwIngress.nexthops"].table_ids) == [routes.preamble.id]
    assert profiles["SwIngress.ecmp_sel"].with_selector is True
    assert profiles["SwIngress.ecmp_sel"].size == 128
    assert routes.implementation_id == profiles["SwIngress.nexthops"].preamble.id
    (dc,) = info.direct_counters
    assert (dc.preamble.name, dc.spec.unit, dc.direct_table_id) == \
        ("SwIngress.fwd_hits", 3, fwd.preamble.id)
    assert list(fwd.direct_resource_ids) == [dc.preamble.id]
    (dm,) = info.direct_meters
    assert (dm.preamble.name, dm.spec.unit, dm.direct_table_id) == \
        ("SwIngress.acl_rate", 1, acl.preamble.id)
    (c,) = info.counters
    assert (c.preamble.name, c.size, c.spec.unit, c.preamble.id >> 24) == \
        ("SwIngress.port_in", 128, 3, Prefix.COUNTER)
    (m,) = info.meters
    assert (m.preamble.name, m.size, m.spec.unit) == ("SwIngress.port_meter", 128, 2)
    (r,) = info.registers
    assert (r.preamble.name, r.size, r.type_spec.bitstring.bit.bitwidth) == \
        ("SwIngress.last_len", 128, 32)
    (d,) = info.digests
    assert (d.preamble.name, d.type_spec.struct.name) == ("learn_t", "learn_t")
    members = info.type_info.structs["learn_t"].members
    assert [(x.name, x.type_spec.bitstring.bit.bitwidth) for x in members] == \
        [("src", 48), ("port", 9)]
    (vs,) = info.value_sets
    assert (vs.preamble.name, vs.size, [(x.id, x.bitwidth) for x in vs.match]) == \
        ("SwParser.tagged_types", 4, [(1, 16)])
    cpm = _by_name(info.controller_packet_metadata)
    assert list(cpm) == ["packet_out", "packet_in"]
    assert [(x.id, x.name, x.bitwidth) for x in cpm["packet_in"].metadata] == \
        [(1, "ingress_port", 9), (2, "_pad", 7)]
    assert cpm["packet_in"].preamble.annotations == ['@controller_header("packet_in")']
    assert cpm["packet_in"].preamble.id >> 24 == Prefix.CONTROLLER_HEADER


def test_names_are_the_bmv2_jsons(switch_info):
    """The switch's P4Runtime server matches P4Info objects to the JSON's by name."""
    doc = compile_file(SWITCH_P4)
    json_names = {t["name"] for p in doc["pipelines"] for t in p["tables"]}
    json_names |= {a["name"] for a in doc["actions"]}
    json_names |= {x["name"] for k in ("counter_arrays", "meter_arrays", "register_arrays",
                                       "learn_lists", "parse_vsets") for x in doc[k]}
    json_names |= {a["name"] for p in doc["pipelines"] for a in p["action_profiles"]}
    info = switch_info
    for group in (info.tables, info.actions, info.counters, info.direct_counters,
                  info.meters, info.direct_meters, info.registers, info.digests,
                  info.value_sets, info.action_profiles):
        for x in group:
            assert x.preamble.name in json_names


@pytest.mark.parametrize("name", KIT_PROGRAMS)
def test_kit_programs(name):
    info = _info(KIT / f"{name}.p4")
    doc = compile_file(KIT / f"{name}.p4")
    tables = {t["name"] for p in doc["pipelines"] for t in p["tables"]}
    assert {t.preamble.name for t in info.tables} <= tables
    assert {a.preamble.name for a in info.actions} <= {a["name"] for a in doc["actions"]}
    assert {r.preamble.name for r in info.registers} == \
        {r["name"] for r in doc["register_arrays"]}
    ids = [x.preamble.id for g in (info.tables, info.actions, info.registers, info.counters)
           for x in g]
    assert len(ids) == len(set(ids))


def test_gateway_p4info():
    info = _info(REPO / "p4src" / "rdtcp.p4")
    tables = _by_name(info.tables)
    assert tables["MyIngress.ipv4_lpm"].preamble.id == 37375156
    assert "MyIngress.red_min_th" in _by_name(info.registers)
    assert "MyIngress.epdn_events" in _by_name(info.counters)


def test_at_id_annotations(tmp_path):
    text = BASIC.replace("    table ipv4_lpm {", "    @id(7) table ipv4_lpm {") \
        .replace("action drop()", "@id(0x01000009) action drop()") \
        .replace("action ipv4_forward(bit<48> dstAddr, bit<9> port)",
                 "action ipv4_forward(@id(5) bit<48> dstAddr, bit<9> port)")
    info = _info(_write(tmp_path, text))
    assert info.tables[0].preamble.id == 0x02000007
    acts = _by_name(info.actions)
    assert acts["MyIngress.drop"].preamble.id == 0x01000009
    assert [p.id for p in acts["MyIngress.ipv4_forward"].params] == [5, 2]   # p4c: by position


@pytest.mark.parametrize("change, message", [
    (("    table ipv4_lpm {", "    @id(0x01000007) table ipv4_lpm {"), "wrong 8-bit prefix"),
    (("action drop()", "@id(3) action drop()", "action ipv4_forward(", "@id(3) action ipv4_forward("),
     "assigned to multiple declarations"),
    (("bit<48> dstAddr, bit<9> port", "@id(2) bit<48> dstAddr, @id(2) bit<9> port"),
     "used multiple times"),
])
def test_bad_at_ids_are_errors(tmp_path, change, message):
    text = BASIC
    for old, new in zip(change[::2], change[1::2]):
        text = text.replace(old, new, 1)
    program, _ = parse_and_check(str(_write(tmp_path, text)))
    with pytest.raises(P4InfoError) as e:
        build_p4info(program)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_translated_and_new_types(tmp_path):
    text = BASIC.replace("struct metadata { }", """struct metadata { }
@p4runtime_translation("p4.org/psa/v1/PortId_t", 32)
type bit<9> PortId_t;
@p4runtime_translation("example.org/name", string)
type bit<16> Name_t;
type bit<48> Mac_t;
enum bit<8> Kind { A = 1, B = 2 }""").replace(
        "action ipv4_forward(bit<48> dstAddr, bit<9> port) {",
        "action ipv4_forward(Mac_t dstAddr, PortId_t port, Name_t n, Kind k) {") \
        .replace("standard_metadata.egress_spec = port;",
                 "standard_metadata.egress_spec = (bit<9>)port;") \
        .replace("hdr.ethernet.dst = dstAddr;", "hdr.ethernet.dst = (bit<48>)dstAddr;")
    info = _info(_write(tmp_path, text))
    fwd = _by_name(info.actions)["MyIngress.ipv4_forward"]
    assert [(p.name, p.bitwidth, p.type_name.name) for p in fwd.params] == \
        [("dstAddr", 48, "Mac_t"), ("port", 32, "PortId_t"), ("n", 0, "Name_t"), ("k", 8, "")]
    nt = info.type_info.new_types
    assert nt["PortId_t"].translated_type.uri == "p4.org/psa/v1/PortId_t"
    assert nt["PortId_t"].translated_type.sdn_bitwidth == 32
    assert nt["Name_t"].translated_type.HasField("sdn_string")
    assert nt["Mac_t"].original_type.bitstring.bit.bitwidth == 48
    kind = info.type_info.serializable_enums["Kind"]
    assert [(m.name, m.value) for m in kind.members] == [("A", b"\x01"), ("B", b"\x02")]


def test_driver_writes_every_format(tmp_path, capsys):
    out = tmp_path / "sw.json"
    names = [tmp_path / "sw.p4info.txtpb", tmp_path / "sw.p4info.json", tmp_path / "sw.bin",
             tmp_path / "sw.p4info.txt"]
    assert main([str(SWITCH_P4), "-o", str(out),
                 "--p4runtime-files", ",".join(map(str, names))]) == 0
    assert capsys.readouterr().err == ""
    infos = [parse_p4info(p.read_bytes(), fmt) for p, fmt in
             zip(names, ["text", "json", "binary", "text"])]
    assert all(i == infos[0] for i in infos[1:]) and infos[0].tables
    assert names[0].read_text().startswith("# proto-file: p4/config/v1/p4info.proto\n"
                                           "# proto-message: p4.config.v1.P4Info\n\n")
    assert json.loads(names[1].read_text())["pkgInfo"]["arch"] == "v1model"
    # p4c's older pair: one file in the given format; a name without a known suffix
    # takes --p4runtime-format
    single, other = tmp_path / "one.info", tmp_path / "two.info"
    assert main([str(SWITCH_P4), "-o", str(out), "--p4runtime-file", str(single),
                 "--p4runtime-format", "json", "--p4runtime-files", str(other)]) == 0
    assert parse_p4info(single.read_bytes(), "json") == infos[0]
    assert parse_p4info(other.read_bytes(), "json") == infos[0]
    assert serialize(infos[0], "binary") == names[2].read_bytes()


def test_driver_refuses_an_unknown_suffix_before_compiling(tmp_path, capsys):
    out = tmp_path / "sw.json"
    assert main([str(SWITCH_P4), "-o", str(out), "--p4runtime-files",
                 f"{tmp_path}/a.txtpb,{tmp_path}/b.yaml"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "b.yaml: unknown file kind" in err and "\n" not in err
    assert not out.exists() and not (tmp_path / "a.txtpb").exists()


def test_driver_reports_an_unwritable_file(tmp_path, capsys):
    assert main([str(SWITCH_P4), "-o", str(tmp_path / "sw.json"), "--p4runtime-files",
                 str(tmp_path / "missing" / "x.txtpb")]) == 1
    assert "cannot write" in capsys.readouterr().err


def test_p4info_errors_stop_the_compilation_with_a_position(tmp_path, capsys):
    text = BASIC.replace("    table ipv4_lpm {", "    @id(0x01000007) table ipv4_lpm {")
    src = _write(tmp_path, text)
    assert main([str(src), "-o", str(tmp_path / "x.json"), "--p4runtime-files",
                 str(tmp_path / "x.txtpb")]) == 1
    err = capsys.readouterr().err
    assert "wrong 8-bit prefix" in err and f"{src}:" in err
    assert not (tmp_path / "x.txtpb").exists()
    with pytest.raises(CompileError):          # without P4Info files the program compiles
        raise P4InfoError.at(None, "x")
    assert main([str(src), "-o", str(tmp_path / "x.json")]) == 0
