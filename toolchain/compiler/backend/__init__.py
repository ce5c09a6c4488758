"""Back end: the lowered program (midend.ir) -> BMv2 JSON, split by what it converts.

headers.py (header types, instances, stacks, errors, enums), parser.py, deparser.py,
actions.py (primitives), controls.py (pipelines: tables, conditionals), externs.py (register,
counter, meter arrays, calculations, field lists), checksums.py, and program.py, which
assembles the document in the key order p4c writes (JSON_format.md, format version 2.23).
"""
from .program import emit_program, BMV2_JSON_VERSION

__all__ = ["emit_program", "BMV2_JSON_VERSION"]
