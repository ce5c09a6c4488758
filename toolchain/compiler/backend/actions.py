"""Action converter: action bodies -> BMv2 primitive lists.

Control flow inside an action body (if/else, return) arrives from the mid end as labels and
jumps; they become BMv2's core `_jump` / `_jump_if_zero` primitives whose offsets are indices
into the enclosing action's primitive list (JSON_format.md, "actions").
"""
from __future__ import annotations

from ..midend import ir
from . import expressions as ex
from .source_info import attach


def primitive_argument(a) -> dict:
    if isinstance(a, ir.HeaderArg):
        return {"type": "header", "value": a.name}
    if isinstance(a, ir.StackArg):
        return {"type": "header_stack", "value": a.name}
    if isinstance(a, ir.NamedArg):
        return {"type": a.kind, "value": a.name}
    if isinstance(a, ir.StringArg):
        return {"type": "string", "value": a.value}
    if isinstance(a, ir.VectorArg):
        return {"type": "parameters_vector", "value": [primitive_argument(x) for x in a.items]}
    if isinstance(a, ir.DataArg):
        return ex.hex_node(a.value, a.width if a.width else None)
    if isinstance(a, ir.Expr):
        # primitives take data (BMv2 ActionPrimitive<const Data &>): a bool argument
        # (assert, assume) is passed as b2d(cond), like _jump_if_zero's condition
        return ex.argument(a)
    raise TypeError(f"unknown primitive argument {a!r}")


def _label_positions(body: list) -> dict:
    positions, index = {}, 0
    for item in body:
        if isinstance(item, ir.Label):
            positions[item.name] = index
        else:
            index += 1
    return positions


def _jump_condition(cond: ir.Expr) -> dict:
    """_jump_if_zero takes data: the condition as 1/0."""
    node = ex.CONVERTER.data(cond)
    return {"type": "expression", "value": node} if node["type"] == "expression" else node


def action_body(body: list) -> list:
    positions = _label_positions(body)
    out = []
    for item in body:
        if isinstance(item, ir.Label):
            continue
        if isinstance(item, ir.Jump):
            out.append({"op": "_jump",
                        "parameters": [ex.hex_node(positions[item.target.name], 32)]})
        elif isinstance(item, ir.JumpIfFalse):
            out.append({"op": "_jump_if_zero",
                        "parameters": [_jump_condition(item.cond),
                                       ex.hex_node(positions[item.target.name], 32)]})
        else:
            prim = {"op": item.op, "parameters": [primitive_argument(a) for a in item.args]}
            out.append(attach(prim, item.source))
    return out


def actions(program: ir.Program) -> tuple[list, dict]:
    """All actions, and name -> id for tables."""
    out, ids = [], {}
    for i, a in enumerate(program.actions):
        ids[a.name] = i
        # p4c puts source_info on the primitives, not on the action object
        out.append({"name": a.name, "id": i,
                    "runtime_data": [{"name": n, "bitwidth": w} for n, w in a.params],
                    "primitives": action_body(a.body)})
    return out, ids
