"""Tables with an action profile or action selector (v1model action_profile /
action_selector, table property `implementation`) as p4c's BMv2 back end writes them:
"indirect" / "indirect_ws" tables naming a pipeline "action_profiles" entry, `selector`
keys as the selector's hash inputs (not table keys), no default entry; and their behaviour
on the embedded target programmed with the simple_switch_CLI act_prof_* commands."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError, compile_file
from toolchain.compiler.backend.bmv2_schema import check_bmv2_json
from toolchain.switch import SimpleSwitch

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<8> res; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_res(bit<8> v, bit<9> port) { hdr.h.res = v; sm.egress_spec = port; }
    action_selector(HashAlgorithm.crc16, 32w16, 32w8) sel;
    table ecmp {
        key = { hdr.h.a: exact; hdr.h.b: selector; }
        actions = { set_res; NoAction; }
        implementation = sel;
    }
    table prof {
        key = { hdr.h.a: exact; }
        actions = { set_res; NoAction; }
        implementation = %s;
    }
    apply { if (hdr.h.a < 10) { ecmp.apply(); } else { prof.apply(); } }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def compile_text(tmp_path, implementation: str = "action_profile(32w4)",
                 edit=lambda s: s) -> dict:
    path = tmp_path / "prog.p4"
    path.write_text(edit(PROGRAM % implementation))
    return compile_file(path)


def test_indirect_tables_and_profiles_as_p4c_writes_them(tmp_path):
    doc = compile_text(tmp_path)
    assert check_bmv2_json(doc) == []
    pipe = doc["pipelines"][0]
    profiles = [{k: v for k, v in ap.items() if k != "source_info"}
                for ap in pipe["action_profiles"]]
    assert profiles == [
        {"name": "I.sel", "id": 0, "max_size": 16,
         "selector": {"algo": "crc16", "input": [{"type": "field", "value": ["h", "b"]}]}},
        {"name": "action_profile", "id": 1, "max_size": 4}]
    tables = {t["name"]: t for t in pipe["tables"]}
    assert tables["I.ecmp"]["type"] == "indirect_ws"
    assert tables["I.ecmp"]["action_profile"] == "I.sel"
    assert [k["name"] for k in tables["I.ecmp"]["key"]] == ["hdr.h.a"]   # selector key out
    assert tables["I.prof"]["type"] == "indirect"
    assert "default_entry" not in tables["I.prof"]


def test_selector_spreads_a_group_and_profile_members_act(tmp_path):
    sw = SimpleSwitch(compile_text(tmp_path))
    for line in ["act_prof_create_member I.sel I.set_res 0x11 1",
                 "act_prof_create_member I.sel I.set_res 0x22 2",
                 "act_prof_create_group I.sel",
                 "act_prof_add_member_to_group I.sel 0 0",
                 "act_prof_add_member_to_group I.sel 1 0",
                 "table_indirect_add_with_group I.ecmp 5 => 0",
                 "act_prof_create_member action_profile I.set_res 0x33 3",
                 "table_indirect_add I.prof 20 => 0"]:
        sw.cli(line)
    outs = {sw.process(0, bytes([5, b, 0]))[0][0] for b in range(16)}
    assert outs == {1, 2}                  # the hash of b picks one member or the other
    for b in range(16):                    # and always the same one for the same b
        first = sw.process(0, bytes([5, b, 0]))[0]
        assert sw.process(0, bytes([5, b, 0]))[0] == first
        assert first[1][2] == {1: 0x11, 2: 0x22}[first[0]]
    assert sw.process(0, bytes([20, 0, 0])) == [(3, bytes([20, 0, 0x33]))]
    assert sw.process(0, bytes([21, 0, 0])) == [(0, bytes([21, 0, 0]))]   # miss: NoAction


@pytest.mark.parametrize("implementation,edit,message", [
    ("r", lambda s: s.replace("action_selector(", "register<bit<8>>(1) r;\n    action_selector("),
     "table 'prof': 'implementation' must name an action_profile or action_selector instance"),
    ("action_profile(32w4, 32w5)", lambda s: s,
     "table 'prof': 'implementation': action_profile takes 1 argument, 2 given"),
    ("action_selector(32w4, 32w5, 32w6)", lambda s: s,
     "table 'prof': 'implementation': the first argument is a HashAlgorithm"),
])
def test_implementation_errors(tmp_path, implementation, edit, message):
    with pytest.raises(CompileError) as info:
        compile_text(tmp_path, implementation, edit)
    assert message in str(info.value)


def test_selector_key_without_a_selector_is_left_out_of_the_key(tmp_path):
    # p4c's BMv2 back end skips `selector` keys of a table without an action selector
    # (backends/bmv2/common/control.h convertTable), as in its sample issue1560-bmv2
    doc = compile_text(tmp_path, edit=lambda s: s.replace("implementation = sel;", ""))
    assert check_bmv2_json(doc) == []
    ecmp = next(t for t in doc["pipelines"][0]["tables"] if t["name"] == "I.ecmp")
    assert ecmp["type"] == "simple" and [k["target"] for k in ecmp["key"]] == [["h", "a"]]
