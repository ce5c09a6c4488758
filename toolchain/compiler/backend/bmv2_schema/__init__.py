"""BMv2 loader rules: would real simple_switch accept this JSON, and run it as intended?

p4c and BMv2 are not installable here, so our JSON has never met the real loader. This
module encodes the rules that loader applies, as read in p4lang/behavioral-model (VERSION
1.15.5, the simple_switch the conformance kit was run on; commit 9674187):
`src/bm_sim/P4Objects.cpp` (`P4Objects::init_objects` and the
`init_*` helpers it calls, in that order), `src/bm_sim/expressions.cpp` (operator names and
result kinds), `include/bm/bm_sim/actions.h` (`ActionParam::to<T>`: which parameter kinds a
primitive argument of C++ type T accepts), `src/bm_sim/core/primitives.cpp`,
`src/bm_sim/actions.cpp` (`_jump`, `_jump_if_zero`), `targets/simple_switch/primitives.cpp`
and `targets/simple_switch/simple_switch.cpp` (required fields, block names, field lists),
and `docs/JSON_format.md`.

Four kinds of problem are reported, all of them errors for our compiler:
- the loader rejects the file (a `json_exception`: bmv2 prints it and refuses the program);
- the loader or the switch crashes on it (`std::map::at`, `assert`, `_BM_UNREACHABLE`);
- the loader accepts it silently but the program does something else (an unknown operator
  name becomes opcode 0, an unknown next parse state becomes "accept", a duplicated field
  name shadows the second one, ...);
- simple_switch ignores or misplaces what the JSON asks (a resubmit in egress, a control
  flow cycle), where p4c would have refused the program.

A fifth, smaller group: keys simple_switch_CLI (tools/runtime_CLI.py) and p4c's STF runner
(backends/bmv2/bmv2stf.py) index when they read the same JSON.

Positive controls: real p4c's JSON in the kit (tests/data/p4-kit) passes, and so does every
p4c-made simple_switch JSON in behavioral-model's own test data (checked by hand, not
vendored; its older p4c-bm files lack "action_ids", which only the STF runner needs).

Usage: `check_bmv2_json(doc) -> list[Problem]`, `assert_loadable(doc)` raising
`Bmv2JsonError`, or `python -m toolchain.compiler.backend.bmv2_schema prog.json ...`.

`Bmv2JsonChecker` is one class made of one part per section of the document, each citing
its rules: objects.py (headers, stacks, unions, enums, errors, externs, calculations,
counters, meters, registers, field and learn lists), parsers.py, actions.py, pipelines.py,
document.py (rules on the whole document); reader.py reads attributes, references and
expressions as the loader does, vocabulary.py holds the names the loader knows.
"""
from __future__ import annotations

from .actions import ActionRules
from .document import DocumentRules
from .objects import ObjectRules
from .parsers import ParserRules
from .pipelines import PipelineRules
from .problems import Bmv2JsonError, Problem


class Bmv2JsonChecker(ObjectRules, ParserRules, ActionRules, PipelineRules, DocumentRules):
    """Walks a document in `P4Objects::init_objects` order, collecting problems."""

    # ------------------------------------------------------------------ top level
    def run(self) -> list[Problem]:
        if not isinstance(self.doc, dict):
            return [Problem("$", "a BMv2 JSON document is a JSON object")]
        self.version()
        self.enums()
        self.header_types()
        self.headers()
        self.header_stacks()
        self.header_unions()
        self.field_aliases()
        self.extern_instances()
        self.parse_vsets()
        self.errors()
        self.parsers()
        self.deparsers()
        self.calculations()
        self.counters()
        self.meters()
        self.registers()
        self.field_lists()         # read last by the loader, but primitives refer to them
        self.learn_lists()
        self.actions()
        self.pipelines()
        self.control_graphs()
        self.checksums()
        self.force_arith()
        self.required_fields()
        self.required_blocks()
        self.runtime_cli_keys()
        self.stf_runner_shape()
        self.field_list_uses()
        return self.problems


def check_bmv2_json(doc) -> list[Problem]:
    """Every loader rule the document breaks (empty: real simple_switch would load it)."""
    return Bmv2JsonChecker(doc).run()


def assert_loadable(doc) -> None:
    problems = check_bmv2_json(doc)
    if problems:
        raise Bmv2JsonError(problems)


__all__ = ["Bmv2JsonChecker", "Bmv2JsonError", "Problem", "assert_loadable", "check_bmv2_json"]
