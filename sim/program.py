"""The gateway program for simulated switches: p4src/rdtcp.p4 compiled to BMv2 JSON, cached.

The JSON is cached in ``build/rdtcp.json`` with the SHA-256 of every ``p4src`` source and of the
compiler's own code beside it (``build/rdtcp.json.sha256``); a changed source or a changed
compiler recompiles. ``RDTCP_PROGRAM=/path/x.json`` uses
a JSON from elsewhere (e.g. real ``p4c-bm2-ss`` output) instead.

The front end needs Python 3.10 or later; the simulator also runs on PyPy 3.9 (Debian's
``pypy3``), which recompiles a stale cache by running the front end under ``python3``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from toolchain.switch.bm_sim.json_loader import parse_json_text

__all__ = ["REPO_ROOT", "gateway_json", "sources_digest"]

REPO_ROOT = Path(__file__).resolve().parents[1]


def sources_digest(p4src: Path, compiler: Path | None = None) -> str:
    """SHA-256 over the relative names and contents of every .p4 file under ``p4src`` and, when
    given, every .py and .p4 file of the compiler (its output depends on both)."""
    h = hashlib.sha256()
    trees = [(p4src, ("*.p4",))] + ([(compiler, ("*.py", "*.p4"))] if compiler else [])
    for root, patterns in trees:
        for path in sorted(p for pattern in patterns for p in root.rglob(pattern)):
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def gateway_json(root: Path = REPO_ROOT) -> dict:
    """The BMv2 JSON of the RD-TCP gateway, compiled with the project's front end if stale."""
    override = os.environ.get("RDTCP_PROGRAM")
    if override:
        return _read(Path(override))
    source = root / "p4src" / "rdtcp.p4"
    if not source.exists():
        raise FileNotFoundError(f"{source}: the gateway program is missing")
    out = root / "build" / "rdtcp.json"
    stamp = out.with_suffix(".json.sha256")
    digest = sources_digest(root / "p4src", REPO_ROOT / "toolchain" / "compiler")
    if out.exists() and stamp.exists() and stamp.read_text().strip() == digest:
        return _read(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".json.{os.getpid()}.tmp")    # processes compiling at once (xdist)
    if FRONT_END_IN_PROCESS:
        # deferred on purpose: the front end needs Python 3.10+, and PyPy 3.9 workers, which
        # import this module, compile through another interpreter (_compile_elsewhere)
        from toolchain.compiler import compile_file
        from toolchain.compiler.backend.json_text import to_json_text
        program = compile_file(str(source))
        # written without recursion, as rdtcp-p4c writes it: json.dumps recurses once per
        # level and a long operator chain nests thousands deep (the switch then refuses it)
        tmp.write_text(to_json_text(program) + "\n")
    else:
        program = _compile_elsewhere(source, tmp)
    tmp.replace(out)
    stamp.write_text(digest + "\n")
    return program


def _read(path: Path) -> dict:
    """A BMv2 JSON file read as the switch reads it: a document nested deeper than BMv2 reads
    is a one-line LoadError naming where, not a RecursionError of Python's JSON reader."""
    return parse_json_text(path.read_text(), str(path))


# the front end's dataclasses use slots=True (3.10+); PyPy 3.9 runs the simulator only
FRONT_END_IN_PROCESS = sys.version_info >= (3, 10)


def _compile_elsewhere(source: Path, out: Path) -> dict:
    """Compile ``source`` to ``out`` with the front end's CLI under a Python 3.10+ found on PATH
    (``RDTCP_COMPILER_PYTHON``, else python3), and return the program."""
    wanted = os.environ.get("RDTCP_COMPILER_PYTHON", "python3")
    python = shutil.which(wanted)
    why = (f"{wanted} is not on PATH" if python is None else None)
    if python is not None:
        proc = subprocess.run([python, "-m", "toolchain.compiler.driver", str(source), "-o",
                               str(out)], cwd=REPO_ROOT, capture_output=True, text=True)
        if proc.returncode == 0:
            return _read(out)
        why = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
    raise RuntimeError(f"{source}: build/rdtcp.json is stale and this interpreter "
                       f"({sys.implementation.name} {sys.version_info.major}."
                       f"{sys.version_info.minor}) cannot run the P4 front end, which needs "
                       f"Python 3.10+; compiling with {wanted} failed: {why}. Run `make build` "
                       f"(or set RDTCP_COMPILER_PYTHON to a Python 3.10+)")
