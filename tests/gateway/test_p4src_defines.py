"""A number both gateway programs use (p4src/rdtcp.p4 for v1model, p4src/tna/rdtcp_tna.p4 for
Tofino) is #defined once, in the include files they share, so the two cannot drift apart: a
second definition of a number is only ever an override of a default the shared files leave open
(`#ifndef MAX_PORTS` in headers.p4, which the TNA program sets to 512 before including it)."""

from __future__ import annotations

import re
from pathlib import Path

P4SRC = Path(__file__).resolve().parent.parent.parent / "p4src"
DEFINE = re.compile(r"^[ \t]*#define[ \t]+(\w+)[ \t]+(\S+)", re.M)
NUMBER = re.compile(r"\d+|0x[0-9a-fA-F]+")


def numeric_defines(files: dict[str, str]) -> dict[str, list[str]]:
    """Each macro defined as a number, with the ``file:line`` of every definition not guarded by
    an ``#ifndef`` of its own name on the line before (a default a program may override)."""
    found: dict[str, list[str]] = {}
    for name, text in files.items():
        for match in DEFINE.finditer(text):
            macro, value = match.groups()
            if not NUMBER.fullmatch(value):
                continue
            before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            if re.fullmatch(rf"[ \t]*#ifndef[ \t]+{macro}[ \t]*", before):
                continue
            line = text.count("\n", 0, match.start()) + 1
            found.setdefault(macro, []).append(f"{name}:{line}")
    return found


def defined_twice(files: dict[str, str]) -> dict[str, list[str]]:
    return {macro: where for macro, where in numeric_defines(files).items() if len(where) > 1}


def sources() -> dict[str, str]:
    return {str(path.relative_to(P4SRC)): path.read_text(encoding="utf-8")
            for path in sorted(P4SRC.rglob("*.p4"))}


def test_every_number_is_defined_once():
    twice = defined_twice(sources())
    assert not twice, "numbers #defined more than once: " + "; ".join(
        f"{macro} at {', '.join(where)}" for macro, where in sorted(twice.items()))


def test_the_edge_source_table_size_is_the_shared_one():
    where = numeric_defines(sources())["EDGE_SOURCE_ENTRIES"]
    assert len(where) == 1 and where[0].startswith("include/headers.p4:")
    tna = (P4SRC / "tna" / "rdtcp_tna.p4").read_text(encoding="utf-8")
    trust = (P4SRC / "include" / "trust.p4").read_text(encoding="utf-8")
    assert '#include "../include/headers.p4"' in tna
    assert "size = EDGE_SOURCE_ENTRIES;" in tna and "size = EDGE_SOURCE_ENTRIES;" in trust


def test_the_check_sees_a_copy_and_lets_an_override_be():
    shared = "#ifndef MAX_PORTS\n#define MAX_PORTS 64\n#endif\n#define ENTRIES 1024 /* x */\n"
    assert defined_twice({"a.p4": shared, "b.p4": "#define MAX_PORTS 512\n"}) == {}
    assert defined_twice({"a.p4": shared, "b.p4": "  #define ENTRIES 1024\n"}) == {
        "ENTRIES": ["a.p4:4", "b.p4:1"]}
    assert defined_twice({"a.p4": "#define HOOK x\n", "b.p4": "#define HOOK y\n"}) == {}
