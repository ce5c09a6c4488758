"""Header union stacks in the parser, as BMv2 runs p4c's JSON for them (JSON_format.md:
"header_union_stacks", extract/extract_VL of type "union_stack", "union_stack_field"
transition keys; behavioral-model parser.cpp ParserOpExtractUnionStack): the member of the
next union is extracted, its siblings in that union become invalid, the stack's next index
advances; a full stack is StackOutOfBounds."""

import pytest

from toolchain.switch import LoadError, SimpleSwitch, load_program

from .jsonkit import E, F, X, assign, frame, prim, program

H = [["sel", 8, False], ["r", 8, False]]
A = [["t", 8, False]]                                   # member a: 1 byte, t = what follows
B = [["t", 8, False], ["d", 8, False]]                  # member b: 2 bytes
V = [["n", 8, False], ["data", "*"]]                    # member v: 1 byte + varbit (<= 4 bytes)
MEMBERS = (("a", "A_t", A), ("b", "B_t", B), ("v", "V_t", V))
SIZE = 2
DEFAULT = {"type": "default", "value": None, "mask": None, "next_state": None}
PARSER_ERROR = F("standard_metadata", "parser_error")
US_T = {"type": "union_stack_field", "value": ["us", "a", "t"]}


def _hex(v, n=1):
    return "0x" + f"{v:0{2 * n}x}"


def _goto(value, state):
    return {"type": "hexstr", "value": _hex(value), "mask": None, "next_state": state}


def _state(name, ops, key=(), transitions=(DEFAULT,)):
    return {"name": name, "id": 0, "parser_ops": list(ops), "transition_key": list(key),
            "transitions": list(transitions)}


def _extract(kind, value, length=None):
    if length is None:
        return {"op": "extract", "parameters": [{"type": kind, "value": value}]}
    return {"op": "extract_VL", "parameters": [{"type": kind, "value": value},
                                               {"type": "expression", "value": length}]}


def _after(member_key):
    """Transitions on the type byte of the member just extracted: 1 -> a, 2 -> b, else end."""
    return dict(key=[member_key], transitions=[_goto(1, "pa"), _goto(2, "pb"), DEFAULT])


def usprog(ingress=(), extra_states=(), sel_cases=(), *, stacks=("us",)):
    """eth, h = (sel, r), then a stack us[2] of unions {a, b, v}. sel 1/2 start with us.next.a
    / us.next.b; a and b name what comes next in their byte t (the key is the
    union_stack_field of the member just extracted); sel 3 first extracts us[0].b directly
    (not through the stack), then us.next.a; sel 4 keys on us.last.a.t before any extract;
    sel 5 extracts us.next.v with h.r bits of data. ``stacks``: more stacks of the same
    union type (never parsed), deparsed after us."""
    p = program(H, list(ingress), extra_headers=[(f"{st}[{i}].{m}", f) for st in stacks
                                                 for i in range(SIZE) for m, _, f in MEMBERS])
    # element headers share their member's type (p4c: one header type per union member)
    p["header_types"] = [t for t in p["header_types"] if "[" not in t["name"]]
    for k, (m, tname, fields) in enumerate(MEMBERS):
        t = {"name": tname, "id": 20 + k, "fields": [list(f) for f in fields]}
        if any(f[1] == "*" for f in fields):
            t["max_length"] = 5
        p["header_types"].append(t)
    ids = {}
    for h in p["headers"]:
        ids[h["name"]] = h["id"]
        if "[" in h["name"]:
            h["header_type"] = dict((m, t) for m, t, _ in MEMBERS)[h["name"].split(".")[1]]
    p["header_union_types"] = [{"name": "U", "id": 0, "headers": [[m, t] for m, t, _ in MEMBERS]}]
    p["header_unions"] = [{"name": f"{st}[{i}]", "id": k * SIZE + i, "union_type": "U",
                           "pi_omit": True,
                           "header_ids": [ids[f"{st}[{i}].{m}"] for m, _, _ in MEMBERS]}
                          for k, st in enumerate(stacks) for i in range(SIZE)]
    p["header_union_stacks"] = [{"name": st, "id": k, "union_type": "U", "size": SIZE,
                                 "header_union_ids": [k * SIZE + i for i in range(SIZE)]}
                                for k, st in enumerate(stacks)]
    states = p["parsers"][0]["parse_states"]
    states[1]["transition_key"] = [F("h", "sel")]
    states[1]["transitions"] = [_goto(1, "pa"), _goto(2, "pb"), _goto(3, "pre"), _goto(4, "peek"),
                                _goto(5, "pv"), *sel_cases, DEFAULT]
    states += [
        _state("pa", [_extract("union_stack", ["us", "a"])], **_after(US_T)),
        _state("pb", [_extract("union_stack", ["us", "b"])],
               **_after({"type": "union_stack_field", "value": ["us", "b", "t"]})),
        _state("pre", [_extract("regular", "us[0].b")], transitions=[
            {"type": "default", "value": None, "mask": None, "next_state": "pa"}]),
        _state("peek", [], key=[US_T], transitions=[_goto(1, "pa"), DEFAULT]),
        _state("pv", [_extract("union_stack", ["us", "v"], F("h", "r"))],
               key=[{"type": "union_stack_field", "value": ["us", "v", "n"]}],
               transitions=[_goto(5, "pv"), DEFAULT]),
        *extra_states,
    ]
    for k, st in enumerate(states):
        st["id"] = k
    return p


def send(sw, payload: bytes) -> bytes:
    return sw.process(0, frame(payload))[0][1][14:]


RECORD_ERROR = [assign("h", "r", PARSER_ERROR)]


def test_extracts_fill_the_next_unions_in_order():
    sw = SimpleSwitch(usprog(RECORD_ERROR))
    # a (next: b) into us[0], b (next: none) into us[1]; both deparsed, no error
    assert send(sw, bytes([1, 9, 2, 0, 0x55])) == bytes([1, 0, 2, 0, 0x55])
    # b (next: a) into us[0], a into us[1]: the deparser's order is us[0].a, us[0].b, us[1].a, ...
    assert send(sw, bytes([2, 9, 1, 0x66, 0])) == bytes([2, 0, 1, 0x66, 0])


def test_full_union_stack_is_stack_out_of_bounds():
    sw = SimpleSwitch(usprog(RECORD_ERROR))
    # a, a, then a third a: the stack holds 2; the first two stay valid, the rest is payload
    assert send(sw, bytes([1, 9, 1, 1, 1, 0x77])) == bytes([1, 3, 1, 1, 1, 0x77])


def test_extract_makes_the_union_siblings_invalid():
    sw = SimpleSwitch(usprog(RECORD_ERROR))
    # us[0].b is extracted directly (the stack's next index stays 0), then us.next.a fills
    # us[0].a: b is no longer valid, so only a is deparsed (the b bytes 0x00 0x44 vanish)
    assert send(sw, bytes([3, 9, 0, 0x44, 0])) == bytes([3, 0, 0])


def test_packet_too_short_leaves_the_next_index():
    ingress = [assign("h", "r", E("+", E("<<", PARSER_ERROR, X(4)),
                                  {"type": "expression", "value": {
                                      "op": "size_stack", "left": None,
                                      "right": {"type": "header_union_stack", "value": "us"}}}))]
    sw = SimpleSwitch(usprog(ingress))
    # a (next: b), then b with one byte only: PacketTooShort (1), one union extracted
    assert send(sw, bytes([1, 9, 2, 0])) == bytes([1, 0x11, 2, 0])


def test_last_field_key_before_any_extract_is_stack_out_of_bounds():
    sw = SimpleSwitch(usprog(RECORD_ERROR))
    assert send(sw, bytes([4, 9, 1, 0])) == bytes([4, 3, 1, 0])


def test_extract_vl_into_the_next_union():
    sw = SimpleSwitch(usprog())
    # h.r = 16: v = n (5: another v follows) + 2 data bytes, twice; the last v says n = 0
    out = send(sw, bytes([5, 16, 5, 0xA1, 0xA2, 0, 0xB1, 0xB2, 0xEE]))
    assert out == bytes([5, 16, 5, 0xA1, 0xA2, 0, 0xB1, 0xB2, 0xEE])


def test_extract_vl_into_a_full_union_stack():
    sw = SimpleSwitch(usprog(RECORD_ERROR))
    # h.r = 0 bits of data: v, v, then a third v (n = 5 each time) does not fit
    assert send(sw, bytes([5, 0, 5, 5, 5])) == bytes([5, 3, 5, 5, 5])


def test_last_stack_index_of_a_union_stack():
    ingress = [assign("h", "r", {"type": "expression", "value": {
        "op": "last_stack_index", "left": None,
        "right": {"type": "header_union_stack", "value": "us"}}})]
    sw = SimpleSwitch(usprog(ingress))
    assert send(sw, bytes([1, 9, 2, 0, 0x55])) == bytes([1, 1, 2, 0, 0x55])
    assert send(sw, bytes([1, 9, 0])) == bytes([1, 0, 0])


def test_assign_union_stack_copies_unions_and_next_index():
    vs = {"type": "header_union_stack", "value": "vs"}
    ingress = [prim("add_header", {"type": "header", "value": "vs[0].b"}),
               prim("assign_union_stack", vs, {"type": "header_union_stack", "value": "us"}),
               assign("h", "r", {"type": "expression", "value": {
                   "op": "size_stack", "left": None, "right": vs}})]
    sw = SimpleSwitch(usprog(ingress, stacks=("us", "vs")))
    # us = [a(2), b(0, 55)] copied into vs (vs[0].b, valid before, is invalid after: us[0].b
    # is); vs's next index is 2
    assert send(sw, bytes([1, 9, 2, 0, 0x55])) == bytes([1, 2, 2, 0, 0x55, 2, 0, 0x55])


US = {"type": "header_union_stack", "value": "us"}
SIZE_US = {"type": "expression", "value": {"op": "size_stack", "left": None, "right": US}}


def test_push_front_shifts_whole_unions_and_the_next_index():
    # BMv2 push_front on a header union stack: each union moves up by the count (all its
    # members), the first unions become invalid, next grows (at most to the size)
    sw = SimpleSwitch(usprog([prim("push", US, X(1)), assign("h", "r", SIZE_US)]))
    # us = [a (t 2: b follows), b (0, 55)] -> [invalid, a]: b falls off; next 2 -> 2
    assert send(sw, bytes([1, 9, 2, 0, 0x55])) == bytes([1, 2, 2])
    # only us[0] = a (t = 0): it moves to us[1]; next 1 -> 2
    assert send(sw, bytes([1, 9, 0, 0x66])) == bytes([1, 2, 0, 0x66])


def test_pop_front_shifts_whole_unions_down():
    sw = SimpleSwitch(usprog([prim("pop", US, X(1)), assign("h", "r", SIZE_US)]))
    # us = [a (next: b), b]: b moves to us[0], us[1] invalid; next 2 -> 1
    assert send(sw, bytes([1, 9, 2, 0, 0x55])) == bytes([1, 1, 0, 0x55])
    # pop of 2 empties the stack
    sw = SimpleSwitch(usprog([prim("pop", US, X(2)), assign("h", "r", SIZE_US)]))
    assert send(sw, bytes([1, 9, 2, 0, 0x55])) == bytes([1, 0])


def _with(mutate):
    p = usprog()
    mutate(p)
    return p


def _state_named(p, name):
    return next(s for s in p["parsers"][0]["parse_states"] if s["name"] == name)


REFUSALS = [
    ("header union stack 'us': union type 'U' has no member 'zz'", lambda p: _state_named(p, "pa")[
        "parser_ops"].__setitem__(0, _extract("union_stack", ["us", "zz"]))),
    ("unknown header union stack 'nope'", lambda p: _state_named(p, "pa")[
        "parser_ops"].__setitem__(0, _extract("union_stack", ["nope", "a"]))),
    ("parser_ops[0].parameters[0].value: expected an array, got 'us'", lambda p: _state_named(p, "pa")[
        "parser_ops"].__setitem__(0, _extract("union_stack", "us"))),
    ("header union stack 'us': header type 'A_t' has no field 'zz'", lambda p: _state_named(
        p, "peek").__setitem__("transition_key", [{"type": "union_stack_field",
                                                   "value": ["us", "a", "zz"]}])),
    ("transition_key[0].value: expected an array of 3 elements, got 2", lambda p: _state_named(
        p, "peek").__setitem__("transition_key", [{"type": "union_stack_field",
                                                   "value": ["us", "a"]}])),
    ("header union stack 'us': unknown union_type 'W'",
     lambda p: p["header_union_stacks"][0].__setitem__("union_type", "W")),
    ("header union stack 'us': unknown header union id 7",
     lambda p: p["header_union_stacks"][0]["header_union_ids"].append(7)),
    ("expected a header_union_stack operand, got 'header_stack'", lambda p: p["actions"][0][
        "primitives"].append(prim("assign_union_stack", {"type": "header_stack", "value": "us"},
                                  {"type": "header_union_stack", "value": "us"}))),
]


@pytest.mark.parametrize("message, mutate", REFUSALS, ids=[m[:40] for m, _ in REFUSALS])
def test_refusals_name_the_union_stack_feature(message, mutate):
    with pytest.raises(LoadError) as e:
        load_program(_with(mutate))
    assert message in str(e.value)
