"""v1model extern calls -> BMv2 primitives: one converter per extern function or method.

The primitive names and argument orders are simple_switch's (behavioral-model
targets/simple_switch/primitives.cpp as documented in docs/simple_switch.md and
JSON_format.md). Each converter takes already-lowered arguments (ir expressions and names)
and returns the primitives; the mid end's statement lowering decides which one applies.
"""
from __future__ import annotations

from typing import Optional

from . import ir

CLONE_PRIMITIVES = {"I2E": "clone_ingress_pkt_to_egress", "E2E": "clone_egress_pkt_to_egress"}
HASH_ALGORITHMS = {"crc32", "crc32_custom", "crc16", "crc16_custom", "random", "identity",
                   "csum16", "xor16"}
CHECKSUM_ALGORITHMS = {"csum16", "crc16", "crc32", "identity", "xor16"}
METER_TYPES = {"packets", "bytes"}


def mark_to_drop(source: Optional[ir.SourceInfo]) -> ir.Primitive:
    """simple_switch: egress_spec = 511 (and mcast_grp = 0) through the standard metadata."""
    return ir.Primitive("mark_to_drop", [ir.HeaderArg("standard_metadata")], source)


def register_read(dst: ir.FieldRef, register: str, index: ir.Expr, source) -> ir.Primitive:
    return ir.Primitive("register_read", [dst, ir.NamedArg("register_array", register), index],
                        source)


def register_write(register: str, index: ir.Expr, value: ir.Expr, source) -> ir.Primitive:
    return ir.Primitive("register_write", [ir.NamedArg("register_array", register), index, value],
                        source)


def counter_count(counter: str, index: ir.Expr, source) -> ir.Primitive:
    return ir.Primitive("count", [ir.NamedArg("counter_array", counter), index], source)


def meter_execute(meter: str, index: ir.Expr, dst: ir.FieldRef, source) -> ir.Primitive:
    return ir.Primitive("execute_meter", [ir.NamedArg("meter_array", meter), index, dst], source)


def hash_call(dst: ir.FieldRef, base: ir.Expr, calculation: str, max_: ir.Expr,
              source) -> ir.Primitive:
    """hash(): dst = base + calc(data) mod max (simple_switch's hash-based-offset primitive)."""
    return ir.Primitive("modify_field_with_hash_based_offset",
                        [dst, base, ir.NamedArg("calculation", calculation), max_], source)


def random_call(dst: ir.FieldRef, lo: ir.Expr, hi: ir.Expr, source) -> ir.Primitive:
    return ir.Primitive("modify_field_rng_uniform", [dst, lo, hi], source)


def resubmit(field_list: int, source) -> ir.Primitive:
    return ir.Primitive("resubmit", [ir.DataArg(field_list, 0)], source)


def recirculate(field_list: int, source) -> ir.Primitive:
    return ir.Primitive("recirculate", [ir.DataArg(field_list, 0)], source)


def clone(kind: str, session: ir.Expr, field_list: int, source) -> ir.Primitive:
    return ir.Primitive(CLONE_PRIMITIVES[kind], [session, ir.DataArg(field_list, 0)], source)


def truncate(length: ir.Expr, source) -> ir.Primitive:
    return ir.Primitive("truncate", [length], source)


def assertion(kind: str, cond: ir.Expr, source) -> ir.Primitive:
    return ir.Primitive(kind, [cond], source)


def log_msg(message: str, values: list, source) -> ir.Primitive:
    return ir.Primitive("log_msg", [ir.StringArg(message), ir.VectorArg(tuple(values))], source)


def digest(receiver: ir.Expr, learn_list: int, source) -> ir.Primitive:
    return ir.Primitive("generate_digest", [receiver, ir.DataArg(learn_list, 0)], source)


def set_valid(header: str, valid: bool, source) -> ir.Primitive:
    return ir.Primitive("add_header" if valid else "remove_header", [ir.HeaderArg(header)],
                        source)


def stack_shift(stack: str, count: int, front_push: bool, source) -> ir.Primitive:
    """push_front(n) -> push, pop_front(n) -> pop (BMv2 core primitives)."""
    return ir.Primitive("push" if front_push else "pop",
                        [ir.StackArg(stack), ir.DataArg(count, 0)], source)


def exit_(source) -> ir.Primitive:
    return ir.Primitive("exit", [], source)
