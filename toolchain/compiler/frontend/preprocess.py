"""The C preprocessor, run the way p4c runs it (`cc -E -undef -nostdinc -x assembler-with-cpp`).

p4c hands every program to the system C preprocessor: `#include`, `#define`, `#ifdef` in P4
programs mean exactly what they mean in C. We do the same with `cpp` (installable with
`apt-get install cpp`), keeping the line markers (`# 12 "file.p4"`) so that the lexer reports
positions in the file the text came from. `-x assembler-with-cpp` keeps cpp from complaining
about apostrophes in comments and P4 tokens C does not know.
"""
from __future__ import annotations

import os
import shutil
import subprocess

from ..diagnostics import CompileError, Diagnostic, Pos

CPP_FLAGS = ["-E", "-undef", "-nostdinc", "-x", "assembler-with-cpp"]


def find_cpp() -> str:
    for name in (os.environ.get("RDTCP_CPP"), "cpp", "gcc", "cc", "clang"):
        if name and shutil.which(name):
            return name
    raise CompileError.at(None, "no C preprocessor found (install cpp: apt-get install cpp, "
                                "or set RDTCP_CPP)")


def cpp_command(path: str, include_dirs, defines) -> list:
    cmd = [find_cpp()] + CPP_FLAGS          # gcc/cc/clang accept -E the same way as cpp
    for d in include_dirs:
        cmd.append(f"-I{d}")
    for name, value in (defines or {}).items():
        cmd.append(f"-D{name}" if value is None else f"-D{name}={value}")
    cmd.append(path)
    return cmd


def preprocess(path: str, *, include_dirs=(), defines=None) -> str:
    """Return the preprocessed text with line markers; errors become CompileError."""
    if not os.path.isfile(path):
        raise CompileError.at(None, f"{path}: no such file")
    cmd = cpp_command(path, include_dirs, defines)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError(_cpp_diagnostics(proc.stderr, path))
    return proc.stdout


def _cpp_diagnostics(stderr: str, path: str) -> list:
    """cpp prints `file:line:col: error: msg` already; keep those lines as diagnostics."""
    out = []
    for line in stderr.splitlines():
        parts = line.split(":", 4)
        if len(parts) == 5 and parts[1].strip().isdigit() and parts[3].strip() in ("error", "fatal error"):
            col = int(parts[2]) if parts[2].strip().isdigit() else 1
            out.append(Diagnostic("error", Pos(parts[0], int(parts[1]), col),
                                  "preprocessor: " + parts[4].strip()))
    if not out:
        out.append(Diagnostic("error", Pos(path, 1, 1), "preprocessor failed: " + stderr.strip()))
    return out
