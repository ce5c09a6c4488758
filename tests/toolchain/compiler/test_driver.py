"""The command line (p4c-like): output file, -D, -I, error format and exit status."""
from __future__ import annotations

import json
import os
from pathlib import Path

from toolchain.compiler.driver import main
from toolchain.switch.bm_sim.json_checks import too_deep_text
from .conftest import PROGRAMS

ERRORS = PROGRAMS / "errors"


def test_driver_writes_bmv2_json(tmp_path):
    out = tmp_path / "prog.json"
    assert main([str(PROGRAMS / "tables.p4"), "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["__meta__"]["version"] == [2, 23]
    assert any(t["name"] == "TablesIngress.lpm_t" for t in doc["pipelines"][0]["tables"])


def test_driver_reports_refusal_with_position_and_exit_1(tmp_path, capsys):
    src = ERRORS / "refuse_value_set.p4"
    assert main([str(src), "-o", str(tmp_path / "x.json")]) == 1
    err = capsys.readouterr().err
    assert f"{src}:" in err and ": error: " in err
    assert not (tmp_path / "x.json").exists()


def test_driver_include_dir_and_define(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "sizes.p4").write_text("const bit<32> TABLE_SIZE = SIZE;\n")
    prog = tmp_path / "p.p4"
    prog.write_text((PROGRAMS / "tables.p4").read_text()
                    .replace("#include <v1model.p4>", '#include <v1model.p4>\n#include "sizes.p4"')
                    .replace("size = 16;", "size = TABLE_SIZE;"))
    out = tmp_path / "p.json"
    assert main([str(prog), "-o", str(out), "-I", str(inc), "-D", "SIZE=77"]) == 0
    tables = {t["name"]: t for t in json.loads(out.read_text())["pipelines"][0]["tables"]}
    assert tables["TablesIngress.exact_multi"]["max_size"] == 77


def test_driver_missing_file_is_an_error(tmp_path, capsys):
    assert main([str(tmp_path / "nope.p4")]) == 1
    assert "no such file" in capsys.readouterr().err


def test_driver_accepts_p4c_bm2_ss_options(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["--p4v", "16", "--p4runtime-files", str(tmp_path / "t.p4info.txt"),
                 "-o", str(out), str(PROGRAMS / "tables.p4")]) == 0
    assert out.exists()
    assert (tmp_path / "t.p4info.txt").read_text().startswith("# proto-file: ")
    assert capsys.readouterr().err == ""


def test_driver_refuses_other_architectures():
    import pytest
    with pytest.raises(SystemExit) as info:
        main(["--arch", "psa", str(PROGRAMS / "tables.p4")])
    assert info.value.code == 2


def test_driver_unwritable_output_is_an_error(tmp_path, capsys):
    assert main([str(PROGRAMS / "tables.p4"), "-o", str(tmp_path / "no" / "such" / "x.json")]) == 1
    assert "cannot write" in capsys.readouterr().err


def test_driver_warns_that_reject_ends_parsing_like_accept(tmp_path, capsys):
    src = tmp_path / "rj.p4"
    src.write_text((PROGRAMS / "resubmit.p4").read_text()
                   .replace("default: accept; }", "default: reject; }"))
    assert main([str(src), "-o", str(tmp_path / "rj.json")]) == 0
    assert "warning: explicit transition to reject" in capsys.readouterr().err


# ---------------------------------------------------------------- hostile input, as a user
# runs it: every case is one `file:line:col: error:` (or `error:`) line and exit status 1,
# never a traceback, never a hint about Python's own limits

import re
import shutil
import subprocess
import sys

import pytest

from .conftest import REPO

CPP_CHOICES = ["builtin"] + (["cpp"] if shutil.which("cpp") else [])

V1MODEL_PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<32> a; bit<32> b; }}
struct headers_t {{ h_t h; }}
struct meta_t {{ }}
{types}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{
    state start {{ pkt.extract(hdr.h); transition accept; }}
}}
control V(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{
    apply {{
        {body}
    }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{ apply {{ }} }}
control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.h); }} }}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
BODY_LINE = 13          # the line `{body}` starts on


def v1model(body: str = "", types: str = "") -> str:
    return V1MODEL_PROGRAM.format(body=body, types=types)


def rdtcp_p4c(src, tmp_path, cpp: str = "builtin") -> subprocess.CompletedProcess:
    env = dict(os.environ, RDTCP_CPP=cpp)
    return subprocess.run([sys.executable, "-m", "toolchain.compiler.driver", str(src),
                           "-o", str(tmp_path / "out.json")], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=600)


def one_line_error(proc, src) -> str:
    """The one error line of a failed run (file:line:col: error: ... when it has a place)."""
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "set_int_max_str_digits" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert re.match(rf"({re.escape(str(src))}:\d+:\d+: )?error: ", lines[0]), lines[0]
    return lines[0]


@pytest.mark.parametrize("cpp", CPP_CHOICES)
def test_cli_binary_file_is_one_error_line(tmp_path, cpp):
    src = tmp_path / "binary.p4"
    src.write_bytes(Path(sys.executable).read_bytes()[:4096])      # an ELF executable
    line = one_line_error(rdtcp_p4c(src, tmp_path, cpp), src)
    assert "(is this a binary file?)" in line


@pytest.mark.parametrize("cpp", CPP_CHOICES)
def test_cli_byte_that_is_not_utf8_is_named_where_it_is(tmp_path, cpp):
    src = tmp_path / "latin1.p4"
    src.write_bytes(v1model("hdr.h.a = 1;\n        hdr.h.caf\xe9 = 2;").encode("latin-1"))
    line = one_line_error(rdtcp_p4c(src, tmp_path, cpp), src)
    assert line == (f"{src}:{BODY_LINE + 1}:18: error: byte 0xe9 is not UTF-8: a P4 program "
                    f"is UTF-8 text (is this a binary file?)")


@pytest.mark.parametrize("cpp", CPP_CHOICES)
def test_cli_byte_that_is_not_utf8_in_a_comment_is_dropped_with_it(tmp_path, cpp):
    src = tmp_path / "comment.p4"
    src.write_bytes(v1model("hdr.h.a = 1;   // caf\xe9").encode("latin-1"))
    proc = rdtcp_p4c(src, tmp_path, cpp)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("cpp", CPP_CHOICES)
def test_cli_nul_byte_is_named_where_it_is(tmp_path, cpp):
    src = tmp_path / "nul.p4"
    src.write_bytes(v1model("hdr.h.a = 1;\x00").encode())
    line = one_line_error(rdtcp_p4c(src, tmp_path, cpp), src)
    assert line.startswith(f"{src}:{BODY_LINE}:") and "a NUL byte" in line


def test_cli_hundred_thousand_digit_constant(tmp_path):
    src = tmp_path / "digits.p4"
    src.write_text(v1model("hdr.h.a = " + "9" * 100_000 + ";"))
    line = one_line_error(rdtcp_p4c(src, tmp_path), src)
    assert line.startswith(f"{src}:{BODY_LINE}:19: error: integer literal '999")
    assert "too large: 100000 digits, more than the 65536 bits of the widest bit<W>" in line


def test_cli_huge_computed_constants_are_one_line(tmp_path):
    src = tmp_path / "size.p4"
    src.write_text(v1model("t.apply();").replace(
        "    apply {\n        t.apply();",
        "    action a() { }\n    table t { key = { hdr.h.a: exact; } actions = { a; } "
        "size = 1 << 20000; }\n    apply {\n        t.apply();"))
    assert one_line_error(rdtcp_p4c(src, tmp_path), src) == (
        "error: $.pipelines[0].tables[0].max_size: a number of 20001 bits, more than BMv2 "
        "reads (64)")


def test_cli_struct_that_contains_itself(tmp_path):
    src = tmp_path / "self.p4"
    src.write_text(v1model("s_t v; v.y = 1;", types="struct s_t { bit<8> y; s_t x; }"))
    assert one_line_error(rdtcp_p4c(src, tmp_path), src) == (
        f"{src}:6:24: error: 's_t' names the struct being declared: self-referencing types "
        f"are not supported")


def test_cli_control_that_instantiates_itself(tmp_path):
    src = tmp_path / "selfctl.p4"
    src.write_text(v1model().replace("control V(inout headers_t hdr, inout meta_t meta) { apply { } }",
                                     "control V(inout headers_t hdr, inout meta_t meta) {\n"
                                     "    V() again;\n    apply { again.apply(hdr, meta); } }"))
    assert one_line_error(rdtcp_p4c(src, tmp_path), src) == (
        f"{src}:11:5: error: 'V' names the control being declared: self-referencing types "
        f"are not supported")


@pytest.mark.parametrize("terms", [200, 250, 1000, 3000])
def test_cli_long_operator_chains_compile(tmp_path, terms):
    src = tmp_path / "chain.p4"
    src.write_text(v1model("hdr.h.a = " + " + ".join(["hdr.h.b"] * terms) + ";"))
    proc = rdtcp_p4c(src, tmp_path)
    assert proc.returncode == 0
    refused = too_deep_text((tmp_path / "out.json").read_text())   # the embedded switch's check
    if terms == 200:        # within what simple_switch's JSON reader takes: no warning
        assert refused is None and proc.stderr == ""
    else:                   # written all the same, with a warning at the expression's line
        warning = re.fullmatch(
            re.escape(f"{src}:{BODY_LINE}:") + r"\d+: warning: this expression nests the BMv2 "
            r"JSON (\d+) levels deep; simple_switch reads at most 1000 \(jsoncpp's stackLimit\) "
            r"and will refuse the file: split it into shorter expressions through temporaries",
            proc.stderr.strip())
        assert warning, proc.stderr
        assert refused is not None and f"nests {warning.group(1)} levels" in refused
    # indentation stops where the nesting gets deep: the file grows with the chain, not with
    # its square (json.dumps(indent=2) would write 0.8 GB for 3,000 terms)
    assert (tmp_path / "out.json").stat().st_size < 100_000 + 250 * terms


def test_cli_nesting_past_the_limit_is_reported_at_its_line(tmp_path):
    chain = " + ".join(["hdr.h.b"] * 20_000)
    cases = {
        "chain": ("hdr.h.a = 1;\n        hdr.h.a = " + chain + ";", BODY_LINE + 1),
        "parentheses": ("hdr.h.a = 1;\n\n        hdr.h.a = " + "(" * 12_000 + "1" + ")" * 12_000
                        + ";", BODY_LINE + 2),
        "blocks": ("hdr.h.a = 1;\n        " + "{" * 12_000 + "hdr.h.a = 1;" + "}" * 12_000,
                   BODY_LINE + 1),
        "prefix operators": ("hdr.h.a = " + "-" * 12_000 + "hdr.h.b;", BODY_LINE),
    }
    for what, (body, line) in cases.items():
        src = tmp_path / "deep.p4"
        src.write_text(v1model(body))
        error = one_line_error(rdtcp_p4c(src, tmp_path), src)
        assert error.startswith(f"{src}:{line}:"), (what, error)
        assert error.endswith("error: nested too deeply: more than 10000 levels of "
                              "expressions, statements or types inside each other"), what
