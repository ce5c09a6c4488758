"""Lexer: P4_16 tokens (spec 6.3), integer literals with width/sign prefixes, positions."""
from __future__ import annotations

import pytest

from toolchain.compiler.diagnostics import CompileError, Diagnostics
from toolchain.compiler.frontend.lexer import parse_int_literal, tokenize


def lex(text):
    diags = Diagnostics()
    toks = tokenize(text, "t.p4", diags, recover_columns=False)
    diags.raise_if_errors()
    return toks[:-1]


@pytest.mark.parametrize("text,expected", [
    ("5", (5, None, False)),
    ("8w5", (5, 8, False)),
    ("16s0xff", (255, 16, True)),
    ("0x1F", (31, None, False)),
    ("0b1010_0000", (160, None, False)),
    ("0o17", (15, None, False)),
    ("0d99", (99, None, False)),
    ("32w0xFFFF_FFFF", (0xFFFFFFFF, 32, False)),
    ("1_000", (1000, None, False)),
])
def test_int_literal_forms_decode(text, expected):
    assert parse_int_literal(text) == expected
    (tok,) = lex(text)
    assert tok.kind == "int" and tok.value == expected


def test_operators_longest_match_first():
    texts = [t.text for t in lex("a |+| b |-| c &&& d .. e ++ f << g <= h && i")]
    assert texts == ["a", "|+|", "b", "|-|", "c", "&&&", "d", "..", "e", "++", "f", "<<", "g",
                     "<=", "h", "&&", "i"]


def test_shift_right_is_two_tokens_so_nested_type_arguments_close():
    texts = [t.text for t in lex("register<bit<32>>")]
    assert texts == ["register", "<", "bit", "<", "32", ">", ">"]


def test_keywords_and_identifiers_are_distinguished():
    toks = lex("control apply_x apply header_union")
    assert [(t.kind, t.text) for t in toks] == [("kw", "control"), ("id", "apply_x"),
                                               ("kw", "apply"), ("kw", "header_union")]


def test_comments_are_skipped_and_positions_are_one_based():
    toks = lex("/* a\n b */ x // y\n  z")
    assert [(t.text, t.pos.line, t.pos.col) for t in toks] == [("x", 2, 7), ("z", 3, 3)]


def test_string_literal_unescaped():
    (tok,) = lex(r'"a\"b\n"')
    assert tok.kind == "str" and tok.value == 'a"b\n'


def test_line_markers_map_positions_to_the_included_file():
    toks = lex('# 1 "main.p4"\nx\n# 7 "inc.p4" 1\ny\n# 3 "main.p4" 2\nz')
    assert [(t.text, t.pos.file, t.pos.line) for t in toks] == [
        ("x", "main.p4", 1), ("y", "inc.p4", 7), ("z", "main.p4", 3)]


@pytest.mark.parametrize("text,message", [
    ("8wx", "t.p4:1:1: error: malformed integer literal '8wx'"),
    ("0w5", "t.p4:1:1: error: integer literal '0w5': width must be positive"),
    ("a $ b", "t.p4:1:3: error: unexpected character '$'"),
    ("/* open", "t.p4:1:1: error: unterminated comment"),
    ('x = "open\n y;', "t.p4:1:5: error: unterminated string literal"),
    ("@a(b) ' c", "t.p4:1:7: error: unexpected character \"'\""),
    ("@a[that's] c", "t.p4:1:8: error: unexpected character \"'\""),
])
def test_lexical_errors_are_reported_with_position(text, message):
    with pytest.raises(CompileError) as e:
        lex(text)
    assert str(e.value) == message


def test_string_literal_may_span_lines_and_keeps_later_positions():
    toks = lex('@r("\n  a != 0;\n") x\ny')
    assert [(t.kind, t.text, t.pos.line) for t in toks][2:] == [
        ("op", "(", 1), ("str", '"\n  a != 0;\n"', 1), ("op", ")", 3), ("id", "x", 3),
        ("id", "y", 4)]
    assert toks[3].value == "\n  a != 0;\n"


def test_line_marker_inside_a_multi_line_string_resyncs_lines():
    # cpp writes a marker in the middle of a string literal after dropping blank lines
    toks = lex('@r("a\n# 9 \"m.p4\"\nb") x')
    assert toks[3].value == "a\nb"
    assert (toks[-1].text, toks[-1].pos.file, toks[-1].pos.line) == ("x", "m.p4", 9)


def test_unstructured_annotation_body_may_hold_any_character():
    toks = lex("@scrabble(That's it. (six ' nine) 0xdead) header")
    assert [t.text for t in toks][-6:] == ["'", "nine", ")", "0xdead", ")", "header"]
    assert [t.kind for t in toks if t.text == "'"] == ["other", "other"]


def test_shift_right_from_a_macro_is_a_shift(tmp_path):
    # cpp re-spaces a macro's expansion and the column recovery leaves its tokens one column:
    # `>` `>` is a shift when nothing stood between them in the preprocessed text, not by columns
    from toolchain.compiler.frontend import parse_and_check
    from .conftest import program_text
    path = tmp_path / "prog.p4"
    path.write_text("#define DOWN_TWICE(v, n) (((v) >> (n)) >> (n))\n" + program_text(
        "", ingress="apply { meta.a = DOWN_TWICE(meta.b, meta.c); meta.a >>= meta.c; }"))
    parse_and_check(path)
    text = "a > > b"
    assert [t.glued for t in lex(text)] == [False, False, False, False]
    assert [t.glued for t in lex("a >> b")][1:3] == [False, True]
