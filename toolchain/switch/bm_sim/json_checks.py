"""The shape of a BMv2 JSON document, checked before anything is compiled from it.

The loader turns the JSON into Python source, so a crafted document must never become code.
Every value the code generator reads is checked here first, by type and range, and a bad
one is refused with a ``LoadError`` that starts with its JSON path (``actions[3].id: ...``):

* ids, widths, sizes, offsets and error codes are ints (not bools, not strings) within
  bounds; a width is at most ``MAX_WIDTH`` bits and an array at most ``MAX_ARRAY_SIZE``
  cells, so that no value makes loading hang or exhaust memory;
* constants are hex strings of at most ``MAX_HEX_DIGITS`` digits;
* the words that select behaviour (primitive and operator names, operand, parser-op,
  match, table, meter and checksum types, hash algorithms) are names this target knows;
* names of objects are strings and stay data: the generated code holds them as constants
  or dictionary keys, never in its text;
* the document nests at most ``MAX_NESTING`` levels, as BMv2's JSON reader (jsoncpp) counts
  them, and expressions at most ``MAX_EXPRESSION_DEPTH`` levels (two levels of JSON each).

Which names refer to which objects is checked where they are resolved (json_loader and the
compilers it drives); this module only guarantees the types they are read with. The keys
are the ones BMv2's ``P4Objects::init_objects`` reads (README.md, "The loader, key by key").
"""

from __future__ import annotations

import json
import re

from ..errors import LoadError
from .actions import PRIMITIVE_PARAMS, PRIMITIVES
from .expressions import EXPRESSION_OPS
from .hash_algos import KNOWN_ALGORITHMS
from .pipeline import MATCH_TYPES, TABLE_TYPES

__all__ = ["check_program", "json_path", "shown_path", "too_deep", "too_deep_text", "MAX_ID",
           "MAX_WIDTH", "MAX_HEX_DIGITS", "MAX_ARRAY_SIZE", "MAX_EXPRESSION_DEPTH", "MAX_NESTING"]

MAX_ID = (1 << 31) - 1           # BMv2's p4object_id_t is an int
MAX_WIDTH = 4096                 # bits of a field, a register cell, an action parameter
MAX_HEX_DIGITS = 2048            # a constant of up to 8192 bits (concatenated select keys)
MAX_ARRAY_SIZE = 1 << 22         # cells of one register, counter or meter array
MAX_RATE_COUNT = 16              # token buckets of one meter (v1model's meters have 2)
MAX_BIT_OFFSET = 1 << 20         # lookahead offsets, in bits
MAX_EXPRESSION_DEPTH = 500
# Levels of the JSON document: BMv2 reads its JSON with jsoncpp (P4Objects::init_objects,
# ``is >> cfg_root``), whose reader throws "Exceeded stackLimit in readValue()" at a value
# nested deeper than its stackLimit: 1000 in jsoncpp up to 1.9.6, the versions Debian 12 and
# Ubuntu ship (1.9.7 lowered it to 256). The document is level 1 and every value, scalars
# included, is one level deeper than the object or array holding it.
MAX_NESTING = 1000

PARSER_OPS = {"extract", "extract_VL", "set", "verify", "shift", "advance", "primitive"}
TRANSITION_TYPES = {"default", "hexstr", "parse_vset"}
METER_TYPES = {"bytes", "packets"}
TABLE_MATCH_TYPES = {"exact", "lpm", "ternary", "range"}     # BMv2's match units
CHECKSUM_TYPES = {"generic", "ipv4"}
# ops of one operand, the "right" one (expressions.cpp); every other op but "?" has two
UNARY_OPS = {"~", "not", "d2b", "b2d", "valid", "valid_union", "last_stack_index", "size_stack"}
_UNARY = {"left": False, "right": True, "cond": False}
_BINARY = {"left": True, "right": True, "cond": False}
_TERNARY = {"left": True, "right": True, "cond": True}
# ops whose right operand is a bit width (P4's casts and saturating arithmetic)
WIDTH_OPS = {"two_comp_mod", "sat_cast", "usat_cast"}

_HEX = re.compile(r"-?(?:0[xX])?[0-9a-fA-F]+")

Path = tuple


def json_path(path: Path) -> str:
    """``("actions", 3, "id")`` -> ``actions[3].id``."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def shown_path(path: Path) -> str:
    """``json_path(path)`` as an error message shows it: a path deep in an expression is
    shortened to its start and its end."""
    where = json_path(path)
    return where if len(where) <= 160 else f"{where[:80]}...{where[-60:]}"


def _bad(path: Path, what: str) -> LoadError:
    return LoadError(f"{shown_path(path)}: {what}")


def _show(v) -> str:
    """A short rendering of a JSON value for an error message."""
    if type(v) is int and v.bit_length() > 64:
        return f"an integer of {v.bit_length()} bits"      # repr would be thousands of digits
    text = repr(v)
    return text if len(text) <= 48 else text[:45] + "..."


class _Checker:
    """One pass over a document; each method checks one kind of BMv2 JSON object, in the
    order of ``P4Objects::init_objects``."""

    # -- scalars --------------------------------------------------------------------------------
    @staticmethod
    def int(v, path: Path, lo: int = 0, hi: int = MAX_ID) -> int:
        if type(v) is not int:
            raise _bad(path, f"expected an integer, got {_show(v)}")
        if not lo <= v <= hi:
            raise _bad(path, f"{_show(v)} is out of range [{lo}, {hi}]")
        return v

    @staticmethod
    def str(v, path: Path) -> str:
        if type(v) is not str:
            raise _bad(path, f"expected a string, got {_show(v)}")
        return v

    @staticmethod
    def bool(v, path: Path) -> None:
        # jsoncpp's asBool also reads numbers; nothing else is a truth value
        if type(v) not in (bool, int):
            raise _bad(path, f"expected true or false, got {_show(v)}")

    @staticmethod
    def word(v, path: Path, known, what: str) -> str:
        """A string naming one of ``known`` (a behaviour this target implements)."""
        if type(v) is not str:
            raise _bad(path, f"expected a string, got {_show(v)}")
        if v not in known:
            raise _bad(path, f"unsupported {what} {_show(v)}")
        return v

    @staticmethod
    def hexstr(v, path: Path, *, signed: bool = True) -> str:
        if type(v) is not str or not _HEX.fullmatch(v):
            raise _bad(path, f"expected a hexadecimal string, got {_show(v)}")
        if not signed and v.startswith("-"):
            raise _bad(path, f"expected a non-negative value, got {_show(v)}")
        digits = len(v.lstrip("-")) - (2 if v.lstrip("-")[:2] in ("0x", "0X") else 0)
        if digits > MAX_HEX_DIGITS:
            raise _bad(path, f"a constant of {digits} hex digits (at most {MAX_HEX_DIGITS})")
        return v

    @staticmethod
    def obj(v, path: Path) -> dict:
        if type(v) is not dict:
            raise _bad(path, f"expected an object, got {_show(v)}")
        return v

    @staticmethod
    def list(v, path: Path, n: int | None = None) -> list:
        if type(v) is not list:
            raise _bad(path, f"expected an array, got {_show(v)}")
        if n is not None and len(v) != n:
            raise _bad(path, f"expected an array of {n} elements, got {len(v)}")
        return v

    def opt(self, d: dict, key: str, path: Path, check, *args) -> None:
        """``check(d[key])`` when the key is present and not null."""
        if d.get(key) is not None:
            check(d[key], path + (key,), *args)

    def items(self, d: dict, key: str, path: Path) -> list:
        """(item, path) for each element of the array ``d[key]`` (absent: none)."""
        if key not in d:
            return []
        v = d[key]
        self.list(v, path + (key,))
        return [(x, path + (key, i)) for i, x in enumerate(v)]

    def field_ref(self, v, path: Path) -> None:
        """``[header, field]``."""
        self.list(v, path, 2)
        self.str(v[0], path + (0,))
        self.str(v[1], path + (1,))

    def named(self, d, path: Path, ids: dict | None = None) -> dict:
        """An object with a string ``name`` and, when ``ids`` is given, an integer ``id``
        that no other object of its kind has (BMv2's DupIdChecker)."""
        self.obj(d, path)
        self.str(d.get("name"), path + ("name",))
        if ids is not None:
            i = self.int(d.get("id"), path + ("id",))
            if i in ids:
                raise _bad(path + ("id",), f"id {i} is also the id of {ids[i]}")
            ids[i] = json_path(path)
        return d

    # -- operands and expressions (JSON_format.md, "expressions") ------------------------------
    def operand(self, e, path: Path, depth: int = 0) -> None:
        """A typed operand ``{"type": ..., "value": ...}`` (or a bare op object)."""
        if depth > MAX_EXPRESSION_DEPTH:
            raise _bad(path, f"expression nested deeper than {MAX_EXPRESSION_DEPTH} levels")
        self.obj(e, path)
        if "type" not in e and "op" in e:
            self.op(e, path, depth)
            return
        t = self.word(e.get("type"), path + ("type",), _OPERANDS, "expression operand type")
        _OPERANDS[t](self, e.get("value"), path + ("value",), depth)
        self.opt(e, "bitwidth", path, self.int, 0, MAX_WIDTH)

    def op(self, x, path: Path, depth: int) -> None:
        op = self.word(x.get("op"), path + ("op",), EXPRESSION_OPS, "expression op")
        needs = _UNARY if op in UNARY_OPS else _TERNARY if op == "?" else _BINARY
        for key in ("left", "right", "cond"):
            sub = x.get(key)
            if sub is None:
                if needs[key] and not (key == "left" and op in ("+", "-")):   # unary +, -
                    raise _bad(path, f"'{op}' needs a '{key}' operand")
                continue
            if not needs[key]:
                raise _bad(path + (key,), f"'{op}' takes no '{key}' operand")
            if key == "right" and op in ("access_field", "access_union_header") and type(sub) is int:
                self.int(sub, path + (key,))       # a field (member) offset, as BMv2 reads it
                continue
            self.operand(sub, path + (key,), depth + 1)
        if op in WIDTH_OPS:
            w, wp = x.get("right"), path + ("right",)
            if not (isinstance(w, dict) and w.get("type") == "hexstr"):
                raise _bad(wp, f"'{op}' needs a constant width (hexstr)")
            if not 1 <= int(w["value"], 16) <= MAX_WIDTH:
                raise _bad(wp + ("value",), f"width {int(w['value'], 16)} is out of range "
                           f"[1, {MAX_WIDTH}]")

    def _v_expression(self, v, path: Path, depth: int) -> None:
        self.obj(v, path)
        if "op" in v:
            self.op(v, path, depth)
        else:                           # p4c wraps an operand in one more "expression"
            self.operand(v, path, depth)

    def _v_field(self, v, path: Path, depth: int) -> None:
        self.field_ref(v, path)

    def _v_hexstr(self, v, path: Path, depth: int) -> None:
        self.hexstr(v, path)

    def _v_bool(self, v, path: Path, depth: int) -> None:
        self.bool(v, path)

    def _v_index(self, v, path: Path, depth: int) -> None:
        self.int(v, path)

    def _v_name(self, v, path: Path, depth: int) -> None:
        self.str(v, path)

    def _v_lookahead(self, v, path: Path, depth: int) -> None:
        self.list(v, path, 2)
        self.int(v[0], path + (0,), 0, MAX_BIT_OFFSET)
        self.int(v[1], path + (1,), 1, MAX_WIDTH)

    def _v_operands(self, v, path: Path, depth: int) -> None:
        self.list(v, path)
        for i, x in enumerate(v):
            self.operand(x, path + (i,), depth + 1)

    def _v_none(self, v, path: Path, depth: int) -> None:
        pass

    # -- sections ---------------------------------------------------------------------------------
    def document(self, j) -> None:
        if type(j) is not dict:
            raise LoadError("BMv2 JSON must be an object at top level")
        meta = j.get("__meta__")
        if meta is not None:
            self.obj(meta, ("__meta__",))
            version = meta.get("version")
            if version is not None:
                self.list(version, ("__meta__", "version"), 2)
                for i, x in enumerate(version):
                    self.int(x, ("__meta__", "version", i))
        self.opt(j, "program", (), self.str)
        self.header_types(j)
        self.headers(j)
        self.errors(j)
        self.lists(j)
        self.calculations(j)
        self.externs(j)
        self.actions(j)
        self.parsers(j)
        self.pipelines(j)
        self.checksums(j)
        self.deparsers(j)

    def header_types(self, j: dict) -> None:
        ids: dict = {}
        for t, p in self.items(j, "header_types", ()):
            self.named(t, p, ids)
            fixed, varbit = 0, None
            self.list(t.get("fields"), p + ("fields",))
            for f, fp in self.items(t, "fields", p):
                self.list(f, fp)
                if not 2 <= len(f) <= 4:
                    raise _bad(fp, "a field is [name, width, signed, saturating], got "
                               f"{len(f)} elements")
                self.str(f[0], fp + (0,))
                if f[1] == "*":
                    varbit = fp
                else:
                    fixed += self.int(f[1], fp + (1,), 0, MAX_WIDTH)
                for k in range(2, len(f)):
                    self.bool(f[k], fp + (k,))
            if varbit is not None and t.get("max_length") is not None:
                # (a varbit type without it is refused where a header uses it: phv.py)
                n = self.int(t.get("max_length"), p + ("max_length",), 0, MAX_WIDTH)
                if not fixed <= n * 8 <= fixed + MAX_WIDTH:
                    raise _bad(p + ("max_length",), f"{n} bytes leave the varbit field "
                               f"{n * 8 - fixed} bits (0 to {MAX_WIDTH})")

    def headers(self, j: dict) -> None:
        ids: dict = {}
        for h, p in self.items(j, "headers", ()):
            self.named(h, p, ids)
            self.str(h.get("header_type"), p + ("header_type",))
            self.opt(h, "metadata", p, self.bool)
        for key, kind, ref in (("header_stacks", "header_type", "header_ids"),
                               ("header_unions", "union_type", "header_ids"),
                               ("header_union_stacks", "union_type", "header_union_ids")):
            ids = {}
            for s, p in self.items(j, key, ()):
                self.named(s, p, ids)
                self.str(s.get(kind), p + (kind,))
                self.list(s.get(ref), p + (ref,))
                for x, xp in self.items(s, ref, p):
                    self.int(x, xp)
        ids = {}
        for u, p in self.items(j, "header_union_types", ()):
            self.named(u, p, ids)
            for m, mp in self.items(u, "headers", p):
                self.list(m, mp, 2)
                self.str(m[0], mp + (0,))
                self.str(m[1], mp + (1,))
        for a, p in self.items(j, "field_aliases", ()):
            self.list(a, p, 2)
            self.str(a[0], p + (0,))
            self.field_ref(a[1], p + (1,))

    def errors(self, j: dict) -> None:
        for e, p in self.items(j, "errors", ()):
            self.list(e, p, 2)
            self.str(e[0], p + (0,))
            self.int(e[1], p + (1,))

    def lists(self, j: dict) -> None:
        for key in ("field_lists", "learn_lists"):
            ids: dict = {}
            for fl, p in self.items(j, key, ()):
                self.named(fl, p, ids)
                for e, ep in self.items(fl, "elements", p):
                    self.operand(e, ep)

    def inputs(self, c: dict, p: Path) -> None:
        """A calculation's (or selector's) "input" operands."""
        for e, ep in self.items(c, "input", p):
            self.operand(e, ep)
            if e.get("type") in ("hexstr", "expression") and "bitwidth" not in e:
                raise _bad(ep, f"a {e['type']} input needs a 'bitwidth'")

    def calculations(self, j: dict) -> None:
        ids: dict = {}
        for c, p in self.items(j, "calculations", ()):
            self.named(c, p, ids)
            self.word(c.get("algo"), p + ("algo",), KNOWN_ALGORITHMS, "hash algorithm")
            self.inputs(c, p)

    def externs(self, j: dict) -> None:
        for key in ("register_arrays", "counter_arrays", "meter_arrays"):
            ids: dict = {}
            for r, p in self.items(j, key, ()):
                self.named(r, p, ids)
                self.int(r.get("size", 0), p + ("size",), 0, MAX_ARRAY_SIZE)
                if key == "register_arrays":
                    self.int(r.get("bitwidth"), p + ("bitwidth",), 0, MAX_WIDTH)
                if key == "meter_arrays":
                    self.word(r.get("type", "bytes"), p + ("type",), METER_TYPES, "meter type")
                    self.int(r.get("rate_count", 2), p + ("rate_count",), 0, MAX_RATE_COUNT)
                    self.opt(r, "result_target", p, self.field_ref)
                self.opt(r, "is_direct", p, self.bool)
                self.opt(r, "binding", p, self.str)
        ids = {}
        for v, p in self.items(j, "parse_vsets", ()):
            self.named(v, p, ids)
            self.int(v.get("compressed_bitwidth", 0), p + ("compressed_bitwidth",), 0, MAX_WIDTH)

    def primitive(self, prim, path: Path) -> None:
        self.obj(prim, path)
        op = self.word(prim.get("op"), path + ("op",), _PRIMITIVE_NAMES, "primitive")
        params = self.list(prim.get("parameters", []), path + ("parameters",))
        want = PRIMITIVE_PARAMS.get(op)
        if want is not None and len(params) != want:
            raise _bad(path + ("parameters",), f"Invalid number of parameters for primitive action "
                       f"{op}: expected {want} but got {len(params)}")
        for i, x in enumerate(params):
            self.operand(x, path + ("parameters", i))
        if op in ("_jump", "_jump_if_zero"):
            k = 0 if op == "_jump" else 1
            if len(params) != k + 1 or params[k].get("type") != "hexstr":
                raise _bad(path + ("parameters",), f"'{op}' needs {k + 1} parameters, the "
                           "last a constant offset (hexstr)")

    def actions(self, j: dict) -> None:
        ids: dict = {}
        for a, p in self.items(j, "actions", ()):
            self.named(a, p, ids)
            for r, rp in self.items(a, "runtime_data", p):
                self.obj(r, rp)
                self.str(r.get("name"), rp + ("name",))
                self.int(r.get("bitwidth"), rp + ("bitwidth",), 0, MAX_WIDTH)
            prims = self.items(a, "primitives", p)
            for x, xp in prims:
                self.primitive(x, xp)
                if x["op"] in ("_jump", "_jump_if_zero"):
                    # BMv2 runs the primitive at that offset next; past the end, none
                    tp = xp + ("parameters", len(x["parameters"]) - 1, "value")
                    target = int(x["parameters"][-1]["value"], 16)
                    if not 0 <= target <= len(prims):
                        raise _bad(tp, f"jump to primitive {target}, outside the action's "
                                   f"{len(prims)}")

    def parser_op(self, op, path: Path) -> None:
        self.obj(op, path)
        name = self.word(op.get("op"), path + ("op",), PARSER_OPS, "parser op")
        for i, x in enumerate(self.list(op.get("parameters", []), path + ("parameters",))):
            pp = path + ("parameters", i)
            if name == "primitive":
                self.primitive(x, pp)
            elif type(x) is int and (name == "shift" or (name == "verify" and i == 1)):
                self.int(x, pp)             # BMv2 also reads these two as plain integers
            else:
                self.operand(x, pp)

    def parsers(self, j: dict) -> None:
        ids: dict = {}
        for pr, p in self.items(j, "parsers", ()):
            self.named(pr, p, ids)
            self.opt(pr, "init_state", p, self.str)
            self.list(pr.get("parse_states"), p + ("parse_states",))
            sids: dict = {}
            for st, sp in self.items(pr, "parse_states", p):
                self.named(st, sp, sids)
                for op, opp in self.items(st, "parser_ops", sp):
                    self.parser_op(op, opp)
                for k, kp in self.items(st, "transition_key", sp):
                    self.operand(k, kp)
                for t, tp in self.items(st, "transitions", sp):
                    self.transition(t, tp)

    def transition(self, t, p: Path) -> None:
        self.obj(t, p)
        self.opt(t, "next_state", p, self.str)
        kind = t.get("type")
        if kind is None:        # JSON older than format 2.23: the value says "default"
            kind = "default" if t.get("value") == "default" else "hexstr"
        else:
            self.word(kind, p + ("type",), TRANSITION_TYPES, "parser transition type")
        if kind == "hexstr":
            self.hexstr(t.get("value"), p + ("value",), signed=False)
        elif kind == "parse_vset":
            self.str(t.get("value"), p + ("value",))
        self.opt(t, "mask", p, self.hexstr)

    def pipelines(self, j: dict) -> None:
        ids: dict = {}
        for pl, p in self.items(j, "pipelines", ()):
            self.named(pl, p, ids)
            self.opt(pl, "init_table", p, self.str)
            pids: dict = {}
            for ap, app in self.items(pl, "action_profiles", p):
                self.named(ap, app, pids)
                self.opt(ap, "max_size", app, self.int)
                self.opt(ap, "selector", app, self.selector)
            tids: dict = {}
            for t, tp in self.items(pl, "tables", p):
                self.table(t, tp, tids)
            cids: dict = {}
            for c, cp in self.items(pl, "conditionals", p):
                self.named(c, cp, cids)
                self.operand(c.get("expression"), cp + ("expression",))
                self.opt(c, "true_next", cp, self.str)
                self.opt(c, "false_next", cp, self.str)
            aids: dict = {}
            for a, ap in self.items(pl, "action_calls", p):
                self.named(a, ap, aids)
                self.int(a.get("action_id"), ap + ("action_id",))
                self.opt(a, "next_node", ap, self.str)

    def selector(self, sel, p: Path) -> None:
        self.obj(sel, p)
        self.word(sel.get("algo"), p + ("algo",), KNOWN_ALGORITHMS, "hash algorithm")
        self.inputs(sel, p)

    def table(self, t, p: Path, ids: dict) -> None:
        self.named(t, p, ids)
        self.opt(t, "type", p, self.word, TABLE_TYPES, "table type")
        self.opt(t, "match_type", p, self.word, TABLE_MATCH_TYPES, "table match type")
        for key in ("action_profile", "act_prof_name", "direct_meters", "base_default_next"):
            self.opt(t, key, p, self.str)
        for key in ("with_counters", "support_timeout"):
            self.opt(t, key, p, self.bool)
        self.opt(t, "max_size", p, self.int)
        for k, kp in self.items(t, "key", p):
            self.obj(k, kp)
            mt = self.word(k.get("match_type"), kp + ("match_type",), MATCH_TYPES, "match type")
            if mt == "valid" and type(k.get("target")) is str:
                pass                    # a header name (P4_14's valid match)
            else:
                self.field_ref(k.get("target"), kp + ("target",))
            self.opt(k, "mask", kp, self.hexstr)
            self.opt(k, "name", kp, self.str)
        for x, xp in self.items(t, "actions", p):
            self.str(x, xp)
        for x, xp in self.items(t, "action_ids", p):
            self.int(x, xp)
        nt = t.get("next_tables")
        if nt is not None:
            self.obj(nt, p + ("next_tables",))
            for name, nxt in nt.items():
                if nxt is not None:
                    self.str(nxt, p + ("next_tables", name))
        d = t.get("default_entry")
        if d is not None:
            dp = p + ("default_entry",)
            self.obj(d, dp)
            self.int(d.get("action_id"), dp + ("action_id",))
            for x, xp in self.items(d, "action_data", dp):
                self.hexstr(x, xp)
            self.opt(d, "action_const", dp, self.bool)
            self.opt(d, "action_entry_const", dp, self.bool)
        for e, ep in self.items(t, "entries", p):
            self.entry(e, ep, [k["match_type"] for k in t.get("key", [])])
        self.opt(t, "selector", p, self.selector)

    def entry(self, e, p: Path, key_types: list) -> None:
        """A const entry (JSON "entries", parse_match_key in P4Objects.cpp): one match field
        per key field, of the key field's match type."""
        self.obj(e, p)
        fields = self.list(e.get("match_key"), p + ("match_key",))
        if len(fields) != len(key_types):
            raise _bad(p + ("match_key",), f"Invalid number of fields in match key, expected "
                       f"{len(key_types)} but got {len(fields)}")
        for (m, mp), want in zip(self.items(e, "match_key", p), key_types):
            self.obj(m, mp)
            mt = self.word(m.get("match_type"), mp + ("match_type",), MATCH_TYPES, "match type")
            if mt != want:
                raise _bad(mp + ("match_type",), f"Invalid match type, expected {want} but got {mt}")
            if mt == "valid":
                self.bool(m.get("key"), mp + ("key",))
                continue
            for key in {"range": ("start", "end"), "lpm": ("key",),
                        "ternary": ("key", "mask"), "optional": ("key", "mask")}.get(mt, ("key",)):
                self.hexstr(m.get(key), mp + (key,), signed=False)
            if mt == "lpm":
                self.int(m.get("prefix_length"), mp + ("prefix_length",), 0, MAX_WIDTH)
        a = self.obj(e.get("action_entry"), p + ("action_entry",))
        self.int(a.get("action_id"), p + ("action_entry", "action_id"))
        for x, xp in self.items(a, "action_data", p + ("action_entry",)):
            self.hexstr(x, xp)
        self.opt(e, "priority", p, self.int, -MAX_ID - 1, MAX_ID)

    def checksums(self, j: dict) -> None:
        ids: dict = {}
        for c, p in self.items(j, "checksums", ()):
            self.named(c, p, ids)
            self.field_ref(c.get("target"), p + ("target",))
            self.opt(c, "type", p, self.word, CHECKSUM_TYPES, "checksum type")
            self.opt(c, "calculation", p, self.str)
            self.opt(c, "if_cond", p, self.operand)
            self.opt(c, "verify", p, self.bool)
            self.opt(c, "update", p, self.bool)

    def deparsers(self, j: dict) -> None:
        ids: dict = {}
        for d, p in self.items(j, "deparsers", ()):
            self.named(d, p, ids)
            for x, xp in self.items(d, "order", p):
                self.str(x, xp)
            for x, xp in self.items(d, "primitives", p):
                self.primitive(x, xp)


_C = _Checker


def _names(n: int):
    """The check of an operand value that is a list of ``n`` names."""
    def check(self: _Checker, v, path: Path, depth: int) -> None:
        self.list(v, path, n)
        for i, x in enumerate(v):
            self.str(x, path + (i,))
    return check


# operand type -> the check of its "value" (JSON_format.md: expressions, primitive
# parameters, parser op parameters, calculation inputs, list elements, extract targets)
_OPERANDS = {
    "field": _C._v_field, "hexstr": _C._v_hexstr, "bool": _C._v_bool,
    "runtime_data": _C._v_index, "local": _C._v_index, "expression": _C._v_expression,
    "stack_field": _names(2), "union_stack_field": _names(3), "union_stack": _names(2),
    "header": _C._v_name, "header_stack": _C._v_name, "header_union": _C._v_name,
    "header_union_stack": _C._v_name, "string": _C._v_name, "calculation": _C._v_name,
    "register_array": _C._v_name, "counter_array": _C._v_name, "meter_array": _C._v_name,
    "regular": _C._v_name, "stack": _C._v_name, "lookahead": _C._v_lookahead,
    "parameters_vector": _C._v_operands, "payload": _C._v_none,
}
# BMv2 also reads "register" (a register cell as an expression operand), "extern" (an extern
# instance as a primitive parameter) and "field_list" (a P4_14 field list parameter); p4c
# writes none of them for v1model, and this target refuses them (README.md)
_PRIMITIVE_NAMES = set(PRIMITIVES) | {"_jump", "_jump_if_zero"}


# -- nesting, counted as jsoncpp counts it, without recursion --------------------------------------
def _nesting(j) -> int:
    """The level of the deepest value of a parsed document (the document is level 1)."""
    if type(j) not in (dict, list):
        return 1
    deepest, stack = 1, [(j, 1)]
    push = stack.append
    while stack:
        x, level = stack.pop()
        if type(x) is dict:
            x = x.values()
        if not x:
            continue
        level += 1                          # the level of x's values
        if level > deepest:
            deepest = level
        for v in x:
            t = type(v)
            if t is dict or t is list:
                push((v, level))
    return deepest


def _first_deeper(j, limit: int) -> Path:
    """The path of the first value, in document order, deeper than ``limit`` levels (the
    document holds one). Each value keeps a link to its parent instead of its whole path,
    so a chain thousands of levels deep costs no more than its length."""
    work = [(j, 1, None)]                  # (value, level, (key, parent link) or None)
    while work:
        x, level, link = work.pop()
        if level > limit:
            path = []
            while link is not None:
                key, link = link
                path.append(key)
            return tuple(reversed(path))
        if type(x) is dict:
            items = list(x.items())
        elif type(x) is list:
            items = list(enumerate(x))
        else:
            continue
        work.extend((v, level + 1, (k, link)) for k, v in reversed(items))
    return ()


def _too_deep_message(where: Path, depth: int, limit: int) -> str:
    return (f"{shown_path(where)}: nested deeper than the {limit} levels BMv2's JSON "
            f"reader takes (jsoncpp's stackLimit); the document nests {depth} levels")


def too_deep(j, limit: int = MAX_NESTING) -> str | None:
    """Why a parsed document is nested too deeply for BMv2 (its path and depth), or None."""
    depth = _nesting(j)
    if depth <= limit:
        return None
    return _too_deep_message(_first_deeper(j, limit), depth, limit)


# the tokens of JSON text: strings, punctuation, and anything else up to the next of those
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[][{}:,]|[^][{}:,"\s]+')


def too_deep_text(text: str, limit: int = MAX_NESTING) -> str | None:
    """``too_deep`` for JSON text that is too deep to parse with a recursive reader: the path of
    the first value past ``limit`` and the text's depth, found by one pass over its tokens;
    None when the text is not nested that deep (or not JSON enough to tell)."""
    frames: list[list] = []                 # per open container: [key or index, wants a key]
    depth, where = 0, None
    for m in _JSON_TOKEN.finditer(text):
        tok = m.group()
        if tok in "]}":
            if not frames:
                return None
            frames.pop()
        elif tok == ",":
            if frames:
                top = frames[-1]
                if top[1] is None:          # an array: the next element
                    top[0] += 1
                else:
                    top[1] = True
        elif tok == ":":
            if frames and frames[-1][1]:
                frames[-1][1] = False
        elif frames and frames[-1][1]:      # an object's key
            frames[-1][0] = _key(tok)
        else:                               # a value starts here
            level = len(frames) + 1
            depth = max(depth, level)
            if where is None and level > limit:
                where = tuple(f[0] for f in frames)
            if tok == "{":
                frames.append([None, True])
            elif tok == "[":
                frames.append([0, None])
    return None if where is None else _too_deep_message(where, depth, limit)


def _key(token: str) -> str:
    try:
        return json.loads(token)
    except ValueError:
        return token


def check_program(j, source: str | None = None) -> None:
    """Raise ``LoadError`` ("<JSON path>: <problem>") for the first value of the wrong type,
    out of range or naming an unknown behaviour; return when every value the compiler
    reads has the shape it reads it with. A document nested deeper than BMv2 reads is
    refused first, as BMv2's reader refuses it: prefixed with ``source`` (the file it was
    read from), as the reader's other errors are."""
    why = too_deep(j)
    if why is not None:
        raise LoadError(f"{source}: {why}" if source else why)
    _Checker().document(j)
