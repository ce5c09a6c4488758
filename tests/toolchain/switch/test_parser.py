"""Parser semantics: select with masks/default/value sets, lookahead, verify, parser errors
(PacketTooShort, StackOutOfBounds), header stacks, and what stays valid after an error."""

import itertools

from toolchain.switch import SimpleSwitch

from .jsonkit import E, F, X, assign, frame, pack, program, unpack

FIELDS = [["a", 8, False], ["b", 8, False]]
OUT = [["err", 8, False], ["path", 8, False], ["hv", 8, False]]


_STATE_IDS = itertools.count()


def state(name, ops=(), key=(), transitions=None):
    # parse state ids are unique within a parser (BMv2's DupIdChecker)
    return {"name": name, "id": next(_STATE_IDS), "parser_ops": list(ops), "transition_key": list(key),
            "transitions": transitions or [{"type": "default", "value": None, "mask": None, "next_state": None}]}


def extract(h):
    return {"op": "extract", "parameters": [{"type": "regular", "value": h}]}


def setf(h, f, src):
    return {"op": "set", "parameters": [F(h, f), src]}


def trans(value, next_state, mask=None, type_="hexstr"):
    return {"type": type_, "value": value, "mask": mask, "next_state": next_state}


def report_prog(states, *, stacks=None, extra=()):
    """A program whose ingress writes parser_error, scalars.path and h validity into header o."""
    prog = program(FIELDS, [
        {"op": "add_header", "parameters": [{"type": "header", "value": "o"}]},
        assign("o", "err", F("standard_metadata", "parser_error")),
        assign("o", "path", F("scalars", "path")),
        assign("o", "hv", E("b2d", None, E("d2b", None, F("h", "$valid$")))),
    ], metadata=[["path", 8, False]], extra_headers=[("o", OUT)] + list(extra))
    prog["parsers"][0]["parse_states"] = states
    prog["parsers"][0]["init_state"] = states[0]["name"]
    if stacks:
        prog["header_stacks"] = stacks
    # o first: the report is always the first 3 bytes, the packet as parsed follows
    prog["deparsers"][0]["order"] = ["o", "eth", "h"] + [n for n, _ in extra if n != "o"]
    return prog


def report(sw, payload, port=0):
    out = sw.process(port, payload)
    assert len(out) == 1
    data = out[0][1]
    return data[3:], unpack(OUT, data[:3])


def eth_then_h(h_transitions, key=None):
    return [state("start", [extract("eth")], [F("eth", "ether_type")],
                  [trans("0x88b5", "parse_h"), trans(None, None, type_="default")]),
            state("parse_h", [extract("h")], key or [F("h", "a")], h_transitions)]


def path_state(name, value):
    return state(name, [setf("scalars", "path", X(value))])


def test_select_mask_matches_and_default_falls_through():
    sts = eth_then_h([trans("0x10", "p1", mask="0xf0"), trans("0x03", "p2"), trans(None, "p3", type_="default")])
    sw = SimpleSwitch(report_prog(sts + [path_state("p1", 1), path_state("p2", 2), path_state("p3", 3)]))
    payload = lambda a: frame(pack(FIELDS, {"a": a}))   # noqa: E731
    assert report(sw, payload(0x1F))[1]["path"] == 1
    assert report(sw, payload(0x03))[1]["path"] == 2
    assert report(sw, payload(0x23))[1]["path"] == 3


def test_select_on_two_fields_pads_each_to_bytes():
    # key (h.a: 8 bits, h.b: 8 bits) written as one value 0xAABB, as p4c does
    sts = eth_then_h([trans("0x0102", "p1"), trans(None, None, type_="default")], key=[F("h", "a"), F("h", "b")])
    sw = SimpleSwitch(report_prog(sts + [path_state("p1", 9)]))
    assert report(sw, frame(pack(FIELDS, {"a": 1, "b": 2})))[1]["path"] == 9
    assert report(sw, frame(pack(FIELDS, {"a": 1, "b": 3})))[1]["path"] == 0


def test_lookahead_reads_without_consuming():
    sts = [state("start", [extract("eth"), setf("scalars", "path", {"type": "lookahead", "value": [4, 8]})]),
           ]
    sw = SimpleSwitch(report_prog(sts))
    data, r = report(sw, frame(bytes([0xAB, 0xCD]), ether_type=0x1234))
    assert r["path"] == 0xBC
    assert data[14:16] == bytes([0xAB, 0xCD])      # still in the payload


def test_lookahead_past_the_end_is_packet_too_short():
    sts = [state("start", [extract("eth"), setf("scalars", "path", {"type": "lookahead", "value": [0, 32]})])]
    sw = SimpleSwitch(report_prog(sts))
    assert report(sw, frame(b"\x01", ether_type=0x1234))[1]["err"] == 1


def test_verify_failure_sets_error_and_keeps_extracted_header_valid():
    verify = {"op": "verify", "parameters": [E("==", F("h", "a"), X(4)), X(7)]}
    prog = report_prog(eth_then_h([trans(None, None, type_="default")]))
    prog["parsers"][0]["parse_states"][1]["parser_ops"].append(verify)
    prog["errors"].append(["BadVersion", 7])
    sw = SimpleSwitch(prog)
    assert report(sw, frame(pack(FIELDS, {"a": 4})))[1]["err"] == 0
    _, r = report(sw, frame(pack(FIELDS, {"a": 5})))
    assert r["err"] == 7 and r["hv"] == 1


def test_truncated_header_is_packet_too_short_and_rest_is_payload():
    sw = SimpleSwitch(report_prog(eth_then_h([trans(None, None, type_="default")])))
    data, r = report(sw, frame(b"\x09"))           # h needs 2 bytes, 1 present
    assert r["err"] == 1 and r["hv"] == 0
    assert data[14:15] == b"\x09"                    # the unparsed byte is kept as payload


def test_truncated_ethernet_still_goes_through_ingress():
    sw = SimpleSwitch(report_prog(eth_then_h([trans(None, None, type_="default")])))
    data, r = report(sw, bytes(5))
    assert r["err"] == 1 and data == bytes(5)


def test_empty_frame_does_not_crash():
    sw = SimpleSwitch(report_prog(eth_then_h([trans(None, None, type_="default")])))
    out = sw.process(0, b"")
    assert len(out) == 1 and len(out[0][1]) == 3     # only the report header


def test_value_set_transition_matches_values_added_by_the_cli():
    sts = eth_then_h([trans("pvs", "p1", type_="parse_vset"), trans(None, None, type_="default")])
    prog = report_prog(sts + [path_state("p1", 5)])
    prog["parse_vsets"] = [{"name": "pvs", "id": 0, "compressed_bitwidth": 8, "max_size": 4}]
    sw = SimpleSwitch(prog)
    assert report(sw, frame(pack(FIELDS, {"a": 7})))[1]["path"] == 0
    sw.cli("pvs_add pvs 7")
    assert report(sw, frame(pack(FIELDS, {"a": 7})))[1]["path"] == 5
    sw.cli("pvs_remove pvs 7")
    assert report(sw, frame(pack(FIELDS, {"a": 7})))[1]["path"] == 0


LABEL = [["label", 20, False], ["bos", 4, False], ["ttl", 8, False]]


def stack_prog():
    sts = [state("start", [extract("eth")], [F("eth", "ether_type")],
                 [trans("0x8847", "lbl"), trans(None, None, type_="default")]),
           state("lbl", [{"op": "extract", "parameters": [{"type": "stack", "value": "labels"}]},
                         setf("scalars", "path", E("&", E("+", F("scalars", "path"), X(1)), X(0xFF)))],
                 [{"type": "stack_field", "value": ["labels", "bos"]}],
                 [trans("0x01", None), trans(None, "lbl", type_="default")])]
    extra = [(f"labels[{i}]", LABEL) for i in range(3)]
    prog = report_prog(sts, extra=extra)
    ids = {h["name"]: h["id"] for h in prog["headers"]}
    prog["header_stacks"] = [{"name": "labels", "id": 0, "header_type": "labels[0]_t", "size": 3,
                              "header_ids": [ids[f"labels[{i}]"] for i in range(3)]}]
    # the three elements share one header type, as p4c writes them
    for h in prog["headers"]:
        if h["name"].startswith("labels["):
            h["header_type"] = "labels[0]_t"
    prog["deparsers"][0]["order"] = ["o", "eth", "labels[0]", "labels[1]", "labels[2]"]
    return prog


def labels(*vals):
    return b"".join(((v << 12) | (bos << 8) | 64).to_bytes(4, "big") for v, bos in vals)


def test_stack_next_and_last_parse_until_bottom_of_stack():
    sw = SimpleSwitch(stack_prog())
    data, r = report(sw, frame(labels((1, 0), (2, 1)) + b"\xee", ether_type=0x8847))
    assert r["path"] == 2 and r["err"] == 0
    assert data[14:22] == labels((1, 0), (2, 1)) and data[22:23] == b"\xee"


def test_stack_overflow_is_stack_out_of_bounds_and_parsed_elements_stay():
    sw = SimpleSwitch(stack_prog())
    data, r = report(sw, frame(labels((1, 0), (2, 0), (3, 0), (4, 1)), ether_type=0x8847))
    assert r["err"] == 3 and r["path"] == 3
    assert data[14:26] == labels((1, 0), (2, 0), (3, 0))
    assert data[26:30] == labels((4, 1))           # the fourth label is left as payload


def test_transitions_without_type_as_older_p4c_writes_them():
    # p4c before JSON format 2.23 wrote {"value": "default"} and {"value": "0x.."} without "type"
    sts = eth_then_h([{"value": "0x03", "mask": None, "next_state": "p2"},
                      {"value": "default", "mask": None, "next_state": None}])
    sw = SimpleSwitch(report_prog(sts + [path_state("p2", 2)]))
    assert report(sw, frame(pack(FIELDS, {"a": 3})))[1]["path"] == 2
    assert report(sw, frame(pack(FIELDS, {"a": 4})))[1]["path"] == 0


def test_wide_fields_of_three_or_more_words_survive_extract_and_emit():
    # a field wider than 128 bits is unpacked as several 64-bit words and re-joined: the
    # join must shift the partial value, not only the newest word (p4c's issue1879-bmv2
    # carries a bit<336> preamble)
    for width in (136, 200, 336):
        fields = [["wide", width, False], ["tail", 8, False]]
        sw = SimpleSwitch.from_json(program(fields))
        payload = bytes(range(1, width // 8 + 2))
        (port, data), = sw.process(0, frame(payload))
        assert data == frame(payload), width


def test_cyclic_parser_without_progress_ends_in_parser_timeout():
    # a state that loops to itself on a lookahead never consumes a byte; the library stops
    # it after MAX_PARSER_STATES visits (BMv2 would hang) and the packet still reaches ingress
    spin = state("spin", [setf("scalars", "path", {"type": "lookahead", "value": [0, 8]})],
                 [], [trans(None, "spin", type_="default")])
    sts = eth_then_h([trans(None, "spin", type_="default")]) + [spin]
    sw = SimpleSwitch(report_prog(sts))
    data, r = report(sw, frame(pack(FIELDS, {"a": 1}) + b"\x42"))
    assert r["err"] == 5 and r["hv"] == 1 and r["path"] == 0x42


def chain_prog(length):
    """eth -> s0 -> s1 -> ... -> s<length-1>: each state adds 1 to path and selects on h.a
    (a conditional transition, so every inlined state nests one block deeper)."""
    sts = eth_then_h([trans(None, "s0", type_="default")])
    for i in range(length):
        nxt = f"s{i + 1}" if i + 1 < length else None
        sts.append(state(f"s{i}", [setf("scalars", "path", E("&", E("+", F("scalars", "path"), X(1)), X(0xFF)))],
                         [F("h", "a")], [trans("0x00", None), trans(None, nxt, type_="default")]))
    return report_prog(sts)


def test_long_chain_of_single_successor_states_compiles_and_runs_every_state():
    # states reached by one transition are written in place; a chain longer than the inlining
    # depth goes back through the dispatch loop instead of nesting past Python's block limit
    sw = SimpleSwitch(chain_prog(120))
    assert report(sw, frame(pack(FIELDS, {"a": 1})))[1]["path"] == 120
    assert report(sw, frame(pack(FIELDS, {"a": 0})))[1]["path"] == 1


def test_state_reached_from_two_paths_runs_once_on_either():
    # a diamond: h.a selects p1 or p2, both go on to "join"; join is dispatched by the loop
    join = state("join", [setf("scalars", "path", E("&", E("+", F("scalars", "path"), X(10)), X(0xFF)))])
    p1 = state("p1", [setf("scalars", "path", X(1))], [], [trans(None, "join", type_="default")])
    p2 = state("p2", [setf("scalars", "path", X(2))], [], [trans(None, "join", type_="default")])
    sts = eth_then_h([trans("0x01", "p1"), trans(None, "p2", type_="default")]) + [p1, p2, join]
    sw = SimpleSwitch(report_prog(sts))
    assert report(sw, frame(pack(FIELDS, {"a": 1})))[1]["path"] == 11
    assert report(sw, frame(pack(FIELDS, {"a": 7})))[1]["path"] == 12
