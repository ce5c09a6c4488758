"""`python -m toolchain.compiler.frontend`: check only (like p4c's p4test), with --dump."""
from __future__ import annotations

from toolchain.compiler.frontend.__main__ import main

from .conftest import program_text


def test_cli_checks_and_dumps_the_typed_ast(tmp_path, capsys):
    src = tmp_path / "prog.p4"
    src.write_text(program_text("", ingress="apply { meta.c = 8w1 + 2; }"))
    assert main([str(src), "--dump", "I"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "ControlDecl I : I"
    assert "BinaryExpr + : bit<8> = 3" in out
    assert "IntLit 2 : bit<8> = 2" in out


def test_cli_dump_skips_the_architecture_declarations(tmp_path, capsys):
    src = tmp_path / "prog.p4"
    src.write_text(program_text("", ingress="apply { }"))
    assert main([str(src), "--dump"]) == 0
    out = capsys.readouterr().out
    assert "HeaderDecl ethernet_t" in out and "standard_metadata_t :" not in out.split("\n")[0]
    assert "StructDecl standard_metadata_t" not in out


def test_cli_reports_errors_with_exit_status_1(tmp_path, capsys):
    src = tmp_path / "prog.p4"
    src.write_text(program_text("", ingress="apply { meta.c = nope; }"))
    assert main([str(src)]) == 1
    assert capsys.readouterr().err.strip().endswith("prog.p4:15:18: error: 'nope' is not declared")


def test_cli_accepts_a_library_with_no_main(tmp_path, capsys):
    src = tmp_path / "lib.p4"
    src.write_text("#include <core.p4>\nconst bit<8> X = N;\n")
    assert main([str(src), "-D", "N=4", "--no-main", "--dump", "X"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "ConstDecl X : bit<8> = 4"


def test_cli_reports_its_own_bug_as_one_line_with_exit_status_1(tmp_path, capsys, monkeypatch):
    import toolchain.compiler.frontend.__main__ as cli

    def fails(*args, **kwargs):
        raise KeyError("oops")
    monkeypatch.setattr(cli, "parse_and_check", fails)
    assert main([str(tmp_path / "prog.p4")]) == 1
    assert capsys.readouterr().err == ("error: internal compiler error: KeyError: 'oops' "
                                       "(please report it with the program)\n")
