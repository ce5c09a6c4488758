"""Reading a document as the loader reads it: typed attributes with jsoncpp's leniency, named
objects and their ids, field and header references resolved against the name tables built in
`P4Objects::init_objects` order, and expressions with the kinds the evaluator gives them."""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field

from .problems import Problem
from .vocabulary import (_UNSIGNEDHEX, BOOL, DATA, EXPRESSION_OPS, HEADER, HEX, INT32_MAX,
                         STACK, STACK_COUNT_OPS, UINT32_MAX, UNION, UNION_STACK, UNKNOWN)


@dataclass
class HeaderTypeInfo:
    fields: dict           # name -> (width or "*", signed)


@dataclass
class NameTables:
    """Name tables built in the loader's order (init_objects)."""
    header_types: dict = dc_field(default_factory=dict)     # name -> HeaderTypeInfo
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


class JsonReader:
    """The document, the problems found so far and the name tables; the rule parts of
    Bmv2JsonChecker (__init__.py) build on it."""

    def __init__(self, doc):
        self.doc = doc
        self.problems: list[Problem] = []
        self.ctx = NameTables()

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
        pattern = HEX if signed else _UNSIGNEDHEX
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
