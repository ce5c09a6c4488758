"""P4_16 compiler for v1model programs -> BMv2 JSON, after p4c's frontend / midend / backend.

    from toolchain.compiler import compile_file, CompileError
    doc = compile_file("prog.p4", include_dirs=["p4src/include"], defines={"N": "1"})

    python -m toolchain.compiler.driver prog.p4 -o prog.json [-I dir] [-D NAME=V]   (rdtcp-p4c)

`compile_file` returns the BMv2 JSON document as a dict (format version 2.23, what
p4c-bm2-ss 1.2.4 writes; table, action, register, counter and meter names as p4c gives them:
`MyIngress.ipv4_lpm`, `NoAction`, `@name` honoured; top-level externs unprefixed). It raises
`CompileError`, whose str() is the compiler output, one `file:line:col: error: message` per
line. `#include <core.p4>` / `<v1model.p4>` are the project's own declarations
(p4include/, V1MODEL_VERSION 20180101 API).

Phases: frontend/ (PASSES in frontend/__init__.py: preprocess, parse, inline, resolve names,
type check, lower) -> midend/ (PASSES in midend/__init__.py: the typed AST lowered to
midend/ir.py) -> backend/ (one converter per JSON section); each stops the compilation after a
pass that reported errors.

Supported: headers (with struct-typed fields, flattened "_row_e0" as p4c's FlattenHeaders),
structs (nested), header stacks (.next/.last in parsers, push/pop, constant and run-time
indices), header unions and stacks of them, bit<W>/int<W>/bool, enums (plain and
serializable), errors, tuple locals (a struct of fields f0, f1, ...; elements by constant
index), varbit<W> header fields and locals (one per header; copied with assign_VL, compared
with == / !=; a local lives in a "$varbit<W>" metadata instance, as p4c does); functions,
sub-controls and sub-parsers (inlined); parsers with extract, two-argument extract of a
varbit header (BMv2 extract_VL), lookahead (bits, header fields, whole headers), advance,
verify, if statements (split into states as p4c's RemoveParserIfs), parser value sets,
select with values, masks, ranges (expanded to masks as p4c does) and default; actions with
if/else, return and exit (BMv2 `_jump_if_zero` / `_jump`), `for` loops with break/continue in
actions, functions and apply blocks (jumps inside one action, as p4c's BMv2 back end writes
them), direct action calls (inlined, copy-in), locals; tables with exact/lpm/ternary/range/
optional keys (expressions and masks in keys; optional written as ternary, as p4c does),
default actions, const default actions, entries and const entries with priorities, size,
direct counters and meters, support_timeout, action profiles and action selectors
(`implementation`, the `selector` match kind); apply blocks with if/else, .hit/.miss, switch
on action_run or on values, exit/return; struct constants; the v1model externs register,
counter, direct_counter, meter, direct_meter, hash, random, mark_to_drop,
resubmit/recirculate/clone(+_preserving_field_list, clone3), truncate, assert/assume,
log_msg, digest, verify/update_checksum(+_with_payload).
Refused with a position and the construct's name (tests/toolchain/programs/errors/ and
tests/toolchain/compiler/frontend/test_refusals.py): generic structs, headers, parsers,
controls and functions; varbit fields of structs outside the metadata struct, action
parameters and function arguments of varbit type, a second varbit field in a header; a
parser value set as one component of a keyset (a whole keyset is a BMv2 parse_vset); a
field of a header stack's .next; const entries in a table with an action profile; an if
statement in a deparser; a table applied from two places with different successors;
user-defined extern functions; anything else the back end cannot represent.
`transition reject` is accepted with a warning: BMv2 ends parsing as for accept.
"""
from .diagnostics import CompileError
from .pipeline import compile_program

__all__ = ["compile_file", "CompileError"]


def compile_file(path, include_dirs=(), defines=None) -> dict:
    """Compile the P4 program at `path` and return its BMv2 JSON document (a dict)."""
    return compile_program(path, include_dirs=include_dirs, defines=defines)
