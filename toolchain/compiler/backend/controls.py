"""Control converter: pipelines (ingress, egress) as tables and conditionals.

Each P4 table becomes a BMv2 table; `.apply().hit/.miss` become `__HIT__`/`__MISS__` next
tables, `switch (t.apply().action_run)` per-action next tables (JSON_format.md, "pipelines").
"""
from __future__ import annotations

from ..midend import ir
from . import expressions as ex
from .source_info import attach

MATCH_TYPE_RANK = {"exact": 0, "lpm": 1, "ternary": 2, "range": 3}


def table_match_type(keys: list) -> str:
    """JSON_format.md: range if any key is range, else ternary if any ternary, else lpm..."""
    kinds = [k.match_type for k in keys] or ["exact"]
    return max(kinds, key=MATCH_TYPE_RANK.__getitem__)


def key_width(k: ir.TableKey) -> int:
    return 1 if isinstance(k.target, ir.ValidRef) else k.target.type.width


def _key(k: ir.TableKey) -> dict:
    if isinstance(k.target, ir.ValidRef):
        target = [k.target.header, "$valid$"]
    else:
        target = [k.target.header, k.target.field]
    mask = None if k.mask is None else ex.hexstr(k.mask, key_width(k))
    return {"match_type": k.match_type, "name": k.name, "target": target, "mask": mask}


def _action_entry(call: ir.ActionCall, action_ids: dict) -> dict:
    return {"action_id": action_ids[call.action],
            # p4c writes action data unpadded ("0x7"), unlike match keys
            "action_data": [ex.hexstr(v) for v in call.data]}


def _match_key(k: ir.TableKey, m: dict) -> dict:
    width = key_width(k)
    kind = m["match_type"]
    if kind == "exact":
        return {"match_type": "exact", "key": ex.hexstr(m["key"], width)}
    if kind == "lpm":
        return {"match_type": "lpm", "key": ex.hexstr(m["key"], width),
                "prefix_length": m["prefix_length"]}
    if kind == "ternary":
        return {"match_type": "ternary", "key": ex.hexstr(m["key"], width),
                "mask": ex.hexstr(m["mask"], width)}
    return {"match_type": "range", "start": ex.hexstr(m["start"], width),
            "end": ex.hexstr(m["end"], width)}


def table(t: ir.Table, table_id: int, action_ids: dict) -> dict:
    obj = {"name": t.name, "id": table_id}
    attach(obj, t.source)
    obj.update({
        "key": [_key(k) for k in t.keys],
        "match_type": table_match_type(t.keys),
        "type": t.type,
    })
    if t.action_profile is not None:
        obj["action_profile"] = t.action_profile
    obj.update({
        "max_size": t.size,
        "with_counters": t.with_counters,
        "support_timeout": t.support_timeout,
        "direct_meters": t.direct_meters,
        "action_ids": [action_ids[a] for a in t.actions],
        "actions": [ir.json_action_name(a) for a in t.actions],
        "base_default_next": t.base_default_next,
        "next_tables": {ir.json_action_name(a): n for a, n in t.next_tables.items()},
    })
    # p4c writes no default entry for a table with an action profile (the control plane
    # sets one through the profile: "Target does not support default_action ...")
    if t.default is not None and t.type == "simple":
        entry = _action_entry(t.default, action_ids)
        obj["default_entry"] = {"action_id": entry["action_id"], "action_const": t.default_const,
                                "action_data": entry["action_data"],
                                "action_entry_const": t.default_const}
    if t.entries is not None:
        obj["entries"] = [{"match_key": [_match_key(k, m) for k, m in zip(t.keys, e.keys)],
                           "action_entry": _action_entry(e.action, action_ids),
                           "priority": e.priority} for e in t.entries]
    return obj


def conditional(c: ir.Conditional, cond_id: int) -> dict:
    obj = {"name": c.name, "id": cond_id}
    attach(obj, c.source)
    obj.update({"expression": ex.condition(c.cond),
                "true_next": c.true_next, "false_next": c.false_next})
    return obj


def action_profile(ap: ir.ActionProfile, ap_id: int) -> dict:
    """JSON_format.md "action_profiles" (p4c's handleTableImplementation)."""
    obj = {"name": ap.name, "id": ap_id}
    attach(obj, ap.source)
    obj["max_size"] = ap.size
    if ap.selector_algo is not None:
        obj["selector"] = {"algo": ap.selector_algo,
                           "input": [ex.field_node(f.header, f.field)
                                     for f in ap.selector_inputs]}
    return obj


def pipelines(program: ir.Program, action_ids: dict) -> list:
    out, table_id, cond_id, ap_id = [], 0, 0, 0
    for i, p in enumerate(program.pipelines):
        tables = []
        for t in p.tables:
            tables.append(table(t, table_id, action_ids))
            table_id += 1
        conds = []
        for c in p.conditionals:
            conds.append(conditional(c, cond_id))
            cond_id += 1
        obj = {"name": p.name, "id": i}
        attach(obj, p.source)
        profiles = []
        for ap in p.action_profiles:
            profiles.append(action_profile(ap, ap_id))
            ap_id += 1
        obj.update({"init_table": p.init, "tables": tables, "action_profiles": profiles,
                    "conditionals": conds})
        out.append(obj)
    return out
