"""Room for deeply nested programs: the passes recurse over the syntax tree, and nesting
(thousands of parentheses, very long operator chains) would hit Python's recursion limit.
The compilation runs with a higher limit, and an overflow becomes a compile error instead of
a crash."""
from __future__ import annotations

import sys

from .diagnostics import CompileError, Pos

RECURSION_LIMIT = 20000


def run_deep(path: str, fn, *args):
    """fn(*args) with the recursion limit raised; a RecursionError is an error of `path`."""
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(max(saved, RECURSION_LIMIT))
    try:
        return fn(*args)
    except RecursionError:
        raise CompileError.at(Pos(str(path), 1, 1), "the program is nested too deeply "
                                                    "(expressions or blocks)") from None
    finally:
        sys.setrecursionlimit(saved)
