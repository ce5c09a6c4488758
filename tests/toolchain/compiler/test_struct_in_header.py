"""Header fields of struct type (spec 7.2.2): the header flattened as p4c's FlattenHeaders
names it, the members reached through the struct, and the types such a struct may hold."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError, compile_file
from toolchain.compiler.backend.bmv2_schema import check_bmv2_json

PROGRAM = """#include <core.p4>
#include <v1model.p4>
%s
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { %s }
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
TYPES = """struct in_t { bit<4> a; bool b; bit<3> c; }
struct out_t { in_t i; bit<8> d; }
header h_t { bit<8> x; out_t o; }"""


def compile_text(tmp_path, types: str, ingress: str) -> dict:
    path = tmp_path / "prog.p4"
    path.write_text(PROGRAM % (types, ingress))
    return compile_file(path)


def test_header_with_struct_fields_is_flattened_with_p4c_names(tmp_path):
    doc = compile_text(tmp_path, TYPES, "apply { hdr.h.o.i.c = hdr.h.o.d[2:0]; }")
    assert check_bmv2_json(doc) == []
    (t,) = [t for t in doc["header_types"] if t["name"] == "h_t"]
    # every field of such a header is renamed "_<path>_<index>" (FlattenHeaders)
    assert t["fields"] == [["_x0", 8, False], ["_o_i_a1", 4, False], ["_o_i_b2", 1, False],
                           ["_o_i_c3", 3, False], ["_o_d4", 8, False]]
    (assign,) = [p for a in doc["actions"] for p in a["primitives"] if p["op"] == "assign"]
    assert assign["parameters"][0] == {"type": "field", "value": ["h", "_o_i_c3"]}


def test_whole_struct_field_copies_member_by_member(tmp_path):
    doc = compile_text(tmp_path, TYPES + "\nstruct unused_t { bit<8> z; }",
                       "apply { out_t v = hdr.h.o; v.d = 1; hdr.h.o = v; }")
    targets = [p["parameters"][0]["value"] for a in doc["actions"] for p in a["primitives"]]
    assert ["h", "_o_i_a1"] in targets and ["h", "_o_d4"] in targets


@pytest.mark.parametrize("types,message", [
    ("struct in_t { error e; }\nheader h_t { in_t i; }",
     "header field 'i' of struct type in_t holds a error; a struct inside a header may hold "
     "only bit<W>, int<W>, bool, serializable enums and such structs"),
])
def test_struct_field_types_are_checked(tmp_path, types, message):
    with pytest.raises(CompileError) as info:
        compile_text(tmp_path, types, "apply { }")
    assert message in str(info.value)
