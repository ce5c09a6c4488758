"""One compilation: the front end, the mid end and the back end in a straight line, as p4c's
driver runs them (each stops the compilation after a pass that reported errors)."""
from __future__ import annotations

from pathlib import Path

from .backend import emit_program
from .diagnostics import CompileError, Diagnostics
from .frontend import parse_and_check
from .midend import run_midend


def compile_program(path, include_dirs=(), defines=None, warnings=None) -> dict:
    """Front end -> mid end -> back end; returns the BMv2 JSON document."""
    path = Path(path)
    if not path.is_file():
        raise CompileError.at(None, f"{path}: no such file")
    program, front_warnings = parse_and_check(str(path), include_dirs=tuple(include_dirs),
                                              defines=dict(defines or {}))
    diags = Diagnostics()
    lowered = run_midend(program, diags, path.name)
    if warnings is not None:
        warnings.extend(front_warnings)
        warnings.extend(diags.warnings)
    return emit_program(lowered)
