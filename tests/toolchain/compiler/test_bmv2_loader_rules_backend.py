"""Our JSON against the BMv2 loader rules (toolchain/compiler/backend/bmv2_schema/).

Every JSON the compiler emits in the test-suite must pass: the toolchain's programs, the
gateway, the kit, and the programs the fuzz tests generate. Then one regression test per
back-end defect the checker found (on p4c's own sample programs): each pins the JSON shape
the real loader needs and, on the embedded target, that the behaviour is right.
"""
from __future__ import annotations

import importlib
import textwrap

import pytest

from toolchain.compiler import compile_file
from toolchain.compiler.backend.bmv2_schema import check_bmv2_json

from .conftest import KIT_PROGRAMS, PROGRAMS, REPO, compile_cached

ETH = bytes.fromhex("000000000002" "000000000001" "88b5")


def loader_problems(doc: dict) -> list[str]:
    return [str(p) for p in check_bmv2_json(doc)]


def compile_text(tmp_path, source: str) -> dict:
    path = tmp_path / "prog.p4"
    path.write_text(textwrap.dedent(source))
    doc = compile_file(path)
    assert loader_problems(doc) == []
    return doc


def switch(doc: dict):
    from toolchain.switch import SimpleSwitch, load_program
    return SimpleSwitch(load_program(doc), seed=1)


V1_TAIL = """
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


# ---------------------------------------------------------------- the test-suite's JSON

@pytest.mark.parametrize("path", sorted(PROGRAMS.glob("*.p4")), ids=lambda p: p.stem)
def test_loader_rules_hold_for_toolchain_programs(path):
    assert loader_problems(compile_cached(path)) == []


def test_loader_rules_hold_for_gateway():
    assert loader_problems(compile_cached(REPO / "p4src" / "rdtcp.p4")) == []


@pytest.mark.parametrize("name", KIT_PROGRAMS)
def test_loader_rules_hold_for_kit_programs(name, kit_dir):
    assert loader_problems(compile_cached(kit_dir / f"{name}.p4")) == []


def test_loader_rules_hold_for_frontend_programs():
    for path in sorted((PROGRAMS.parent / "compiler" / "frontend" / "programs").glob("*.p4")):
        assert loader_problems(compile_cached(path)) == [], path.name


FUZZ_SEEDS = 6      # per generator; the fuzz modules run their full ranges themselves


@pytest.mark.parametrize("module,test", [
    ("test_expression_fuzz", "test_random_expression_matches_p4_semantics"),
    ("test_control_flow_fuzz", "test_random_control_flow_matches_p4_semantics"),
    ("test_select_fuzz", "test_random_select_takes_the_first_matching_case"),
    ("test_entries_fuzz", "test_random_const_entries_match_p4_semantics"),
])
def test_loader_rules_hold_for_fuzz_generated_programs(module, test, tmp_path, monkeypatch):
    """Run a fuzz test with its compile_file wrapped, so every program it generates is also
    checked against the loader rules (the generators stay in one place)."""
    fuzz = importlib.import_module(f"{__package__}.{module}")
    checked = []

    def compile_and_check(path, *args, **kwargs):
        doc = compile_file(path, *args, **kwargs)
        assert loader_problems(doc) == [], path.read_text()
        checked.append(path)
        return doc

    monkeypatch.setattr(fuzz, "compile_file", compile_and_check)
    for seed in range(FUZZ_SEEDS):
        run_dir = tmp_path / str(seed)
        run_dir.mkdir()
        getattr(fuzz, test)(seed, run_dir)
    assert len(checked) == FUZZ_SEEDS


# ---------------------------------------------------------------- back-end regressions

def test_hash_offset_from_action_params_is_runtime_data(tmp_path):
    """A widened action parameter as hash base/max was emitted as {"type": "local"}, which
    the loader rejects as a primitive parameter (p4c's flowlet_switching-bmv2)."""
    doc = compile_text(tmp_path, """
        #include <core.p4>
        #include <v1model.p4>
        header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
        header h_t { bit<16> x; bit<16> r; }
        struct headers_t { ethernet_t ethernet; h_t h; }
        struct meta_t { }
        parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t std) {
            state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.h); transition accept; }
        }
        control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
            action pick(bit<8> base, bit<8> count) {
                hash(hdr.h.r, HashAlgorithm.identity, (bit<16>)base, { hdr.h.x },
                     (bit<32>)count);
                std.egress_spec = 1;
            }
            table t { key = { hdr.h.x: exact; } actions = { pick; } size = 4; }
            apply { t.apply(); }
        }
    """ + V1_TAIL)
    prim = next(p for a in doc["actions"] for p in a["primitives"]
                if p["op"] == "modify_field_with_hash_based_offset")
    assert prim["parameters"][1] == {"type": "runtime_data", "value": 0}
    assert prim["parameters"][3] == {"type": "runtime_data", "value": 1}
    sw = switch(doc)
    sw.cli("table_add I.t I.pick 0x0123 => 0x10 0x07")
    (port, out), = sw.process(0, ETH + bytes.fromhex("0123" "0000"))
    assert out[-2:] == (0x10 + 0x0123 % 7).to_bytes(2, "big")      # base + x mod count


STACK_PARSER = """
    #include <core.p4>
    #include <v1model.p4>
    header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
    header e_t { bit<8> f; }
    header out_t { bit<8> last; bit<8> first; }
    struct headers_t { ethernet_t ethernet; e_t[2] hs; out_t o; }
    struct meta_t { bit<8> v; bit<8> i; }
    parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t std) {
        state start {
            pkt.extract(hdr.ethernet);
            pkt.extract(hdr.hs.next);
            pkt.extract(hdr.hs.next);
            meta.v = hdr.hs.last.f;
            hdr.hs[0].f = hdr.hs[0].f + 1;
            meta.i = hdr.hs[0].f - 5;
            hdr.hs[meta.i].f = meta.v + 1;
            pkt.extract(hdr.o);
            transition accept;
        }
    }
    control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
        apply { std.egress_spec = 1; hdr.o.last = meta.v; hdr.o.first = hdr.hs[0].f; }
    }
"""


def test_parser_set_from_and_into_stack_elements_loads(tmp_path):
    """BMv2's parser `set` takes a field destination and a field/hexstr/lookahead/expression
    source (p4c's stack_complex-bmv2 had a bare stack_field source); a stack element
    destination needs the `assign` primitive as a parser op."""
    doc = compile_text(tmp_path, STACK_PARSER + V1_TAIL)
    ops = doc["parsers"][0]["parse_states"][0]["parser_ops"]
    sets = [op for op in ops if op["op"] == "set"]
    assert all(op["parameters"][0]["type"] == "field" for op in sets)
    assert all(op["parameters"][1]["type"] in ("field", "hexstr", "lookahead", "expression")
               for op in sets)
    (assign,) = [op for op in ops if op["op"] == "primitive"]      # hs[meta.i].f = ...
    assert assign["parameters"][0]["op"] == "assign"
    assert assign["parameters"][0]["parameters"][0]["type"] == "expression"
    (port, out), = switch(doc).process(0, ETH + bytes([5, 9, 0, 0]))
    assert out == ETH + bytes([6, 10, 9, 6])


def test_field_list_zero_gets_a_nonzero_id(tmp_path):
    """@field_list(0) was emitted with id 0: simple_switch recirculates only when the id
    the primitive stored is non-zero (p4c's issue1001-bmv2, issue562-bmv2)."""
    doc = compile_text(tmp_path, """
        #include <core.p4>
        #include <v1model.p4>
        header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
        header r_t { bit<8> rounds; }
        struct headers_t { ethernet_t ethernet; r_t r; }
        struct meta_t { @field_list(0) bit<8> rounds; }
        parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t std) {
            state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.r); transition accept; }
        }
        control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
            apply { std.egress_spec = 1; hdr.r.rounds = meta.rounds; }
        }
        control E2(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
            apply {
                if (meta.rounds < 2) {
                    meta.rounds = meta.rounds + 1;
                    recirculate_preserving_field_list(0);
                }
            }
        }
        control V(inout headers_t hdr, inout meta_t meta) { apply { } }
        control C(inout headers_t hdr, inout meta_t meta) { apply { } }
        control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
        V1Switch(P(), V(), I(), E2(), C(), D()) main;
    """)
    (fl,) = doc["field_lists"]
    assert fl["name"] == "field_list0" and fl["id"] >= 1
    prim = next(p for a in doc["actions"] for p in a["primitives"] if p["op"] == "recirculate")
    assert int(prim["parameters"][0]["value"], 16) == fl["id"]
    outs = switch(doc).process(0, ETH + bytes([0]))
    assert [out[-1] for _, out in outs][-1] == 2      # the third pass saw rounds == 2


def test_unattached_direct_meter_is_omitted(tmp_path):
    """A direct_meter no table names had binding/result_target null, which the loader
    dereferences; p4c leaves it out (p4c's issue1829-4-bmv2)."""
    doc = compile_text(tmp_path, """
        #include <core.p4>
        #include <v1model.p4>
        header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
        struct headers_t { ethernet_t ethernet; }
        struct meta_t { }
        parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t std) {
            state start { pkt.extract(hdr.ethernet); transition accept; }
        }
        control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
            direct_meter<bit<2>>(MeterType.packets) unused_meter;
            direct_counter(CounterType.packets) unused_counter;
            apply { std.egress_spec = 1; }
        }
    """ + V1_TAIL)
    assert doc["meter_arrays"] == [] and doc["counter_arrays"] == []


def test_int1_field_is_unsigned_in_json_and_reads_as_minus_one(tmp_path):
    """BMv2 asserts a signed field has two bits or more (fields.cpp); int<1> is stored
    unsigned and sign-extended on read (p4c's issue3225 has such a field)."""
    doc = compile_text(tmp_path, """
        #include <core.p4>
        #include <v1model.p4>
        header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
        header h_t { int<1> s; bit<7> pad; int<8> wide; int<1> set_me; bit<7> pad2; }
        struct headers_t { ethernet_t ethernet; h_t h; }
        struct meta_t { }
        parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t std) {
            state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.h); transition accept; }
        }
        control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
            apply {
                std.egress_spec = 1;
                hdr.h.wide = (int<8>)hdr.h.s;
                hdr.h.set_me = -1;
            }
        }
    """ + V1_TAIL)
    fields = next(t for t in doc["header_types"] if t["name"] == "h_t")["fields"]
    assert ["s", 1, False] in fields and ["wide", 8, True] in fields
    (port, out), = switch(doc).process(0, ETH + bytes([0x80, 0x00, 0x00]))
    assert out == ETH + bytes([0x80, 0xFF, 0x80])
    (port, out), = switch(doc).process(0, ETH + bytes([0x00, 0x00, 0x00]))
    assert out == ETH + bytes([0x00, 0x00, 0x80])


def test_header_not_whole_bytes_refused(tmp_path):
    """p4c's BMv2 back end refuses a header whose fields do not total whole bytes
    (header.cpp); simple_switch would misparse it (p4c's issue3225 sample)."""
    from toolchain.compiler import CompileError
    path = tmp_path / "odd.p4"
    path.write_text(textwrap.dedent("""
        #include <core.p4>
        #include <v1model.p4>
        header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
        header odd_t { bool a; bit<1> b; int<1> c; }
        struct headers_t { ethernet_t ethernet; odd_t odd; }
        struct meta_t { bit<3> small; }
        parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t std) {
            state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.odd); transition accept; }
        }
        control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
            apply { std.egress_spec = 1; }
        }
    """) + V1_TAIL)
    with pytest.raises(CompileError) as info:
        compile_file(path)
    assert "header type 'odd_t': its fields total 3 bits" in str(info.value)
