"""Control-flow compilation (JSON "pipelines"): tables and conditionals become Python code.

The pipeline graph is cut into *regions*. A region starts at a node that control can reach in
more than one way: the pipeline's first node, a node with several predecessors (the join after
an ``if``), or a node a table chooses at run time (different next nodes per action, or
``__HIT__``/``__MISS__``). Every other node has exactly one predecessor and is inlined into its
predecessor's region, so a chain of tables and nested conditionals runs as straight-line code
with ``if``/``else``. Each region is ``_N<k>(F, P) -> next region | None`` and a pipeline is a
loop over regions (a trampoline: no recursion, however long the pipeline).

A table computes its key from constant PHV slots and asks the per-switch table object
``_T<id>`` for an entry ``(action function, action data, next node)``. A table without key
fields whose default action and data are both ``const`` (p4c's ``tbl_*`` wrappers of plain
statements) has its action body inlined, guarded by a per-switch flag ``_I<id>`` that the table
clears when an entry is added at run time (simple_switch allows one in a keyless table), so
that such an entry still takes the table's own path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import LoadError
from .checksums import compile_calculation
from .codegen import CodeGen, FunctionBuilder
from .expressions import ExprCompiler
from .hash_algos import KNOWN_ALGORITHMS
from .phv import Layout

__all__ = ["KeySpec", "TableSpec", "ActionProfileSpec", "PipelineCompiler", "MATCH_TYPES"]

MATCH_TYPES = {"exact", "lpm", "ternary", "range", "valid", "optional"}
TABLE_TYPES = {"simple", "indirect", "indirect_ws"}


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
    type: str = "simple"                  # "simple", or "indirect"/"indirect_ws" (action profile)
    action_profile: str | None = None
    action_specs: dict = field(default_factory=dict)   # name -> this table's ActionSpec
    # the table's number in the program, which names its objects in the generated code
    # (``_T<seq>``, ``_I<seq>``): JSON ids are only unique within a pipeline
    seq: int = 0
    has_entries: bool = False             # const entries: the control plane cannot change them


@dataclass
class ActionProfileSpec:
    name: str
    id: int
    max_size: int
    selector: dict | None           # {"algo": ..., "input": [...]} or None
    select_func: str | None = None  # generated hash function of the selector's input fields


# nested ``if`` levels inlined into one region before a node becomes a region of its own (the
# Python parser refuses code nested about 100 levels deep)
MAX_INLINE_DEPTH = 40


class PipelineCompiler:
    def __init__(self, layout: Layout, gen: CodeGen, expr: ExprCompiler, program):
        self.layout, self.gen, self.expr, self.program = layout, gen, expr, program
        self.node_names: dict[str, str] = program.node_names

    def compile(self, pipe: dict, fname: str) -> None:
        for ap in pipe.get("action_profiles", []) or []:
            self._action_profile(ap)
        tables, conds = pipe.get("tables", []), pipe.get("conditionals", [])
        # direct action calls (JSON_format.md: p4c never emits them, BMv2 runs them)
        calls = pipe.get("action_calls", []) or []
        order = [t["name"] for t in tables] + [c["name"] for c in conds] + [a["name"] for a in calls]
        for name in order:
            if name in self.node_names:      # tables, conditionals, calls: one name space
                raise LoadError(f"Duplicate objects of type 'control node' with name {name!r}")
            self.node_names[name] = self.gen.name("_N")
        self.specs = {t["name"]: self._table_spec(t) for t in tables}
        self.conds = {c["name"]: c for c in conds}
        self.calls = {a["name"]: self._action_call(a) for a in calls}
        for c in conds:
            self.node(c.get("true_next"))
            self.node(c.get("false_next"))
        init = pipe.get("init_table")
        self.node(init)
        self.starts = self._region_starts(order, init)
        self.joins = self._absorb_joins(order)
        self.pending = [n for n in order if n in self.starts]
        done: set[str] = set()
        while self.pending:
            name = self.pending.pop(0)
            if name in done:
                continue
            done.add(name)
            fb = FunctionBuilder(f"{self.node_names[name]}(F, P)")
            self._emit_inline(fb, name, 0)
            self.gen.add(fb)
        if init is not None and done == {init}:
            # one region: it can only hand back None (the control graph has no cycles and
            # there is no other region), so the pipeline is that function, without a loop
            # calling it (a Python call less per packet and pipeline)
            self.gen.add_source(f"{fname} = {self.node(init)}\n")
            return
        fb = FunctionBuilder(f"{fname}(F, P)")
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

    # -- the graph ----------------------------------------------------------------------------------
    @staticmethod
    def possible_nexts(spec: "TableSpec") -> set[str | None]:
        """Every node the table can continue with, whatever its entries and default (tables.py)."""
        nt = spec.next_tables
        if "__HIT__" in nt or "__MISS__" in nt:
            out = {nt.get("__HIT__"), nt.get("__MISS__")}
        else:
            out = {nt.get(a, spec.base_default_next) for a in spec.actions}
        if spec.default_entry is None:
            out.add(spec.base_default_next)
        return out

    def _successors(self, name: str) -> list[str | None] | None:
        """Static successors of a node, or None when a table picks its next node at run time."""
        if name in self.conds:
            c = self.conds[name]
            return [c.get("true_next"), c.get("false_next")]
        if name in self.calls:
            return [self.calls[name][1]]
        nexts = self.possible_nexts(self.specs[name])
        return list(nexts) if len(nexts) == 1 else None

    def _region_starts(self, order: list[str], init: str | None) -> set[str]:
        indegree: dict[str, int] = dict.fromkeys(order, 0)
        runtime_targets: set[str] = set()
        for name in order:
            succ = self._successors(name)
            if succ is None:
                runtime_targets |= {n for n in self.possible_nexts(self.specs[name]) if n is not None}
                continue
            for n in succ:
                if n is not None:
                    indegree[n] += 1
        starts = {n for n in order if indegree[n] != 1} | runtime_targets
        if init is not None:
            starts.add(init)
        return starts

    def _absorb_joins(self, order: list[str]) -> dict[str, str]:
        """``{conditional: join}`` for every ``if`` that is a single-entry, single-exit region:
        its branches reach nothing but each other before its join (the nearest node every path
        from it passes), and contain no region start and no run-time table dispatch. Such a
        join is not a region: the generated code runs the ``if``/``else`` and falls through
        to it, as the P4 source read. Inner ``if``s are looked at first, so that an outer one
        can absorb code whose inner joins are already absorbed."""
        succ = {n: self._successors(n) for n in order}
        every = {n: succ[n] if succ[n] is not None else sorted(self.possible_nexts(self.specs[n]), key=str)
                 for n in order}
        preds: dict[str, set] = {n: set() for n in order}
        for n in order:
            for m in every[n]:
                if m is not None:
                    preds[m].add(n)
        topo = _topological(order, every)
        end = frozenset([None])
        pdom: dict[str, frozenset] = {}
        for n in reversed(topo):
            sets = [pdom[m] if m is not None else end for m in every[n]]
            pdom[n] = (frozenset.intersection(*sets) if sets else end) | {n}
        joins: dict[str, str] = {}
        for c in reversed(topo):
            if c not in self.conds:
                continue
            # the nearest strict post-dominator is post-dominated by all the others
            j = max(pdom[c] - {c}, key=lambda d: 0 if d is None else len(pdom[d]))
            if j is None:
                continue
            interior: set[str] = set()
            stack = [m for m in every[c] if m != j]
            while stack:
                x = stack.pop()
                if x not in interior:
                    interior.add(x)
                    stack.extend(m for m in every[x] if m != j)
            inside = interior | {c}
            if (all(preds[x] <= inside for x in interior) and preds[j] <= inside
                    and not interior & self.starts and all(succ[x] is not None for x in interior)):
                joins[c] = j
                self.starts.discard(j)
        return joins

    # -- code ---------------------------------------------------------------------------------------
    def _goto(self, fb: FunctionBuilder, name: str | None, depth: int, stop: str | None = None) -> None:
        if name is not None and name == stop:
            fb.emit("pass")                     # falls through to the join after the ``if``
        elif name is None:
            fb.emit("return None")
        elif name in self.starts:
            fb.emit(f"return {self.node_names[name]}")
        elif depth >= MAX_INLINE_DEPTH and stop is not None:
            self._emit_segment_call(fb, name, stop)
        elif depth >= MAX_INLINE_DEPTH:
            self.starts.add(name)
            self.pending.append(name)
            fb.emit(f"return {self.node_names[name]}")
        else:
            self._emit_inline(fb, name, depth, stop)

    def _emit_segment_call(self, fb: FunctionBuilder, name: str, stop: str) -> None:
        """Too deep to nest further inside an ``if`` whose join is absorbed: the code from
        ``name`` up to the join becomes a function of its own (it can only fall through or
        exit, see _absorb_joins), called in place."""
        seg = FunctionBuilder(f"{self.gen.name('_G')}(F, P)")
        self._emit_inline(seg, name, 0, stop)
        self.gen.add(seg)
        fb.emit(f"{seg.signature.split('(')[0]}(F, P)")
        if self.program.uses_exit:
            fb.emit("if P.exit:")
            fb.emit("    return None")

    def _emit_inline(self, fb: FunctionBuilder, name: str, depth: int, stop: str | None = None) -> None:
        """Code for ``name`` and the chain of single-predecessor nodes after it, up to
        ``stop`` (the join of an enclosing ``if``, where the code falls through)."""
        while True:
            if name in self.conds:
                c = self.conds[name]
                join = self.joins.get(name)
                fb.emit(f"if {self.expr.condition(c['expression'])}:")
                fb.indent()
                self._goto(fb, c.get("true_next"), depth + 1, join or stop)
                fb.dedent()
                fb.emit("else:")
                fb.indent()
                self._goto(fb, c.get("false_next"), depth + 1, join or stop)
                fb.dedent()
                if join is None or join == stop:
                    return
                name = join
                continue
            if name in self.calls:
                func = self.calls[name][0]
                fb.emit_all(self.program.action_bodies[func] or ["pass"])
                if func in self.program.exiting_actions:
                    fb.emit("if P.exit:")
                    fb.emit("    return None")
            else:
                self._emit_table(fb, self.specs[name])
            succ = self._successors(name)
            if succ is None:
                fb.emit("return e[2]")
                return
            nxt = succ[0]
            if nxt is None or nxt in self.starts or nxt == stop:
                self._goto(fb, nxt, depth, stop)
                return
            name = nxt

    def _emit_table(self, fb: FunctionBuilder, spec: "TableSpec") -> None:
        obj = f"_T{spec.seq}"
        inlined = self._const_default(spec)
        if inlined is not None:
            func, data = inlined
            fb.emit(f"if _I{spec.seq}:")
            fb.indent()
            body = self.program.action_bodies[func]
            if any(_uses_action_data(line) for line in body):
                fb.emit(f"A = {self.gen.const(data, 'AD')}")
            fb.emit_all(body or ["pass"])
            fb.dedent()
            fb.emit("else:")
            fb.indent()
            fb.emit(f"e = {obj}.keyless")
            fb.emit("e[0](F, e[1], P)")
            fb.dedent()
            self.program.inlined_defaults[spec.seq] = spec.name
        else:
            if spec.type != "simple":
                key = "()" if not spec.keys else (spec.keys[0].source if len(spec.keys) == 1 else
                                                  "(" + ", ".join(k.source for k in spec.keys) + ",)")
                fb.emit(f"e = {obj}.lookup_indirect({key}, F, P)")
            elif not spec.keys:
                fb.emit(f"e = {obj}.keyless")
            else:
                keys = spec.keys
                key = keys[0].source if len(keys) == 1 else "(" + ", ".join(k.source for k in keys) + ",)"
                if spec.with_counters or spec.direct_meters or spec.support_timeout:
                    fb.emit(f"e = {obj}.lookup_stateful({key}, F, P)")
                else:
                    fb.emit(f"e = {obj}.lookup({key})")
            fb.emit("e[0](F, e[1], P)")
        if self._may_exit(spec):
            fb.emit("if P.exit:")
            fb.emit("    return None")

    def _const_default(self, spec: "TableSpec") -> tuple[str, tuple] | None:
        """(action function, data) when a keyless table's default can never change."""
        d = spec.default_entry
        if spec.keys or d is None or spec.with_counters or spec.direct_meters or spec.type != "simple":
            return None
        if not (d.get("action_const") and d.get("action_entry_const")):
            return None
        action = self.program.actions_by_id.get(d.get("action_id"))
        if action is None:
            return None
        return action.func, tuple(int(x, 16) for x in d.get("action_data", []))

    def _table_actions(self, t: dict) -> dict:
        """A table's actions by name, as simple_switch binds them (P4Objects::init_pipelines):
        its "action_ids" when present, else its "actions" names. p4c may emit several actions of
        one name (e.g. one per table that binds an argument differently), so a name on the
        control plane means the table's own copy; within a table names must be distinct."""
        out: dict = {}
        by_id = "action_ids" in t
        for name in t.get("actions", []) if by_id else ():
            if name not in self.program.actions:     # simple_switch_CLI looks these names up
                raise LoadError(f"table {t['name']!r} refers to unknown action {name!r}")
        for ref in t.get("action_ids" if by_id else "actions", []):
            action = (self.program.actions_by_id if by_id else self.program.actions).get(ref)
            if action is None:
                what = f"action id {ref}" if by_id else f"action {ref!r}"
                raise LoadError(f"table {t['name']!r} refers to unknown {what}")
            if action.name in out:
                raise LoadError(f"Duplicate actions with name {action.name!r} in table {t['name']!r}")
            out[action.name] = action
        return out

    def _may_exit(self, spec: "TableSpec") -> bool:
        funcs = {a.func for a in spec.action_specs.values()}
        d = spec.default_entry
        if d is not None and d.get("action_id") in self.program.actions_by_id:
            funcs.add(self.program.actions_by_id[d["action_id"]].func)
        return bool(funcs & self.program.exiting_actions)

    # -- JSON -> specs ------------------------------------------------------------------------------
    def _action_call(self, a: dict) -> tuple[str, str | None]:
        """(action function, next node) of an ``action_calls`` item; as BMv2, only an action
        without parameters can be called from the control directly."""
        action = self.program.actions_by_id.get(a.get("action_id"))
        if action is None:
            raise LoadError(f"action call {a.get('name')!r}: unknown action id {a.get('action_id')!r}")
        if action.params:
            raise LoadError(f"Cannot call action '{action.name}' directly from control as it expects parameters")
        self.node(a.get("next_node"))
        return action.func, a.get("next_node")

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

    def _action_profile(self, ap: dict) -> None:
        name = ap.get("name")
        sel = ap.get("selector")
        spec = ActionProfileSpec(name, ap.get("id", 0), int(ap.get("max_size", 1024) or 1024), sel)
        if sel is not None:
            algo = sel.get("algo")
            if algo not in KNOWN_ALGORITHMS:
                raise LoadError(f"action selector {name!r}: unsupported hash algorithm {algo!r}")
            # the selector hashes its input fields as a calculation does (BMv2 builds it as one)
            seq = len(self.program.action_profiles)
            cid = f"sel{seq}"
            spec.select_func = f"_select{seq}"
            self.program.calc_algos[cid] = algo
            compile_calculation({"name": name, "id": cid, "algo": algo, "input": sel.get("input", [])},
                                self.layout, self.gen, self.expr, spec.select_func)
        self.program.action_profiles[name] = spec

    def _table_spec(self, t: dict) -> TableSpec:
        ttype = t.get("type", "simple")
        if ttype not in TABLE_TYPES:
            raise LoadError(f"unsupported table type {ttype!r} (table {t['name']!r})")
        profile = None
        if ttype != "simple":
            if "action_profile" in t:
                profile = t["action_profile"]
            elif "act_prof_name" in t:
                # the old JSON format (P4Objects.cpp still reads it): the table names its own
                # profile and carries the selector itself
                profile = t["act_prof_name"]
                if profile not in self.program.action_profiles:
                    sel = t.get("selector") if ttype == "indirect_ws" else None
                    self._action_profile({"name": profile, "id": t.get("id", 0), "max_size": t.get("max_size"),
                                          **({"selector": sel} if sel is not None else {})})
            else:
                raise LoadError(f"table {t['name']!r}: indirect tables need to have attribute 'action_profile' "
                                "(new JSON format) or 'act_prof_name' (old JSON format)")
            ap = self.program.action_profiles.get(profile)
            if ap is None:
                raise LoadError(f"table {t['name']!r}: unknown action profile {profile!r}")
            if ttype == "indirect_ws" and ap.selector is None:
                raise LoadError(f"table {t['name']!r} is indirect_ws but action profile {profile!r} has no selector")
        keys = [self._key(k) for k in t.get("key", [])]
        dm = t.get("direct_meters")
        spec = TableSpec(t["name"], t["id"], t.get("match_type") or table_match_type(keys),
                         keys, list(t.get("actions", [])),
                         dict(t.get("next_tables", {})), t.get("default_entry"), int(t.get("max_size", 1024)),
                         bool(t.get("with_counters")), dm, list(t.get("entries", []) or []),
                         bool(t.get("support_timeout")), self.node_names[t["name"]])
        spec.base_default_next = t.get("base_default_next")
        spec.type, spec.action_profile = ttype, profile
        if "entries" in t:
            # the table holds its const entries and nothing else (P4Objects.cpp get_table_size)
            if ttype != "simple":
                raise LoadError(f"Table {t['name']!r} does not have type 'simple' and therefore "
                                "cannot specify a 'entries' attribute")
            spec.has_entries, spec.max_size = True, len(spec.entries)
        spec.action_specs = self._table_actions(t)
        spec.actions = list(spec.action_specs)
        self.node(spec.base_default_next)
        for nxt in spec.next_tables.values():
            self.node(nxt)
        if spec.name in self.program.tables:
            raise LoadError(f"Duplicate objects of type 'table' with name {spec.name!r}")
        spec.seq = len(self.program.tables)
        self.program.tables[spec.name] = spec
        return spec


def table_match_type(keys: list[KeySpec]) -> str:
    """A table's match type as p4c derives it from its keys when the JSON gives none
    (backends/bmv2/common/control.h): range if a key is range, else ternary if one is
    ternary or optional, else lpm if one is lpm, else exact."""
    kinds = {k.match_type for k in keys}
    for kind, implied_by in (("range", {"range"}), ("ternary", {"ternary", "optional"}),
                             ("lpm", {"lpm"})):
        if kinds & implied_by:
            return kind
    return "exact"


def _topological(order: list[str], succ: dict[str, list]) -> list[str]:
    """The nodes with every node before its successors (a pipeline is acyclic in BMv2)."""
    seen: set[str] = set()
    out: list[str] = []
    for root in order:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(succ[root]))]
        while stack:
            node, it = stack[-1]
            for m in it:
                if m is not None and m not in seen:
                    seen.add(m)
                    stack.append((m, iter(succ[m])))
                    break
            else:
                stack.pop()
                out.append(node)
    out.reverse()
    return out


# ``A[i]``, or ``A`` passed to a function of a deep expression (ExprCompiler._nested)
_ACTION_DATA = re.compile(r"(?<![\w.])A[\[)]")


def _uses_action_data(line: str) -> bool:
    return _ACTION_DATA.search(line) is not None
