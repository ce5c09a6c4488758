"""End-to-end expression fuzzing: random well-typed P4 expressions over bit<W> / int<W>
fields (W in 1..128) are compiled by the whole compiler (front end, mid end, back end), run on
the embedded target, and compared with a Python model of P4_16's arithmetic (spec 8.6 unsigned
wraparound and saturation, 8.7 two's complement, 8.9 casts, slices and concatenation)."""
from __future__ import annotations

import random

import pytest

from toolchain.compiler import compile_file

WIDTHS = [1, 8, 16, 32, 48, 64, 128]
PROGRAMS = 30
PACKETS = 4
ETH = bytes.fromhex("00000000000200000000000188B5")


class Ty:
    def __init__(self, width: int, signed: bool):
        self.w, self.s = width, signed

    @property
    def p4(self) -> str:
        return f"{'int' if self.s else 'bit'}<{self.w}>"

    def wrap(self, v: int) -> int:
        v &= (1 << self.w) - 1
        return v - (1 << self.w) if self.s and v >> (self.w - 1) else v

    def sat(self, v: int) -> int:
        lo, hi = ((-(1 << (self.w - 1)), (1 << (self.w - 1)) - 1) if self.s
                  else (0, (1 << self.w) - 1))
        return min(max(v, lo), hi)


def gen(t: Ty, rng: random.Random, depth: int):
    """(P4 source, evaluator(env) -> value) of a random expression of type t."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.7:
            name = rng.choice("xyz")
            return name, lambda env, n=name: env[n]
        v = rng.randrange(1 << min(t.w - 1 if t.s else t.w, 20)) if t.w > 1 else rng.randrange(2)
        return f"{t.w}{'s' if t.s else 'w'}{v}", lambda env, v=v: v
    kind = rng.choice(["bin", "bin", "sat", "shift", "unary", "mux", "slice", "concat"])
    if kind in ("bin", "sat"):
        op = rng.choice(["+", "-", "*", "&", "|", "^"] if kind == "bin" else ["|+|", "|-|"])
        (a, fa), (b, fb) = gen(t, rng, depth - 1), gen(t, rng, depth - 1)
        f = {"+": lambda x, y: t.wrap(x + y), "-": lambda x, y: t.wrap(x - y),
             "*": lambda x, y: t.wrap(x * y), "&": lambda x, y: x & y, "|": lambda x, y: x | y,
             "^": lambda x, y: x ^ y, "|+|": lambda x, y: t.sat(x + y),
             "|-|": lambda x, y: t.sat(x - y)}[op]
        return f"({a} {op} {b})", lambda env: f(fa(env), fb(env))
    if kind == "shift":
        op, k = rng.choice(["<<", ">>"]), rng.randrange(0, t.w + 2)
        a, fa = gen(t, rng, depth - 1)
        if op == "<<":
            return f"({a} << {k})", lambda env: t.wrap(fa(env) << k)
        return f"({a} >> {k})", lambda env: fa(env) >> k
    if kind == "unary":
        op = rng.choice(["~", "-"])
        a, fa = gen(t, rng, depth - 1)
        if op == "~":
            return f"(~{a})", lambda env: t.wrap(~fa(env))
        return f"(-{a})", lambda env: t.wrap(-fa(env))
    if kind == "mux":
        cmp = rng.choice(["<", "<=", ">", ">=", "==", "!="])
        (a, fa), (b, fb) = gen(t, rng, depth - 1), gen(t, rng, depth - 1)
        (c, fc), (d, fd) = gen(t, rng, depth - 1), gen(t, rng, depth - 1)
        test = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y,
                ">=": lambda x, y: x >= y, "==": lambda x, y: x == y,
                "!=": lambda x, y: x != y}[cmp]
        return (f"(({a} {cmp} {b}) ? {c} : {d})",
                lambda env: fc(env) if test(fa(env), fb(env)) else fd(env))
    if kind == "slice":
        a, fa = gen(t, rng, depth - 1)
        lo = rng.randrange(t.w)
        hi = rng.randrange(lo, t.w)
        width = hi - lo + 1
        src = f"({a})[{hi}:{lo}]"
        src = f"({t.p4})(bit<{t.w}>){src}" if t.s else f"(bit<{t.w}>){src}"
        return src, lambda env: t.wrap(((fa(env) & ((1 << t.w) - 1)) >> lo) & ((1 << width) - 1))
    # concat (unsigned only: a ++ b is bit<2W>), shifted, cast back to bit<W>
    if t.s:
        return gen(t, rng, depth - 1)
    (a, fa), (b, fb) = gen(t, rng, depth - 1), gen(t, rng, depth - 1)
    k = rng.randrange(1, t.w + 1)
    return (f"(bit<{t.w}>)(({a} ++ {b}) >> {k})",
            lambda env: (((fa(env) << t.w) | fb(env)) >> k) & ((1 << t.w) - 1))


def body(t: Ty, rng: random.Random):
    """Where the expression is computed: (action body, apply body, evaluator). Straight-line
    in an action; an if/else inside an action (jumps); or an if/else in the apply block
    (BMv2 conditionals)."""
    expr, f = gen(t, rng, depth=3)
    mode = rng.randrange(3)
    locals_ = "".join(f"        {t.p4} {n} = hdr.v.{n};\n" for n in "xyz")
    if mode == 0:
        return locals_ + f"        hdr.v.r = {expr};\n", "compute();", f
    (a, fa), (b, fb) = gen(t, rng, 2), gen(t, rng, 2)
    other, g = gen(t, rng, 2)
    code = (f"        if ({a} < {b}) {{ hdr.v.r = {expr}; }}\n"
            f"        else {{ hdr.v.r = {other}; }}\n")
    evaluate = lambda env: f(env) if fa(env) < fb(env) else g(env)
    if mode == 1:
        return locals_ + code, "compute();", evaluate
    return "", "\n" + locals_ + code, evaluate


def program(t: Ty, action_body: str, apply_body: str) -> str:
    pad = (8 - (4 * t.w) % 8) % 8
    pad_field = f" bit<{pad}> pad;" if pad else ""
    return f"""#include <core.p4>
#include <v1model.p4>
header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> ether_type; }}
header v_t {{ {t.p4} x; {t.p4} y; {t.p4} z; {t.p4} r;{pad_field} }}
struct headers_t {{ ethernet_t ethernet; v_t v; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{
    state start {{ pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; }}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{
    action compute() {{
{action_body}    }}
    apply {{ std.egress_spec = 1; {apply_body} }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.ethernet); pkt.emit(hdr.v); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def pack(t: Ty, values: list) -> bytes:
    pad = (8 - (4 * t.w) % 8) % 8
    acc = 0
    for v in values:
        acc = (acc << t.w) | (v & ((1 << t.w) - 1))
    acc <<= pad
    return acc.to_bytes((4 * t.w + pad) // 8, "big")


@pytest.mark.parametrize("seed", range(PROGRAMS))
def test_random_expression_matches_p4_semantics(seed, tmp_path):
    from toolchain.switch import SimpleSwitch, load_program
    rng = random.Random(seed)
    width = rng.choice(WIDTHS)
    t = Ty(width, signed=width > 1 and rng.random() < 0.4)
    action_body, apply_body, evaluate = body(t, rng)
    src = tmp_path / "fuzz.p4"
    src.write_text(program(t, action_body, apply_body))
    sw = SimpleSwitch(load_program(compile_file(src)), seed=1)
    for _ in range(PACKETS):
        env = {n: t.wrap(rng.getrandbits(t.w)) for n in "xyz"}
        frame = ETH + pack(t, [env["x"], env["y"], env["z"], 0])
        (port, out), = sw.process(0, frame)
        want = ETH + pack(t, [env["x"], env["y"], env["z"], evaluate(env)])
        assert out == want, f"{src.read_text()}\nwith {env}"
