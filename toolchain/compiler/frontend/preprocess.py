"""The C preprocessor, run the way p4c runs it (`cc -E -undef -nostdinc -x assembler-with-cpp`).

p4c hands every program to the system C preprocessor: `#include`, `#define`, `#ifdef` in P4
programs mean exactly what they mean in C. We do the same with `cpp` (installable with
`apt-get install cpp`) when it is on PATH, and otherwise fall back to the built-in
`minicpp` (the subset of C preprocessing P4 programs use), keeping the line markers
(`# 12 "file.p4"`) so that the lexer reports positions in the file the text came from. `-x assembler-with-cpp` keeps cpp from complaining
about apostrophes in comments and P4 tokens C does not know.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from ..diagnostics import CompileError, Diagnostic, Pos
from .minicpp import MAX_PREPROCESSED_BYTES, preprocess_builtin, too_large_message

# cpp does not stop a macro that expands to more than memory holds (thirteen #define lines
# can ask for terabytes): its output is read as it comes and cut at MAX_PREPROCESSED_BYTES,
# the same bound minicpp keeps, and cpp is given CPP_TIMEOUT seconds
CPP_TIMEOUT = 120
_READ_CHUNK = 1 << 16

# the project's core.p4 and v1model.p4, searched after the caller's include directories
P4INCLUDE = Path(__file__).resolve().parent.parent / "p4include"
CPP_FLAGS = ["-E", "-undef", "-nostdinc", "-x", "assembler-with-cpp"]


def find_cpp():
    """The system preprocessor to run, or None to use the built-in one (`minicpp`).
    RDTCP_CPP names a program to use instead, or `builtin` to force the built-in one."""
    choice = os.environ.get("RDTCP_CPP")
    if choice == "builtin":
        return None
    if choice:
        if not shutil.which(choice):
            raise CompileError.at(None, f"RDTCP_CPP={choice}: no such program")
        return choice
    for name in ("cpp", "gcc", "cc", "clang"):
        if shutil.which(name):
            return name
    return None


def cpp_command(path: str, include_dirs, defines) -> list:
    cmd = [find_cpp() or "cpp"] + CPP_FLAGS     # gcc/cc/clang accept -E the same way as cpp
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
    if find_cpp() is None:
        return preprocess_builtin(path, include_dirs=include_dirs, defines=defines)
    cmd = cpp_command(path, include_dirs, defines)
    returncode, out, stderr = _run_cpp(cmd, path)
    if returncode != 0:
        raise CompileError(_cpp_diagnostics(stderr, path))
    nul = _cpp_nul_warning(stderr)
    if nul is not None:
        raise CompileError.at(nul, "a NUL byte: a P4 program is text (is this a binary file?)")
    # bytes that are not UTF-8 become lone surrogates, which the lexer reports where they are
    return out.decode("utf-8", errors="surrogateescape")


def _run_cpp(cmd: list, path: str):
    """(exit status, output, stderr text) of cpp, its output read as it comes: past
    MAX_PREPROCESSED_BYTES or CPP_TIMEOUT seconds cpp is stopped, with an error naming the
    source line its output had reached."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err)
        timed_out = threading.Event()

        def stop():
            timed_out.set()
            proc.kill()
        timer = threading.Timer(CPP_TIMEOUT, stop)
        timer.start()
        out = bytearray()
        try:
            while len(out) <= MAX_PREPROCESSED_BYTES:
                chunk = proc.stdout.read1(_READ_CHUNK)
                if not chunk:
                    break
                out += chunk
            else:
                raise CompileError.at(_output_pos(out, path), too_large_message())
            proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        if timed_out.is_set():
            raise CompileError.at(_output_pos(out, path), f"preprocessor: {cmd[0]} ran past "
                                                          f"{CPP_TIMEOUT} s")
        err.seek(0)
        return proc.returncode, bytes(out), err.read().decode("utf-8", errors="replace")


_MARKER = re.compile(rb'^# (\d+) "((?:[^"\\]|\\.)*)"', re.M)


def _output_pos(out: bytearray, path: str) -> Pos:
    """The source line cpp's output had reached: its last line marker, plus the lines since."""
    last = None
    for last in _MARKER.finditer(out):
        pass
    if last is None:
        return Pos(path, 1, 1)
    line = int(last.group(1)) + out.count(b"\n", last.end()) - 1
    return Pos(last.group(2).decode("utf-8", errors="replace"), max(line, 1), 1)


def _cpp_nul_warning(stderr: str):
    """Where cpp found a NUL byte: it drops them with only a warning, and what is left of a
    binary file would read as a stream of unexpected characters."""
    for line in stderr.splitlines():
        parts = line.split(":", 4)
        if (len(parts) == 5 and parts[1].strip().isdigit() and parts[2].strip().isdigit()
                and "null character" in parts[4]):
            return Pos(parts[0], int(parts[1]), int(parts[2]))
    return None


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


class Preprocess:
    """Pass: the file at `ctx.path` -> `ctx.text`, with the caller's include directories and
    then P4INCLUDE searched."""
    name = "Preprocess"

    def run(self, ctx) -> None:
        ctx.text = preprocess(ctx.path, include_dirs=list(ctx.include_dirs) + [str(P4INCLUDE)],
                              defines=ctx.defines)
