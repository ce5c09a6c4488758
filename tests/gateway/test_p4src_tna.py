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
  runs p4c's front end: unused declarations, shadowing, constants that fit, parser rules).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolchain.compiler.diagnostics import CompileError, Diagnostics
from toolchain.compiler.frontend import P4INCLUDE
from toolchain.compiler.frontend import check_program
from toolchain.compiler.frontend.parser import parse_text
from toolchain.compiler.frontend.preprocess import preprocess

import test_p4src_p4c_rules as rules

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
    diags = Diagnostics()
    try:
        check_program(parse_text(text, str(TNA), diags), diags)
    except CompileError as e:
        return [str(d) for d in e.diagnostics]
    return [str(d) for d in diags.items if d.severity == "error"]


# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SHARED)
def test_tna_shares_include_with_v1model(name, api_dir):
    shared = (ROOT / "p4src" / "include" / name).resolve()
    assert shared in files_included(preprocessed(TNA, [api_dir]))
    assert shared in files_included(preprocessed(GATEWAY, [ROOT / "p4src" / "include"]))


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
