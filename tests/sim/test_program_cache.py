"""sim.program caches the gateway's JSON under a digest of what the JSON depends on."""

from sim.program import sources_digest


def _tree(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_digest_changes_with_a_p4_source_and_with_the_compiler(tmp_path):
    p4src = _tree(tmp_path / "p4src", {"rdtcp.p4": "control C() { apply { } }",
                                       "include/h.p4": "header h_t { bit<8> a; }"})
    compiler = _tree(tmp_path / "compiler", {"backend/x.py": "X = 1\n", "p4include/core.p4": ""})
    before = sources_digest(p4src, compiler)
    assert sources_digest(p4src, compiler) == before                 # deterministic
    (compiler / "backend" / "x.py").write_text("X = 2\n")
    after_compiler = sources_digest(p4src, compiler)
    assert after_compiler != before
    (p4src / "include" / "h.p4").write_text("header h_t { bit<16> a; }")
    after_source = sources_digest(p4src, compiler)
    assert after_source != after_compiler
    (compiler / "README.md").write_text("not code")                 # not an input
    assert sources_digest(p4src, compiler) == after_source


def _stale_copy(tmp_path):
    """A root holding a copy of p4src and no build/: gateway_json must compile it."""
    import shutil

    from sim.program import REPO_ROOT
    shutil.copytree(REPO_ROOT / "p4src", tmp_path / "p4src")
    return tmp_path


def test_an_interpreter_without_the_front_end_compiles_with_python3(tmp_path, monkeypatch):
    """PyPy 3.9 runs the simulator but not the front end (3.10+): a stale cache is rebuilt by
    the front end's CLI under python3, giving the same JSON as compiling in process."""
    import sys

    import sim.program as program
    root = _stale_copy(tmp_path)
    monkeypatch.setenv("RDTCP_COMPILER_PYTHON", sys.executable)
    monkeypatch.setattr(program, "FRONT_END_IN_PROCESS", False)
    elsewhere = program.gateway_json(root)
    assert (root / "build" / "rdtcp.json").exists()
    monkeypatch.setattr(program, "FRONT_END_IN_PROCESS", True)
    (root / "build" / "rdtcp.json.sha256").unlink()                 # stale again
    assert program.gateway_json(root) == elsewhere


def test_no_python_for_the_front_end_is_a_clear_error(tmp_path, monkeypatch):
    import pytest

    import sim.program as program
    root = _stale_copy(tmp_path)
    monkeypatch.setenv("RDTCP_COMPILER_PYTHON", "no-such-python3")
    monkeypatch.setattr(program, "FRONT_END_IN_PROCESS", False)
    with pytest.raises(RuntimeError, match="needs Python 3.10.*no-such-python3 is not on PATH"):
        program.gateway_json(root)


DEEP_GATEWAY = """#include <core.p4>
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
    apply { add_many(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_a_gateway_nested_deeper_than_bmv2_reads_is_cached_and_refused_in_one_line(tmp_path):
    """A 3,000-term sum nests over 12,000 levels of JSON: it is written to the cache (without
    a recursive encoder) and refused, where it passes BMv2's 1000 levels, by the switch and
    by the cache's reader, never with a RecursionError."""
    import pytest

    import sim.program as program
    from toolchain.switch import LoadError, SimpleSwitch

    _tree(tmp_path, {"p4src/rdtcp.p4": DEEP_GATEWAY.replace("SUM", " + ".join(["hdr.h.b"] * 3000))})
    doc = program.gateway_json(tmp_path)
    refused = (r"actions\[0\]\.primitives\[0\]\.parameters\[1\]\.value.*"
               r"nested deeper than the 1000 levels")
    with pytest.raises(LoadError, match=refused):
        SimpleSwitch(doc)
    with pytest.raises(LoadError, match=refused):
        program.gateway_json(tmp_path)                                # now from the cache
