"""The command line (p4c-like): output file, -D, -I, error format and exit status."""
from __future__ import annotations

import json

from toolchain.compiler.driver import main
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
    assert "P4Runtime" in capsys.readouterr().err


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
