"""The TNA port (p4src/tna/rdtcp_tna.p4) checked as far as this machine allows: there is no
bf-p4c here, so nothing compiles it for Tofino. What can be checked for real:

* it shares the architecture-neutral include files with the v1model gateway (the same
  headers.p4, parser_states.p4 and routing.p4 text, not copies), and those still compile for
  v1model with the project's front end (the v1model suites run on that JSON);
* it parses and type-checks as P4_16 with the project's front end against a declaration file of
  the T2NA API it uses (T2NA_API below: written for this test from tna.p4's signatures, only the
  parts the port uses), after two rewrites for constructs the front end does not support
  (instance initializers `= { void apply(...) {...} }` become actions with the same parameters
  and body, so their bodies are type-checked too; the parser value set becomes a constant);
* the p4c rules of test_p4src_p4c_rules.py that are not v1model-specific hold for it (bf-p4c
  runs p4c's front end: unused declarations, shadowing, constants that fit, parser rules);
* its ingress is the v1model ingress's pieces, so a reader maps one onto the other: the same
  controls in the same order, each applied once, with the control-plane names of v1model, and
  the Tofino rules the split must keep (the legacy_router register read once and handed to the
  pieces that act on it, every EPDN-table and edge_port access and the source check under
  `!legacy`, each counter counted at one place);
* the edge's source check is v1model's (ingress filtering, p4src/include/trust.p4): the tables
  are the ones the controller fills (names, sizes, keys and action data, from the typed
  program), and the path a spoofed packet takes through the pieces leads to DROP_SPOOFED,
  counted in drops, before any piece strips, impairs or records it. Nothing here runs a packet
  through the port: that needs bf-p4c and a Tofino model (p4src/tna/README.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolchain.compiler.diagnostics import CompileError, Diagnostics
from toolchain.compiler.frontend import (P4INCLUDE, PASSES, FrontEndContext, check_source,
                                        run_passes)
from toolchain.compiler.frontend import ast as A
from toolchain.compiler.midend.controls import qualified_name
from toolchain.compiler.frontend.parser import Parse
from toolchain.compiler.frontend.preprocess import preprocess

import test_p4src_p4c_rules as rules
from controller import names
from controller.program import ProgramInfo, TableInfo

ROOT = Path(__file__).resolve().parents[2]
TNA = ROOT / "p4src" / "tna" / "rdtcp_tna.p4"
GATEWAY = ROOT / "p4src" / "rdtcp.p4"
SHARED = ("headers.p4", "parser_states.p4", "routing.p4")

# The T2NA declarations the port uses, with tna.p4's signatures (RegisterAction's constructor
# takes a placeholder: the front end refuses extern instances as constructor arguments).
T2NA_API = """
typedef bit<9> PortId_t;
const bit<32> PORT_METADATA_SIZE = 32w64;
const bit<16> PARSER_ERROR_OK = 16w0x0;
enum CounterType_t { PACKETS, BYTES, PACKETS_AND_BYTES }
enum HashAlgorithm_t { IDENTITY, RANDOM, CRC8, CRC16, CRC32, CRC64, CUSTOM }
header ingress_intrinsic_metadata_t {
    bit<1> resubmit_flag; bit<1> _pad1; bit<2> packet_version; bit<3> _pad2;
    bit<9> ingress_port; bit<48> ingress_mac_tstamp;
}
struct ingress_intrinsic_metadata_for_tm_t { bit<9> ucast_egress_port; bit<1> deflect_on_drop; }
struct ingress_intrinsic_metadata_from_parser_t { bit<48> global_tstamp; bit<16> parser_err; }
struct ingress_intrinsic_metadata_for_deparser_t { bit<3> drop_ctl; }
header egress_intrinsic_metadata_t {
    bit<7> _pad0; bit<9> egress_port; bit<7> _pad1; bit<1> deflection_flag;
}
struct egress_intrinsic_metadata_from_parser_t { bit<16> parser_err; }
struct egress_intrinsic_metadata_for_deparser_t { bit<3> drop_ctl; }
struct egress_intrinsic_metadata_for_output_port_t { bit<1> force_tx_error; }
extern Checksum { Checksum(); void add<T>(in T data); void subtract<T>(in T data); bool verify();
                  bit<16> get(); bit<16> update<T>(in T data); }
extern Hash<W> { Hash(HashAlgorithm_t algo); W get<D>(in D data); }
extern Random<W> { Random(); W get(); }
extern Counter<W, I> { Counter(bit<32> size, CounterType_t type); void count(in I index); }
extern Register<T, I> { Register(bit<32> size, T initial_value); T read(in I index); }
extern RegisterAction<T, I, U> { RegisterAction(bit<32> placeholder); U execute(in I index); }
parser IngressParserT<H, M>(packet_in pkt, out H hdr, out M ig_md,
                            out ingress_intrinsic_metadata_t ig_intr_md);
parser EgressParserT<H, M>(packet_in pkt, out H hdr, out M eg_md,
                           out egress_intrinsic_metadata_t eg_intr_md);
control IngressT<H, M>(inout H hdr, inout M ig_md, in ingress_intrinsic_metadata_t ig_intr_md,
                       in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                       inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                       inout ingress_intrinsic_metadata_for_tm_t ig_tm_md);
control EgressT<H, M>(inout H hdr, inout M eg_md, in egress_intrinsic_metadata_t eg_intr_md,
                      in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                      inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                      inout egress_intrinsic_metadata_for_output_port_t eg_oport_md);
control IngressDeparserT<H, M>(packet_out pkt, inout H hdr, in M metadata,
                               in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md);
control EgressDeparserT<H, M>(packet_out pkt, inout H hdr, in M metadata,
                              in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md);
package Pipeline<IH, IM, EH, EM>(IngressParserT<IH, IM> ingress_parser, IngressT<IH, IM> ingress,
                                 IngressDeparserT<IH, IM> ingress_deparser,
                                 EgressParserT<EH, EM> egress_parser, EgressT<EH, EM> egress,
                                 EgressDeparserT<EH, EM> egress_deparser);
"""


@pytest.fixture(scope="module")
def api_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("t2na")
    (d / "t2na.p4").write_text(T2NA_API)
    return d


def preprocessed(path: Path, include_dirs) -> str:
    return preprocess(str(path), include_dirs=[str(d) for d in include_dirs] + [str(P4INCLUDE)])


def files_included(text: str) -> set[Path]:
    return {Path(m).resolve() for m in re.findall(r'^#\s*\d+\s+"([^"<][^"]*)"', text, flags=re.M)}


def tna_user_text(text: str, api_dir: Path) -> str:
    """The port's own lines (no system or API declarations), comments stripped."""
    keep, lines = False, []
    for line in text.splitlines():
        marker = re.match(r'#\s*\d+\s+"([^"]+)"', line)
        if marker:
            name = marker.group(1)
            where = Path(name).resolve()
            keep = (not name.startswith("<") and P4INCLUDE.resolve() not in where.parents
                    and api_dir.resolve() not in where.parents)
            continue
        if keep and not line.startswith("#"):
            lines.append(line)
    return rules.strip_comments("\n".join(lines))


def rewrite_for_front_end(text: str) -> str:
    """Instance initializers -> actions with the same parameters and body; the parser value set
    -> one constant case; RegisterAction(reg) -> RegisterAction(0); Switch(pipe) -> main."""
    out, pos = [], 0
    pattern = re.compile(r"\)\s*(\w+)\s*=\s*\{")
    while (m := pattern.search(text, pos)) is not None:
        inner, after = rules.block_after(text, m.end() - 1)
        apply = re.match(r"\s*void\s+apply\s*(\(.*?\))\s*\{", inner, flags=re.S)
        assert apply, f"initializer of {m.group(1)} without apply()"
        body = inner[apply.end() - 1:]
        semicolon = text.index(";", after)
        out.append(text[pos:m.start()] + ") " + m.group(1) + ";")
        out.append(f" action {m.group(1)}__apply{apply.group(1)} {body} ")
        pos = semicolon + 1
    text = "".join(out) + text[pos:]
    text = re.sub(r"value_set<[^>]*>\(\d+\)\s*(\w+)\s*;", "", text)
    text = re.sub(r"\binternal_ports\s*:", "9w0x1FF:", text)
    text = re.sub(r"(RegisterAction<[^;=]*?>\s*)\(\s*\w+\s*\)", r"\1(0)", text)
    return re.sub(r"\)\s*pipe\s*;\s*Switch\s*\(\s*pipe\s*\)\s*main\s*;", ") main;", text)


def front_end_diagnostics(text: str) -> list[str]:
    """Every front-end pass after the preprocessor, the inlining of the ingress pieces (the
    sub-controls) included, on the rewritten text."""
    ctx = FrontEndContext(Diagnostics(), str(TNA), text=text)
    try:
        run_passes(ctx, PASSES[PASSES.index(Parse):])
    except CompileError as e:
        return [str(d) for d in e.diagnostics]
    return [str(d) for d in ctx.diags.items if d.severity == "error"]


# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SHARED)
def test_tna_shares_include_with_v1model(name, api_dir):
    shared = (ROOT / "p4src" / "include" / name).resolve()
    assert shared in files_included(preprocessed(TNA, [api_dir]))
    assert shared in files_included(preprocessed(GATEWAY, [ROOT / "p4src" / "include"]))


def test_the_drop_causes_are_declared_once_for_both_programs():
    """DROP_SPOOFED with the other causes in headers.p4, which both programs include (above),
    and nowhere else: a second declaration could give the ports a different value."""
    declared = {str(p.relative_to(ROOT)): len(re.findall(r"\bconst\s+bit<\d+>\s+DROP_SPOOFED\b",
                                                         p.read_text()))
                for p in (ROOT / "p4src").rglob("*.p4")}
    assert {p: n for p, n in declared.items() if n} == {"p4src/include/headers.p4": 1}


def test_tna_type_checks_against_t2na_api(api_dir):
    text = rewrite_for_front_end(preprocessed(TNA, [api_dir]))
    assert front_end_diagnostics(text) == []


def test_tna_type_check_reports_width_mismatch(api_dir):
    # negative control: the check sees inside the ingress apply block
    text = rewrite_for_front_end(preprocessed(TNA, [api_dir]))
    broken = text.replace("meta.port_mtu = (mtu16 == 0) ? DEFAULT_MTU : (bit<32>)mtu16;",
                          "meta.port_mtu = mtu16;")
    assert broken != text
    assert any("does not match" in d for d in front_end_diagnostics(broken))


def test_tna_type_check_reports_error_inside_register_action(api_dir):
    # negative control: RegisterAction bodies are checked too (an undeclared field)
    text = rewrite_for_front_end(preprocessed(TNA, [api_dir]))
    broken = text.replace("fp = meta.flow_fp;", "fp = meta.no_such_field;", 1)
    assert broken != text
    assert front_end_diagnostics(broken) != []


PORTABLE_RULES = [rules.unused_declarations, rules.unused_action_parameters,
                  rules.tables_applied_once, rules.parser_rules, rules.constants_fit,
                  rules.shadowing]


@pytest.mark.parametrize("rule", PORTABLE_RULES, ids=[r.__name__ for r in PORTABLE_RULES])
def test_tna_p4c_front_end_rule_holds(rule, api_dir):
    assert rule(tna_user_text(preprocessed(TNA, [api_dir]), api_dir)) == []


def test_tna_epdn_table_is_12_bytes_per_entry(api_dir):
    # the same layout as v1model: epdn_fp, epdn_lo, epdn_hi, 32 bits each (p4src/README.md)
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    widths = {name: int(w) for w, name in re.findall(
        r"Register<\s*(?:bit<(\d+)>|seq_t)[^>]*>\s*\([^)]*\)\s*(epdn_\w+)\s*;",
        text.replace("seq_t", "bit<32>"))}
    assert widths == {"epdn_fp": 32, "epdn_lo": 32, "epdn_hi": 32}


def test_tna_metadata_initializer_reports_missing_field(api_dir):
    # the parser writes every metadata field (p4c: "out parameter may be uninitialized");
    # the struct initializer makes a forgotten field a type error
    text = rewrite_for_front_end(preprocessed(TNA, [api_dir]))
    broken = text.replace(", pattern_len = 0", "")
    assert broken != text
    assert any("do not match" in d for d in front_end_diagnostics(broken))


# ---------------------------------------------------------------------- legacy router ([RDTCP] §7)
# The EPDN table and edge_port (RegisterActions), and the edge's source check (a table).
LEGACY_GATED = re.compile(r"\b(epdn_\w+|edge_port_read)\.execute\s*\(|\b(edge_source)\.apply\s*\(")


def enclosing_conditions(text: str, pos: int) -> list[str]:
    """The heads of the blocks around ``pos`` (``if (c)``, ``else if (c)``, ...), outermost
    first, and the statement ``pos`` stands in, up to ``pos``."""
    heads, start = [], 0
    for i, ch in enumerate(text[:pos]):
        if ch == "{":
            heads.append(text[start:i])
            start = i + 1
        elif ch == "}":
            heads.pop()
            start = i + 1
        elif ch == ";":
            start = i + 1
    return [h.strip() for h in heads] + [text[start:pos].strip()]


def ungated_epdn_accesses(text: str) -> list[str]:
    """Every access of the EPDN table or of edge_port, and every source check, that no
    enclosing condition (nor its own statement's) restricts to a switch that is not legacy."""
    return [m.group(1) or m.group(2) for m in LEGACY_GATED.finditer(text)
            if not any("!legacy" in h for h in enclosing_conditions(text, m.start()))]


def test_tna_legacy_router_neither_records_stamps_nor_strips(api_dir):
    # as v1model's Epdn and TrustBoundary (../README.md "Legacy router"): every access of the
    # EPDN table and of edge_port, and the source check, is under a `!legacy` condition; the
    # register is read once
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    assert len(LEGACY_GATED.findall(text)) >= 9   # claim, 2 records, 3 takes, peek, edge, source
    assert ungated_epdn_accesses(text) == []
    assert text.count("legacy_router_read.execute(") == 1
    assert re.search(r"Register<\s*bit<8>\s*,\s*bit<1>\s*>\s*\(\s*1\s*,\s*0\s*\)\s*"
                     r"legacy_router\s*;", text)


def test_tna_legacy_check_finds_an_ungated_stamp(api_dir):
    # negative control: without Epdn's guard, every access of the EPDN table is reported
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    broken = text.replace("if (meta.is_data == 1 && !legacy) {\n            epdn_flow_hash();",
                          "if (meta.is_data == 1) {\n            epdn_flow_hash();")
    assert broken != text
    assert set(ungated_epdn_accesses(broken)) == {
        "epdn_fp_claim", "epdn_lo_record", "epdn_hi_record",
        "epdn_fp_take", "epdn_lo_take", "epdn_hi_take", "epdn_fp_peek"}


def test_tna_legacy_check_finds_an_ungated_source_check(api_dir):
    # negative control: without TrustBoundary's `!legacy`, edge_port and edge_source are reported
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    broken = text.replace("hdr.ipv4.isValid() && !legacy) {\n            if (edge_port_read",
                          "hdr.ipv4.isValid()) {\n            if (edge_port_read")
    assert broken != text
    assert ungated_epdn_accesses(broken) == ["edge_port_read", "edge_source"]


def legacy_flow_problems(text: str) -> list[str]:
    """The `legacy` a piece tests is the legacy_router register's value: MyIngress reads it once
    into its local `legacy` and passes that to each piece holding a gated access, which takes it
    as `in bool legacy` (an `in` parameter cannot be assigned); nothing else assigns `legacy`."""
    problems = []
    ingress = rules.control_body(text, "MyIngress")
    instances = ingress_instances(ingress)
    calls = dict(re.findall(r"\b(\w+)\s*\.\s*apply\s*\(([^)]*)\)", apply_block(ingress)))
    assignments = [a.strip() for a in re.findall(r"[^;{}]*\blegacy\s*=(?!=)[^;]*", text)]
    for a in assignments:
        if a != "bool legacy = legacy_router_read.execute(0) == 1":
            problems.append(f"legacy assigned: {a}")
    if len(assignments) != 1:
        problems.append(f"legacy assigned {len(assignments)} times")
    for m in re.finditer(r"\bcontrol\s+(\w+)\s*\(([^)]*)\)", text):
        body, _ = rules.block_after(text, m.end())
        if m.group(1) == "MyIngress" or not LEGACY_GATED.search(body):
            continue
        if not re.search(r"\bin\s+bool\s+legacy\b", m.group(2)):
            problems.append(f"{m.group(1)}: no `in bool legacy` parameter")
        applied = [calls.get(i, "") for i, t in instances.items() if t == m.group(1)]
        if not applied or "legacy" not in re.findall(r"\w+", applied[0]):
            problems.append(f"{m.group(1)}: not applied with MyIngress's legacy")
    return problems


def test_tna_legacy_gate_is_the_register_read_once(api_dir):
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    assert legacy_flow_problems(text) == []


def test_tna_legacy_flow_check_finds_a_local_legacy(api_dir):
    # negative control: a piece that tests a `legacy` of its own, not the register's
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    broken = text.replace("epdn.apply(hdr, meta, legacy);", "epdn.apply(hdr, meta);")
    broken = broken.replace("inout metadata_t meta,\n             in bool legacy) {",
                            "inout metadata_t meta) {\n    bool legacy = false;", 1)
    assert broken.count("bool legacy = false;") == 1
    assert legacy_flow_problems(broken) == [
        "legacy assigned: bool legacy = false", "legacy assigned 2 times",
        "Epdn: no `in bool legacy` parameter", "Epdn: not applied with MyIngress's legacy"]


# ---------------------------------------------------------------------- the ingress pieces
# The v1model pieces the TNA ingress has no control for, and where their work is done instead.
V1MODEL_ONLY_PIECES = {"TcpChecksum": "IngressDeparser (tcp_csum.update over the residual)"}


def apply_block(control_body: str) -> str:
    """The apply { ... } of a control's body (RegisterAction bodies are `apply(`, not this)."""
    m = re.search(r"\bapply\s*\{", control_body)
    assert m, "control without apply block"
    return rules.block_after(control_body, m.start())[0]


def ingress_instances(ingress_body: str) -> dict[str, str]:
    """instance name -> control type, for the control instances an ingress declares."""
    return {inst: typ for typ, inst in
            re.findall(r"(?<![\w.])([A-Z]\w*)\s*\(\s*\)\s*(\w+)\s*;", ingress_body)}


def applied_pieces(text: str) -> list[str]:
    """The control types MyIngress applies, in the order of its apply block."""
    body = rules.control_body(text, "MyIngress")
    instances = ingress_instances(body)
    return [instances.get(i, f"?{i}")
            for i in re.findall(r"\b(\w+)\s*\.\s*apply\s*\(", apply_block(body))]


def ingress_piece_problems(tna: str, v1model: str) -> list[str]:
    """The TNA ingress as v1model's: the same pieces (bar V1MODEL_ONLY_PIECES) in the same order,
    each a control declared once and instantiated and applied once; MyIngress's apply block holds
    nothing but the one legacy_router read and the pieces' apply calls."""
    problems = []
    expected = [p for p in applied_pieces(v1model) if p not in V1MODEL_ONLY_PIECES]
    got = applied_pieces(tna)
    if got != expected:
        problems.append(f"pieces applied {got}, v1model's {expected}")
    instances = ingress_instances(rules.control_body(tna, "MyIngress"))
    for piece in expected:
        declared = len(re.findall(r"\bcontrol\s+" + piece + r"\s*\(", tna))
        if declared != 1:
            problems.append(f"control {piece} declared {declared} times")
        if list(instances.values()).count(piece) != 1:
            problems.append(f"control {piece} instantiated "
                            f"{list(instances.values()).count(piece)} times")
    for stmt in filter(None, (s.strip() for s in
                              apply_block(rules.control_body(tna, "MyIngress")).split(";"))):
        if not (re.fullmatch(r"\w+\s*\.\s*apply\s*\([^)]*\)", stmt)
                or stmt == "bool legacy = legacy_router_read.execute(0) == 1"):
            problems.append(f"MyIngress.apply does more than apply the pieces: {stmt[:50]}")
    return problems


@pytest.fixture(scope="module")
def v1model_text() -> str:
    return rules.user_text()


def test_tna_ingress_is_v1models_pieces_in_order(api_dir, v1model_text):
    tna = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    assert applied_pieces(tna) == ["Classify", "Route", "TrustBoundary", "Impairment", "Buffer",
                                   "Verdict", "Epdn"]
    assert ingress_piece_problems(tna, v1model_text) == []


def test_tna_ingress_piece_check_finds_order_twice_and_logic(api_dir, v1model_text):
    # negative controls: two pieces swapped, a piece applied twice, logic left in MyIngress
    tna = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    swap = tna.replace("impairment.apply(hdr, meta);\n        buffer.apply(hdr, meta);",
                       "buffer.apply(hdr, meta);\n        impairment.apply(hdr, meta);")
    twice = tna.replace("buffer.apply(hdr, meta);", "buffer.apply(hdr, meta);" * 2)
    logic = tna.replace("buffer.apply(hdr, meta);", "buffer.apply(hdr, meta); meta.impair = 0;")
    assert len({tna, swap, twice, logic}) == 4
    assert any("pieces applied" in p for p in ingress_piece_problems(swap, v1model_text))
    assert any("pieces applied" in p for p in ingress_piece_problems(twice, v1model_text))
    assert ingress_piece_problems(logic, v1model_text) == [
        "MyIngress.apply does more than apply the pieces: meta.impair = 0"]


# ---------------------------------------------------------------------- control-plane names
# The registers and counters both programs have, by their v1model names (controller/names.py),
# and those of the TNA port alone (README: TM queue instead of buffer_limit/port_qlen, no RED;
# a loop port; three EPDN-event counters where v1model has one).
TNA_ONLY_NAMES = {"MyIngress.loop_port", "MyIngress.epdn_strips", "MyIngress.epdn_collisions"}
V1MODEL_ONLY_NAMES = {names.REG_BUFFER_LIMIT, names.REG_PORT_QLEN, names.REG_RED_MIN_TH,
                      names.REG_RED_MAX_TH, names.REG_RED_W_Q, names.REG_RED_SLOPE,
                      names.REG_RED_AVG, names.REG_RED_COUNT}


def control_plane_names(text: str) -> set[str]:
    """The name the control plane sees for each Register and Counter of the ingress: an
    absolute @name(".X") gives X; otherwise p4c prefixes the path of control instances, which
    the check writes as MyIngress.<piece>.<name> for an object of a piece."""
    found = set()
    instances = ingress_instances(rules.control_body(text, "MyIngress"))
    by_type = {t: i for i, t in instances.items()}
    for m in re.finditer(r"\bcontrol\s+(\w+)\s*\(", text):
        control = m.group(1)
        if control != "MyIngress" and control not in by_type:
            continue
        body, _ = rules.block_after(text, m.end())
        prefix = "MyIngress." + ("" if control == "MyIngress" else by_type[control] + ".")
        for d in re.finditer(r'(?:@name\(\s*"\.([\w.]+)"\s*\)\s*)?'
                             r"\b(?:Register|Counter)\s*<[^;{}]*?\)\s*(\w+)\s*;", body):
            found.add(d.group(1) or prefix + d.group(2))
    return found


def test_tna_registers_and_counters_keep_v1model_names(api_dir):
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    v1model = {getattr(names, n) for n in names.__all__ if n.startswith(("REG_", "CTR_"))}
    assert control_plane_names(text) == (v1model - V1MODEL_ONLY_NAMES) | TNA_ONLY_NAMES


def test_tna_names_check_finds_a_relative_name(api_dir):
    # negative control: without its @name, Epdn's epdn_fp is MyIngress.epdn.epdn_fp
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    broken = text.replace('@name(".MyIngress.epdn_fp")', "")
    assert broken != text
    assert control_plane_names(text) - control_plane_names(broken) == {"MyIngress.epdn_fp"}
    assert "MyIngress.epdn.epdn_fp" in control_plane_names(broken)


def counters_counted_more_than_once(text: str) -> list[str]:
    """Tofino updates a counter at most once per packet: each Counter has one count() call."""
    return [f"{name} counted at {n} places" for name in
            re.findall(r"\bCounter\s*<[^;{}]*?\)\s*(\w+)\s*;", text)
            if (n := len(re.findall(r"\b" + name + r"\s*\.\s*count\s*\(", text))) != 1]


def test_tna_each_counter_counted_at_one_place(api_dir):
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    assert len(re.findall(r"\bCounter\s*<", text)) == 6
    assert counters_counted_more_than_once(text) == []
    # negative control: a second count of drops
    broken = text.replace("drop_here();", "drop_here(); drops.count(DROP_NONE);")
    assert counters_counted_more_than_once(broken) == ["drops counted at 2 places"]


# ---------------------------------------------------------------------- the edge's source check
# There is no Tofino model here to send a packet through: what is checked is the path a spoofed
# packet takes through the pieces (the conditions around each step, as written), and that the
# table is the one the controller fills (its declaration as the front end typed it).
EDGE_SOURCE_GATE = ("meta.first_pass", "meta.drop_cause == DROP_NONE", "hdr.ipv4.isValid()",
                    "!legacy", "edge_port_read.execute(ig_intr_md.ingress_port) == 1")
# A later piece may set a drop cause only for a packet not dropped yet, or for a drop report
# (a later pass: TrustBoundary acts on the first pass only).
CAUSE_KEPT = ("meta.drop_cause == DROP_NONE", "hdr.bridge.kind == BRIDGE_DROP_REPORT")


def const_value(text: str, name: str) -> int:
    m = re.search(r"\bconst\s+bit<\d+>\s+" + name + r"\s*=\s*(\d+)\s*;", text)
    assert m, f"no const {name}"
    return int(m.group(1))


def heads_at(block: str, call: str, pattern: str = "") -> list[list[str]]:
    """enclosing_conditions() of each place `call` (or the regular expression `pattern`)
    stands in `block`."""
    return [enclosing_conditions(block, m.start())
            for m in re.finditer(pattern or r"(?<![\w.])" + re.escape(call), block)]


DROP_CAUSE_WRITE = r"(?<![\w.])meta\.drop_cause\s*=(?!=)"


def drop_cause_writes(body: str) -> list[tuple[str, list[str]]]:
    """(where, enclosing conditions) of each assignment to meta.drop_cause in a control's
    apply block, an action's assignment taken at each place the apply block calls it."""
    apply = apply_block(body)
    found = [("apply", h) for h in heads_at(apply, "", DROP_CAUSE_WRITE)]
    for m in re.finditer(r"\baction\s+(\w+)\s*\(", body):
        action, _ = rules.block_after(body, m.end())
        if re.search(DROP_CAUSE_WRITE, action):
            found += [(m.group(1), h) for h in heads_at(apply, m.group(1) + "(")]
    return found


def spoofed_source_problems(text: str) -> list[str]:
    """The spoofed-source drop as v1model's (../include/trust.p4): on the first pass of an
    IPv4 packet not dropped yet, at an edge port of a switch that is not legacy, edge_source is
    applied; a miss runs source_spoofed, which sets DROP_SPOOFED, the cause v1model has and
    controller/names.py reports as drops.spoofed; the EPDN strip and the fragment drop run
    for source_ok only; no later piece overwrites the cause (a later random or pattern drop
    would be recorded in the EPDN table: the forgery the check exists to stop); Verdict drops
    and counts every cause."""
    problems = []
    spoofed = const_value(text, "DROP_SPOOFED")        # headers.p4's, which v1model's includes
    if spoofed != {v: k for k, v in names.DROP_CAUSES.items()}["spoofed"]:
        problems.append(f"DROP_SPOOFED is {spoofed}, not the controller's drops.spoofed")
    trust = rules.control_body(text, "TrustBoundary")
    table, _ = rules.block_after(trust, re.search(r"\btable\s+edge_source\b", trust).end())
    if not re.search(r"\bdefault_action\s*=\s*source_spoofed\s*\(\s*\)\s*;", table):
        problems.append("a miss in edge_source does not run source_spoofed")
    action, _ = rules.block_after(trust, re.search(r"\baction\s+source_spoofed\b", trust).end())
    if [s.strip() for s in action.split(";") if s.strip()] != ["meta.drop_cause = DROP_SPOOFED"]:
        problems.append(f"source_spoofed does not set DROP_SPOOFED: {action.strip()}")
    apply = apply_block(trust)
    gates = heads_at(apply, "edge_source.apply(")
    if len(gates) != 1:
        problems.append(f"edge_source applied at {len(gates)} places")
    for needed in EDGE_SOURCE_GATE:
        if gates and not any(needed in h for h in gates[0]):
            problems.append(f"edge_source applied without {needed}")
    for call in ("epdn_strip_option(", "drop_edge_fragment("):
        for heads in heads_at(apply, call):
            if "switch (edge_source.apply().action_run)" not in heads \
                    or heads[heads.index("switch (edge_source.apply().action_run)") + 1] \
                    != "source_ok:":
                problems.append(f"{call[:-1]} not for source_ok only")
    pieces = applied_pieces(text)
    for piece in pieces[pieces.index("TrustBoundary") + 1:]:
        for where, heads in drop_cause_writes(rules.control_body(text, piece)):
            if not any(kept in h for h in heads for kept in CAUSE_KEPT):
                problems.append(f"{piece} ({where}) overwrites a drop cause")
    verdict = apply_block(rules.control_body(text, "Verdict"))
    for call in ("drop_here(", "drops.count(meta.drop_cause)"):
        if not any("if (meta.drop_cause != DROP_NONE)" in h for h in heads_at(verdict, call)):
            problems.append(f"Verdict: {call} not for every drop cause")
    return problems


def table_api(program: A.Program) -> dict[str, TableInfo]:
    """The tables of the ingress as the front end typed them (the pieces inlined), each by its
    control-plane name as controller/program.py describes a table: size, (match kind, width)
    per key field, control-plane action name -> widths of its action data."""
    ingress = program.find(A.ControlDecl, "MyIngress")[0]
    tables = {}
    for table in (d for d in ingress.locals if isinstance(d, A.TableDecl)):
        actions = {}
        for ref in table.prop("actions").actions:
            action = ref.action
            name = qualified_name(action, "MyIngress") if action.control else action.name
            actions[name] = tuple(p.p4type.width for p in action.params if not p.direction)
        size = table.prop("size")
        tables[qualified_name(table, "MyIngress")] = TableInfo(
            size.value.folded if size else 1024,
            tuple((k.match_kind, k.expr.type.width) for k in table.key), actions)
    return tables


def typed_program(api_dir: Path, edit=lambda text: text) -> A.Program:
    program, _ = check_source(edit(rewrite_for_front_end(preprocessed(TNA, [api_dir]))),
                              str(TNA), require_main=True)
    return program


def test_tna_tables_are_the_controllers(api_dir):
    # the controller's commands (routes, the bridges, the edge ports' sources) fill the port's
    # tables unchanged: the same names, sizes, keys and action data (MAX_PORTS 512 on Tofino)
    assert table_api(typed_program(api_dir)) == ProgramInfo.gateway(max_ports=512).tables


def test_tna_table_check_sees_a_key_the_controller_does_not_fill(api_dir):
    # negative control: a ternary port key would take a mask the controller never writes
    broken = table_api(typed_program(api_dir, lambda text: text.replace(
        "ig_intr_md.ingress_port: exact;\n            hdr.ipv4.src_addr: lpm;",
        "ig_intr_md.ingress_port: ternary;\n            hdr.ipv4.src_addr: lpm;")))
    assert broken[names.EDGE_SOURCE].keys == (("ternary", 9), ("lpm", 32))


def test_tna_spoofed_source_is_dropped_and_counted_as_v1model(api_dir):
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    assert spoofed_source_problems(text) == []


def test_tna_spoofed_source_check_finds_each_defect(api_dir):
    # negative controls: a miss that passes, a strip before the source is known, a later piece
    # that relabels a dropped packet, an edge port whose sources go unchecked on first passes
    text = tna_user_text(preprocessed(TNA, [api_dir]), api_dir)
    fail_open = text.replace("default_action = source_spoofed();",
                             "default_action = source_ok();")
    strip_first = text.replace("switch (edge_source.apply().action_run) {",
                               "edge_source.apply(); {")
    strip_first = strip_first.replace("source_ok: {", "{")
    relabel = text.replace(
        "if (meta.first_pass && meta.drop_cause == DROP_NONE && meta.is_data == 1)",
        "if (meta.first_pass && meta.is_data == 1)")
    ungated = text.replace("if (meta.first_pass && meta.drop_cause == DROP_NONE && "
                           "hdr.ipv4.isValid() && !legacy)", "if (hdr.ipv4.isValid() && !legacy)")
    assert len({text, fail_open, strip_first, relabel, ungated}) == 5
    assert spoofed_source_problems(fail_open) == [
        "a miss in edge_source does not run source_spoofed"]
    assert spoofed_source_problems(strip_first) == ["epdn_strip_option not for source_ok only",
                                                    "drop_edge_fragment not for source_ok only"]
    assert spoofed_source_problems(relabel) == ["Impairment (apply) overwrites a drop cause"] * 2
    assert spoofed_source_problems(ungated) == ["edge_source applied without meta.first_pass",
                                                "edge_source applied without "
                                                "meta.drop_cause == DROP_NONE"]
