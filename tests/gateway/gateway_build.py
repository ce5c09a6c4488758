"""Building the gateway program for the tests (a module with its own name, so test files can
import it: two `conftest` modules in one session shadow each other)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def compile_gateway(**defines) -> dict:
    from toolchain.compiler import compile_file
    return compile_file(str(ROOT / "p4src" / "rdtcp.p4"),
                        defines={k: str(v) for k, v in defines.items()})


def register_size(program_json: dict, name: str) -> int:
    for r in program_json["register_arrays"]:
        if r["name"] == name:
            return r["size"]
    raise KeyError(name)
