"""Control-flow lowering: a control's structured apply body -> BMv2 tables and conditionals.

BMv2 pipelines are graphs of tables and conditionals only (JSON_format.md, "pipelines";
p4c never emits `action_calls`). So straight-line code in an apply block becomes a synthetic
keyless table whose const default action is that code (Note 1 of JSON_format.md), `if`
becomes a conditional, `t.apply().hit` a table with `__HIT__`/`__MISS__` next tables, and
`switch (t.apply().action_run)` a table with per-action next tables. The graph is built
back to front so that each statement knows the node that follows it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import ir
from .names import Counter, NameGenerator
from .unsupported import Unsupported


# ---- structured statements produced by the control lowering pass

@dataclass
class Code:
    """Straight-line primitives (no jumps); consecutive Code blocks share one action."""
    items: list
    source: Optional[ir.SourceInfo] = None
    label: str = ""          # p4c-style base name for the synthetic action ("prog34")

    @property
    def has_exit(self) -> bool:
        """An `exit` inside (an inlined action): nothing may follow it in the same BMv2
        action, because BMv2 only checks the exit flag between tables."""
        return any(isinstance(i, ir.Primitive) and i.op == "exit" for i in self.items)


@dataclass
class If:
    cond: ir.Expr
    then: list
    other: list
    source: Optional[ir.SourceInfo] = None


@dataclass
class Apply:
    """table.apply(); with optional hit/miss branches or action_run switch cases."""
    table: str
    hit: Optional[list] = None
    miss: Optional[list] = None
    cases: Optional[list] = None        # [(list of action names | None for default, body)]
    source: Optional[ir.SourceInfo] = None
    pos: Optional[object] = None        # source position, for the error of a second apply


@dataclass
class Stop:
    """exit or return: nothing after it in this control runs."""
    exit: bool
    source: Optional[ir.SourceInfo] = None


class CfgError(Unsupported):
    """A graph BMv2 cannot represent (the control lowering reports it with a position first;
    this is the builder's own guard)."""

    def __init__(self, message: str, source: Optional[ir.SourceInfo], pos=None):
        super().__init__(pos, message)
        self.source = source


@dataclass
class CfgBuilder:
    """Builds one pipeline; `tables` maps table name -> ir.Table (filled in here)."""
    tables: dict
    actions: list                       # program actions; synthetic ones are appended
    action_names: NameGenerator
    node_counter: Counter
    out_tables: list = field(default_factory=list)
    conditionals: list = field(default_factory=list)
    _applied: set = field(default_factory=set)

    def build(self, stmts: list, next_node: Optional[str]) -> Optional[str]:
        node = next_node
        i = len(stmts)
        while i > 0:
            stmt = stmts[i - 1]
            if isinstance(stmt, Code):
                j = i - 1
                while j > 0 and isinstance(stmts[j - 1], Code) and not stmts[j - 1].has_exit:
                    j -= 1
                node = self._code(stmts[j:i], node)
                i = j
                continue
            node = self._statement(stmt, node)
            i -= 1
        return node

    def _statement(self, stmt, next_node):
        if isinstance(stmt, If):
            return self._if(stmt, next_node)
        if isinstance(stmt, Apply):
            return self._apply(stmt, next_node)
        if isinstance(stmt, Stop):
            if stmt.exit:
                return self._code([Code([ir.Primitive("exit", [], stmt.source)], stmt.source,
                                        "exit")], None)
            return None
        raise TypeError(f"unknown control statement {stmt!r}")

    def _code(self, blocks: list, next_node):
        items = [item for b in blocks for item in b.items]
        if not items:
            return next_node
        first = blocks[0]
        name = self.action_names.fresh(first.label or "act")
        self.actions.append(ir.Action(name, [], items, first.source))
        table_name = self.action_names.fresh("tbl_" + name)
        call = ir.ActionCall(name, [], [])
        self.out_tables.append(ir.Table(
            name=table_name, keys=[], actions=[name], size=1024, default=call,
            default_const=True, next_tables={name: next_node}, base_default_next=next_node,
            source=first.source))
        return table_name

    def _if(self, stmt: If, next_node):
        if isinstance(stmt.cond, ir.Const):       # constant-folded condition
            return self.build(stmt.then if stmt.cond.value else stmt.other, next_node)
        true_next = self.build(stmt.then, next_node)
        false_next = self.build(stmt.other, next_node)
        name = f"node_{self.node_counter.take()}"
        self.conditionals.append(ir.Conditional(name, stmt.cond, true_next, false_next,
                                                stmt.source))
        return name

    def _apply(self, stmt: Apply, next_node):
        table = self.tables[stmt.table]
        next_tables = self._successors(table, stmt, next_node)
        if stmt.table in self._applied:
            return self._merge(table, stmt, next_tables, next_node)
        self._applied.add(stmt.table)
        table.base_default_next = next_node
        table.next_tables = next_tables
        self.out_tables.append(table)
        return table.name

    def _successors(self, table: ir.Table, stmt: Apply, next_node) -> dict:
        """The table's next_tables for this application: per hit/miss, per action run, or
        the following node for every action."""
        if stmt.hit is not None or stmt.miss is not None:
            return {"__HIT__": self.build(stmt.hit or [], next_node),
                    "__MISS__": self.build(stmt.miss or [], next_node)}
        if stmt.cases is not None:
            return self._switch(table, stmt.cases, next_node)
        return {a: next_node for a in table.actions}

    def _merge(self, table: ir.Table, stmt: Apply, next_tables: dict, next_node):
        """A table applied again: BMv2 holds one node per table, so every application must
        continue to the same nodes; p4c accepts exactly that (CFG::checkMergeable in
        backends/bmv2/common/controlFlowGraph.cpp) and refuses the rest."""
        if next_tables != table.next_tables or next_node != table.base_default_next:
            raise CfgError(f"table {stmt.table} is applied more than once with different "
                           "successors; BMv2 holds one node per table, so every application "
                           "must be followed by the same code", stmt.source, stmt.pos)
        return table.name

    def _switch(self, table: ir.Table, cases: list, next_node) -> dict:
        targets, default, built = {}, next_node, {}
        for labels, body in cases:
            if id(body) not in built:          # labels sharing one body share its nodes
                built[id(body)] = self.build(body, next_node)
            entry = built[id(body)]
            if labels is None:
                default = entry
            else:
                for a in labels:
                    targets[a] = entry
        return {a: targets.get(a, default) for a in table.actions}
