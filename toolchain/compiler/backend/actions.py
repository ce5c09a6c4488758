"""Action converter: action bodies -> BMv2 primitive lists.

Control flow inside an action body (if/else, return) arrives from the mid end as labels and
jumps; they become BMv2's core `_jump` / `_jump_if_zero` primitives whose offsets are indices
into the enclosing action's primitive list (JSON_format.md, "actions").
"""
from __future__ import annotations

from ..midend import ir
from . import expressions as ex
from .bmv2_primitives import FIELD, FIELD_LIST_ARGUMENT, LVALUE, PRIMITIVES
from .source_info import attach

DESTINATIONS = {LVALUE, FIELD}


def primitive_arguments(op: str, args: list) -> list:
    """Arguments of one primitive call; those the primitive writes (its C++ `Data &` /
    `Field &` parameters, bmv2_primitives.PRIMITIVES) are converted as destinations."""
    signature = PRIMITIVES.get(op, ())
    return [ex.lvalue(a) if isinstance(a, ir.Expr) and k < len(signature)
            and signature[k] in DESTINATIONS else primitive_argument(a)
            for k, a in enumerate(args)]


def primitive_argument(a) -> dict:
    if isinstance(a, ir.HeaderArg):
        return {"type": "header", "value": a.name}
    if isinstance(a, ir.StackArg):
        return {"type": "header_stack", "value": a.name}
    if isinstance(a, ir.StackElementArg):
        # an expression argument wraps the expression node once more (BMv2
        # process_primitive_call builds its "value"), as p4c's convert(..., wrap=true)
        return {"type": "expression", "value": ex.CONVERTER.stack_element(a.stack, a.index)}
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


def _field_list_renumbered(prim: ir.Primitive, field_list_ids: dict) -> list:
    """The primitive's arguments with its field list id replaced by the BMv2 one."""
    args = list(prim.args)
    pos = FIELD_LIST_ARGUMENT.get(prim.op)
    if pos is not None and isinstance(args[pos], ir.DataArg) and args[pos].value in field_list_ids:
        old = args[pos]
        args[pos] = ir.DataArg(field_list_ids[old.value], old.width)
    return args


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


def action_body(body: list, field_list_ids: dict | None = None) -> list:
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
            args = _field_list_renumbered(item, field_list_ids or {})
            prim = {"op": item.op, "parameters": primitive_arguments(item.op, args)}
            out.append(attach(prim, item.source))
    return out


def actions(program: ir.Program, field_list_ids: dict | None = None) -> tuple[list, dict]:
    """All actions, and name -> id for tables; field_list_ids maps mid-end field list ids
    to the emitted ones (externs.field_list_ids)."""
    out, ids = [], {}
    for i, a in enumerate(program.actions):
        ids[a.name] = i
        # p4c puts source_info on the primitives, not on the action object
        out.append({"name": ir.json_action_name(a.name), "id": i,
                    "runtime_data": [{"name": n, "bitwidth": w} for n, w in a.params],
                    "primitives": action_body(a.body, field_list_ids)})
    return out, ids
