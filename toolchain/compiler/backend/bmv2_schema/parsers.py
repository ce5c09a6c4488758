"""Parsers: states, transitions with their keys and masks, parser operations."""
from __future__ import annotations

from .reader import JsonReader
from .vocabulary import BOOL, DATA, HEX, hexstr_bytes, PARSER_OPS


class ParserRules(JsonReader):
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
                    isinstance(err.get("value"), str) and HEX.match(err["value"]):
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
