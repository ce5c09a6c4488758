"""Back end: the lowered program (midend.ir) -> BMv2 JSON, split by what it converts.

headers.py (header types, instances, stacks, errors, enums), parser.py, deparser.py,
actions.py (primitives), controls.py (pipelines: tables, conditionals), externs.py (register,
counter, meter arrays, calculations, field lists), checksums.py, and program.py, which
assembles the document in the key order p4c writes (JSON_format.md, format version 2.23).

bmv2_schema/ checks a document against the rules of BMv2's real loader
(P4Objects::init_objects) and of simple_switch: `check_bmv2_json(doc)`, or
`python -m toolchain.compiler.backend.bmv2_schema prog.json`. Every JSON the test-suite
compiles passes it (tests/toolchain/compiler/test_bmv2_loader_rules*.py).
"""
from .program import emit_program, BMV2_JSON_VERSION

__all__ = ["emit_program", "BMV2_JSON_VERSION"]
