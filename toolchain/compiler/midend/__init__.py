"""Mid end: the typed AST -> the lowered program (ir.py) that the back end serialises.

One pass per class, in one ordered list (PASSES), after p4c's SimpleSwitchMidEnd: each pass
reports refusals (`Unsupported`) as `file:line:col: error:` diagnostics, and the mid end
stops after the first pass that reported an error (a later pass would only add noise);
`passes.run_pass_list` runs this list and the front end's.
"""
from __future__ import annotations

from pathlib import Path

from ..diagnostics import Diagnostics
from ..passes import run_pass_list
from . import ir
from .architecture import FinishProgram, ResolveArchitecture
from .checksums import LowerChecksums
from .context import Context
from .controls import LowerControls
from .deparser import LowerDeparser
from .parser import LowerParser
from .storage import AllocateStorage
from .unsupported import Unsupported

PASSES = [
    ResolveArchitecture,   # main = V1Switch(...): the six blocks
    AllocateStorage,       # header types/instances/stacks, scalars, standard metadata, aliases
    LowerParser,           # parse states, select keys/cases, ranges -> masks
    LowerControls,         # ingress/egress: externs, actions, tables, apply -> graph
    LowerChecksums,        # verify/compute-checksum controls -> calculations + checksums
    LowerDeparser,         # emit order
    FinishProgram,         # errors, enums, final scalars header type
]


def run_midend(program, diags: Diagnostics, program_name: str) -> ir.Program:
    ctx = Context(program=program, diags=diags, out=ir.Program(Path(program_name).name))
    run_pass_list(ctx, PASSES, diags, refusal=Unsupported)
    return ctx.out


__all__ = ["run_midend", "PASSES", "Unsupported"]
