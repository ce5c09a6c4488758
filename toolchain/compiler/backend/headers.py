"""Header converter: header types, header instances, header stacks, errors and enums."""
from __future__ import annotations

from ..diagnostics import CompileError
from ..midend import ir


def header_types(program: ir.Program) -> list:
    """An int<1> field is declared unsigned: BMv2's Field constructor asserts that a signed
    field has more than one bit (fields.cpp; JSON_format.md "header_types"). Reads of such
    a field are sign-extended by the expression converter instead (expressions.py)."""
    return [header_type(t, i) for i, t in enumerate(program.header_types)]


def header_type(t: ir.HeaderType, type_id: int) -> dict:
    """A varbit field is ["name", "*"] and the type gets "max_length", its largest size in
    bytes (JSON_format.md "header_types"; p4c's HeaderConverter::addHeaderType)."""
    fields = [[n, "*"] if n == t.varbit else [n, w, bool(s) and w > 1] for n, w, s in t.fields]
    obj = {"name": t.name, "id": type_id, "fields": fields}
    if t.varbit is not None:
        obj["max_length"] = (sum(w for _, w, _ in t.fields) + 7) // 8
    return obj


def headers(program: ir.Program) -> tuple[list, dict]:
    """Instances in declaration order; also returns name -> id for the stacks."""
    out, ids = [], {}
    for i, h in enumerate(program.headers):
        ids[h.name] = i
        out.append({"name": h.name, "id": i, "header_type": h.type_name,
                    "metadata": h.metadata, "pi_omit": True})
    return out, ids


def header_stacks(program: ir.Program, header_ids: dict) -> list:
    return [
        {"name": s.name, "id": i, "header_type": s.type_name, "size": len(s.elements),
         "header_ids": [header_ids[e] for e in s.elements]}
        for i, s in enumerate(program.stacks)
    ]


def header_union_types(program: ir.Program) -> list:
    """JSON_format.md "header_union_types" (p4c's JsonObjects::add_union_type)."""
    return [{"name": t.name, "id": i, "headers": [[m, ht] for m, ht in t.members]}
            for i, t in enumerate(program.header_union_types)]


def header_unions(program: ir.Program, header_ids: dict) -> list:
    """JSON_format.md "header_unions" (p4c's JsonObjects::add_union): with them BMv2 keeps
    at most one member valid itself, which a union stack extract needs."""
    return [{"name": u.name, "id": i, "union_type": u.type_name,
             "header_ids": [header_ids[h] for _, h in u.members], "pi_omit": True}
            for i, u in enumerate(program.header_unions)]


def header_union_stacks(program: ir.Program) -> list:
    """JSON_format.md "header_union_stacks" (p4c's JsonObjects::add_header_union_stack)."""
    union_ids = {u.name: i for i, u in enumerate(program.header_unions)}
    return [{"name": s.name, "id": i, "union_type": s.type_name, "size": len(s.elements),
             "header_union_ids": [union_ids[e] for e in s.elements]}
            for i, s in enumerate(program.header_union_stacks)]


def errors(program: ir.Program) -> list:
    return [[name, value] for name, value in program.errors]


def enums(program: ir.Program) -> list:
    return [{"name": name, "entries": [[m, v] for m, v in members]}
            for name, members in program.enums]


def check_byte_aligned(program: ir.Program) -> None:
    """Refuse a packet header type whose fields do not fill whole bytes, as p4c's BMv2 back
    end does (backends/bmv2/common/header.cpp: "BMv2 target only supports headers with
    fields totaling a multiple of 8 bits"). simple_switch's loader does not check it, but
    it extracts and emits headers in whole bytes, so such a header would be misparsed.
    Metadata types are padded by the mid end and are not affected."""
    packet_types = {h.type_name for h in program.headers if not h.metadata}
    packet_types |= {s.type_name for s in program.stacks}
    for t in program.header_types:
        bits = sum(w for _, w, _ in t.fields)
        if t.name in packet_types and bits % 8:
            raise CompileError.at(None, f"header type '{t.name}': its fields total {bits} bits; "
                                        "BMv2 (simple_switch) only supports headers whose "
                                        "fields total a multiple of 8 bits")
