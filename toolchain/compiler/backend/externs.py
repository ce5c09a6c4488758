"""Extern converter: the stateful arrays, calculations, field lists and learn lists.

One function per v1model extern object kind; the primitives that use them (register_read,
count, execute_meter, modify_field_with_hash_based_offset, ...) are chosen by the mid end's
extern lowering (midend/externs.py) and serialised by actions.py.
"""
from __future__ import annotations

from ..midend import ir
from . import expressions as ex
from .source_info import attach


def register_arrays(program: ir.Program) -> list:
    return [attach({"name": r.name, "id": i}, r.source) | {"size": r.size, "bitwidth": r.bitwidth}
            for i, r in enumerate(program.registers)]


def _attached(obj) -> bool:
    """A direct counter/meter no table lists (`counters =` / `meters =`) can never count
    or be programmed; p4c drops it (its converter returns early when the direct meter has
    no table) and BMv2 would fail to resolve a direct meter's missing result_target."""
    return not obj.is_direct or obj.binding is not None


def counter_arrays(program: ir.Program) -> list:
    out = []
    for i, c in enumerate(c for c in program.counters if _attached(c)):
        obj = attach({"name": c.name, "id": i}, c.source)
        obj.update({"size": c.size, "is_direct": c.is_direct})
        if c.is_direct:
            obj["binding"] = c.binding
        out.append(obj)
    return out


def meter_arrays(program: ir.Program) -> list:
    out = []
    for i, m in enumerate(m for m in program.meters if _attached(m)):
        obj = attach({"name": m.name, "id": i}, m.source)
        obj.update({"is_direct": m.is_direct, "rate_count": 2, "type": m.type, "size": m.size})
        if m.is_direct:
            obj["binding"] = m.binding
            target = m.result_target
            obj["result_target"] = None if target is None else [target.header, target.field]
        out.append(obj)
    return out


def _calc_input(item) -> dict:
    if item == "payload":
        return {"type": "payload", "value": None}
    if isinstance(item, ir.Const):
        return {"type": "hexstr", "value": ex.hexstr(item.value, item.type.width),
                "bitwidth": item.type.width}
    if isinstance(item, ir.HeaderArg):
        return {"type": "header", "value": item.name}
    return {"type": "field", "value": [item.header, item.field]}


def calculations(program: ir.Program) -> list:
    out = []
    for i, c in enumerate(program.calculations):
        obj = attach({"name": c.name, "id": i}, c.source)
        obj.update({"algo": c.algo, "input": [_calc_input(x) for x in c.inputs]})
        out.append(obj)
    return out


def field_list_ids(program: ir.Program) -> dict:
    """The BMv2 id of each field list (mid-end id -> 1, 2, ... in program order).

    The mid end identifies a list by its @field_list index, which may be 0. In BMv2 the id
    doubles as a flag: simple_switch resubmits / recirculates only when the id stored by
    the primitive is non-zero (simple_switch.cpp, ingress_thread / egress_thread), so a
    list numbered 0 would silently never be used. p4c numbers field lists from 1 for this
    reason (backends/bmv2/simple_switch: nextId("field_lists") is drawn once up front) and
    names them "field_list<index>"; the name keeps the index, the id is only a handle.
    """
    return {fl.id: i for i, fl in enumerate(program.field_lists, start=1)}


def field_lists(program: ir.Program, ids: dict) -> list:
    return [{"id": ids[fl.id], "name": fl.name,
             "elements": [{"type": "field", "value": [f.header, f.field]} for f in fl.fields]}
            for fl in program.field_lists]


def learn_lists(program: ir.Program) -> list:
    return [{"id": ll.id, "name": ll.name,
             "elements": [{"type": "field", "value": [f.header, f.field]} for f in ll.fields]}
            for ll in program.learn_lists]
