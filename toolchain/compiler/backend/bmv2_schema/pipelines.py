"""Pipelines: tables (keys, actions, next tables, default and const entries), conditionals,
action calls, the control graph without cycles, and primitives only one pipeline may run."""
from __future__ import annotations

from .reader import JsonReader
from .vocabulary import (BOOL, HASH_ALGORITHMS, hexstr_bytes, MATCH_TYPES, TABLE_MATCH_TYPES,
                         TABLE_TYPES)

# simple_switch reads each flag in one place only (simple_switch.cpp): resubmit and the
# ingress clone after the ingress pipeline, the egress clone after egress (it shares the
# clone register with the ingress clone, so an E2E clone in ingress acts as I2E). p4c
# rejects the misplaced calls ("not invoked in ingress/egress", backends/bmv2/simple_switch);
# recirculate is accepted by p4c in egress only.
# generate_digest likewise: the learn id is read after ingress (v1model.p4: "Calling digest
# is only supported in the ingress control").
PIPELINE_ONLY = {"resubmit": "ingress", "clone_ingress_pkt_to_egress": "ingress",
                 "clone_egress_pkt_to_egress": "egress", "recirculate": "egress",
                 "generate_digest": "ingress"}


def graph_edges(pipe: dict) -> dict:
    """Control node -> the nodes it may continue with (tables and conditionals)."""
    edges = {}
    for t in pipe.get("tables") or []:
        nxt = t.get("next_tables") if isinstance(t.get("next_tables"), dict) else {}
        edges[t.get("name")] = [v for v in [*nxt.values(), t.get("base_default_next")]
                                if v is not None]
    for c in pipe.get("conditionals") or []:
        edges[c.get("name")] = [v for v in (c.get("true_next"), c.get("false_next"))
                                if v is not None]
    for a in pipe.get("action_calls") or []:
        edges[a.get("name")] = [a["next_node"]] if a.get("next_node") is not None else []
    return edges


def find_cycle(edges: dict) -> list | None:
    """A cycle among the control nodes (iterative DFS), or None."""
    state = {}                                   # name -> 1 on stack, 2 done
    for root in edges:
        if state.get(root):
            continue
        stack = [(root, iter(edges.get(root, [])))]
        state[root] = 1
        path = [root]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif child in edges and not state.get(child):
                state[child] = 1
                stack.append((child, iter(edges[child])))
                path.append(child)
    return None


def derived_match_type(key_types: list) -> str:
    """p4c's table match type: range if any key is range, else ternary if any ternary,
    else lpm if any lpm, else exact (valid keys count as exact)."""
    for kind in ("range", "ternary", "lpm"):
        if kind in key_types:
            return kind
    return "exact"


class PipelineRules(JsonReader):
    # ------------------------------------------------------------------ pipelines
    def pipelines(self) -> None:
        pipes = self.named_objects("pipelines", "pipeline")
        # control node names are global (add_control_node: one map for all pipelines)
        for path, p in pipes:
            for kind in ("tables", "conditionals", "action_calls"):
                for k, node in enumerate(self.items(p, kind, path)):
                    name = node.get("name") if isinstance(node, dict) else None
                    if name in self.ctx.control_nodes:
                        self.bad(f"{path}.{kind}[{k}]", f"duplicate control node {name!r}")
                    self.ctx.control_nodes.add(name)
        for path, p in pipes:
            self.pipeline(p, path)
        self.file_wide_ids(pipes)

    def file_wide_ids(self, pipes: list) -> None:
        """JSON_format.md "pipelines": table, condition, action call and action profile ids
        are unique in the whole file, not only in their pipeline (the loader's DupIdChecker
        is per pipeline, but ids identify these objects to the runtime)."""
        for kind in ("tables", "conditionals", "action_calls", "action_profiles"):
            seen = {}
            for path, p in pipes:
                for k, obj in enumerate(self.items(p, kind, path)):
                    ident = obj.get("id") if isinstance(obj, dict) else None
                    if ident in seen and seen[ident] != path:
                        self.bad(f"{path}.{kind}[{k}]", f"id {ident} is already used by "
                                                        f"{kind} of {seen[ident]}")
                    seen.setdefault(ident, path)

    def control_graphs(self) -> None:
        """Each pipeline's graph stays inside the pipeline (the node map is global, so the
        loader would let ingress continue into an egress table) and has no cycle
        (Pipeline::apply follows next nodes until null: a cycle never ends); primitives
        simple_switch honours in one pipeline only are used there."""
        for i, pipe in enumerate(self.items(self.doc, "pipelines", "$")):
            if not isinstance(pipe, dict):
                continue
            path, edges = f"pipelines[{i}]", graph_edges(pipe)
            for node, nexts in edges.items():
                for n in nexts:
                    if n in self.ctx.control_nodes and n not in edges:
                        self.bad(path, f"node {node!r} continues with {n!r} of another pipeline")
            init = pipe.get("init_table")
            if init is not None and init in self.ctx.control_nodes and init not in edges:
                self.bad(path, f"init_table {init!r} belongs to another pipeline")
            cycle = find_cycle(edges)
            if cycle:
                self.bad(path, f"control flow cycle {' -> '.join(cycle)}: the pipeline would "
                               "never end")
            self.primitive_placement(pipe, path)

    def primitive_placement(self, pipe: dict, path: str) -> None:
        ids = set()
        by_name = {n: i for i, (n, _) in self.ctx.actions.items()}
        for t in pipe.get("tables") or []:
            ids.update(i for i in t.get("action_ids") or [] if isinstance(i, int))
            if "action_ids" not in t:
                ids.update(by_name[n] for n in t.get("actions") or [] if n in by_name)
            default = t.get("default_entry")
            if isinstance(default, dict):
                ids.add(default.get("action_id"))
        ids.update(a.get("action_id") for a in pipe.get("action_calls") or [])
        for ident in sorted(i for i in ids if i in self.ctx.action_ops):
            for op in sorted(self.ctx.action_ops[ident]):
                where = PIPELINE_ONLY.get(op)
                if where is not None and pipe.get("name") in ("ingress", "egress") \
                        and pipe.get("name") != where:
                    self.bad(path, f"action '{self.ctx.actions[ident][0]}' calls {op} in "
                                   f"{pipe.get('name')}; simple_switch only honours it in "
                                   f"{where} (p4c rejects it)")

    def next_node(self, value, path: str) -> None:
        if value is not None and value not in self.ctx.control_nodes:
            self.bad(path, f"invalid reference to control node {value!r}")

    def pipeline(self, p: dict, path: str) -> None:
        self.next_node(p.get("init_table"), f"{path}.init_table")
        profiles = set()
        for k, ap in enumerate(self.items(p, "action_profiles", path)):
            profiles.add(ap.get("name"))
            if "selector" in ap:
                sel = ap["selector"]
                if sel.get("algo") not in HASH_ALGORITHMS:
                    self.bad(f"{path}.action_profiles[{k}]", "unknown selector algorithm")
                for e in sel.get("input", []):
                    if e.get("type") != "field":
                        self.bad(f"{path}.action_profiles[{k}]", "selector inputs are fields")
                    else:
                        self.field_ref(e.get("value"), f"{path}.action_profiles[{k}]")
        ids = set()
        for k, t in enumerate(self.items(p, "tables", path)):
            tpath = f"{path}.tables[{k}]"
            ident = self.integer(t, "id", tpath, minimum=0)
            if ident in ids:
                self.bad(tpath, f"several tables have the same id {ident}")
            ids.add(ident)
            self.table(t, tpath, profiles)
        ids = set()
        for k, c in enumerate(self.items(p, "conditionals", path)):
            cpath = f"{path}.conditionals[{k}]"
            ident = self.integer(c, "id", cpath, minimum=0)
            if ident in ids:
                self.bad(cpath, f"several conditions have the same id {ident}")
            ids.add(ident)
            # Conditional::eval pops a bool: the expression must produce one
            self.expect_kind(c.get("expression"), f"{cpath}.expression", BOOL, None)
            if "true_next" not in c and "false_next" not in c:
                self.bad(cpath, "conditional must have either or both of the keys "
                                "'true_next' and 'false_next'")
            self.next_node(c.get("true_next"), f"{cpath}.true_next")
            self.next_node(c.get("false_next"), f"{cpath}.false_next")
        for k, ac in enumerate(self.items(p, "action_calls", path)):
            apath = f"{path}.action_calls[{k}]"
            action = self.ctx.actions.get(ac.get("action_id"))
            if action is None:
                self.bad(apath, f"action id {ac.get('action_id')!r} does not exist")
            elif action[1]:
                self.bad(apath, f"cannot call action '{action[0]}' directly from control as "
                                "it expects parameters")
            self.next_node(ac.get("next_node"), f"{apath}.next_node")

    def table(self, t: dict, path: str, profiles: set) -> None:
        keys = self.items(t, "key", path)
        key_bytes, key_types = self.table_keys(keys, path)
        match_type = t.get("match_type")
        if match_type not in TABLE_MATCH_TYPES:
            self.bad(path, f"table match_type {match_type!r} (create_match_unit asserts)")
        elif keys and match_type != derived_match_type(key_types):
            # p4c derives it from the keys; a lookup structure of another kind matches
            # differently (an exact unit ignores ternary masks, an lpm one priorities)
            self.bad(path, f"table match_type {match_type!r} but its keys call for "
                           f"{derived_match_type(key_types)!r}")
        table_type = t.get("type")
        if table_type not in TABLE_TYPES:
            self.bad(path, f"invalid table type {table_type!r}")
        elif table_type != "simple" and t.get("action_profile") not in profiles and \
                "act_prof_name" not in t:
            self.bad(path, "indirect tables need an 'action_profile'")
        if "max_size" not in t and "entries" not in t:
            self.bad(path, "table has neither 'max_size' nor 'entries' attribute")
        if "max_size" in t:
            self.integer(t, "max_size", path, minimum=0)
        self.boolean(t, "with_counters", path)
        self.boolean(t, "support_timeout", path)
        meter = t.get("direct_meters")
        if meter is not None and not self.ctx.meters.get(meter):
            self.bad(path, f"refers to unknown direct meter array {meter!r}")
        action_ids = self.table_actions(t, path)
        self.table_next(t, path, action_ids)
        self.default_entry(t, path, action_ids)
        if "entries" in t:
            self.entries(t, path, keys, key_bytes, action_ids)

    def table_keys(self, keys: list, path: str):
        key_bytes, key_types = [], []
        lpm = 0
        for k, key in enumerate(keys):
            kpath = f"{path}.key[{k}]"
            mt = key.get("match_type") if isinstance(key, dict) else None
            if mt not in MATCH_TYPES:
                self.bad(kpath, f"invalid match type: {mt!r}")
                key_bytes.append(0)
                key_types.append("exact")
                continue
            lpm += mt == "lpm"
            key_types.append(mt)
            if mt == "valid":
                self.header_ref(key.get("target"), kpath)
                key_bytes.append(1)
                continue
            width = self.field_ref(key.get("target"), kpath)
            nbytes = (width + 7) // 8 if isinstance(width, int) else 0
            key_bytes.append(nbytes)
            mask = key.get("mask")
            if mask is not None and self.hexstring(mask, f"{kpath}.mask", signed=False) \
                    and hexstr_bytes(mask) != nbytes:
                self.bad(f"{kpath}.mask", f"mask has {hexstr_bytes(mask)} bytes, the field "
                                          f"{nbytes}")
        if lpm > 1:
            self.bad(path, "table features 2 LPM match fields")
        return key_bytes, key_types

    def table_actions(self, t: dict, path: str) -> list:
        """The loader reads "action_ids" when present (else "actions" by name); p4c writes
        both, and they must agree for the control plane, which uses the names."""
        action_ids = self.items(t, "action_ids", path)
        names = self.items(t, "actions", path)
        for ident in action_ids:
            if ident not in self.ctx.actions:
                self.bad(path, f"action id {ident!r} does not exist (actions_map.at throws)")
        by_name = [self.ctx.actions[i][0] for i in action_ids if i in self.ctx.actions]
        for n in sorted({n for n in by_name if by_name.count(n) > 1}):
            # add_action_to_table: one (table, action name) pair each
            self.bad(path, f"duplicate actions with name '{n}' in the table")
        if "action_ids" in t and "actions" in t:
            by_id = [self.ctx.actions.get(i, (None,))[0] for i in action_ids]
            if by_id != names:
                self.bad(path, f"'actions' {names} do not name 'action_ids' {action_ids}")
        if "action_ids" not in t:
            # old format: get_one_action_with_name, the first action of that name
            first = {}
            for ident, (n, _) in sorted(self.ctx.actions.items(), key=lambda kv: str(kv[0])):
                first.setdefault(n, ident)
            for n in names:
                if n not in first:
                    self.bad(path, f"action {n!r} does not exist")
            return [first[n] for n in names if n in first]
        return action_ids

    def table_next(self, t: dict, path: str, action_ids: list) -> None:
        """check_next_nodes: exactly {__HIT__, __MISS__}, or exactly one key per action."""
        nxt = t.get("next_tables")
        if not isinstance(nxt, dict):
            self.bad(path, "next_tables must be a JSON object")
            return
        if "__HIT__" in nxt or "__MISS__" in nxt:
            if set(nxt) != {"__HIT__", "__MISS__"}:
                self.bad(f"{path}.next_tables", "has one of '__HIT__'/'__MISS__' but not both, "
                                                "or other keys besides")
        else:
            # the loader counts the list it reads: "action_ids", else "actions" (old format)
            names = ([self.ctx.actions.get(i, (None,))[0] for i in action_ids]
                     if "action_ids" in t else list(self.items(t, "actions", path)))
            if len(nxt) != len(names):
                self.bad(f"{path}.next_tables", f"should have exactly {len(names)} keys, "
                                                f"one per action, found {len(nxt)}")
            for n in names:
                if n not in nxt:
                    self.bad(f"{path}.next_tables", f"no key for action {n!r}")
        for key, value in nxt.items():
            self.next_node(value, f"{path}.next_tables.{key}")
        if "base_default_next" in t:
            self.next_node(t["base_default_next"], f"{path}.base_default_next")

    def default_entry(self, t: dict, path: str, action_ids: list) -> None:
        if "default_entry" not in t:
            return
        d = t["default_entry"]
        dpath = f"{path}.default_entry"
        if not isinstance(d, dict):
            self.bad(dpath, "must be an object")
            return
        self.boolean(d, "action_const", dpath)
        self.boolean(d, "action_entry_const", dpath)
        if d.get("action_const") and t.get("type") != "simple":
            self.bad(dpath, "'action_const' is meaningless for a table not of type 'simple'")
        if "action_data" not in d:
            self.bad(dpath, "'default_entry' should have key 'action_data'")
        self.action_entry(d, dpath, action_ids)

    def action_entry(self, entry: dict, path: str, action_ids: list) -> None:
        ident = entry.get("action_id")
        if ident not in self.ctx.actions:
            self.bad(path, f"action id {ident!r} does not exist")
            return
        if ident not in action_ids:
            # no next node is registered for an action outside the table
            self.bad(path, f"action id {ident} is not one of the table's actions")
        name, n_params = self.ctx.actions[ident]
        data = entry.get("action_data", [])
        if not isinstance(data, list) or len(data) != n_params:
            self.bad(path, f"invalid number of arguments for action '{name}': expected "
                           f"{n_params} but got {len(data) if isinstance(data, list) else data}")
            return
        for k, v in enumerate(data):
            self.hexstring(v, f"{path}.action_data[{k}]")

    def entries(self, t: dict, path: str, keys: list, key_bytes: list,
                action_ids: list) -> None:
        """parse_match_key and MatchTable::add_entry: one key per table key, same match
        type, byte sizes of the field; no duplicate entries."""
        if t.get("type") != "simple":
            self.bad(path, "only 'simple' tables can have 'entries'")
        seen = set()
        for e, entry in enumerate(self.items(t, "entries", path)):
            epath = f"{path}.entries[{e}]"
            mk = self.items(entry, "match_key", epath)
            if len(mk) != len(keys):
                self.bad(epath, f"invalid number of fields in match key, expected "
                                f"{len(keys)} but got {len(mk)}")
                continue
            signature = []
            for k, (m, ref, nbytes) in enumerate(zip(mk, keys, key_bytes)):
                signature.append(self.entry_key(m, ref, nbytes, f"{epath}.match_key[{k}]"))
            self.action_entry(entry.get("action_entry", {}), f"{epath}.action_entry",
                              action_ids)
            priority = self.integer(entry, "priority", epath)
            ident = (tuple(signature), priority if t.get("match_type") in
                     ("ternary", "range") else None)
            if ident in seen:
                self.bad(epath, "duplicate entries in table initializer")
            seen.add(ident)

    def entry_key(self, m, ref, nbytes: int, path: str):
        mt = m.get("match_type") if isinstance(m, dict) else None
        ref_mt = ref.get("match_type") if isinstance(ref, dict) else None
        if mt != ref_mt:
            self.bad(path, f"invalid match type, expected {ref_mt} but got {mt}")
            return None
        parts = {"exact": ("key",), "lpm": ("key",), "ternary": ("key", "mask"),
                 "range": ("start", "end"), "valid": ()}.get(mt, ())
        values = []
        for part in parts:
            v = m.get(part)
            if self.hexstring(v, f"{path}.{part}", signed=False):
                if hexstr_bytes(v) != nbytes:
                    self.bad(f"{path}.{part}", f"{hexstr_bytes(v)} bytes, the key field has "
                                               f"{nbytes} (BAD_MATCH_KEY)")
                values.append(int(v, 16))
        if mt == "lpm":
            plen = self.integer(m, "prefix_length", path, minimum=0)
            if isinstance(plen, int) and plen > nbytes * 8:
                self.bad(path, f"prefix_length {plen} longer than the key")
            values.append(plen)
        if mt == "valid":
            self.boolean(m, "key", path, required=True)
            values.append(m.get("key"))
        return (mt, tuple(values))
