"""A test program with one match table ``MyIngress.t`` over header fields of ``h``."""

from .jsonkit import P, X, action, assign, frame, pack, program, unpack

FIELDS = [["a", 8, False], ["b", 32, False], ["m", 48, False], ["r", 8, False], ["s", 8, False]]


def table_prog(keys, *, default=("MyIngress.nop", []), const_default=False, entries=None, max_size=64,
               with_counters=False, hit_miss=False):
    """keys: [(match_type, field)]. Actions: MyIngress.setr(bit<8> v) sets h.r; MyIngress.set2(bit<8> v,
    bit<48> mac) sets h.r and h.m; MyIngress.nop does nothing. Hit/miss tables write h.s = 1/2."""
    prog = program(FIELDS)
    acts = [action("MyIngress.setr", 10, [assign("h", "r", P(0))], [("v", 8)]),
            action("MyIngress.set2", 11, [assign("h", "r", P(0)), assign("h", "m", P(1))], [("v", 8), ("mac", 48)]),
            action("MyIngress.nop", 12, []),
            action("hit_act", 13, [assign("h", "s", X(1))]),
            action("miss_act", 14, [assign("h", "s", X(2))])]
    prog["actions"] += acts
    names = {a["name"]: a["id"] for a in acts}
    first = prog["pipelines"][0]["tables"][0]
    first["next_tables"] = {"set_port": "MyIngress.t"}
    first["base_default_next"] = "MyIngress.t"
    nxt = {"__HIT__": "tbl_hit", "__MISS__": "tbl_miss"} if hit_miss else \
        {n: None for n in ("MyIngress.setr", "MyIngress.set2", "MyIngress.nop")}
    t = {"name": "MyIngress.t", "id": 7, "match_type": keys[0][0] if keys else "exact", "type": "simple",
         "key": [{"match_type": mt, "name": f"hdr.h.{f}", "target": ["h", f], "mask": None} for mt, f in keys],
         "max_size": max_size, "with_counters": with_counters, "support_timeout": False, "direct_meters": None,
         "action_ids": [10, 11, 12], "actions": ["MyIngress.setr", "MyIngress.set2", "MyIngress.nop"],
         "base_default_next": None, "next_tables": nxt,
         "default_entry": {"action_id": names[default[0]], "action_const": const_default,
                           "action_data": [hex(v) for v in default[1]], "action_entry_const": const_default}}
    if any(mt in ("ternary", "range") for mt, _ in keys):
        t["match_type"] = "ternary"
    if entries is not None:
        t["entries"] = entries
    prog["pipelines"][0]["tables"].append(t)
    if hit_miss:
        from .jsonkit import keyless_table
        prog["pipelines"][0]["tables"] += [keyless_table("tbl_hit", 20, "hit_act", 13),
                                           keyless_table("tbl_miss", 21, "miss_act", 14)]
    if with_counters:
        prog["counter_arrays"].append({"name": "MyIngress.t_counter", "id": 0, "is_direct": True,
                                       "binding": "MyIngress.t", "size": max_size})
    return prog


def send(sw, **values):
    out = sw.process(0, frame(pack(FIELDS, values)))
    assert len(out) == 1, out
    return unpack(FIELDS, out[0][1][14:])
