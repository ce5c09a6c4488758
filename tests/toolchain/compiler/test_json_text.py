"""The JSON text the compiler writes (toolchain/compiler/backend/json_text.py): json.dumps's
indented bytes, made without recursion, on one line past INDENTED_DEPTH."""
from __future__ import annotations

import json

import pytest

from toolchain.compiler.backend.json_text import INDENTED_DEPTH, to_json_text
from toolchain.compiler.deep import run_deep

from .conftest import PROGRAMS, compile_cached


@pytest.mark.parametrize("name", ["tables", "parser_features", "header_unions", "externs"])
def test_compiled_programs_are_written_as_json_dumps_writes_them(name):
    doc = compile_cached(PROGRAMS / f"{name}.p4")
    assert to_json_text(doc) == json.dumps(doc, indent=2)


def test_p4c_made_documents_are_written_as_json_dumps_writes_them(kit_dir):
    for path in sorted(kit_dir.glob("*.json")):
        doc = json.loads(path.read_text())
        assert to_json_text(doc) == json.dumps(doc, indent=2), path.name


@pytest.mark.parametrize("value", [
    {}, [], {"a": {}}, [[]], "s", 5, -3, 2.5, None, True, False,
    {"x": [1, 2.5, None, True, False, "caf\u00e9\n\"\\", -3, float("inf")]},
    {"k": {"deeper": [{"x": 1}, [2, [3]]]}},
])
def test_values_of_every_kind_are_written_as_json_dumps_writes_them(value):
    assert to_json_text(value) == json.dumps(value, indent=2)


def test_past_the_indented_depth_values_are_on_one_line():
    doc = {"e": 1}
    for _ in range(INDENTED_DEPTH + 20):
        doc = {"e": doc, "f": [1, 2]}
    text = to_json_text(doc)
    lines = text.splitlines()
    assert max(len(line) - len(line.lstrip()) for line in lines) == 2 * INDENTED_DEPTH
    assert len(lines) < len(json.dumps(doc, indent=2).splitlines())
    assert '{"e": {"e": {"e": 1}, "f": [1, 2]}, "f": [1, 2]}' in text
    assert run_deep(json.loads, text) == doc


def test_a_hundred_thousand_levels_are_written_without_recursion():
    doc: list = []
    for _ in range(100_000):
        doc = [doc]
    text = to_json_text(doc)          # on the caller's thread, with its recursion limit
    compact = 100_001 - INDENTED_DEPTH                 # the lists nested past the depth
    assert "[" * compact + "]" * compact + "\n" + "  " * (INDENTED_DEPTH - 1) + "]" in text
    assert text.count("\n") == 2 * INDENTED_DEPTH
    assert run_deep(lambda: json.loads(text) == doc)
