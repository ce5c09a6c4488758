"""Preprocessing: the system cpp as p4c runs it, and the built-in fallback (`minicpp`) for
machines without one, which must give the same tokens at the same positions."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolchain.compiler.diagnostics import CompileError, Diagnostics
from toolchain.compiler.frontend import P4INCLUDE, parse_and_check
from toolchain.compiler.frontend.lexer import tokenize
from toolchain.compiler.frontend.minicpp import preprocess_builtin
from toolchain.compiler.frontend.preprocess import preprocess

from .conftest import KIT, REPO

HAS_CPP = shutil.which("cpp") is not None


def tokens(text: str, *, columns: bool = True):
    out = []
    for t in tokenize(text, "x.p4", Diagnostics())[:-1]:
        where = (Path(t.pos.file).name, t.pos.line) + ((t.pos.col,) if columns else ())
        out.append((t.text,) + where)
    return out


def both(path, **kw):
    kw.setdefault("include_dirs", [str(P4INCLUDE)])
    return preprocess(str(path), **kw), preprocess_builtin(str(path), **kw)


MACROS = r"""
#define WIDTH 16
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define FIELD(n) bit<WIDTH> f_ ## n;
#define NAME(x) #x
#define EMPTY
#if defined(WIDTH) && WIDTH > 8 || 0
const bit<WIDTH> big = MAX(3, 4);
#elif 1
const bit<8> never = 1;
#else
const bit<8> never2 = 1;
#endif
#ifndef UNDEFINED_THING
header h_t { FIELD(a) FIELD(b) }
#endif
#if (1 << 4) == 16 && !defined UNDEFINED_THING
@name(NAME(ingress.t)) EMPTY struct s_t { bit<8> x; }
#endif
#undef WIDTH
#ifdef WIDTH
const bit<8> gone = 1;
#endif
/* a block comment
   spanning lines */ const bit<8> after_comment = 2; // trailing
#define MULTI 1 + \
    2
const bit<8> spliced = MULTI;
"""


@pytest.mark.skipif(not HAS_CPP, reason="no system cpp to compare with")
def test_builtin_preprocessor_matches_cpp_on_macros(tmp_path):
    src = tmp_path / "m.p4"
    src.write_text(MACROS)
    a, b = both(src)
    # cpp re-spaces expanded lines, so compare token texts and lines; columns separately below
    assert tokens(a, columns=False) == tokens(b, columns=False)


def test_builtin_preprocessor_output_checks(tmp_path):
    src = tmp_path / "m.p4"
    src.write_text(MACROS)
    text = preprocess_builtin(str(src), include_dirs=[str(P4INCLUDE)])
    names = [t[0] for t in tokens(text)]
    assert "big" in names and "never" not in names and "never2" not in names
    assert "gone" not in names and "f_a" in names and '"ingress.t"' in names
    assert names[names.index("spliced") + 2:names.index("spliced") + 5] == ["1", "+", "2"]


@pytest.mark.skipif(not HAS_CPP, reason="no system cpp to compare with")
@pytest.mark.parametrize("path", sorted(KIT.glob("*.p4")) + [REPO / "p4src" / "rdtcp.p4"],
                         ids=lambda p: p.stem)
def test_builtin_preprocessor_gives_the_same_tokens_and_positions_as_cpp(path):
    if not path.exists():
        pytest.skip(f"{path} not present")
    a, b = both(path, include_dirs=[str(REPO / "p4src" / "include"), str(P4INCLUDE)])
    assert tokens(a) == tokens(b)


def test_builtin_preprocessor_is_used_without_cpp(tmp_path, monkeypatch):
    monkeypatch.setenv("RDTCP_CPP", "builtin")
    src = tmp_path / "p.p4"
    src.write_text("#include <core.p4>\n#include <v1model.p4>\nconst bit<8> X = N;\n")
    program, _ = parse_and_check(src, defines={"N": "3"}, require_main=False)
    assert program.scope["X"].folded == 3


@pytest.mark.parametrize("text,message", [
    ('#include "nope.p4"\n', "m.p4:1:1: error: preprocessor: nope.p4: No such file or directory"),
    ("#if 1\nconst bit<8> x = 1;\n", "m.p4:3:1: error: preprocessor: unterminated #if"),
    ("#endif\n", "m.p4:1:1: error: preprocessor: #endif without #if"),
    ("#error stop here\n", "m.p4:1:1: error: preprocessor: #error stop here"),
    ("#frobnicate\n", "m.p4:1:1: error: preprocessor: invalid preprocessing directive "
                      "#frobnicate"),
    ("#define F(a) a\nF(1, 2)\n", "m.p4:2:1: error: preprocessor: macro F takes 1 arguments, "
                                  "2 given"),
    ("#if 1 +\n#endif\n", "m.p4:1:1: error: preprocessor: bad #if expression '1 +': missing "
                          "operand"),
])
def test_builtin_preprocessor_errors(tmp_path, monkeypatch, text, message):
    src = tmp_path / "m.p4"
    src.write_text(text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CompileError) as e:
        preprocess_builtin("m.p4")
    assert str(e.value) == message


def test_system_cpp_error_is_a_compile_error_with_position(tmp_path):
    if not HAS_CPP:
        pytest.skip("no system cpp")
    src = tmp_path / "m.p4"
    src.write_text("\n#error stop\n")
    with pytest.raises(CompileError) as e:
        preprocess(str(src))
    (d,) = e.value.errors
    assert d.pos.line == 2 and "stop" in d.message


@pytest.mark.parametrize("cpp", ["system", "builtin"])
def test_byte_order_mark_and_dos_line_ends_are_accepted(tmp_path, monkeypatch, cpp):
    if cpp == "builtin":
        monkeypatch.setenv("RDTCP_CPP", "builtin")
    elif not HAS_CPP:
        pytest.skip("no system cpp")
    src = tmp_path / "crlf.p4"
    src.write_bytes(b"\xef\xbb\xbf#include <core.p4>\r\nconst bit<8> X = 1; \\\r\n\r\n"
                    b"const bit<8> Y = X + 1;\r\n")
    program, _ = parse_and_check(src, require_main=False)
    assert program.scope["Y"].folded == 2 and program.scope["Y"].pos.line == 4


# Thirteen lines whose expansion is 10^12 tokens: each macro names the one before ten times.
NESTED = "".join(f"#define M{i} " + " ".join([f"M{i - 1}" if i else "ab"] * 10) + "\n"
                 for i in range(12)) + "M11\n"
# ... and one whose tokens are long: past the output bound after few copies.
WIDE = ("#define W0 " + "x" * 4000 + "\n" + "".join(
    f"#define W{i} " + " ".join([f"W{i - 1}"] * 10) + "\n" for i in range(1, 6)) + "W5\n")


@pytest.mark.parametrize("text,what", [(NESTED, "macro expansion too large"),
                                       (WIDE, "the preprocessed program exceeds 8 MiB")])
@pytest.mark.parametrize("cpp", ["system", "builtin"])
def test_macro_expansion_is_bounded_with_the_line(tmp_path, monkeypatch, cpp, text, what):
    if cpp == "builtin":
        monkeypatch.setenv("RDTCP_CPP", "builtin")
    elif not HAS_CPP:
        pytest.skip("no system cpp")
    src = tmp_path / "bomb.p4"
    src.write_text(text)
    with pytest.raises(CompileError) as e:
        preprocess(str(src))
    (d,) = e.value.errors
    assert (Path(d.pos.file).name, d.pos.line) == ("bomb.p4", text.count("\n"))
    if cpp == "builtin":
        assert d.message.startswith("preprocessor: " + what)
    else:       # cpp expands as it writes: only its output is there to bound
        assert d.message.startswith("preprocessor: the preprocessed program exceeds 8 MiB")


def test_nesting_deeper_than_the_bound_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("RDTCP_CPP", "builtin")
    src = tmp_path / "deep.p4"
    src.write_text("".join(f"#define D{i} D{i + 1}\n" for i in range(300)) + "D0\n")
    with pytest.raises(CompileError) as e:
        preprocess(str(src))
    assert str(e.value) == (f"{src}:301:1: error: preprocessor: macro expansion nested more "
                            f"than 200 levels deep")
