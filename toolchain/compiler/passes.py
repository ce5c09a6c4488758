"""Running an ordered list of passes, as p4c's PassManager runs a pass list.

The front end and the mid end are each one list of pass classes (their PASSES), read top to
bottom as the compiler's model; both run the same way: a fresh instance of each pass, `run(ctx)`
in order, and the compilation stops after the first pass that reported an error, because a
later pass would only add noise. A pass that fails on a bug of its own is reported as one
internal-compiler-error line naming the pass, never as a traceback.
"""
from __future__ import annotations

from typing import Union

from .diagnostics import CompileError, Diagnostics, internal_error


def run_pass_list(ctx, passes: list, diags: Diagnostics,
                  refusal: Union[type, tuple] = ()) -> None:
    """Run `passes` on `ctx` in order, reporting into `diags`; raise CompileError after the
    first pass that reported an error. `refusal`: the exception class a pass raises to refuse
    a construct (its `.pos` and message become an error there; the mid end's Unsupported)."""
    for pass_class in passes:
        p = pass_class()
        try:
            p.run(ctx)
        except refusal as e:
            diags.error(e.pos, str(e))
        except (CompileError, RecursionError):
            raise                   # RecursionError: reported where the nesting is (deep.py)
        except Exception as e:      # a bug of the pass: say so instead of a traceback
            diags.error(None, internal_error(e, p.name))
        diags.raise_if_errors()
