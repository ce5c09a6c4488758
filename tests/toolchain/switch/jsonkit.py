"""Build small BMv2 JSON programs inside tests (the shapes p4c-bm2-ss emits).

``program(fields=..., ingress=[primitives], egress=[primitives])`` makes a v1model program
with one packet header ``h`` (the given fields) after a 14-byte Ethernet header ``eth``
(ether_type 0x88B5 selects ``h``), whose ingress runs the given primitives in one action and
sends the packet to port 1. Helpers build operands: ``F("h", "a")``, ``X(5)``, ``E(op, l, r)``.
"""

from __future__ import annotations

import copy

STD_FIELDS = [["ingress_port", 9, False], ["egress_spec", 9, False], ["egress_port", 9, False],
              ["instance_type", 32, False], ["packet_length", 32, False], ["enq_timestamp", 32, False],
              ["enq_qdepth", 19, False], ["deq_timedelta", 32, False], ["deq_qdepth", 19, False],
              ["ingress_global_timestamp", 48, False], ["egress_global_timestamp", 48, False],
              ["mcast_grp", 16, False], ["egress_rid", 16, False], ["checksum_error", 1, False],
              ["parser_error", 32, False], ["priority", 3, False], ["_padding", 3, False]]
ERRORS = [["NoError", 0], ["PacketTooShort", 1], ["NoMatch", 2], ["StackOutOfBounds", 3],
          ["HeaderTooShort", 4], ["ParserTimeout", 5], ["ParserInvalidArgument", 6]]
ETH_FIELDS = [["dst", 48, False], ["src", 48, False], ["ether_type", 16, False]]
ETHERTYPE_H = 0x88B5


def F(h: str, f: str) -> dict:
    return {"type": "field", "value": [h, f]}


def X(v: int) -> dict:
    return {"type": "hexstr", "value": hex(v) if v >= 0 else "-" + hex(-v)}


def E(op: str, left, right, cond=None) -> dict:
    e = {"op": op, "left": left, "right": right}
    if cond is not None:
        e["cond"] = cond
    return {"type": "expression", "value": {"type": "expression", "value": e}}


def P(i: int) -> dict:
    return {"type": "runtime_data", "value": i}


def prim(op: str, *params) -> dict:
    return {"op": op, "parameters": list(params)}


def assign(h: str, f: str, src) -> dict:
    return prim("assign", F(h, f), src)


def action(name: str, aid: int, primitives: list, params=()) -> dict:
    return {"name": name, "id": aid, "runtime_data": [{"name": n, "bitwidth": w} for n, w in params],
            "primitives": primitives}


def keyless_table(name: str, tid: int, action_name: str, action_id: int, next_=None) -> dict:
    return {"name": name, "id": tid, "key": [], "match_type": "exact", "type": "simple", "max_size": 1024,
            "with_counters": False, "support_timeout": False, "direct_meters": None,
            "action_ids": [action_id], "actions": [action_name], "base_default_next": next_,
            "next_tables": {action_name: next_},
            "default_entry": {"action_id": action_id, "action_const": True, "action_data": [],
                              "action_entry_const": True}}


def program(fields, ingress=(), egress=(), *, metadata=(), extra_headers=(), egress_port=1) -> dict:
    """A program: parse eth then h (if ether_type 0x88B5); ingress sets egress_spec then runs
    ``ingress`` primitives; egress runs ``egress`` primitives; deparse eth, h."""
    header_types = [
        {"name": "scalars_0", "id": 0, "fields": [list(m) for m in metadata]},
        {"name": "standard_metadata", "id": 1, "fields": copy.deepcopy(STD_FIELDS)},
        {"name": "eth_t", "id": 2, "fields": copy.deepcopy(ETH_FIELDS)},
        {"name": "h_t", "id": 3, "fields": [list(f) for f in fields]},
    ]
    headers = [
        {"name": "scalars", "id": 0, "header_type": "scalars_0", "metadata": True, "pi_omit": True},
        {"name": "standard_metadata", "id": 1, "header_type": "standard_metadata", "metadata": True, "pi_omit": True},
        {"name": "eth", "id": 2, "header_type": "eth_t", "metadata": False, "pi_omit": True},
        {"name": "h", "id": 3, "header_type": "h_t", "metadata": False, "pi_omit": True},
    ]
    for i, (name, tfields) in enumerate(extra_headers):
        header_types.append({"name": f"{name}_t", "id": 10 + i, "fields": [list(f) for f in tfields]})
        headers.append({"name": name, "id": 10 + i, "header_type": f"{name}_t", "metadata": False,
                        "pi_omit": True})
    actions = [
        action("set_port", 0, [assign("standard_metadata", "egress_spec", X(egress_port))] + list(ingress)),
        action("egress_act", 1, list(egress)),
    ]
    return {
        "header_types": header_types, "headers": headers, "header_stacks": [], "header_union_types": [],
        "header_unions": [], "header_union_stacks": [], "field_lists": [], "errors": copy.deepcopy(ERRORS),
        "enums": [],
        "parsers": [{"name": "parser", "id": 0, "init_state": "start", "parse_states": [
            {"name": "start", "id": 0,
             "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "eth"}]}],
             "transition_key": [F("eth", "ether_type")],
             "transitions": [{"type": "hexstr", "value": hex(ETHERTYPE_H), "mask": None, "next_state": "parse_h"},
                             {"type": "default", "value": None, "mask": None, "next_state": None}]},
            {"name": "parse_h", "id": 1,
             "parser_ops": [{"op": "extract", "parameters": [{"type": "regular", "value": "h"}]}],
             "transition_key": [],
             "transitions": [{"type": "default", "value": None, "mask": None, "next_state": None}]},
        ]}],
        "parse_vsets": [],
        "deparsers": [{"name": "deparser", "id": 0, "order": ["eth", "h"] + [n for n, _ in extra_headers],
                       "primitives": []}],
        "meter_arrays": [], "counter_arrays": [], "register_arrays": [], "calculations": [], "learn_lists": [],
        "actions": actions,
        "pipelines": [
            {"name": "ingress", "id": 0, "init_table": "tbl_ingress", "action_profiles": [], "conditionals": [],
             "tables": [keyless_table("tbl_ingress", 0, "set_port", 0)]},
            {"name": "egress", "id": 1, "init_table": "tbl_egress", "action_profiles": [], "conditionals": [],
             "tables": [keyless_table("tbl_egress", 1, "egress_act", 1)]},
        ],
        "checksums": [], "force_arith": [], "extern_instances": [], "field_aliases": [],
        "program": "test.p4", "__meta__": {"version": [2, 23], "compiler": "tests"},
    }


def frame(payload: bytes, ether_type: int = ETHERTYPE_H) -> bytes:
    return bytes(6) + bytes.fromhex("000000000001") + ether_type.to_bytes(2, "big") + payload


def pack(fields, values: dict) -> bytes:
    """Bytes of header h with ``values`` (unset fields 0); widths must total whole bytes."""
    v, total = 0, 0
    for name, width, _ in fields:
        v = (v << width) | (values.get(name, 0) & ((1 << width) - 1))
        total += width
    assert total % 8 == 0
    return v.to_bytes(total // 8, "big")


def unpack(fields, data: bytes, *, signed: bool = True) -> dict:
    total = sum(w for _, w, _ in fields)
    v = int.from_bytes(data[: total // 8], "big")
    out, shift = {}, total
    for name, width, sgn in fields:
        shift -= width
        x = (v >> shift) & ((1 << width) - 1)
        if sgn and signed and x >> (width - 1):
            x -= 1 << width
        out[name] = x
    return out
