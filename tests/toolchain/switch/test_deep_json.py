"""JSON nested deeper than BMv2 reads it. simple_switch reads its JSON with jsoncpp, which
throws at a value more than 1000 levels deep (its stackLimit; the document is level 1, each
value one level below its container). The loader refuses such a document with one line
naming where it goes past the limit and how deep it nests, however deep it is (Python's own
JSON reader recurses once per level), and loads one exactly at the limit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolchain.switch import LoadError, SimpleSwitch, load_program
from toolchain.switch.bm_sim.json_checks import MAX_NESTING, too_deep, too_deep_text

from .jsonkit import frame, pack, program

ROOT = Path(__file__).resolve().parents[3]
H = [["a", 32, False], ["b", 32, False]]


def nested_program(levels: int) -> dict:
    """A program whose deepest value (a 0 in __meta__.x, in lists inside lists) is ``levels``
    levels deep: the document is level 1, __meta__ 2, x 3."""
    p = program(H)
    value: object = 0
    for _ in range(levels - 3):
        value = [value]
    p["__meta__"]["x"] = value
    return p


def where(levels_past: int) -> str:
    return "__meta__.x" + "[0]" * levels_past


def test_a_document_at_the_limit_loads_and_forwards():
    sw = SimpleSwitch(nested_program(MAX_NESTING))
    assert len(sw.process(0, frame(pack(H, {"a": 1})))) == 1


def test_one_level_past_the_limit_is_refused_with_the_path_and_the_depth():
    with pytest.raises(LoadError) as e:
        load_program(nested_program(MAX_NESTING + 1))
    message = str(e.value)
    assert "\n" not in message
    assert message.endswith("nested deeper than the 1000 levels BMv2's JSON reader takes "
                            "(jsoncpp's stackLimit); the document nests 1001 levels")
    assert message.startswith("__meta__.x[0][0]")          # shortened: 997 indexes


def nested_text(levels: int) -> str:
    """``nested_program(levels)`` as JSON text, written without a recursive encoder."""
    p = nested_program(3)
    p["__meta__"]["x"] = "DEEP"
    return json.dumps(p).replace('"DEEP"', "[" * (levels - 3) + "0" + "]" * (levels - 3))


@pytest.mark.parametrize("levels", [MAX_NESTING + 1, 20_000])
def test_a_file_gives_the_same_message_whether_python_can_parse_it_or_not(tmp_path, levels):
    # 20,000 levels are past what Python's JSON reader recurses into: measured on the text
    path = tmp_path / "deep.json"
    path.write_text(nested_text(levels))
    with pytest.raises(LoadError) as from_file:
        load_program(path)
    with pytest.raises(LoadError) as from_dict:
        load_program(nested_program(levels))
    assert str(from_file.value) == f"{path}: {from_dict.value}"
    assert str(from_dict.value).endswith(f"the document nests {levels} levels")


def test_the_text_measure_finds_what_the_parsed_measure_finds():
    doc = {"a": [1, {'b"': [[[[{"c": [2, [3]]}]]]]}], "d": []}
    text = json.dumps(doc)
    for limit in range(1, 13):
        assert too_deep_text(text, limit) == too_deep(doc, limit), limit
    assert too_deep(doc, 5) == ('a[1].b"[0][0]: nested deeper than the 5 levels BMv2\'s JSON '
                                "reader takes (jsoncpp's stackLimit); the document nests 11 levels")
    assert too_deep(doc, 11) is None


def test_text_too_deep_to_parse_names_keys_and_indexes_on_the_way(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"a": [1, {"b\\u0022": ' + "[" * 20_000 + "]" * 20_000 + "}]}")
    with pytest.raises(LoadError) as e:
        load_program(path)
    message = str(e.value)
    assert message.startswith(f'{path}: a[1].b"[0][0][0]'), message
    assert message.endswith("the document nests 20003 levels")


@pytest.fixture(scope="module")
def chain_json(tmp_path_factory) -> Path:
    """rdtcp-p4c's JSON for an action summing 3,000 terms (x = a + a + ... + a): p4c's shape of
    a left-deep chain, four levels of JSON a term."""
    src_dir = tmp_path_factory.mktemp("chain")
    src = src_dir / "chain.p4"
    src.write_text(CHAIN_PROGRAM.replace("SUM", " + ".join(["hdr.h.b"] * 3000)))
    out = src_dir / "chain.json"
    r = subprocess.run([sys.executable, "-m", "toolchain.compiler.driver", str(src), "-o",
                        str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return out


CHAIN_PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<32> a; bit<32> b; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action add_many() { hdr.h.a = SUM; }
    apply { add_many(); std.egress_spec = 1; }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_the_front_ends_3000_term_chain_is_refused_where_it_passes_the_limit(chain_json):
    with pytest.raises(LoadError) as e:
        load_program(chain_json)
    message = str(e.value)
    assert message.startswith(f"{chain_json}: actions[0].primitives[0].parameters[1].value")
    assert "nested deeper than the 1000 levels" in message and "\n" not in message
    depth = int(message.rsplit(" nests ", 1)[1].split()[0])
    assert depth > 4 * 3000


@pytest.mark.parametrize("command", [
    ["toolchain.switch.process.main", "--thrift-port", "0"],
    ["toolchain.switch.replay"],
])
def test_the_commands_refuse_it_in_one_line(chain_json, tmp_path, command):
    argv = [sys.executable, "-m", *command, str(chain_json)]
    if command[0].endswith("replay"):
        pcap = tmp_path / "in.pcap"
        pcap.write_bytes(bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000"))
        argv += [str(pcap), "-o", str(tmp_path / "out")]
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    [line] = r.stderr.splitlines()
    assert line.startswith("error: ") and "nested deeper than the 1000 levels" in line


def test_text_too_deep_is_refused_even_under_a_recursion_limit_raised_elsewhere():
    # a deep compilation elsewhere in the process may have raised the interpreter's limit, so
    # that Python's reader would go 12,000 levels deep: the document is refused all the same
    import sys

    from toolchain.switch.bm_sim.json_loader import parse_json_text
    from toolchain.switch.errors import LoadError
    text = '{"a": ' + "[" * 12_000 + "]" * 12_000 + "}"
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(60_000)
    try:
        with pytest.raises(LoadError, match="nested deeper than the 1000 levels"):
            parse_json_text(text, "deep.json")
    finally:
        sys.setrecursionlimit(old)
