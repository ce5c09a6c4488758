"""``?`` whose operands are headers, header unions or header stacks.

p4c 1.2.4.8 turns an ``if`` inside an action into a conditional assignment (its Predication
pass), and when the assigned value is a header, a union or a stack, the JSON has a ``?``
between two of them as the source of ``assign_header`` / ``assign_union`` /
``assign_header_stack``. p4c's own sample ``gauntlet_mux_hdr-bmv2.p4`` is the case in point:
after inlining, its action reads (p4c's midend output)

    tmp1_0[0].setInvalid(); ... tmp2_0[1].setInvalid();
    if (tmp2_0[0].a <= 32w3) { tmp1_0[0] = tmp2_0[1]; }
    h.h.a = tmp1_0[0].a;

and p4c 1.2.4.8 writes the ``if`` as
``{"op": "assign_header", "parameters": [{"type": "header", "value": "tmp1_0[0]"},
{"type": "expression", "value": {"op": "?", "left": {"type": "header", "value": "tmp2_0[1]"},
"right": {"type": "header", "value": "tmp1_0[0]"}, "cond": {...}}}]}``. BMv2 evaluates the
condition and works on the operand it picks (expressions.cpp TERNARY_OP); assigning an
invalid header makes the destination invalid and leaves its fields (core assign_header).
The project's front end writes ``_jump_if_zero`` instead, so these programs are JSON built
here in p4c's shapes.
"""

from __future__ import annotations

import pytest

from toolchain.stf import run_stf
from toolchain.switch import LoadError, SimpleSwitch

from .jsonkit import E, F, X, assign, frame, prim, program

# the packet header: sel picks the branches, x and y are the values, r/v the results
H = [["sel", 8, False], ["x", 32, False], ["y", 32, False], ["r", 32, False], ["v", 8, False]]
A_T = [["a", 32, False]]


def hdr(name: str) -> dict:
    return {"type": "header", "value": name}


def mux(cond, left, right) -> dict:
    """A ``?`` as p4c writes it for a primitive's argument."""
    return {"type": "expression", "value": {"op": "?", "left": left, "right": right, "cond": cond}}


def bit_set(mask: int) -> dict:
    """The boolean ``(h.sel & mask) != 0``, as p4c writes a condition."""
    return E("!=", E("&", F("h", "sel"), X(mask)), X(0))["value"]


def valid_of(h) -> dict:
    """``(bit<8>) h.isValid()`` as p4c writes it (b2d of valid)."""
    return E("b2d", None, {"type": "expression", "value": {"op": "valid", "left": None, "right": h}})


def with_stacks(ingress, *, stacks=("tmp1_0", "tmp2_0"), size=2, unions=()):
    """A program with header stacks of ``A_T`` elements named as p4c names them
    (``tmp1_0[0]``...), union types U = {a: A_T, b: A_T} for ``unions``, and ``ingress``."""
    extra = [(f"{s}[{i}]", A_T) for s in stacks for i in range(size)]
    extra += [(f"{u}.{m}", A_T) for u in unions for m in ("a", "b")]
    p = program(H, list(ingress), extra_headers=extra)
    ids = {h["name"]: h["id"] for h in p["headers"]}
    types = {h["name"]: h["header_type"] for h in p["headers"]}
    for h in p["headers"]:                      # one header type for every element (as p4c)
        if h["name"] in types and "[" in h["name"]:
            h["header_type"] = "A_t"
    p["header_types"].append({"name": "A_t", "id": 99, "fields": [list(f) for f in A_T]})
    p["header_stacks"] = [{"name": s, "id": k, "header_type": "A_t", "size": size,
                           "header_ids": [ids[f"{s}[{i}]"] for i in range(size)]}
                          for k, s in enumerate(stacks)]
    if unions:
        p["header_union_types"] = [{"name": "U", "id": 0,
                                    "headers": [["a", types[f"{unions[0]}.a"]],
                                                ["b", types[f"{unions[0]}.b"]]]}]
        p["header_unions"] = [{"name": u, "id": k, "union_type": "U",
                               "header_ids": [ids[f"{u}.a"], ids[f"{u}.b"]]}
                              for k, u in enumerate(unions)]
    # the deparser emits h only: the results are in h.r and h.v
    p["deparsers"][0]["order"] = ["eth", "h"]
    return p


def set_valid(name: str, value) -> list:
    return [prim("add_header", hdr(name)), assign(name, "a", value)]


def run(p, sel: int, x: int, y: int) -> tuple[int, int]:
    """(h.r, h.v) after the program ran on a packet with sel, x, y."""
    sw = SimpleSwitch(p)
    body = bytes([sel]) + x.to_bytes(4, "big") + y.to_bytes(4, "big") + bytes(5)
    out = sw.process(0, frame(body))[0][1][14:]
    return int.from_bytes(out[9:13], "big"), out[13]


# -- the gauntlet_mux_hdr shape, as an STF ---------------------------------------------------------
def gauntlet_shape() -> dict:
    """tmp1_0[0] = x; tmp2_0[1] = y (left invalid when sel bit 1 is set);
    if (sel bit 0) { tmp1_0[0] = tmp2_0[1]; }   -- p4c 1.2.4.8: assign_header with a "?"
    h.r = tmp1_0[0].a; h.v = tmp1_0[0].isValid()."""
    p = with_stacks(
        set_valid("tmp1_0[0]", F("h", "x")) + set_valid("tmp2_0[1]", F("h", "y"))
        + [{"op": "_jump_if_zero", "parameters": [bit_set(2), None]},
           prim("remove_header", hdr("tmp2_0[1]")),
           prim("assign_header", hdr("tmp1_0[0]"),
                mux(bit_set(1), hdr("tmp2_0[1]"), hdr("tmp1_0[0]"))),
           assign("h", "r", F("tmp1_0[0]", "a")),
           assign("h", "v", valid_of(hdr("tmp1_0[0]")))])
    prims = p["actions"][0]["primitives"]
    k = next(i for i, x in enumerate(prims) if x["op"] == "_jump_if_zero")
    prims[k]["parameters"][1] = X(k + 2)          # past the remove_header
    return p


STF = """
# sel bit 0: the condition; sel bit 1: tmp2_0[1] (the source picked by the condition) invalid
packet 0 000000000000 000000000001 88B5 00 00000011 00000022 00000000 00
expect 1 000000000000 000000000001 88B5 00 00000011 00000022 00000011 01$
packet 0 000000000000 000000000001 88B5 01 00000011 00000022 00000000 00
expect 1 000000000000 000000000001 88B5 01 00000011 00000022 00000022 01$
# an invalid source: the destination becomes invalid and keeps its field
packet 0 000000000000 000000000001 88B5 03 00000011 00000022 00000000 00
expect 1 000000000000 000000000001 88B5 03 00000011 00000022 00000011 00$
# the condition false: the invalid tmp2_0[1] is not picked
packet 0 000000000000 000000000001 88B5 02 00000011 00000022 00000000 00
expect 1 000000000000 000000000001 88B5 02 00000011 00000022 00000011 01$
"""


def test_p4c_predicated_header_assignment_runs_as_bmv2(tmp_path):
    stf = tmp_path / "mux_hdr.stf"
    stf.write_text(STF)
    result = run_stf(gauntlet_shape(), stf)
    assert result.ok, "\n".join(result.failures)


# -- every place BMv2 takes a header, a union or a stack -----------------------------------------
def test_header_mux_as_destination_writes_the_header_picked():
    p = with_stacks(set_valid("tmp1_0[0]", X(1)) + set_valid("tmp1_0[1]", X(2)) + set_valid("tmp2_0[0]", X(9))
                    + [prim("assign_header", mux(bit_set(1), hdr("tmp1_0[0]"), hdr("tmp1_0[1]")),
                            hdr("tmp2_0[0]")),
                       assign("h", "r", E("+", E("*", F("tmp1_0[0]", "a"), X(16)), F("tmp1_0[1]", "a")))])
    assert run(p, 1, 0, 0)[0] == 0x92
    assert run(p, 0, 0, 0)[0] == 0x19


def test_fields_validity_and_equality_of_a_header_mux():
    pick = mux(bit_set(1), hdr("tmp1_0[0]"), hdr("tmp1_0[1]"))
    field = {"type": "expression", "value": {"op": "access_field", "left": pick, "right": 0}}
    same = E("==", pick, hdr("tmp2_0[0]"))
    p = with_stacks(set_valid("tmp1_0[0]", F("h", "x")) + set_valid("tmp2_0[0]", F("h", "y"))
                    + [assign("h", "r", field),
                       assign("h", "v", E("+", E("*", valid_of(pick), X(2)), E("b2d", None, same)))])
    assert run(p, 1, 5, 5) == (5, 3)           # tmp1_0[0]: valid, equal to tmp2_0[0]
    assert run(p, 1, 5, 6) == (5, 2)           # valid, not equal
    assert run(p, 0, 5, 5) == (0, 0)           # tmp1_0[1]: invalid, so not equal either


def test_stack_mux_in_dereference_size_and_assign_header_stack():
    s1, s2 = {"type": "header_stack", "value": "tmp1_0"}, {"type": "header_stack", "value": "tmp2_0"}
    pick = mux(bit_set(1), s1, s2)
    elem = {"type": "expression", "value": {"op": "dereference_header_stack", "left": pick, "right": X(1)}}
    size = {"type": "expression", "value": {"op": "size_stack", "left": None, "right": pick}}
    p = with_stacks(set_valid("tmp1_0[1]", X(7)) + set_valid("tmp2_0[1]", X(8))
                    + [prim("push", s1, X(1)),           # tmp1_0: next index 1, [1] now holds 0
                       assign("h", "r", {"type": "expression", "value": {
                           "op": "access_field", "left": elem, "right": 0}}),
                       assign("h", "v", size),
                       prim("assign_header_stack", s2, pick)])
    assert run(p, 1, 0, 0) == (0, 1)            # tmp1_0 after the push
    assert run(p, 0, 0, 0) == (8, 0)            # tmp2_0


def test_union_mux_in_assign_union_valid_union_and_member_access():
    u, w = {"type": "header_union", "value": "u"}, {"type": "header_union", "value": "w"}
    pick = mux(bit_set(1), u, w)
    member_b = {"type": "expression", "value": {"op": "access_union_header", "left": pick, "right": 1}}
    valid_u = E("b2d", None, {"type": "expression", "value": {"op": "valid_union", "left": None,
                                                              "right": pick}})
    p = with_stacks(set_valid("u.b", F("h", "x"))
                    + [assign("h", "r", {"type": "expression", "value": {
                        "op": "access_field", "left": member_b, "right": 0}}),
                       assign("h", "v", valid_u),
                       prim("assign_union", w, pick),
                       assign("h", "x", F("w.b", "a"))], stacks=(), unions=("u", "w"))
    assert run(p, 1, 0x44, 0) == (0x44, 1)
    assert run(p, 0, 0x44, 0) == (0, 0)


def test_headers_of_different_types_are_refused_in_a_mux_and_in_an_assignment():
    odd = mux(bit_set(1), hdr("tmp1_0[1]"), hdr("h"))
    with pytest.raises(LoadError, match=r"'\?' chooses between operands of different types"):
        SimpleSwitch(with_stacks([assign("h", "v", valid_of(odd))]))
    with pytest.raises(LoadError, match=r"assign_header between headers of different types"):
        SimpleSwitch(with_stacks([prim("assign_header", hdr("tmp1_0[0]"), odd)]))
