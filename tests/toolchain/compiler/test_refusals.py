"""Every refusal names the file, line, column and construct (golden files next to the
programs in tests/toolchain/programs/errors: <name>.p4 and the first line of its <name>.stderr),
and a refused program never produces a JSON file."""
from __future__ import annotations

import pytest

from toolchain.compiler import CompileError, compile_file
from toolchain.compiler.driver import main
from .conftest import PROGRAMS

ERRORS = PROGRAMS / "errors"
CASES = sorted(p.stem for p in ERRORS.glob("*.p4"))


@pytest.mark.parametrize("name", CASES)
def test_refusal_message_matches_golden(name, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(ERRORS)
    out = tmp_path / "out.json"
    assert main([f"{name}.p4", "-o", str(out)]) == 1
    first = capsys.readouterr().err.splitlines()[0]
    assert first == (ERRORS / f"{name}.stderr").read_text().strip()
    assert not out.exists()


@pytest.mark.parametrize("name", CASES)
def test_refusal_raises_compile_error_with_position(name):
    with pytest.raises(CompileError) as info:
        compile_file(ERRORS / f"{name}.p4")
    err = info.value.errors[0]
    assert err.pos is not None and err.pos.line > 0 and err.pos.col > 0
