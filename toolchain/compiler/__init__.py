"""P4_16 compiler for v1model programs -> BMv2 JSON (p4c's frontend / midend / backend split).

    from toolchain.compiler import compile_file, CompileError
    doc = compile_file("prog.p4", include_dirs=["p4src/include"], defines={"N": "1"})

`compile_file` returns the BMv2 JSON document as a dict (format version 2.23, names as p4c
gives them); it raises `CompileError` whose str() is the compiler output, one
`file:line:col: error: message` per line. The command line is `driver.py`.
"""
from .diagnostics import CompileError

__all__ = ["compile_file", "CompileError"]


def compile_file(path, include_dirs=(), defines=None) -> dict:
    from .driver import compile_program
    return compile_program(path, include_dirs=include_dirs, defines=defines)
