"""The P4_16 front end: source text -> the typed, lowered AST the mid end takes.

One pass per class, in one ordered list (PASSES), after p4c's FrontEnd: each pass reports
into the compilation's `Diagnostics`, and the front end stops after the first pass that
reported an error (a later pass would only add noise). A pass that fails on a bug of its
own is reported as an internal compiler error naming the pass, never as a traceback.

Public entry (used by the driver and the mid end):

    from toolchain.compiler.frontend import parse_and_check
    program, warnings = parse_and_check("prog.p4", include_dirs=("p4src/include",),
                                        defines={"N": "1"})

`parse_and_check(path, *, include_dirs=(), defines=None) -> (ast.Program, list[Diagnostic])`
(`require_main=False` accepts a program without `... main;`, for libraries and tests)
returns the typed AST (see `ast.py` for exactly what is set on each node after checking, and
`types.py` for the types) and the warnings; it raises `diagnostics.CompileError` carrying every
error found in the failing pass, each formatted `file:line:col: error: message`.
`check_source(text, filename)` runs the passes after preprocessing on text (for tests and
tools); `check_program(program, diags)` those after inlining on a parsed program.

`#include <core.p4>` and `<v1model.p4>` resolve to `toolchain/compiler/p4include/`, which is
searched after the caller's `include_dirs` (as p4c searches its own p4include directory).
`parse_source(text, filename)` (parser.py) parses already-preprocessed text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..deep import run_deep
from ..diagnostics import CompileError, Diagnostics
from . import ast as A
from .bmv2_target import Bmv2Target
from .inline_controls import InlineControls
from .inline_functions import FunctionInliner, InlineFunctions
from .inline_parsers import InlineParsers
from .lowering import (InlineStructConstants, LowerAggregateEquality, LowerLookaheadFields,
                       LowerParserIfs)
from .nesting import LimitNesting
from .parser import Parse
from .preprocess import P4INCLUDE, Preprocess
from .resolve import ResolveNames
from .typecheck import TypeCheck

PASSES = [
    Preprocess,              # the C preprocessor: #include, #define -> text with line markers
    Parse,                   # text -> syntax tree; syntax errors
    LimitNesting,            # the tree is at most MAX_DEPTH levels deep (deep.py)
    InlineFunctions,         # calls of P4 functions -> statements (p4c's InlineFunctions)
    InlineControls,          # sub-control instances -> their code (p4c's InlineControls)
    InlineParsers,           # sub-parser instances -> their states
    ResolveNames,            # every name -> its declaration (p4c's ResolveReferences)
    TypeCheck,               # types, constant folding, refusals (p4c's TypeInference)
    LowerAggregateEquality,  # == / != on headers, structs, stacks -> scalar comparisons
    LowerLookaheadFields,    # lookahead<H>().f -> a slice of lookahead<bit<N>>()
    LowerParserIfs,          # if in a parser state -> states (p4c's RemoveParserIfs)
    InlineStructConstants,   # struct constants -> their values where used whole
    Bmv2Target,              # what p4c's BMv2 back end refuses (shift amounts, ...)
]


@dataclass
class FrontEndContext:
    """One run of the front end: its input, options and what the passes hand on."""
    diags: Diagnostics
    path: str                             # the source file, as messages name it
    include_dirs: tuple = ()
    defines: dict = field(default_factory=dict)
    require_main: bool = True             # a program without `... main;` is an error
    recover_columns: bool = True          # map columns back to the lines cpp rewrote
    text: Optional[str] = None            # Preprocess -> Parse
    program: Optional[A.Program] = None   # Parse -> every later pass
    inliner: Optional[FunctionInliner] = None   # fresh names shared by the inlining passes


def run_passes(ctx: FrontEndContext, passes: list) -> None:
    """Run `passes` in order, stopping after the first that reported an error."""
    for pass_class in passes:
        p = pass_class()
        try:
            p.run(ctx)
        except (CompileError, RecursionError):
            raise                   # RecursionError: reported where the nesting is (deep.py)
        except Exception as e:      # a bug of the pass: say so instead of a traceback
            ctx.diags.error(None, f"internal compiler error in {p.name}: "
                                  f"{type(e).__name__}: {e} (please report it with the program)")
        ctx.diags.raise_if_errors()


def _after(pass_class) -> list:
    return PASSES[PASSES.index(pass_class):]


def run_frontend(ctx: FrontEndContext) -> A.Program:
    """Every pass, from the file at `ctx.path`; the typed, lowered program."""
    run_deep(run_passes, ctx, PASSES)
    return ctx.program


def parse_and_check(path, *, include_dirs=(), defines=None, require_main=True):
    ctx = FrontEndContext(Diagnostics(), str(path), include_dirs=tuple(include_dirs),
                          defines=dict(defines or {}), require_main=require_main)
    program = run_frontend(ctx)
    return program, ctx.diags.warnings


def check_source(text: str, filename: str = "test.p4", *, require_main: bool = False):
    """Parse and check text that needs no preprocessing (tests, tools); returns
    (Program, warnings) or raises CompileError."""
    ctx = FrontEndContext(Diagnostics(), filename, require_main=require_main,
                          recover_columns=False, text=text)
    run_deep(run_passes, ctx, _after(Parse))
    return ctx.program, ctx.diags.warnings


def check_program(program: A.Program, diags: Diagnostics, *, require_main: bool = True) -> None:
    """Resolve, check and lower a parsed program whose functions and sub-blocks need no
    inlining (tools and tests that build or parse programs themselves)."""
    ctx = FrontEndContext(diags, str(program.pos.file), require_main=require_main,
                          program=program)
    run_deep(run_passes, ctx, _after(ResolveNames))


__all__ = ["PASSES", "FrontEndContext", "run_passes", "run_frontend", "parse_and_check",
           "check_source", "check_program", "P4INCLUDE"]
