"""`==` / `!=` whose operands are headers or header unions (JSON_format.md, expressions:
operands of an expression may be of type `header`; P4Objects::build_expression picks
EQ_HEADER/NEQ_HEADER or EQ_UNION/NEQ_UNION from the operands' type). Expected values follow
behavioral-model's src/bm_sim/headers.cpp Header::cmp: equal when both headers have the
same header type, both are valid and all field values are equal -- so two invalid headers
compare unequal, unlike P4's `==` on headers, which p4c lowers to field comparisons before
it reaches BMv2 -- and src/bm_sim/header_unions.cpp HeaderUnion::cmp: both unions valid,
the same member valid, and those members Header::cmp-equal."""

import pytest

from toolchain.switch import SimpleSwitch
from toolchain.switch.errors import LoadError

from .jsonkit import E, F, X, assign, frame, prim, program

H = [["a", 8, False], ["b", 8, False], ["c", 8, False], ["d", 8, False], ["r", 8, False]]
G = [["x", 8, False], ["y", 8, False]]


def hdr(name):
    return {"type": "header", "value": name}


def union(name):
    return {"type": "header_union", "value": name}


def result_of(cmp):
    """h.r = (cmp ? 1 : 0)."""
    return assign("h", "r", E("b2d", None, cmp))


def run(prog, a, b, c, d):
    sw = SimpleSwitch(prog)
    out = sw.process(0, frame(bytes([a, b, c, d, 0xEE])))[0][1]
    return out[14 + 4]


def hprog(valid1, valid2, op, *, other_type=False, cmp=None):
    """g1 = (a, b), g2 = (c, d), made valid as asked; h.r = g1 op g2. With other_type, g2
    is a header of a different type with the same fields."""
    prims = [prim("add_header", hdr("g1"))] if valid1 else []
    prims += [prim("add_header", hdr("g2"))] if valid2 else []
    prims += [assign("g1", "x", F("h", "a")), assign("g1", "y", F("h", "b")),
              assign("g2", "x", F("h", "c")), assign("g2", "y", F("h", "d"))]
    prims.append(result_of(cmp or E(op, hdr("g1"), hdr("g2"))))
    p = program(H, prims, extra_headers=[("g1", G), ("g2", G)])
    if not other_type:
        for h in p["headers"]:
            if h["name"] == "g2":
                h["header_type"] = "g1_t"      # one header type, as two instances of it
    return p


@pytest.mark.parametrize("valid1, valid2, fields, expected", [
    (True, True, (5, 6, 5, 6), 1),            # both valid, every field equal
    (True, True, (5, 6, 5, 7), 0),            # a field differs
    (True, True, (5, 6, 4, 6), 0),
    (False, False, (5, 6, 5, 6), 0),          # both invalid: Header::cmp needs is_valid()
    (True, False, (5, 6, 5, 6), 0),
    (False, True, (5, 6, 5, 6), 0),
])
def test_header_equality_is_header_cmp(valid1, valid2, fields, expected):
    assert run(hprog(valid1, valid2, "=="), *fields) == expected
    assert run(hprog(valid1, valid2, "!="), *fields) == 1 - expected


def test_headers_of_different_types_are_never_equal():
    # Header::cmp compares the header type ids first
    assert run(hprog(True, True, "==", other_type=True), 5, 6, 5, 6) == 0
    assert run(hprog(True, True, "!=", other_type=True), 5, 6, 5, 6) == 1


def test_wrapped_operands_and_condition_use():
    # p4c wraps operands in an extra "expression" object at times (BMv2 unwraps them), and a
    # comparison may be tested for truth only (a conditional's or ternary's condition)
    wrapped = E("==", {"type": "expression", "value": hdr("g1")}, hdr("g2"))
    cond = E("?", X(1), X(0), cond=E("==", hdr("g1"), hdr("g2")))
    for fields, expected in (((1, 2, 1, 2), 1), ((1, 2, 1, 3), 0)):
        assert run(hprog(True, True, "==", cmp=wrapped), *fields) == expected
        p = hprog(True, True, "==")
        p["actions"][0]["primitives"][-1] = assign("h", "r", cond)
        assert run(p, *fields) == expected


def sprog(op):
    """A stack s of two g_t elements, s[0] = (a, b) valid, s[1] = (c, d) valid; g1 = (c, d)
    valid; h.r = s[h.a & 1] op g1 (a run-time index: dereference_header_stack)."""
    prims = [prim("add_header", hdr("s[0]")), prim("add_header", hdr("s[1]")),
             prim("add_header", hdr("g1")),
             assign("s[0]", "x", F("h", "a")), assign("s[0]", "y", F("h", "b")),
             assign("s[1]", "x", F("h", "c")), assign("s[1]", "y", F("h", "d")),
             assign("g1", "x", F("h", "c")), assign("g1", "y", F("h", "d"))]
    elem = {"type": "expression", "value": {"op": "dereference_header_stack",
                                            "left": {"type": "header_stack", "value": "s"},
                                            "right": E("&", F("h", "a"), X(1))}}
    prims.append(result_of(E(op, elem, hdr("g1"))))
    p = program(H, prims, extra_headers=[("s[0]", G), ("s[1]", G), ("g1", G)])
    for h in p["headers"]:
        if h["name"] in ("s[1]", "g1"):
            h["header_type"] = "s[0]_t"
    ids = {h["name"]: h["id"] for h in p["headers"]}
    p["header_stacks"] = [{"name": "s", "id": 0, "header_type": "s[0]_t", "size": 2,
                           "header_ids": [ids["s[0]"], ids["s[1]"]]}]
    return p


def test_stack_element_compared_with_a_header():
    # a = 2 picks s[0] = (2, 9), g1 = (3, 4): unequal; a = 3 picks s[1] = (3, 4) == g1
    assert run(sprog("=="), 2, 9, 3, 4) == 0
    assert run(sprog("!="), 2, 9, 3, 4) == 1
    assert run(sprog("=="), 3, 9, 3, 4) == 1
    assert run(sprog("!="), 3, 9, 3, 4) == 0
    # a = 4 picks s[0] = (4, 4), equal to g1 = (4, 4)
    assert run(sprog("=="), 4, 4, 4, 4) == 1


A_ = [["v", 8, False]]
B_ = [["w", 16, False]]


def uprog(members, op):
    """Unions u and w of type U {a: 8 bits, b: 16 bits}. `members`: (u member, w member)
    made valid ("a", "b" or None); u.a.v = h.a, w.a.v = h.b, u.b.w = w.b.w = h.c h.d;
    h.r = u op w."""
    mu, mw = members
    prims = []
    if mu:
        prims.append(prim("add_header", hdr(f"u.{mu}")))
    if mw:
        prims.append(prim("add_header", hdr(f"w.{mw}")))
    cd = E("|", E("<<", F("h", "c"), X(8)), F("h", "d"))
    prims += [assign("u.a", "v", F("h", "a")), assign("w.a", "v", F("h", "b")),
              assign("u.b", "w", cd), assign("w.b", "w", cd),
              result_of(E(op, union("u"), union("w")))]
    p = program(H, prims, extra_headers=[("u.a", A_), ("u.b", B_), ("w.a", A_), ("w.b", B_)])
    for h in p["headers"]:
        if h["name"] == "w.a":
            h["header_type"] = "u.a_t"
        if h["name"] == "w.b":
            h["header_type"] = "u.b_t"
    ids = {h["name"]: h["id"] for h in p["headers"]}
    p["header_union_types"] = [{"name": "U", "id": 0, "headers": [["a", "u.a_t"], ["b", "u.b_t"]]}]
    p["header_unions"] = [
        {"name": "u", "id": 0, "union_type": "U", "header_ids": [ids["u.a"], ids["u.b"]]},
        {"name": "w", "id": 1, "union_type": "U", "header_ids": [ids["w.a"], ids["w.b"]]}]
    return p


@pytest.mark.parametrize("members, fields, expected", [
    (("a", "a"), (7, 7, 0, 0), 1),            # same member valid, equal
    (("a", "a"), (7, 8, 0, 0), 0),            # same member valid, a field differs
    (("b", "b"), (7, 8, 1, 2), 1),            # member b equal (member a values ignored)
    (("a", "b"), (7, 7, 0, 0), 0),            # different members valid
    ((None, None), (7, 7, 0, 0), 0),          # both invalid: HeaderUnion::cmp needs valid
    (("a", None), (7, 7, 0, 0), 0),
])
def test_union_equality_is_header_union_cmp(members, fields, expected):
    assert run(uprog(members, "=="), *fields) == expected
    assert run(uprog(members, "!="), *fields) == 1 - expected


def test_header_compared_with_a_union_is_refused():
    # P4Objects::build_expression asserts that both operands have the same type
    p = uprog(("a", "a"), "==")
    p["actions"][0]["primitives"][-1] = result_of(E("==", hdr("h"), union("w")))
    with pytest.raises(LoadError):
        SimpleSwitch(p)
