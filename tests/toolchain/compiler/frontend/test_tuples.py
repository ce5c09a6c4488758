"""Tuple locals (spec 7.2.8) and their elements by constant index (spec 8.12)."""
from __future__ import annotations

import pytest

from toolchain.compiler.frontend import ast as A


def test_tuple_index_has_the_element_type(check_ingress):
    prog = check_ingress("apply { tuple<bit<8>, bool> t = { 8w1, true }; "
                         "meta.c = t[0]; meta.flag = t[1]; }")
    idx = [n for n in A.walk(prog) if isinstance(n, A.IndexExpr)
           and n.pos.file.endswith("prog.p4")]
    assert [str(n.type) for n in idx] == ["bit<8>", "bool"]
    assert [n.folded_index for n in idx] == [0, 1]


@pytest.mark.parametrize("ingress,message", [
    ("apply { tuple<bit<8>, bit<8>> t = { 1, 2 }; meta.c = t[2]; }",
     "prog.p4:15:56: tuple index 2 out of range 0..1"),
    ("apply { tuple<bit<8>, bit<8>> t = { 1, 2 }; meta.c = t[meta.c]; }",
     "prog.p4:15:56: a tuple index must be a compile-time integer constant"),
])
def test_tuple_index_errors(ingress_errors, ingress, message):
    errors = ingress_errors(ingress)
    assert errors and errors[0].startswith(message), errors
