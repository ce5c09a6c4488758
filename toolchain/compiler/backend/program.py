"""Assemble the BMv2 JSON document in the key order p4c 1.2.4 writes."""
from __future__ import annotations

from ..diagnostics import CompileError
from ..midend import ir
from . import actions, checksums, controls, deparser, externs, headers, parser

BMV2_JSON_VERSION = [2, 23]    # JSON_format.md "Current bmv2 JSON format version"
COMPILER_ID = "rdtcp-lab toolchain.compiler"


def emit_program(program: ir.Program) -> dict:
    doc = _document(program)
    check_numbers(doc)
    return doc


def _document(program: ir.Program) -> dict:
    headers.check_byte_aligned(program)
    header_list, header_ids = headers.headers(program)
    list_ids = externs.field_list_ids(program)
    action_list, action_ids = actions.actions(program, list_ids)
    return {
        "header_types": headers.header_types(program),
        "headers": header_list,
        "header_stacks": headers.header_stacks(program, header_ids),
        "header_union_types": headers.header_union_types(program),
        "header_unions": headers.header_unions(program, header_ids),
        "header_union_stacks": headers.header_union_stacks(program),
        "field_lists": externs.field_lists(program, list_ids),
        "errors": headers.errors(program),
        "enums": headers.enums(program),
        "parsers": parser.parsers(program),
        "parse_vsets": parser.parse_vsets(program),
        "deparsers": deparser.deparsers(program),
        "meter_arrays": externs.meter_arrays(program),
        "counter_arrays": externs.counter_arrays(program),
        "register_arrays": externs.register_arrays(program),
        "calculations": externs.calculations(program),
        "learn_lists": externs.learn_lists(program),
        "actions": action_list,
        "pipelines": controls.pipelines(program, action_ids),
        "checksums": checksums.checksums(program),
        "force_arith": [],
        "extern_instances": [],
        "field_aliases": [[alias, [h, f]] for alias, (h, f) in program.field_aliases],
        "program": program.program_name,
        "__meta__": {"version": list(BMV2_JSON_VERSION), "compiler": COMPILER_ID},
    }


# BMv2 reads every number of its JSON into a C++ integer of at most 64 bits (jsoncpp's
# asInt/asUInt/asInt64); field values wider than that are hex strings
NUMBER_BITS = 64


def check_numbers(doc) -> None:
    """Refuse a document holding a number BMv2 cannot read (a table size, a priority or an
    extern's size made from a huge constant), naming where it is."""
    if not any(_too_wide(v) for v in _scalars(doc)):
        return
    stack = [(doc, ())]          # value, and the keys leading to it (a tuple chain, shared)
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, (where, k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (where, i)) for i, v in enumerate(value))
        elif _too_wide(value):
            raise CompileError.at(None, f"{_json_path(where)}: a number of "
                                        f"{value.bit_length()} bits, more than BMv2 reads "
                                        f"({NUMBER_BITS})")


def _scalars(doc):
    stack = [doc]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        else:
            yield value


def _too_wide(value) -> bool:
    return (type(value) is int
            and not -(1 << (NUMBER_BITS - 1)) <= value < (1 << NUMBER_BITS))


def _json_path(where: tuple) -> str:
    keys = []
    while where:
        where, key = where
        keys.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    return "$" + "".join(reversed(keys))
