"""One compilation: the front end, the mid end and the back end in a straight line, as p4c's
driver runs them (each stops the compilation after a pass that reported errors)."""
from __future__ import annotations

from pathlib import Path

from .backend import emit_program
from .backend.nesting import nesting_warning
from .deep import run_deep
from .diagnostics import CompileError, Diagnostic, Diagnostics
from .frontend import parse_and_check
from .midend import run_midend


def compile_program(path, include_dirs=(), defines=None, warnings=None, werror=False,
                    after_front_end=None) -> dict:
    """Front end -> mid end -> back end; returns the BMv2 JSON document. `werror` (p4c's
    --Werror): every warning is an error, the portability ones included (constructs p4c 1.2.4
    refuses although later p4c accepts them: frontend/bmv2_target.py).
    ``after_front_end(program)``: called with the checked program before the mid end runs
    (the P4Info is made from it, as p4c does); a CompileError it raises stops the compilation."""
    collected = [] if warnings is None else warnings
    doc = run_deep(_compile, Path(path), include_dirs, defines, collected, after_front_end)
    if werror and collected:
        raise CompileError([Diagnostic("error", w.pos, w.message) for w in collected])
    return doc


def _compile(path: Path, include_dirs, defines, warnings, after_front_end=None) -> dict:
    if not path.is_file():
        raise CompileError.at(None, f"{path}: no such file")
    program, front_warnings = parse_and_check(str(path), include_dirs=tuple(include_dirs),
                                              defines=dict(defines or {}))
    if after_front_end is not None:
        after_front_end(program)
    diags = Diagnostics()
    lowered = run_midend(program, diags, path.name)
    if warnings is not None:
        warnings.extend(front_warnings)
        warnings.extend(diags.warnings)
    try:
        doc = emit_program(lowered)
    except (CompileError, RecursionError):
        raise                           # RecursionError: reported where the nesting is (deep.py)
    except Exception as e:              # a back-end bug: say so instead of a traceback
        raise CompileError.at(None, f"internal compiler error in the back end: "
                                    f"{type(e).__name__}: {e} (please report it with the "
                                    f"program)") from None
    too_deep = nesting_warning(doc, main_file=path)
    if too_deep and warnings is not None:
        warnings.append(too_deep)
    return doc
