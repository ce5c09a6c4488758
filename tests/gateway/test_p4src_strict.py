"""The guard: every P4 program under p4src/, in every configuration the project builds, through
the front end in its strictest mode (--Werror: a warning is an error, the portability ones for
p4c 1.2.4 included; what p4c-bm2-ss's back end refuses is refused anyway). A change that real
p4c 1.2.4.8 would refuse or warn about fails here, on a machine without p4c
(tests/gateway/test_real_p4c.py runs the real thing where it is installed).

Configurations: the compile-time knobs of p4src/include (EPDN_ENTRIES, MAX_PORTS) at the values
the project uses (the defaults; EPDN_ENTRIES=1024 in the tests, 4096 in the README; MAX_PORTS=8
in the controller's tests) and at their ends. The legacy-router mode and RED are run-time
registers of the same program, not builds of their own; a test below fails when a new
compile-time knob appears, so that it gets a configuration here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolchain.compiler import CompileError
from toolchain.compiler.pipeline import compile_program

import test_p4src_tna as tna

ROOT = Path(__file__).resolve().parents[2]
P4SRC = ROOT / "p4src"
GATEWAY = P4SRC / "rdtcp.p4"
TNA = P4SRC / "tna" / "rdtcp_tna.p4"

CONFIGS = [{}, {"EPDN_ENTRIES": "1024"}, {"EPDN_ENTRIES": "4096"}, {"MAX_PORTS": "8"},
           {"EPDN_ENTRIES": "1", "MAX_PORTS": "1"}, {"MAX_PORTS": "512"}]
KNOBS = {"EPDN_ENTRIES", "MAX_PORTS"}
# #ifndef names of p4src/include that are not build knobs: include guards, and the hooks an
# architecture's program defines (p4src/tna) before including the shared files
NOT_KNOBS = re.compile(r"RDTCP_\w+_P4|RDTCP_\w+|PARSE_\w+")


def _strict(defines: dict) -> list[str]:
    """The gateway's diagnostics under --Werror (none when it compiles)."""
    try:
        compile_program(GATEWAY, defines=defines, werror=True)
    except CompileError as e:
        return [str(d) for d in e.diagnostics]
    return []


@pytest.mark.parametrize("defines", CONFIGS, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items())
                         or "default")
def test_gateway_compiles_without_a_warning_in_every_configuration(defines):
    assert _strict(defines) == []


def test_every_compile_time_knob_has_configurations():
    knobs = set()
    for path in (P4SRC / "include").glob("*.p4"):
        knobs |= set(re.findall(r"^#ifndef\s+(\w+)", path.read_text(), flags=re.M))
    assert {k for k in knobs if not NOT_KNOBS.fullmatch(k)} == KNOBS
    assert all(set(c) <= KNOBS for c in CONFIGS) and all(any(k in c for c in CONFIGS)
                                                         for k in KNOBS)


def test_every_p4_file_under_p4src_is_checked(tmp_path):
    """Each .p4 is the gateway, the TNA port, or a file one of them includes."""
    included = tna.files_included(tna.preprocessed(GATEWAY, [P4SRC / "include"]))
    api = tmp_path / "t2na"
    api.mkdir()
    (api / "t2na.p4").write_text(tna.T2NA_API)
    included |= tna.files_included(tna.preprocessed(TNA, [api]))
    for path in P4SRC.rglob("*.p4"):
        assert path in (GATEWAY, TNA) or path.resolve() in included, \
            f"{path.relative_to(ROOT)} is neither a checked program nor included by one"


def test_tna_port_front_end_gives_no_warning(tmp_path):
    from toolchain.compiler.diagnostics import Diagnostics
    from toolchain.compiler.frontend import check_program
    from toolchain.compiler.frontend.parser import parse_text
    api = tmp_path / "t2na"
    api.mkdir()
    (api / "t2na.p4").write_text(tna.T2NA_API)
    text = tna.rewrite_for_front_end(tna.preprocessed(TNA, [api]))
    diags = Diagnostics()
    check_program(parse_text(text, str(TNA), diags), diags)
    assert [str(d) for d in diags.items] == []


def test_the_guard_fails_on_a_shift_p4c_refuses(tmp_path):
    """Negative control: the gateway with one computed 16-bit shift amount (the kind that kept
    real p4c from building it) is refused at the line of the shift."""
    copy = tmp_path / "p4src"
    for path in P4SRC.rglob("*.p4"):
        target = copy / path.relative_to(P4SRC)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text())
    trust = copy / "include" / "trust.p4"
    text = trust.read_text()
    old = "meta.opt_word = OPT_AREA_UP(meta.opt_area, meta.opt_pos)[319:288];"
    assert old in text
    trust.write_text(text.replace(old, "meta.opt_word = (bit<32>)(meta.opt_area >> (16w288 - "
                                       "((bit<16>)meta.opt_pos << 3)));"))
    line = text[:text.index(old)].count("\n") + 1
    with pytest.raises(CompileError) as e:
        compile_program(copy / "rdtcp.p4", werror=True)
    assert [(d.pos.line, d.message) for d in e.value.errors] == [
        (line, "meta.opt_area >> 288 - ((bit<16>)meta.opt_pos << 3): shift amount limited to 8 "
               "bits on this target")]
