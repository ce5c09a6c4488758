"""varbit fields: extract_VL with a run-time length, deparse at the current length, checksums
over them, assign_VL, and the parser errors of a bad length."""

from toolchain.switch import SimpleSwitch

from .jsonkit import E, F, X, assign, frame, program

V_FIELDS = [["len", 8, False], ["opts", "*"], ["tail", 8, False]]


def vprog(ingress=(), *, checksum=False, copy=False):
    """h = (n:8) report byte; v = (len:8, opts:varbit<64>, tail:8) parsed with len bytes of opts."""
    extra = [("v", V_FIELDS)] + ([("w", V_FIELDS)] if copy else [])
    p = program([["n", 8, False]], list(ingress), extra_headers=extra)
    for ht in p["header_types"]:
        if ht["name"] in ("v_t", "w_t"):
            ht["max_length"] = 10
    # extract_VL(v, h.n * 8): the report byte h.n gives the varbit's length in bytes
    p["parsers"][0]["parse_states"][1]["parser_ops"].append(
        {"op": "extract_VL", "parameters": [{"type": "regular", "value": "v"}, E("<<", F("h", "n"), X(3))]})
    p["actions"][0]["primitives"].append(assign("h", "n", F("standard_metadata", "parser_error")))
    if checksum:
        p["calculations"] = [{"name": "c", "id": 0, "algo": "csum16", "input": [F("v", "len"), F("v", "opts"), F("v", "tail")]}]
        p["checksums"] = [{"name": "ck", "id": 0, "type": "generic", "calculation": "c", "target": ["v", "tail"],
                           "verify": False, "update": True, "if_cond": None}]
    return p


def send(sw, n, body):
    return sw.process(0, frame(bytes([n]) + body))[0][1][14:]


def test_varbit_extract_and_deparse_at_current_length():
    sw = SimpleSwitch(vprog())
    out = send(sw, 3, bytes([3, 0xA, 0xB, 0xC, 0x77]) + b"rest")
    assert out == bytes([0]) + bytes([3, 0xA, 0xB, 0xC, 0x77]) + b"rest"


def test_zero_length_varbit():
    sw = SimpleSwitch(vprog())
    assert send(sw, 0, bytes([0, 0x77]) + b"z") == bytes([0, 0, 0x77]) + b"z"


def test_varbit_longer_than_its_maximum_is_header_too_short():
    sw = SimpleSwitch(vprog())
    out = send(sw, 9, bytes(20))
    assert out[0] == 4                       # HeaderTooShort, v not extracted
    assert out[1:] == bytes(20)


def test_varbit_past_the_end_is_packet_too_short():
    sw = SimpleSwitch(vprog())
    assert send(sw, 5, bytes([5, 1, 2]))[0] == 1


def test_checksum_covers_the_varbit_at_its_length():
    from netbase.checksum import internet_checksum
    sw = SimpleSwitch(vprog(checksum=True))
    out = send(sw, 3, bytes([3, 1, 2, 3, 0]))
    # the 8-bit tail is computed over len(8) + opts(24) + tail(8) = 40 bits, padded to 6 bytes
    assert out[5] == internet_checksum(bytes([3, 1, 2, 3, 0]) + b"\x00") & 0xFF


def test_assign_vl_copies_value_and_length():
    ingress = [{"op": "add_header", "parameters": [{"type": "header", "value": "w"}]},
               {"op": "assign_VL", "parameters": [F("w", "opts"), F("v", "opts")]},
               assign("w", "len", F("v", "len"))]
    sw = SimpleSwitch(vprog(ingress, copy=True))
    out = send(sw, 2, bytes([2, 0xAA, 0xBB, 0x01]))
    assert out == bytes([0]) + bytes([2, 0xAA, 0xBB, 0x01]) + bytes([2, 0xAA, 0xBB, 0x00])


def test_parser_set_of_a_varbit_copies_value_and_length():
    # BMv2's parser 'set' into a varbit field is assign_VL (ParserOpSet<field_t>); p4c
    # writes it for a varbit copied inside a parser
    p = vprog(copy=True)
    p["parsers"][0]["parse_states"][1]["parser_ops"] += [
        {"op": "primitive", "parameters": [
            {"op": "add_header", "parameters": [{"type": "header", "value": "w"}]}]},
        {"op": "set", "parameters": [F("w", "opts"), F("v", "opts")]},
        {"op": "set", "parameters": [F("w", "len"), F("v", "len")]}]
    out = send(SimpleSwitch(p), 2, bytes([2, 0xAA, 0xBB, 0x01]))
    assert out == bytes([0]) + bytes([2, 0xAA, 0xBB, 0x01]) + bytes([2, 0xAA, 0xBB, 0x00])


def vstack_prog(size=2):
    """Two extract_VL into the stack s of (len:8, opts:varbit<64>, tail:8), each opts taking
    h.n bytes; h.n then reports the parser error. p4c writes this for pkt.extract(hdr.s.next, L)."""
    p = program([["n", 8, False]], [assign("h", "n", F("standard_metadata", "parser_error"))],
                extra_headers=[(f"s[{i}]", V_FIELDS) for i in range(size)])
    ids = {h["name"]: h["id"] for h in p["headers"]}
    for ht in p["header_types"]:
        if ht["name"] == "s[0]_t":
            ht["max_length"] = 10
    for h in p["headers"]:
        if h["name"].startswith("s["):
            h["header_type"] = "s[0]_t"        # one type for the elements, as p4c writes them
    p["header_stacks"] = [{"name": "s", "id": 0, "header_type": "s[0]_t", "size": size,
                           "header_ids": [ids[f"s[{i}]"] for i in range(size)]}]
    # as vprog: the report byte h.n gives each element's varbit length in bytes
    op = {"op": "extract_VL", "parameters": [{"type": "stack", "value": "s"}, E("<<", F("h", "n"), X(3))]}
    p["parsers"][0]["parse_states"][1]["parser_ops"] += [op, op]
    return p


def test_extract_vl_fills_the_next_elements_of_a_header_stack():
    sw = SimpleSwitch(vstack_prog())
    body = bytes([2, 0xA, 0xB, 0x77]) + bytes([2, 0xC, 0xD, 0x66])
    assert send(sw, 2, body + b"rest") == bytes([0]) + body + b"rest"


def test_extract_vl_into_a_full_stack_is_stack_out_of_bounds():
    sw = SimpleSwitch(vstack_prog(size=1))
    body = bytes([1, 0xA, 0x77]) + bytes([1, 0xC, 0x66])
    out = send(sw, 1, body)
    assert out[0] == 3                                  # StackOutOfBounds
    assert out[1:] == body                              # s[0] emitted, the rest left as payload
