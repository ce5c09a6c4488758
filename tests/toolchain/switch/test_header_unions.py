"""Header unions: at most one valid member (extract and setValid invalidate the others),
valid_union, access_union_header and assign_union."""

from toolchain.switch import SimpleSwitch

from .jsonkit import E, F, X, assign, frame, program

A = [["a", 8, False]]
B = [["b", 16, False]]


def uprog(ingress=(), *, second_union=False):
    """h = (sel:8, r:8); union u = {u.a: 8 bits, u.b: 16 bits}: sel 1 parses u.a, 2 parses u.b."""
    extra = [("u.a", A), ("u.b", B)] + ([("w.a", A), ("w.b", B)] if second_union else [])
    p = program([["sel", 8, False], ["r", 8, False]], list(ingress), extra_headers=extra)
    ids = {h["name"]: h["id"] for h in p["headers"]}
    p["header_union_types"] = [{"name": "U", "id": 0, "headers": [["a", "u.a_t"], ["b", "u.b_t"]]}]
    p["header_unions"] = [{"name": "u", "id": 0, "union_type": "U", "header_ids": [ids["u.a"], ids["u.b"]]}]
    if second_union:
        p["header_unions"].append({"name": "w", "id": 1, "union_type": "U", "header_ids": [ids["w.a"], ids["w.b"]]})
    states = p["parsers"][0]["parse_states"]
    states[1]["transition_key"] = [F("h", "sel")]
    states[1]["transitions"] = [{"type": "hexstr", "value": "0x01", "mask": None, "next_state": "pa"},
                                {"type": "hexstr", "value": "0x02", "mask": None, "next_state": "pb"},
                                {"type": "default", "value": None, "mask": None, "next_state": None}]
    for name, hdr in (("pa", "u.a"), ("pb", "u.b")):
        states.append({"name": name, "id": len(states), "transition_key": [],
                       "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": hdr}]}],
                       "transitions": [{"type": "default", "value": None, "mask": None, "next_state": None}]})
    return p


VALID_U = E("b2d", None, {"type": "expression", "value": {"op": "valid_union", "left": None,
                                                          "right": {"type": "header_union", "value": "u"}}})


def send(sw, payload):
    return sw.process(0, frame(payload))[0][1][14:]


def test_extracted_member_makes_the_union_valid():
    sw = SimpleSwitch(uprog([assign("h", "r", VALID_U)]))
    assert send(sw, bytes([1, 0, 0x42])) == bytes([1, 1, 0x42])
    assert send(sw, bytes([2, 0, 0x12, 0x34])) == bytes([2, 1, 0x12, 0x34])
    assert send(sw, bytes([3, 0])) == bytes([3, 0])


def test_set_valid_on_one_member_invalidates_the_other():
    sw = SimpleSwitch(uprog([{"op": "add_header", "parameters": [{"type": "header", "value": "u.b"}]},
                             assign("u.b", "b", X(0xBEEF))]))
    # u.a was parsed; making u.b valid drops u.a from the deparsed packet
    assert send(sw, bytes([1, 0, 0x42])) == bytes([1, 0, 0xBE, 0xEF])


def test_access_union_header_reaches_a_member():
    member_b = {"type": "expression", "value": {"op": "access_union_header",
                                                "left": {"type": "header_union", "value": "u"}, "right": 1}}
    field = {"type": "expression", "value": {"op": "access_field", "left": member_b, "right": 0}}
    sw = SimpleSwitch(uprog([assign("h", "r", E("&", field, X(0xFF)))]))
    assert send(sw, bytes([2, 0, 0x12, 0x34]))[1] == 0x34


def test_assign_union_copies_every_member():
    sw = SimpleSwitch(uprog([{"op": "assign_union", "parameters": [{"type": "header_union", "value": "w"},
                                                                   {"type": "header_union", "value": "u"}]}],
                            second_union=True))
    assert send(sw, bytes([1, 0, 0x42])) == bytes([1, 0, 0x42, 0x42])
