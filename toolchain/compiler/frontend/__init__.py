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


class _DeepRecursion:
    """Deeply nested programs (thousands of parentheses, very long operator chains) would hit
    Python's recursion limit in the recursive-descent parser and checker. Allow more depth
    while the front end runs, and turn an overflow into a compile error instead of a crash."""

    LIMIT = 20000

    def __init__(self, path):
        self.path = str(path)

    def __enter__(self):
        import sys
        self.saved = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.saved, self.LIMIT))

    def __exit__(self, exc_type, exc, tb):
        import sys
        sys.setrecursionlimit(self.saved)
        if exc_type is RecursionError:
            raise CompileError.at(Pos(self.path, 1, 1), "the program is nested too deeply "
                                                        "(expressions or blocks)") from None
        return False


def parse_and_check(path, *, include_dirs=(), defines=None, require_main=True):
    from .preprocess import preprocess
    from .parser import parse_text
    from .checker import check_program
    from .inline_functions import inline_functions
    from ..diagnostics import Diagnostics

    diags = Diagnostics()
    text = preprocess(str(path), include_dirs=list(include_dirs) + [str(P4INCLUDE)],
                      defines=defines or {})
    with _DeepRecursion(path):
        program = parse_text(text, str(path), diags)
        inline_functions(program, diags)
        diags.raise_if_errors()
        check_program(program, diags, require_main=require_main)
    return program, diags.warnings


def check_source(text: str, filename: str = "test.p4", *, require_main: bool = False):
    """Parse and check text that needs no preprocessing (tests, tools); returns
    (Program, warnings) or raises CompileError."""
    from .parser import parse_text
    from .checker import check_program
    from .inline_functions import inline_functions
    from ..diagnostics import Diagnostics

    diags = Diagnostics()
    with _DeepRecursion(filename):
        program = parse_text(text, filename, diags, recover_columns=False)
        inline_functions(program, diags)
        diags.raise_if_errors()
        check_program(program, diags, require_main=require_main)
    return program, diags.warnings
