"""Deep programs (toolchain/compiler/deep.py): nesting up to MAX_DEPTH compiles, on a thread
with room for it, and means what it says; past it, or where Python's recursion still runs
out, the error names the place."""
from __future__ import annotations

import sys

import pytest

from toolchain.compiler import CompileError, compile_file
from toolchain.compiler.deep import MAX_DEPTH, RECURSION_LIMIT, run_deep
from toolchain.compiler.diagnostics import Pos

from .bmv2_eval import evaluate
from .test_driver import v1model


def compile_text(tmp_path, body: str) -> dict:
    src = tmp_path / "deep.p4"
    src.write_text(v1model(body))
    return compile_file(src)


def assignment_value(doc: dict) -> dict:
    """The right-hand side of the one assignment to hdr.h.a in the ingress."""
    for action in doc["actions"]:
        for prim in action["primitives"]:
            if prim["op"] == "assign" and prim["parameters"][0]["value"] == ["h", "a"]:
                return prim["parameters"][1]
    raise AssertionError("no assignment to hdr.h.a")


def test_a_3000_term_sum_compiles_to_the_sum_it_means(tmp_path):
    doc = compile_text(tmp_path, "hdr.h.a = " + " + ".join(["hdr.h.b"] * 3000) + ";")
    value = run_deep(evaluate, assignment_value(doc), {("h", "b"): 0x01234567})
    assert value == (3000 * 0x01234567) & 0xFFFFFFFF


@pytest.mark.parametrize("shape,body", [
    ("operator chain", "hdr.h.a = " + " + ".join(["hdr.h.b"] * (MAX_DEPTH - 100)) + ";"),
    ("parentheses", "hdr.h.a = " + "(" * (MAX_DEPTH - 100) + "hdr.h.b" + ")" * (MAX_DEPTH - 100)
     + ";"),
    ("prefix operators", "hdr.h.a = " + "~" * (MAX_DEPTH - 100) + "hdr.h.b;"),
    ("if statements", "if (hdr.h.b == 1) {" * (MAX_DEPTH // 2 - 100) + "hdr.h.a = 1;"
     + "}" * (MAX_DEPTH // 2 - 100)),
])
def test_nesting_just_under_the_limit_compiles(tmp_path, shape, body):
    assert compile_text(tmp_path, body)["actions"], shape


def test_run_deep_returns_raises_and_restores_the_recursion_limit():
    limit = sys.getrecursionlimit()
    assert run_deep(lambda x: x + 1, 1) == 2
    with pytest.raises(KeyError):
        run_deep(lambda: {}["missing"])
    assert sys.getrecursionlimit() == limit
    # inside, the limit is raised (never lowered, whatever another module set it to) and a
    # nested call runs in place
    assert run_deep(lambda: run_deep(sys.getrecursionlimit)) == max(limit, RECURSION_LIMIT)


def test_without_a_deep_thread_the_compilation_runs_in_place(monkeypatch):
    import threading
    def refuse(size=None):
        raise ValueError("size not valid")
    monkeypatch.setattr(threading, "stack_size", refuse)
    assert run_deep(lambda: threading.current_thread()) is threading.current_thread()
    assert run_deep(sys.getrecursionlimit) >= 10_000


class _Node:
    def __init__(self, pos: Pos):
        self.pos = pos


def test_recursion_error_is_an_error_at_the_innermost_position():
    def descend(node: _Node, depth: int):
        child = _Node(Pos("deep.p4", depth + 1, 7))
        return descend(child, depth + 1)         # runs out of recursion, as a bug would

    with pytest.raises(CompileError) as e:
        run_deep(descend, _Node(Pos("deep.p4", 1, 7)), 1)
    (d,) = e.value.errors
    assert d.pos.file == "deep.p4" and d.pos.line > 1000 and d.pos.col == 7
    assert d.message.startswith("nested too deeply")
