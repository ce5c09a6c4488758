"""Load a BMv2 JSON program (format version 2.x, as p4c-bm2-ss writes it) and compile it.

``load_program`` validates the JSON, lays out the PHV and generates one Python module for
the whole program (parser, checksums, actions, pipelines, deparser). Anything this target
does not implement is refused here with a ``LoadError`` naming it, never at packet time.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import LoadError
from .actions import ActionCompiler
from .checksums import compile_calculation, compile_checksums
from .codegen import CodeGen
from .deparser import compile_deparser
from .expressions import ExprCompiler
from .externs import COUNTER_CELL_BYTES, meter_cell_bytes, register_cell_bytes
from .json_checks import MAX_NESTING, check_program, too_deep, too_deep_text
from .parser import DEFAULT_ERRORS, ParserCompiler
from .phv import Layout
from .pipeline import PipelineCompiler, TableSpec

__all__ = ["Program", "ActionSpec", "load_program", "load_program_text", "parse_json_text",
           "DEFAULT_MAX_STATE", "state_arrays", "parse_state_size"]

# The memory a program's register, counter and meter arrays may take in one switch, unless
# told otherwise (``max_state``; rdtcp-switch --max-state). Each array is limited by
# json_checks.MAX_ARRAY_SIZE, but a few kilobytes of JSON can declare many: twenty 4M-cell
# registers are 640 MiB. The gateway's arrays take 1.6 MiB, the kit's programs a few KiB;
# 64 MiB holds a 2^23-cell 64-bit register array.
DEFAULT_MAX_STATE = 64 << 20

SUPPORTED_MAJOR = 2
# JSON sections that must be empty for this target (name -> what it is)
REFUSED_SECTIONS = {
    "extern_instances": "extern instances",
}


@dataclass
class ActionSpec:
    name: str
    id: int
    params: list[tuple[str, int]]   # (name, bitwidth)
    func: str                        # generated function name


@dataclass
class Program:
    """A compiled program; immutable once loaded and shared by any number of switches."""

    json: dict
    name: str
    layout: Layout
    errors: dict[str, int]
    drop_port: int = 511
    uses_exit: bool = False
    actions: dict[str, ActionSpec] = field(default_factory=dict)
    actions_by_id: dict[int, ActionSpec] = field(default_factory=dict)
    tables: dict[str, TableSpec] = field(default_factory=dict)
    register_ids: dict[str, int] = field(default_factory=dict)
    register_widths: dict[int, int] = field(default_factory=dict)
    register_sizes: dict[int, int] = field(default_factory=dict)
    counter_ids: dict[str, int] = field(default_factory=dict)
    counters: dict[int, dict] = field(default_factory=dict)
    meter_ids: dict[str, int] = field(default_factory=dict)
    meters: dict[int, dict] = field(default_factory=dict)
    calc_funcs: dict[str, str] = field(default_factory=dict)
    calc_inline: dict = field(default_factory=dict)   # see checksums.compile_calculation
    calc_algos: dict[int, str] = field(default_factory=dict)
    field_lists: dict[int, list[int]] = field(default_factory=dict)
    learn_lists: dict[int, tuple[str, list[int]]] = field(default_factory=dict)
    vsets: dict[str, int] = field(default_factory=dict)
    node_names: dict[str, str] = field(default_factory=dict)   # table/conditional -> function
    action_bodies: dict[str, list[str]] = field(default_factory=dict)   # action function -> lines
    exiting_actions: set[str] = field(default_factory=set)     # action functions that may exit
    action_profiles: dict[str, object] = field(default_factory=dict)   # name -> ActionProfileSpec
    inlined_defaults: dict[int, str] = field(default_factory=dict)  # table seq -> name, default inlined
    has_verify_checksums: bool = False
    has_update_checksums: bool = False
    source: str = ""
    constants: dict = field(default_factory=dict)
    code: object = None

    # -- helpers for the switch -----------------------------------------------------------------
    def slot(self, hname: str, fname: str) -> int:
        return self.layout.slot(hname, fname)


def _read_json(src) -> tuple[dict, str | None]:
    """The document, and the file it was read from (None for a dict)."""
    if isinstance(src, dict):
        return src, None
    path = Path(os.fspath(src))
    try:
        data = path.read_bytes()
    except OSError as e:
        raise LoadError(f"cannot read {path}: {e.strerror}") from None
    try:
        text = data.decode("utf-8")           # JSON text is UTF-8 (RFC 8259 §8.1)
    except UnicodeDecodeError as e:
        raise LoadError(f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset "
                        f"{e.start})") from None
    return parse_json_text(text, str(path)), str(path)


def parse_json_text(text: str, name: str):
    """The value of JSON ``text`` (named ``name`` in messages); LoadError, one line, for text
    that is not JSON or that nests deeper than BMv2 reads. Python's JSON reader recurses once
    per level: it runs with room for MAX_NESTING levels and more, and a document too deep even
    for that is measured without recursion to say where it goes past the limit."""
    with _recursion_room():
        try:
            doc = json.loads(text)
            # a recursion limit raised elsewhere in the process (a deep compilation's) let the
            # reader go past the room it is given: the depth is then checked on the document
            if sys.getrecursionlimit() > RECURSION_ROOM:
                why = too_deep(doc)
                if why:
                    raise LoadError(f"{name}: {why}")
            return doc
        except json.JSONDecodeError as e:
            raise LoadError(f"{name}: not valid JSON: {e}") from None
        except RecursionError:
            why = too_deep_text(text) or "the JSON is nested too deeply to read"
            raise LoadError(f"{name}: {why}") from None
        except ValueError:          # an integer of thousands of digits (int_max_str_digits)
            raise LoadError(f"{name}: not valid JSON: a number too long to read") from None


def _check_version(j: dict) -> None:
    meta = j.get("__meta__", {})
    version = meta.get("version") if isinstance(meta, dict) else None
    if version and version[0] != SUPPORTED_MAJOR:
        raise LoadError(f"unsupported BMv2 JSON format version {version[0]}.{version[1] if len(version) > 1 else 0}"
                        f" (this target reads {SUPPORTED_MAJOR}.x)")


def _check_sections(j: dict) -> None:
    for key, what in REFUSED_SECTIONS.items():
        if j.get(key):
            raise LoadError(f"{what} ({key!r}) are not supported")


def _one_named(items: list, name: str, what: str) -> dict:
    for it in items:
        if it.get("name") == name:
            return it
    if len(items) == 1:
        return items[0]
    raise LoadError(f"no {what} named {name!r} in the JSON")


def load_program(src, *, max_state: int | None = DEFAULT_MAX_STATE) -> Program:
    """Load and compile BMv2 JSON from a path or an already-parsed dict.

    Any problem is a ``LoadError`` with a one-line message: the values are checked first
    (json_checks: the message starts with the JSON path of a value of the wrong type or out
    of range), then the memory its register, counter and meter arrays take against
    ``max_state`` bytes (None: no limit; the message names the largest arrays), then every
    feature the program uses is resolved and compiled (the message names the feature this
    target refuses, or the reference it cannot resolve)."""
    with _recursion_room():
        j, source = _read_json(src)
        return _checked_compile(j, source, Path(source).name if source else None, max_state)


def load_program_text(text: str, source: str, *,
                      max_state: int | None = DEFAULT_MAX_STATE) -> Program:
    """``load_program`` for JSON text (a configuration sent over the runtime API), named
    ``source`` where the file's path would be named."""
    with _recursion_room():
        return _checked_compile(parse_json_text(text, source), source, None, max_state)


def state_arrays(j: dict) -> list[tuple[str, int]]:
    """(name, bytes) of every register, counter and meter array of a checked JSON, as this
    target stores them (bm_sim/externs.py), largest first."""
    out = [(r["name"], int(r["size"]) * register_cell_bytes(int(r["bitwidth"])))
           for r in j.get("register_arrays", [])]
    out += [(c["name"], int(c.get("size", 0)) * COUNTER_CELL_BYTES)
            for c in j.get("counter_arrays", [])]
    out += [(m["name"], int(m.get("size", 0)) * meter_cell_bytes(int(m.get("rate_count", 2))))
            for m in j.get("meter_arrays", [])]
    return sorted(out, key=lambda a: -a[1])


def _check_state(j: dict, max_state: int | None) -> None:
    if max_state is None:
        return
    arrays = state_arrays(j)
    total = sum(b for _, b in arrays)
    if total <= max_state:
        return
    shown = ", ".join(f"{name} ({_size_text(b)})" for name, b in arrays[:4])
    more = f" and {len(arrays) - 4} more" if len(arrays) > 4 else ""
    raise LoadError(f"the program's register, counter and meter arrays take "
                    f"{_size_text(total)}, over the limit of {_size_text(max_state)} "
                    f"(rdtcp-switch --max-state): {shown}{more}")


def _size_text(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}"
    return f"{n} bytes"


_SUFFIX = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_state_size(text: str) -> int | None:
    """``--max-state`` (bytes, with an optional K, M or G suffix: 256M, 1G; ``none``: no
    limit) -> bytes or None; ValueError naming the problem."""
    t = text.strip().lower()
    if t == "none":
        return None
    t = t.removesuffix("ib").removesuffix("b")
    unit = t[-1:] if t[-1:] in ("k", "m", "g") else ""
    digits = t[:len(t) - len(unit)]
    if not (digits.isdigit() and digits.isascii() and len(digits) <= 15) or int(digits) == 0:
        raise ValueError(f"{text!r} is not a size: a positive number of bytes, with K, M or G "
                         "(e.g. 256M), or none")
    return int(digits) * _SUFFIX[unit]


def _checked_compile(j, source: str | None, name: str | None,
                     max_state: int | None = DEFAULT_MAX_STATE) -> Program:
    """Check, then compile; ``name`` names the program (else the JSON's ``program``)."""
    check_program(j, source)
    if name is None:
        name = j.get("program")
    try:
        _check_state(j, max_state)
        return _compile(j, name if isinstance(name, str) else "<dict>")
    except LoadError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise LoadError(f"malformed BMv2 JSON: {type(e).__name__}: {e}") from None
    except (RecursionError, MemoryError):
        raise LoadError("the program is too large or nested too deeply to compile") from None


# Python frames the loader may need: json_checks and the expression compiler recurse once per
# level of an expression (MAX_EXPRESSION_DEPTH levels, a few frames each), and CPython's JSON
# reader once per level of nesting.
RECURSION_ROOM = 8 * MAX_NESTING


@contextmanager
def _recursion_room():
    old = sys.getrecursionlimit()
    if old < RECURSION_ROOM:
        sys.setrecursionlimit(RECURSION_ROOM)
    try:
        yield
    finally:
        if old < RECURSION_ROOM:
            sys.setrecursionlimit(old)


def _compile(j: dict, name: str) -> Program:
    """The compilation phases, in BMv2's order of the program: layout, lists, calculations,
    actions, parser, pipelines, checksums, deparser; then one Python module for all."""
    _check_version(j)
    _check_sections(j)
    layout = Layout.from_json(j)
    _check_standard_metadata(layout)
    errors = {e[0]: e[1] for e in j.get("errors", [])} or dict(DEFAULT_ERRORS)
    prog = Program(j, name, layout, errors)
    gen = CodeGen()
    expr = ExprCompiler(layout, gen)
    _externs(j, prog)
    # register reads need no mask when the destination is as wide (every write is masked)
    expr.array_widths.update({f"_R{rid}": w for rid, w in prog.register_widths.items()})
    _lists(j, prog)
    _calculations(j, prog, gen, expr)
    _actions(j, prog, gen, expr)
    _parser(j, prog, gen, expr)
    pipes = j.get("pipelines", [])
    PipelineCompiler(layout, gen, expr, prog).compile(_one_named(pipes, "ingress", "pipeline"), "ingress")
    PipelineCompiler(layout, gen, expr, prog).compile(_one_named(pipes, "egress", "pipeline"), "egress")
    cks = j.get("checksums", [])
    prog.has_verify_checksums = any(c.get("verify", True) for c in cks)
    prog.has_update_checksums = any(c.get("update", True) for c in cks)
    compile_checksums(cks, prog.calc_funcs, layout, gen, expr, "verify_checksums", "update_checksums",
                      prog.calc_inline)
    compile_deparser(_one_named(j.get("deparsers", []), "deparser", "deparser"), layout, gen, "deparse")
    prog.source = gen.module_source()
    prog.constants = dict(gen.constants)
    prog.code = compile(prog.source, f"<bmv2:{name}>", "exec")
    _check_tables(prog)
    return prog


def _check_standard_metadata(layout: Layout) -> None:
    # the fields simple_switch itself requires (add_required_field in simple_switch.cpp)
    for req in ("ingress_port", "egress_spec", "egress_port", "instance_type", "packet_length"):
        if not layout.has_field("standard_metadata", req):
            raise LoadError(f"missing required field standard_metadata.{req}")


def _field_slots(layout: Layout, elements: list) -> list[int]:
    return [layout.slot(*e["value"]) for e in elements if e.get("type") == "field"]


def _lists(j: dict, prog: Program) -> None:
    for fl in j.get("field_lists", []):
        prog.field_lists[fl["id"]] = _field_slots(prog.layout, fl.get("elements", []))
    for ll in j.get("learn_lists", []):
        for e in ll.get("elements", []):
            if e.get("type") != "field":        # P4Objects::init_learn_lists asserts it
                raise LoadError(f"learn list {ll['name']!r}: element of type {e.get('type')!r} "
                                "(a learn list holds fields)")
        prog.learn_lists[ll["id"]] = (ll["name"], _field_slots(prog.layout, ll.get("elements", [])))


def _calculations(j: dict, prog: Program, gen: CodeGen, expr: ExprCompiler) -> None:
    for c in j.get("calculations", []):
        fname = f"_calc{c['id']}"
        prog.calc_funcs[c["name"]] = fname
        prog.calc_algos[c["id"]] = c.get("algo")
        compile_calculation(c, prog.layout, gen, expr, fname, prog.calc_inline)


def _actions(j: dict, prog: Program, gen: CodeGen, expr: ExprCompiler) -> None:
    acomp = ActionCompiler(prog.layout, gen, expr, prog)
    for a in j.get("actions", []):
        spec = ActionSpec(a["name"], a["id"], [(r["name"], r["bitwidth"]) for r in a.get("runtime_data", [])],
                          f"_A{a['id']}")
        prog.actions.setdefault(spec.name, spec)
        prog.actions_by_id[spec.id] = spec
        acomp.compile(a, spec.func)


def _parser(j: dict, prog: Program, gen: CodeGen, expr: ExprCompiler) -> None:
    pcomp = ActionCompiler(prog.layout, gen, expr, prog)
    pcomp.params = False       # primitives inside parser states have no action data
    parser = ParserCompiler(prog.layout, gen, expr, prog.errors, pcomp.primitive_lines)
    parser.compile(_one_named(j.get("parsers", []), "parser", "parser"), "parse")
    for vs in j.get("parse_vsets", []):
        prog.vsets[vs["name"]] = int(vs.get("compressed_bitwidth", 0))


def _externs(j: dict, prog: Program) -> None:
    for r in j.get("register_arrays", []):
        prog.register_ids[r["name"]] = r["id"]
        prog.register_widths[r["id"]] = int(r["bitwidth"])
        prog.register_sizes[r["id"]] = int(r["size"])
    for c in j.get("counter_arrays", []):
        prog.counter_ids[c["name"]] = c["id"]
        prog.counters[c["id"]] = c
    for m in j.get("meter_arrays", []):
        if m.get("type", "bytes") not in ("bytes", "packets"):
            raise LoadError(f"meter {m['name']!r}: unsupported meter type {m.get('type')!r}")
        prog.meter_ids[m["name"]] = m["id"]
        prog.meters[m["id"]] = m


def _check_tables(prog: Program) -> None:
    for t in prog.tables.values():
        for a in t.actions:
            if a not in prog.actions:
                raise LoadError(f"table {t.name!r} refers to unknown action {a!r}")
        if t.direct_meters and t.direct_meters not in prog.meter_ids:
            raise LoadError(f"table {t.name!r}: unknown direct meter {t.direct_meters!r}")
        if t.default_entry is not None:
            _check_action_entry(prog, t, t.default_entry, "default entry")
        for i, e in enumerate(t.entries):
            _check_action_entry(prog, t, e.get("action_entry") or {}, f"const entry {i}")


def _check_action_entry(prog: Program, t: TableSpec, entry: dict, what: str) -> None:
    """An action (with its data) set by the JSON itself is one of the table's actions, with
    one value per parameter (P4Objects.cpp parse_action_data)."""
    action = prog.actions_by_id.get(entry.get("action_id"))
    if action is None or t.action_specs.get(action.name) is not action:
        raise LoadError(f"table {t.name!r}: {what}: action id {entry.get('action_id')} is not "
                        "one of the table's actions")
    data = entry.get("action_data", [])
    if len(data) != len(action.params):
        raise LoadError(f"table {t.name!r}: {what}: Invalid number of arguments for action "
                        f"'{action.name}': expected {len(action.params)} but got {len(data)}")
