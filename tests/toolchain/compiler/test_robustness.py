"""Malformed programs get compiler errors, never a crash: line deletions, duplications and
swaps of the toolchain's own programs and the kit's must end in CompileError or success."""
from __future__ import annotations

import random

import pytest

from toolchain.compiler import CompileError, compile_file
from .conftest import KIT, PROGRAMS

MUTATIONS = 40


def _sources():
    srcs = sorted(PROGRAMS.glob("*.p4"))
    srcs += sorted(p for p in KIT.glob("*.p4") if p.name != "common.p4")
    return srcs


def _mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    mode = rng.choice(["delete", "duplicate", "swap"])
    if mode == "delete":
        del lines[k]
    elif mode == "duplicate":
        lines.insert(k, lines[k])
    else:
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(MUTATIONS))
def test_mutated_program_fails_cleanly_or_compiles(seed, tmp_path):
    rng = random.Random(seed)
    src = rng.choice(_sources())
    path = tmp_path / src.name
    path.write_text(_mutate(src.read_text(), rng))
    try:
        doc = compile_file(path, include_dirs=[src.parent])
    except CompileError as e:
        assert ": error: " in str(e)
    else:
        assert doc["__meta__"]["version"] == [2, 23]
