"""Actions: primitives, their parameters as the C++ types they are read into
(`ActionParam::to<T>`), and jumps."""
from __future__ import annotations

from ..bmv2_primitives import (ACCEPTED_PARAMS, FIELD, FIELD_LIST_ARGUMENT, LVALUE, PRIMITIVES,
                               RVALUE)
from .reader import JsonReader
from .vocabulary import BOOL, DATA, HEX, UNKNOWN


class ActionRules(JsonReader):
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
                not isinstance(target.get("value"), str) or not HEX.match(target["value"]):
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
