"""Control-flow compilation (JSON "pipelines"): tables and conditionals become node functions.

Every node is ``_N<k>(F, P) -> next node | None``; a pipeline is a loop over nodes, which
costs one Python call per node and no tree walking. A table node computes its key from
constant PHV slots, asks the per-switch table object ``_T<id>`` for an entry
``(action function, action data, next node)`` and runs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import LoadError
from .codegen import CodeGen, FunctionBuilder
from .expressions import ExprCompiler
from .phv import Layout

__all__ = ["KeySpec", "TableSpec", "PipelineCompiler", "MATCH_TYPES"]

MATCH_TYPES = {"exact", "lpm", "ternary", "range", "valid", "optional"}
TABLE_TYPES = {"simple"}


@dataclass
class KeySpec:
    name: str            # the P4 expression, as p4c writes it ("hdr.ipv4.dst")
    match_type: str
    width: int
    mask: int | None     # p4c's key mask (slices), applied before matching
    source: str          # Python source of the key value
    cli_name: str        # runtime_CLI's name for it ("ipv4.dst", "ipv4_valid")


@dataclass
class TableSpec:
    name: str
    id: int
    match_type: str
    keys: list[KeySpec]
    actions: list[str]                   # action names, in JSON order
    next_tables: dict[str, str | None]
    default_entry: dict | None
    max_size: int
    with_counters: bool
    direct_meters: str | None
    entries: list = field(default_factory=list)
    support_timeout: bool = False
    node: str = ""                        # generated node function name
    base_default_next: str | None = None


class PipelineCompiler:
    def __init__(self, layout: Layout, gen: CodeGen, expr: ExprCompiler, program):
        self.layout, self.gen, self.expr, self.program = layout, gen, expr, program
        self.node_names: dict[str, str] = program.node_names

    def compile(self, pipe: dict, fname: str) -> None:
        if pipe.get("action_profiles"):
            raise LoadError(f"action profiles / selectors are not supported (pipeline {pipe['name']!r})")
        for t in pipe.get("tables", []):
            self.node_names[t["name"]] = self.gen.name("_N")
        for cnd in pipe.get("conditionals", []):
            self.node_names[cnd["name"]] = self.gen.name("_N")
        for t in pipe.get("tables", []):
            self._table(t)
        for cnd in pipe.get("conditionals", []):
            self._conditional(cnd)
        fb = FunctionBuilder(f"{fname}(F, P)")
        init = pipe.get("init_table")
        fb.emit(f"n = {self.node(init)}")
        if self.program.uses_exit:
            fb.emit("while n is not None and not P.exit:")
        else:
            fb.emit("while n is not None:")
        fb.emit("    n = n(F, P)")
        self.gen.add(fb)

    def node(self, name: str | None) -> str:
        if name is None:
            return "None"
        if name not in self.node_names:
            raise LoadError(f"pipeline refers to unknown table or conditional {name!r}")
        return self.node_names[name]

    def _conditional(self, cnd: dict) -> None:
        fb = FunctionBuilder(f"{self.node_names[cnd['name']]}(F, P)")
        cond = self.expr.value(cnd["expression"])
        fb.emit(f"return {self.node(cnd.get('true_next'))} if {cond} else {self.node(cnd.get('false_next'))}")
        self.gen.add(fb)

    def _key(self, k: dict) -> KeySpec:
        mt = k.get("match_type")
        if mt not in MATCH_TYPES:
            raise LoadError(f"unsupported match type {mt!r}")
        target = k.get("target")
        if mt == "valid":
            h = self.layout.header(target)
            slot, width, cli = h.valid_slot, 1, f"{target}_valid"
        else:
            slot = self.layout.slot(target[0], target[1])
            width = self.layout.widths[slot]
            cli = f"{target[0]}_valid" if target[1] == "$valid$" else ".".join(target)
        mask = int(k["mask"], 16) if k.get("mask") else None
        src = f"(F[{slot}] & {mask})" if mask is not None else f"F[{slot}]"
        return KeySpec(k.get("name") or ".".join(target), mt, width, mask, src, cli)

    def _table(self, t: dict) -> None:
        if t.get("type", "simple") not in TABLE_TYPES:
            raise LoadError(f"unsupported table type {t.get('type')!r} (table {t['name']!r}); "
                            "action profiles / selectors are not supported")
        keys = [self._key(k) for k in t.get("key", [])]
        dm = t.get("direct_meters")
        spec = TableSpec(t["name"], t["id"], t.get("match_type", "exact"), keys, list(t.get("actions", [])),
                         dict(t.get("next_tables", {})), t.get("default_entry"), int(t.get("max_size", 1024)),
                         bool(t.get("with_counters")), dm, list(t.get("entries", []) or []),
                         bool(t.get("support_timeout")), self.node_names[t["name"]])
        spec.base_default_next = t.get("base_default_next")
        self.node(spec.base_default_next)
        for nxt in spec.next_tables.values():
            self.node(nxt)
        self.program.tables[spec.name] = spec
        fb = FunctionBuilder(f"{spec.node}(F, P)")
        obj = f"_T{spec.id}"
        if not keys:
            fb.emit(f"e = {obj}.keyless")
        else:
            key = keys[0].source if len(keys) == 1 else "(" + ", ".join(k.source for k in keys) + ",)"
            if spec.with_counters or dm:
                fb.emit(f"e = {obj}.lookup_stateful({key}, F, P)")
            else:
                fb.emit(f"e = {obj}.lookup({key})")
        fb.emit("e[0](F, e[1], P)")
        fb.emit("return e[2]")
        self.gen.add(fb)
