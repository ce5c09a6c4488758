"""A test oracle: evaluates BMv2 JSON expression trees with BMv2's documented semantics
(unbounded integers; JSON_format.md "The type value object"), so the back end's trees can be
checked against P4's arithmetic without a switch."""
from __future__ import annotations


def _hex(s: str) -> int:
    return -int(s[1:], 16) if s.startswith("-") else int(s, 16)


def evaluate(node, fields: dict, locals_: list = ()):
    t = node["type"]
    if t == "hexstr":
        return _hex(node["value"])
    if t == "bool":
        return node["value"]
    if t == "field":
        return fields[tuple(node["value"])]
    if t == "local":
        return locals_[node["value"]]
    if t == "runtime_data":
        return locals_[node["value"]]
    if t != "expression":
        raise ValueError(t)
    v = node["value"]
    if v.get("type") == "expression":      # primitive-argument double wrapping
        return evaluate(v, fields, locals_)
    op = v["op"]
    ev = lambda n: evaluate(n, fields, locals_)
    if op == "?":
        return ev(v["left"]) if ev(v["cond"]) else ev(v["right"])
    if op in ("d2b", "b2d", "not", "~"):
        x = ev(v["right"])
        return {"d2b": lambda: x != 0, "b2d": lambda: int(bool(x)), "not": lambda: not x,
                "~": lambda: ~x}[op]()
    a, b = ev(v["left"]), ev(v["right"])
    if op == "two_comp_mod":
        a &= (1 << b) - 1
        return a - (1 << b) if a >> (b - 1) else a
    if op == "usat_cast":
        return min(max(a, 0), (1 << b) - 1)
    if op == "sat_cast":
        return min(max(a, -(1 << (b - 1))), (1 << (b - 1)) - 1)
    return {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a // b,
        "%": lambda: a % b, "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
        "|": lambda: a | b, "^": lambda: a ^ b, "==": lambda: a == b, "!=": lambda: a != b,
        "<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b,
        "and": lambda: a and b, "or": lambda: a or b,
    }[op]()
