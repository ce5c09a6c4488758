"""Parser converter: parse states, parser ops, transition keys and transitions.

Transition values and masks are the concatenation of the byte-padded key fields
(JSON_format.md, "parsers"): a 12-bit and a 2-bit field make a 3-byte value.
"""
from __future__ import annotations

from ..midend import ir
from . import expressions as ex
from .actions import primitive_arguments


def _padded(values: list, widths: list) -> str:
    """Concatenate per-field values, each padded to whole bytes."""
    digits = "".join(f"{v:0{(w + 7) // 8 * 2}x}" for v, w in zip(values, widths))
    return "0x" + digits


def transition(t: ir.Transition, widths: list) -> dict:
    if t.value_set is not None:
        return {"type": "parse_vset", "value": t.value_set, "mask": None,
                "next_state": t.next_state}
    if t.values is None:
        return {"type": "default", "value": None, "mask": None, "next_state": t.next_state}
    value = _padded(t.values, widths)
    mask = None if t.masks is None else _padded(t.masks, widths)
    return {"type": "hexstr", "value": value, "mask": mask, "next_state": t.next_state}


# The operand kinds BMv2's loader takes for a parser `set` source and an `advance` amount
# (P4Objects::init_parsers); any other value (a last-element stack field, a header-stack
# expression...) must be wrapped as an expression, which build_expression evaluates.
SET_SOURCES = {"field", "hexstr", "lookahead", "expression"}
ADVANCE_OPERANDS = {"field", "hexstr", "expression"}


def _as_operand(node: dict, accepted: set) -> dict:
    return node if node["type"] in accepted else {"type": "expression", "value": node}


def _set(dst: dict, src: dict) -> dict:
    """A parser assignment. BMv2's `set` op only writes a plain field (init_parsers rejects
    any other destination type); a stack element (`hs.last.f`, `hs[i].f`) is written by the
    core `assign` primitive run as a parser op, as p4c does."""
    if dst["type"] == "field":
        return {"parameters": [dst, _as_operand(src, SET_SOURCES)], "op": "set"}
    if src["type"] == "lookahead":
        # lookahead is a parser `set` source only (not an expression or primitive operand)
        raise ex.ExpressionError("lookahead assigned to a non-field destination: the mid end "
                                 "must set a temporary field first")
    return {"parameters": [{"op": "assign", "parameters": [dst, src]}], "op": "primitive"}


def _extract_target(target) -> dict:
    if isinstance(target, ir.UnionStackArg):
        # stack.next.member of a header union stack (p4c's ParserConverter: "union_stack")
        return {"type": "union_stack", "value": [target.stack, target.member]}
    kind = "stack" if isinstance(target, ir.StackArg) else "regular"
    return {"type": kind, "value": target.name}


def _transition_key(k: ir.Expr) -> dict:
    """A key element; `u.last.m.f` of a header union stack is a "union_stack_field", which
    BMv2 reads in a transition_key only (JSON_format.md), so it has no expression form."""
    if isinstance(k, ir.UnionStackLastField):
        return {"type": "union_stack_field", "value": [k.stack, k.member, k.field]}
    return ex.data(k)


def _varbit_length(length: ir.Expr) -> dict:
    """extract_VL's length: an "expression" whose value is itself a type/value node (a field,
    a hexstr or an expression tree), because BMv2's loader hands that value to
    build_expression (P4Objects::init_parsers); p4c's ParserConverter wraps it the same way."""
    return {"type": "expression", "value": ex.data(length)}


def parser_op(op: ir.ParserOp) -> dict:
    if op.op == "extract":
        (target,) = op.args
        return {"parameters": [_extract_target(target)], "op": "extract"}
    if op.op == "extract_VL":
        target, length = op.args
        return {"parameters": [_extract_target(target), _varbit_length(length)],
                "op": "extract_VL"}
    if op.op == "set":
        dst, src = op.args
        return _set(ex.lvalue(dst), ex.argument(src))
    if op.op == "verify":
        cond, err = op.args
        # a constant error is a hexstr (as p4c); a variable one an expression node
        err_node = ex.hex_node(err) if isinstance(err, int) else ex.data(err)
        return {"parameters": [ex.condition(cond), err_node], "op": "verify"}
    if op.op == "advance":
        (amount,) = op.args
        return {"parameters": [_as_operand(ex.argument(amount), ADVANCE_OPERANDS)],
                "op": "advance"}
    if op.op == "primitive":
        (prim,) = op.args
        return {"parameters": [{"op": prim.op,
                                "parameters": primitive_arguments(prim.op, prim.args)}],
                "op": "primitive"}
    raise ValueError(f"unknown parser op {op.op}")


def parse_state(state: ir.ParseState, state_id: int) -> dict:
    obj = {"name": state.name, "id": state_id}      # no source_info here, as p4c
    obj["parser_ops"] = [parser_op(op) for op in state.ops]
    obj["transitions"] = [transition(t, state.key_widths) for t in state.transitions]
    obj["transition_key"] = [_transition_key(k) for k in state.key]
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


def parse_vsets(program: ir.Program) -> list:
    """JSON_format.md "parse_vsets" (p4c's JsonObjects::add_parse_vset)."""
    return [{"name": v.name, "id": i, "compressed_bitwidth": v.bitwidth, "max_size": v.size}
            for i, v in enumerate(program.parse_vsets)]
