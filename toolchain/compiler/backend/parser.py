"""Parser converter: parse states, parser ops, transition keys and transitions.

Transition values and masks are the concatenation of the byte-padded key fields
(JSON_format.md, "parsers"): a 12-bit and a 2-bit field make a 3-byte value.
"""
from __future__ import annotations

from ..midend import ir
from . import expressions as ex
from .actions import primitive_argument


def _padded(values: list, widths: list) -> str:
    """Concatenate per-field values, each padded to whole bytes."""
    digits = "".join(f"{v:0{(w + 7) // 8 * 2}x}" for v, w in zip(values, widths))
    return "0x" + digits


def transition(t: ir.Transition, widths: list) -> dict:
    if t.values is None:
        return {"type": "default", "value": None, "mask": None, "next_state": t.next_state}
    value = _padded(t.values, widths)
    mask = None if t.masks is None else _padded(t.masks, widths)
    return {"type": "hexstr", "value": value, "mask": mask, "next_state": t.next_state}


def parser_op(op: ir.ParserOp) -> dict:
    if op.op == "extract":
        (target,) = op.args
        kind = "stack" if isinstance(target, ir.StackArg) else "regular"
        return {"parameters": [{"type": kind, "value": target.name}], "op": "extract"}
    if op.op == "set":
        dst, src = op.args
        return {"parameters": [ex.argument(dst), ex.argument(src)], "op": "set"}
    if op.op == "verify":
        cond, err = op.args
        return {"parameters": [ex.condition(cond), ex.hex_node(err)], "op": "verify"}
    if op.op == "advance":
        (amount,) = op.args
        return {"parameters": [ex.argument(amount)], "op": "advance"}
    if op.op == "primitive":
        (prim,) = op.args
        return {"parameters": [{"op": prim.op,
                                "parameters": [primitive_argument(a) for a in prim.args]}],
                "op": "primitive"}
    raise ValueError(f"unknown parser op {op.op}")


def parse_state(state: ir.ParseState, state_id: int) -> dict:
    obj = {"name": state.name, "id": state_id}      # no source_info here, as p4c
    obj["parser_ops"] = [parser_op(op) for op in state.ops]
    obj["transitions"] = [transition(t, state.key_widths) for t in state.transitions]
    obj["transition_key"] = [ex.data(k) for k in state.key]
    return obj


def parsers(program: ir.Program) -> list:
    out, next_state_id = [], 0
    for i, p in enumerate(program.parsers):
        states = []
        for s in p.states:
            states.append(parse_state(s, next_state_id))
            next_state_id += 1
        out.append({"name": p.name, "id": i, "init_state": p.init_state, "parse_states": states})
    return out
