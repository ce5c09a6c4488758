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


def counter_arrays(program: ir.Program) -> list:
    out = []
    for i, c in enumerate(program.counters):
        obj = attach({"name": c.name, "id": i}, c.source)
        obj.update({"size": c.size, "is_direct": c.is_direct})
        if c.is_direct:
            obj["binding"] = c.binding
        out.append(obj)
    return out


def meter_arrays(program: ir.Program) -> list:
    out = []
    for i, m in enumerate(program.meters):
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


def field_lists(program: ir.Program) -> list:
    return [{"id": fl.id, "name": fl.name,
             "elements": [{"type": "field", "value": [f.header, f.field]} for f in fl.fields]}
            for fl in program.field_lists]


def learn_lists(program: ir.Program) -> list:
    return [{"id": ll.id, "name": ll.name,
             "elements": [{"type": "field", "value": [f.header, f.field]} for f in ll.fields]}
            for ll in program.learn_lists]
