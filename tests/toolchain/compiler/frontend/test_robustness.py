"""Bad input never crashes the front end: token-level mutations of real programs either check
or fail with CompileError (file:line:col messages), never with another exception."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from toolchain.compiler.diagnostics import CompileError, Diagnostics
from toolchain.compiler.frontend import check_program
from toolchain.compiler.frontend.lexer import tokenize
from toolchain.compiler.frontend.parser import parse_text
from toolchain.compiler.frontend.preprocess import preprocess
from toolchain.compiler.frontend import P4INCLUDE

HERE = Path(__file__).resolve().parent
REPLACEMENTS = ["0", "8w300", "(", ")", "{", "}", ";", "x", "bit", "<", ">", "?", ":", "..",
                "&&&", "_", "default", "apply", "header", "-1", "1 << 200", "@", "\"s\"",
                "state", "transition", "select", ".", ",", "=", "==", "[", "]", "0x", "int"]


@pytest.fixture(scope="module")
def sources():
    out = []
    for path in sorted((HERE / "programs").glob("*.p4")):
        text = preprocess(str(path), include_dirs=[str(P4INCLUDE)])
        toks = tokenize(text, "x.p4", Diagnostics(), recover_columns=False)[:-1]
        out.append([t.text for t in toks])
    return out


def mutate(rng: random.Random, words: list) -> str:
    words = list(words)
    for _ in range(rng.randrange(1, 4)):
        k = rng.randrange(len(words) // 2, len(words))     # the user program, not the includes
        op = rng.randrange(4)
        if op == 0:
            del words[k]
        elif op == 1:
            words.insert(k, words[rng.randrange(len(words))])
        elif op == 2:
            j = rng.randrange(len(words))
            words[k], words[j] = words[j], words[k]
        else:
            words[k] = rng.choice(REPLACEMENTS)
    return " ".join(words)


@pytest.mark.parametrize("seed", range(4))
def test_mutated_programs_fail_only_with_compile_errors(sources, seed):
    rng = random.Random(seed)
    for _ in range(100):
        text = mutate(rng, rng.choice(sources))
        diags = Diagnostics()
        try:
            program = parse_text(text, "m.p4", diags, recover_columns=False)
            check_program(program, diags)
        except CompileError as e:
            assert e.errors and all(d.pos is not None for d in e.errors), str(e)


def test_error_flood_stops_after_max_errors():
    body = "\n".join(f"const bit<8> c{i} = undefined_{i};" for i in range(50))
    diags = Diagnostics(max_errors=5)
    with pytest.raises(CompileError) as e:
        program = parse_text(body, "m.p4", diags, recover_columns=False)
        check_program(program, diags, require_main=False)
    assert len(e.value.errors) == 5
    assert str(e.value).endswith("note: too many errors, stopping")


def test_deep_nesting_is_checked_or_reported_never_a_crash():
    from toolchain.compiler.frontend import check_source
    program, _ = check_source("const bit<8> x = " + "(" * 2000 + "1" + ")" * 2000 + ";")
    assert program.decls[0].folded == 1
    program, _ = check_source("const bit<8> y = " + "1 + " * 3000 + "1;")
    assert program.decls[0].folded == 3001 % 256
    with pytest.raises(CompileError) as e:
        check_source("const bit<8> z = " + "(" * 50000 + "1" + ")" * 50000 + ";")
    # reported at the parenthesis past the limit (column 18 is the first of them)
    assert str(e.value) == ("test.p4:1:10018: error: nested too deeply: more than 10000 "
                            "levels of expressions, statements or types inside each other")


@pytest.mark.parametrize("text,message", [
    ("const int X = 1 << 99999999999;",
     "test.p4:1:17: error: shift of a compile-time integer by 99999999999 bits is too large"),
    ("header h { bit<99999999999> f; }",
     "test.p4:1:12: error: width 99999999999 of bit<> is too large (at most 65536)"),
    ("header h { bit<8> f; } struct s { h[99999999] hs; }",
     "test.p4:1:35: error: header stack size 99999999 is too large (at most 4096)"),
])
def test_huge_constants_are_errors_not_memory_exhaustion(text, message):
    from toolchain.compiler.frontend import check_source
    with pytest.raises(CompileError) as e:
        check_source(text)
    assert str(e.value) == message
