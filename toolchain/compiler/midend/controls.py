"""Control lowering (ingress, egress): extern instances, actions used by tables, tables with
their keys, defaults and const entries, and the apply block as a graph of tables and
conditionals (cfg.py). Names follow p4c: `<Control>.<name>`, `@name` honoured."""
from __future__ import annotations

from ..frontend import ast, types as T
from ..frontend.entry_priorities import written_priority
from . import cfg, ir
from .context import STATEMENT_NAMES, Context, ir_type, source_info
from .expressions import Env, describe
from .extern_calls import enum_member_name
from .statements import StmtLowering
from .storage import STANDARD_METADATA, StructPlace
from .unsupported import Unsupported

DEFAULT_TABLE_SIZE = 1024          # p4c's default when a table has no `size`
SUPPORTED_MATCH_KINDS = {"exact", "lpm", "ternary", "range", "optional"}


def bmv2_match_type(kind: str) -> str:
    """BMv2 has no `optional` match type: p4c writes such a key as a ternary one (its
    backends/bmv2 control converter), matched with a full mask or, for `_`, a zero mask."""
    return "ternary" if kind == "optional" else kind


def qualified_name(decl, control_name: str) -> str:
    """p4c's control-plane name of a declaration inside a control."""
    given = ast.name_annotation(decl)
    if given is not None:
        if given.startswith("."):
            return given[1:]
        return f"{control_name}.{given}" if control_name else given
    return f"{control_name}.{decl.name}" if control_name else decl.name


def block_env(ctx: Context, params: list) -> Env:
    """Bind a block's parameters to the headers, metadata or standard-metadata places."""
    env = Env()
    st = ctx.storage
    for p in params:
        t = p.p4type
        if isinstance(t, T.Struct) and st.headers_type is not None and t.decl is st.headers_type.decl:
            env.bind(p, StructPlace("headers", "", t))
        elif isinstance(t, T.Struct) and st.meta_type is not None and t.decl is st.meta_type.decl:
            env.bind(p, StructPlace("meta", t.name, t))
        elif isinstance(t, T.Struct) and t.name == "standard_metadata_t":
            env.bind(p, StructPlace("std", STANDARD_METADATA, t))
    return env


def control_name(decl: ast.ControlDecl) -> str:
    return ast.name_annotation(decl) or decl.name


def _fold(e, what: str) -> int:
    v = getattr(e, "folded", None)
    if isinstance(v, bool):
        return int(v)
    if not isinstance(v, int):
        raise Unsupported(e.pos, f"{what} must be a compile-time constant")
    return v


def lower_instance(ctx: Context, inst: ast.Instantiation, owner: str) -> None:
    """One v1model extern object -> its BMv2 array (registers, counters, meters)."""
    kind = getattr(inst.decl_type, "name", "")
    name = qualified_name(inst, owner)
    src = source_info(inst, inst.name)
    out = ctx.out
    if kind == "register":
        width = ir_type(inst.p4type.args[0], inst.pos).width
        out.registers.append(ir.RegisterArray(name, _fold(inst.args[0], "a register size"),
                                              width, src))
    elif kind == "counter":
        out.counters.append(ir.CounterArray(name, _fold(inst.args[0], "a counter size"),
                                            False, None, src))
    elif kind == "direct_counter":
        out.counters.append(ir.CounterArray(name, 0, True, None, src))
    elif kind == "meter":
        mtype = enum_member_name(inst.args[1])
        out.meters.append(ir.MeterArray(name, _fold(inst.args[0], "a meter size"), mtype,
                                        False, None, None, src))
    elif kind == "direct_meter":
        meter = ir.MeterArray(name, 0, enum_member_name(inst.args[0]), True, None, None, src)
        out.meters.append(meter)
        ctx.direct_meters[name] = meter
    elif kind in ("action_profile", "action_selector"):
        pass        # emitted with the pipeline of the table using it (a selector's inputs
        #             are that table's selector keys): ControlLowering._implementation
    else:
        raise Unsupported(inst.pos, f"extern {kind} is not supported by the BMv2 back end")
    ctx.extern_instances[id(inst)] = (kind, name)


class ControlLowering:
    def __init__(self, ctx: Context, decl: ast.ControlDecl, pipeline_name: str):
        self.ctx = ctx
        self.decl = decl
        self.name = control_name(decl)
        self.pipeline_name = pipeline_name
        self.env = block_env(ctx, decl.params)
        self.stmts = StmtLowering(ctx, self.env, control_name=self.name)
        self.tables: dict = {}          # json name -> ir.Table
        self.table_decls: dict = {}     # id(TableDecl) -> json name
        self.key_setup: dict = {}       # json name -> [Primitive] computing key temporaries
        self.applied: set = set()
        self._bound_names: dict = {}    # id(ActionDecl) -> JSON name in the table being built
        self.table_actions: dict = {}   # table JSON name -> that dict, for action_run switches
        self.action_profiles: dict = {}  # name -> ir.ActionProfile of this pipeline

    # ------------------------------------------------------------ entry
    def run(self) -> None:
        init_code = []
        for local in self.decl.locals:
            if isinstance(local, ast.Instantiation):
                self._instance(local)
            elif isinstance(local, ast.VarDecl):
                init_code.extend(self.stmts.declare(local))
        for local in self.decl.locals:
            if isinstance(local, ast.TableDecl):
                self._table(local)
        body = self._structured(self.decl.body.stmts)
        if init_code:
            body.insert(0, cfg.Code(init_code, source_info(self.decl), self._label(self.decl)))
        builder = cfg.CfgBuilder(self.tables, self.ctx.out.actions, self.ctx.action_names,
                                 self.ctx.node_counter)
        init = builder.build(body, None)
        self.ctx.out.pipelines.append(ir.Pipeline(
            self.pipeline_name, init, list(reversed(builder.out_tables)),
            list(reversed(builder.conditionals)), source_info(self.decl, self.decl.name),
            list(self.action_profiles.values())))

    def _label(self, node) -> str:
        return f"{self.ctx.program_base}{node.pos.line}"

    # ------------------------------------------------------------ extern instances
    def _instance(self, inst: ast.Instantiation) -> None:
        lower_instance(self.ctx, inst, self.name)

    # ------------------------------------------------------------ actions

    def action_name(self, action: ast.ActionDecl, bound: list = (), prelude: list = ()) -> str:
        """Lower an action used by a table (once per binding) and return its JSON name.
        `bound`: the arguments the actions list gives its directional parameters (spec
        14.2.1.2); as p4c's RemoveActionParameters, the body works on copies of scalar ones
        (copied in, and out also on return and exit) and on header/struct ones in place.
        `prelude`: statements in the control's scope computing bound arguments that had
        function calls (ast.ActionRef.prelude); they run first, when the action is invoked."""
        key = (id(action),) + tuple(describe(a) for a in bound)
        known = self.ctx.action_json_names.get(key)
        if known is not None:
            return known
        owner = self.name if action.control is not None else ""
        json_name = qualified_name(action, owner)
        copies = self.ctx.action_copies.get(json_name, 0)
        self.ctx.action_copies[json_name] = copies + 1
        name = f"{json_name}{ir.ACTION_COPY_SEP}{copies}" if copies else json_name
        env = self.env.child()
        params, copy_in, copy_out = [], [], []
        directional = [p for p in action.params if p.direction]
        if len(bound) != len(directional):
            p = directional[len(bound)] if len(bound) < len(directional) else action
            raise Unsupported(p.pos, f"action {action.name} has a directional parameter "
                                     f"{p.name} that the table's actions list does not bind")
        for p, arg in zip(directional, bound):
            self._bind_directional(env, p, arg, copy_in, copy_out)
        for p in action.params:
            if p.direction:
                continue
            t = ir_type(p.p4type, p.pos)
            env.bind(p, ir.ParamRef(len(params), t))
            params.append((p.name, t.width))
        lowering = StmtLowering(self.ctx, env, control_name=self.name)
        body = copy_in + lowering.action_body(action.body.stmts, copy_out)
        if prelude:
            before = StmtLowering(self.ctx, self.env.child(), control_name=self.name)
            body = before.action_body(list(prelude)) + body
        self.ctx.action_names.reserve(name)
        self.ctx.out.actions.append(ir.Action(name, params, body, source_info(action, json_name)))
        self.ctx.action_json_names[key] = name
        return name

    def _bind_directional(self, env, p: ast.Param, arg, copy_in: list, copy_out: list) -> None:
        src = source_info(arg)
        stmts = self.stmts
        if p.direction in ("out", "inout"):
            place = stmts.exprs.place(arg)
            if not stmts.bind_field_copy(env, p, place, src, copy_in, copy_out):
                env.bind(p, place)
        elif isinstance(p.p4type, (T.Header, T.Struct, T.Stack)):
            env.bind(p, stmts.exprs.place(arg))
        else:
            stmts.bind_in_value(env, p, arg, src, copy_in)

    def _action_call(self, ref: ast.ActionRef) -> ir.ActionCall:
        """A default or entry action: its data arguments (after any repeated bound ones)."""
        data_params = [p for p in ref.action.params if not p.direction]
        args = ref.args[len(ref.args) - len(data_params):] if data_params else []
        name = self._bound_names.get(id(ref.action)) or self.action_name(ref.action)
        widths = [ir_type(p.p4type, p.pos).width for p in data_params]
        data = [_fold(a, "an action argument in a table property") & ((1 << w) - 1)
                for a, w in zip(args, widths)]
        return ir.ActionCall(name, data, widths)

    # ------------------------------------------------------------ tables
    def _selector_input(self, k: ast.KeyElement) -> ir.Expr:
        value = self.stmts.exprs.lower(k.expr)
        if not isinstance(value, ir.FieldRef):
            raise Unsupported(k.expr.pos, "a selector key must be a field")
        return value

    def _table(self, t: ast.TableDecl) -> None:
        name = qualified_name(t, self.name)
        actions = []
        self._bound_names = {}
        for ref in t.actions:
            bound = list(ref.args)
            actions.append(self.action_name(ref.action, bound, ref.prelude))
            self._bound_names[id(ref.action)] = actions[-1]
        self.table_actions[name] = self._bound_names
        # keys of match kind `selector` are not matched: they are the action selector's
        # hash inputs (p4c leaves them out of the table's key)
        self._selector_inputs = [self._selector_input(k) for k in t.key
                                 if k.match_kind == "selector"]
        keys = [self._key(k, name) for k in t.key if k.match_kind != "selector"]
        table = ir.Table(name=name, keys=keys, actions=actions, size=DEFAULT_TABLE_SIZE,
                         default=None, default_const=False, source=source_info(t, t.name))
        self._properties(t, table)
        self.tables[name] = table
        self.table_decls[id(t)] = name

    def _properties(self, t: ast.TableDecl, table: ir.Table) -> None:
        for prop in t.properties:
            if isinstance(prop, ast.DefaultActionProperty):
                table.default = self._action_call(prop.action)
                table.default_const = prop.is_const
            elif isinstance(prop, ast.EntriesProperty):
                table.entries = [self._entry(e, i, table) for i, e in enumerate(prop.entries)]
            elif isinstance(prop, ast.ExprProperty):
                self._expr_property(prop, table)
        if t.prop("entries") is not None:
            self._size_to_entries(t, table, t.prop("entries"))
        if table.type != "simple" and table.entries is not None:
            raise Unsupported(t.prop("entries").pos, f"table {table.name}: const entries in a "
                                                     f"table with an action profile are not "
                                                     f"supported (p4c drops them)")
        if table.default is None:
            self._default_no_action(table)
        for c in self.ctx.out.counters:
            if c.binding == table.name:
                c.size = table.size
        for m in self.ctx.out.meters:
            if m.binding == table.name:
                m.size = table.size

    def _default_no_action(self, table: ir.Table) -> None:
        """A table without default_action gets core.p4's NoAction in its actions (p4c marks
        it @defaultonly) and as its default, not const (p4c's CreateBuiltins, spec
        14.2.1.3): the control plane may change the default, and on a miss action_run is
        NoAction, so a `switch` on it takes its `default:` branch."""
        decl = (self.ctx.program.scope or {}).get("NoAction")
        if isinstance(decl, ast.ActionDecl):
            name = self.action_name(decl)
        elif "NoAction" in table.actions:
            name = "NoAction"
        else:
            return                       # a program without core.p4's NoAction
        if name not in table.actions:
            table.actions.append(name)
        table.default = ir.ActionCall(name, [], [])
        table.default_const = False

    def _size_to_entries(self, t: ast.TableDecl, table: ir.Table, entries) -> None:
        """p4c sizes a table with an entries list to exactly those entries, whatever its
        `size` says (control.h, convertTable: max_size = the number of entries), so BMv2
        has no room for more: say so where that matters."""
        n = len(entries.entries)
        size = t.prop("size")
        if size is not None and _fold(size.value, "a table size") != n:
            self.ctx.diags.warning(size.pos, f"table {table.name}: size is replaced by the "
                                             f"number of its entries ({n}), as p4c does")
        elif size is None and not entries.is_const:
            self.ctx.diags.warning(entries.pos, f"table {table.name}: its {n} initial entries "
                                                "fill it (p4c's max_size), so the control "
                                                "plane can modify them but not add more")
        table.size = n

    def _expr_property(self, prop: ast.ExprProperty, table: ir.Table) -> None:
        if prop.name == "size":
            table.size = _fold(prop.value, "a table size")
        elif prop.name == "counters" and isinstance(prop.value, ast.MethodCallExpr):
            # an anonymous direct_counter(...): named as p4c names it, by the property's
            # @name or "counter" (a fresh name if that is taken)
            name = ast.name_annotation(prop) or "counter"
            if any(c.name == name for c in self.ctx.out.counters):
                name = self.ctx.action_names.fresh(name)
            self.ctx.out.counters.append(ir.CounterArray(name, 0, True, table.name,
                                                         source_info(prop, prop.name)))
            table.with_counters = True
        elif prop.name in ("counters", "meters"):
            info = self.ctx.extern_instances.get(id(getattr(prop.value, "decl", None)))
            wanted = "direct_counter" if prop.name == "counters" else "direct_meter"
            if info is None or info[0] != wanted:
                raise Unsupported(prop.pos, f"{prop.name} must name a {wanted} instance")
            arrays = self.ctx.out.counters if prop.name == "counters" else self.ctx.out.meters
            for a in arrays:
                if a.name == info[1]:
                    a.binding = table.name
            if prop.name == "counters":
                table.with_counters = True
            else:
                table.direct_meters = info[1]
        elif prop.name == "implementation":
            self._implementation(prop, table)
        elif prop.name == "support_timeout":
            # entry ageing is driven by the control plane; the JSON only enables it
            table.support_timeout = bool(getattr(prop.value, "folded", False))
        elif prop.name in ("largest_priority_wins", "priority_delta"):
            pass    # they give the entries' P4Runtime priorities (frontend/entry_priorities.py)
        else:
            self.ctx.diags.warning(prop.pos, f"table {table.name}: property {prop.name} is "
                                             "ignored by the BMv2 back end")

    def _implementation(self, prop: ast.ExprProperty, table: ir.Table) -> None:
        """`implementation = p` (a declared action_profile/action_selector) or
        `implementation = action_profile(N)` / `action_selector(algo, N, W)`: an indirect
        table, as p4c's handleTableImplementation writes it. The profile of a constructor
        call is named "action_profile" (p4c: the property's control-plane name)."""
        v = prop.value
        if isinstance(v, ast.PathExpr) and isinstance(v.decl, ast.Instantiation):
            kind, name = self.ctx.extern_instances.get(id(v.decl), (None, None))
            args, src = v.decl.args, source_info(v.decl, v.decl.name)
        else:
            kind = v.callee.name
            name = self.ctx.action_names.fresh("action_profile")
            args, src = v.args, source_info(v, kind)
        args = [a.expr if isinstance(a, ast.Argument) else a for a in args]
        if kind == "action_selector":
            profile = ir.ActionProfile(name, _fold(args[1], "an action selector size"),
                                       enum_member_name(args[0]), self._selector_inputs,
                                       src)
            table.type = "indirect_ws"
        else:
            profile = ir.ActionProfile(name, _fold(args[0], "an action profile size"),
                                       source=src)
            table.type = "indirect"
        known = self.action_profiles.get(name)
        if known is not None and known.selector_inputs != profile.selector_inputs:
            raise Unsupported(prop.pos, f"action selector {name} is shared by tables with "
                                        f"different selector keys")
        self.action_profiles.setdefault(name, profile)
        table.action_profile = name

    def _key(self, k: ast.KeyElement, table_name: str) -> ir.TableKey:
        if k.match_kind not in SUPPORTED_MATCH_KINDS:
            raise Unsupported(k.match_kind_pos or k.pos,
                              f"match kind {k.match_kind} is not supported")
        name = ast.name_annotation(k) or describe(k.expr)
        kind = bmv2_match_type(k.match_kind)
        e = k.expr
        lower = self.stmts.exprs
        if isinstance(e, ast.MethodCallExpr) and e.builtin == "isValid":
            valid = lower.lower(e)
            if isinstance(valid, ir.ValidRef):
                return ir.TableKey(kind, name, valid)
            # a union's validity is an expression: computed into a key temporary below
        if isinstance(e, ast.BinaryExpr) and e.op == "&" and e.right.folded is not None:
            target = lower.place(e.left)
            if isinstance(target, ir.FieldRef):
                return ir.TableKey(kind, name, target, _fold(e.right, "a key mask"))
        target = lower.place(e)
        if isinstance(target, ir.FieldRef):      # a bool field is a 1-bit field in BMv2
            return ir.TableKey(kind, name, target)
        value = lower.lower(e)
        t = value.type if not isinstance(value.type, ir.BoolType) else ir.Bits(1)
        tmp = self.ctx.scalars.temp("key", t)
        self.key_setup.setdefault(table_name, []).append(
            ir.Primitive("assign", [tmp, value], source_info(k, name)))
        return ir.TableKey(kind, name, tmp)

    def _entry(self, entry: ast.Entry, index: int, table: ir.Table) -> ir.Entry:
        if len(entry.keyset) != len(table.keys):
            raise Unsupported(entry.pos, f"entry has {len(entry.keyset)} keys, the table "
                                         f"{len(table.keys)}")
        matches = [self._match(ks, k, entry) for ks, k in zip(entry.keyset, table.keys)]
        # BMv2's priority, as p4c writes it: an @priority(N) annotation, else the position
        # (the smallest wins in BMv2, so the first listed does); `priority = N :` values
        # are P4Runtime's and not written (frontend/entry_priorities.py)
        annotated = ast.annotation(entry, "priority")
        priority = (_fold(entry.priority, "a priority")
                    if annotated is not None and entry.priority is not None
                    and written_priority(entry) is None else index + 1)
        return ir.Entry(matches, self._action_call(entry.action), priority)

    def _match(self, ks, key: ir.TableKey, entry) -> dict:
        width = 1 if isinstance(key.target, ir.ValidRef) else key.target.type.width
        full = (1 << width) - 1
        kind = key.match_type
        if isinstance(ks, (ast.DefaultExpr, ast.DontCareExpr)):
            if kind == "exact":
                raise Unsupported(ks.pos, "an exact key needs a value in a const entry")
            return {"match_type": kind, "key": 0, "mask": 0, "prefix_length": 0,
                    "start": 0, "end": full}
        if isinstance(ks, ast.MaskExpr):
            value, mask = _fold(ks.value, "a key") & full, _fold(ks.mask, "a mask") & full
            if kind == "ternary":
                return {"match_type": kind, "key": value & mask, "mask": mask}
            if kind == "lpm":
                plen = bin(mask).count("1")
                if mask != (full >> (width - plen)) << (width - plen):
                    raise Unsupported(ks.pos, "an lpm mask must be a prefix")
                return {"match_type": kind, "key": value & mask, "prefix_length": plen}
            raise Unsupported(ks.pos, f"a mask is not allowed for a {kind} key")
        if isinstance(ks, ast.RangeExpr):
            if kind != "range":
                raise Unsupported(ks.pos, f"a range is not allowed for a {kind} key")
            return {"match_type": kind, "start": _fold(ks.lo, "a range bound") & full,
                    "end": _fold(ks.hi, "a range bound") & full}
        value = _fold(ks, "a key") & full
        return {"match_type": kind, "key": value, "mask": full, "prefix_length": width,
                "start": value, "end": value}

    # ------------------------------------------------------------ apply block
    def _structured(self, stmts: list) -> list:
        out = []
        for s in stmts:
            out.extend(self._stmt(s))
        return out

    def _stmt(self, s) -> list:
        if isinstance(s, ast.BlockStmt):
            return self._structured(s.stmts)
        if isinstance(s, ast.IfStmt):
            return self._if(s)
        if isinstance(s, ast.SwitchStmt):
            return self._switch(s)
        if isinstance(s, ast.ExitStmt):
            return [cfg.Stop(True, source_info(s, "exit"))]
        if isinstance(s, ast.ReturnStmt):
            return [cfg.Stop(False, source_info(s, "return"))]
        if isinstance(s, ast.CallStmt) and s.call.kind == "table_apply":
            return self._apply(s.call)
        if isinstance(s, ast.ForStmt):
            return self._for(s)
        items = self.stmts.simple(s)
        return [cfg.Code(items, source_info(s), self._label(s))] if items else []

    def _for(self, s: ast.ForStmt) -> list:
        """A for loop in an apply block runs inside one synthesized action, compiled to jumps
        as in action bodies (p4c moves such code into actions too); BMv2's control graph has
        no back edges, so tables, switches, exit and return inside the loop are refused."""
        for n in ast.walk(s):
            what = ("a table apply" if isinstance(n, ast.MethodCallExpr) and
                    n.kind == "table_apply" else
                    STATEMENT_NAMES.get(type(n).__name__)
                    if isinstance(n, (ast.SwitchStmt, ast.ExitStmt, ast.ReturnStmt)) else None)
            if what is not None:
                raise Unsupported(n.pos, f"{what} inside a for loop of an apply block is not "
                                         "supported (BMv2 control graphs cannot loop)")
        items: list = []
        self.stmts.lower_for(s, items, None)
        return [cfg.Code(items, source_info(s), self._label(s))] if items else []

    def _table_of(self, call: ast.MethodCallExpr) -> str:
        name = self.table_decls.get(id(getattr(call.receiver, "decl", None)))
        if name is None:
            raise Unsupported(call.pos, f"{describe(call.receiver)} is not a table of "
                                        f"{self.name}")
        return name

    def _apply(self, call, **arms) -> list:
        name = self._table_of(call)
        # a table may be applied more than once when every application continues the same
        # way (the graph builder checks it, as p4c does); its key temporaries are computed
        # before each application
        self.applied.add(name)
        pre = list(self.key_setup.get(name, []))
        out = [cfg.Code(pre, source_info(call), self._label(call))] if pre else []
        out.append(cfg.Apply(name, source=source_info(call, name), pos=call.pos, **arms))
        return out

    def _hit_test(self, cond):
        """(apply call, wants_hit) for `t.apply().hit`, `.miss` and their negations."""
        negate = False
        while isinstance(cond, ast.UnaryExpr) and cond.op == "!":
            negate = not negate
            cond = cond.operand
        if (isinstance(cond, ast.MemberExpr) and cond.member in ("hit", "miss")
                and isinstance(cond.expr, ast.MethodCallExpr)
                and cond.expr.kind == "table_apply"):
            return cond.expr, (cond.member == "hit") != negate
        return None, None

    def _if(self, s: ast.IfStmt) -> list:
        then = self._stmt(s.then)
        other = self._stmt(s.other) if s.other is not None else []
        call, wants_hit = self._hit_test(s.cond)
        if call is not None:
            hit, miss = (then, other) if wants_hit else (other, then)
            return self._apply(call, hit=hit, miss=miss)
        cond = self.stmts.exprs.lower(s.cond)
        return [cfg.If(cond, then, other, source_info(s, describe(s.cond)))]

    def _switch(self, s: ast.SwitchStmt) -> list:
        if not s.on_action_run:
            return self._value_switch(s)
        call = s.expr.expr if isinstance(s.expr, ast.MemberExpr) else None
        if call is None or getattr(call, "kind", None) != "table_apply":
            raise Unsupported(s.pos, "switch must be on t.apply().action_run")
        cases, pending = [], []
        listed = self.table_actions.get(self._table_of(call), {})
        for case in s.cases:
            for label in case.labels:
                if isinstance(label, ast.DefaultExpr):
                    pending.append(None)
                else:
                    pending.append(listed.get(id(label.decl)) or self.action_name(label.decl))
            if case.body is not None:
                body = self._structured(case.body.stmts)
                named = [p for p in pending if p is not None]
                if named:
                    cases.append((named, body))
                if None in pending:
                    cases.append((None, body))
                pending = []
        return self._apply(call, cases=cases)

    def _value_switch(self, s: ast.SwitchStmt) -> list:
        """switch (x) { 1: {...} default: {...} } as an if/else chain."""
        subject = self.stmts.exprs.lower(s.expr)
        default_body: list = []
        pending = []
        arms = []
        for case in s.cases:
            pending.extend(case.labels)
            if case.body is None:
                continue
            body = self._structured(case.body.stmts)
            if any(isinstance(l, ast.DefaultExpr) for l in pending):
                default_body = body
            else:
                arms.append(([self.stmts.exprs.lower(l) for l in pending], body))
            pending = []
        chain = default_body
        for values, body in reversed(arms):
            cond = None
            for v in values:
                test = ir.Binary("==", subject, v, ir.BOOL)
                cond = test if cond is None else ir.Binary("||", cond, test, ir.BOOL)
            chain = [cfg.If(cond, body, chain, source_info(s))]
        return chain


class LowerControls:
    """Pass: ingress and egress pipelines."""
    name = "LowerControls"

    def run(self, ctx: Context) -> None:
        # externs instantiated at the top level are shared by both pipelines; p4c names them
        # without a control prefix
        for d in ctx.program.decls:
            if isinstance(d, ast.Instantiation) and isinstance(d.decl_type, ast.ExternDecl):
                lower_instance(ctx, d, "")
        ControlLowering(ctx, ctx.blocks.ingress, "ingress").run()
        ControlLowering(ctx, ctx.blocks.egress, "egress").run()


def flat_statements(stmts):
    """The statements of a block with nested blocks opened and empty statements left out
    (the straight-line bodies of checksum controls and deparsers)."""
    for s in stmts:
        if isinstance(s, ast.BlockStmt):
            yield from flat_statements(s.stmts)
        elif not isinstance(s, ast.EmptyStmt):
            yield s

