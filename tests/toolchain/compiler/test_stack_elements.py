"""Whole header-stack elements known only at run time (P4_16 spec 8.18): `stack.last` copied as
a header in a parser and `stack[i]` with a run-time i copied both ways, as p4c's BMv2 back end
writes them: an assign_header operand dereference_header_stack(stack, i | last_stack_index),
wrapped twice like every expression argument of a primitive (p4c ExpressionConverter::convert
with wrap; BMv2 P4Objects::process_primitive_call builds the argument's "value"; JSON_format.md
"expression"). The shape is pinned here and checked against bmv2_schema; the same program runs
on the embedded target as tests/toolchain/programs/stack_element_copy.{p4,stf}, and
stack.lastIndex alone in stack_last_index.{p4,stf}."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError, compile_file
from toolchain.compiler.backend.bmv2_schema import check_bmv2_json

PROGRAM = """
// Whole header-stack elements known only at run time (P4_16 spec 8.18), as p4c's BMv2 back
// end writes them (JSON_format.md): `stack.last` copied as a header in the parser and
// `stack[i]` with i from the packet copied both ways in ingress, each an assign_header whose
// operand is dereference_header_stack(...); `stack.lastIndex` as last_stack_index, in a
// parser select key and in a parser assignment.
// Labels are MPLS-like: 7-bit value, bottom-of-stack bit. The last byte of the source MAC picks
// the label that ingress swaps with the first one.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header label_t { bit<7> v; bit<1> bos; }
header out_t { bit<8> depth; bit<8> last_v; bit<8> single; }
struct headers_t { ethernet_t ethernet; out_t report; label_t[4] labels; }
struct meta_t { label_t last; bit<32> depth; bit<8> single; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition labels;
    }
    state labels {
        pkt.extract(hdr.labels.next);
        meta.last = hdr.labels.last;            // a whole header from .last
        transition select(hdr.labels.last.bos) {
            1: done;
            default: labels;
        }
    }
    state done {
        meta.depth = hdr.labels.lastIndex;
        transition select(hdr.labels.lastIndex) {
            0: single;
            default: accept;
        }
    }
    state single {
        meta.single = 1;
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.report.setValid();
        hdr.report.depth = (bit<8>)meta.depth;
        hdr.report.last_v = (bit<8>)meta.last.v;
        hdr.report.single = meta.single;
        bit<8> idx = hdr.ethernet.src[7:0];
        if (idx <= (bit<8>)meta.depth) {
            label_t tmp = hdr.labels[idx];      // run-time index, read as a header
            hdr.labels[idx] = hdr.labels[0];    // ... and written as one
            hdr.labels[0] = tmp;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.report); pkt.emit(hdr.labels); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _compile(tmp_path, text=PROGRAM):
    path = tmp_path / "prog.p4"
    path.write_text(text)
    return compile_file(str(path))


def _element(stack, index):
    """The p4c shape of stack[index] as a primitive's header argument."""
    return {"type": "expression", "value": {"type": "expression", "value": {
        "op": "dereference_header_stack", "left": {"type": "header_stack", "value": stack},
        "right": index}}}


LAST_INDEX = {"type": "expression", "value": {
    "op": "last_stack_index", "left": None, "right": {"type": "header_stack", "value": "labels"}}}


def _assign_headers(doc):
    return [p["parameters"] for a in doc["actions"] for p in a["primitives"]
            if p["op"] == "assign_header"]


def test_whole_element_program_passes_bmv2_schema(tmp_path):
    assert check_bmv2_json(_compile(tmp_path)) == []


def test_stack_last_header_copy_in_parser_dereferences_last_stack_index(tmp_path):
    doc = _compile(tmp_path)
    state = next(s for s in doc["parsers"][0]["parse_states"] if s["name"] == "labels")
    (copy,) = [op["parameters"][0] for op in state["parser_ops"] if op["op"] == "primitive"]
    assert copy["op"] == "assign_header"
    assert copy["parameters"][1] == _element("labels", LAST_INDEX)


def test_runtime_index_header_read_and_write_dereference_the_index(tmp_path):
    idx = {"type": "field", "value": ["scalars", "idx"]}
    copies = _assign_headers(_compile(tmp_path))
    # label_t tmp = hdr.labels[idx]; hdr.labels[idx] = hdr.labels[0]; hdr.labels[0] = tmp;
    assert [c[1] for c in copies if c[0]["type"] == "header" and c[0]["value"] != "labels[0]"] \
        == [_element("labels", idx)]
    assert [c for c in copies if c[0]["type"] == "expression"] == \
        [[_element("labels", idx), {"type": "header", "value": "labels[0]"}]]


def test_runtime_index_copy_into_union_member_is_refused(tmp_path):
    text = PROGRAM.replace("struct headers_t {",
                           "header_union lu_t { label_t a; ethernet_t b; }\nstruct headers_t { lu_t u;")
    text = text.replace("hdr.labels[0] = tmp;", "hdr.labels[0] = tmp; hdr.u.a = hdr.labels[idx];")
    with pytest.raises(CompileError, match="assignment to hdr.u.a from hdr.labels"):
        _compile(tmp_path, text)
