"""The gateway program for simulated switches: p4src/rdtcp.p4 compiled to BMv2 JSON, cached.

The JSON is cached in ``build/rdtcp.json`` with the SHA-256 of every ``p4src`` source and of the
compiler's own code beside it (``build/rdtcp.json.sha256``); a changed source or a changed
compiler recompiles. ``RDTCP_PROGRAM=/path/x.json`` uses
a JSON from elsewhere (e.g. real ``p4c-bm2-ss`` output) instead.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

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
        return json.loads(Path(override).read_text())
    source = root / "p4src" / "rdtcp.p4"
    if not source.exists():
        raise FileNotFoundError(f"{source}: the gateway program is missing")
    out = root / "build" / "rdtcp.json"
    stamp = out.with_suffix(".json.sha256")
    digest = sources_digest(root / "p4src", REPO_ROOT / "toolchain" / "compiler")
    if out.exists() and stamp.exists() and stamp.read_text().strip() == digest:
        return json.loads(out.read_text())
    from toolchain.compiler import compile_file
    program = compile_file(str(source))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(program))
    tmp.replace(out)
    stamp.write_text(digest + "\n")
    return program
