"""Helpers for the front end's tests: compile a program body after the project's
`#include <core.p4>` / `<v1model.p4>` declarations, the way user programs are written."""
from __future__ import annotations

from pathlib import Path

import pytest

from toolchain.compiler.diagnostics import CompileError
from toolchain.compiler.frontend import parse_and_check

REPO = Path(__file__).resolve().parents[4]
KIT = REPO / "tests" / "data" / "p4-kit"

HEADERS = """
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header label_t { bit<20> label; bit<3> tc; bit<1> bos; bit<8> ttl; }
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; label_t[4] labels; }
struct meta_t { bit<32> a; bit<32> b; int<8> s; bit<8> c; bool flag; }
"""

PIPELINE = """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }
"""


def program_text(body: str, *, ingress: str = None) -> str:
    """A whole v1model program: HEADERS, the body, and a pipeline using control I."""
    if ingress is not None:
        body = body + "\ncontrol I(inout headers_t hdr, inout meta_t meta, " \
                      "inout standard_metadata_t sm) {\n" + ingress + "\n}\n"
    return "#include <core.p4>\n#include <v1model.p4>\n" + HEADERS + body + PIPELINE + \
        "V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n"


@pytest.fixture
def compile_p4(tmp_path):
    """compile_p4(text) -> Program; raises CompileError."""
    def run(text: str, name: str = "prog.p4"):
        path = tmp_path / name
        path.write_text(text)
        program, _warnings = parse_and_check(path)
        return program
    return run


@pytest.fixture
def errors_of(tmp_path):
    """errors_of(text) -> list of 'line:col: message' (file name dropped)."""
    def run(text: str):
        path = tmp_path / "prog.p4"
        path.write_text(text)
        try:
            parse_and_check(path)
        except CompileError as e:
            out = []
            for d in e.errors:
                assert d.pos is not None
                out.append(f"{Path(d.pos.file).name}:{d.pos.line}:{d.pos.col}: {d.message}")
            return out
        raise AssertionError("expected a compile error")
    return run


@pytest.fixture
def ingress_errors(errors_of):
    """Errors of a program whose ingress control body is `ingress` (and extra decls `body`)."""
    def run(ingress: str, body: str = ""):
        return errors_of(program_text(body, ingress=ingress))
    return run


@pytest.fixture
def check_ingress(compile_p4):
    def run(ingress: str, body: str = ""):
        return compile_p4(program_text(body, ingress=ingress))
    return run


def parser_program(states: str, locals_: str = "", body: str = "") -> str:
    """A whole v1model program whose parser P has the given locals and states."""
    rest = PIPELINE.split("control VC", 1)[1]
    return ("#include <core.p4>\n#include <v1model.p4>\n" + HEADERS + body +
            "parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, "
            "inout standard_metadata_t sm) {\n" + locals_ + "\n" + states + "\n}\n" +
            "control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) "
            "{ apply { } }\ncontrol VC" + rest + "V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n")
