"""The P4_16 front end: C preprocessor, lexer, parser, name resolution and type checking.

Public entry (used by the driver and the mid end):

    from toolchain.compiler.frontend import parse_and_check
    program, warnings = parse_and_check("prog.p4", include_dirs=("p4src/include",),
                                        defines={"N": "1"})

`parse_and_check(path, *, include_dirs=(), defines=None) -> (ast.Program, list[Diagnostic])`
(`require_main=False` accepts a program without `... main;`, for libraries and tests)
returns the typed AST (see `ast.py` for exactly what is set on each node after checking, and
`types.py` for the types) and the warnings; it raises `diagnostics.CompileError` carrying every
error found in the failing phase, each formatted `file:line:col: error: message`.

`#include <core.p4>` and `<v1model.p4>` resolve to `toolchain/compiler/p4include/`, which is
searched after the caller's `include_dirs` (as p4c searches its own p4include directory).
`parse_source(text, filename)` parses already-preprocessed text (for tests).
"""
from __future__ import annotations

from pathlib import Path

from ..diagnostics import CompileError, Diagnostic, Pos  # noqa: F401  (re-exported)

P4INCLUDE = Path(__file__).resolve().parent.parent / "p4include"


def parse_and_check(path, *, include_dirs=(), defines=None, require_main=True):
    from .preprocess import preprocess
    from .parser import parse_text
    from .checker import check_program
    from ..diagnostics import Diagnostics

    diags = Diagnostics()
    text = preprocess(str(path), include_dirs=list(include_dirs) + [str(P4INCLUDE)],
                      defines=defines or {})
    program = parse_text(text, str(path), diags)
    check_program(program, diags, require_main=require_main)
    return program, diags.warnings


def check_source(text: str, filename: str = "test.p4", *, require_main: bool = False):
    """Parse and check text that needs no preprocessing (tests, tools); returns
    (Program, warnings) or raises CompileError."""
    from .parser import parse_text
    from .checker import check_program
    from ..diagnostics import Diagnostics

    diags = Diagnostics()
    program = parse_text(text, filename, diags, recover_columns=False)
    check_program(program, diags, require_main=require_main)
    return program, diags.warnings
