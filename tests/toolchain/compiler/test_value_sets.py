"""Parser value sets (spec 12.11) as p4c's BMv2 back end writes them ("parse_vsets" with
compressed_bitwidth and max_size, "parse_vset" transitions named "<parser>.<name>"), and
their behaviour on the embedded target as the control plane fills them (pvs_add)."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError, compile_file
from toolchain.compiler.backend.bmv2_schema import check_bmv2_json
from toolchain.switch import SimpleSwitch

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> a; bit<8> b; }
header out_t { bit<8> path; }
struct headers_t { eth_t eth; tag_t tag; out_t res; }
struct pair_t { bit<8> a; bit<8> b; }
struct meta_t { bit<8> path; }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    value_set<bit<16>>(4) types;
    @name("pairs") value_set<pair_t>(8) pair_set;
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            types: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition select(hdr.tag.a, hdr.tag.b) {
            pair_set: known;
            %s
            default: accept;
        }
    }
    state known { meta.path = 1; transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; hdr.res.setValid(); hdr.res.path = meta.path; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.tag); pkt.emit(hdr.res); }
}
V1Switch(MyParser(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.fixture
def doc(tmp_path) -> dict:
    path = tmp_path / "prog.p4"
    path.write_text(PROGRAM % "")
    d = compile_file(path)
    assert check_bmv2_json(d) == []
    return d


def test_value_sets_are_declared_as_p4c_names_them(doc):
    assert doc["parse_vsets"] == [
        {"name": "MyParser.types", "id": 0, "compressed_bitwidth": 16, "max_size": 4},
        {"name": "MyParser.pairs", "id": 1, "compressed_bitwidth": 16, "max_size": 8}]
    (start,) = [s for s in doc["parsers"][0]["parse_states"] if s["name"] == "start"]
    assert start["transitions"][0] == {"type": "parse_vset", "value": "MyParser.types",
                                       "mask": None, "next_state": "parse_tag"}


def frame(eth_type: int, a: int, b: int) -> bytes:
    return bytes(12) + eth_type.to_bytes(2, "big") + bytes([a, b])


def test_value_sets_match_what_the_control_plane_adds(doc):
    sw = SimpleSwitch(doc)
    # empty sets: the tag is not parsed (it stays payload), path 0
    assert sw.process(0, frame(0x1234, 5, 6))[0][1][14:] == bytes([0, 5, 6])
    sw.cli("pvs_add MyParser.types 0x1234")
    sw.cli("pvs_add MyParser.pairs 0x0506")        # the key a ++ b
    assert sw.process(0, frame(0x1234, 5, 6))[0][1][14:] == bytes([5, 6, 1])
    assert sw.process(0, frame(0x1234, 5, 7))[0][1][14:] == bytes([5, 7, 0])
    assert sw.process(0, frame(0x9999, 5, 6))[0][1][14:] == bytes([0, 5, 6])


def test_value_set_as_one_component_of_a_keyset_is_refused(tmp_path):
    path = tmp_path / "prog.p4"
    path.write_text(PROGRAM.replace("value_set<bit<16>>(4) types;",
                                    "value_set<bit<16>>(4) types; value_set<bit<8>>(2) one;")
                    % "(one, 8w1): known;")
    with pytest.raises(CompileError) as info:
        compile_file(path)
    assert "a parser value set as one component of a select keyset is not supported" \
        in str(info.value)
