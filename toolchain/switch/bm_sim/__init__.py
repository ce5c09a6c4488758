"""BMv2's bm_sim, re-done in Python: JSON loading, PHV layout and code generation.

Data (phv layout) is separate from behaviour (parser, deparser, expressions, actions,
pipelines, tables, checksums, externs), as in behavioral-model's ``src/bm_sim``.
"""
