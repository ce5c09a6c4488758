"""BMv2 loader rules: would real simple_switch accept this JSON, and run it as intended?

p4c and BMv2 are not installable here, so our JSON has never met the real loader. This
module encodes the rules that loader applies, as read in p4lang/behavioral-model (VERSION
1.15.5, the simple_switch the conformance kit was run on; commit 9674187):
`src/bm_sim/P4Objects.cpp` (`P4Objects::init_objects` and the
`init_*` helpers it calls, in that order), `src/bm_sim/expressions.cpp` (operator names and
result kinds), `include/bm/bm_sim/actions.h` (`ActionParam::to<T>`: which parameter kinds a
primitive argument of C++ type T accepts), `src/bm_sim/core/primitives.cpp`,
`src/bm_sim/actions.cpp` (`_jump`, `_jump_if_zero`), `targets/simple_switch/primitives.cpp`
and `targets/simple_switch/simple_switch.cpp` (required fields, block names, field lists),
and `docs/JSON_format.md`.

Four kinds of problem are reported, all of them errors for our compiler:
- the loader rejects the file (a `json_exception`: bmv2 prints it and refuses the program);
- the loader or the switch crashes on it (`std::map::at`, `assert`, `_BM_UNREACHABLE`);
- the loader accepts it silently but the program does something else (an unknown operator
  name becomes opcode 0, an unknown next parse state becomes "accept", a duplicated field
  name shadows the second one, ...);
- simple_switch ignores or misplaces what the JSON asks (a resubmit in egress, a control
  flow cycle), where p4c would have refused the program.

A fifth, smaller group: keys simple_switch_CLI (tools/runtime_CLI.py) and p4c's STF runner
(backends/bmv2/bmv2stf.py) index when they read the same JSON.

Positive controls: real p4c's JSON in the kit (../shared/p4-kit) passes, and so does every
p4c-made simple_switch JSON in behavioral-model's own test data (checked by hand, not
vendored; its older p4c-bm files lack "action_ids", which only the STF runner needs).

Usage: `check_bmv2_json(doc) -> list[Problem]`, `assert_loadable(doc)` raising
`Bmv2JsonError`, or `python -m toolchain.compiler.backend.bmv2_schema prog.json ...`.
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field as dc_field

from .bmv2_primitives import (ACCEPTED_PARAMS, FIELD, FIELD_LIST_ARGUMENT, LVALUE, PRIMITIVES,
                              RVALUE)

# The loader's major version and the newest minor it reads (P4Objects.cpp, namespace
# constants `required_major_version`, `max_minor_version`; `check_json_version`).
REQUIRED_MAJOR_VERSION = 2
MAX_MINOR_VERSION = 24

# Expression value kinds (expressions.h `ExprType`).
DATA, BOOL, HEADER, STACK, UNION, UNION_STACK, UNKNOWN = (
    "data", "bool", "header", "header_stack", "header_union", "header_union_stack", "unknown")

# Operator names registered in expressions.cpp `ExprOpcodesMap::ExprOpcodesMap`. An unknown
# name is NOT an error there: `get_opcode` uses `operator[]` and yields opcode 0
# (LOAD_FIELD), so a typo silently computes garbage. Value: (left kind, right kind, result)
# as the evaluator pops them in `Expression::eval_`; None = operand must be null/absent.
_BINARY_DATA = (DATA, DATA, DATA)
_COMPARE = (DATA, DATA, BOOL)
EXPRESSION_OPS = {
    "+": _BINARY_DATA, "-": _BINARY_DATA, "*": _BINARY_DATA, "/": _BINARY_DATA,
    "%": _BINARY_DATA, "<<": _BINARY_DATA, ">>": _BINARY_DATA,
    "&": _BINARY_DATA, "|": _BINARY_DATA, "^": _BINARY_DATA,
    "two_comp_mod": _BINARY_DATA, "usat_cast": _BINARY_DATA, "sat_cast": _BINARY_DATA,
    "~": (None, DATA, DATA),
    ">": _COMPARE, "<": _COMPARE, ">=": _COMPARE, "<=": _COMPARE,
    "and": (BOOL, BOOL, BOOL), "or": (BOOL, BOOL, BOOL), "not": (None, BOOL, BOOL),
    "d2b": (None, DATA, BOOL), "b2d": (None, BOOL, DATA),
    "valid": (None, HEADER, BOOL), "valid_union": (None, UNION, BOOL),
    "dereference_stack": (STACK, DATA, HEADER),
    "dereference_header_stack": (STACK, DATA, HEADER),
    "dereference_union_stack": (UNION_STACK, DATA, UNION),
    "last_stack_index": (None, STACK, DATA), "size_stack": (None, STACK, DATA),
    # "==", "!=", "?", "access_field" and "access_union_header" are handled specially in
    # build_expression (Checker.operation); "==h"/"!=h"/... are internal opcodes the
    # loader picks from the operand kinds
}

# Ops that pop a header stack but only call StackIface's virtual get_count() on it, so a
# header union stack works as well (expressions.cpp; p4c writes `u.lastIndex` of a union
# stack this way). dereference_header_stack's at() is not virtual: a header stack only.
STACK_COUNT_OPS = {"last_stack_index", "size_stack"}

# Hash algorithms: calculations.cpp REGISTER_HASH, simple_switch.cpp REGISTER_HASH, and the
# named CRCs of crc_map.cpp; `check_hash` also accepts custom "poly_0x..." strings.
HASH_ALGORITHMS = {
    "xxh64", "crc16", "crc32", "crcCCITT", "cksum16", "csum16", "toeplitz", "identity",
    "round_robin", "round_robin_consistent", "xor16", "xor32", "crc8_custom", "crc16_custom",
    "crc32_custom", "crc64_custom", "hash_ex", "bmv2_hash",
    "crc_8", "crc_8_darc", "crc_8_i_code", "crc_8_itu", "crc_8_maxim", "crc_8_rohc",
    "crc_8_wcdma", "crc_16", "crc_16_buypass", "crc_16_dds_110", "crc_16_dect", "crc_16_dnp",
    "crc_16_en_13757", "crc_16_genibus", "crc_16_maxim", "crc_16_mcrf4xx", "crc_16_riello",
    "crc_16_t10_dif", "crc_16_teledisk", "crc_16_usb", "x_25", "xmodem", "modbus", "kermit",
    "crc_ccitt_false", "crc_aug_ccitt", "crc_32", "crc_32_bzip2", "crc_32c", "crc_32d",
    "crc_32_mpeg", "posix", "crc_32q", "jamcrc", "xfer", "crc_64", "crc_64_we",
    "crc_64_jones"}
_CUSTOM_CRC = re.compile(r"^poly_0x[0-9a-fA-F]+(_init_0x[0-9a-fA-F]+)?(_xout_0x[0-9a-fA-F]+)?"
                         r"(_not_rev)?$")

MATCH_TYPES = {"exact", "lpm", "ternary", "valid", "range"}   # match_name_to_match_type
TABLE_MATCH_TYPES = {"exact", "lpm", "ternary", "range"}     # match_tables.cpp create_match_unit
TABLE_TYPES = {"simple", "indirect", "indirect_ws"}
PARSER_OPS = {"extract", "extract_VL", "set", "verify", "primitive", "shift", "advance"}

# simple_switch.cpp, SimpleSwitch constructor: `add_required_field(...)`, checked by
# `P4Objects::check_required_fields` at load time.
REQUIRED_FIELDS = [("standard_metadata", f) for f in
                   ("ingress_port", "packet_length", "instance_type", "egress_spec",
                    "egress_port")]
QUEUEING_FIELDS = ("enq_timestamp", "enq_qdepth", "deq_timedelta", "deq_qdepth")
# simple_switch.cpp: get_parser("parser"), get_pipeline("ingress"/"egress"),
# get_deparser("deparser") -- looked up by name with `.at()`.
REQUIRED_BLOCKS = {"parsers": ["parser"], "deparsers": ["deparser"],
                   "pipelines": ["ingress", "egress"]}

INT32_MAX, UINT32_MAX = 2**31 - 1, 2**32 - 1

_HEX = re.compile(r"^-?(0x)?[0-9a-fA-F]+$")
_UNSIGNED_HEX = re.compile(r"^(0x)?[0-9a-fA-F]+$")


@dataclass(frozen=True)
class Problem:
    path: str        # where in the document, e.g. actions[3].primitives[0].parameters[1]
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class Bmv2JsonError(ValueError):
    """The JSON breaks a rule of the BMv2 loader; `.problems` lists every one found."""

    def __init__(self, problems: list):
        self.problems = list(problems)
        shown = "\n".join(f"  {p}" for p in self.problems[:20])
        more = f"\n  ... and {len(self.problems) - 20} more" if len(self.problems) > 20 else ""
        super().__init__(f"{len(self.problems)} BMv2 loader rule(s) broken:\n{shown}{more}")


def hexstr_bytes(text: str) -> int:
    """Bytes of a ByteContainer built from `text` (bytecontainer.h: optional 0x, an odd
    digit count gives a leading half byte)."""
    digits = text[2:] if text.startswith("0x") else text
    return (len(digits) + 1) // 2


@dataclass
class _HeaderType:
    fields: dict           # name -> (width or "*", signed)


@dataclass
class _Context:
    """Name tables built in the loader's order (init_objects)."""
    header_types: dict = dc_field(default_factory=dict)     # name -> _HeaderType
    headers: dict = dc_field(default_factory=dict)          # name -> (type name, metadata)
    header_ids: dict = dc_field(default_factory=dict)       # id -> name
    stacks: dict = dc_field(default_factory=dict)           # name -> type name
    unions: dict = dc_field(default_factory=dict)           # name -> union type name
    union_types: dict = dc_field(default_factory=dict)      # name -> [(member, type)]
    union_stacks: dict = dc_field(default_factory=dict)     # name -> union type name
    aliases: dict = dc_field(default_factory=dict)          # "h.f" -> (h, f)
    errors: dict = dc_field(default_factory=dict)           # value -> name
    calculations: set = dc_field(default_factory=set)
    counters: set = dc_field(default_factory=set)
    meters: dict = dc_field(default_factory=dict)           # name -> is_direct
    registers: set = dc_field(default_factory=set)
    externs: set = dc_field(default_factory=set)
    actions: dict = dc_field(default_factory=dict)          # id -> (name, n params)
    action_ops: dict = dc_field(default_factory=dict)       # id -> {primitive op}
    field_list_ids: set = dc_field(default_factory=set)
    learn_list_ids: set = dc_field(default_factory=set)
    field_list_uses: list = dc_field(default_factory=list)  # (path, id)
    control_nodes: set = dc_field(default_factory=set)


class Checker:
    """Walks a document in `P4Objects::init_objects` order, collecting problems."""

    def __init__(self, doc):
        self.doc = doc
        self.problems: list[Problem] = []
        self.ctx = _Context()

    # ------------------------------------------------------------------ reporting
    def bad(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def items(self, obj, key: str, path: str) -> list:
        """A list-valued attribute. jsoncpp iterates null as empty, so a missing key is
        legal for the loader; anything but an array is a malformed document."""
        value = obj.get(key) if isinstance(obj, dict) else None
        if value is None:
            return []
        if not isinstance(value, list):
            self.bad(f"{path}.{key}", f"must be a JSON array, got {type(value).__name__}")
            return []
        return value

    def string(self, obj: dict, key: str, path: str) -> str | None:
        value = obj.get(key)
        if not isinstance(value, str):
            self.bad(f"{path}.{key}", f"must be a string, got {value!r}")
            return None
        return value

    def integer(self, obj: dict, key: str, path: str, minimum: int | None = None,
                unsigned: bool = False):
        """An integer attribute read with jsoncpp's asInt() (asUInt() if unsigned), which
        throws Json::LogicError -- not a json_exception, so simple_switch aborts -- when
        the value does not fit 32 bits."""
        value = obj.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            self.bad(f"{path}.{key}", f"must be an integer, got {value!r}")
            return None
        if minimum is not None and value < minimum:
            self.bad(f"{path}.{key}", f"must be >= {minimum}, got {value}")
        limit = UINT32_MAX if unsigned else INT32_MAX
        if value > limit:
            self.bad(f"{path}.{key}", f"{value} does not fit the loader's 32-bit "
                                      f"{'unsigned ' if unsigned else ''}integer")
        return value

    def boolean(self, obj: dict, key: str, path: str, required: bool = False) -> None:
        if key not in obj and not required:
            return
        if not isinstance(obj.get(key), bool):
            self.bad(f"{path}.{key}", f"must be true or false, got {obj.get(key)!r}")

    def hexstring(self, value, path: str, signed: bool = True) -> bool:
        pattern = _HEX if signed else _UNSIGNED_HEX
        if not isinstance(value, str) or not pattern.match(value):
            what = "a hex string" if signed else "an unsigned hex string (ByteContainer)"
            self.bad(path, f"must be {what}, got {value!r}")
            return False
        return True

    def named_objects(self, key: str, what: str, dense: bool = False,
                      unique_name=lambda obj: True) -> list:
        """name/id pairs: `DupIdChecker` rejects a repeated id, `add_new_object` a repeated
        name (for the objects `unique_name` selects: not checksums, which are kept in a
        list, nor direct counters, which are not registered); PHV::push_back_header
        (_stack/_union) assert id == position (dense from 0)."""
        objs = self.items(self.doc, key, "$")
        seen_ids, seen_names = set(), set()
        for i, obj in enumerate(objs):
            path = f"{key}[{i}]"
            if not isinstance(obj, dict):
                self.bad(path, "must be a JSON object")
                continue
            name = self.string(obj, "name", path)
            ident = self.integer(obj, "id", path, minimum=0)
            if ident is not None:
                if ident in seen_ids:
                    self.bad(path, f"several objects of type '{what}' have the same id {ident}")
                seen_ids.add(ident)
                if dense and ident != i:
                    self.bad(path, f"{what} ids must be 0, 1, 2, ... in order (the PHV asserts "
                                   f"id == position); got id {ident} at position {i}")
            if name is not None and unique_name(obj):
                if name in seen_names:
                    self.bad(path, f"duplicate objects of type '{what}' with name '{name}'")
                seen_names.add(name)
        return [(f"{key}[{i}]", o) for i, o in enumerate(objs) if isinstance(o, dict)]

    # ------------------------------------------------------------------ lookups
    def field_width(self, header: str, field: str, path: str, aliases: bool = False):
        """get_field_offset: the header must exist and the type must have the field
        ("$valid$" is the hidden field every type has). `field_info` (parser set/advance,
        parse keys, calculations, force_arith) also resolves field_aliases; expressions
        and primitive arguments do not."""
        if aliases and f"{header}.{field}" in self.ctx.aliases:
            header, field = self.ctx.aliases[f"{header}.{field}"]
        if header not in self.ctx.headers:
            self.bad(path, f"invalid reference to header '{header}'")
            return None
        return self.type_field_width(self.ctx.headers[header][0], field, path)

    def type_field_width(self, type_name: str, field: str, path: str):
        if field == "$valid$":
            return 1
        htype = self.ctx.header_types.get(type_name)
        if htype is None:
            return None
        if field not in htype.fields:
            self.bad(path, f"no field '{field}' can be found in header type '{type_name}'")
            return None
        return htype.fields[field][0]

    def field_ref(self, value, path: str, aliases: bool = False):
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(x, str) for x in value)):
            self.bad(path, f"a field reference is [header, field], got {value!r}")
            return None
        return self.field_width(value[0], value[1], path, aliases)

    def stack_field_ref(self, value, path: str):
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(x, str) for x in value)):
            self.bad(path, f"a stack field reference is [stack, field], got {value!r}")
            return None
        stack, field = value
        if stack not in self.ctx.stacks:
            self.bad(path, f"invalid reference to header stack '{stack}'")
            return None
        # HeaderType::get_field_offset returns -1 here (no exception): field -1 is read
        return self.type_field_width(self.ctx.stacks[stack], field, path)

    def union_stack_field_ref(self, value, path: str):
        """[union stack, member, field] (a parse key only): its width, via the union type."""
        if not isinstance(value, list) or len(value) != 3:
            self.bad(path, f"union_stack_field value is [stack, member, field], got {value!r}")
            return None
        stack, member, field = value
        if stack not in self.ctx.union_stacks:
            self.bad(path, f"invalid reference to header union stack {stack!r}")
            return None
        members = dict(self.ctx.union_types.get(self.ctx.union_stacks[stack], []))
        if member not in members:
            self.bad(path, f"unknown field name {member!r} in the union type")
            return None
        return self.type_field_width(members[member], field, path)

    def header_ref(self, name, path: str) -> None:
        if name not in self.ctx.headers:
            self.bad(path, f"invalid reference to header {name!r}")

    # ------------------------------------------------------------------ expressions
    def expression(self, node, path: str, locals_count: int | None = None) -> str:
        """P4Objects::build_expression; returns the ExprType of the node."""
        if node is None:
            return UNKNOWN
        if not isinstance(node, dict):
            self.bad(path, f"an expression node is an object with type/value, got {node!r}")
            return UNKNOWN
        kind, value = node.get("type"), node.get("value")
        if kind == "expression":
            return self.operation(value, f"{path}.value", locals_count)
        if kind == "header":
            self.header_ref(value, path)
            return HEADER
        if kind == "field":
            self.field_ref(value, path)
            return DATA
        if kind == "bool":
            if not isinstance(value, bool):
                self.bad(path, f"a bool node's value is true/false, got {value!r}")
            return BOOL
        if kind == "hexstr":
            self.hexstring(value, path)
            return DATA
        if kind == "local":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                self.bad(path, f"a local's value is a runtime data index, got {value!r}")
            elif locals_count is not None and value >= locals_count:
                self.bad(path, f"local {value} but the action has {locals_count} parameter(s)")
            elif locals_count is None:
                self.bad(path, "'local' (runtime data) outside an action: there is none")
            return DATA
        if kind == "register":
            self.register_ref(value, path, locals_count)
            return DATA
        if kind == "header_stack":
            if value not in self.ctx.stacks:
                self.bad(path, f"invalid reference to header stack {value!r}")
            return STACK
        if kind == "stack_field":
            self.stack_field_ref(value, path)
            return DATA
        if kind == "header_union":
            if value not in self.ctx.unions:
                self.bad(path, f"invalid reference to header union {value!r}")
            return UNION
        if kind == "header_union_stack":
            if value not in self.ctx.union_stacks:
                self.bad(path, f"invalid reference to header union stack {value!r}")
            return UNION_STACK
        self.bad(path, f"invalid 'type' in expression: {kind!r}")
        return UNKNOWN

    def register_ref(self, value, path: str, locals_count) -> None:
        if not isinstance(value, list) or len(value) != 2:
            self.bad(path, f"a register reference is [register_array, index], got {value!r}")
            return
        if value[0] not in self.ctx.registers:
            self.bad(path, f"invalid reference to register array {value[0]!r}")
        index = value[1]
        if not isinstance(index, dict) or len(index) != 2:   # assert(json_index.size() == 2)
            self.bad(path, "a register index is a {type, value} object")
        elif index.get("type") == "hexstr":
            self.hexstring(index.get("value"), f"{path}.value[1]", signed=False)
        else:
            self.expect_kind(index, f"{path}.value[1]", DATA, locals_count)

    def operation(self, value, path: str, locals_count) -> str:
        if not isinstance(value, dict):
            self.bad(path, f"an expression value is {{op, left, right}}, got {value!r}")
            return UNKNOWN
        op = value.get("op")
        left, right = value.get("left"), value.get("right")
        if op == "?":
            self.expect_kind(value.get("cond"), f"{path}.cond", BOOL, locals_count)
            lk = self.expression(left, f"{path}.left", locals_count)
            rk = self.expression(right, f"{path}.right", locals_count)
            if lk != rk:      # assert(typeL == typeR)
                self.bad(path, f"'?' branches have different kinds ({lk}, {rk})")
            return lk
        if op in ("==", "!="):
            lk = self.expression(left, f"{path}.left", locals_count)
            rk = self.expression(right, f"{path}.right", locals_count)
            if lk != rk or lk in (UNKNOWN, STACK, UNION_STACK):
                self.bad(path, f"'{op}' compares {lk} with {rk}; both sides must be the same "
                               "kind of data, bool, header or union")
            return BOOL
        if op in ("access_field", "access_union_header"):
            want = HEADER if op == "access_field" else UNION
            self.expect_kind(left, f"{path}.left", want, locals_count)
            if isinstance(right, bool) or not isinstance(right, int) or right < 0:
                self.bad(f"{path}.right", f"'{op}' takes a member offset (integer), "
                                          f"got {right!r}")
            return DATA if op == "access_field" else HEADER
        if op not in EXPRESSION_OPS:
            self.bad(path, f"unknown expression op {op!r}: ExprOpcodesMap::get_opcode "
                           "would silently use opcode 0 (load_field)")
            return UNKNOWN
        want_left, want_right, result = EXPRESSION_OPS[op]
        if op in STACK_COUNT_OPS and isinstance(right, dict) and \
                right.get("type") == "header_union_stack":
            want_right = UNION_STACK
        if want_left is None:
            # unary +/- are the one exception (a null left loads 0); these are not them
            if left is not None:
                self.bad(f"{path}.left", f"'{op}' is unary: left must be null")
        elif left is None and op in ("+", "-"):
            pass     # build_expression: unary +/- with null left loads the constant 0
        else:
            self.expect_kind(left, f"{path}.left", want_left, locals_count)
        self.expect_kind(right, f"{path}.right", want_right, locals_count)
        return result

    def expect_kind(self, node, path: str, want: str, locals_count) -> None:
        got = self.expression(node, path, locals_count)
        if node is None:
            self.bad(path, f"missing operand (expected {want})")
        elif got != want and got != UNKNOWN:
            self.bad(path, f"expected a {want} value, got {got} (BMv2 never converts "
                           "implicitly: use d2b / b2d)")

    # ------------------------------------------------------------------ top level
    def run(self) -> list[Problem]:
        if not isinstance(self.doc, dict):
            return [Problem("$", "a BMv2 JSON document is a JSON object")]
        self.version()
        self.enums()
        self.header_types()
        self.headers()
        self.header_stacks()
        self.header_unions()
        self.field_aliases()
        self.extern_instances()
        self.parse_vsets()
        self.errors()
        self.parsers()
        self.deparsers()
        self.calculations()
        self.counters()
        self.meters()
        self.registers()
        self.field_lists()         # read last by the loader, but primitives refer to them
        self.learn_lists()
        self.actions()
        self.pipelines()
        self.control_graphs()
        self.checksums()
        self.force_arith()
        self.required_fields()
        self.required_blocks()
        self.runtime_cli_keys()
        self.stf_runner_shape()
        self.field_list_uses()
        return self.problems

    def version(self) -> None:
        """check_json_version: __meta__.version, when present, is [2, minor <= 24]."""
        meta = self.doc.get("__meta__")
        if meta is None or "version" not in meta:
            return
        version = meta["version"]
        if not isinstance(version, list) or len(version) != 2:
            self.bad("__meta__.version", "must be a JSON array of size 2")
            return
        major, minor = version
        if major != REQUIRED_MAJOR_VERSION:
            self.bad("__meta__.version", f"major version {major}, the loader requires "
                                         f"{REQUIRED_MAJOR_VERSION}")
        if not isinstance(minor, int) or minor > MAX_MINOR_VERSION:
            self.bad("__meta__.version", f"minor version {minor!r}, the newest supported is "
                                         f"{MAX_MINOR_VERSION}")

    def enums(self) -> None:
        """init_enums: EnumMap rejects a repeated enum name, entry name or entry value."""
        names = set()
        for i, enum in enumerate(self.items(self.doc, "enums", "$")):
            path = f"enums[{i}]"
            name = self.string(enum, "name", path)
            if name in names:
                self.bad(path, f"enum {name!r} declared twice")
            names.add(name)
            entry_names, values = set(), set()
            for j, entry in enumerate(self.items(enum, "entries", path)):
                if (not isinstance(entry, list) or len(entry) != 2
                        or not isinstance(entry[0], str) or not isinstance(entry[1], int)):
                    self.bad(f"{path}.entries[{j}]", f"an entry is [name, int], got {entry!r}")
                    continue
                if entry[0] in entry_names or entry[1] in values:
                    self.bad(f"{path}.entries[{j}]", "repeated enum entry name or value")
                entry_names.add(entry[0])
                values.add(entry[1])

    def header_types(self) -> None:
        """init_header_types, and HeaderType::push_back_field / push_back_VL_field."""
        for path, t in self.named_objects("header_types", "header type"):
            fields, total, var_length = {}, 0, 0
            for j, f in enumerate(self.items(t, "fields", path)):
                fpath = f"{path}.fields[{j}]"
                if (not isinstance(f, list) or not 2 <= len(f) <= 4
                        or not isinstance(f[0], str)):
                    self.bad(fpath, f"a field is [name, width(, signed(, saturating))], got {f!r}")
                    continue
                name, width = f[0], f[1]
                signed = len(f) > 2 and f[2]
                if len(f) > 2 and not isinstance(f[2], bool):
                    self.bad(fpath, "the signedness flag must be true or false")
                if name in fields or name == "$valid$":
                    # get_field_offset returns the first match: the second is unreachable
                    self.bad(fpath, f"field name {name!r} repeated (or the hidden $valid$)")
                if width == "*":
                    var_length += 1
                elif isinstance(width, bool) or not isinstance(width, int) or width <= 0:
                    self.bad(fpath, f"field width must be a positive integer or \"*\", "
                                    f"got {width!r}")
                    continue
                else:
                    total += width
                    if signed and width < 2:   # JSON_format.md header_types
                        self.bad(fpath, "a signed field needs a bitwidth of at least 2")
                fields[name] = (width, bool(signed))
            if var_length > 1:   # assert in push_back_VL_field
                self.bad(path, "a header type has at most one variable-length field")
            if var_length == 0 and total % 8:
                # headers are extracted/emitted in whole bytes; p4c pads metadata types
                # with `_padding` fields to keep every type byte-aligned
                self.bad(path, f"fields add up to {total} bits, not a whole number of bytes")
            if t.get("name") is not None:
                self.ctx.header_types[t["name"]] = _HeaderType(fields)

    def headers(self) -> None:
        """init_headers: header type must exist; metadata is a bool."""
        for path, h in self.named_objects("headers", "header", dense=True):
            type_name = self.string(h, "header_type", path)
            if type_name is not None and type_name not in self.ctx.header_types:
                self.bad(path, f"invalid reference to header type {type_name!r}")
            self.boolean(h, "metadata", path)      # asBool(): absent means false
            if h.get("name") is not None:
                self.ctx.headers[h["name"]] = (type_name, bool(h.get("metadata")))
                self.ctx.header_ids[h.get("id")] = h["name"]

    def header_stacks(self) -> None:
        """init_header_stacks: members are header ids of the stack's type, in order."""
        members_seen = set()
        for path, s in self.named_objects("header_stacks", "header stack", dense=True):
            type_name = self.string(s, "header_type", path)
            if type_name is not None and type_name not in self.ctx.header_types:
                self.bad(path, f"invalid reference to header type {type_name!r}")
            ids = self.items(s, "header_ids", path)
            if not ids:
                self.bad(path, "a header stack needs at least one element")
            if "size" in s and s["size"] != len(ids):
                self.bad(path, f"size {s['size']} but {len(ids)} header_ids")
            for hid in ids:
                name = self.ctx.header_ids.get(hid)
                if name is None:
                    self.bad(path, f"header id {hid!r} does not exist")
                elif self.ctx.headers[name][0] != type_name:
                    self.bad(path, f"element '{name}' is not of type {type_name!r}")
                if hid in members_seen:
                    self.bad(path, f"header id {hid} belongs to two stacks")
                members_seen.add(hid)
            if s.get("name") is not None:
                self.ctx.stacks[s["name"]] = type_name

    def header_unions(self) -> None:
        """init_header_unions / init_header_union_stacks (union_type looked up with .at)."""
        for i, ut in enumerate(self.items(self.doc, "header_union_types", "$")):
            members = []
            for member in self.items(ut, "headers", f"header_union_types[{i}]"):
                if (not isinstance(member, list) or len(member) != 2
                        or member[1] not in self.ctx.header_types):
                    self.bad(f"header_union_types[{i}]", f"bad member {member!r}")
                    continue
                members.append(tuple(member))
            self.ctx.union_types[ut.get("name")] = members
        for path, u in self.named_objects("header_unions", "header union", dense=True):
            if u.get("union_type") not in self.ctx.union_types:
                self.bad(path, f"unknown union_type {u.get('union_type')!r}")
            for hid in self.items(u, "header_ids", path):
                if hid not in self.ctx.header_ids:
                    self.bad(path, f"header id {hid!r} does not exist")
            self.ctx.unions[u.get("name")] = u.get("union_type")
        union_ids = {u.get("id") for u in self.items(self.doc, "header_unions", "$")}
        for path, s in self.named_objects("header_union_stacks", "header union stack",
                                          dense=True):
            if s.get("union_type") not in self.ctx.union_types:
                self.bad(path, f"unknown union_type {s.get('union_type')!r}")
            for uid in self.items(s, "header_union_ids", path):
                if uid not in union_ids:
                    self.bad(path, f"header union id {uid!r} does not exist")
            self.ctx.union_stacks[s.get("name")] = s.get("union_type")

    def field_aliases(self) -> None:
        """init_objects: `assert(field_exists(header, field))` for every alias target."""
        for i, alias in enumerate(self.items(self.doc, "field_aliases", "$")):
            path = f"field_aliases[{i}]"
            if (not isinstance(alias, list) or len(alias) != 2
                    or not isinstance(alias[0], str)):
                self.bad(path, f"an alias is [name, [header, field]], got {alias!r}")
                continue
            if self.field_ref(alias[1], path) is not None:
                self.ctx.aliases[alias[0]] = tuple(alias[1])

    def extern_instances(self) -> None:
        """init_extern_instances: the type must be registered by the target; simple_switch
        registers none (no BM_REGISTER_EXTERN in targets/simple_switch)."""
        for path, e in self.named_objects("extern_instances", "extern"):
            self.bad(path, f"extern type {e.get('type')!r} is not provided by simple_switch")
            self.ctx.externs.add(e.get("name"))

    def parse_vsets(self) -> None:
        for path, v in self.named_objects("parse_vsets", "parser vset"):
            self.integer(v, "compressed_bitwidth", path, minimum=0)

    def errors(self) -> None:
        """init_errors: ErrorCodeMap::add rejects a repeated name or value."""
        names = set()
        for i, e in enumerate(self.items(self.doc, "errors", "$")):
            if (not isinstance(e, list) or len(e) != 2 or not isinstance(e[0], str)
                    or isinstance(e[1], bool) or not isinstance(e[1], int)):
                self.bad(f"errors[{i}]", f"an error is [name, int], got {e!r}")
                continue
            if e[0] in names or e[1] in self.ctx.errors:
                self.bad(f"errors[{i}]", "invalid errors specification: repeated name or value")
            names.add(e[0])
            self.ctx.errors[e[1]] = e[0]

    # ------------------------------------------------------------------ parsers
    def parsers(self) -> None:
        for path, p in self.named_objects("parsers", "parser"):
            states = {}
            ids = set()
            for j, s in enumerate(self.items(p, "parse_states", path)):
                spath = f"{path}.parse_states[{j}]"
                name = self.string(s, "name", spath)
                ident = self.integer(s, "id", spath, minimum=0)
                if ident in ids:
                    self.bad(spath, f"several parse states have the same id {ident}")
                ids.add(ident)
                if name in states:
                    self.bad(spath, f"duplicate parse state {name!r}")
                states[name] = s
            for j, s in enumerate(self.items(p, "parse_states", path)):
                self.parse_state(s, f"{path}.parse_states[{j}]", states)
            # current_parse_states[init_state] is a map lookup that yields nullptr (a parser
            # that does nothing) for an unknown name
            if p.get("init_state") not in states:
                self.bad(path, f"init_state {p.get('init_state')!r} is not a parse state")

    def parse_state(self, s: dict, path: str, states: dict) -> None:
        for k, op in enumerate(self.items(s, "parser_ops", path)):
            self.parser_op(op, f"{path}.parser_ops[{k}]")
        key_bytes = 0
        for k, elem in enumerate(self.items(s, "transition_key", path)):
            key_bytes += self.transition_key_bytes(elem, f"{path}.transition_key[{k}]")
        for k, t in enumerate(self.items(s, "transitions", path)):
            self.transition(t, f"{path}.transitions[{k}]", states, key_bytes)

    def transition_key_bytes(self, elem, path: str) -> int:
        """A key element and its size in bytes ((bitwidth + 7) / 8,
        ParseState::expected_switch_case_key_size)."""
        kind = elem.get("type") if isinstance(elem, dict) else None
        value = elem.get("value") if isinstance(elem, dict) else None
        width = None
        if kind == "field":
            width = self.field_ref(value, path, aliases=True)
        elif kind == "stack_field":
            width = self.stack_field_ref(value, path)
        elif kind == "lookahead":
            if (not isinstance(value, list) or len(value) != 2
                    or not all(isinstance(x, int) for x in value) or value[1] <= 0):
                self.bad(path, f"lookahead value is [bit offset, bitwidth], got {value!r}")
            else:
                width = value[1]
        elif kind == "union_stack_field":
            width = self.union_stack_field_ref(value, path)
        else:
            self.bad(path, f"invalid entry in parse state key: type {kind!r}")
        return (width + 7) // 8 if isinstance(width, int) else 0

    def transition(self, t, path: str, states: dict, key_bytes: int) -> None:
        if not isinstance(t, dict):
            self.bad(path, "a transition is an object")
            return
        kind = t.get("type", "hexstr")
        if kind == "hexstr" and t.get("value") == "default":
            kind = "default"
        nxt = t.get("next_state")
        if nxt is not None and nxt not in states:
            # a map lookup: an unknown name becomes nullptr, i.e. silently "accept"
            self.bad(f"{path}.next_state", f"{nxt!r} is not a state of this parser "
                                           "(BMv2 would silently accept)")
        if kind == "default":
            return
        if kind == "hexstr":
            for key in ("value", "mask"):
                v = t.get(key)
                if key == "mask" and v is None:
                    continue
                if self.hexstring(v, f"{path}.{key}", signed=False) and \
                        hexstr_bytes(v) != key_bytes:
                    self.bad(f"{path}.{key}", f"parser transition {key} has incorrect width, "
                                              f"expected {key_bytes} bytes but it has "
                                              f"{hexstr_bytes(v)}")
        elif kind == "parse_vset":
            if t.get("value") not in {v.get("name") for v in
                                      self.items(self.doc, "parse_vsets", "$")}:
                self.bad(path, f"invalid reference to parse vset {t.get('value')!r}")
        else:
            self.bad(path, f"transition type {kind!r}: the loader ignores it (no case added)")

    def parser_op(self, op, path: str) -> None:
        """init_parsers: the op names and parameter shapes it accepts."""
        if not isinstance(op, dict):
            self.bad(path, "a parser op is an object")
            return
        name = op.get("op")
        params = op.get("parameters")
        if name not in PARSER_OPS:
            self.bad(path, f"parser op {name!r} not supported")
            return
        if not isinstance(params, list):
            self.bad(path, "parameters must be a JSON array")
            return
        expected = {"extract": 1, "extract_VL": 2, "set": 2, "verify": 2, "primitive": 1,
                    "shift": 1, "advance": 1}[name]
        if len(params) != expected:
            self.bad(path, f"'{name}' takes {expected} parameter(s), got {len(params)}")
            return
        getattr(self, "parser_" + name)(params, path)

    def parser_extract(self, params: list, path: str) -> None:
        target = params[0] if isinstance(params[0], dict) else {}
        kind, value = target.get("type"), target.get("value")
        if kind == "regular":
            self.header_ref(value, f"{path}.parameters[0]")
            if value in self.ctx.headers and self.ctx.headers[value][1]:
                self.bad(path, f"extracting metadata header {value!r}")
        elif kind == "stack":
            if value not in self.ctx.stacks:
                self.bad(path, f"invalid reference to header stack {value!r}")
        elif kind == "union_stack":
            if not isinstance(value, list) or len(value) != 2:
                self.bad(path, f"a union stack extract is [stack, member], got {value!r}")
            elif value[0] not in self.ctx.union_stacks:
                self.bad(path, f"invalid reference to header union stack {value[0]!r}")
            elif value[1] not in dict(self.ctx.union_types.get(
                    self.ctx.union_stacks[value[0]], [])):
                # HeaderUnionType::get_header_offset throws a json_exception
                self.bad(path, f"unknown field name {value[1]!r} in the union type")
        else:
            self.bad(path, f"extract type {kind!r} not supported")

    def parser_extract_VL(self, params: list, path: str) -> None:
        self.parser_extract(params[:1], path)
        length = params[1] if isinstance(params[1], dict) else {}
        if length.get("type") != "expression":
            self.bad(path, "extract_VL length must be of type 'expression'")
        else:
            self.expect_kind(length.get("value"), f"{path}.parameters[1].value", DATA, None)

    def parser_set(self, params: list, path: str) -> None:
        dst, src = params
        if not isinstance(dst, dict) or dst.get("type") != "field":
            self.bad(path, "parser 'set' destination must be of type 'field'")
        else:
            self.field_ref(dst.get("value"), f"{path}.parameters[0]", aliases=True)
        kind = src.get("type") if isinstance(src, dict) else None
        spath = f"{path}.parameters[1]"
        if kind == "field":
            self.field_ref(src.get("value"), spath, aliases=True)
        elif kind == "hexstr":
            self.hexstring(src.get("value"), spath)
        elif kind == "lookahead":
            v = src.get("value")
            if not isinstance(v, list) or len(v) != 2 or not all(isinstance(x, int) for x in v):
                self.bad(spath, f"lookahead value is [bit offset, bitwidth], got {v!r}")
        elif kind == "expression":
            self.expect_kind(src.get("value"), f"{spath}.value", DATA, None)
        else:
            self.bad(spath, f"parser 'set' has unsupported source type {kind!r}")

    def parser_verify(self, params: list, path: str) -> None:
        self.expect_kind(params[0], f"{path}.parameters[0]", BOOL, None)
        err = params[1]
        if isinstance(err, int) and not isinstance(err, bool):
            if err not in self.ctx.errors:
                self.bad(path, f"invalid error code {err} in verify")
        else:
            self.expect_kind(err, f"{path}.parameters[1]", DATA, None)
            if isinstance(err, dict) and err.get("type") == "hexstr" and \
                    isinstance(err.get("value"), str) and _HEX.match(err["value"]):
                code = int(err["value"], 16)
                if code not in self.ctx.errors:
                    self.bad(path, f"verify raises error value {code}, which is not in "
                                   "'errors' (simple_switch cannot name it)")

    def parser_primitive(self, params: list, path: str) -> None:
        self.primitive(params[0], f"{path}.parameters[0]", 0, None)

    def parser_shift(self, params: list, path: str) -> None:
        if isinstance(params[0], bool) or not isinstance(params[0], int) or params[0] < 0:
            self.bad(path, f"'shift' takes a byte count, got {params[0]!r}")

    def parser_advance(self, params: list, path: str) -> None:
        p = params[0] if isinstance(params[0], dict) else {}
        kind = p.get("type")
        if kind == "field":
            self.field_ref(p.get("value"), f"{path}.parameters[0]", aliases=True)
        elif kind == "hexstr":
            self.hexstring(p.get("value"), f"{path}.parameters[0]")
        elif kind == "expression":
            self.expect_kind(p.get("value"), f"{path}.parameters[0].value", DATA, None)
        else:
            self.bad(path, f"parser 'advance' has unsupported parameter type {kind!r}")

    # ------------------------------------------------------------------ deparsers & externs
    def deparsers(self) -> None:
        for path, d in self.named_objects("deparsers", "deparser"):
            for k, prim in enumerate(self.items(d, "primitives", path)):
                self.primitive(prim, f"{path}.primitives[{k}]", 0, None)
            for k, h in enumerate(self.items(d, "order", path)):
                self.header_ref(h, f"{path}.order[{k}]")
                # Header::is_valid() is true for metadata: it would be emitted into the packet
                if h in self.ctx.headers and self.ctx.headers[h][1]:
                    self.bad(f"{path}.order[{k}]", f"metadata header {h!r} would be deparsed")

    def calculations(self) -> None:
        """init_calculations: inputs field/hexstr(+bitwidth)/header/payload; check_hash."""
        for path, c in self.named_objects("calculations", "calculation"):
            algo = c.get("algo")
            if algo not in HASH_ALGORITHMS and not (isinstance(algo, str)
                                                    and _CUSTOM_CRC.match(algo)):
                self.bad(path, f"unknown hash algorithm: {algo!r}")
            for k, item in enumerate(self.items(c, "input", path)):
                ipath = f"{path}.input[{k}]"
                kind = item.get("type") if isinstance(item, dict) else None
                if kind == "field":
                    self.field_ref(item.get("value"), ipath, aliases=True)
                elif kind == "hexstr":
                    self.hexstring(item.get("value"), ipath, signed=False)
                    self.integer(item, "bitwidth", ipath, minimum=1)
                elif kind == "header":
                    self.header_ref(item.get("value"), ipath)
                elif kind != "payload":
                    self.bad(ipath, f"unsupported input type {kind!r}")
            self.ctx.calculations.add(c.get("name"))

    def counters(self) -> None:
        for path, c in self.named_objects("counter_arrays", "counter",
                                          unique_name=lambda c: not c.get("is_direct")):
            if not c.get("is_direct") or "size" in c:   # a direct counter's size is unused
                self.integer(c, "size", path, minimum=0, unsigned=True)
            self.boolean(c, "is_direct", path)
            if not c.get("is_direct"):     # direct counters are not counter arrays
                self.ctx.counters.add(c.get("name"))

    def meters(self) -> None:
        for path, m in self.named_objects("meter_arrays", "meter"):
            if m.get("type") not in ("packets", "bytes"):
                self.bad(path, f"invalid meter type {m.get('type')!r}")
            self.integer(m, "rate_count", path, minimum=1, unsigned=True)
            self.integer(m, "size", path, minimum=0, unsigned=True)
            self.boolean(m, "is_direct", path)
            if m.get("is_direct"):
                self.field_ref(m.get("result_target"), f"{path}.result_target")
            self.ctx.meters[m.get("name")] = bool(m.get("is_direct"))

    def registers(self) -> None:
        for path, r in self.named_objects("register_arrays", "register"):
            self.integer(r, "size", path, minimum=0, unsigned=True)
            self.integer(r, "bitwidth", path, minimum=1)
            self.ctx.registers.add(r.get("name"))

    def field_lists(self) -> None:
        """init_field_lists: elements are fields or hexstr constants with a bitwidth."""
        seen = set()
        for i, fl in enumerate(self.items(self.doc, "field_lists", "$")):
            path = f"field_lists[{i}]"
            ident = self.integer(fl, "id", path, minimum=1)
            if ident in seen:
                self.bad(path, f"several field lists have the same id {ident}")
            seen.add(ident)
            for k, e in enumerate(self.items(fl, "elements", path)):
                kind = e.get("type") if isinstance(e, dict) else None
                if kind == "field":
                    self.field_ref(e.get("value"), f"{path}.elements[{k}]")
                elif kind == "hexstr":
                    self.hexstring(e.get("value"), f"{path}.elements[{k}]", signed=False)
                    self.integer(e, "bitwidth", f"{path}.elements[{k}]", minimum=1)
                else:
                    self.bad(f"{path}.elements[{k}]", f"invalid entry type {kind!r}")
        self.ctx.field_list_ids = seen

    def learn_lists(self) -> None:
        seen = set()
        for i, ll in enumerate(self.items(self.doc, "learn_lists", "$")):
            path = f"learn_lists[{i}]"
            ident = self.integer(ll, "id", path, minimum=1)
            if ident in seen:
                self.bad(path, f"several learn lists have the same id {ident}")
            seen.add(ident)
            for k, e in enumerate(self.items(ll, "elements", path)):
                if not isinstance(e, dict) or e.get("type") != "field":   # assert(type == field)
                    self.bad(f"{path}.elements[{k}]", "learn list elements must be fields")
                else:
                    self.field_ref(e.get("value"), f"{path}.elements[{k}]")
        self.ctx.learn_list_ids = seen

    # ------------------------------------------------------------------ actions
    def actions(self) -> None:
        """init_actions: ids unique (names may repeat: tables refer by id)."""
        seen = set()
        for i, a in enumerate(self.items(self.doc, "actions", "$")):
            path = f"actions[{i}]"
            name = self.string(a, "name", path)
            ident = self.integer(a, "id", path, minimum=0)
            if ident in seen:
                self.bad(path, f"several objects of type 'action' have the same id {ident}")
            seen.add(ident)
            params = self.items(a, "runtime_data", path)
            for k, rd in enumerate(params):
                if not isinstance(rd, dict) or not isinstance(rd.get("name"), str):
                    self.bad(f"{path}.runtime_data[{k}]", "runtime data is {name, bitwidth}")
                else:
                    self.integer(rd, "bitwidth", f"{path}.runtime_data[{k}]", minimum=1)
            prims = self.items(a, "primitives", path)
            for k, prim in enumerate(prims):
                self.primitive(prim, f"{path}.primitives[{k}]", len(params), len(prims))
            self.ctx.actions[ident] = (name, len(params))
            self.ctx.action_ops[ident] = {p.get("op") for p in prims if isinstance(p, dict)}

    def primitive(self, prim, path: str, n_params: int, n_primitives: int | None) -> None:
        """add_primitive_to_action + process_single_param, and the argument kinds the
        primitive's C++ signature accepts (actions.h ActionParam::to<T>)."""
        if not isinstance(prim, dict):
            self.bad(path, "a primitive call is an object {op, parameters}")
            return
        op = prim.get("op")
        if op not in PRIMITIVES:
            self.bad(path, f"unknown primitive action: {op!r}")
            return
        signature = PRIMITIVES[op]
        params = prim.get("parameters")
        if not isinstance(params, list) or len(params) != len(signature):
            got = len(params) if isinstance(params, list) else params
            self.bad(path, f"invalid number of parameters for primitive action {op}: "
                           f"expected {len(signature)} but got {got}")
            return
        for k, (param, cxx_type) in enumerate(zip(params, signature)):
            self.parameter(param, cxx_type, f"{path}.parameters[{k}]", n_params)
        if op in ("_jump", "_jump_if_zero"):
            self.jump_target(params[-1], path, n_primitives)
        if op in FIELD_LIST_ARGUMENT:
            self.ctx.field_list_uses.append((path, params[FIELD_LIST_ARGUMENT[op]]))
        if op == "generate_digest":
            self.ctx.field_list_uses.append((path + " (learn list)", params[1]))
        if op == "mark_to_drop" and isinstance(params[0], dict) and \
                params[0].get("type") == "header":
            # mark_to_drop logs "must be of type standard_metadata" and does nothing when
            # its header has no egress_spec (type_field_width reports the missing field)
            h = params[0].get("value")
            if h in self.ctx.headers:
                self.type_field_width(self.ctx.headers[h][0], "egress_spec", path)

    def jump_target(self, target, path: str, n_primitives) -> None:
        """_jump / _jump_if_zero: the offset is an index into the same action's primitive
        list (ActionFnEntry::execute loops while idx < size, so size itself ends it)."""
        if n_primitives is None:
            self.bad(path, "a jump outside an action body")
            return
        if not isinstance(target, dict) or target.get("type") != "hexstr" or \
                not isinstance(target.get("value"), str) or not _HEX.match(target["value"]):
            self.bad(path, "a jump target must be a hexstr constant")
            return
        offset = int(target["value"], 16)
        if not 0 <= offset <= n_primitives:
            self.bad(path, f"jump to {offset}, outside 0..{n_primitives}")

    def parameter(self, param, cxx_type: str, path: str, n_params: int) -> None:
        if not isinstance(param, dict):
            self.bad(path, f"a parameter is an object {{type, value}}, got {param!r}")
            return
        kind, value = param.get("type"), param.get("value")
        tag = kind
        if kind == "hexstr":
            self.hexstring(value, path)
        elif kind == "runtime_data":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0 or \
                    value >= n_params:
                self.bad(path, f"invalid 'runtime_data' reference {value!r}: the action has "
                               f"{n_params} parameter(s)")
        elif kind == "field":
            self.field_ref(value, path)
        elif kind == "header":
            self.header_ref(value, path)
        elif kind == "header_stack":
            if value not in self.ctx.stacks:
                self.bad(path, f"invalid reference to header stack {value!r}")
        elif kind == "stack_field":
            self.stack_field_ref(value, path)
        elif kind == "register":
            self.register_ref(value, path, n_params)
        elif kind == "calculation":
            if value not in self.ctx.calculations:
                self.bad(path, f"invalid reference to calculation {value!r}")
        elif kind == "meter_array":
            if value not in self.ctx.meters:
                self.bad(path, f"invalid reference to meter array {value!r}")
        elif kind == "counter_array":
            if value not in self.ctx.counters:
                self.bad(path, f"invalid reference to counter array {value!r}")
        elif kind == "register_array":
            if value not in self.ctx.registers:
                self.bad(path, f"invalid reference to register array {value!r}")
        elif kind == "extern":
            if value not in self.ctx.externs:
                self.bad(path, f"invalid reference to extern instance {value!r}")
        elif kind == "string":
            if not isinstance(value, str):
                self.bad(path, "a string parameter's value must be a string")
        elif kind == "parameters_vector":
            for k, item in enumerate(value if isinstance(value, list) else []):
                self.parameter(item, RVALUE, f"{path}.value[{k}]", n_params)
        elif kind == "field_list":
            for k, item in enumerate(value if isinstance(value, list) else []):
                self.parameter(item, FIELD, f"{path}.value[{k}]", n_params)
        elif kind in ("header_union", "header_union_stack"):
            table = self.ctx.unions if kind == "header_union" else self.ctx.union_stacks
            if value not in table:
                self.bad(path, f"invalid reference to {kind} {value!r}")
        elif kind == "expression":
            got = self.expression(value, f"{path}.value", n_params)
            if got in (BOOL, UNKNOWN):
                # parameter_push_back_expression: assert(0 && "Invalid expression type")
                self.bad(path, f"an expression parameter must produce data, a header, a "
                               f"stack or a union, not {got} (wrap a condition in b2d)")
            tag = f"expression:{got}"
            if cxx_type == LVALUE and got == DATA and not self.is_lvalue(value):
                self.bad(path, "the destination expression is not a field: "
                               "eval_arith_lvalue would write into a temporary")
        else:
            self.bad(path, f"parameter type {kind!r} not supported")
            return
        if tag not in ACCEPTED_PARAMS[cxx_type]:
            self.bad(path, f"a {kind} parameter where the primitive takes {cxx_type} "
                           f"(accepts {sorted(ACCEPTED_PARAMS[cxx_type])})")

    @staticmethod
    def is_lvalue(value) -> bool:
        """An lvalue expression ends in a field access (p4c: stack[i].f)."""
        if isinstance(value, dict) and value.get("type") == "expression":
            value = value.get("value")
        return isinstance(value, dict) and value.get("op") == "access_field"

    # ------------------------------------------------------------------ pipelines
    def pipelines(self) -> None:
        pipes = self.named_objects("pipelines", "pipeline")
        # control node names are global (add_control_node: one map for all pipelines)
        for path, p in pipes:
            for kind in ("tables", "conditionals", "action_calls"):
                for k, node in enumerate(self.items(p, kind, path)):
                    name = node.get("name") if isinstance(node, dict) else None
                    if name in self.ctx.control_nodes:
                        self.bad(f"{path}.{kind}[{k}]", f"duplicate control node {name!r}")
                    self.ctx.control_nodes.add(name)
        for path, p in pipes:
            self.pipeline(p, path)
        self.file_wide_ids(pipes)

    def file_wide_ids(self, pipes: list) -> None:
        """JSON_format.md "pipelines": table, condition, action call and action profile ids
        are unique in the whole file, not only in their pipeline (the loader's DupIdChecker
        is per pipeline, but ids identify these objects to the runtime)."""
        for kind in ("tables", "conditionals", "action_calls", "action_profiles"):
            seen = {}
            for path, p in pipes:
                for k, obj in enumerate(self.items(p, kind, path)):
                    ident = obj.get("id") if isinstance(obj, dict) else None
                    if ident in seen and seen[ident] != path:
                        self.bad(f"{path}.{kind}[{k}]", f"id {ident} is already used by "
                                                        f"{kind} of {seen[ident]}")
                    seen.setdefault(ident, path)

    def control_graphs(self) -> None:
        """Each pipeline's graph stays inside the pipeline (the node map is global, so the
        loader would let ingress continue into an egress table) and has no cycle
        (Pipeline::apply follows next nodes until null: a cycle never ends); primitives
        simple_switch honours in one pipeline only are used there."""
        for i, pipe in enumerate(self.items(self.doc, "pipelines", "$")):
            if not isinstance(pipe, dict):
                continue
            path, edges = f"pipelines[{i}]", _graph_edges(pipe)
            for node, nexts in edges.items():
                for n in nexts:
                    if n in self.ctx.control_nodes and n not in edges:
                        self.bad(path, f"node {node!r} continues with {n!r} of another pipeline")
            init = pipe.get("init_table")
            if init is not None and init in self.ctx.control_nodes and init not in edges:
                self.bad(path, f"init_table {init!r} belongs to another pipeline")
            cycle = _find_cycle(edges)
            if cycle:
                self.bad(path, f"control flow cycle {' -> '.join(cycle)}: the pipeline would "
                               "never end")
            self.primitive_placement(pipe, path)

    def primitive_placement(self, pipe: dict, path: str) -> None:
        ids = set()
        by_name = {n: i for i, (n, _) in self.ctx.actions.items()}
        for t in pipe.get("tables") or []:
            ids.update(i for i in t.get("action_ids") or [] if isinstance(i, int))
            if "action_ids" not in t:
                ids.update(by_name[n] for n in t.get("actions") or [] if n in by_name)
            default = t.get("default_entry")
            if isinstance(default, dict):
                ids.add(default.get("action_id"))
        ids.update(a.get("action_id") for a in pipe.get("action_calls") or [])
        for ident in sorted(i for i in ids if i in self.ctx.action_ops):
            for op in sorted(self.ctx.action_ops[ident]):
                where = PIPELINE_ONLY.get(op)
                if where is not None and pipe.get("name") in ("ingress", "egress") \
                        and pipe.get("name") != where:
                    self.bad(path, f"action '{self.ctx.actions[ident][0]}' calls {op} in "
                                   f"{pipe.get('name')}; simple_switch only honours it in "
                                   f"{where} (p4c rejects it)")

    def next_node(self, value, path: str) -> None:
        if value is not None and value not in self.ctx.control_nodes:
            self.bad(path, f"invalid reference to control node {value!r}")

    def pipeline(self, p: dict, path: str) -> None:
        self.next_node(p.get("init_table"), f"{path}.init_table")
        profiles = set()
        for k, ap in enumerate(self.items(p, "action_profiles", path)):
            profiles.add(ap.get("name"))
            if "selector" in ap:
                sel = ap["selector"]
                if sel.get("algo") not in HASH_ALGORITHMS:
                    self.bad(f"{path}.action_profiles[{k}]", "unknown selector algorithm")
                for e in sel.get("input", []):
                    if e.get("type") != "field":
                        self.bad(f"{path}.action_profiles[{k}]", "selector inputs are fields")
                    else:
                        self.field_ref(e.get("value"), f"{path}.action_profiles[{k}]")
        ids = set()
        for k, t in enumerate(self.items(p, "tables", path)):
            tpath = f"{path}.tables[{k}]"
            ident = self.integer(t, "id", tpath, minimum=0)
            if ident in ids:
                self.bad(tpath, f"several tables have the same id {ident}")
            ids.add(ident)
            self.table(t, tpath, profiles)
        ids = set()
        for k, c in enumerate(self.items(p, "conditionals", path)):
            cpath = f"{path}.conditionals[{k}]"
            ident = self.integer(c, "id", cpath, minimum=0)
            if ident in ids:
                self.bad(cpath, f"several conditions have the same id {ident}")
            ids.add(ident)
            # Conditional::eval pops a bool: the expression must produce one
            self.expect_kind(c.get("expression"), f"{cpath}.expression", BOOL, None)
            if "true_next" not in c and "false_next" not in c:
                self.bad(cpath, "conditional must have either or both of the keys "
                                "'true_next' and 'false_next'")
            self.next_node(c.get("true_next"), f"{cpath}.true_next")
            self.next_node(c.get("false_next"), f"{cpath}.false_next")
        for k, ac in enumerate(self.items(p, "action_calls", path)):
            apath = f"{path}.action_calls[{k}]"
            action = self.ctx.actions.get(ac.get("action_id"))
            if action is None:
                self.bad(apath, f"action id {ac.get('action_id')!r} does not exist")
            elif action[1]:
                self.bad(apath, f"cannot call action '{action[0]}' directly from control as "
                                "it expects parameters")
            self.next_node(ac.get("next_node"), f"{apath}.next_node")

    def table(self, t: dict, path: str, profiles: set) -> None:
        keys = self.items(t, "key", path)
        key_bytes, key_types = self.table_keys(keys, path)
        match_type = t.get("match_type")
        if match_type not in TABLE_MATCH_TYPES:
            self.bad(path, f"table match_type {match_type!r} (create_match_unit asserts)")
        elif keys and match_type != derived_match_type(key_types):
            # p4c derives it from the keys; a lookup structure of another kind matches
            # differently (an exact unit ignores ternary masks, an lpm one priorities)
            self.bad(path, f"table match_type {match_type!r} but its keys call for "
                           f"{derived_match_type(key_types)!r}")
        table_type = t.get("type")
        if table_type not in TABLE_TYPES:
            self.bad(path, f"invalid table type {table_type!r}")
        elif table_type != "simple" and t.get("action_profile") not in profiles and \
                "act_prof_name" not in t:
            self.bad(path, "indirect tables need an 'action_profile'")
        if "max_size" not in t and "entries" not in t:
            self.bad(path, "table has neither 'max_size' nor 'entries' attribute")
        if "max_size" in t:
            self.integer(t, "max_size", path, minimum=0)
        self.boolean(t, "with_counters", path)
        self.boolean(t, "support_timeout", path)
        meter = t.get("direct_meters")
        if meter is not None and not self.ctx.meters.get(meter):
            self.bad(path, f"refers to unknown direct meter array {meter!r}")
        action_ids = self.table_actions(t, path)
        self.table_next(t, path, action_ids)
        self.default_entry(t, path, action_ids)
        if "entries" in t:
            self.entries(t, path, keys, key_bytes, action_ids)

    def table_keys(self, keys: list, path: str):
        key_bytes, key_types = [], []
        lpm = 0
        for k, key in enumerate(keys):
            kpath = f"{path}.key[{k}]"
            mt = key.get("match_type") if isinstance(key, dict) else None
            if mt not in MATCH_TYPES:
                self.bad(kpath, f"invalid match type: {mt!r}")
                key_bytes.append(0)
                key_types.append("exact")
                continue
            lpm += mt == "lpm"
            key_types.append(mt)
            if mt == "valid":
                self.header_ref(key.get("target"), kpath)
                key_bytes.append(1)
                continue
            width = self.field_ref(key.get("target"), kpath)
            nbytes = (width + 7) // 8 if isinstance(width, int) else 0
            key_bytes.append(nbytes)
            mask = key.get("mask")
            if mask is not None and self.hexstring(mask, f"{kpath}.mask", signed=False) \
                    and hexstr_bytes(mask) != nbytes:
                self.bad(f"{kpath}.mask", f"mask has {hexstr_bytes(mask)} bytes, the field "
                                          f"{nbytes}")
        if lpm > 1:
            self.bad(path, "table features 2 LPM match fields")
        return key_bytes, key_types

    def table_actions(self, t: dict, path: str) -> list:
        """The loader reads "action_ids" when present (else "actions" by name); p4c writes
        both, and they must agree for the control plane, which uses the names."""
        action_ids = self.items(t, "action_ids", path)
        names = self.items(t, "actions", path)
        for ident in action_ids:
            if ident not in self.ctx.actions:
                self.bad(path, f"action id {ident!r} does not exist (actions_map.at throws)")
        by_name = [self.ctx.actions[i][0] for i in action_ids if i in self.ctx.actions]
        for n in sorted({n for n in by_name if by_name.count(n) > 1}):
            # add_action_to_table: one (table, action name) pair each
            self.bad(path, f"duplicate actions with name '{n}' in the table")
        if "action_ids" in t and "actions" in t:
            by_id = [self.ctx.actions.get(i, (None,))[0] for i in action_ids]
            if by_id != names:
                self.bad(path, f"'actions' {names} do not name 'action_ids' {action_ids}")
        if "action_ids" not in t:
            # old format: get_one_action_with_name, the first action of that name
            first = {}
            for ident, (n, _) in sorted(self.ctx.actions.items(), key=lambda kv: str(kv[0])):
                first.setdefault(n, ident)
            for n in names:
                if n not in first:
                    self.bad(path, f"action {n!r} does not exist")
            return [first[n] for n in names if n in first]
        return action_ids

    def table_next(self, t: dict, path: str, action_ids: list) -> None:
        """check_next_nodes: exactly {__HIT__, __MISS__}, or exactly one key per action."""
        nxt = t.get("next_tables")
        if not isinstance(nxt, dict):
            self.bad(path, "next_tables must be a JSON object")
            return
        if "__HIT__" in nxt or "__MISS__" in nxt:
            if set(nxt) != {"__HIT__", "__MISS__"}:
                self.bad(f"{path}.next_tables", "has one of '__HIT__'/'__MISS__' but not both, "
                                                "or other keys besides")
        else:
            # the loader counts the list it reads: "action_ids", else "actions" (old format)
            names = ([self.ctx.actions.get(i, (None,))[0] for i in action_ids]
                     if "action_ids" in t else list(self.items(t, "actions", path)))
            if len(nxt) != len(names):
                self.bad(f"{path}.next_tables", f"should have exactly {len(names)} keys, "
                                                f"one per action, found {len(nxt)}")
            for n in names:
                if n not in nxt:
                    self.bad(f"{path}.next_tables", f"no key for action {n!r}")
        for key, value in nxt.items():
            self.next_node(value, f"{path}.next_tables.{key}")
        if "base_default_next" in t:
            self.next_node(t["base_default_next"], f"{path}.base_default_next")

    def default_entry(self, t: dict, path: str, action_ids: list) -> None:
        if "default_entry" not in t:
            return
        d = t["default_entry"]
        dpath = f"{path}.default_entry"
        if not isinstance(d, dict):
            self.bad(dpath, "must be an object")
            return
        self.boolean(d, "action_const", dpath)
        self.boolean(d, "action_entry_const", dpath)
        if d.get("action_const") and t.get("type") != "simple":
            self.bad(dpath, "'action_const' is meaningless for a table not of type 'simple'")
        if "action_data" not in d:
            self.bad(dpath, "'default_entry' should have key 'action_data'")
        self.action_entry(d, dpath, action_ids)

    def action_entry(self, entry: dict, path: str, action_ids: list) -> None:
        ident = entry.get("action_id")
        if ident not in self.ctx.actions:
            self.bad(path, f"action id {ident!r} does not exist")
            return
        if ident not in action_ids:
            # no next node is registered for an action outside the table
            self.bad(path, f"action id {ident} is not one of the table's actions")
        name, n_params = self.ctx.actions[ident]
        data = entry.get("action_data", [])
        if not isinstance(data, list) or len(data) != n_params:
            self.bad(path, f"invalid number of arguments for action '{name}': expected "
                           f"{n_params} but got {len(data) if isinstance(data, list) else data}")
            return
        for k, v in enumerate(data):
            self.hexstring(v, f"{path}.action_data[{k}]")

    def entries(self, t: dict, path: str, keys: list, key_bytes: list,
                action_ids: list) -> None:
        """parse_match_key and MatchTable::add_entry: one key per table key, same match
        type, byte sizes of the field; no duplicate entries."""
        if t.get("type") != "simple":
            self.bad(path, "only 'simple' tables can have 'entries'")
        seen = set()
        for e, entry in enumerate(self.items(t, "entries", path)):
            epath = f"{path}.entries[{e}]"
            mk = self.items(entry, "match_key", epath)
            if len(mk) != len(keys):
                self.bad(epath, f"invalid number of fields in match key, expected "
                                f"{len(keys)} but got {len(mk)}")
                continue
            signature = []
            for k, (m, ref, nbytes) in enumerate(zip(mk, keys, key_bytes)):
                signature.append(self.entry_key(m, ref, nbytes, f"{epath}.match_key[{k}]"))
            self.action_entry(entry.get("action_entry", {}), f"{epath}.action_entry",
                              action_ids)
            priority = self.integer(entry, "priority", epath)
            ident = (tuple(signature), priority if t.get("match_type") in
                     ("ternary", "range") else None)
            if ident in seen:
                self.bad(epath, "duplicate entries in table initializer")
            seen.add(ident)

    def entry_key(self, m, ref, nbytes: int, path: str):
        mt = m.get("match_type") if isinstance(m, dict) else None
        ref_mt = ref.get("match_type") if isinstance(ref, dict) else None
        if mt != ref_mt:
            self.bad(path, f"invalid match type, expected {ref_mt} but got {mt}")
            return None
        parts = {"exact": ("key",), "lpm": ("key",), "ternary": ("key", "mask"),
                 "range": ("start", "end"), "valid": ()}.get(mt, ())
        values = []
        for part in parts:
            v = m.get(part)
            if self.hexstring(v, f"{path}.{part}", signed=False):
                if hexstr_bytes(v) != nbytes:
                    self.bad(f"{path}.{part}", f"{hexstr_bytes(v)} bytes, the key field has "
                                               f"{nbytes} (BAD_MATCH_KEY)")
                values.append(int(v, 16))
        if mt == "lpm":
            plen = self.integer(m, "prefix_length", path, minimum=0)
            if isinstance(plen, int) and plen > nbytes * 8:
                self.bad(path, f"prefix_length {plen} longer than the key")
            values.append(plen)
        if mt == "valid":
            self.boolean(m, "key", path, required=True)
            values.append(m.get("key"))
        return (mt, tuple(values))

    # ------------------------------------------------------------------ the rest
    def checksums(self) -> None:
        """init_checksums: target field, type ipv4|generic (assert), calculation, if_cond."""
        for path, c in self.named_objects("checksums", "checksum",
                                          unique_name=lambda c: False):
            self.field_ref(c.get("target"), f"{path}.target")
            kind = c.get("type")
            if kind not in ("ipv4", "generic"):
                self.bad(path, f"checksum type {kind!r} (the loader asserts 'generic')")
            if kind == "generic" and c.get("calculation") not in self.ctx.calculations:
                self.bad(path, f"invalid reference to calculation {c.get('calculation')!r}")
            self.boolean(c, "update", path)
            self.boolean(c, "verify", path)
            if c.get("if_cond") is not None:
                self.expect_kind(c["if_cond"], f"{path}.if_cond", BOOL, None)

    def force_arith(self) -> None:
        for i, f in enumerate(self.items(self.doc, "force_arith", "$")):
            self.field_ref(f, f"force_arith[{i}]", aliases=True)

    def required_fields(self) -> None:
        for header, field in REQUIRED_FIELDS:
            known = f"{header}.{field}" in self.ctx.aliases or (
                header in self.ctx.headers and field in self.ctx.header_types.get(
                    self.ctx.headers[header][0], _HeaderType({})).fields)
            if not known:
                self.bad("headers", f"field {header}.{field} is required by switch target "
                                    "but is not defined")
        present = [f for f in QUEUEING_FIELDS if f"queueing_metadata.{f}" in self.ctx.aliases]
        if present and len(present) != len(QUEUEING_FIELDS):
            # check_queueing_metadata: warns and disables all queueing metadata
            self.bad("field_aliases", "defines some but not all queueing metadata fields")

    def runtime_cli_keys(self) -> None:
        """simple_switch_CLI reads the same JSON (tools/runtime_CLI.py, load_json_str) and
        indexes some keys the switch itself treats as optional; a missing one is a KeyError
        that leaves the CLI unable to program anything."""
        for i, a in enumerate(self.items(self.doc, "actions", "$")):
            if isinstance(a, dict) and "runtime_data" not in a:
                self.bad(f"actions[{i}]", "simple_switch_CLI needs 'runtime_data'")
        for i, p in enumerate(self.items(self.doc, "pipelines", "$")):
            for k, t in enumerate(self.items(p, "tables", f"pipelines[{i}]")):
                for key in ("support_timeout", "actions", "match_type", "type", "key"):
                    if isinstance(t, dict) and key not in t:
                        self.bad(f"pipelines[{i}].tables[{k}]", f"simple_switch_CLI needs {key!r}")
        needs = {"counter_arrays": lambda o: ["is_direct", "binding" if o.get("is_direct")
                                              else "size"],
                 "meter_arrays": lambda o: ["type", "rate_count", "binding" if o.get("is_direct")
                                            else "size"],
                 "register_arrays": lambda o: ["size", "bitwidth"]}
        for kind, keys in needs.items():
            for i, o in enumerate(self.items(self.doc, kind, "$")):
                for key in keys(o) if isinstance(o, dict) else []:
                    if key not in o:
                        self.bad(f"{kind}[{i}]", f"simple_switch_CLI needs {key!r}")

    def stf_runner_shape(self) -> None:
        """p4c's STF runner (backends/bmv2/bmv2stf.py, RunBMV2.readJson) -- the one the
        conformance kit's expectations come from -- reads the tables of pipelines[0] and
        pipelines[1] and pairs "actions" with "action_ids" by position."""
        pipes = self.items(self.doc, "pipelines", "$")
        if len(pipes) < 2:
            self.bad("pipelines", "p4c's STF runner reads pipelines[0] and pipelines[1]")
        for i, p in enumerate(pipes[:2]):
            for k, t in enumerate(self.items(p, "tables", f"pipelines[{i}]")):
                if not isinstance(t, dict):
                    continue
                if "action_ids" not in t or "actions" not in t:
                    self.bad(f"pipelines[{i}].tables[{k}]", "p4c's STF runner needs both "
                                                           "'actions' and 'action_ids'")
                elif len(t["actions"]) != len(t["action_ids"]):
                    self.bad(f"pipelines[{i}].tables[{k}]", "'actions' and 'action_ids' "
                                                           "differ in length")

    def required_blocks(self) -> None:
        for key, names in REQUIRED_BLOCKS.items():
            have = {o.get("name") for o in self.items(self.doc, key, "$") if isinstance(o, dict)}
            for name in names:
                if name not in have:
                    self.bad(key, f"simple_switch looks up {key[:-1]} {name!r}, which is "
                                  "missing")

    def field_list_uses(self) -> None:
        for path, param in self.ctx.field_list_uses:
            learn = path.endswith("(learn list)")
            if not isinstance(param, dict) or param.get("type") != "hexstr":
                self.bad(path, "the field/learn list id should be a constant")
                continue
            try:
                ident = int(param.get("value"), 16)
            except (TypeError, ValueError):
                continue    # already reported as a bad hexstr
            ids = self.ctx.learn_list_ids if learn else self.ctx.field_list_ids
            if ident == 0 and not learn:
                self.bad(path, "field list id 0: resubmit/recirculate flags test non-zero, "
                               "and cloning looks id 0 up in field_lists")
            elif ident not in ids:
                self.bad(path, f"{'learn' if learn else 'field'} list id {ident} does not "
                               "exist (simple_switch: field_lists.at throws)")


# simple_switch reads each flag in one place only (simple_switch.cpp): resubmit and the
# ingress clone after the ingress pipeline, the egress clone after egress (it shares the
# clone register with the ingress clone, so an E2E clone in ingress acts as I2E). p4c
# rejects the misplaced calls ("not invoked in ingress/egress", backends/bmv2/simple_switch);
# recirculate is accepted by p4c in egress only.
# generate_digest likewise: the learn id is read after ingress (v1model.p4: "Calling digest
# is only supported in the ingress control").
PIPELINE_ONLY = {"resubmit": "ingress", "clone_ingress_pkt_to_egress": "ingress",
                 "clone_egress_pkt_to_egress": "egress", "recirculate": "egress",
                 "generate_digest": "ingress"}


def _graph_edges(pipe: dict) -> dict:
    """Control node -> the nodes it may continue with (tables and conditionals)."""
    edges = {}
    for t in pipe.get("tables") or []:
        nxt = t.get("next_tables") if isinstance(t.get("next_tables"), dict) else {}
        edges[t.get("name")] = [v for v in [*nxt.values(), t.get("base_default_next")]
                                if v is not None]
    for c in pipe.get("conditionals") or []:
        edges[c.get("name")] = [v for v in (c.get("true_next"), c.get("false_next"))
                                if v is not None]
    for a in pipe.get("action_calls") or []:
        edges[a.get("name")] = [a["next_node"]] if a.get("next_node") is not None else []
    return edges


def _find_cycle(edges: dict) -> list | None:
    """A cycle among the control nodes (iterative DFS), or None."""
    state = {}                                   # name -> 1 on stack, 2 done
    for root in edges:
        if state.get(root):
            continue
        stack = [(root, iter(edges.get(root, [])))]
        state[root] = 1
        path = [root]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif child in edges and not state.get(child):
                state[child] = 1
                stack.append((child, iter(edges[child])))
                path.append(child)
    return None


def derived_match_type(key_types: list) -> str:
    """p4c's table match type: range if any key is range, else ternary if any ternary,
    else lpm if any lpm, else exact (valid keys count as exact)."""
    for kind in ("range", "ternary", "lpm"):
        if kind in key_types:
            return kind
    return "exact"


def check_bmv2_json(doc) -> list[Problem]:
    """Every loader rule the document breaks (empty: real simple_switch would load it)."""
    return Checker(doc).run()


def assert_loadable(doc) -> None:
    problems = check_bmv2_json(doc)
    if problems:
        raise Bmv2JsonError(problems)


def main(argv: list[str] | None = None) -> int:
    """`python -m toolchain.compiler.backend.bmv2_schema prog.json ...`: one line per
    problem, exit status 1 if any file breaks a rule."""
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print("usage: python -m toolchain.compiler.backend.bmv2_schema prog.json ...",
              file=sys.stderr)
        return 2
    status = 0
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as exc:
            print(f"{path}: cannot read JSON: {exc}")
            status = 1
            continue
        problems = check_bmv2_json(doc)
        for p in problems:
            print(f"{path}: {p}")
        if problems:
            status = 1
        else:
            print(f"{path}: ok")
    return status


if __name__ == "__main__":
    sys.exit(main())
