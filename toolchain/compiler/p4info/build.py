"""The P4Info of a checked v1model program, as p4c-bm2-ss writes it (`--p4runtime-files`).

Reference: the P4Runtime specification (v1.x) §6 "P4Info" and §7 for the type specs, and the
behaviour of p4c's control-plane generator for v1model, which decides the details the
specification leaves to the compiler:

* what is listed: the tables that are applied, the actions they reference (action lists,
  defaults, entries; an action used by several tables or controls once), every extern
  instance (counters, meters, registers, action profiles and selectors; direct counters and
  meters with the table they belong to), the parser value sets, the types `digest<T>` sends,
  the headers annotated `@controller_header("name")`, and `pkg_info.arch` "v1model";
* the order: the blocks as p4c's evaluator walks them, breadth first: the top-level extern
  instances and `main`, then V1Switch's six blocks (the actions of each control in
  declaration order), then what each block holds (tables and extern instances in declaration
  order, the parser's value sets with the parser), then the controller headers;
* names are control-plane names (`Control.name`, `@name` honoured, an absolute `@name(".x")`
  kept as `x`), the same names the BMv2 JSON gives, so P4Info and JSON describe one program;
  ids and aliases as ids.py computes them;
* a table without `default_action` has NoAction as its (mutable) default and lists it
  `@defaultonly` (p4c's CreateBuiltins, P4_16 spec §14.2.1.3); `size` is the `size` property
  or 1024; `const entries` make `is_const_table`; `support_timeout = true` gives
  `idle_timeout_behavior: NOTIFY_CONTROL`;
* annotations: every one but `@name`, `@id`, `@brief`, `@description` (those two become
  `doc`), written back as `@name(body)`.

`build_p4info(program)` returns a `p4.config.v1.P4Info` message (the `p4runtime` package's
generated module) or raises `P4InfoError` with a one-line message naming the declaration.
"""
from __future__ import annotations

from typing import Optional

from ..diagnostics import CompileError
from ..frontend import ast, types as T
from ..midend.controls import control_name, qualified_name
from ..midend.expressions import describe
from .ids import IdError, Prefix, SymbolTable, member_ids
from .typespec import TypeSpecError, TypeSpecs

__all__ = ["build_p4info", "P4InfoError", "p4info_pb2"]

DEFAULT_TABLE_SIZE = 1024          # v1model's default (p4c: V1Model tableAttributes)
MATCH_TYPES = {"exact": 2, "lpm": 3, "ternary": 4, "range": 5, "optional": 6}   # MatchType
COUNTER_UNITS = {"packets": 2, "bytes": 1, "packets_and_bytes": 3}     # CounterSpec.Unit
METER_UNITS = {"packets": 2, "bytes": 1}                                # MeterSpec.Unit
DOC_ANNOTATIONS = ("brief", "description")
NOT_WRITTEN = ("name", "id") + DOC_ANNOTATIONS


def p4info_pb2():
    """p4info.proto's generated module (the `p4runtime` package); ImportError names it."""
    try:
        from p4.config.v1 import p4info_pb2 as pb
    except ImportError as e:      # pragma: no cover - the package is a dependency
        raise ImportError("P4Info needs the 'p4runtime' and 'protobuf' packages "
                          f"(pip install p4runtime): {e}") from None
    return pb


class P4InfoError(CompileError):
    """A program whose P4Info cannot be written; str() is `file:line:col: error: ...`."""


def _err(node, message: str) -> P4InfoError:
    return P4InfoError.at(getattr(node, "pos", None), message)


def _id_annotation(node) -> Optional[int]:
    a = ast.annotation(node, "id")
    if a is None:
        return None
    if len(a.args) != 1 or getattr(a.args[0], "folded", None) is None and \
            not isinstance(a.args[0], ast.IntLit):
        raise _err(a, "@id takes one integer")
    v = a.args[0].folded if getattr(a.args[0], "folded", None) is not None else a.args[0].value
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 0xFFFFFFFF:
        raise _err(a, "@id should be an unsigned integer")
    return v


def annotation_text(a: ast.Annotation) -> str:
    """An annotation as p4c prints it back: `@name` or `@name(body)`."""
    return f"@{a.name}({a.body})" if a.body or a.args or a.kv else f"@{a.name}"


def write_annotations(msg, node, skip=()) -> None:
    """`annotations` and `doc` of a P4Info message from a node's annotations."""
    for a in getattr(node, "annotations", None) or ():
        if a.name in NOT_WRITTEN or a.name in skip:
            continue
        msg.annotations.append(annotation_text(a))
    write_doc(msg, node)


def write_doc(msg, node) -> None:
    for a in getattr(node, "annotations", None) or ():
        if a.name in DOC_ANNOTATIONS and a.args and isinstance(a.args[0], ast.StringLit):
            setattr(msg.doc, a.name, a.args[0].value)


def _hidden(node) -> bool:
    return ast.annotation(node, "hidden") is not None


def _fold(e, what: str) -> int:
    v = getattr(e, "folded", None)
    if isinstance(v, bool):
        return int(v)
    if not isinstance(v, int):
        raise _err(e, f"{what} must be a compile-time constant")
    return v


def _arg(e):
    return e.expr if isinstance(e, ast.Argument) else e


def _enum_member(e) -> str:
    return getattr(e, "member", None) or getattr(e, "name", "")


def _blocks(program: ast.Program):
    """(parser, [controls]) of V1Switch, in its argument order."""
    main = program.main
    if main is None or getattr(main.decl_type, "name", None) != "V1Switch":
        raise _err(main or program, "P4Info is written for v1model's V1Switch only")
    decls = []
    for a in main.args:
        a = _arg(a)
        if isinstance(a, ast.MethodCallExpr):
            decls.append(getattr(a.callee, "decl", None) or a.method)
        else:
            d = getattr(a, "decl", None)
            decls.append(d.decl_type if isinstance(d, ast.Instantiation) else d)
    return decls


def _applied_tables(control: ast.ControlDecl) -> set:
    return {id(n.receiver.decl) for n in ast.walk(control.body)
            if isinstance(n, ast.MethodCallExpr) and n.kind == "table_apply"
            and getattr(n.receiver, "decl", None) is not None}


def _table_action_refs(t: ast.TableDecl) -> list:
    refs = list(t.actions)
    da = t.default_action
    if da is not None and da.action is not None:
        refs.append(da.action)
    if t.entries is not None:
        refs.extend(e.action for e in t.entries.entries)
    return refs


class _Builder:
    def __init__(self, program: ast.Program):
        self.pb = p4info_pb2()
        self.program = program
        self.info = self.pb.P4Info()
        self.symbols = SymbolTable()
        from p4.config.v1 import p4types_pb2
        self.types = TypeSpecs(self.info.type_info, list(program.errors or []),
                               write_annotations, p4types_pb2)
        scope = program.scope or {}
        no_action = scope.get("NoAction")
        self.no_action = no_action if isinstance(no_action, ast.ActionDecl) else None
        self.blocks = _blocks(program)
        self.auto_digest_names: dict = {}
        self.controls = [b for b in self.blocks if isinstance(b, ast.ControlDecl)]
        self.top_instances = [d for d in program.decls if isinstance(d, ast.Instantiation)
                              and d is not program.main and _extern_kind(d)]

    # -- names --------------------------------------------------------------------------------
    def table_name(self, t: ast.TableDecl, c: ast.ControlDecl) -> str:
        return qualified_name(t, control_name(c))

    def action_name(self, a: ast.ActionDecl, c: ast.ControlDecl) -> str:
        return qualified_name(a, control_name(c) if a.control is not None else "")

    def instance_name(self, inst, c: Optional[ast.ControlDecl]) -> str:
        """A top-level instance keeps its own name; one in a control is under the control."""
        if c is not None and not any(l is inst for l in c.locals):
            c = None
        return qualified_name(inst, control_name(c) if c is not None else "")

    # -- what a control exposes ---------------------------------------------------------------
    def tables(self, c: ast.ControlDecl) -> list:
        applied = _applied_tables(c)
        return [t for t in c.locals if isinstance(t, ast.TableDecl) and id(t) in applied
                and not _hidden(t)]

    def actions(self, c: ast.ControlDecl) -> list:
        """The actions a control uses: its applied tables' (NoAction for a table without a
        default) and those its body calls, in declaration order, the global ones first in
        the order the control first names them, as p4c's LocalizeAllActions puts them; p4c's
        front end removes the others (an action only called from another action is inlined
        there and goes too)."""
        used: dict = {}
        for t in self.tables(c):
            for ref in t.actions:
                used.setdefault(id(ref.action), ref.action)
            if t.default_action is None and self.no_action is not None:
                used.setdefault(id(self.no_action), self.no_action)
            for ref in _table_action_refs(t)[len(t.actions):]:
                used.setdefault(id(ref.action), ref.action)
        for n in ast.walk(c.body):
            if isinstance(n, ast.MethodCallExpr) and n.kind == "action":
                used.setdefault(id(n.method), n.method)
        globals_ = [a for a in used.values() if a.control is None]
        locals_ = [a for a in c.locals if isinstance(a, ast.ActionDecl) and id(a) in used]
        return [a for a in globals_ + locals_ if not _hidden(a)]

    def table_actions(self) -> set:
        """ids of the actions some applied table references (the others, called directly,
        have their parameters bound at the call: p4c's RemoveActionParameters leaves none)."""
        out = set()
        for c in self.controls:
            for t in self.tables(c):
                out.update(id(r.action) for r in _table_action_refs(t))
        if self.no_action is not None:
            out.add(id(self.no_action))
        return out

    def extern_calls(self, c: ast.ControlDecl) -> list:
        """Calls of extern functions: in the control's actions, then in its body."""
        out = []
        for n in [a.body for a in self.actions(c)] + [c.body]:
            out.extend(call for call in ast.walk(n) if isinstance(call, ast.MethodCallExpr)
                       and call.kind == "extern_function")
        return out

    def digests(self, c: ast.ControlDecl) -> list:
        """`digest<T>(receiver, data)` calls: in the control's actions, then its body."""
        return [call for call in self.extern_calls(c)
                if getattr(call.method, "name", "") == "digest"]

    # -- pass 1: symbols ----------------------------------------------------------------------
    def _add(self, prefix: int, name: str, node=None) -> None:
        try:
            self.symbols.add(prefix, name, _id_annotation(node) if node is not None else None)
        except IdError as e:
            raise _err(node, str(e)) from None

    def collect(self) -> None:
        add = self._add
        for inst in self.top_instances:
            self._collect_instance(inst, None)
        for b in self.blocks:
            if isinstance(b, ast.ParserDecl):
                for vs in b.locals:
                    if isinstance(vs, ast.ValueSetDecl):
                        add(Prefix.VALUE_SET, qualified_name(vs, b.name), vs)
                for inst in b.locals:
                    if isinstance(inst, ast.Instantiation):
                        self._collect_instance(inst, None, owner=b.name)
                continue
            for a in self.actions(b):
                add(Prefix.ACTION, self.action_name(a, b), a)
            for call in self.digests(b):
                add(Prefix.DIGEST, self._digest_name(call))
            for local in b.locals:
                if isinstance(local, ast.Instantiation):
                    self._collect_instance(local, b)
            for t in self.tables(b):
                name = self.table_name(t, b)
                add(Prefix.TABLE, name, t)
                for prop_name, prefix in (("implementation", Prefix.ACTION_PROFILE),
                                          ("counters", Prefix.DIRECT_COUNTER),
                                          ("meters", Prefix.DIRECT_METER)):
                    prop = t.prop(prop_name)
                    if prop is not None and isinstance(prop.value, ast.MethodCallExpr):
                        add(prefix, self._in_place_name(prop, t, b), prop)
        for h in self.controller_headers():
            add(Prefix.CONTROLLER_HEADER, h.name, h)
        self.symbols.assign()

    def _collect_instance(self, inst, c, owner: Optional[str] = None) -> None:
        kind = _extern_kind(inst)
        prefix = {"counter": Prefix.COUNTER, "direct_counter": Prefix.DIRECT_COUNTER,
                  "meter": Prefix.METER, "direct_meter": Prefix.DIRECT_METER,
                  "register": Prefix.REGISTER, "action_profile": Prefix.ACTION_PROFILE,
                  "action_selector": Prefix.ACTION_PROFILE}.get(kind)
        if prefix is not None:
            name = qualified_name(inst, owner) if owner else self.instance_name(inst, c)
            self._add(prefix, name, inst)

    def _in_place_name(self, prop, t, c) -> str:
        """An extern constructed in a table property is named by the property's @name, as
        written (p4c does not put the control's name before it)."""
        given = ast.name_annotation(prop)
        if given is None:
            raise _err(prop, f"table {self.table_name(t, c)} has an anonymous {prop.name} "
                             "property with no @name annotation, which P4Runtime cannot name")
        return given[1:] if given.startswith(".") else given

    def _digest_name(self, call) -> str:
        """A struct's name; for data of another type (a list) `digest_<n>`, n counting such
        calls from 0 as p4c does."""
        t = call.type_args[0] if call.type_args else getattr(_arg(call.args[1]), "type", None)
        if isinstance(t, T.StructLike):
            return ast.name_annotation(t.decl) or t.name
        return self.auto_digest_names.setdefault(id(call),
                                                 f"digest_{len(self.auto_digest_names)}")

    def controller_headers(self) -> list:
        return [d for d in self.program.decls if isinstance(d, ast.HeaderDecl)
                and ast.annotation(d, "controller_header") is not None and not _hidden(d)]

    # -- pass 2: messages ---------------------------------------------------------------------
    def preamble(self, msg, prefix: int, name: str, node, skip=()) -> None:
        p = msg.preamble
        p.id = self.symbols.id(prefix, name)
        p.name = name
        p.alias = self.symbols.alias(name)
        write_annotations(p, node, skip)

    def build(self):
        self.collect()
        self.done_actions: set = set()
        self.in_tables = self.table_actions()
        self.done_digests: set = set()
        for inst in self.top_instances:
            self.add_instance(inst, None)
        later = []
        for b in self.blocks:
            if isinstance(b, ast.ParserDecl):
                later.append((b, [l for l in b.locals if isinstance(l, ast.Instantiation)]))
                for vs in b.locals:
                    if isinstance(vs, ast.ValueSetDecl):
                        self.add_value_set(vs, b)
                continue
            for a in self.actions(b):
                self.add_action(a, b)
            if self.extern_calls(b):
                self.info.type_info.SetInParent()    # p4c's v1model handler touches it
            for call in self.digests(b):
                self.add_digest(call)
            applied = {id(t) for t in self.tables(b)}
            later.append((b, [l for l in b.locals if isinstance(l, ast.Instantiation)
                              or id(l) in applied]))
        for b, items in later:
            for item in items:
                if isinstance(item, ast.TableDecl):
                    self.add_table(item, b)
                elif isinstance(b, ast.ParserDecl):
                    self.add_instance(item, None, owner=b.name)
                else:
                    self.add_instance(item, b)
        for h in self.controller_headers():
            self.add_controller_header(h)
        self.add_pkg_info()
        return self.info

    def add_action(self, a: ast.ActionDecl, c: ast.ControlDecl) -> None:
        name = self.action_name(a, c)
        aid = self.symbols.id(Prefix.ACTION, name)
        if aid in self.done_actions:
            return
        self.done_actions.add(aid)
        msg = self.info.actions.add()
        self.preamble(msg, Prefix.ACTION, name, a)
        params = [p for p in a.params if not p.direction] \
            if id(a) in self.in_tables else []
        try:
            ids = member_ids(_id_annotation(p) for p in params)
        except IdError as e:
            raise _err(a, f"action {name}: {e}") from None
        for p, pid in zip(params, ids):
            self.info.type_info.SetInParent()    # p4c's converter touches it per parameter
            m = msg.params.add()
            m.id = pid
            m.name = ast.name_annotation(p) or p.name
            write_annotations(m, p)
            t = p.p4type
            if not (isinstance(t, (T.Bits, T.Enum)) or t is T.BOOL):
                raise _err(p, f"action {name}: parameter {p.name} has type {t.name}, which is "
                              "not bit<>, int<>, bool, a new type or a serializable enum")
            if not (isinstance(t, T.Enum) and t.underlying is None):
                m.bitwidth = self.types.width(t, p.type_ref)
            self.types.note(t, p.type_ref)
            tn = self.types.type_name(p.type_ref)
            if tn is not None:
                m.type_name.name = tn
            elif isinstance(t, T.Enum) and t.underlying is None:
                m.type_name.name = t.name

    def add_table(self, t: ast.TableDecl, c: ast.ControlDecl) -> None:
        name = self.table_name(t, c)
        msg = self.info.tables.add()
        self.info.type_info.SetInParent()        # p4c's converter touches it per table
        self.preamble(msg, Prefix.TABLE, name, t)
        keys = [k for k in t.key if k.match_kind != "selector"]
        try:
            ids = member_ids(_id_annotation(k) for k in keys)
        except IdError as e:
            raise _err(t, f"table {name}: {e}") from None
        for k, kid in zip(keys, ids):
            f = msg.match_fields.add()
            f.id = kid
            f.name = ast.name_annotation(k) or describe(k.expr)
            write_annotations(f, k)
            ref = _key_type_ref(k.expr)
            f.bitwidth = self.types.width(k.expr.type, ref)
            if k.match_kind in MATCH_TYPES:
                f.match_type = MATCH_TYPES[k.match_kind]
            else:
                f.other_match_type = k.match_kind
            self.types.note(k.expr.type, ref)
            tn = self.types.type_name(ref)
            if tn is not None:
                f.type_name.name = tn
        default_ref = t.default_action.action if t.default_action is not None else None
        refs = list(t.actions)
        if default_ref is None and self.no_action is not None and \
                all(r.action is not self.no_action for r in refs):
            refs.append(None)           # NoAction, @defaultonly (p4c's CreateBuiltins)
        for ref in refs:
            ar = msg.action_refs.add()
            if ref is None:
                ar.id = self.symbols.id(Prefix.ACTION, self.action_name(self.no_action, c))
                ar.annotations.append("@defaultonly")
                ar.scope = self.pb.ActionRef.DEFAULT_ONLY
                continue
            ar.id = self.symbols.id(Prefix.ACTION, self.action_name(ref.action, c))
            for a in ref.annotations:
                if a.name not in NOT_WRITTEN:
                    ar.annotations.append(annotation_text(a))
            table_only = ast.annotation(ref, "tableonly") is not None
            default_only = ast.annotation(ref, "defaultonly") is not None
            if table_only and default_only:
                raise _err(ref, f"table {name}: action {ref.name.name} is annotated both "
                                "@tableonly and @defaultonly")
            ar.scope = (self.pb.ActionRef.TABLE_ONLY if table_only else
                        self.pb.ActionRef.DEFAULT_ONLY if default_only else
                        self.pb.ActionRef.TABLE_AND_DEFAULT)
        if default_ref is not None:
            did = self.symbols.id(Prefix.ACTION, self.action_name(default_ref.action, c))
            if t.default_action.is_const:
                msg.const_default_action_id = did
            msg.initial_default_action.action_id = did
            self._default_args(msg.initial_default_action, default_ref)
        elif self.no_action is not None:
            msg.initial_default_action.action_id = self.symbols.id(
                Prefix.ACTION, self.action_name(self.no_action, c))
        self._table_properties(msg, t, c, name)
        size = t.prop("size")
        msg.size = (_fold(size.value, "a table size") if size is not None else 0) or \
            DEFAULT_TABLE_SIZE
        timeout = t.prop("support_timeout")
        if timeout is not None and getattr(timeout.value, "folded", None) is True:
            msg.idle_timeout_behavior = self.pb.Table.NOTIFY_CONTROL
        if t.entries is not None:
            if t.entries.is_const:
                msg.is_const_table = True
            if t.entries.entries:
                msg.has_initial_entries = True

    def _default_args(self, msg, ref: ast.ActionRef) -> None:
        params = [p for p in ref.action.params if not p.direction]
        args = ref.args[len(ref.args) - len(params):] if params else []
        for i, (p, a) in enumerate(zip(params, args)):
            a = _arg(a)
            given = _id_annotation(p)
            arg = msg.arguments.add()
            arg.param_id = given if given is not None else i + 1
            w = self.types.width(p.p4type, p.type_ref)
            v = _fold(a, "a default action argument")
            arg.value = (v & ((1 << w) - 1)).to_bytes((w + 7) // 8, "big") if w else b""

    def _table_properties(self, msg, t, c, name: str) -> None:
        impl = t.prop("implementation")
        if impl is not None:
            v = impl.value
            if isinstance(v, ast.PathExpr) and isinstance(v.decl, ast.Instantiation):
                msg.implementation_id = self.symbols.id(Prefix.ACTION_PROFILE,
                                                        self.instance_name(v.decl, c))
            else:
                pname = self._in_place_name(impl, t, c)
                msg.implementation_id = self.symbols.id(Prefix.ACTION_PROFILE, pname)
                self.add_action_profile(pname, v.callee.name, [_arg(a) for a in v.args], impl)
        for prop_name, prefix in (("counters", Prefix.DIRECT_COUNTER),
                                  ("meters", Prefix.DIRECT_METER)):
            prop = t.prop(prop_name)
            if prop is None:
                continue
            v = prop.value
            if isinstance(v, ast.PathExpr) and isinstance(v.decl, ast.Instantiation):
                rname, node, args = self.instance_name(v.decl, c), v.decl, v.decl.args
            else:
                rname, node, args = self._in_place_name(prop, t, c), prop, v.args
            rid = self.symbols.id(prefix, rname)
            msg.direct_resource_ids.append(rid)
            unit = _enum_member(_arg(args[0]))
            if prefix == Prefix.DIRECT_COUNTER:
                d = self.info.direct_counters.add()
                self.preamble(d, prefix, rname, node)
                d.spec.unit = COUNTER_UNITS.get(unit, 0)
            else:
                d = self.info.direct_meters.add()
                self.preamble(d, prefix, rname, node)
                d.spec.unit = METER_UNITS.get(unit, 0)
            d.direct_table_id = msg.preamble.id

    def add_instance(self, inst: ast.Instantiation, c, owner: Optional[str] = None) -> None:
        kind = _extern_kind(inst)
        name = qualified_name(inst, owner) if owner else self.instance_name(inst, c)
        args = [_arg(a) for a in inst.args]
        self.info.type_info.SetInParent()        # p4c's converter touches it per instance
        if kind == "counter":
            msg = self.info.counters.add()
            self.preamble(msg, Prefix.COUNTER, name, inst)
            msg.spec.unit = COUNTER_UNITS.get(_enum_member(args[1]), 0)
            msg.size = _fold(args[0], "a counter size")
        elif kind == "meter":
            msg = self.info.meters.add()
            self.preamble(msg, Prefix.METER, name, inst)
            msg.spec.unit = METER_UNITS.get(_enum_member(args[1]), 0)
            msg.size = _fold(args[0], "a meter size")
        elif kind == "register":
            msg = self.info.registers.add()
            self.preamble(msg, Prefix.REGISTER, name, inst)
            msg.size = _fold(args[0], "a register size")
            targs = getattr(inst.type_ref, "args", None) or []
            value_t = inst.p4type.args[0]
            msg.type_spec.CopyFrom(self.types.spec(value_t, targs[0] if targs else None))
        elif kind in ("action_profile", "action_selector"):
            self.add_action_profile(name, kind, args, inst)

    def add_action_profile(self, name: str, kind: str, args: list, node) -> None:
        msg = self.info.action_profiles.add()
        self.preamble(msg, Prefix.ACTION_PROFILE, name, node,
                      skip=("max_group_size", "selector_size_semantics", "max_member_weight"))
        users = sorted(self._profile_users(node))
        msg.table_ids.extend(self.symbols.id(Prefix.TABLE, n) for n in users)
        msg.with_selector = kind == "action_selector"
        msg.size = _fold(args[1] if kind == "action_selector" else args[0],
                         "an action profile size")
        mgs = ast.annotation(node, "max_group_size")
        if mgs is not None and msg.with_selector and mgs.args:
            msg.max_group_size = _fold(mgs.args[0], "@max_group_size")
        sem = ast.annotation(node, "selector_size_semantics")
        if sem is not None and msg.with_selector and sem.args:
            which = str(getattr(sem.args[0], "value", "")).upper()
            if which == "SUM_OF_WEIGHTS":
                msg.sum_of_weights.SetInParent()
            elif which == "SUM_OF_MEMBERS":
                msg.sum_of_members.SetInParent()
                mmw = ast.annotation(node, "max_member_weight")
                if mmw is not None and mmw.args:
                    msg.sum_of_members.max_member_weight = _fold(mmw.args[0],
                                                                 "@max_member_weight")
            else:
                raise _err(sem, "@selector_size_semantics is \"sum_of_weights\" or "
                                "\"sum_of_members\"")

    def _profile_users(self, node) -> list:
        out = []
        for c in self.controls:
            for t in self.tables(c):
                impl = t.prop("implementation")
                if impl is None:
                    continue
                v = impl.value
                if impl is node or (isinstance(v, ast.PathExpr) and v.decl is node):
                    out.append(self.table_name(t, c))
        return out

    def add_value_set(self, vs: ast.ValueSetDecl, parser: ast.ParserDecl) -> None:
        name = qualified_name(vs, parser.name)
        msg = self.info.value_sets.add()
        self.preamble(msg, Prefix.VALUE_SET, name, vs)
        msg.size = _fold(vs.size, "a value set size")
        et = vs.p4type.element if hasattr(vs.p4type, "element") else vs.p4type
        if isinstance(et, T.Bits):
            m = msg.match.add()
            m.id = 1
            m.bitwidth = et.width
            m.match_type = MATCH_TYPES["exact"]
        elif isinstance(et, T.Struct):
            fields = [f for f in et.decl.fields if isinstance(f, ast.FieldDecl)]
            ids = member_ids(_id_annotation(f) for f in fields)
            for f, fid in zip(fields, ids):
                ft = et.fields[f.name]
                if not isinstance(ft, T.Bits):
                    raise _err(f, f"value set {name}: field {f.name} must be bit<W> for "
                                  "P4Runtime")
                m = msg.match.add()
                m.id = fid
                m.name = ast.name_annotation(f) or f.name
                m.bitwidth = ft.width
                kind = ast.annotation(f, "match")
                k = getattr(kind.args[0], "name", "exact") if kind and kind.args else "exact"
                if k in MATCH_TYPES:
                    m.match_type = MATCH_TYPES[k]
                else:
                    m.other_match_type = k
                write_annotations(m, f, skip=("match",))
        else:
            raise _err(vs, f"value set {name}: P4Runtime takes bit<W> or a struct of them")

    def add_digest(self, call) -> None:
        name = self._digest_name(call)
        did = self.symbols.id(Prefix.DIGEST, name)
        if did in self.done_digests:
            return
        self.done_digests.add(did)
        self.info.type_info.SetInParent()
        msg = self.info.digests.add()
        msg.preamble.id = did
        msg.preamble.name = name
        msg.preamble.alias = self.symbols.alias(name)
        t = call.type_args[0] if call.type_args else _arg(call.args[1]).type
        msg.type_spec.CopyFrom(self.types.spec(t))

    def add_controller_header(self, h: ast.HeaderDecl) -> None:
        a = ast.annotation(h, "controller_header")
        if not a.args or not isinstance(a.args[0], ast.StringLit):
            raise _err(a, f"header {h.name}: @controller_header takes the packet's name as a "
                          "string")
        label = a.args[0].value
        msg = self.info.controller_packet_metadata.add()
        msg.preamble.id = self.symbols.id(Prefix.CONTROLLER_HEADER, h.name)
        msg.preamble.name = label
        msg.preamble.alias = label
        write_annotations(msg.preamble, h)
        fields = [f for f in h.fields if isinstance(f, ast.FieldDecl) and not _hidden(f)]
        try:
            ids = member_ids(_id_annotation(f) for f in fields)
        except IdError as e:
            raise _err(h, f"header {h.name}: {e}") from None
        for f, fid in zip(fields, ids):
            self.info.type_info.SetInParent()
            m = msg.metadata.add()
            m.id = fid
            m.name = ast.name_annotation(f) or f.name
            for an in f.annotations:
                if an.name not in NOT_WRITTEN:
                    m.annotations.append(annotation_text(an))
            m.bitwidth = self.types.width(f.p4type, f.type_ref)
            self.types.note(f.p4type, f.type_ref)
            tn = self.types.type_name(f.type_ref)
            if tn is not None:
                m.type_name.name = tn

    def add_pkg_info(self) -> None:
        pkg = self.info.pkg_info
        main = self.program.main
        info = ast.annotation(main, "pkginfo")
        for key, value in (info.kv.items() if info is not None else ()):
            if key in ("name", "version", "organization", "contact", "url", "arch") and \
                    isinstance(value, ast.StringLit):
                setattr(pkg, key, value.value)
        if not pkg.arch:
            pkg.arch = "v1model"
        props = ast.annotation(main, "platform_property")
        for key, value in (props.kv.items() if props is not None else ()):
            if key in ("multicast_group_table_size", "multicast_group_table_total_replicas",
                       "multicast_group_table_max_replicas_per_entry"):
                setattr(pkg.platform_properties, key, _fold(value, f"@platform_property {key}"))
        write_annotations(pkg, main, skip=("pkginfo", "platform_property"))


def _extern_kind(inst) -> Optional[str]:
    kind = getattr(inst.decl_type, "name", None)
    return kind if isinstance(inst.decl_type, ast.ExternDecl) else None


def _key_type_ref(e):
    """The written type of a key expression that names a field or parameter (for new types)."""
    decl = getattr(e, "decl", None)
    return getattr(decl, "type_ref", None)


def build_p4info(program: ast.Program):
    """The P4Info message of a program checked by the front end; P4InfoError if it cannot
    be written."""
    try:
        return _Builder(program).build()
    except IdError as e:
        raise P4InfoError.at(None, str(e)) from None
    except TypeSpecError as e:
        raise P4InfoError.at(None, str(e)) from None
